"""``heuristic``: a hand-planning player.

It prices every legal move by what it does to the hand's plan (the split of the hand
into the fewest, cheapest combinations, :class:`~tienlen.players.bots.analysis.Planner`),
then adjusts for the situation:

- card tracking: the unseen cards tell which of its combinations nobody can beat any more
  ("bosses"); with one combination left after a boss, it plays the boss and goes out;
- it keeps 2s and bombs while its hand still needs several plays, chops 2s with bombs,
  and spends a 2 on a low pile only when an opponent is close to going out;
- against an opponent holding one card it leads pairs and runs rather than singles, or
  its highest single, and beats singles with its highest card;
- passing is a move like the others: it passes rather than break a pair or a run for a
  pile that is not worth it.

:meth:`HeuristicBot.ranked` returns every move with its score and a reason in words; the
hint feature and the search bot's move ordering use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tienlen.cards import ACE, RANK_BITS, RANK_MASK, RANKS, TWO
from tienlen.combos import PASS, Move, describe_kind, is_twos
from tienlen.observation import Observation
from tienlen.players.base import Budget
from tienlen.players.bots.analysis import counts_of, is_boss, planner, unseen_mask

__all__ = ["HeuristicBot", "Scored"]

TWOS: int = RANK_MASK << (RANK_BITS * TWO)


class Scored(NamedTuple):
    """A move with its score (higher is better) and the reason, in words."""

    score: float
    move: Move
    reason: str


def _name(m: Move) -> str:
    if m.kind == "single":
        return f"single {m.top}"
    if m.kind in ("pair", "triple", "quad"):
        return f"{m.kind} of {RANKS[m.top_rank]}s"
    return describe_kind(m.kind, m.size, m.top_rank, m.top)


class HeuristicBot:
    """The ``heuristic`` bot: plans its hand, tracks cards, watches opponents near out."""

    def __init__(self, *, name: str = "heuristic") -> None:
        self.name = name

    def choose(self, obs: Observation, legal: Sequence[Move], budget: Budget) -> Move:
        """The best-scored move of :meth:`ranked`."""
        if len(legal) == 1:
            return legal[0]
        return self.ranked(obs, legal)[0].move

    def decide(self, obs: Observation, legal: Sequence[Move]) -> tuple[Move, str]:
        """The chosen move and why."""
        best = self.ranked(obs, legal)[0]
        return best.move, best.reason

    def ranked(self, obs: Observation, legal: Sequence[Move]) -> list[Scored]:
        """Every legal move, scored and with a reason, best first (ties: lowest first)."""
        if not legal:
            raise ValueError("no legal moves to rank")
        if legal[0].kind == "give":
            return self._gives(obs, legal)
        if obs.phase == "trading" or len(legal) == 1 and legal[0].is_pass:
            return [Scored(0.0, m, "nothing to do but pass") for m in legal]
        ctx = _Context(obs)
        out = [ctx.score(m) for m in legal]
        out.sort(key=lambda s: (-s.score, s.move.top_id, s.move.mask))
        return out

    def _gives(self, obs: Observation, legal: Sequence[Move]) -> list[Scored]:
        pl = planner(obs.rules)
        hand = obs.hand_mask
        out = []
        for m in legal:
            cost = pl.cost(hand & ~m.mask)
            out.append(Scored(-cost, m, "give away the cards your hand needs least"))
        out.sort(key=lambda s: (-s.score, s.move.mask))
        return out


class _Context:
    """The facts one decision needs, computed once."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        rules = obs.rules
        self.rules = rules
        self.pl = planner(rules)
        self.hand = obs.hand_mask
        self.before = self.pl.plan(counts_of(self.hand))
        self.units = len(self.before.units)
        self.unseen = unseen_mask(obs)
        self.uc = counts_of(self.unseen)
        counts = obs.card_counts
        others = [c for s, c in enumerate(counts) if s != obs.seat and c]
        self.fewest = min(others, default=99)
        n, step = rules.players, rules.step
        nxt = obs.seat
        for _ in range(n - 1):
            nxt = (nxt + step) % n
            if counts[nxt]:
                break
        self.next_count = counts[nxt] if nxt != obs.seat else 99
        self.top = obs.pile[-1].move if obs.pile else None

    def score(self, m: Move) -> Scored:
        if self.top is None:
            return self._lead(m)
        return self._follow(m)

    # --- leading ----------------------------------------------------------------------
    def _lead(self, m: Move) -> Scored:
        if m.is_pass:
            return Scored(-5.0, m, "decline the lead")
        hand = self.hand
        after = hand & ~m.mask
        if not after:
            return Scored(100.0, m, f"go out with your {_name(m)}")
        pl = self.pl
        rest = pl.plan(counts_of(after))
        breakage = rest.cost + pl.move_cost(m) - self.before.cost
        rank = m.top_rank
        cards = m.mask.bit_count()
        s = -breakage - 0.05 * rank + 0.03 * cards
        reason = f"lead your lowest {_name(m)}" if cards == 1 else f"shed {cards} cards: {_name(m)}"
        boss = is_boss(m, self.unseen, self.rules, self.uc)
        control = bool(m.mask & TWOS) or pl.is_bomb_unit(m.kind, m.size, rank)
        if control and len(rest.units) > 1:
            s -= 0.8
        if boss and len(rest.units) == 1:
            s += 3.0
            reason = f"nobody can beat your {_name(m)}: keep the lead, then go out"
        elif boss and len(rest.units) <= 2:
            s += 0.5
            reason = f"nobody can beat your {_name(m)}: take control for the finish"
        if self.fewest == 1 and m.kind == "single" and not boss:
            s += -1.5 + 0.12 * rank
            reason = f"an opponent has one card: lead your highest single ({m.top})"
        elif self.fewest == 1 and m.kind != "single":
            s += 0.3
            reason = f"an opponent has one card: lead a {_name(m)}, not a single"
        elif self.fewest == 2 and m.kind == "pair" and not boss:
            s -= 0.4
        return Scored(s, m, reason)

    # --- following --------------------------------------------------------------------
    def _follow(self, m: Move) -> Scored:
        top = self.top
        assert top is not None
        urgent = self.fewest <= 2
        if m.is_pass:
            s = 0.0
            reason = "pass: nothing worth playing on this pile"
            if urgent:
                s -= 0.3
            return Scored(s, m, reason)
        hand = self.hand
        after = hand & ~m.mask
        if not after:
            return Scored(100.0, m, f"go out with your {_name(m)}")
        pl = self.pl
        rest = pl.plan(counts_of(after))
        breakage = rest.cost + pl.move_cost(m) - self.before.cost
        rank = m.top_rank
        s = 0.5 - breakage - 0.01 * rank
        reason = f"play your lowest {_name(m)} that beats the pile"
        if breakage > 0.4:
            reason = f"the {_name(m)} breaks up your hand"
        bomb = pl.is_bomb_unit(m.kind, m.size, rank) and (m.kind, m.size) != (top.kind, top.size)
        if bomb:
            if is_twos(top):
                s += 0.9
                reason = f"chop the {_name(top)} with your {_name(m)}"
            elif urgent:
                s += 0.3
                reason = f"an opponent is nearly out: bomb with your {_name(m)}"
            else:
                s -= 1.0
                reason = f"keep your {_name(m)} for the 2s"
        elif m.mask & TWOS:
            if not (urgent or self.units <= 3 or top.top_rank >= ACE):
                s -= 0.6
                reason = f"keep your 2s for later rather than play the {_name(m)}"
            else:
                s += 0.2
                reason = f"win the pile with your {_name(m)}"
        if is_boss(m, self.unseen, self.rules, self.uc) and len(rest.units) == 1:
            s += 3.0
            reason = f"nobody can beat your {_name(m)}: win the pile, then go out"
        if top.kind == "single" and self.next_count == 1:
            s += 0.5 + 0.06 * rank
            reason = f"the next player has one card: beat with your highest single ({m.top})"
        elif urgent:
            s += 0.3
        return Scored(s, m, reason)
