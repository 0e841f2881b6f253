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

from tienlen.cards import ACE, RANKS, TWOS_MASK, bits_of_mask
from tienlen.combos import Choice, Give, Move, is_twos
from tienlen.game import TradeOffer
from tienlen.observation import Observation
from tienlen.players.base import Budget, split_choices
from tienlen.players.bots.analysis import Plan, counts_of, is_boss, planner
from tienlen.players.toolkit import unseen_mask
from tienlen.reasons import Reason, kind_param, reason
from tienlen.rules import Rules

__all__ = ["Context", "HeuristicBot", "Scored", "accepts_trade", "rank_gives", "rank_swaps"]

#: The weights of the scoring (tuned with the arena against ``greedy``).
W: dict[str, float] = {
    "lead_rank": 0.05,
    "lead_cards": 0.03,
    "lead_control": 0.8,
    "follow_base": 2.0,
    "follow_rank": 0.03,
    "keep_two": 1.5,
    "keep_bomb": 1.0,
    "chop": 0.9,
    "urgent_pass": 0.3,
    "urgent_play": 0.3,
}


class Scored(NamedTuple):
    """A move with its score (higher is better) and the reason (English as a ``str``, with a
    ``hint_*`` code of :data:`tienlen.reasons.REASONS` to word it in another language)."""

    score: float
    move: Choice
    reason: Reason


class HeuristicBot:
    """The ``heuristic`` bot: plans its hand, tracks cards, watches opponents near out."""

    def __init__(self, *, name: str = "heuristic") -> None:
        self.name = name

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """The best-scored move of :meth:`ranked`."""
        if len(legal) == 1:
            return legal[0]
        plays, gives = split_choices(legal)
        if gives or obs.phase == "trading":
            return self.ranked(obs, legal)[0].move
        return Context.of(obs).best(plays)

    def decide(self, obs: Observation, legal: Sequence[Choice]) -> tuple[Choice, Reason]:
        """The chosen move and why."""
        best = self.ranked(obs, legal)[0]
        return best.move, best.reason

    def ranked(self, obs: Observation, legal: Sequence[Choice]) -> list[Scored]:
        """Every legal move, scored and with a reason, best first (ties: lowest first)."""
        if not legal:
            raise ValueError("no legal moves to rank")
        plays, gives = split_choices(legal)
        offer = obs.pending_trade
        if offer is not None and gives:
            return _answers(obs, offer, legal)
        if gives:
            return self._gives(obs, gives)
        if obs.phase == "trading" or (len(plays) == 1 and plays[0].is_pass):
            return [Scored(0.0, m, reason("hint_pass_only")) for m in plays]
        ctx = Context.of(obs)
        out = []
        for m in plays:
            value, why = ctx.score(m)
            out.append(Scored(value, m, _explain(why, m, ctx.top)))
        out.sort(key=lambda s: (-s.score, s.move.mask.bit_length(), s.move.mask))
        return out

    def _gives(self, obs: Observation, legal: Sequence[Give]) -> list[Scored]:
        return rank_gives(obs.rules, obs.hand_mask, legal)


def _answers(obs: Observation, offer: TradeOffer, legal: Sequence[Choice]) -> list[Scored]:
    """The answers to a trade offer (the pass refuses, the give of the cards asked for
    accepts), best first, by :func:`accepts_trade`."""
    accept = 1.0 if accepts_trade(obs.rules, obs.hand_mask, offer.give, offer.take) else -1.0
    out = [
        Scored(accept, m, reason("hint_accept_trade"))
        if isinstance(m, Give)
        else Scored(0.0, m, reason("hint_refuse_trade"))
        for m in legal
    ]
    out.sort(key=lambda s: -s.score)
    return out


def rank_gives(rules: Rules, hand: int, legal: Sequence[Give]) -> list[Scored]:
    """The gives of ``legal`` from ``hand`` (a bitmask), best first: the one that leaves
    the hand the cheapest to play out (the planner's cost), ties the lowest cards."""
    pl = planner(rules)
    out = [Scored(-pl.cost(hand & ~m.mask), m, reason("hint_give")) for m in legal]
    out.sort(key=lambda s: (-s.score, s.move.mask))
    return out


def accepts_trade(rules: Rules, hand: int, give: int, take: int) -> bool:
    """Whether the heuristic's answer to a trade offer of ``give`` for its cards ``take``,
    holding ``hand`` (bitmasks), is to accept: it holds them and the hand after the swap is
    cheaper to play out (the planner's cost, the measure of :func:`rank_gives`)."""
    if take & ~hand:
        return False
    cost = planner(rules).cost
    return cost((hand & ~take) | give) < cost(hand)


def rank_swaps(rules: Rules, hand: int, unseen: int) -> list[tuple[int, int]]:
    """The one-card swaps ``(give, take)`` of a card of ``hand`` for one of ``unseen``
    (one-bit masks), best first: the hand after the swap the cheapest to play out (ties: the
    lowest cards). One swap per pair of ranks: the lowest own card of its rank, the highest
    unseen card of its rank (the planner prices ranks, not suits)."""
    cost = planner(rules).cost
    gives: dict[int, int] = {}
    for bit in bits_of_mask(hand):
        gives.setdefault(bit.bit_length() - 1 >> 3, bit)
    takes: dict[int, int] = {}
    for bit in bits_of_mask(unseen):
        takes[bit.bit_length() - 1 >> 3] = bit
    swaps = [(g, t) for gr, g in gives.items() for tr, t in takes.items() if gr != tr]
    swaps.sort(key=lambda s: (cost((hand & ~s[0]) | s[1]), s[0], s[1]))
    return swaps


def _kind_of(m: Move | None) -> dict[str, object]:
    """A move as a reason's ``{name:kind}`` parameter (a pass, or none: "pass")."""
    if m is None or not m.mask:
        return kind_param("pass", 0)
    return kind_param(m.kind, m.size, RANKS[m.top_rank], str(m.top))


def _explain(code: str, m: Move, top: Move | None) -> Reason:
    """The reason ``hint_<code>`` for playing ``m`` on ``top``."""
    return reason(
        "hint_" + code.replace("-", "_"),
        m=_kind_of(m),
        n=m.mask.bit_count(),
        c=str(m.top) if m.mask else "",
        t=_kind_of(top),
    )


class Context:
    """The facts one decision needs, computed once; :meth:`score` prices one move.

    Built from an observation (:meth:`of`) or, by the search bot's playouts, from raw parts.
    """

    __slots__ = (
        "before",
        "fewest",
        "hand",
        "next_count",
        "pl",
        "rules",
        "top",
        "uc",
        "units",
        "unseen",
    )

    def __init__(
        self,
        rules: Rules,
        seat: int,
        hand: int,
        counts: Sequence[int],
        top: Move | None,
        unseen: int,
    ) -> None:
        self.rules = rules
        self.pl = planner(rules)
        self.hand = hand
        self.before = self.pl.plan(counts_of(hand))
        self.units = len(self.before.units)
        self.unseen = unseen
        self.uc = counts_of(unseen)
        fewest = 99
        for s, c in enumerate(counts):
            if s != seat and c and c < fewest:
                fewest = c
        self.fewest = fewest
        n, step = rules.players, rules.step
        nxt = seat
        for _ in range(n - 1):
            nxt = (nxt + step) % n
            if counts[nxt]:
                break
        self.next_count = counts[nxt] if nxt != seat else 99
        self.top = top

    @classmethod
    def of(cls, obs: Observation) -> Context:
        """The context of an observation."""
        top = obs.pile[-1].move if obs.pile else None
        counts = obs.tracked_counts()
        return cls(obs.rules, obs.seat, obs.hand_mask, counts, top, unseen_mask(obs))

    def best(self, legal: Sequence[Move]) -> Move:
        """The best-scored move (ties: the lowest)."""
        best = legal[0]
        best_key = (-1e9, 0)
        for m in legal:
            key = (self.score(m)[0], -m.top_id)
            if key > best_key:
                best, best_key = m, key
        return best

    def score(self, m: Move) -> tuple[float, str]:
        """``(score, reason code)`` of one move."""
        if self.top is None:
            return self._lead(m)
        return self._follow(m)

    def _after(self, m: Move) -> tuple[Plan, float] | None:
        """The plan of the hand left after ``m`` and how much ``m`` breaks the current plan
        (0 when it is part of it); ``None`` when ``m`` goes out."""
        after = self.hand & ~m.mask
        if not after:
            return None
        rest = self.pl.plan(counts_of(after))
        return rest, rest.cost + self.pl.move_cost(m) - self.before.cost

    # --- leading ----------------------------------------------------------------------
    def _lead(self, m: Move) -> tuple[float, str]:
        if not m.mask:
            return (-5.0, "decline")
        after = self._after(m)
        if after is None:
            return (100.0, "out")
        rest, breakage = after
        pl = self.pl
        rank = m.top_id >> 3
        cards = m.mask.bit_count()
        w = W
        s = -breakage - w["lead_rank"] * rank + w["lead_cards"] * cards
        why = "lead-low" if cards == 1 else "lead-shed"
        rest_units = len(rest.units)
        fewest = self.fewest
        boss = (rest_units <= 2 or fewest == 1 or (fewest == 2 and m.kind == "pair")) and is_boss(
            m, self.unseen, self.rules, self.uc
        )
        if rest_units > 1 and (m.mask & TWOS_MASK or pl.is_bomb_unit(m.kind, m.size, rank)):
            s -= w["lead_control"]
        if boss and rest_units == 1:
            s += 3.0
            why = "boss-out"
        elif boss and rest_units <= 2:
            s += 0.5
            why = "boss-finish"
        if self.fewest == 1:
            if m.kind == "single" and not boss:
                s += -1.5 + 0.12 * rank
                why = "one-card-single"
            elif m.kind != "single":
                s += 0.3
                why = "one-card-combo"
        elif self.fewest == 2 and m.kind == "pair" and not boss:
            s -= 0.4
        return (s, why)

    # --- following --------------------------------------------------------------------
    def _follow(self, m: Move) -> tuple[float, str]:
        top = self.top
        assert top is not None
        urgent = self.fewest <= 2
        if not m.mask:
            return (-W["urgent_pass"] if urgent else 0.0, "pass")
        after = self._after(m)
        if after is None:
            return (100.0, "out")
        rest, breakage = after
        pl = self.pl
        rank = m.top_id >> 3
        w = W
        s = w["follow_base"] - breakage - w["follow_rank"] * rank
        why = "breaks" if breakage > 0.4 else "follow-low"
        if pl.is_bomb_unit(m.kind, m.size, rank) and (m.kind, m.size) != (top.kind, top.size):
            if is_twos(top):
                s += w["chop"]
                why = "chop"
            elif urgent:
                s += 0.3
                why = "bomb-urgent"
            else:
                s -= w["keep_bomb"]
                why = "keep-bomb"
        elif m.mask & TWOS_MASK:
            if not (urgent or self.units <= 3 or top.top_id >> 3 >= ACE):
                s -= w["keep_two"]
                why = "keep-two"
            else:
                s += 0.2
                why = "two-wins"
        if len(rest.units) == 1 and is_boss(m, self.unseen, self.rules, self.uc):
            s += 3.0
            why = "boss-follow"
        if top.kind == "single" and self.next_count == 1:
            s += 0.5 + 0.06 * rank
            why = "next-one-card"
        elif urgent:
            s += w["urgent_play"]
        return (s, why)
