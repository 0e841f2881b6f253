"""Outside input is read strictly: hypothesis mutates valid rules, records (JSON and text)
and saved matches (wrong types, missing and extra fields, truncation, huge and deep values,
non-UTF-8 bytes). Every failure must be the format's own ``ValueError`` subclass with a
one-line message; every success must round-trip."""

from __future__ import annotations

import doctest
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from quick import examples
from test_record import random_play
from tienlen import RULESETS, Game, Match, Rules, RulesError
from tienlen.inputs import MAX_ACTIONS, MAX_DEPTH, MAX_TEXT, load_json, quote_value
from tienlen.match_record import MatchRecord, read_games
from tienlen.record import GameRecord, RecordError, read

# Modest for CI; TIENLEN_FUZZ_EXAMPLES=5000 fuzzes deeper by hand.
FUZZ = settings(
    max_examples=int(os.environ.get("TIENLEN_FUZZ_EXAMPLES", 0)) or examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

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

NUDGES: dict[type, st.SearchStrategy[Any]] = {
    int: st.integers(min_value=-1, max_value=9),
    bool: st.booleans(),
    str: st.sampled_from(["pass", "3s", "2h 2d", "4c 5c 6c", "", "standard", "single@2", "x"]),
}


def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


@st.composite
def mutated_object(draw: st.DrawFn, data: dict[str, Any]) -> Any:
    """``data`` with one field (at any depth) changed, dropped or added, or replaced whole."""
    data = json.loads(json.dumps(data))
    choice = draw(st.sampled_from(["nudge", "change", "drop", "add", "huge", "deep", "whole"]))
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
        elif choice == "nudge":  # a value of the same type, often still valid
            node[key] = draw(NUDGES.get(type(child), JSON_VALUES))
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
    event(f"refused: {type(error).__name__}")
    message = str(error)
    assert message and "\n" not in message and len(message) < 1000, message


# --- the shared helpers ----------------------------------------------------------------------
def test_the_module_examples_hold() -> None:
    import tienlen.inputs

    assert doctest.testmod(tienlen.inputs).failed == 0


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
    event("read")
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_dict(rules.to_dict()) == rules


# --- game records ----------------------------------------------------------------------------
def played(rules: Rules, seed: int, *, stop: int | None = None, **setup: Any) -> Game:
    return random_play(Game(rules, seed=seed, **setup), random.Random(seed), stop=stop)


RECORDS = [
    GameRecord.from_game(played(Rules.preset("standard"), 1), seed=1, names=list("ABCD")),
    GameRecord.from_game(played(Rules.preset("proplay", players=3), 2, stop=15)),
    GameRecord.from_game(played(Rules.preset("pang", trading="mutual"), 3), seed="3/x"),
    GameRecord.from_game(
        played(Rules.preset("pang", trading="san-jose"), 4, previous_finish=(1, 0, 3, 2))
    ),
    GameRecord.from_game(played(Rules.preset("double-deck-13"), 5, stop=40)),
]


def replays(record: GameRecord) -> bool:
    """Whether the record replays; a record that does not must say so with a RecordError."""
    try:
        record.game()
    except RecordError as e:
        one_line(e)
        return False
    return True


@FUZZ
@given(record=st.sampled_from(RECORDS), data=st.data())
def test_mutated_json_records_are_refused_cleanly_or_round_trip(
    record: GameRecord, data: st.DataObject
) -> None:
    valid = record.to_dict()
    if data.draw(st.booleans()):
        text: str | bytes = json.dumps(data.draw(mutated_object(valid)))
    else:
        text = data.draw(mutated_text(json.dumps(valid)))
    try:
        rec = read(text)
    except RecordError as e:
        one_line(e)
        return
    event("read")
    assert GameRecord.from_json(rec.to_json()) == rec
    if replays(rec):
        event("replayed")
        again = GameRecord.from_text(rec.to_text())
        assert again.to_text() == rec.to_text()
        assert again.game().finish_order == rec.game().finish_order


@st.composite
def mutated_lines(draw: st.DrawFn, text: str) -> str:
    """The text form with a line dropped, doubled, replaced or a tag value changed."""
    lines = text.splitlines()
    i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
    choice = draw(st.sampled_from(["drop", "double", "replace", "tag"]))
    if choice == "drop":
        del lines[i]
    elif choice == "double":
        lines.insert(i, lines[i])
    elif choice == "replace":
        lines[i] = draw(st.text(max_size=40))
    else:
        name = draw(
            st.sampled_from(
                [
                    "Players",
                    "Seed",
                    "Name1",
                    "Seat2",
                    "Leader",
                    "Knobs",
                    "Finish",
                    "Scores",
                    "InstantWin",
                    "Version",
                    "Bogus",
                ]
            )
        )
        lines.insert(i, f"[{name} {json.dumps(draw(st.text(max_size=30)))}]")
    return "\n".join(lines)


@FUZZ
@given(record=st.sampled_from(RECORDS), data=st.data())
def test_mutated_text_records_are_refused_cleanly_or_round_trip(
    record: GameRecord, data: st.DataObject
) -> None:
    valid = record.to_text()
    if data.draw(st.booleans()):
        text: str | bytes = data.draw(mutated_lines(valid))
    else:
        text = data.draw(mutated_text(valid))
    try:
        rec = GameRecord.from_text(text)
    except RecordError as e:
        one_line(e)
        return
    event("read")
    assert GameRecord.from_json(rec.to_json()) == rec
    if replays(rec):
        event("replayed")
        assert GameRecord.from_text(rec.to_text()) == rec


def test_records_name_the_field_and_quote_the_value() -> None:
    data = RECORDS[0].to_dict()
    data["actions"][3]["seat"] = "S1"
    with pytest.raises(
        RecordError, match=r"^record.actions\[3\].seat: must be a seat from 0 to 3, not 'S1'$"
    ):
        GameRecord.from_dict(data)
    with pytest.raises(RecordError, match=r"^line 3 \[Players\]: 'four' is not a number$"):
        GameRecord.from_text('[Format "tienlen-game"]\n[Rules "standard"]\n[Players "four"]\n')
    with pytest.raises(RecordError, match=r"^line 2: unknown tag 'Event'$"):
        GameRecord.from_text('[Rules "standard"]\n[Event "club night"]\n')
    with pytest.raises(RecordError, match=r"^line 2 \[Seed\]: the tag is given twice$"):
        GameRecord.from_text('[Seed "1"]\n[Seed "2"]\n')
    text = RECORDS[0].to_text().replace('[Seat3 "', '[Seat4 "')
    with pytest.raises(RecordError, match="numbers seat 4 of 4 players"):
        GameRecord.from_text(text)


def test_record_limits_are_clear_errors() -> None:
    data = RECORDS[0].to_dict()
    data["actions"] = data["actions"] * (MAX_ACTIONS // len(data["actions"]) + 1)
    with pytest.raises(RecordError, match=r"^record.actions: more than 20,000 items"):
        GameRecord.from_dict(data)
    with pytest.raises(RecordError, match=r"^record: too large"):
        read("{" + " " * MAX_TEXT + "}")
    with pytest.raises(RecordError, match=r"^record: JSON nested deeper than 32 levels"):
        read(json.dumps({"format": "tienlen-game", "x-deep": deep(100)}))
    with pytest.raises(RecordError, match=r"^record: not UTF-8 text"):
        read(RECORDS[0].to_text().encode("utf-8").replace(b"S0", b"S\xff", 1))


# --- saved matches ---------------------------------------------------------------------------
def saved_match() -> MatchRecord:
    match = Match("standard", games=2, seed=9)
    rng = random.Random(9)
    records = []
    while True:
        random_play(match.game, rng)
        records.append(GameRecord.from_game(match.game, seed=match.game_seed))
        if match.is_over:
            break
        match.new_game()
    return MatchRecord(
        rules=match.rules,
        bots=("greedy", "random", "heuristic"),
        games=2,
        target=None,
        seed=9,
        scores=match.scores,
        records=tuple(records),
    )


SAVED = saved_match()


@FUZZ
@given(data=st.data())
def test_mutated_saved_matches_are_refused_cleanly_or_round_trip(data: st.DataObject) -> None:
    valid = SAVED.to_dict()
    if data.draw(st.booleans()):
        text: str | bytes = json.dumps(data.draw(mutated_object(valid)))
    else:
        text = data.draw(mutated_text(json.dumps(valid)))
    try:
        saved = MatchRecord.from_json(text)
    except RecordError as e:
        one_line(e)
        return
    event("read")
    assert MatchRecord.from_json(saved.to_json()) == saved
    assert read_games(saved.to_json()) == list(saved.records)


def test_saved_match_errors_name_the_game() -> None:
    data = SAVED.to_dict()
    data["games"][1]["actions"][2]["play"] = "3x"
    with pytest.raises(RecordError, match=r"^match.games\[1\].actions\[2\].play: unknown suit"):
        MatchRecord.from_dict(data)
    data = SAVED.to_dict()
    data["settings"]["bots"] = ["greedy"]
    with pytest.raises(RecordError, match=r"^match.settings.bots: must have 3 items, not 1"):
        MatchRecord.from_dict(data)
    data = SAVED.to_dict()
    data["games"][0]["rules"]["cong"] = True
    del data["games"][0]["rules_code"]
    with pytest.raises(RecordError, match=r"^match.games\[0\].rules: differ from the match's"):
        MatchRecord.from_dict(data)


# --- the commands ----------------------------------------------------------------------------
CORRUPT = {
    "not JSON": b'{"format": "tienlen-game", "version": 1,',
    "not UTF-8": b'{"format": "tienlen-\xff"}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "wrong type": json.dumps({**RECORDS[0].to_dict(), "leader": [1]}).encode(),
}


def command_fails_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    from tienlen.apps.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tienlen: error: ") and err.endswith("\n"), err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err


@pytest.mark.parametrize("kind", CORRUPT)
def test_replay_refuses_a_corrupt_file_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(CORRUPT[kind])
    command_fails_in_one_line(capsys, ["replay", str(path)], f"{path}: ")


@pytest.mark.parametrize("kind", CORRUPT)
def test_resume_refuses_a_corrupt_saved_match_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "match.json"
    data = SAVED.to_dict()
    data["games"][0] = json.loads(CORRUPT["wrong type"])
    path.write_bytes(json.dumps(data).encode() if kind == "wrong type" else CORRUPT[kind])
    command_fails_in_one_line(capsys, ["play", "--plain", "--resume", str(path)], f"{path}: ")


def test_resume_refuses_a_saved_match_that_does_not_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "match.json"
    data = SAVED.to_dict()
    data["settings"]["seed"] = 10  # the games were not dealt from this seed
    path.write_text(json.dumps(data), encoding="utf-8")
    command_fails_in_one_line(
        capsys,
        ["play", "--plain", "--resume", str(path)],
        "match.games[0]: the game was not dealt from the match's seed",
    )


RULES_FILES = {
    "wrong type": (b'{"players": 4.5}', "rules.players: must be an integer, not 4.5"),
    "unknown knob": (b'{"playerz": 4}', "rules: unknown field 'playerz'; did you mean"),
    "not JSON": (b"players = 4", "rules: not valid JSON"),
    "deep": (b"[" * 50 + b"]" * 50, "rules: JSON nested deeper than 32 levels"),
}


@pytest.mark.parametrize("kind", RULES_FILES)
def test_rules_and_arena_refuse_a_corrupt_rules_file_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, fragment = RULES_FILES[kind]
    path = tmp_path / "house.json"
    path.write_bytes(data)
    command_fails_in_one_line(capsys, ["rules", str(path)], f"{path}: {fragment}")
    bots = "random,random,random,random"
    argv = ["arena", "--rules", str(path), "--bots", bots, "--games", "4", "--quiet"]
    command_fails_in_one_line(capsys, argv, f"{path}: {fragment}")


def test_rules_reads_a_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tienlen.apps.cli import main

    path = tmp_path / "house.json"
    path.write_text(Rules.preset("pagat", cong=True).to_json(), encoding="utf-8")
    assert main(["rules", str(path), "--json"]) == 0
    assert Rules.from_json(capsys.readouterr().out) == Rules.preset("pagat", cong=True)


def run_cli(*argv: str, stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tienlen.apps.cli", *argv],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=120,  # generous: a busy loop would hit it; a prompt exit is far below
        check=False,
    )


def test_play_without_a_terminal_says_to_use_plain_and_exits() -> None:
    done = run_cli("play", "--start", "--fast")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--plain" in done.stderr, done.stderr
    assert done.stdout == ""


def test_a_real_process_prints_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(CORRUPT["deep"])
    done = run_cli("replay", str(path))
    assert done.returncode == 2
    assert done.stderr == f"tienlen: error: {path}: record: JSON nested deeper than 32 levels\n"
