"""Rules codes: ``Rules.code()`` and ``Rules.from_code()``.

Golden codes for the presets and a few house games; a property test over random rules
values drawn from the knobs' declared types (so every knob, new ones included, is covered):
codes round-trip exactly, distinct values never share one, and every code survives a URL
and chat; bad codes are refused naming the part that could not be read.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quick import examples
from tienlen import INSTANT_WINS, RULESETS, Rules, RulesError, deck
from tienlen.patterns import KINDS
from tienlen.rules import BASE_KINDS

SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
STANDARD = Rules.preset("standard")


@pytest.mark.parametrize("name", RULESETS)
def test_a_preset_s_code_is_its_name(name: str) -> None:
    assert Rules.preset(name).code() == name
    assert Rules.from_code(name) is Rules.preset(name)


# House games of the seeds, and their codes as checked in.
GOLDEN = [
    (
        # 003: "Anticlockwise: in Vietnam the game is often played anticlockwise"; "Four of a
        # kind chops a pair of 2s: many players let a four of a kind beat a pair of 2s".
        Rules.preset(
            "standard",
            direction="anticlockwise",
            chops=(*STANDARD.chops, ("pair@2", "quad")),
        ),
        "standard.direction-anticlockwise.quad-chops-pair-of-2",
    ),
    (Rules.preset("standard", cong=True), "standard.cong"),
    (
        Rules.preset("standard", players=3, hand_size=17),
        "standard.players-3.hand-size-17",
    ),
    (Rules.preset("pike", pass_locks=True), "pike.pass-locks"),
    (
        Rules.preset("akita", pass_locks=True, out_ends_pile=False),
        "akita.pass-locks.no-out-ends-pile",
    ),
    (
        Rules.preset("vietcong", instant_wins=(), trading="mutual"),
        "vietcong.no-instant-wins-four-twos.trading-mutual",
    ),
    (
        Rules.preset("standard", twos_in_straight="top", may_finish_on_two=False),
        "standard.twos-in-straight-top.no-may-finish-on-two",
    ),
    (
        Rules.preset("standard", chops=Rules.preset("wikipedia").chops),
        "standard.chops-as-wikipedia",
    ),
    (
        Rules.preset("hawaii", bomb_ladder=(), chops=(("single@2", "pair_run3+"),)),
        "hawaii.no-quad-chops-single-of-2.no-bomb-ladder",
    ),
    (Rules.preset("suited", instant_wins=()), "suited.no-instant-wins"),
    (
        # 004's chop debts with stacking, paid in any 2, and the loser's 2s owed.
        Rules.preset("standard", chop_debts="stacking", debt_card="any-two", loser_owes_twos=True),
        "standard.loser-owes-twos.chop-debts-stacking.debt-card-any-two",
    ),
    (
        Rules.preset("standard", score_extras=("twos-left", "bombs-left")),
        "standard.score-extras-twos-left.score-extras-bombs-left",
    ),
    (Rules.preset("proplay", score_extras=()), "proplay.no-score-extras"),
    (
        # 004: "Three consecutive pairs can be played at the beginning of the game without
        # being the lead."
        Rules.preset("standard", opening_bombs=("pair_run3",)),
        "standard.opening-bombs-pair-run3",
    ),
    (Rules.preset("double-deck-13", single_killer="Kd'"), "double-deck-13.single-killer-Kd~27"),
    (Rules.preset("lu", few_players_hand_size=None), "lu.few-players-hand-size-none"),
    (Rules.preset("standard", hand_size="all", players=3), "standard.players-3.hand-size-all"),
    (
        dataclasses.replace(Rules.preset("pagat"), name="Anna's table", cong=True),
        "pagat.name-Anna~27s~20table.cong",
    ),
]


@pytest.mark.parametrize(("rules", "code"), GOLDEN, ids=[c for _, c in GOLDEN])
def test_golden_codes(rules: Rules, code: str) -> None:
    assert rules.code() == code
    assert Rules.from_code(code) == rules


# --- random rules values from the knobs' types -------------------------------------------
PRESET_PATTERNS = sorted(
    {p for n in RULESETS for pair in Rules.preset(n).chops for p in pair}
    | {p for n in RULESETS for p in Rules.preset(n).bomb_ladder + Rules.preset(n).after_pass_bombs}
)
# Patterns as people write them, including spellings the engine reads the same way.
patterns = st.one_of(
    st.sampled_from(PRESET_PATTERNS),
    st.builds(
        lambda kind, size, more, rank: f"{kind}{size}{more}{rank}",
        st.sampled_from(KINDS),
        st.sampled_from(["", "2", "3", "5", "03", "12"]),
        st.sampled_from(["", "+"]),
        st.sampled_from(["", "@2", "@A", "@a", "@10", "@k"]),
    ).filter(lambda p: p[-1:] != "+" or any(c.isdigit() for c in p)),
)
CARDS = [c.ascii() for c in deck(2)]
INT_RANGES = {
    "players": (2, 8),
    "decks": (1, 2),
    "hand_size": (1, 26),
    "few_players_hand_size": (1, 17),
}
ENTRIES: dict[str, Any] = {
    "chops": st.tuples(patterns, patterns),
    "bomb_ladder": patterns,
    "after_pass_bombs": patterns,
    "opening_bombs": patterns,
    "extra_kinds": st.sampled_from([k for k in KINDS if k not in BASE_KINDS]),
    "first_lead_kinds": st.sampled_from(KINDS),
    "instant_wins": st.sampled_from(INSTANT_WINS),
}
TEXT = {
    "name": st.one_of(st.sampled_from(RULESETS), st.text(max_size=12)),
    "single_killer": st.sampled_from(CARDS),
}


def strategy(knob: str, tp: Any) -> Any:
    """Values of one knob, from its declared type (a few knobs' ranges and lists above)."""
    origin = get_origin(tp)
    if tp is bool:
        return st.booleans()
    if origin is Literal:
        return st.sampled_from(get_args(tp))
    if origin is Union or str(origin) == "<class 'types.UnionType'>":
        return st.one_of(*(strategy(knob, arm) for arm in get_args(tp)))
    if tp is type(None):
        return st.none()
    if tp is int:
        lo, hi = INT_RANGES.get(knob, (2, 6))
        return st.integers(lo, hi)
    if tp is str:
        return TEXT.get(knob, st.text(max_size=8))
    if origin is tuple and get_args(tp)[1:] == (Ellipsis,):
        base = ENTRIES[knob] if knob in ENTRIES else strategy(knob, get_args(tp)[0])
        return st.lists(base, max_size=5).map(tuple)
    raise AssertionError(f"no strategy for knob {knob} of type {tp}")


HINTS = get_type_hints(Rules)
KNOBS = {f.name: strategy(f.name, HINTS[f.name]) for f in dataclasses.fields(Rules) if f.init}


@st.composite
def rules_values(draw: Any) -> Rules:
    """A preset with some knobs changed, or with a table edited entry by entry."""
    base = Rules.preset(draw(st.sampled_from(RULESETS)))
    changes = {}
    for knob in draw(st.sets(st.sampled_from(sorted(KNOBS)), max_size=6)):
        old = getattr(base, knob)
        if isinstance(old, tuple) and old and draw(st.booleans()):
            # Edit the preset's table: drop some entries, shuffle, add a few.
            kept = draw(st.lists(st.sampled_from(old), max_size=len(old) + 1))
            changes[knob] = tuple(kept) + draw(KNOBS[knob])
        else:
            changes[knob] = draw(KNOBS[knob])
    try:
        return dataclasses.replace(base, **changes)
    except ValueError:
        assume(False)
        raise


SAFE = re.compile(r"[A-Za-z0-9.~-]+")


@SETTINGS
@given(rules_values())
def test_codes_round_trip_and_travel_unchanged(rules: Rules) -> None:
    code = rules.code()
    back = Rules.from_code(code)
    assert back == rules
    assert back.to_dict() == rules.to_dict()  # equal knob by knob, types included
    assert SAFE.fullmatch(code), code
    # URLs: nothing to escape, and a query string's '+'-for-space decoding changes nothing.
    assert urllib.parse.quote(code, safe="") == code
    assert urllib.parse.unquote_plus(code) == code
    # Chat: no markup characters (* _ ` |) and no doubled tilde outside a raw value.
    assert not re.search(r"[*_`|]", code)


@SETTINGS
@given(rules_values(), rules_values())
def test_distinct_values_never_share_a_code(a: Rules, b: Rules) -> None:
    assert (a.code() == b.code()) == (a == b)


@SETTINGS
@given(rules_values(), st.data())
def test_one_knob_changed_changes_the_code(rules: Rules, data: Any) -> None:
    knob = data.draw(st.sampled_from(sorted(KNOBS)))
    value = data.draw(KNOBS[knob])
    assume(value != getattr(rules, knob))
    try:
        other = dataclasses.replace(rules, **{knob: value})
    except ValueError:
        assume(False)
        raise
    assert other.code() != rules.code()
    assert Rules.from_code(other.code()) == other


# --- bad codes ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("", r"empty rules code"),
        ("killer", r"unknown rule set 'killer'; valid names: standard, wikipedia"),
        ("killer.cong", r"unknown rule set 'killer'; .*standard, wikipedia"),
        ("standard.bogus", r"cannot read part 'bogus': no knob of that name"),
        ("standard.players-x", r"cannot read part 'players-x': players must be a whole number"),
        ("standard..cong", r"cannot read part '': an empty part"),
        ("standard.cong.", r"cannot read part '': an empty part"),
        ("standard.direction-up", r"'direction-up': direction must be one of clockwise"),
        ("standard.cong.no-cong", r"part 'no-cong' sets cong again"),
        ("standard.no-quad-chops-pair-of-2", r"chops has no entry \('pair@2', 'quad'\)"),
        ("standard.zap-chops-single-of-2", r"'zap-chops-single-of-2': must be a pattern"),
        ("standard.quad-chops-single-of-1", r"unknown rank '1'"),
        ("standard.chops-as-killer", r"'chops-as-killer': 'killer' is not a rule set"),
        ("standard.extra-kinds-wheel", r"extra-kinds must be a combination kind: .*dragon"),
        ("standard.name-a~zz", r"'name-a~zz': text may hold only letters"),
        ("standard.players-9", r"rules code 'standard.players-9': .*players"),
        ("standard.no-players-4", r"cannot read part 'no-players-4'"),
        ("standard.Cong", r"cannot read part 'Cong'"),
    ],
)
def test_a_bad_code_names_the_part_it_could_not_read(code: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_code(code)


def test_a_long_bad_code_is_quoted_cut_short() -> None:
    code = "standard." + "x" * 500
    with pytest.raises(RulesError) as info:
        Rules.from_code(code)
    assert len(str(info.value)) < 400
    assert "…" in str(info.value)


@pytest.mark.parametrize(
    "knob",
    [f.name for f in dataclasses.fields(Rules) if isinstance(getattr(STANDARD, f.name), bool)],
)
def test_a_flag_s_part_is_its_name(knob: str) -> None:
    on = not getattr(STANDARD, knob)
    word = knob.replace("_", "-")
    assert Rules.preset("standard", **{knob: on}).code() == f"standard.{'' if on else 'no-'}{word}"


def test_the_codes_in_docs_rules_md_read_back() -> None:
    # Every code docs/rules.md shows (the codes table and the house-rules tables).
    docs = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text("utf-8")
    section = docs[docs.index("## Rules codes") : docs.index("## The calls")]
    codes = [
        c
        for c in re.findall(r"`([a-z0-9-]+(?:\.[A-Za-z0-9~-]+)+|[a-z0-9-]+)`", section)
        if c.split(".")[0] in RULESETS
    ]
    assert len(codes) > 40
    for code in codes:
        rules = Rules.from_code(code)
        if code != "pagat.name-standard":  # shown as another spelling of a value
            assert rules.code() == code
