"""The JSON-lines bot protocol: the message format, a full game through the example bot
program, and what happens when a bot program misbehaves."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import sys
from pathlib import Path

import pytest

from quick import presets
from tienlen import PASS, RULESETS, Game, Rules, format_cards
from tienlen.combos import Give, format_move, parse_choice, parse_move
from tienlen.observation import observe
from tienlen.players.arena import play_game, run_arena
from tienlen.players.base import Budget
from tienlen.players.protocol import (
    ProtocolError,
    ProtocolPlayer,
    observation_from_json,
    observation_to_json,
    serve,
)
from tienlen.players.registry import make_bot
from tienlen.position import PlayState, parse_position, state_fields

EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "protocol_bot.py")


def example(*args: str, timeout: float = 10.0) -> ProtocolPlayer:
    return ProtocolPlayer([sys.executable, EXAMPLE, *args], timeout=timeout)


@pytest.mark.parametrize("name", presets(RULESETS))
def test_observations_survive_the_trip_through_json(name: str) -> None:
    rules = Rules.preset(name)
    game = Game(rules, seed=21)
    bots = [make_bot("random", seed=s) for s in range(rules.players)]
    checked = 0
    while not game.is_over:
        obs = observe(game, game.turn)
        text = json.dumps(observation_to_json(obs))
        assert observation_from_json(json.loads(text)) == obs
        for move in game.legal_moves():
            assert parse_move(format_move(move, ascii=True), rules) == move
        game.play(bots[game.turn].choose(obs, game.legal_moves(), Budget()))
        checked += 1
    assert checked > 5


def test_exchange_and_trading_observations_survive_the_trip() -> None:
    game = Game(Rules.preset("pang", trading="san-jose"), seed=2, previous_finish=(1, 0, 3, 2))
    obs = observe(game, game.turn)
    assert observation_from_json(json.loads(json.dumps(observation_to_json(obs)))) == obs
    give = game.legal_moves()[5]
    assert isinstance(give, Give)
    assert parse_choice(format_move(give, ascii=True), game.rules, exchange=True) == give
    game.play(give)
    obs = observe(game, 1)  # the give shows to its giver
    assert observation_from_json(observation_to_json(obs)) == obs
    trading = Game(Rules.preset("vietcong", trading="mutual"), seed=3)
    trading.offer_trade((trading.turn + 1) % 4, trading.hands[trading.turn][:1], "2h")
    obs = observe(trading, trading.turn)
    assert observation_from_json(observation_to_json(obs)) == obs


def test_the_spare_card_taker_is_sent_and_read_back() -> None:
    # Three players, 17 cards each: the lone card left over goes to the first leader.
    game = Game(Rules.preset("lu", players=3, hidden_counts=True), seed=4)
    obs = observe(game, (game.leader + 1) % 3)
    assert obs.spare_taker == game.leader
    sent = observation_to_json(obs)
    assert sent["spare_taker"] == game.leader
    assert observation_from_json(json.loads(json.dumps(sent))) == obs
    del sent["spare_taker"]  # absent: none known
    assert observation_from_json(sent) == dataclasses.replace(obs, spare_taker=None)
    with pytest.raises(ProtocolError, match="spare_taker"):
        observation_from_json({**sent, "spare_taker": 3})


def test_the_opening_bombs_phase_is_sent_and_read_back() -> None:
    # 004: "Three consecutive pairs can be played at the beginning of the game without
    # being the lead": before the first lead the seats after the leader are asked in turn.
    rules = Rules.preset("standard", opening_bombs=("pair_run3",))
    hands = ["3s 4s 9h", "5c 5d 6c 6d 7c 7d", "8d 2h Jd", "Kd Ks Qc"]
    game = Game(rules, hands=hands)
    assert game.opening == (1, 2, 3) and game.turn == 1
    obs = observe(game, 1)
    sent = observation_to_json(obs)
    assert sent["opening"] == [1, 2, 3]
    assert observation_from_json(json.loads(json.dumps(sent))) == obs
    game.play("pass")
    assert observation_to_json(observe(game, 2))["opening"] == [2, 3]
    game.play("pass")
    game.play("pass")
    # the leader's turn, still before the first play (mypy keeps game.opening's type from
    # before the passes, so it calls the comparison impossible)
    assert game.opening == () and game.turn == 0  # type: ignore[comparison-overlap]
    sent = observation_to_json(observe(game, 0))
    assert sent["opening"] == []
    assert observation_from_json(sent).opening == ()
    game.play("3s")
    sent = observation_to_json(observe(game, 1))
    assert sent["opening"] is None
    assert observation_from_json(sent).opening is None
    # The reader takes the play state from the position, not from the fields beside it.
    sent = observation_to_json(obs)
    assert " o123 " in sent["position"]
    assert observation_from_json({**sent, "opening": None}).opening == (1, 2, 3)
    bad = dict(sent, position=sent["position"].replace(" o123 ", " o17 "))
    with pytest.raises(ProtocolError, match=r"observation\.position: .*'7' is no seat"):
        observation_from_json(bad)
    bad = dict(sent, position=sent["position"].replace(" o123 ", " o22 "))
    with pytest.raises(ProtocolError, match="names a seat twice"):
        observation_from_json(bad)


def test_hidden_counts_are_sent_as_null_with_the_asks() -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    game = Game(Rules.preset("standard", hidden_counts=True), seed=5)
    game.play(game.legal_moves()[0])
    first = game.history[0].seat
    asker = (first + 2) % 4
    game.ask_count(asker, first)
    obs = observe(game, game.turn)
    sent = json.loads(json.dumps(observation_to_json(obs)))
    counts: list[int | None] = [None] * 4
    counts[game.turn] = 13
    counts[first] = 12
    assert sent["card_counts"] == counts
    assert sent["asks"] == [{"asker": asker, "seat": first, "cards": 12, "at": 1}]
    assert observation_from_json(sent) == obs
    assert observation_from_json(sent).tracked_counts() == tuple(
        game.cards_left(s) for s in range(4)
    )
    bad = dict(sent, asks=[{"asker": asker, "seat": first, "cards": 12, "at": 9}])
    with pytest.raises(ProtocolError, match=r"observation\.asks\[0\]\.at"):
        observation_from_json(bad)
    # The position hides the other hands, not the seat's own, and counts only under
    # hidden_counts.
    hands = sent["position"].split(" ")[0].split("/")
    assert [h.startswith("?") for h in hands] == [s != game.turn for s in range(4)]
    assert hands[first] == "?12"
    assert all(hands[s] == "?" for s in range(4) if s not in (first, game.turn))
    own = dict(sent, position=sent["position"].replace(hands[game.turn], "?13", 1))
    with pytest.raises(ProtocolError, match=rf"own hand only: seat {game.turn}"):
        observation_from_json(own)
    shown = dict(sent, rules=Rules.preset("standard").to_dict())
    with pytest.raises(ProtocolError, match=r"observation\.position: hides seat \d's card count"):
        observation_from_json(shown)
    # A bot plays on from the hidden counts (it keeps count from the public plays).
    bot = make_bot("heuristic", seed=1)
    assert bot.choose(obs, game.legal_moves(), Budget()) in game.legal_moves()


def test_a_full_game_through_the_example_bot_program() -> None:
    with example() as bot:
        assert bot.name == "example-lowest"
        problems: list[str] = []
        game = Game("standard", seed=12)
        players = [bot, make_bot("greedy"), bot, make_bot("heuristic")]
        decisions = play_game(game, players, Budget(seconds=1.0), on_problem=problems.append)
        assert game.is_over and decisions > 10
        assert problems == []
        # the same process goes on to a second game
        game = Game("pagat", seed=13)
        play_game(game, players, on_problem=problems.append)
        assert game.is_over and problems == []


def test_the_arena_runs_cmd_entries() -> None:
    spec = f"cmd:{sys.executable} {EXAMPLE}"
    result = run_arena(
        Rules.preset("standard"), [spec, "greedy", "greedy", "random"], games=4, seed=1
    )
    assert len(result.outcomes) == 4
    assert result.problems == []
    assert result.labels[0] == "cmd:example-lowest"  # the name its hello gives


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("json", "sent a bad line: message: not valid JSON"),
        ("illegal", "is not a legal move now"),
        ("silent", "sent nothing for move request 1 in 3.0s"),
    ],
)
def test_a_misbehaving_bot_gets_a_fallback_move_and_the_game_goes_on(
    bad: str, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    with example("--bad", bad, timeout=3) as bot:  # room for a loaded machine to start the bot
        game = Game("standard", seed=4)
        problems: list[str] = []
        with caplog.at_level(logging.WARNING, logger="tienlen.players"):
            play_game(
                game,
                [bot, make_bot("greedy"), make_bot("greedy"), make_bot("greedy")],
                on_problem=problems.append,
            )
        assert game.is_over
        assert problems and message in problems[0]
        assert message in caplog.text


def test_a_program_that_does_not_greet_is_refused() -> None:
    with pytest.raises(ProtocolError, match="exited"):
        ProtocolPlayer([sys.executable, "-c", "pass"], timeout=5)
    with pytest.raises(ProtocolError, match="answered the hello"):
        ProtocolPlayer([sys.executable, "-c", 'print(\'{"type": "move"}\')'], timeout=5)


def test_serve_runs_a_builtin_bot_over_json_lines() -> None:
    game = Game("standard", seed=6)
    obs = observe(game, game.turn)
    legal = game.legal_moves()
    lines = [
        {"type": "hello", "protocol": 1},
        {
            "type": "move",
            "id": 7,
            "observation": observation_to_json(obs),
            "legal": [format_move(m, ascii=True) for m in legal],
            "budget_ms": 50,
        },
        {"type": "quit"},
        {"type": "move", "id": 8},  # never read: the bot has quit
    ]
    out = io.StringIO()
    assert (
        serve(
            make_bot("heuristic"),
            stdin=io.StringIO("".join(json.dumps(x) + "\n" for x in lines)),
            stdout=out,
        )
        == 0
    )
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0] == {"type": "hello", "protocol": 1, "name": "heuristic"}
    assert replies[1]["type"] == "move" and replies[1]["id"] == 7
    expected = make_bot("heuristic").choose(obs, legal, Budget())
    assert replies[1]["move"] == format_move(expected, ascii=True)
    assert len(replies) == 2


def test_the_bot_command_serves_over_the_protocol() -> None:
    spec = [sys.executable, "-m", "tienlen.apps.cli", "bot", "greedy"]
    with ProtocolPlayer(spec, timeout=30) as bot:
        assert bot.name == "greedy"
        game = Game("standard", seed=9)
        problems: list[str] = []
        play_game(
            game,
            [bot, make_bot("greedy"), make_bot("greedy"), make_bot("greedy")],
            on_problem=problems.append,
        )
        assert game.is_over and problems == []


def test_a_program_answers_a_trade_offer_by_giving_the_cards_asked_for_or_passing() -> None:
    spec = [sys.executable, "-m", "tienlen.apps.cli", "bot", "heuristic"]
    answers = []
    with ProtocolPlayer(spec, timeout=30) as bot:
        for give, take in (("Ah", "3d"), ("9s", "9d")):  # 9 for 9: no cheaper, refused
            game = Game(Rules.preset("vietcong", trading="mutual"), seed=3)
            game.offer_trade((game.turn + 1) % 4, give, take)
            legal = game.legal_moves()
            assert legal == [Give.of(take), PASS]
            obs = observe(game, game.turn)
            answer = bot.choose(obs, legal, Budget())
            assert answer == make_bot("heuristic").choose(obs, legal, Budget())
            answers.append(answer)
    assert answers == [Give.of("3d"), PASS]


def test_the_play_state_is_sent_as_a_position_and_field_by_field() -> None:
    game = Game("standard", seed=4)
    game.play(game.legal_moves()[0])
    game.play("pass")
    obs = observe(game, game.turn)
    sent = json.loads(json.dumps(observation_to_json(obs)))
    assert parse_position(sent["position"], "standard") == PlayState(**state_fields(obs))
    # The fields bots written before the position was sent read are all still there.
    old = {"seat", "players", "phase", "turn", "hand", "card_counts", "pile", "passed"}
    old |= {"locked_out", "straight_locked", "first_lead", "stuck", "finish_order", "history"}
    old |= {"trades", "leader", "opening", "asks", "rules"}
    assert old <= set(sent)
    top = game.pile[-1]
    assert sent["pile"] == [
        {"seat": top.seat, "move": format_move(top.move, ascii=True), "kind": top.move.kind}
    ]
    assert sent["passed"] == sorted(game.passed) and sent["turn"] == game.turn
    assert sent["first_lead"] is None and sent["opening"] is None
    assert sent["card_counts"] == [game.cards_left(s) for s in range(4)]
    assert sent["hand"] == format_cards(obs.hand, ascii=True)
