"""Outside input is read strictly: hypothesis mutates valid rules, records (JSON and text)
and saved matches (wrong types, missing and extra fields, truncation, huge and deep values,
non-UTF-8 bytes). Every failure must be the format's own ``ValueError`` subclass with a
one-line message; every success must round-trip."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen import RULESETS, Rules, RulesError
from tienlen.inputs import MAX_DEPTH, load_json, quote_value

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any JSON value, kept small; huge values are drawn separately.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
HUGE_VALUES = st.sampled_from(
    [
        "x" * 100_000,
        10**40,
        -(10**29),
        list(range(5000)),
        {str(i): i for i in range(500)},
        "3s " * 20_000,
    ]
)


def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


@st.composite
def mutated_object(draw: st.DrawFn, data: dict[str, Any]) -> Any:
    """``data`` with one field (at any depth) changed, dropped or added, or replaced whole."""
    data = json.loads(json.dumps(data))
    choice = draw(st.sampled_from(["change", "drop", "add", "huge", "deep", "whole"]))
    if choice == "whole":
        return draw(JSON_VALUES)
    # Walk down to a random container.
    node: Any = data
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and draw(st.booleans()):
            node = child
            continue
        if choice == "drop":
            del node[key]
        elif choice == "add" and isinstance(node, dict):
            node[draw(st.text(min_size=1, max_size=10))] = draw(JSON_VALUES)
        elif choice == "add":
            node.append(draw(JSON_VALUES))
        elif choice == "huge":
            node[key] = draw(HUGE_VALUES)
        elif choice == "deep":
            node[key] = deep(draw(st.integers(min_value=1, max_value=3 * MAX_DEPTH)))
        else:
            node[key] = draw(JSON_VALUES)
        break
    return data


@st.composite
def mutated_text(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8, cut short, with a byte changed, or wrapped very deep."""
    raw = text.encode("utf-8")
    choice = draw(st.sampled_from(["cut", "byte", "deep", "same"]))
    if choice == "cut":
        return raw[: draw(st.integers(min_value=0, max_value=len(raw)))]
    if choice == "byte":
        at = draw(st.integers(min_value=0, max_value=max(len(raw) - 1, 0)))
        byte = draw(st.integers(min_value=0, max_value=255))
        return raw[:at] + bytes([byte]) + raw[at + 1 :]
    if choice == "deep":
        n = draw(st.integers(min_value=MAX_DEPTH, max_value=100_000))
        return b"[" * n + raw + b"]" * n
    return raw


def one_line(error: ValueError) -> None:
    message = str(error)
    assert message and "\n" not in message and len(message) < 1000, message


# --- the shared helpers ----------------------------------------------------------------------
def test_quote_value_cuts_long_values_and_keeps_one_line() -> None:
    assert quote_value("3s 4s") == "'3s 4s'"
    long = quote_value("a\nb" * 1000)
    assert "\n" not in long and long.endswith("(3000 characters)")
    assert len(quote_value(deep(10_000))) < 200
    assert len(quote_value(list(range(10**5)))) < 200


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ("[" * 40 + "]" * 40, "nested deeper than 32 levels"),
        (b'{"a": "\xff"}', "not UTF-8 text (byte 7"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": ' + "9" * 40 + "}", "40-digit number is too long"),
        ('{"a": 1', "not valid JSON (Expecting ',' delimiter at line 1 column 8)"),
        ("x" * 101, "too large (101 > 100 characters)"),
    ],
)
def test_load_json_refuses_bad_text_in_words(data: str | bytes, fragment: str) -> None:
    with pytest.raises(RulesError) as info:
        load_json(data, error=RulesError, what="rules", limit=100)
    assert str(info.value).startswith("rules: ")
    assert fragment in str(info.value)


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    assert load_json('{"a": "' + "[" * 100 + '"}', error=RulesError, what="x") == {"a": "[" * 100}


# --- rules -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"players": 4.0}, "rules.players: must be an integer, not 4.0"),
        ({"single_killer": 7}, "rules.single_killer: must be a string or null, not 7"),
        ({"single_killer": ["Kd"]}, "rules.single_killer: must be a string or null, not ['Kd']"),
        ({"single_killer": "Kz"}, "rules.single_killer: unknown suit in 'Kz'"),
        (["standard"], "rules: must be an object of knobs, not ['standard']"),
        (
            {"chops": [["single@2"]]},
            "rules.chops[0]: must be a list of 2 strings, not ['single@2']",
        ),
        ({"chops": [["single@2", "quad@X"]]}, "rules.chops[0][1]: unknown rank 'X' in pattern"),
        ({"stacking": 1}, "rules.stacking: must be true or false, not 1"),
        ({"playres": 3}, "rules: unknown field 'playres'; did you mean 'players'?"),
        ({"name": "x" * 300}, "rules.name: longer than 200 characters: 'xxxxx"),
    ],
)
def test_bad_rules_are_refused_naming_the_knob(data: Any, message: str) -> None:
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert str(info.value).startswith(message)


@FUZZ
@given(name=st.sampled_from(RULESETS), data=st.data())
def test_mutated_rules_are_refused_cleanly_or_round_trip(name: str, data: st.DataObject) -> None:
    valid = Rules.preset(name).to_dict()
    if data.draw(st.booleans()):
        text: str | bytes = json.dumps(data.draw(mutated_object(valid)))
    else:
        text = data.draw(mutated_text(json.dumps(valid)))
    try:
        rules = Rules.from_json(text)
    except RulesError as e:
        one_line(e)
        return
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_dict(rules.to_dict()) == rules
