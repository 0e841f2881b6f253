"""The rule descriptions' catalogue (tienlen.describe.PHRASES): every sentence has a stable
code, worded in English and Vietnamese with the same parameters, and every code is used."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any, Literal, get_args, get_origin, get_type_hints

from tienlen import INSTANT_WINS, RULESETS, Rules
from tienlen.describe import (
    PHRASES,
    SUMMARIES,
    Join,
    Phrase,
    describe_pattern,
    rules_sections,
)
from tienlen.reasons import LANGUAGES
from tienlen.rules import KNOBS
from tienlen.scoring import SCHEMES

FIELD = re.compile(r"\{(\w+)(?::\w+)?\}")
VIETNAMESE_TERMS = ("đôi thông", "tứ quý", "chặt", "tới trắng", "cóng", "thối 2", "heo")


def test_every_phrase_has_every_language_with_the_same_parameters() -> None:
    for code, words in PHRASES.items():
        assert set(words) == set(LANGUAGES), code
        assert all(w.strip() for w in words.values()), code
        fields = {lang: sorted(FIELD.findall(w)) for lang, w in words.items()}
        assert fields["vi"] == fields["en"], (code, fields)


def variants() -> Iterator[Rules]:
    """Every preset, and each with one knob switched to each other value the form offers."""
    hints = get_type_hints(Rules)
    lists: dict[str, list[Any]] = {
        "score_extras": [("twos-left", "bombs-left", "chop-twos", "three-spades-last")],
        "instant_wins": [tuple(INSTANT_WINS)],
        "first_lead_kinds": [("single", "pair")],
        "opening_bombs": [("pair_run3",)],
        "after_pass_bombs": [("*",), ("quad",)],
        "hand_size": ["all"],
        "few_players_hand_size": [17],
        "single_killer": ["Kd"],
        "players": [2, 3, 8],
        "got_to_get_in": [2],
        "chops": [()],
        "bomb_ladder": [()],
    }
    for name in RULESETS:
        base = Rules.preset(name)
        yield base
        for f in dataclasses.fields(Rules):
            tp = hints[f.name]
            if tp is bool:
                values: list[Any] = [not getattr(base, f.name)]
            elif get_origin(tp) is Literal:
                values = list(get_args(tp))
            else:
                values = lists.get(f.name, [])
            for v in values:
                try:
                    changed = dataclasses.replace(base, **{f.name: v})
                except ValueError:  # a value this preset cannot take
                    continue
                yield changed
                if f.name == "debt_card":  # worded only with debts
                    yield dataclasses.replace(changed, chop_debts="stacking")


def codes_in(value: Any) -> Iterator[str]:
    if isinstance(value, Phrase):
        yield value.code
        for v in value.params.values():
            yield from codes_in(v)
    elif isinstance(value, Join):
        for i in value.items:
            yield from codes_in(i)


def test_every_phrase_is_used_and_every_sentence_is_a_phrase() -> None:
    used: set[str] = set()
    for rules in variants():
        for heading, sentences in rules_sections(rules):
            for p in [heading, *sentences]:
                assert isinstance(p, Phrase), p
                used |= set(codes_in(p))
                assert p.text("vi") != p.text("en") or p.code.startswith("pat."), p.code
    for pattern in (
        "multi_quad",
        "quad_run",
        "straight4",
        "straight4@2",
        "straight",
        "pair_run@2",
        "triple",
        "single",
        "pair",
        "dragon",
    ):
        used |= set(codes_in(describe_pattern(pattern)))
    # one summary per preset: a summary left for a preset that is gone fails here
    assert set(SUMMARIES) == set(RULESETS)
    used |= {p.code for p in SUMMARIES.values()}
    used |= {"pat.raw"}  # a pattern the words do not know is shown as written
    used |= {k.description for k in KNOBS}  # each knob's own name (rules diff, the table form)
    assert set(PHRASES) - used == set()


def test_the_english_words_are_the_engines() -> None:
    for name, scheme in SCHEMES.items():
        assert PHRASES[f"scheme.{name}"]["en"] == scheme.summary
    sentence = rules_sections(Rules.preset("standard"))[2][1][2]
    assert sentence == "A run of pairs has at least 3 consecutive pairs; it may not hold 2s."
    assert sentence.text("vi") == "Đôi thông có ít nhất 3 đôi liên tiếp; không được có heo."
    assert describe_pattern("pair_run4+").text("vi") == "từ 4 đôi thông trở lên"
    assert describe_pattern("pair@2").text("vi") == "đôi heo"


def test_the_games_own_vietnamese_terms_are_used() -> None:
    vietnamese = " ".join(w["vi"] for w in PHRASES.values())
    for term in VIETNAMESE_TERMS:
        assert term in vietnamese, term


def test_phrases_travel_as_codes_and_parameters() -> None:
    bombs = next(
        s
        for _h, ss in rules_sections(Rules.preset("standard"))
        for s in ss
        if s.code == "bomb.chopped_by"
    )
    data = bombs.to_dict()
    assert data["code"] == "bomb.chopped_by"
    assert data["params"]["what"]["join"] == "or"
    assert all("code" in i for i in data["params"]["what"]["items"])
