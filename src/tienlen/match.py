"""A match: a series of games under one :class:`~tienlen.Rules`, with a running score.

Between games the match applies the rotation rules (RULES.md "Deal and start"):

- the first dealer is drawn at random (from the match seed); afterwards the loser of each
  game deals the next one (the dealer only matters for who shuffles; the deal itself is the
  same whoever deals);
- with ``rules.later_leads == "winner"`` the previous winner leads the next game freely;
  otherwise every game starts as the first one does (``rules.first_lead``);
- with ``rules.trading == "san-jose"`` every game after the first opens with the exchange,
  from the previous finish order;
- with ``rules.chop_debts`` or ``rules.loser_owes_twos``, the cards a game leaves owed
  (:func:`tienlen.scoring.card_debts`) are settled at the next deal;
- with people ``waiting`` (004 UT Pike's "loser's spot"), the first one in line replaces
  the loser for the next game and the loser joins the end of the line; the newcomer deals
  (the seat is the loser's, who deals anyway), and since "a new player joins", that game
  starts as the first one does (004: "it starts by who has the lowest card again");
- with ``rules.deal_four_hands`` and two players, the two hands left unused by a fresh deal
  are the next game's hands, without reshuffling; the game after that is dealt afresh.

Scoring is automatic: the first time the match is asked about scores, results, whether it
is over, or for a new game after the current game has ended, the finished game is scored
with :func:`tienlen.scoring.score`. :meth:`Match.record_game` does the same explicitly.

A seeded match is reproducible: the dealer draw and every deal derive from the seed and the
game number.

>>> m = Match("standard", games=2, seed=7)
>>> while not m.is_over:
...     while not m.game.is_over:
...         _ = m.game.play(m.game.legal_moves()[0])
...     if not m.is_over:
...         _ = m.new_game()
>>> len(m.results), sum(m.scores)
(2, 0)
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .cards import Card
from .debts import CardDebt
from .game import Game
from .rules import Rules
from .scoring import card_debts, guarantee_payments, net_points, score

__all__ = ["GameResult", "Match", "parse_seed"]

_NUMBER = re.compile(r"-?\d+")


def parse_seed(text: str) -> int | str:
    """A seed as typed or as written in a record: digits (with an optional minus sign) are
    a number, any other text is the seed itself. (``7`` and ``"7"`` deal differently, so
    every reader must agree.)

    >>> parse_seed("42"), parse_seed("-3"), parse_seed("club night")
    (42, -3, 'club night')
    """
    return int(text) if _NUMBER.fullmatch(text) else text


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one finished game of a match."""

    number: int
    """The game's number in the match, from 1."""
    finish_order: tuple[int, ...]
    """Seats in finishing order, the winner first and the loser last."""
    deltas: tuple[int, ...]
    """Points won (or lost, negative) by each seat in this game."""
    instant_win: tuple[int, str] | None
    """``(seat, hand name)`` when the game was won at the deal (tới trắng)."""
    dealer: int
    """The seat that dealt the game."""
    seed: int | str | None
    """The seed the game was dealt from (``None``: unseeded, or dealt from unused hands)."""
    debts: tuple[CardDebt, ...] = ()
    """Cards this game leaves owed, settled at the next deal (chop debts, the loser's 2s)."""
    guarantees: tuple[tuple[int, bool], ...] = ()
    """``(seat, blind)`` for each seat that guaranteed a first place (Pro-Play's side bets;
    their payments are in :attr:`deltas`)."""
    seating: tuple[int, ...] = ()
    """The person at each seat (people are numbered from 0; see :attr:`Match.seating`)."""

    @property
    def winner(self) -> int:
        """The first seat out."""
        return self.finish_order[0]

    @property
    def loser(self) -> int:
        """The last seat."""
        return self.finish_order[-1]


class Match:
    """A series of games between the same seats under ``rules``.

    ``games`` ends the match after that many games; ``target`` ends it as soon as a
    player has that many points (003 suggests 10). With neither, the match goes on until
    the caller stops asking for new games. ``seed`` makes the whole match reproducible.
    The first game is dealt at once: :attr:`game` is always the current game.

    ``waiting`` people wait for the loser's spot (004 UT Pike): the match is then between
    ``rules.players + waiting`` people, numbered from 0, who start seated in order with
    the last ``waiting`` in line; :attr:`scores` and :meth:`standings` are per person.
    Without anyone waiting, people and seats are the same numbers.
    """

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        games: int | None = None,
        target: int | None = None,
        seed: int | str | None = None,
        waiting: int = 0,
    ) -> None:
        if isinstance(rules, str):
            rules = Rules.preset(rules)
        if games is not None and games < 1:
            raise ValueError(f"games must be at least 1, not {games!r}")
        if target is not None and target < 1:
            raise ValueError(f"target must be at least 1 point, not {target!r}")
        if not isinstance(waiting, int) or waiting < 0:
            raise ValueError(f"waiting must be a number of people, 0 or more, not {waiting!r}")
        if waiting and (
            rules.trading == "san-jose" or rules.chop_debts != "none" or rules.loser_owes_twos
        ):
            # Both hand cards over between the last game's seats, which the loser has left.
            raise ValueError(
                "the loser's spot (waiting > 0) cannot be combined with San Jose trading "
                "or card debts"
            )
        self._rules = rules
        self._games = games
        self._target = target
        self._seed = seed
        n = rules.players
        if seed is None:
            self._dealer = random.SystemRandom().randrange(n)
        else:
            self._dealer = random.Random(f"{seed}/dealer").randrange(n)
        self._seating = tuple(range(n))
        self._line = tuple(range(n, n + waiting))
        self._scores = [0] * (n + waiting)
        self._results: list[GameResult] = []
        self._debts: tuple[CardDebt, ...] = ()
        self._guarantees: dict[int, bool] = {}
        self._number = 1
        self._game_seed = self.seed_of(1)
        self._game = Game(rules, seed=self._game_seed)
        # Hands a four-hand deal left over for the next game (two players only).
        self._spare_hands = self._unused_for_next(self._game)

    # --- state ------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The rules every game of the match is played under."""
        return self._rules

    @property
    def game(self) -> Game:
        """The current game (possibly finished)."""
        return self._game

    @property
    def number(self) -> int:
        """The current game's number, from 1."""
        return self._number

    @property
    def dealer(self) -> int:
        """The seat that dealt the current game."""
        return self._dealer

    @property
    def game_seed(self) -> int | str | None:
        """The seed the current game was dealt from (``None`` if dealt otherwise)."""
        return self._game_seed

    @property
    def seating(self) -> tuple[int, ...]:
        """The person at each seat in the current game."""
        return self._seating

    @property
    def waiting(self) -> tuple[int, ...]:
        """The people waiting for the loser's spot, first in line first."""
        return self._line

    @property
    def debts(self) -> tuple[CardDebt, ...]:
        """The card debts settled at the current game's deal (from the game before; the
        game's ``setup.debts``)."""
        return self._debts

    @property
    def games(self) -> int | None:
        """The number of games the match lasts, if fixed."""
        return self._games

    @property
    def target(self) -> int | None:
        """The score that ends the match, if any."""
        return self._target

    @property
    def scores(self) -> tuple[int, ...]:
        """Every person's total points over the finished games (per seat when nobody
        waits)."""
        self._sync()
        return tuple(self._scores)

    @property
    def results(self) -> list[GameResult]:
        """The finished games' results, oldest first (a copy)."""
        self._sync()
        return list(self._results)

    @property
    def is_over(self) -> bool:
        """Whether the agreed number of games is played or a seat reached the target."""
        self._sync()
        if self._games is not None and len(self._results) >= self._games:
            return True
        return self._target is not None and max(self._scores) >= self._target

    def standings(self) -> list[tuple[int, int]]:
        """``(person, points)`` pairs, best first; equal points keep the people's order."""
        scores = self.scores
        return sorted(enumerate(scores), key=lambda sp: (-sp[1], sp[0]))

    def seed_of(self, number: int) -> str | None:
        """The seed game ``number`` is dealt from (``None`` for an unseeded match)."""
        return None if self._seed is None else f"{self._seed}/game{number}"

    @property
    def guarantees(self) -> dict[int, bool]:
        """The current game's guarantees: seat -> whether it was made blind (a copy)."""
        return dict(self._guarantees)

    # --- transitions ------------------------------------------------------------------
    def guarantee(self, seat: int, *, blind: bool = False) -> None:
        """``seat`` guarantees to go out first in the current game (004 Pro-Play's
        "Guaransheeds", under ``rules.guarantees``); ``blind`` when they have not seen
        their hand ("Blind Guaransheeds": the caller knows, the engine cannot). Only
        before the game's first move, once per seat. 004: "A Guaransheed must be approved
        by all players before play begins": asking the table is the caller's part."""
        if not self._rules.guarantees:
            raise ValueError("these rules have no guarantees (rules.guarantees is off)")
        if not 0 <= seat < self._rules.players:
            raise ValueError(f"seat must be 0-{self._rules.players - 1}, not {seat!r}")
        if self._game.history or self._game.is_over:
            raise ValueError("a guarantee must be made before play begins")
        if seat in self._guarantees:
            raise ValueError(f"seat {seat} has already guaranteed this game")
        self._guarantees[seat] = blind

    def record_game(self) -> GameResult:
        """Score the current game, which must be over; calling it again is harmless."""
        if not self._game.is_over:
            raise ValueError(f"game {self._number} is not over yet")
        self._sync()
        return self._results[-1]

    def new_game(self) -> Game:
        """Score the finished current game and start the next one; returns it."""
        if not self._game.is_over:
            raise ValueError(f"game {self._number} is not over yet: finish it first")
        if self.is_over:
            raise ValueError("the match is over")
        prev = self._game
        rules = self._rules
        self._number += 1
        self._dealer = prev.finish_order[-1]
        leader = prev.finish_order[0] if rules.later_leads == "winner" else None
        if self._line:
            loser = prev.finish_order[-1]
            newcomer, *rest = self._line
            self._line = (*rest, self._seating[loser])
            self._seating = tuple(
                newcomer if s == loser else p for s, p in enumerate(self._seating)
            )
            leader = None
        previous = prev.finish_order if rules.trading == "san-jose" else None
        self._debts = self._results[-1].debts
        self._guarantees = {}
        if self._spare_hands is not None:
            self._game_seed = None
            self._game = Game(
                rules,
                hands=self._spare_hands,
                leader=leader,
                previous_finish=previous,
                debts=self._debts,
            )
            self._spare_hands = None
        else:
            self._game_seed = self.seed_of(self._number)
            self._game = Game(
                rules,
                seed=self._game_seed,
                leader=leader,
                previous_finish=previous,
                debts=self._debts,
            )
            self._spare_hands = self._unused_for_next(self._game)
        return self._game

    # --- helpers ----------------------------------------------------------------------
    def _sync(self) -> None:
        """Score the current game if it is over and not scored yet."""
        if self._game.is_over and len(self._results) < self._number:
            game = self._game
            extra = net_points(guarantee_payments(game, self._guarantees), game.rules.players)
            deltas = [a + b for a, b in zip(score(game), extra, strict=True)]
            for seat, d in enumerate(deltas):
                self._scores[self._seating[seat]] += d
            self._results.append(
                GameResult(
                    number=self._number,
                    finish_order=game.finish_order,
                    deltas=tuple(deltas),
                    instant_win=game.instant_win,
                    dealer=self._dealer,
                    seed=self._game_seed,
                    debts=tuple(card_debts(game)),
                    seating=self._seating,
                    guarantees=tuple(sorted(self._guarantees.items())),
                )
            )

    def _unused_for_next(self, game: Game) -> tuple[tuple[Card, ...], ...] | None:
        unused = game.unused_hands
        if self._rules.deal_four_hands and len(unused) == self._rules.players:
            return unused
        return None

    def __repr__(self) -> str:
        return (
            f"<Match {self._rules.name} game={self._number} scores={list(self.scores)}"
            f"{' over' if self.is_over else ''}>"
        )
