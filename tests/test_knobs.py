"""The knob schema (tienlen.knobs): derived once from Rules, read by the rules reader, the
codes, the descriptions and the server's table form."""

from __future__ import annotations

import dataclasses

import pytest

from tienlen import INSTANT_WINS, Rules
from tienlen.knobs import RulesError
from tienlen.patterns import KINDS
from tienlen.rules import KNOBS

BY_NAME = {k.name: k for k in KNOBS}


def test_every_knob_of_rules_is_in_the_schema_in_order_with_its_default() -> None:
    fields = [f for f in dataclasses.fields(Rules) if f.init]
    assert [k.name for k in KNOBS] == [f.name for f in fields]
    plain = Rules()
    assert all(k.default == getattr(plain, k.name) for k in KNOBS)


def test_the_schema_says_what_each_kind_of_knob_takes() -> None:
    assert BY_NAME["cong"].shape == "flag"
    hand = BY_NAME["hand_size"]
    assert (hand.shape, hand.number, hand.choices, hand.range) == (
        "value",
        True,
        ("all",),
        (1, 104),
    )
    killer = BY_NAME["single_killer"]
    assert (killer.text, killer.optional, killer.number) == (True, True, False)
    chops = BY_NAME["chops"]
    assert (chops.shape, chops.patterns, chops.text) == ("pairs", True, False)
    assert (BY_NAME["bomb_ladder"].shape, BY_NAME["bomb_ladder"].patterns) == ("table", True)
    extras = BY_NAME["score_extras"]
    assert extras.shape == "table" and "twos-left" in extras.choices
    assert BY_NAME["instant_wins"].choices == INSTANT_WINS
    assert BY_NAME["extra_kinds"].choices == KINDS
    assert BY_NAME["extra_kinds"].choice_name == "a combination kind"
    assert BY_NAME["direction"].choices == ("clockwise", "anticlockwise")
    assert BY_NAME["got_to_get_in"].range == (0, 1000)
    assert BY_NAME["first_lead_kinds"].word == "first-lead-kinds"


def test_the_reader_takes_its_ranges_and_words_from_the_schema() -> None:
    assert BY_NAME["players"].range == (2, 8)
    ranged = [k for k in KNOBS if k.range is not None]
    assert len(ranged) > 8  # the listed ranges and the default one
    for knob in ranged:
        low, high = knob.range or (0, 0)
        with pytest.raises(RulesError) as error:
            Rules.from_dict({knob.name: high + 1})
        assert (
            str(error.value) == f"rules.{knob.name}: must be from {low} to {high}, not {high + 1}"
        )
    # a value of no knob's type: the reader words what it takes as the schema does
    for knob in KNOBS:
        for lists, read in ((True, Rules.from_dict), (False, lambda d: Rules(**d))):
            with pytest.raises(RulesError) as error:
                read({knob.name: 1.5})
            words = knob.describe(lists=lists)
            assert str(error.value) == f"rules.{knob.name}: must be {words}, not 1.5"
    assert BY_NAME["chops"].describe(lists=True) == "a list of lists of 2 strings"
    assert BY_NAME["chops"].describe(lists=False) == "a tuple of tuples of 2 strings"


def test_every_knob_has_its_own_words_in_english_and_vietnamese() -> None:
    from tienlen.describe import PHRASES, Phrase

    for knob in KNOBS:
        words = PHRASES[knob.description]
        assert set(words) == {"en", "vi"}, knob.name
        assert words["en"] and words["vi"] and words["en"] != words["vi"], knob.name
        assert "{" not in words["en"] + words["vi"], knob.name  # a name takes no parameters
    assert str(Phrase(BY_NAME["hand_size"].description)) == "Cards dealt to each player"
    assert Phrase(BY_NAME["twos_in_straight"].description).text("vi") == "Heo trong sảnh"
    # one knob, one name: no two knobs read the same in either language
    for lang in ("en", "vi"):
        names = [PHRASES[k.description][lang] for k in KNOBS]
        assert len(set(names)) == len(KNOBS), lang
