"""Game records: JSON and text forms round-trip every preset; bad records are refused."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quick import examples
from tienlen import RULESETS, Game, Match, RecordError, Rules, record_of
from tienlen.debts import CardDebt
from tienlen.record import (
    GameRecord,
    format_text,
    load,
    parse_text,
    read,
    replay,
    to_json,
)


def random_play(game: Game, rng: random.Random, *, stop: int | None = None) -> Game:
    """Random legal actions, trading included (offers of 1-2 cards, some accepted)."""
    steps = 0
    while not game.is_over and (stop is None or steps < stop):
        steps += 1
        if game.phase == "trading":
            offer = game.pending_trade
            if offer is not None:
                if rng.random() < 0.6 and not offer.take & ~game.hand_masks[offer.partner]:
                    game.accept_trade()
                else:
                    game.play("pass")
            elif rng.random() < 0.7:
                me, n = game.turn, game.rules.players
                other = (me + rng.randrange(1, n)) % n
                k = rng.randint(1, 2)
                game.offer_trade(
                    other, rng.sample(game.hands[me], k), rng.sample(game.hands[other], k)
                )
            else:
                game.play("pass")
            continue
        game.apply_unchecked(rng.choice(game.legal_moves()))
    return game


def assert_same(replayed: Game, original: Game) -> None:
    assert replayed.history == original.history
    assert replayed.hands == original.hands
    assert replayed.dealt == original.dealt
    assert replayed.finish_order == original.finish_order
    assert replayed.trades == original.trades
    assert replayed.instant_win == original.instant_win
    assert replayed.phase == original.phase
    assert replayed.turn == original.turn


def round_trip(game: Game, seed: int | str | None = None) -> None:
    data = record_of(game, seed=seed)
    assert data["format"] == "tienlen-game" and data["version"] == 1
    assert_same(load(json.dumps(data)), game)
    assert_same(load(data), game)
    text = format_text(game, seed=seed)
    assert_same(parse_text(text), game)
    assert_same(parse_text(format_text(game, ascii=True)), game)
    # The text form and the JSON form describe the same record.
    assert read(text).to_dict() == read(data).to_dict()


VARIANTS: dict[str, Rules] = {name: Rules.preset(name) for name in RULESETS}
VARIANTS |= {
    "vietcong/mutual-trading": Rules.preset("vietcong", trading="mutual"),
    "vietcong/3p-anticlockwise-trading": Rules.preset(
        "vietcong", trading="mutual", players=3, direction="anticlockwise"
    ),
    "pang/san-jose": Rules.preset("pang", trading="san-jose"),
    "pike/2p": Rules.preset("pike", players=2),
    "lu/3p": Rules.preset("lu", players=3),
    "standard/cong-5p": Rules.preset("standard", players=5, decks=2, cong=True),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_random_matches_of_every_preset_round_trip(name: str) -> None:
    rng = random.Random(name)
    match = Match(VARIANTS[name], games=3, seed=name)
    while True:
        game = random_play(match.game, rng)
        round_trip(game, seed=match.game_seed)
        if match.is_over:
            break
        match.new_game()


@settings(max_examples=examples(25), deadline=None)
@given(
    name=st.sampled_from(list(VARIANTS)),
    seed=st.integers(0, 10**6),
    stop=st.one_of(st.none(), st.integers(0, 40)),
)
def test_any_game_so_far_round_trips(name: str, seed: int, stop: int | None) -> None:
    game = random_play(Game(VARIANTS[name], seed=seed), random.Random(seed), stop=stop)
    round_trip(game)


def test_instant_win_record() -> None:
    # 000 "Viet Cong": four 2s win at once.
    game = Game(
        "vietcong",
        hands=[
            "2s 2c 2d 2h 3c 4c 5c 6c 7c 8c 9c 10c Jc",
            "3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks As Qc",
            "3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad Kc",
            "3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah Ac",
        ],
    )
    assert game.instant_win == (0, "four-twos")
    data = record_of(game)
    assert data["actions"] == []
    assert data["result"]["instant_win"] == {"seat": 0, "hand": "four-twos"}
    assert '[InstantWin "S0 four-twos"]' in format_text(game)
    assert load(data).instant_win == (0, "four-twos")
    assert parse_text(format_text(game)).instant_win == (0, "four-twos")


HANDWRITTEN = """\
[Format "tienlen-game"]
[Version "1"]
[Rules "standard"]
[Players "4"]
[Name0 "Anna"]
[Name1 "Ben"]
[Name2 "Carla"]
[Name3 "Dan"]
[Seat0 "3s 9d"]
[Seat1 "2h"]
[Seat2 "4♦ 5♦"]
[Seat3 "K♠"]

; 003's score-pad example: Ben, then Dan, then Anna go out; Carla is left holding cards.
1. S0 3♠  S1 2♥  S2 pass  S3 pass  S0 pass
2. S2 4d  S3 Ks  S0 pass  S2 pass
3. S0 9♦
Result: S1 S3 S0 S2
"""


def test_a_handwritten_text_record_replays() -> None:
    game = parse_text(HANDWRITTEN)
    assert game.finish_order == (1, 3, 0, 2)
    rec = read(HANDWRITTEN)
    assert rec.names == ("Anna", "Ben", "Carla", "Dan")
    assert len(rec.actions) == 10
    assert read(rec.to_text()).to_dict() == rec.to_dict()
    assert rec.scores is None  # no Scores tag was written
    assert GameRecord.from_game(game).scores == (-1, 2, -2, 1)


def test_text_lines_follow_the_piles() -> None:
    text = format_text(parse_text(HANDWRITTEN))
    body = [line for line in text.splitlines() if line[:1].isdigit()]
    assert body == [
        "1. S0 3♠  S1 2♥  S2 pass  S3 pass  S0 pass",
        "2. S2 4♦  S3 K♠  S0 pass  S2 pass",
        "3. S0 9♦",
    ]
    assert text.rstrip().endswith("Result: S1 S3 S0 S2")


def test_trading_and_exchange_in_the_text_form() -> None:
    game = Game(
        Rules.preset("vietcong", trading="mutual"),
        hands=["3s 4s 5s", "6s 7s 8s", "9s 10s Js", "Qs Ks As"],
    )
    game.offer_trade(2, "4s", "10s")  # seat 0 leads, so offers first
    game.accept_trade()
    game.play("pass")  # seat 1 does not offer
    game.offer_trade(0, "Js", "3s")
    game.play("pass")  # seat 0 refuses
    game.play("pass")  # seat 3 does not offer
    assert game.phase == "play"
    text = format_text(game)
    assert "1. S0 offers 4♠ to 2 for 10♠  S2 accepts  S1 pass  S2 offers J♠ to 0 for 3♠" in text
    assert "S0 refuses  S3 pass" in text
    assert_same(parse_text(text), game)
    actions = record_of(game)["actions"]
    assert actions[0] == {"seat": 0, "offer": {"to": 2, "give": "4s", "take": "10s"}}
    assert actions[1] == {"seat": 2, "answer": "accept"}


def test_a_bad_move_names_the_action() -> None:
    data = json.loads(HANDWRITTEN_JSON())
    assert data["actions"][6] == {"seat": 3, "play": "Ks"}
    data["actions"][6] = {"seat": 3, "play": "4s"}  # Dan does not hold the 4♠
    with pytest.raises(RecordError, match=r"action 7 \(S3 4♠\): you do not hold 4♠"):
        load(data)


def HANDWRITTEN_JSON() -> str:
    return to_json(parse_text(HANDWRITTEN))


def test_a_move_out_of_turn_is_refused() -> None:
    data = json.loads(HANDWRITTEN_JSON())
    data["actions"][1]["seat"] = 2
    with pytest.raises(RecordError, match=r"action 2 .*it is S1's turn, not S2's"):
        load(data)


def test_an_illegal_play_is_refused_with_the_rules_reason() -> None:
    text = HANDWRITTEN.replace("1. S0 3♠", "1. S0 9♦")
    with pytest.raises(RecordError, match=r"action 1 .*must include 3♠"):
        parse_text(text)


def test_a_result_that_disagrees_is_refused() -> None:
    data = json.loads(HANDWRITTEN_JSON())
    data["result"]["finish_order"] = [3, 1, 0, 2]
    with pytest.raises(RecordError, match="finish order"):
        load(data)
    with pytest.raises(RecordError, match="disagree"):
        parse_text(HANDWRITTEN.replace('[Seat3 "K♠"]', '[Seat3 "K♠"]\n[Finish "S0 S1 S2 S3"]'))


def test_a_record_that_stops_early_replays_to_that_point() -> None:
    text = HANDWRITTEN.split("2.")[0]
    game = parse_text(text)
    assert not game.is_over and game.turn == 2 and game.top is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(format="chess"),
            r"^record.format: not a tienlen game record \(format 'chess'\)",
        ),
        (lambda d: d.update(version=2), r"^record.version: version 2 is not supported"),
        (lambda d: [d.pop("rules"), d.pop("rules_code")], r"^record: no 'rules'"),
        (
            lambda d: d["rules"].update(players=9),
            r"^record.rules.players: must be from 2 to 8, not 9",
        ),
        (lambda d: d.update(actions={}), r"^record.actions: must be a list, not \{\}"),
        (lambda d: d["actions"].append({"seat": 0}), r"^record.actions\[10\]: needs one of 'play'"),
        (
            lambda d: d["actions"].append({"seat": 0, "play": "3x"}),
            r"^record.actions\[10\].play: unknown suit",
        ),
        (
            lambda d: d["actions"].append({"seat": 4, "play": "3s"}),
            r"^record.actions\[10\].seat: must be a seat from 0 to 3, not 4",
        ),
        (lambda d: d.update(leader=[1]), r"^record.leader: must be a seat from 0 to 3, not \[1\]"),
        (
            lambda d: d.update(seed={"a": 1}),
            r"^record.seed: must be a number or a string, not \{'a': 1\}",
        ),
        (lambda d: d.update(names=["Anna"]), r"^record.names: must have 4 items, not 1"),
        (lambda d: d.update(event="club night"), r"^record: unknown field 'event'"),
        (lambda d: d.update(hands=["3s"]), r"^record.hands: must have 4 items, not 1"),
        (lambda d: d.update(hands=["3s", "3s", "5s", "6s"]), "deal cannot start a game"),
        (lambda d: [d.pop("rules"), d.pop("rules_code")], r"^record: no 'rules' or 'rules_code'"),
        (lambda d: d.update(rules_code="standard.players-x"), r"^record.rules_code: .*'players-x'"),
        (lambda d: d.update(rules_code=7), r"^record.rules_code: must be a string, not 7"),
        (
            lambda d: d.update(rules_code="standard.cong"),
            r"^record: 'rules' and 'rules_code' disagree",
        ),
    ],
)
def test_malformed_json_records(change: object, message: str) -> None:
    data = json.loads(HANDWRITTEN_JSON())
    change(data)  # type: ignore[operator]
    with pytest.raises(RecordError, match=message):
        load(data)


def test_malformed_text_and_json() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        load("{nope")
    with pytest.raises(RecordError, match="before any seat"):
        parse_text('[Rules "standard"]\n[Seed "1"]\n1. 3s')
    with pytest.raises(RecordError, match="missing hand tag"):
        parse_text('[Rules "standard"]\n[Seat0 "3s"]\n')
    with pytest.raises(RecordError, match="neither"):
        parse_text('[Rules "standard"]\n')
    with pytest.raises(RecordError, match="bad tag"):
        parse_text("[Rules standard]\n")


def test_a_record_may_give_only_the_seed() -> None:
    game = random_play(Game("standard", seed=42), random.Random(0))
    data = record_of(game, seed=42)
    del data["hands"]
    assert_same(load(data), game)


def test_house_rules_survive_the_text_form() -> None:
    rules = Rules.preset("standard", cong=True, direction="anticlockwise", players=3)
    game = random_play(Game(rules, seed=3), random.Random(3))
    text = format_text(game)
    assert '[Knobs "{\\"direction\\":\\"anticlockwise\\",\\"cong\\":true}"]' in text
    assert parse_text(text).rules == rules


def test_replay_yields_each_step() -> None:
    steps = list(replay(HANDWRITTEN))
    assert [s.number for s in steps] == list(range(1, 11))
    assert [s.leads for s in steps].count(True) == 3
    assert steps[-1].game.is_over


def test_extension_fields_are_kept() -> None:
    data = json.loads(HANDWRITTEN_JSON())
    data["x-event"] = "club night"
    assert GameRecord.from_dict(data).to_dict()["x-event"] == "club night"


def test_san_jose_gives_are_recorded() -> None:
    match = Match(Rules.preset("pang", trading="san-jose"), seed=6)
    random_play(match.game, random.Random(6))
    previous = match.record_game().finish_order
    game = random_play(match.new_game(), random.Random(7))
    text = format_text(game)
    winner, second = previous[0], previous[1]
    assert f'[PreviousFinish "{" ".join(f"S{s}" for s in previous)}"]' in text
    assert f"1. S{winner} gives " in text and f"S{second} gives " in text
    gives = [a for a in record_of(game)["actions"] if "give" in a]
    assert [len(a["give"].split()) for a in gives] == [2, 1]
    assert_same(parse_text(text), game)


def test_the_documented_text_example_replays() -> None:
    from pathlib import Path

    doc = Path(__file__).parent.parent / "docs" / "record-format.md"
    example = doc.read_text(encoding="utf-8").split("## Text form")[1].split("```")[1]
    assert example == HANDWRITTEN_CLEAN()
    assert parse_text(example).finish_order == (1, 3, 0, 2)


def HANDWRITTEN_CLEAN() -> str:
    """The handwritten example as ``format_text`` writes it (tags normalised)."""
    return "\n" + format_text(parse_text(HANDWRITTEN), names=["Anna", "Ben", "Carla", "Dan"])


# --- rules codes in records ---------------------------------------------------------------
def house_game() -> Game:
    rules = Rules.preset("pike", pass_locks=True, cong=True)
    game = Game(rules, seed=11)
    game.play(game.legal_moves()[0].cards)
    return game


def test_records_carry_the_rules_code() -> None:
    game = house_game()
    data = json.loads(to_json(game))
    assert data["rules_code"] == "pike.pass-locks.cong"
    text = format_text(game)
    assert '[RulesCode "pike.pass-locks.cong"]' in text
    assert load(data).rules == game.rules
    assert parse_text(text).rules == game.rules


def test_a_record_with_only_a_rules_code_reads() -> None:
    game = house_game()
    data = json.loads(to_json(game))
    del data["rules"]
    assert load(data).rules == game.rules
    text = "\n".join(
        line
        for line in format_text(game).splitlines()
        if not line.startswith(("[Rules ", "[Knobs", "[Players"))
    )
    assert parse_text(text).rules == game.rules


def test_an_old_record_without_a_code_still_reads() -> None:
    game = house_game()
    data = json.loads(to_json(game))
    del data["rules_code"]
    assert load(data).rules == game.rules
    lines = format_text(game).splitlines()
    text = "\n".join(line for line in lines if not line.startswith("[RulesCode"))
    assert parse_text(text).rules == game.rules


def test_a_text_record_whose_tags_disagree_is_refused() -> None:
    text = format_text(house_game()).replace("pike.pass-locks.cong", "pike.cong")
    with pytest.raises(RecordError, match="'rules' and 'rules_code' disagree"):
        parse_text(text)


@pytest.mark.parametrize("form", ["json", "text"])
def test_card_debts_travel_in_records(form: str) -> None:
    # 004: "the last person to be chopped owes the person who chopped them card(s) in the
    # next round": the next game's record carries what is owed, and its settlement gives.
    rules = Rules.preset("standard", chop_debts="no-stacking", debt_card="any-two")
    hands = ["3s 2s 2h 9d", "4c 5c 6c 7c", "3d 4d 5d 6d", "3h 4h 5h 6h"]
    game = Game(rules, hands=hands, debts=[CardDebt(0, 1, 2, "chopped last")])
    game.play("2s 2h")
    game.play("4c 5c")
    record = GameRecord.from_game(game)
    text = record.to_json() if form == "json" else record.to_text()
    back = GameRecord.from_json(text) if form == "json" else GameRecord.from_text(text)
    assert [tuple(d[:3]) for d in back.debts] == [(0, 1, 2)]
    replayed = back.game()
    assert replayed.hand_masks == game.hand_masks and replayed.phase == "play"


def test_a_debt_a_record_cannot_hold_is_refused() -> None:
    data = record_of(Game("standard", seed=1))
    data["debts"] = [[1, 1, 2]]
    with pytest.raises(RecordError, match="cannot owe itself"):
        GameRecord.from_dict(data)


def test_a_seed_holding_a_unicode_line_break_survives_the_text_form() -> None:
    # str.splitlines() also breaks at U+0085 and U+2028: the text form's lines end at "\n" only.
    for seed in ("\x85", "a\u2028b", "x\x0cy"):
        game = Game(Rules.preset("standard"), seed=seed)
        assert read(format_text(game, seed=seed)).seed == seed
        round_trip(game, seed=seed)
