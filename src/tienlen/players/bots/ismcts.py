"""``ismcts``: single-observer information-set Monte Carlo tree search.

One tree is grown over the bot's information set. Each iteration

1. samples a determinization: the unseen cards (not in the bot's hand, not played) dealt at
   random to the other seats in their exact card counts, the rest set aside
   (:func:`~tienlen.players.toolkit.sample_hands`); of ``guesses`` samples it keeps the one
   that best explains the opponents' recent plays under a model opponent
   (:mod:`.inference`);
2. builds that game with :meth:`tienlen.Game.from_state`;
3. plays one root move (the root moves take turns on each determinization, so their
   results are paired) and descends the tree by UCB1 with availability counts (a child's
   exploration term counts the visits in which its move was legal, as the
   information-set version requires), with progressive widening: a node offers the model's
   own choice first and more moves as it is visited more often; one node is added;
4. plays the game out with the ``heuristic`` scoring for every seat (or ``greedy``, cheaper,
   or ``learned``: the ``learned`` bot's network for every seat, from that seat's view of the
   determinization) and backs the result up: every node is credited with the reward of the
   seat that made its move.

The moves considered are pruned: at the root the ``heuristic`` bot's best ``root_moves``
moves and the pass (with ``roots="learned"``, also the ``learned`` bot's own choice among
every legal move, so the search can play a move the heuristic never proposes); deeper, for
every seat, the lowest play of each kind and size, the lowest bomb and the pass. The answer
is the first root move (the heuristic's first choice, or with ``roots="learned"`` the root
move the ``learned`` bot's network values most: its prior) unless another root move did
better on the same determinizations by more than ``margin`` standard errors.

The budget is a number of iterations or seconds (:class:`~tienlen.players.base.Budget`);
with an iteration budget and a seed the bot is deterministic.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any, cast

from tienlen.combos import PASS, Choice, Move, RulesIndex, index
from tienlen.game import Game
from tienlen.gc_pause import paused_gc
from tienlen.observation import Observation, observe
from tienlen.players.base import Budget
from tienlen.players.bots.determinize import Determinizer
from tienlen.players.bots.greedy import greedy_pick
from tienlen.players.bots.heuristic import Context, HeuristicBot
from tienlen.players.toolkit import play_out

__all__ = ["IsmctsBot", "PolicyMemo", "heuristic_policy", "rollout_heuristic"]

#: Memo of the model's choices during one search: (seat, hands, pile top, legal moves) ->
#: the chosen move. Playouts from the root moves of one determinization meet the same
#: positions again and again.
PolicyMemo = dict[tuple[object, ...], Move]
_FREE = Budget()


class _Node:
    __slots__ = ("avail", "children", "n", "w")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 1


def _reward(game: Game, win: float = 0.6) -> list[float]:
    """Per seat: ``win`` for a win, plus ``1 - win`` × (seats finished below) / (n − 1)."""
    order = game.finish_order
    n = len(order)
    out = [0.0] * n
    rest = 1.0 - win
    for pos, seat in enumerate(order):
        out[seat] = rest * (n - 1 - pos) / (n - 1) + (win if pos == 0 else 0.0)
    return out


def _candidates(legal: Sequence[Move], ix: RulesIndex) -> list[Move]:
    """The moves searched below the root: the lowest play of each kind and size, the
    lowest bomb and the pass."""
    lowest: dict[tuple[str, int], Move] = {}
    has_pass = False
    for m in legal:
        if not m.mask:
            has_pass = True
            continue
        key = (m.kind, m.size)
        best = lowest.get(key)
        if best is None or m.top_id < best.top_id:
            lowest[key] = m
    out = list(lowest.values())
    if has_pass:
        out.append(PASS)
    return out


class IsmctsBot:
    """The ``ismcts`` bot (see the module docstring)."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.7,
        root_moves: int = 3,
        prior: float = 0.01,
        playout: str = "heuristic",
        roots: str = "heuristic",
        guesses: int = 3,
        recent: int = 2,
        margin: float = 1.0,
        widening: float = 0.5,
        win_weight: float = 1.0,
        name: str = "ismcts",
    ) -> None:
        self.name = name
        self._rng = random.Random(seed)
        if iterations is None and seconds is None:
            seconds = 0.2
        Budget(seconds=seconds, iterations=iterations)  # refuses nan, inf and 0 iterations
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.root_moves = root_moves
        self.prior = prior
        self.guesses = guesses
        self.recent = recent
        self.margin = margin
        self.widening = widening
        self.win_weight = win_weight
        if playout not in ("greedy", "heuristic", "learned"):
            raise ValueError(f"playout must be 'greedy', 'heuristic' or 'learned', not {playout!r}")
        if roots not in ("heuristic", "learned"):
            raise ValueError(f"roots must be 'heuristic' or 'learned', not {roots!r}")
        self._learned: Any = None
        if "learned" in (playout, roots):
            from tienlen.players.bots.learned import LearnedBot  # numpy: only when asked

            self._learned = LearnedBot()
        self._order_roots = roots == "learned"
        self._playout = {
            "greedy": _rollout,
            "heuristic": rollout_heuristic,
            "learned": self._rollout_learned,
        }[playout]
        self._heuristic = HeuristicBot()
        #: Iterations run by the last search (for benchmarks).
        self.last_iterations = 0

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """Search within ``budget`` (else the bot's own default) and return the best root
        move (see the module docstring)."""
        if len(legal) == 1:
            return legal[0]
        ranked = self._heuristic.ranked(obs, legal)
        if obs.phase != "play" or ranked[0].score >= 100.0:
            return ranked[0].move  # exchanges, trading, and going out need no search
        roots = [s.move for s in ranked[: self.root_moves] if isinstance(s.move, Move)]
        if PASS in legal and PASS not in roots:
            roots.append(PASS)
        if self._order_roots and len(roots) > 1:
            roots = self._learned_order(obs, legal, roots)
        if len(roots) == 1:
            return roots[0]
        iterations = budget.iterations
        seconds = budget.seconds
        if iterations is None and seconds is None:
            iterations, seconds = self.iterations, self.seconds
        # The search makes many short-lived objects and no reference cycles: a full
        # collection of the memo tables in the middle of a move would cost a second.
        with paused_gc():
            return self._search(obs, roots, iterations, seconds)

    def _learned_order(
        self, obs: Observation, legal: Sequence[Choice], roots: list[Move]
    ) -> list[Move]:
        """``roots`` and the ``learned`` bot's own choice among every legal move (which the
        heuristic may not have proposed), by the network's values, highest first."""
        from tienlen.players.bots.learned import move_features, state_features

        net = self._learned.net_for(obs.rules)
        values = net.values(state_features(obs), move_features(obs, legal))
        rows = [legal.index(m) for m in roots]
        best = max(range(len(legal)), key=lambda i: float(values[i]))
        if best not in rows and isinstance(legal[best], Move):
            rows.append(best)
        rows.sort(key=lambda i: -float(values[i]))
        return [cast(Move, legal[i]) for i in rows]

    def _rollout_learned(self, game: Game, ix: RulesIndex, memo: PolicyMemo) -> None:
        """Play ``game`` to its end with the ``learned`` bot at every seat, each seeing its
        own view of the determinization."""
        bot = self._learned
        play_out(game, lambda game, legal: bot.choose(observe(game, game.turn), legal, _FREE))

    def _search(
        self,
        obs: Observation,
        roots: list[Move],
        iterations: int | None,
        seconds: float | None,
    ) -> Move:
        rng = self._rng
        ix = index(obs.rules)
        root = _Node()
        c = self.exploration
        deals = Determinizer(obs, guesses=self.guesses, recent=self.recent)
        deadline = time.perf_counter() + seconds if seconds is not None else math.inf
        done = 0
        game0: Game | None = None
        turn = 0
        paired: list[list[float]] = [[] for _ in roots]
        memo: PolicyMemo = {}
        while True:
            if iterations is not None and done >= iterations:
                break
            if done and time.perf_counter() >= deadline:
                break
            done += 1
            # Root moves take turns on a shared determinization (paired comparisons:
            # the luck of the deal cancels out between them).
            if turn == 0:
                game0 = Game.from_state(obs, rules=obs.rules, hands=deals.sample(rng))
            assert game0 is not None
            first = roots[turn]
            slot = turn
            turn = (turn + 1) % len(roots)
            game = game0.copy()
            mover = game.turn
            node = root.children.get(first.mask)
            if node is None:
                node = root.children[first.mask] = _Node()
            game.apply_unchecked(first)
            path: list[tuple[_Node, int]] = [(node, mover)]
            cands: Sequence[Move]
            while not game.is_over:
                legal = game.legal_plays()
                if len(legal) == 1:
                    cands = legal
                else:
                    # progressive widening: the model's own choice first, then the others
                    # one by one as the node is visited more often
                    policy = heuristic_policy(game, legal, memo)
                    width = 1 + int(self.widening * math.sqrt(node.n))
                    cands = [policy]
                    if width > 1:
                        others = [m for m in _candidates(legal, ix) if m.mask != policy.mask]
                        cands.extend(others[: width - 1])
                mover = game.turn
                children = node.children
                untried: Move | None = None
                best: Move | None = None
                best_value = -1.0
                for m in cands:
                    child = children.get(m.mask)
                    if child is None:
                        if untried is None:
                            untried = m
                        continue
                    child.avail += 1
                    if untried is None:
                        value = child.w / child.n + c * math.sqrt(math.log(child.avail) / child.n)
                        if value > best_value:
                            best, best_value = m, value
                if untried is not None:
                    child = _Node()
                    children[untried.mask] = child
                    game.apply_unchecked(untried)
                    path.append((child, mover))
                    break
                assert best is not None
                node = children[best.mask]
                path.append((node, mover))
                game.apply_unchecked(best)
            self._playout(game, ix, memo)
            reward = _reward(game, self.win_weight)
            paired[slot].append(reward[obs.seat])
            for child, mover in path:
                child.n += 1
                child.w += reward[mover]
        self.last_iterations = done
        # The heuristic's choice (listed first) stands unless another move did better on
        # the same determinizations by more than ``margin`` standard errors.
        rounds = len(paired[-1])
        best_move = roots[0]
        best_score = 0.0
        base = paired[0][:rounds]
        for i in range(1, len(roots)):
            diffs = [a - b for a, b in zip(paired[i][:rounds], base, strict=True)]
            if len(diffs) < 2:
                continue
            mean = statistics.fmean(diffs)
            se = statistics.stdev(diffs) / math.sqrt(len(diffs))
            score = mean - self.margin * se - self.prior
            if score > best_score:
                best_move, best_score = roots[i], score
        return best_move


def _rollout(game: Game, ix: RulesIndex, memo: PolicyMemo) -> None:
    """Play ``game`` to its end with :func:`greedy_pick` for every seat."""

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        plays = _plays(legal)
        seat = game.turn
        hands = game.hand_masks
        fewest = min((h.bit_count() for s, h in enumerate(hands) if s != seat and h), default=99)
        top = game.top
        return greedy_pick(hands[seat], plays, top.move if top else None, fewest, ix)

    play_out(game, pick)


def heuristic_policy(game: Game, legal: Sequence[Move], memo: PolicyMemo) -> Move:
    """The ``heuristic`` scoring's choice for the seat to act, which treats the other hands
    as its unseen cards."""
    seat = game.turn
    hands = game.hand_masks
    on_top = game.top
    top = on_top.move if on_top else None
    key = (
        seat,
        hands,
        top.mask if top else -1,
        top.kind if top else "",
        tuple(m.mask for m in legal),
    )
    found = memo.get(key)
    if found is not None:
        return found
    others = 0
    for s, h in enumerate(hands):
        if s != seat:
            others |= h
    ctx = Context(game.rules, seat, hands[seat], [h.bit_count() for h in hands], top, others)
    found = memo[key] = ctx.best(legal)
    return found


def rollout_heuristic(game: Game, ix: RulesIndex, memo: PolicyMemo) -> None:
    """Play ``game`` to its end with the ``heuristic`` bot's scoring for every seat (each
    seat treats the other hands as its unseen cards)."""
    play_out(game, lambda game, legal: heuristic_policy(game, _plays(legal), memo))


def _plays(legal: Sequence[Choice]) -> Sequence[Move]:
    """The choices of a searched game: one built by ``Game.from_state`` is in its play
    phase, where every choice is a move (no give)."""
    return cast(Sequence[Move], legal)
