"""The review of a whole game: every decision of the chosen seats valued and labelled.

:func:`review_game` replays a :class:`~tienlen.record.GameRecord` and, at each play, pass
or give (the exchanges before the play: San Jose, card debts), offer of a trade or answer
to one with more than one choice, values every choice from the deciding seat's own observation
(:func:`~tienlen.analysis.decisions.analyse_decision`). The choice made is labelled by its
*loss*: how much probability of the decision's stake (first place; once a seat is out, not
finishing last) it gives up against the best choice, measured on the same sampled deals.

Labels (:func:`label`) go by the loss less two standard errors, so that a label is never
worse than the samples show with about 97.5% confidence:

========== ==================================
best       the best choice (no loss)
good       under 5 points of probability lost
inaccuracy 5 to 10 points
mistake    10 to 20 points
blunder    20 points or more
========== ==================================

A card game is noisier than chess: a fair share of the game is the deal, and a 5-point
swing in one decision is already what separates a strong player's choice from a weak one's
(docs/analysis.md gives the measurements behind these numbers).

With every hand known (a record holds them all), positions small enough for the open-hands
solver also get its exact verdict on each choice: whether the seat could force its stake
whatever the others held and played (hindsight: the seat itself did not see the hands).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tienlen.cards import mask_of, parse_cards
from tienlen.combos import PASS
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.position import Action
from tienlen.record import GameRecord, RecordedAction, apply_action
from tienlen.solver import EXACT_NODES, Solver, exact_choices

from .decisions import (
    DEFAULT_SAMPLES,
    AcceptTrade,
    DecisionValues,
    Estimate,
    OfferTrade,
    Option,
    analyse_decision,
    format_option,
    options_of,
)

__all__ = [
    "LABELS",
    "THRESHOLDS",
    "GameReview",
    "ReviewedDecision",
    "decisions_of",
    "label",
    "review_decision",
    "review_decision_data",
    "review_game",
    "summary",
]

#: The labels, best first.
LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
#: The least loss (probability of the stake, less two standard errors) of each label
#: after ``good``.
THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}


def label(loss: Estimate) -> str:
    """The label of a choice that loses ``loss`` against the best one (see the module
    docstring)."""
    if loss.mean <= 0.0:
        return "best"
    sure = loss.mean - 2.0 * loss.error
    for name in ("blunder", "mistake", "inaccuracy"):
        if sure >= THRESHOLDS[name]:
            return name
    return "good"


@dataclass(frozen=True, slots=True)
class ReviewedDecision:
    """One decision of a reviewed game."""

    number: int
    """The action's number in the record (from 1)."""
    seat: int
    played: Option
    values: DecisionValues
    loss: Estimate
    """The loss of the choice made against the best one."""
    label: str
    exact: dict[int, bool] | None
    """Where the solver reached: for each choice (by its card mask) whether the seat could
    force its stake with open hands after it."""

    @property
    def best(self) -> Option:
        """The best choice."""
        return self.values.best.choice

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON data."""
        exact = self.exact

        def choice(v: Any) -> dict[str, Any]:
            out = {
                "choice": format_option(v.choice, ascii=True),
                "win": _est(v.win),
                "place": _est(v.place),
                "points": _est(v.points),
                "samples": v.samples,
            }
            if exact is not None:
                out["exact"] = exact.get(v.choice.mask)
            return out

        return {
            "number": self.number,
            "seat": self.seat,
            "stake": self.values.stake,
            "choice": format_option(self.played, ascii=True),
            "best": format_option(self.best, ascii=True),
            "loss": _est(self.loss),
            "label": self.label,
            "choices": [choice(v) for v in self.values.choices],
        }


def _est(e: Estimate) -> dict[str, float]:
    return {"mean": round(e.mean, 4), "error": round(e.error, 4)}


@dataclass(frozen=True, slots=True)
class GameReview:
    """Every analysed decision of one game."""

    record: GameRecord
    seats: tuple[int, ...]
    samples: int
    decisions: tuple[ReviewedDecision, ...]

    def of(self, seat: int) -> list[ReviewedDecision]:
        """The decisions of ``seat``."""
        return [d for d in self.decisions if d.seat == seat]

    def player(self, seat: int) -> dict[str, Any]:
        """``seat``'s accuracy (100 × (1 − the mean loss) over its decisions, ``None`` with
        none), label counts and win-probability curve ((action number, probability of the
        stake after the choice made) at each of its decisions), as :func:`summary` gives
        them."""
        return summary([seat], [d.to_dict() for d in self.of(seat)])[0]

    def accuracy(self, seat: int) -> float | None:
        """``seat``'s accuracy (see :meth:`player`)."""
        accuracy: float | None = self.player(seat)["accuracy"]
        return accuracy

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON data (docs/analysis.md)."""
        rules = self.record.rules
        decisions = [d.to_dict() for d in self.decisions]
        return {
            "rules": rules.code(),
            "samples": self.samples,
            "seats": list(self.seats),
            "players": summary(self.seats, decisions),
            "decisions": decisions,
        }


def decisions_of(record: GameRecord, seats: Iterable[int] | None = None) -> list[int]:
    """The action numbers of the decisions a review values: the plays, passes, gives,
    offers of trades and answers to them of ``seats`` (default every seat) with more than
    one choice."""
    chosen = _seats(record, seats)
    game = record.new_game()
    todo: list[int] = []
    for number, action in enumerate(record.actions, 1):
        if action.seat in chosen and action.kind != "ask" and len(options_of(game)) > 1:
            todo.append(number)
        apply_action(game, action)
    return todo


def _seats(record: GameRecord, seats: Iterable[int] | None) -> tuple[int, ...]:
    n = record.rules.players
    chosen = tuple(sorted(set(range(n) if seats is None else seats)))
    for s in chosen:
        if not 0 <= s < n:
            raise ValueError(f"seat must be 0-{n - 1}, not {s!r}")
    return chosen


def review_decision(
    record: GameRecord,
    number: int,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | str = 0,
    solver: Solver | None = None,
    before: Game | None = None,
) -> ReviewedDecision:
    """Value and label the decision of action ``number`` of ``record`` (``before``: the game
    just before it, if the caller has it)."""
    if before is None:
        before = record.new_game()
        for action in record.actions[: number - 1]:
            apply_action(before, action)
    played = _played(before, record.actions[number - 1])
    seat = before.turn
    solver = solver or Solver(nodes=EXACT_NODES)
    values = analyse_decision(
        observe(before, seat),
        samples=samples,
        seed=f"{seed} {number}",
        keep=(played,),
        solver=solver,
    )
    loss = values.loss(played)
    # the seat's own endgame verdict where it had one, else the hindsight one
    exact = values.exact if values.exact is not None else exact_choices(before, seat, solver=solver)
    return ReviewedDecision(
        number=number,
        seat=seat,
        played=played,
        values=values,
        loss=loss,
        label=label(loss),
        exact=exact,
    )


def _played(before: Game, action: RecordedAction) -> Option:
    """The choice ``action`` made in ``before``."""
    offer = before.pending_trade
    if action.kind == "accept" and offer is not None:
        return AcceptTrade(offer.take, offer.give)
    if action.kind in ("pass", "refuse"):  # a pass makes no offer in the trading phase
        return PASS
    if action.kind == "offer":
        give, take = (mask_of(parse_cards(cards)) for cards in (action.cards, action.take))
        return OfferTrade(action.partner, give, take)
    after = before.copy()
    apply_action(after, action)
    entry = after.history[-1]
    return entry.move if isinstance(entry, Action) else entry.give


def review_game(
    record: GameRecord,
    *,
    seats: Iterable[int] | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int | str = 0,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review ``record``: value and label every play-phase decision of ``seats`` (default:
    every seat). ``progress(done, total)`` is called as the decisions are analysed."""
    chosen = _seats(record, seats)
    todo = decisions_of(record, chosen)
    solver = Solver(nodes=EXACT_NODES)
    game = record.new_game()
    at = 0
    out = []
    for done, number in enumerate(todo):
        if progress is not None:
            progress(done, len(todo))
        for action in record.actions[at : number - 1]:
            apply_action(game, action)
        at = number - 1
        out.append(
            review_decision(record, number, samples=samples, seed=seed, solver=solver, before=game)
        )
    if progress is not None:
        progress(len(todo), len(todo))
    return GameReview(record, chosen, samples, tuple(out))


def summary(seats: Iterable[int], decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's accuracy, label counts and win-probability curve, from its decisions as
    :meth:`ReviewedDecision.to_dict` writes them (see :class:`GameReview`)."""
    out = []
    for seat in seats:
        mine = [d for d in decisions if d["seat"] == seat]
        counts = dict.fromkeys(LABELS, 0)
        for d in mine:
            counts[d["label"]] += 1
        accuracy = None
        if mine:
            lost = sum(max(0.0, d["loss"]["mean"]) for d in mine) / len(mine)
            accuracy = round(100.0 * (1.0 - lost), 1)
        curve = [
            [
                d["number"],
                next(c["win"]["mean"] for c in d["choices"] if c["choice"] == d["choice"]),
            ]
            for d in mine
        ]
        out.append({"seat": seat, "accuracy": accuracy, "labels": counts, "curve": curve})
    return out


def review_decision_data(
    data: dict[str, Any], number: int, samples: int, seed: str
) -> dict[str, Any]:
    """:func:`review_decision` from and to JSON data (a record's ``to_dict()``): for a
    worker process, which takes and gives plain data."""
    record = GameRecord.from_dict(data)
    return review_decision(record, number, samples=samples, seed=seed).to_dict()
