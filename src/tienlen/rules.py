"""Rules as data: one frozen :class:`Rules` value per rule set, and the twelve presets.

Every knob of ``RULES.md`` is one field. The move generator and the game read knobs;
nothing anywhere asks which preset a value came from. House rules are expressed with
``dataclasses.replace``; for example a quad that also chops a pair of 2s is
``replace(rules, chops=rules.chops + (("pair@2", "quad"),))``.

Bomb tables use the pattern language of :mod:`tienlen.patterns`:

- ``chops``: ``(target, bomb)`` pairs. A combination matching ``bomb`` may be played on a
  pile whose top play matches ``target`` even though the kinds differ (and, for ``*``
  targets, whatever the ranks).
- ``bomb_ladder``: bomb patterns from strongest to weakest; a bomb beats any bomb on a
  lower rung (``proplay``'s hierarchy, ``hawaii``'s quad over a three-pair run).
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

from .cards import Card
from .codes import Codes
from .inputs import MAX_NAME, check_keys, fail, load_json, quote_value
from .knobs import Knob, RulesError, describe_type, knob_schema
from .patterns import KINDS, parse_pattern

__all__ = [
    "INSTANT_WINS",
    "KNOBS",
    "MAX_COMBINATIONS",
    "RULESETS",
    "SCORE_EXTRAS",
    "Rules",
    "RulesError",
]

FirstLead = Literal["lowest-single", "must-include-lowest", "holder-free", "holder-may-decline"]
LaterLeads = Literal["winner", "as-first"]
TwosInRuns = Literal["never", "top"]
TieRule = Literal["forbid", "later-wins", "highest-distinct", "red-beats-blue"]
Trading = Literal["none", "mutual", "san-jose"]
Scoring = Literal["stake", "scorepad", "per-card", "winner-takes-all", "proplay"]
Direction = Literal["clockwise", "anticlockwise"]
ChopDebts = Literal["none", "stacking", "doubling", "no-stacking"]
DebtCard = Literal["highest-two", "any-two", "highest-card"]
ScoreExtra = Literal["chop-twos", "twos-left", "bombs-left", "three-spades-last"]

#: The most combinations (:attr:`Rules.most_combinations`) a hand may be able to form: the
#: engine lists them all, so rules past this (two decks dealt out to two players: about
#: 3e11) would take minutes and gigabytes for one hand. Every preset is under 13,000;
#: two players sharing one deck, under 2,000,000.
MAX_COMBINATIONS = 3_000_000

#: Instant-win hands (tới trắng) the engine knows.
INSTANT_WINS = ("four-twos", "six-pairs", "three-triples", "dragon", "five-consecutive-pairs")
#: Score-pad extras (``Rules.score_extras``), paid on top of the scoring scheme.
SCORE_EXTRAS: tuple[str, ...] = get_args(ScoreExtra)
#: Combination kinds every rule set has; ``extra_kinds`` adds the others.
BASE_KINDS = ("single", "pair", "triple", "quad", "straight", "pair_run")


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The complete rule set of one game of Tiến Lên. Build one with :meth:`preset`."""

    name: str = "standard"
    """Label of the preset this value started from (shown in UIs; never read by the rules)."""

    # --- deal and start -------------------------------------------------------------
    players: int = 4
    """Number of seats, 2-8."""
    decks: int = 1
    """1 or 2 decks (two for 5-8 players); copy 0 has blue backs, copy 1 red backs."""
    hand_size: int | Literal["all"] = 13
    """Cards dealt to each player, or ``"all"`` to deal the deck(s) out equally."""
    few_players_hand_size: int | None = None
    """Hand size used instead with 2 or 3 players (Kenneth Lu: 17)."""
    starter_takes_spare: bool = False
    """When exactly one card is left over, the player who leads takes it (Kenneth Lu)."""
    deal_four_hands: bool = False
    """Always deal four 13-card hands; unused hands are set aside (UT Pike). With two
    players the two unused hands are the next game, without reshuffling."""
    direction: Direction = "clockwise"
    """Direction of the deal and of play."""
    first_lead: FirstLead = "must-include-lowest"
    """How the first game starts: the holder of the lowest dealt card (3♠ with four players)
    leads it alone (``lowest-single``), leads a combination containing it
    (``must-include-lowest``), leads anything (``holder-free``), or may decline so that the
    next player leads anything (``holder-may-decline``)."""
    later_leads: LaterLeads = "winner"
    """Who starts later games: the previous winner, freely (``winner``), or as in the first
    game (``as-first``)."""
    first_lead_kinds: tuple[str, ...] = ()
    """Kinds the opening play may take while ``first_lead`` constrains it (Hawaii: single,
    pair or straight); empty: any kind. Needs a ``first_lead`` other than ``holder-free``."""

    # --- combinations ---------------------------------------------------------------
    extra_kinds: tuple[str, ...] = ()
    """Kinds beyond single/pair/triple/quad/straight/pair_run: ``quad_run`` (consecutive
    quads), ``multi_quad`` (any two or more quads), ``triple_run``, ``dragon`` (3..A as a
    kind of its own)."""
    twos_in_straight: TwosInRuns = "never"
    """Whether a 2 may top a straight (K-A-2); sequences never wrap round."""
    twos_in_pair_run: TwosInRuns = "never"
    """Whether 2s may top a pair run (also triple and quad runs)."""
    min_straight: int = 3
    """Fewest cards in a straight."""
    min_pair_run: int = 3
    """Fewest pairs in a pair run (đôi thông)."""
    min_triple_run: int = 3
    """Fewest triples in a triple run."""
    min_quad_run: int = 2
    """Fewest quads in a run of consecutive quads (also in a multi-quad)."""

    # --- comparison -----------------------------------------------------------------
    tie_rule: TieRule = "forbid"
    """Double deck: how a play whose top card equals the pile's top (other copy) compares."""
    single_same_suit: bool = False
    """A single must be beaten by a higher card of the same suit (2s exempt)."""
    pair_same_colours: bool = False
    """A pair must be beaten by a pair of the same colours (2s exempt)."""
    triple_same_suits: bool = False
    """A triple must be beaten by a triple of the same three suits (2s exempt)."""
    pair_run_same_colours: bool = False
    """A pair run must be beaten by one whose pairs have the same colours, in rank order."""
    pair_run_one_colour: bool = False
    """Every card of a pair run must be of one colour, all red or all black (004 main rules:
    pair sequences are "in numerical sequence and same color")."""
    pair_run_above: bool = False
    """A pair run must be beaten by one whose lowest pair is above the other's highest."""
    straight_above: bool = False
    """A straight must be beaten by one whose lowest card is above the other's highest (004
    main rules: 6-7-8 "can only be defeated by any 3 card straight like 9 10 J, or higher")."""
    straight_lock: bool = False
    """Once a one-suit straight is played, later straights of the pile must be one-suit."""
    triple_beats_ace: bool = False
    """Any triple may be played on a single Ace (Akita)."""
    single_killer: str | None = None
    """A card (notation) that beats any single card as a single (Double Deck 13: ``"Kd"``)."""
    chops: tuple[tuple[str, str], ...] = ()
    """Bomb table: ``(target pattern, bomb pattern)`` pairs."""
    bomb_ladder: tuple[str, ...] = ()
    """Bomb patterns, strongest first: a bomb beats any bomb on a lower rung."""
    bombs_may_lead: bool = True
    """Whether a bomb may be led to a fresh pile."""

    # --- passing and the end of a pile -------------------------------------------------
    pass_locks: bool = True
    """A player who passes may not play again to this pile (bombs aside, see below)."""
    after_pass_bombs: tuple[str, ...] = ()
    """Bombs (patterns) a locked-out player may still play while 2s are on top of the pile;
    such players are offered their turn again then. Empty: no bombing after passing."""
    after_pass_on_chops: bool = False
    """Locked-out players may also come back with ``after_pass_bombs`` while the top of the
    pile is a bomb that chopped 2s, or a bomb on such a bomb (004: "Four consecutive pairs
    can chop a single 2 or smaller chop even if the player has previously passed")."""
    stacking: bool = False
    """When everyone else has passed, the last player may go on beating their own play with
    higher combinations of the same kind and size (never a bomb on it)."""
    out_ends_pile: bool = False
    """When a player goes out the pile ends at once and the next player leads (Akita)."""
    may_finish_on_two: bool = True
    """Whether a player's last play may contain a 2."""

    # --- special phases ---------------------------------------------------------------
    instant_wins: tuple[str, ...] = ()
    """Dealt hands that win at once (tới trắng); checked only when there is no trading."""
    redeal_four_twos: bool = False
    """A deal that gives a player four 2s is void and the cards are dealt again (004, a
    variation of the four-2s instant win: "the player with that four 2s will no long be a
    winner. He would like to tell another players and they will have the game restarted").
    One deck only, and ``four-twos`` cannot be an instant win with it. Hands given to
    :class:`tienlen.Game` explicitly are taken as dealt."""
    trading: Trading = "none"
    """``mutual``: before the first lead, players may swap equal numbers of cards by
    agreement. ``san-jose``: from the second game, the losers give their highest cards to the
    winners, who give back unwanted ones."""
    opening_bombs: tuple[str, ...] = ()
    """Bombs (patterns) any seat may play as the first play of a game, out of turn and
    without the lowest card (004: "Three consecutive pairs can be played at the beginning
    of the game without being the lead": ``pair_run3``). Before the first lead the seats
    after the leader are asked in turn; empty: none."""

    # --- what the table sees --------------------------------------------------------------
    hidden_counts: bool = False
    """Other players' card counts are not shown; a player asks for one and the answer is
    public (004: "When requested, a player must reveal the number of cards in his or her
    hand"). See :meth:`tienlen.Game.ask_count` and :class:`tienlen.observation.Observation`."""

    # --- end and scoring --------------------------------------------------------------
    end_at_first_out: bool = False
    """The game ends when the first player goes out (otherwise when one player is left)."""
    scoring: Scoring = "scorepad"
    """How a finished game is scored (see :mod:`tienlen.scoring`)."""
    cong: bool = False
    """Cóng: a player still holding every dealt card when someone goes out pays double."""
    got_to_get_in: int = 0
    """Points each player who has not played a card when the first player goes out pays that
    player, on top of the scheme (Pro-Play's "Got to Get In": 2); 0: none."""
    guarantees: bool = False
    """Pro-Play's side bets (004): before play a player may guarantee to go out first
    ("Guaransheeds"), or do so before seeing their hand ("Blind Guaransheeds"); see
    :meth:`tienlen.Match.guarantee`."""
    score_extras: tuple[ScoreExtra, ...] = ()
    """Score-pad extras paid on top of the scheme (see :mod:`tienlen.scoring`): chop bonuses
    for 2s and bombs (``chop-twos``), penalties for 2s (``twos-left``, thối 2) and bombs
    (``bombs-left``, thối hàng) still in hand at the end, and a bonus for going out with the
    3♠ (``three-spades-last``)."""
    loser_owes_twos: bool = False
    """The loser owes the winner one card per 2 still in hand at the end, given at the
    next deal of the match (004)."""
    chop_debts: ChopDebts = "none"
    """The last player chopped in a game owes the chopper cards at the next deal (004):
    one, plus one for each 2 beyond the first and each bomb on a bomb above it
    (``stacking``), doubled for each (``doubling``), or one per 2 whatever the bombs
    (``no-stacking``); ``none``: no debts. See :func:`tienlen.scoring.card_debts`."""
    debt_card: DebtCard = "highest-two"
    """Which cards pay a card debt: the debtor's highest 2s (``highest-two``; none owed
    without a 2), 2s of the debtor's choice (``any-two``), or the highest cards
    (``highest-card``)."""

    # Derived, cached lookups (not knobs).
    _kinds: frozenset[str] = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_knobs({k.name: getattr(self, k.name) for k in KNOBS}, "rules", lists=False)
        most = self.most_combinations
        if most > MAX_COMBINATIONS:
            raise RulesError(
                f"rules.hand_size: a hand of {self.cards_per_hand} cards from {self.decks} "
                f"deck(s) can form up to about {most:.2g} combinations, more than the "
                f"{MAX_COMBINATIONS:,} the engine allows; deal fewer cards or use one deck"
            )
        object.__setattr__(self, "_kinds", frozenset(BASE_KINDS + self.extra_kinds))
        # Rules values key the engine's caches on every move: hash the knobs once.
        knobs = tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)
        object.__setattr__(self, "_hash", hash(knobs))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Rebuild from the knobs, so the cached hash is this process's (str hashes vary).
        # A module-level function, not the bound classmethod: cloudpickle (Ray's pickler)
        # copies a classmethod by value and loses its keyword defaults on the way.
        return (_rules_from_knobs, (self.to_dict(),))

    # ----------------------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The named rule set (see :data:`RULESETS`), with optional knob overrides."""
        try:
            base = _PRESETS[name]
        except KeyError:
            raise RulesError(
                f"unknown rule set {quote_value(str(name))}; valid names: {', '.join(RULESETS)}"
            ) from None
        return dataclasses.replace(base, **overrides) if overrides else base

    def for_players(self, players: int) -> Rules:
        """These rules for ``players`` seats. More than four players play with two decks
        (RULES.md: a player count of "5–8 with a double deck"); with four or fewer the deck
        count is kept. Raises :class:`RulesError` if the deal cannot work (``pike`` deals
        four hands, so it takes four players at most).

        >>> Rules.preset("standard").for_players(6).decks
        2
        >>> Rules.preset("double-deck-13").for_players(4).decks
        2
        """
        decks = 2 if players > 4 else self.decks
        return dataclasses.replace(self, players=players, decks=decks)

    @property
    def kinds(self) -> frozenset[str]:
        """Every combination kind this rule set allows."""
        return self._kinds

    @property
    def cards_per_hand(self) -> int:
        """How many cards each player is dealt."""
        return _cards_per_hand(
            self.players,
            self.decks,
            self.hand_size,
            self.few_players_hand_size,
            self.deal_four_hands,
        )

    @property
    def spare_cards(self) -> int:
        """Cards left over once the hands are dealt (set aside; one of them goes to the
        first leader under ``starter_takes_spare``)."""
        hands = 4 if self.deal_four_hands else self.players
        return 52 * self.decks - hands * self.cards_per_hand

    @property
    def most_combinations(self) -> int:
        """An upper bound on the combinations one hand can form under these rules (and so
        on its legal moves); see :data:`MAX_COMBINATIONS`."""
        h, copies = self.cards_per_hand, 4 * self.decks
        kinds = set(BASE_KINDS + self.extra_kinds)
        total = 13 * sum(_choose(min(copies, h), k) for k in range(1, 5))
        for per, (kind, shortest, twos) in enumerate(self._run_shapes(), start=1):
            if kind not in kinds:
                continue
            longest = 13 if twos == "top" else 12
            for n in range(shortest, longest + 1):
                # a run of n ranks has the most choices with the cards spread evenly
                total += (longest - n + 1) * _choose(min(copies, h / n), per) ** n
        if "multi_quad" in kinds:
            ranks = min(13, h // 4)
            for n in range(self.min_quad_run, ranks + 1):
                total += math.comb(ranks, n) * _choose(min(copies, h / n), 4) ** n
        return math.ceil(total)

    def _run_shapes(self) -> tuple[tuple[str, int, TwosInRuns], ...]:
        """(kind, shortest length, twos rule) of each run kind, by cards per rank (1-4)."""
        return (
            ("straight", self.min_straight, self.twos_in_straight),
            ("pair_run", self.min_pair_run, self.twos_in_pair_run),
            ("triple_run", self.min_triple_run, self.twos_in_pair_run),
            ("quad_run", self.min_quad_run, self.twos_in_pair_run),
        )

    def combinations_in(self, rank_counts: Sequence[int]) -> int:
        """How many combinations (about: multi-quads are over-counted) a hand with
        ``rank_counts[r]`` cards of rank ``r`` (0 = 3 … 12 = 2) forms under these rules."""
        counts = list(rank_counts)[:13]
        counts += [0] * (13 - len(counts))
        kinds = set(BASE_KINDS + self.extra_kinds)
        total = sum(math.comb(k, per) for k in counts for per in range(1, 5))
        for per, (kind, shortest, twos) in enumerate(self._run_shapes(), start=1):
            if kind not in kinds:
                continue
            top = 13 if twos == "top" else 12
            for start in range(top):
                product = 1
                for end in range(start, top):
                    product *= math.comb(counts[end], per)
                    if not product:
                        break
                    if end - start + 1 >= shortest:
                        total += product
        if "multi_quad" in kinds:
            # sums of products over every set of n quad ranks: elementary symmetric sums
            sums = [1] + [0] * 13
            for k in counts:
                quads = math.comb(k, 4)
                if quads:
                    for n in range(13, 0, -1):
                        sums[n] += sums[n - 1] * quads
            total += sum(sums[max(self.min_quad_run, 1) :])
        return total

    @property
    def step(self) -> int:
        """+1 clockwise, -1 anticlockwise: the seat offset of the next player."""
        return 1 if self.direction == "clockwise" else -1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` reads it back to an equal value."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str = "rules") -> Rules:
        """Read a dict written by :meth:`to_dict`; missing knobs take the value of the preset
        that ``name`` names (``standard`` for a house name). Every knob is checked (type,
        range, allowed values, patterns) before the value is built; a failure raises
        :class:`RulesError` naming the knob under ``path`` and quoting the bad value."""
        if not isinstance(data, Mapping):
            fail(RulesError, path, f"must be an object of knobs, not {quote_value(data)}")
        check_keys(data, path, error=RulesError, optional=_BY_NAME)
        name = _conform(data.get("name", "standard"), str, f"{path}.name", True)
        base = _PRESETS.get(name, _PRESETS["standard"])
        values = {k.name: getattr(base, k.name) for k in KNOBS}
        values.update(data)
        return cls(**_check_knobs(values, path, lists=True))

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Rules:
        """Read :meth:`to_json`'s text (size and depth limited, checked as :meth:`from_dict`)."""
        return cls.from_dict(load_json(text, error=RulesError, what="rules"))

    @property
    def is_preset(self) -> bool:
        """Whether this value is the preset it is named after, unchanged."""
        return self.name in _PRESETS and _PRESETS[self.name] == self

    def code(self) -> str:
        """The rules code: the preset's name, then one dot-separated part per changed knob
        (``"standard.direction-anticlockwise.cong"``); :meth:`from_code` reads it back to an
        equal value. See :mod:`tienlen.codes`."""
        return _CODES.format(self)

    @classmethod
    def from_code(cls, code: str) -> Rules:
        """The value a rules code names (:meth:`code`); a :class:`RulesError` names the part
        of the code that could not be read."""
        return _CODES.parse(code)


def _choose(n: float, k: int) -> float:
    """n choose k, for a real n (0 below k)."""
    out = 1.0
    for i in range(k):
        out *= max(n - i, 0.0) / (i + 1)
    return out


def _cards_per_hand(
    players: int, decks: int, hand_size: int | str, few: int | None, four_hands: bool
) -> int:
    if four_hands:
        return 13
    if players < 4 and few is not None:
        return few
    if hand_size == "all":
        return 52 * decks // players
    assert isinstance(hand_size, int)
    return hand_size


# --- checking knobs ------------------------------------------------------------------------
#: Integer knobs' ranges (the schema's ``range``); an integer knob not listed takes
#: ``_INT_RANGE``.
_RANGES = {
    "players": (2, 8),
    "decks": (1, 2),
    "hand_size": (1, 104),
    "few_players_hand_size": (1, 104),
    "min_straight": (2, 13),
    "min_pair_run": (2, 13),
    "min_triple_run": (2, 13),
    "min_quad_run": (2, 13),
}
_INT_RANGE = (0, 1000)
#: Most entries in one table knob (proplay's chop table has about forty).
_MAX_TABLE = 256


def _conform(value: Any, tp: Any, path: str, lists: bool) -> Any:
    """``value`` checked against the knob type ``tp`` (lists become tuples when ``lists``);
    raises :class:`RulesError` at ``path``. Integer ranges are checked by the caller."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        for arm in get_args(tp):
            try:
                return _conform(value, arm, path, lists)
            except RulesError:
                continue
    elif origin is Literal:
        if any(type(value) is type(a) and value == a for a in get_args(tp)):
            return value
    elif origin is tuple:
        args = get_args(tp)
        if isinstance(value, tuple) or (lists and isinstance(value, list)):
            if len(value) > _MAX_TABLE:
                fail(RulesError, path, f"more than {_MAX_TABLE} entries ({len(value)})")
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(
                    _conform(v, args[0], f"{path}[{i}]", lists) for i, v in enumerate(value)
                )
            if len(value) == len(args):
                return tuple(
                    _conform(v, a, f"{path}[{i}]", lists)
                    for i, (v, a) in enumerate(zip(value, args, strict=True))
                )
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif tp is str:
        if isinstance(value, str):
            if len(value) > MAX_NAME:
                fail(RulesError, path, f"longer than {MAX_NAME} characters: {quote_value(value)}")
            return value
    elif isinstance(tp, type) and isinstance(value, tp) and type(value) is tp:
        return value  # bool, None
    fail(RulesError, path, f"must be {describe_type(tp, lists)}, not {quote_value(value)}")


def _predicate(tp: Any) -> Callable[[Any], bool]:
    """A fast yes/no test of a value against the knob type ``tp`` (built once per knob; the
    slower :func:`_conform` then says what is wrong)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        arms = [_predicate(a) for a in args]
        return lambda v: any(arm(v) for arm in arms)
    if origin is Literal:
        return lambda v: any(type(v) is type(a) and v == a for a in args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _predicate(args[0])
        return lambda v: type(v) is tuple and len(v) <= _MAX_TABLE and all(map(item, v))
    if origin is tuple:
        items = [_predicate(a) for a in args]
        return lambda v: (
            type(v) is tuple
            and len(v) == len(items)
            and all(p(x) for p, x in zip(items, v, strict=True))
        )
    if tp is str:
        return lambda v: type(v) is str and len(v) <= MAX_NAME
    return lambda v: type(v) is tp


def _check_knobs(values: Mapping[str, Any], path: str, *, lists: bool) -> dict[str, Any]:
    """Every knob of ``values`` checked: its type, then ranges, allowed names, patterns and
    the knobs that depend on each other. Returns the knobs (lists as tuples)."""
    for knob in KNOBS:
        if knob.name not in values:
            fail(RulesError, f"{path}.{knob.name}", "missing")
    out = {
        knob.name: value
        if not lists and test(value := values[knob.name])
        else _conform(values[knob.name], knob.type, f"{path}.{knob.name}", lists)
        for knob, test in _KNOB_TESTS
    }

    def bad(knob: str, message: str) -> None:
        fail(RulesError, f"{path}.{knob}", message)

    for k in KNOBS:
        value = out[k.name]
        if k.range is not None and isinstance(value, int) and not isinstance(value, bool):
            lo, hi = k.range
            if not lo <= value <= hi:
                bad(k.name, f"must be from {lo} to {hi}, not {quote_value(value)}")
    for i, kind in enumerate(out["extra_kinds"]):
        if kind not in KINDS or kind in BASE_KINDS:
            extra = ", ".join(k for k in KINDS if k not in BASE_KINDS)
            bad(f"extra_kinds[{i}]", f"unknown extra kind {quote_value(kind)}; known: {extra}")
    lead_kinds = out["first_lead_kinds"]
    for i, kind in enumerate(lead_kinds):
        if kind not in KINDS:
            bad(
                f"first_lead_kinds[{i}]",
                f"unknown kind {quote_value(kind)}; known: {', '.join(KINDS)}",
            )
    if lead_kinds and out["first_lead"] == "holder-free":
        bad("first_lead_kinds", "needs a first_lead that constrains the first play")
    if lead_kinds and "single" not in lead_kinds and out["first_lead"] == "lowest-single":
        bad("first_lead_kinds", "first_lead 'lowest-single' needs 'single' in first_lead_kinds")
    for i, win in enumerate(out["instant_wins"]):
        if win not in INSTANT_WINS:
            known = ", ".join(INSTANT_WINS)
            bad(f"instant_wins[{i}]", f"unknown instant win {quote_value(win)}; known: {known}")
    patterns: list[tuple[str, str]] = []
    for k in KNOBS:
        if k.patterns and k.shape == "pairs":
            pairs = enumerate(out[k.name])
            patterns += [
                (f"{k.name}[{i}][{j}]", p) for i, pair in pairs for j, p in enumerate(pair)
            ]
        elif k.patterns:
            patterns += [(f"{k.name}[{i}]", p) for i, p in enumerate(out[k.name])]
    for where, text in patterns:
        try:
            parse_pattern(text)
        except ValueError as e:
            bad(where, str(e))
    if out["single_killer"] is not None:
        try:
            Card.parse(out["single_killer"])
        except ValueError as e:
            bad("single_killer", str(e))
    if out["redeal_four_twos"]:
        if out["decks"] != 1:
            bad("redeal_four_twos", "needs one deck (with two, four 2s are too common to redeal)")
        if "four-twos" in out["instant_wins"]:
            bad("redeal_four_twos", "four 2s are dealt again, so 'four-twos' cannot win at once")
    if out["trading"] != "none":
        # Both settle cards between the deal and the first lead; one hand-over at a time.
        if out["chop_debts"] != "none":
            bad("chop_debts", "card debts cannot be combined with trading")
        if out["loser_owes_twos"]:
            bad("loser_owes_twos", "card debts cannot be combined with trading")
    players, decks = out["players"], out["decks"]
    if out["deal_four_hands"] and (players > 4 or decks != 1):
        bad("deal_four_hands", "needs one deck and at most four players")
    per_hand = _cards_per_hand(
        players, decks, out["hand_size"], out["few_players_hand_size"], out["deal_four_hands"]
    )
    if players * per_hand > 52 * decks:
        bad(
            "hand_size",
            f"{players} hands of {per_hand} need more than {52 * decks} cards; "
            "use decks=2 or a smaller hand_size",
        )
    return out


#: Every knob of :class:`Rules`, in declaration order: the schema the reader, the codes
#: (:mod:`tienlen.codes`), the descriptions and the server's table form all read.
KNOBS: tuple[Knob, ...] = knob_schema(
    Rules,
    ranges=_RANGES,
    default_range=_INT_RANGE,
    vocabularies={
        "extra_kinds": ("a combination kind", KINDS),
        "first_lead_kinds": ("a combination kind", KINDS),
        "instant_wins": ("an instant win", INSTANT_WINS),
    },
    patterns=("chops", "bomb_ladder", "after_pass_bombs", "opening_bombs"),
)
_BY_NAME = {k.name: k for k in KNOBS}
_KNOB_TESTS = [(k, _predicate(k.type)) for k in KNOBS]


# --- the presets ------------------------------------------------------------------------
# Chop tables. "pair_run3" is exactly three pairs; "pair_run3+" three or more.
_CHOPS_SOUTHERN = (
    ("single@2", "quad"),
    ("single@2", "pair_run3"),
    ("pair@2", "pair_run4"),
    ("triple@2", "pair_run5"),
)
_ALL_BOMBS = ("*",)

_PROPLAY_LADDER = (
    "quad@2",
    "triple_run4@2",
    "pair_run6@2",
    "multi_quad3",
    "triple_run4",
    "triple_run3@2",
    "pair_run6",
    "pair_run5@2",
    "pair_run5",
    "pair_run4@2",
    "triple_run3",
    "multi_quad2",
    "pair_run4",
    "pair_run3@2",
    "quad",
    "pair_run3",
)
# Rungs 0-1 bomb four 2s (nothing does: quad 2s are unbombable), 2-9 three 2s,
# 10-13 two 2s, 14-15 one 2. A straight topped by a 2 counts as a single 2.
_PROPLAY_CHOPS = tuple(
    (target, bomb)
    for targets, bombs in (
        (("single@2", "straight@2"), _PROPLAY_LADDER[1:]),
        (("pair@2",), _PROPLAY_LADDER[1:14]),
        (("triple@2",), _PROPLAY_LADDER[1:10]),
    )
    for target in targets
    for bomb in bombs
)

_PRESETS: dict[str, Rules] = {
    "standard": Rules(
        name="standard",
        chops=_CHOPS_SOUTHERN,
        after_pass_bombs=_ALL_BOMBS,
        scoring="scorepad",
    ),
    "wikipedia": Rules(
        name="wikipedia",
        first_lead="lowest-single",
        twos_in_straight="top",
        twos_in_pair_run="top",
        chops=(
            ("single@2", "quad"),
            ("single@2", "pair_run3+"),
            ("pair@2", "quad"),
            ("pair@2", "pair_run4+"),
            ("triple@2", "pair_run5+"),
        ),
        scoring="stake",
    ),
    "pagat": Rules(
        name="pagat",
        twos_in_straight="top",
        twos_in_pair_run="top",
        chops=_CHOPS_SOUTHERN,
        after_pass_bombs=_ALL_BOMBS,
        scoring="stake",
    ),
    "pang": Rules(
        name="pang",
        first_lead="holder-may-decline",
        chops=_CHOPS_SOUTHERN,
        after_pass_bombs=_ALL_BOMBS,
        stacking=True,
        scoring="stake",
    ),
    "lu": Rules(
        name="lu",
        few_players_hand_size=17,
        starter_takes_spare=True,
        first_lead="holder-free",
        twos_in_straight="top",
        twos_in_pair_run="top",
        chops=(("single", "quad"), ("pair", "quad"), ("single@2", "pair_run3")),
        after_pass_bombs=_ALL_BOMBS,
        end_at_first_out=True,
        scoring="per-card",
    ),
    "vietcong": Rules(
        name="vietcong",
        extra_kinds=("quad_run",),
        twos_in_pair_run="top",
        chops=(
            ("single@2", "quad"),
            ("single@2", "pair_run3+"),
            ("pair@2", "quad_run2"),
            ("pair@2", "pair_run5+"),
            ("triple@2", "quad_run3"),
            ("triple@2", "pair_run7+"),
        ),
        after_pass_bombs=_ALL_BOMBS,
        instant_wins=("four-twos",),
        scoring="stake",
    ),
    "suited": Rules(
        name="suited",
        later_leads="as-first",
        single_same_suit=True,
        pair_same_colours=True,
        triple_same_suits=True,
        pair_run_same_colours=True,
        pair_run_one_colour=True,
        pair_run_above=True,
        straight_above=True,
        chops=(
            ("single@2", "quad"),
            ("single@2", "pair_run3"),
            ("pair@2", "quad"),
            ("pair@2", "pair_run4"),
        ),
        instant_wins=("four-twos", "six-pairs", "three-triples", "dragon"),
        scoring="stake",
    ),
    "hawaii": Rules(
        name="hawaii",
        later_leads="as-first",
        first_lead_kinds=("single", "pair", "straight"),
        chops=(("single@2", "quad"), ("single@2", "pair_run3+")),
        bomb_ladder=("quad", "pair_run3+"),
        scoring="stake",
    ),
    "akita": Rules(
        name="akita",
        extra_kinds=("dragon",),
        chops=(("*", "quad"), ("*", "pair_run3"), ("*", "dragon")),
        triple_beats_ace=True,
        straight_lock=True,
        pass_locks=False,
        out_ends_pile=True,
        scoring="stake",
    ),
    "pike": Rules(
        name="pike",
        deal_four_hands=True,
        chops=(("single@2", "pair_run3"),),
        straight_lock=True,
        pass_locks=False,
        scoring="stake",
    ),
    "proplay": Rules(
        name="proplay",
        extra_kinds=("multi_quad", "triple_run"),
        twos_in_straight="top",
        twos_in_pair_run="top",
        chops=_PROPLAY_CHOPS,
        bomb_ladder=_PROPLAY_LADDER,
        end_at_first_out=True,
        scoring="proplay",
        score_extras=("twos-left", "bombs-left", "chop-twos"),
    ),
    "double-deck-13": Rules(
        name="double-deck-13",
        players=8,
        decks=2,
        tie_rule="red-beats-blue",
        single_killer="Kd",
        chops=_CHOPS_SOUTHERN,
        scoring="scorepad",
    ),
}

#: The names of the twelve presets, ``standard`` (the default) first.
RULESETS: tuple[str, ...] = tuple(_PRESETS)
#: Rules codes (:meth:`Rules.code`) over the knobs and the presets.
_CODES = Codes(KNOBS, RULESETS, Rules.preset)


def _rules_from_knobs(knobs: dict[str, Any]) -> Rules:
    """A :class:`Rules` rebuilt from :meth:`Rules.to_dict` (how a value is unpickled)."""
    return Rules.from_dict(knobs)
