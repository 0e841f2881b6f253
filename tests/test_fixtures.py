"""Run the per-rule-set fixtures of tests/fixtures/<preset>.json.

Each file holds the cases of one preset; each case names its source: a seed sentence
(``"003: <quote>"``), a line of RULES.md (``"RULES.md: <quote>"``) or one of our calls
(``"RULES.md (call): <what we decided>"``). Quotes are checked against the seed texts
when they are available (``TIENLEN_SEEDS``, or ``shared/`` next to the repository).

Case kinds:

- ``combo``: ``cards`` form ``expect`` (a kind, or ``null`` for no combination);
- ``beats`` / ``not_beats``: ``new`` may / may not be played on ``old`` (``locked``: a
  one-suit straight locked the pile; ``reason``: a fragment of the refusal);
- ``game``: a deal (``hands`` or ``seed``, optional ``leader``, ``previous_finish``,
  ``debts`` as ``[debtor, creditor, cards]`` from a previous game) and ``steps`` (see
  :func:`run_step`).

Every case may carry ``overrides`` (knob values replacing the preset's) and ``extend``
(patterns appended to a tuple knob, e.g. a house-rule chop), and ``covers`` (topics; the
coverage test asks each preset for the topics of its rows in RULES.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reference import public_state
from tienlen import RULESETS, Game, IllegalMoveError, Move, Rules, classify, parse_cards, score
from tienlen.cards import cards_of_mask, format_cards, mask_of
from tienlen.combos import why_not_beats
from tienlen.debts import CardDebt
from tienlen.scoring import card_debts

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent
CASE_KEYS = {
    "combo": {"cards", "expect", "size"},
    "beats": {"new", "old", "locked"},
    "not_beats": {"new", "old", "locked", "reason"},
    "game": {"hands", "seed", "leader", "previous_finish", "debts", "steps"},
}
COMMON_KEYS = {"kind", "source", "covers", "overrides", "extend", "note"}
STEP_ACTIONS = {
    "play",
    "illegal",
    "turn",
    "legal",
    "legal_has",
    "legal_lacks",
    "state",
    "offer",
    "offer_refused",
    "accept",
    "refuse",
    "ask",
}
STEP_KEYS = STEP_ACTIONS | {"by", "error", "as", "answer"}
STATE_KEYS = {
    "phase",
    "finish_order",
    "top",
    "top_seat",
    "passed",
    "locked_out",
    "straight_locked",
    "cards_left",
    "hands",
    "instant_win",
    "dealt_sizes",
    "unused_sizes",
    "leader",
    "first_lead",
    "chops",
    "stuck",
    "winner",
    "scores",
    "debts",
    "opening",
    "shown",
    "redeals",
}

# Topics every preset must cover: the columns of RULES.md's bomb table and the rule knobs
# every row of the preset table sets.
COMMON_TOPICS = {
    "card-order",
    "compare",
    "no-wrap",
    "twos-in-runs",
    "first-lead",
    "passing",
    "after-pass-bombs",
    "chop-single-2",
    "chop-pair-2s",
    "chop-triple-2s",
    "bomb-vs-bomb",
    "going-out",
}
# The rest of each row of RULES.md's preset table.
PRESET_TOPICS: dict[str, set[str]] = {
    "standard": {
        "worked-example",
        "option-quad-chops-pair-2s",
        "option-4-pair-run-beats-quad",
        "option-anticlockwise",
        "option-instant-win",
        "option-winner-takes-all",
        "option-17-cards",
    },
    "wikipedia": {"worked-example", "double-deck-ties"},
    "pagat": {"worked-example"},
    "pang": {"decline", "stacking", "san-jose"},
    "lu": {"deal", "quad-any-single-pair", "end-at-first-out"},
    "vietcong": {"instant-win", "trading", "quad-run"},
    "suited": {"follow-suit", "instant-win"},
    "hawaii": {"deal", "ladder", "option-no-lock-out", "option-consecutive-quads"},
    "akita": {"triple-beats-ace", "straight-lock", "out-ends-pile", "dragon", "no-lock-out"},
    "pike": {
        "straight-lock",
        "four-hands",
        "power-after-out",
        "no-lock-out",
        "bomb-lead",
        "no-instant-win",
    },
    "proplay": {
        "ladder",
        "straight-2-chop",
        "end-at-first-out",
        "multi-quad",
        "triple-run",
        "no-instant-win",
    },
    "double-deck-13": {"eight-players", "ties", "killer", "no-instant-win"},
}


# --- loading --------------------------------------------------------------------------
@cache
def load(preset: str) -> dict[str, Any]:
    with open(FIXTURES / f"{preset}.json", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def all_cases() -> Iterator[Any]:
    for preset in RULESETS:
        if not (FIXTURES / f"{preset}.json").is_file():
            continue  # reported by test_one_fixture_file_per_preset
        for i, case in enumerate(load(preset)["cases"]):
            yield pytest.param(preset, case, id=f"{preset}-{i:02d}-{case['kind']}")


def rules_for(preset: str, case: dict[str, Any]) -> Rules:
    values: dict[str, Any] = {}
    for knob, value in case.get("overrides", {}).items():
        values[knob] = _tuples(value) if isinstance(value, list) else value
    base = Rules.preset(preset, **values)
    for knob, extra in case.get("extend", {}).items():
        values[knob] = getattr(base, knob) + _tuples(extra)
    return Rules.preset(preset, **values)


def _tuples(value: list[Any]) -> tuple[Any, ...]:
    return tuple(tuple(v) if isinstance(v, list) else v for v in value)


def combo(text: str, rules: Rules) -> Move:
    move = classify(parse_cards(text), rules)
    assert move is not None, f"fixture error: {text!r} is no combination under {rules.name}"
    return move


# --- the seed texts ---------------------------------------------------------------------
def _shared_dir() -> Path | None:
    for candidate in (os.environ.get("TIENLEN_SEEDS"), ROOT.parent / "shared"):
        if candidate and (Path(candidate) / "RULES.md").is_file():
            return Path(candidate)
    return None


def _normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip()


@cache
def source_texts() -> dict[str, str] | None:
    shared = _shared_dir()
    if shared is None:
        return None
    texts = {"RULES.md": _normalise((shared / "RULES.md").read_text(encoding="utf-8"))}
    for path in sorted((shared / "seeds").glob("*.txt")):
        texts[path.name[:3]] = _normalise(path.read_text(encoding="utf-8"))
    return texts


SOURCE = re.compile(r"^(?P<where>00[0-4]|RULES\.md|RULES\.md \(call\)): (?P<quote>.+)$", re.S)


def sources_of(case: dict[str, Any]) -> list[str]:
    src = case["source"]
    return [src] if isinstance(src, str) else list(src)


# --- meta tests ---------------------------------------------------------------------------
def test_one_fixture_file_per_preset() -> None:
    assert sorted(p.stem for p in FIXTURES.glob("*.json")) == sorted(RULESETS)


@pytest.mark.parametrize("preset", RULESETS)
def test_fixture_file_is_well_formed(preset: str) -> None:
    data = load(preset)
    assert data["preset"] == preset
    assert set(data) == {"preset", "cases"}
    for i, case in enumerate(data["cases"]):
        where = f"{preset} case {i}"
        kind = case.get("kind")
        assert kind in CASE_KEYS, f"{where}: unknown kind {kind!r}"
        unknown = set(case) - CASE_KEYS[kind] - COMMON_KEYS
        assert not unknown, f"{where}: unknown keys {unknown}"
        assert case.get("covers"), f"{where}: no topics"
        for src in sources_of(case):
            assert SOURCE.match(src), f"{where}: source must be '00N: quote' or 'RULES.md…'"
        if kind == "combo":
            assert "cards" in case and "expect" in case, where
        elif kind in ("beats", "not_beats"):
            assert "new" in case and "old" in case, where
        else:
            assert ("hands" in case) != ("seed" in case), f"{where}: hands or seed"
            assert case["steps"], f"{where}: no steps"
            for step in case["steps"]:
                assert set(step) <= STEP_KEYS, f"{where}: unknown step keys in {step}"
                assert len(set(step) & STEP_ACTIONS) == 1, f"{where}: one action per step: {step}"
                if "state" in step:
                    assert set(step["state"]) <= STATE_KEYS, f"{where}: {step['state']}"
        # Overrides must name real knobs (a typo would silently test the preset).
        rules_for(preset, case)


@pytest.mark.parametrize("preset", RULESETS)
def test_sources_quote_the_seeds(preset: str) -> None:
    texts = source_texts()
    if texts is None:
        pytest.skip("seed texts not found (set TIENLEN_SEEDS to the folder with RULES.md)")
    for i, case in enumerate(load(preset)["cases"]):
        for src in sources_of(case):
            m = SOURCE.match(src)
            assert m is not None
            if m["where"] == "RULES.md (call)":
                continue
            text = texts[m["where"]]
            for part in _normalise(m["quote"]).split(" … "):
                assert part in text, f"{preset} case {i}: not in {m['where']}: {part!r}"


@pytest.mark.parametrize("preset", RULESETS)
def test_fixtures_cover_the_rule_set(preset: str) -> None:
    cases = load(preset)["cases"]
    kinds = {c["kind"] for c in cases}
    assert kinds == set(CASE_KEYS), f"{preset}: missing case kinds {set(CASE_KEYS) - kinds}"
    combos = [c for c in cases if c["kind"] == "combo"]
    assert any(c["expect"] for c in combos) and any(c["expect"] is None for c in combos)
    covered = set().union(*(c["covers"] for c in cases))
    missing = (COMMON_TOPICS | PRESET_TOPICS[preset]) - covered
    assert not missing, f"{preset}: no case covers {sorted(missing)}"


# --- running the cases ---------------------------------------------------------------------
@pytest.mark.parametrize(("preset", "case"), list(all_cases()))
def test_case(preset: str, case: dict[str, Any]) -> None:
    rules = rules_for(preset, case)
    kind = case["kind"]
    if kind == "combo":
        got = classify(parse_cards(case["cards"]), rules)
        assert (got.kind if got else None) == case["expect"], (case["cards"], got)
        if "size" in case:
            assert got is not None and got.size == case["size"]
    elif kind in ("beats", "not_beats"):
        new, old = combo(case["new"], rules), combo(case["old"], rules)
        reason = why_not_beats(new, old, rules, locked=case.get("locked", False))
        if kind == "beats":
            assert reason is None, f"{case['new']} on {case['old']}: {reason}"
        else:
            assert reason is not None, f"{case['new']} should not beat {case['old']}"
            assert case.get("reason", "") in reason, reason
    else:
        run_game(case, rules)


def run_game(case: dict[str, Any], rules: Rules) -> None:
    game = Game(
        rules,
        hands=case.get("hands"),
        seed=case.get("seed"),
        leader=case.get("leader"),
        previous_finish=case.get("previous_finish"),
        debts=[CardDebt(d, c, n, "owed from the last game") for d, c, n in case.get("debts", [])],
    )
    for n, step in enumerate(case["steps"]):
        try:
            run_step(game, step)
        except AssertionError as e:
            raise AssertionError(f"step {n} {step}: {e}") from None


def _move_text(m: Move) -> str:
    return "pass" if m.is_pass else format_cards(m.cards, ascii=True)


def _moves(texts: list[str]) -> set[int]:
    return {0 if t == "pass" else mask_of(parse_cards(t)) for t in texts}


def run_step(game: Game, step: dict[str, Any]) -> None:
    """One step of a game script.

    - ``play`` (cards, ``"pass"`` or, in an exchange, the cards given): must be legal; ``as``
      checks the kind it was played as;
    - ``illegal``: must raise :class:`IllegalMoveError` whose message contains ``error``,
      and leave the game unchanged;
    - ``turn``: the seat to act; ``legal`` / ``legal_has`` / ``legal_lacks``: the legal moves;
    - ``state``: public facts (see ``STATE_KEYS``);
    - ``offer`` ``{partner, give, take}`` / ``offer_refused`` (the same, must raise with
      ``error``), ``accept``, ``refuse``: mutual trading;
    - ``ask`` ``[asker, seat]``: a card count asked (``rules.hidden_counts``), told ``answer``,
      or refused with ``error`` (changing nothing).
    ``by`` (any action) checks whose turn it is first.
    """
    if "by" in step:
        assert game.turn == step["by"], f"turn is {game.turn}, not {step['by']}"
    if "play" in step:
        move = game.play(step["play"])
        if "as" in step:
            assert isinstance(move, Move) and move.kind == step["as"], move
    elif "illegal" in step:
        before = public_state(game)
        legal = {m.mask for m in game.legal_moves()}
        with pytest.raises(IllegalMoveError) as info:
            game.play(step["illegal"])
        assert step["error"] in str(info.value), str(info.value)
        assert public_state(game) == before
        assert {m.mask for m in game.legal_moves()} == legal
        target = 0 if step["illegal"] == "pass" else mask_of(parse_cards(step["illegal"]))
        assert target not in legal
    elif "turn" in step:
        assert game.turn == step["turn"]
    elif "legal" in step:
        got = {m.mask for m in game.legal_moves()}
        assert got == _moves(step["legal"]), [_move_text(m) for m in game.legal_plays()]
    elif "legal_has" in step:
        got = {m.mask for m in game.legal_moves()}
        missing = _moves(step["legal_has"]) - got
        assert not missing, [format_cards(cards_of_mask(m)) for m in missing]
    elif "legal_lacks" in step:
        got = {m.mask for m in game.legal_moves()}
        extra = _moves(step["legal_lacks"]) & got
        assert not extra, [format_cards(cards_of_mask(m)) or "pass" for m in extra]
    elif "state" in step:
        check_state(game, step["state"])
    elif "offer" in step:
        o = step["offer"]
        game.offer_trade(o["partner"], o["give"], o["take"])
    elif "offer_refused" in step:
        o = step["offer_refused"]
        before = public_state(game)
        with pytest.raises(IllegalMoveError) as info:
            game.offer_trade(o["partner"], o["give"], o["take"])
        assert step["error"] in str(info.value), str(info.value)
        assert public_state(game) == before
    elif "ask" in step:
        asker, seat = step["ask"]
        if "error" in step:
            before = (public_state(game), game.asks)
            with pytest.raises(IllegalMoveError) as info:
                game.ask_count(asker, seat)
            assert step["error"] in str(info.value), str(info.value)
            assert (public_state(game), game.asks) == before
        else:
            assert game.ask_count(asker, seat) == step["answer"]
    elif "accept" in step:
        game.accept_trade()
    elif "refuse" in step:
        game.play("pass")


def check_state(game: Game, expect: dict[str, Any]) -> None:
    for key, want in expect.items():
        if key == "phase":
            got: Any = game.phase
        elif key == "finish_order":
            got = list(game.finish_order)
        elif key == "top":
            top = game.top
            got = _move_text(top.move) if top else None
            want = format_cards(parse_cards(want), ascii=True) if want else None
        elif key == "top_seat":
            got = game.top.seat if game.top else None
        elif key in ("passed", "locked_out", "stuck"):
            got = sorted(getattr(game, key))
        elif key == "straight_locked":
            got = game.straight_locked
        elif key == "cards_left":
            got = [game.cards_left(s) for s in range(game.rules.players)]
        elif key == "hands":
            got = {str(s): format_cards(game.hands[int(s)], ascii=True) for s in want}
            want = {s: format_cards(sorted(parse_cards(h)), ascii=True) for s, h in want.items()}
        elif key == "instant_win":
            got = list(game.instant_win) if game.instant_win else None
        elif key == "dealt_sizes":
            got = [len(h) for h in game.dealt]
        elif key == "unused_sizes":
            got = [len(h) for h in game.unused_hands]
        elif key == "leader":
            got = game.leader
        elif key == "winner":
            got = game.winner
        elif key == "scores":
            got = list(score(game))
        elif key == "redeals":
            got = game.redeals
        elif key == "shown":
            got = {s: list(game.shown_counts(int(s))) for s in want}
        elif key == "opening":
            got = list(game.opening) if game.opening is not None else None
        elif key == "debts":
            got = [[d.debtor, d.creditor, d.cards] for d in card_debts(game)]
        elif key == "first_lead":
            rule = game.first_lead_rule
            got = [rule[0], rule[1].ascii()] if rule else None
        else:
            assert key == "chops"
            got = [[c.seat, c.victim] for c in game.chops]
        assert got == want, f"{key}: {got!r} != {want!r}"
