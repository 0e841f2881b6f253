"""The open-hands solver: with every hand known, who can force going out next.

Tiến Lên with open hands is a finite game without chance: every play removes cards and every
pass brings the pile closer to its end, so a position has an exact answer. The question
answered here is the one that decides a game's winner: can ``seat`` force being the *next*
seat to go out (the first, in a game where nobody is out yet) against *any* play by the
others, the others all playing against it? With two seats left this is the whole game: if
one cannot force it, the other can (:func:`first_out`).

The search is an AND-OR search over :meth:`tienlen.Game.search_key` (the hands as card
bitmasks and the state of the pile), memoised, with a play that goes out at once tried
first. A position's size is its cards in hand in total; the work grows quickly with it, so
every search has a node budget and raises :class:`TooLargeError` (a ``ValueError``) when it
is spent rather than run on (docs/analysis.md gives the measured limits).

>>> from tienlen import Game
>>> game = Game.from_position("8d10d/4hJh/Jc/10h 1 0 0:4s - - -", rules="standard")
>>> solution = solve(game)  # seat 1 to act, on the 4♠
>>> solution.wins, [str(m) for m in solution.winning]
(True, ['J♥'])
>>> [f"{a.seat}:{a.move}" for a in solution.line]
['1:J♥', '2:pass', '3:pass', '0:pass', '1:4♥']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from tienlen.combos import Move
from tienlen.game import Game
from tienlen.gc_pause import paused_gc
from tienlen.position import Action

__all__ = [
    "DEFAULT_NODES",
    "EXACT_CARDS",
    "EXACT_NODES",
    "Solution",
    "Solver",
    "TooLargeError",
    "exact_choices",
    "first_out",
    "forced_winner",
    "next_out_is_the_stake",
    "solve",
]

#: The default node budget of a search: about a second of search on one core
#: (docs/analysis.md).
DEFAULT_NODES = 40_000
#: The most cards in hand, in all, of a position the analysis asks the solver about
#: (:func:`exact_choices`), and the node budget it gives it there.
EXACT_CARDS = 20
EXACT_NODES = 5_000


class TooLargeError(ValueError):
    """A position the solver gave up on: its search needed more nodes than its budget."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The solver's answer for ``seat`` in one position."""

    seat: int
    """The seat the question is about."""
    wins: bool
    """Whether ``seat`` can force being the next seat out, whatever the others play."""
    choices: tuple[tuple[Move, bool], ...]
    """Every legal choice of the seat to act, with whether ``seat`` can still force going
    out next after it."""
    line: tuple[Action, ...]
    """When ``seat`` wins: a line of play that wins (the winning choices for ``seat``, and
    for the others a play that resists: the biggest one), up to ``seat`` going out."""
    nodes: int
    """Positions the search expanded."""

    @property
    def winning(self) -> list[Move]:
        """The choices after which ``seat`` still forces going out next (for the seat to act
        being ``seat``: its winning plays)."""
        return [m for m, won in self.choices if won]


def _order(moves: Sequence[Move]) -> list[Move]:
    """The seat's moves in search order: the biggest plays first (they shed the most), the
    pass last."""
    return sorted(moves, key=lambda m: (-m.mask.bit_count(), -m.top_id))


def _order_resisting(moves: Sequence[Move]) -> list[Move]:
    """The others' moves in search order: the biggest plays first, the lowest top first
    among plays of a size (keeping the high cards for later), the pass last. On the learned
    bot's endgame deals (``bench/solver_order.py``: 1,112 deals, 10,000 positions each) the
    seat's order took 6% more positions and found 263 deals too large against 235."""
    return sorted(moves, key=lambda m: (-m.mask.bit_count(), m.top_id))


class Solver:
    """Solves positions of games under one set of rules, keeping what it has learnt: the
    positions of one game share most of their search (an analysis solves one after the
    other). ``nodes`` is the budget of each :meth:`solve` call."""

    def __init__(self, *, nodes: int = DEFAULT_NODES) -> None:
        if nodes < 1:
            raise ValueError(f"a node budget is at least 1, not {nodes!r}")
        self.nodes = nodes
        self._memo: dict[tuple[int, tuple[object, ...]], bool] = {}
        self._spent = 0
        self._limit = 0

    def solve(self, game: Game, seat: int | None = None) -> Solution:
        """Whether ``seat`` (default: the seat to act) can force going out next in
        ``game`` (play phase, every hand known), with each choice of the seat to act.
        Raises :class:`TooLargeError` when the budget is spent, ``ValueError`` for a game
        that is not in its play phase or a seat that is out."""
        if game.phase != "play":
            raise ValueError(f"the solver answers in the play phase, not {game.phase!r}")
        n = game.rules.players
        target = game.turn if seat is None else seat
        if not 0 <= target < n:
            raise ValueError(f"seat must be 0-{n - 1}, not {seat!r}")
        if not game.cards_left(target):
            raise ValueError(f"seat {target} is out already")
        self._spent = 0
        self._limit = self.nodes
        choices = []
        with paused_gc():  # the search makes no reference cycles
            try:
                for move in game.legal_plays():
                    child = game.copy()
                    child.apply_unchecked(move)
                    choices.append((move, self._after(child, target, len(game.finish_order))))
            except TooLargeError as e:
                cards = sum(game.cards_left(s) for s in range(n))
                raise TooLargeError(f"{e} (a position of {cards} cards in hand)") from None
            verdicts = [won for _, won in choices]
            wins = any(verdicts) if game.turn == target else all(verdicts)
            line = self._line(game, target) if wins else ()
        return Solution(target, wins, tuple(choices), line, self._spent)

    @property
    def spent(self) -> int:
        """Positions the last :meth:`solve` or :meth:`forces_after` expanded (a search past
        its budget: the budget and one)."""
        return self._spent

    def forces_after(self, game: Game, move: Move, seat: int) -> bool:
        """Whether ``seat`` can still force going out next once the seat to act in
        ``game`` plays ``move``: that choice's verdict in :meth:`solve`, without the other
        choices, the line or the checks (``game`` in its play phase, ``move`` legal in it,
        ``seat`` not out). Stops at the first answer that settles it; raises
        :class:`TooLargeError` past the budget."""
        self._spent = 0
        self._limit = self.nodes
        child = game.copy()
        child.apply_unchecked(move)
        with paused_gc():
            return self._after(child, seat, len(game.finish_order))

    def _after(self, game: Game, seat: int, out: int) -> bool:
        finish = game.finish_order
        if len(finish) > out:
            return finish[out] == seat
        return self._wins(game, seat)

    def _wins(self, game: Game, seat: int) -> bool:
        position = game.search_key()
        key = (seat, position)
        memo = self._memo
        found = memo.get(key)
        if found is not None:
            return found
        self._spent += 1
        if self._spent > self._limit:
            raise TooLargeError(f"too large to solve: more than {self._limit:,} positions searched")
        mover = game.turn
        legal = game.legal_plays()
        # the hands as the search key holds them: no second tuple of them per node
        hand = cast(tuple[int, ...], position[0])[mover]
        out = len(game.finish_order)
        if any(m.mask == hand for m in legal):  # the seat to act goes out at once
            result = mover == seat
        elif mover == seat:
            result = False
            for m in _order(legal):
                child = game.copy()
                child.apply_unchecked(m)
                if self._after(child, seat, out):
                    result = True
                    break
        else:
            result = True
            for m in _order_resisting(legal):
                child = game.copy()
                child.apply_unchecked(m)
                if not self._after(child, seat, out):
                    result = False
                    break
        memo[key] = result
        return result

    def _line(self, game: Game, seat: int) -> tuple[Action, ...]:
        """A winning line for ``seat`` from ``game`` (which it wins)."""
        line: list[Action] = []
        game = game.copy()
        out = len(game.finish_order)
        while len(game.finish_order) == out:
            mover = game.turn
            legal = _order(game.legal_plays())
            pick = legal[0]
            if mover == seat:
                for m in legal:
                    child = game.copy()
                    child.apply_unchecked(m)
                    if self._after(child, seat, out):
                        pick = m
                        break
            line.append(Action(mover, pick))
            game.apply_unchecked(pick)
        return tuple(line)


def solve(game: Game, seat: int | None = None, *, nodes: int = DEFAULT_NODES) -> Solution:
    """:meth:`Solver.solve` with a fresh solver: whether ``seat`` (default: the seat to
    act) can force going out next in ``game``, within ``nodes`` positions."""
    return Solver(nodes=nodes).solve(game, seat)


def next_out_is_the_stake(cards_in_hand: Sequence[int]) -> bool:
    """Whether the solver's question, who can force going out next, is what a seat in play
    has at stake, given every seat's cards in hand: nobody is out yet (going out next is the
    win) or two seats are left (it is not being last)."""
    left = sum(1 for count in cards_in_hand if count)
    return left == len(cards_in_hand) or left == 2


def exact_choices(game: Game, seat: int, *, solver: Solver) -> dict[int, bool] | None:
    """Where the solver's question is ``seat``'s stake (nobody is out, or two seats are
    left) and ``game`` holds at most :data:`EXACT_CARDS` cards in hand: for each choice of
    the seat to act (by its card mask), whether ``seat`` can force its stake after it.
    ``None`` elsewhere, or where the search runs past ``solver``'s budget."""
    in_hand = [game.cards_left(s) for s in range(game.rules.players)]
    if not next_out_is_the_stake(in_hand) or sum(in_hand) > EXACT_CARDS:
        return None
    try:
        solution = solver.solve(game, seat)
    except TooLargeError:
        return None
    return {m.mask: won for m, won in solution.choices}


def forced_winner(game: Game, *, solver: Solver | None = None) -> int | None:
    """The seat that can force going out next whatever the others play, if one can (at
    most one can); ``None`` when no seat can force it alone."""
    solver = solver or Solver()
    for seat in range(game.rules.players):
        if game.cards_left(seat) and solver.solve(game, seat).wins:
            return seat
    return None


def first_out(game: Game, *, solver: Solver | None = None) -> int:
    """With two seats left, the one that goes out first with best play on both sides."""
    seats = [s for s in range(game.rules.players) if game.cards_left(s)]
    if len(seats) != 2:
        raise ValueError(f"first_out needs two seats left, not {len(seats)}")
    solver = solver or Solver()
    return seats[0] if solver.solve(game, seats[0]).wins else seats[1]
