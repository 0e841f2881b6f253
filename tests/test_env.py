"""The research environments (tienlen.env) and the encodings they are built on."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")
pytest.importorskip("pettingzoo", reason="the env extra (pettingzoo) is not installed")
pytest.importorskip("gymnasium", reason="the env extra (gymnasium) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from tienlen import Game, Rules, parse_cards  # noqa: E402
from tienlen.cards import Card, mask_of  # noqa: E402
from tienlen.combos import PASS, Choice, parse_move  # noqa: E402
from tienlen.env.aec import TienLenAEC  # noqa: E402
from tienlen.env.selfplay import SelfPlay  # noqa: E402
from tienlen.env.single import TienLenGym  # noqa: E402
from tienlen.observation import observe  # noqa: E402
from tienlen.players.base import Budget  # noqa: E402
from tienlen.players.bots.learned import SPECIALISTS  # noqa: E402
from tienlen.players.encoding import (  # noqa: E402
    KINDS,
    MOVE_DIM,
    OBS_DIM,
    FloatArray,
    card_plane,
    encode_moves,
    encode_observation,
    legal_batch,
    max_legal_moves,
)
from tienlen.players.registry import make_bot  # noqa: E402

#: The rules of a training job that deals every game under ``standard``.
STANDARD = (Rules.preset("standard"),)

# --- encodings ----------------------------------------------------------------------------


def test_a_card_plane_counts_copies_per_rank_and_suit() -> None:
    plane = card_plane(mask_of(parse_cards("3s 3s' 2h")))
    assert plane.shape == (52,)
    assert plane[0] == 2.0 and plane[51] == 1.0 and plane.sum() == 3.0


def test_move_rows_say_kind_cards_top_and_what_is_left() -> None:
    rules = Rules.preset("standard")
    game = Game(rules, hands=["3s 4s 5d 9h", "4c 8s 10d Ah", "5c 6s Js 2c", "6h 8c Qd 2s"])
    obs = observe(game, 0)
    run = parse_move("3s 4s 5d", rules)
    rows = encode_moves(obs, [run, PASS])
    assert rows.shape == (2, MOVE_DIM)
    assert rows[0, :52].sum() == 3.0 and rows[0, 52 + KINDS.index("straight")] == 1.0
    assert rows[1, :52].sum() == 0.0 and rows[1, 52 + KINDS.index("pass")] == 1.0
    top = 52 + len(KINDS) + 2  # the top rank one-hot: a 5 is rank 2
    assert rows[0, top + 2] == 1.0
    assert rows[0, -2] == pytest.approx(1 / 13)  # one card of 13 left after the run
    out = encode_moves(obs, [parse_move("3s 4s 5d", rules)])
    assert out[0, -1] == 0.0  # not out: the 9h stays


def test_legal_moves_are_padded_with_a_mask_and_never_dropped() -> None:
    game = Game("standard", seed=5)
    game.apply_unchecked(game.legal_moves()[0])
    obs = observe(game, game.turn)
    legal = game.legal_plays()
    assert len(legal) > 2
    moves, mask = legal_batch(obs, legal)
    assert moves.shape == (len(legal), MOVE_DIM) and mask.all()
    moves, mask = legal_batch(obs, legal, rows=len(legal) + 7)
    assert mask.sum() == len(legal) and not moves[len(legal) :].any()
    with pytest.raises(ValueError, match="no move is ever dropped"):
        legal_batch(obs, legal, rows=len(legal) - 1)


def test_the_action_space_bound_holds_for_crowded_hands() -> None:
    rules = Rules.preset("standard")
    # four suits of 3-5 and of 6: hundreds of straights and pair runs
    hand = "3s 3c 3d 3h 4s 4c 4d 4h 5s 5c 5d 5h 6s"
    others = [
        "7s 7c 7d 7h 8s 8c 8d 8h 9s 9c 9d 9h 10s",
        "10c 10d 10h Js Jc Jd Jh Qs Qc Qd Qh Ks Kc",
        "Kd Kh As Ac Ad Ah 2s 2c 2d 2h 6c 6d 6h",
    ]
    game = Game(rules, hands=[hand, *others])
    legal = game.legal_moves()
    assert len(legal) > 100
    assert len(legal) <= max_legal_moves(rules)
    rng = random.Random(1)
    for seed in range(20):
        g = Game(rules, seed=seed)
        while not g.is_over:
            legal = g.legal_moves()
            assert len(legal) <= max_legal_moves(rules)
            g.apply_unchecked(rng.choice(legal))


def _hidden_twin(seed: int, plies: int) -> tuple[Game, Game, list[Choice]]:
    """Two games where seat 0 holds the same hand and everyone makes the same first
    ``plies`` moves, but the cards the other seats have not played by then are dealt
    differently among them."""
    rng = random.Random(seed)
    a = Game("standard", seed=seed)
    moves = []
    for _ in range(plies):
        move = rng.choice(a.legal_moves())
        moves.append(move)
        a.apply_unchecked(move)
    dealt = [m for m in a.setup.hands]
    hidden = []
    for s in (1, 2, 3):
        hidden += [c for c in dealt[s] if c.bit & a.hand_masks[s]]
    rng.shuffle(hidden)
    hands = [list(dealt[0])]
    for s in (1, 2, 3):
        kept = [c for c in dealt[s] if not c.bit & a.hand_masks[s]]
        take = len(dealt[s]) - len(kept)
        hands.append(kept + hidden[:take])
        hidden = hidden[take:]
    b = Game("standard", hands=hands)
    return Game("standard", seed=seed), b, moves


def test_the_encodings_never_see_other_seats_hidden_cards() -> None:
    from tienlen.players.bots.learned import LearnedBot, move_features, state_features

    learned = LearnedBot()
    for seed in range(6):
        a, b, moves = _hidden_twin(seed, plies=24)
        assert a.hand_masks[1:] != b.hand_masks[1:]
        for move in moves:
            oa, ob = observe(a, 0), observe(b, 0)
            assert np.array_equal(encode_observation(oa), encode_observation(ob))
            assert np.array_equal(state_features(oa), state_features(ob))
            if a.turn == 0:
                legal = a.legal_moves()
                assert legal == b.legal_moves()
                assert np.array_equal(encode_moves(oa, legal), encode_moves(ob, legal))
                # the learned bot's inputs, so its decision: the same in both games
                assert np.array_equal(move_features(oa, legal), move_features(ob, legal))
                assert learned.choose(oa, legal, Budget()) == learned.choose(ob, legal, Budget())
            a.play(move)
            b.play(move)
        # the full states differ: an encoding of seat 1 would tell them apart
        assert not np.array_equal(
            encode_observation(observe(a, 1)), encode_observation(observe(b, 1))
        )


@pytest.mark.parametrize(("preset", "players"), [("standard", 2), ("double-deck-13", 4)])
def test_the_learned_bot_reads_an_unseen_card_as_the_chance_an_opponent_holds_it(
    preset: str, players: int
) -> None:
    from tienlen.players.bots.learned import state_features
    from tienlen.players.encoding import UNSEEN_PLANE

    game = Game(Rules.preset(preset).for_players(players), seed=5)
    rng = random.Random(5)
    for _ in range(12):
        obs = observe(game, game.turn)
        encoded = encode_observation(obs)
        plane = encoded[UNSEEN_PLANE]
        held = sum(c for seat, c in enumerate(obs.tracked_counts()) if seat != obs.seat)
        assert held < plane.sum()  # cards lie undealt: not every unseen card is held
        features = state_features(obs)
        assert np.allclose(features[UNSEEN_PLANE], plane * held / plane.sum())
        rest = np.ones(OBS_DIM, bool)
        rest[UNSEEN_PLANE] = False
        assert np.array_equal(features[:OBS_DIM][rest], encoded[rest])
        game.apply_unchecked(rng.choice(game.legal_moves()))
    # every card dealt (as in the games the shipped networks learned from): as encoded
    full = observe(Game("standard", seed=5), 0)
    assert np.array_equal(state_features(full)[:OBS_DIM], encode_observation(full))


def test_an_observation_vector_has_its_documented_size_and_bounds() -> None:
    game = Game("double-deck-13", seed=2)
    rng = random.Random(2)
    while not game.is_over:
        for seat in range(game.rules.players):
            v = encode_observation(observe(game, seat))
            assert v.shape == (OBS_DIM,) and v.min() >= 0.0 and v.max() <= 2.0
        game.apply_unchecked(rng.choice(game.legal_moves()))


def test_the_rules_features_tell_every_preset_apart_and_never_read_its_name() -> None:
    from dataclasses import replace

    from tienlen import RULESETS
    from tienlen.players.encoding import RULES_DIM, encode_rules

    vectors = {name: encode_rules(Rules.preset(name)) for name in RULESETS}
    for v in vectors.values():
        assert v.shape == (RULES_DIM,) and v.min() >= 0.0 and v.max() <= 1.0
    assert len({v.tobytes() for v in vectors.values()}) == len(RULESETS)
    standard = Rules.preset("standard")
    renamed = replace(standard, name="my house rules")
    assert np.array_equal(encode_rules(renamed), vectors["standard"])
    # a house rule (one knob turned) is a vector of its own, as are the seat counts
    assert not np.array_equal(
        encode_rules(replace(standard, straight_lock=True)), vectors["standard"]
    )
    assert not np.array_equal(encode_rules(standard.for_players(6)), vectors["standard"])
    assert not np.array_equal(
        encode_rules(replace(standard, chops=standard.chops[:1])), vectors["standard"]
    )


# --- environments ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "players"), [("standard", None), ("hawaii", 3), ("double-deck-13", 6), ("proplay", 2)]
)
def test_the_aec_environment_passes_pettingzoo_api_test(rules: str, players: int | None) -> None:
    env = TienLenAEC(rules, players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on dict observation spaces
        api_test(env, num_cycles=200)


def test_an_aec_episode_plays_a_whole_game_with_masked_actions() -> None:
    env = TienLenAEC("standard")
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    steps = 0
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.sum() == len(env.legal_moves(agent)) == len(env.move_features(agent))
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps > 20
    assert sorted(totals.values()) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])


def test_an_illegal_aec_action_is_refused() -> None:
    env = TienLenAEC("standard")
    env.reset(seed=1)
    agent = env.agent_selection
    with pytest.raises(ValueError, match="not a legal move index"):
        env.step(len(env.legal_moves(agent)))


@pytest.mark.parametrize("opponents", [["random"] * 3, ["heuristic", "greedy"]])
def test_the_gymnasium_environment_passes_check_env(opponents: list[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(TienLenGym("standard", opponents=opponents), skip_render_check=True)


def test_a_gymnasium_episode_ends_with_the_seats_return() -> None:
    env = TienLenGym("standard", opponents=["greedy"] * 3, seat=2)
    obs, info = env.reset(seed=4)
    done, reward = False, 0.0
    while not done:
        assert obs["action_mask"].sum() == len(env.legal_moves())
        obs, reward, done, _, info = env.step(0)
    place = info["finish_order"].index(2)
    assert reward == pytest.approx((3 - 2 * place) / 3)
    env.reset(seed=4)
    _, r, done, _, info = env.step(10_000)
    assert done and r == -1.0 and info["illegal_action"]


def test_an_unknown_opponent_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        TienLenGym("standard", opponents=["nobody", "random", "random"])


def _aec_trace(seed: int) -> list[bytes]:
    env = TienLenAEC("standard")
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter(max_iter=60):
        obs, _, terminated, truncated, _ = env.last()
        trace.append(obs["observation"].tobytes())
        env.step(None if terminated or truncated else len(env.legal_moves(agent)) - 1)
    return trace


def test_seeding_makes_episodes_reproducible() -> None:
    assert _aec_trace(3) == _aec_trace(3)
    assert _aec_trace(3) != _aec_trace(4)

    def gym_trace(seed: int) -> list[bytes]:
        env = TienLenGym("standard", opponents=["random"] * 3)
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].tobytes()]
        done = False
        while not done:
            obs, _, done, _, _ = env.step(0)
            out.append(obs["observation"].tobytes())
        return out

    assert gym_trace(8) == gym_trace(8)
    assert gym_trace(8) != gym_trace(9)

    def selfplay(seed: int) -> tuple[object, ...]:
        env = SelfPlay("standard")
        env.set_agents([make_bot("random", seed=s) for s in range(4)])
        trajectories, payoffs = env.run(seed=seed)
        seen = [[(t.observation.tobytes(), t.action) for t in seat] for seat in trajectories]
        return payoffs, seen

    assert selfplay(5) == selfplay(5)
    assert selfplay(5) != selfplay(6)


def test_selfplay_records_every_decision_of_every_seat() -> None:
    env = SelfPlay("standard", players=3)
    env.set_agents([make_bot("greedy") for _ in range(3)])
    trajectories, payoffs = env.run(seed=2)
    assert len(trajectories) == 3 and sorted(payoffs) == [-1.0, 0.0, 1.0]
    for seat in trajectories:
        for t in seat:
            assert t.observation.shape == (OBS_DIM,)
            assert t.moves.shape[1] == MOVE_DIM and 0 <= t.action < len(t.moves) > 1
    with pytest.raises(ValueError, match="2 agents for 3 seats"):
        env.set_agents([make_bot("greedy")] * 2)


class _Broken:
    """A bot that always fails (the environments must play on with a fallback move)."""

    name = "broken"

    def choose(self, obs: object, legal: object, budget: Budget) -> object:
        raise RuntimeError("boom")


def test_selfplay_plays_on_past_a_failing_bot_and_lists_the_problem() -> None:
    env = SelfPlay("standard")
    env.set_agents([_Broken(), make_bot("greedy"), make_bot("greedy"), make_bot("greedy")])  # type: ignore[list-item]
    _, payoffs = env.run(seed=3)
    assert sorted(payoffs) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])
    assert env.problems and env.problems[0].startswith("seat 0: broken raised RuntimeError")
    env.set_agents([make_bot("greedy") for _ in range(4)])
    env.run(seed=3)
    assert env.problems == []


def test_the_gym_env_plays_on_past_a_failing_opponent_and_lists_the_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tienlen.env.single as single

    monkeypatch.setattr(single, "make_bot", lambda name, seed=None: _Broken())
    env = TienLenGym("standard", opponents=["greedy"] * 3, seat=0)
    env.reset(seed=4)
    done = False
    while not done:
        _, _, done, _, _ = env.step(0)
    assert env.problems and all("broken raised RuntimeError: boom" in p for p in env.problems)
    assert {p.split(":")[0] for p in env.problems} <= {"seat 1", "seat 2", "seat 3"}


def test_card_ids_of_the_plane_follow_rank_then_suit() -> None:
    assert card_plane(Card.parse("Qd").bit).argmax() == 9 * 4 + 2


# --- training and the learned bot ----------------------------------------------------------


def test_the_command_line_loads_the_trainer_only_to_show_its_help() -> None:
    """Building the ``train`` parser must not import numpy and the trainer: every ``tienlen``
    command builds it. Its help still shows TrainConfig's defaults."""
    code = (
        "import sys\n"
        "from tienlen.apps.cli import main\n"
        "try:\n    main(['play', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'tienlen.env.train') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    shown = subprocess.run(
        [sys.executable, "-m", "tienlen.apps.cli", "train", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "(default random,greedy,heuristic)" in " ".join(shown.split())
    # the examples' long lines go on after a backslash, as a shell takes them
    assert "--vary-players 0.3 \\\n        --init old.npz" in shown


@pytest.mark.slow
def test_a_tiny_training_run_checkpoints_evaluates_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tienlen.apps.cli import main
    from tienlen.players.bots.learned import QNet

    out = tmp_path / "run"
    args = [
        "train",
        "--out",
        str(out),
        "--rules",
        "standard,hawaii",
        "--vary-players",
        "0.5",
        "--checkpoint-every",
        "300",
        "--eval-games",
        "4",
        "--eval-bots",
        "random",
        "--games-per-round",
        "2",
        "--seed",
        "3",
    ]
    assert main([*args, "--steps", "500"]) == 0
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert log and all(
        e["eval"][p]["random"]["games"] == 4 for e in log for p in ("standard", "hawaii")
    )
    assert all(0.0 <= e["score"] <= 1.0 for e in log)
    first_frames = log[-1]["frames"]
    assert first_frames >= 500
    before = QNet.load(out / "latest.npz").params
    assert main([*args, "--steps", "900"]) == 2  # a run is there: --resume is needed
    assert main([*args, "--steps", str(first_frames + 400), "--resume"]) == 0
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert log[-1]["frames"] >= first_frames + 400
    assert log[-1]["games"] > log[0]["games"]
    capsys.readouterr()
    assert main(["train", "--show-log", str(out / "log.jsonl")]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert len(shown) == len(log) and "hawaii: random" in shown[-1]
    after = QNet.load(out / "latest.npz").params
    assert not np.array_equal(before["w1o"], after["w1o"])
    bot = make_bot("learned", weights=str(out / "best.npz"))
    game = Game("standard", seed=1)
    assert bot.choose(observe(game, game.turn), game.legal_moves(), Budget()) in game.legal_moves()


def test_training_against_registry_bots_samples_their_moves_too() -> None:
    from tienlen.env.train import _Job, _play
    from tienlen.players.bots.learned import QNet

    params = QNet.init((16, 8)).params
    alone = _play(_Job(STANDARD, [params], 0.0, 1, 3, (), 0.5))
    mixed = _play(_Job(STANDARD, [params], 0.0, 1, 3, ("greedy",), 1.0))
    assert alone[3] == mixed[3] == 3
    # the same deals: with greedy at every seat the moves (so the samples) differ
    assert len(alone[2]) != len(mixed[2]) or not np.array_equal(alone[1], mixed[1])
    assert sorted(set(mixed[2].tolist())) == pytest.approx([-1.0, -1 / 3, 1 / 3, 1.0])


def test_exploring_among_the_heuristic_bots_best_move_plays_as_it_does() -> None:
    from tienlen.env.train import _Job, _play
    from tienlen.players.bots.learned import QNet

    params = QNet.init((16, 8)).params
    # every decision explores, among the heuristic's single best move: its own game
    explored = _play(_Job(STANDARD, [params], 1.0, 4, 3, (), 0.5, explore_top=1))
    heuristic = _play(_Job(STANDARD, [params], 0.0, 4, 3, ("heuristic",), 1.0))
    for a, b in zip(explored, heuristic, strict=True):
        assert np.array_equal(a, b)
    anything = _play(_Job(STANDARD, [params], 1.0, 4, 3, (), 0.5, explore_top=0))
    assert len(anything[2]) != len(explored[2]) or not np.array_equal(anything[1], explored[1])


def test_the_learned_bot_with_one_candidate_plays_the_heuristic_bots_move_or_passes() -> None:
    from tienlen.players.bots.learned import LearnedBot, QNet

    net = QNet.init((16, 8), seed=5)
    one, free = LearnedBot(weights=net, candidates=1), LearnedBot(weights=net, candidates=None)
    heuristic = make_bot("heuristic")
    game = Game("standard", seed=9)
    differ = passed = 0
    while not game.is_over:
        obs, legal = observe(game, game.turn), game.legal_moves()
        move = heuristic.choose(obs, legal, Budget())
        mine = one.choose(obs, legal, Budget())
        assert mine in (move, PASS)
        passed += mine != move
        differ += free.choose(obs, legal, Budget()) != move
        game.play(move)
    assert differ  # an untrained network left free does not happen to agree
    assert passed  # the pass is always a candidate (it is among the ismcts bot's root moves)


def test_the_learned_bot_values_every_legal_move_so_it_may_play_one_the_heuristic_would_not() -> (
    None
):
    """With no candidates the bot chooses among all legal moves: a network that values a
    move the more the lower the ``heuristic`` bot ranks it plays the heuristic's last
    choice, which is never among its best three and the pass."""
    from tienlen.players.bots.learned import RANK_COLUMN, LearnedBot, QNet

    net = QNet.init((4, 2))
    for v in net.params.values():
        v[...] = 0.0
    p = net.params
    p["w1a"][RANK_COLUMN, 0], p["b1"][0], p["w2"][0, 0], p["w3"][0, 0] = -1.0, 1.0, 1.0, 1.0
    free, short = LearnedBot(weights=net), LearnedBot(weights=net, candidates=3)
    heuristic = make_bot("heuristic")
    game = Game("standard", seed=2)
    game.play(parse_move("3s", game.rules))  # the next seat may follow with a higher single
    obs, legal = observe(game, game.turn), game.legal_moves()
    ranked = [s.move for s in heuristic.ranked(obs, legal)]  # type: ignore[attr-defined]
    assert len(ranked) > 4
    assert free.choose(obs, legal, Budget()) == ranked[-1]
    assert short.choose(obs, legal, Budget()) in (*ranked[:3], PASS)


def test_the_learned_bot_refuses_fewer_than_one_candidate() -> None:
    from tienlen.players.bots.learned import LearnedBot, QNet

    net = QNet.init((16, 8), seed=5)
    game = Game("standard", seed=9)
    game.play(game.legal_moves()[0])
    obs, legal = observe(game, game.turn), game.legal_moves()
    assert len(legal) > 1
    for k in (0, -1, -3):
        with pytest.raises(ValueError, match="at least 1"):
            LearnedBot(weights=net, candidates=k).choose(obs, legal, Budget())


def test_the_win_weight_makes_the_target_winning() -> None:
    from tienlen.env.train import _Job, _play
    from tienlen.players.bots.learned import QNet

    params = QNet.init((16, 8)).params
    win = _play(_Job(STANDARD, [params], 0.0, 1, 3, ("greedy",), 1.0, win_weight=1.0))
    place = _play(_Job(STANDARD, [params], 0.0, 1, 3, ("greedy",), 1.0))
    assert sorted(set(win[2].tolist())) == [-1.0, 1.0]
    assert np.array_equal(win[2] == 1.0, place[2] == 1.0)  # the same games, the same winner


@pytest.mark.slow
@pytest.mark.parametrize("method", ["dmc", "rollouts"])
def test_training_with_workers_is_reproducible(tmp_path: Path, method: str) -> None:
    from tienlen.env.train import TrainConfig, Trainer

    config = TrainConfig(
        method=method, seed=6, workers=2, games_per_round=2, hidden=(32, 16), eval_bots=()
    )
    runs = []
    for name in ("a", "b"):
        trainer = Trainer(config, tmp_path / name)
        trainer.run(steps=150)
        runs.append(trainer)
    a, b = runs
    assert a.frames == b.frames >= 150 and a.games == b.games
    for k, v in a.net.params.items():
        assert np.array_equal(v, b.net.params[k])
    other = Trainer(
        TrainConfig(
            method=method, seed=7, workers=2, games_per_round=2, hidden=(32, 16), eval_bots=()
        ),
        tmp_path / "c",
    )
    other.run(steps=150)
    assert not np.array_equal(other.net.params["w1o"], a.net.params["w1o"])


@pytest.mark.slow  # two training runs and a resumed one
def test_resuming_restores_the_weights_and_optimiser(tmp_path: Path) -> None:
    from tienlen.env.train import TrainConfig, Trainer

    config = TrainConfig(seed=4, games_per_round=2, checkpoint_every=10_000, eval_bots=())
    a = Trainer(config, tmp_path)
    a.run(steps=200)
    b = Trainer(config, tmp_path)
    assert b.frames == a.frames and b.adams[0].t == a.adams[0].t
    for k, v in a.net.params.items():
        assert np.array_equal(v, b.net.params[k])
    with pytest.raises(ValueError, match="resume it with the same settings"):
        Trainer(TrainConfig(hidden=(32, 16)), tmp_path)


@pytest.mark.parametrize("absolute", [1.0, 0.1])
def test_the_gradient_matches_finite_differences(absolute: float) -> None:
    from tienlen.env.train import loss_and_grads
    from tienlen.players.bots.learned import FEATURE_DIM, STATE_DIM, QNet

    rng = np.random.default_rng(0)
    params = {k: v.astype(np.float64) for k, v in QNet.init((12, 6), seed=2).params.items()}
    obs, moves = rng.random((6, STATE_DIM)), rng.random((6, 3, FEATURE_DIM))
    targets = rng.random((6, 3))
    mask = np.ones((6, 3), bool)
    mask[0, 2] = mask[3, 1:] = False  # padded rows count for nothing

    def loss_of(p: dict[str, FloatArray]) -> tuple[float, dict[str, FloatArray]]:
        return loss_and_grads(p, obs, moves, mask, targets, absolute=absolute)

    loss, grads = loss_of(params)
    for name in ("w1o", "w1a", "b1", "w2", "b2", "w3", "b3"):
        flat = np.abs(grads[name]).argmax()
        where = np.unravel_index(flat, params[name].shape)
        bumped = {k: v.copy() for k, v in params.items()}
        bumped[name][where] += 1e-6
        numeric = (loss_of(bumped)[0] - loss) / 1e-6
        assert numeric == pytest.approx(float(grads[name][where]), rel=1e-3, abs=1e-6)
    padded = targets.copy()
    padded[0, 2] = padded[3, 2] = 99.0
    assert loss_and_grads(params, obs, moves, mask, padded, absolute=absolute)[0] == loss


def test_weights_for_other_encodings_are_refused(tmp_path: Path) -> None:
    from tienlen.players.bots.learned import FEATURE_DIM, STATE_DIM, QNet

    net = QNet.init((8, 4))
    net.params["w1o"] = net.params["w1o"][:-1]
    with pytest.raises(ValueError, match=f"not {STATE_DIM} and {FEATURE_DIM}"):
        QNet(net.params)


def test_weights_made_before_the_rules_features_are_widened_to_value_moves_as_before(
    tmp_path: Path,
) -> None:
    from tienlen.players.bots.learned import QNet, move_features, state_features

    net = QNet.init((8, 4), seed=3)
    old = dict(net.params)
    old["w1o"] = old["w1o"][:OBS_DIM]  # a first layer that reads the observation alone
    np.savez(tmp_path / "old.npz", **old)
    with pytest.raises(ValueError, match=f"weights are for {OBS_DIM} state"):
        QNet.load(tmp_path / "old.npz")
    widened = QNet.load(tmp_path / "old.npz", widen=True)
    game = Game("hawaii", seed=2)
    obs, legal = observe(game, game.turn), game.legal_moves()
    moves = move_features(obs, legal)
    p = old
    h = np.maximum(encode_observation(obs) @ p["w1o"] + moves @ p["w1a"] + p["b1"], 0.0)
    before = (np.maximum(h @ p["w2"] + p["b2"], 0.0) @ p["w3"] + p["b3"])[:, 0]
    assert np.allclose(widened.values(state_features(obs), moves), before, atol=1e-5)


def test_the_advice_is_the_heuristic_bots_ranking() -> None:
    from tienlen.players.bots.heuristic import HeuristicBot
    from tienlen.players.bots.learned import ADVICE_DIM, FEATURE_DIM, advice, move_features

    game = Game("standard", seed=8)
    for _ in range(12):  # a few plays in, so that some follow a pile
        legal = game.legal_moves()
        obs = observe(game, game.turn)
        rows = advice(obs, legal)
        assert rows.shape == (len(legal), ADVICE_DIM)
        ranked = [s.move for s in HeuristicBot().ranked(obs, legal)]
        order = [legal[i] for i in np.argsort(-rows[:, 3], kind="stable")]
        assert order == ranked  # the rank column follows the bot's own ranking
        choice = HeuristicBot().choose(obs, legal, Budget())
        assert rows[legal.index(choice), 2] == 1.0 and rows[:, 2].sum() == 1.0
        assert rows[:, 1].min() == 0.0 and np.all(np.abs(rows[:, :2]) <= 1.0)
        assert move_features(obs, legal).shape == (len(legal), FEATURE_DIM)
        game.play(choice)


@pytest.mark.slow
def test_the_shipped_learned_bot_beats_random_clearly() -> None:
    from tienlen.players.arena import run_arena

    result = run_arena(
        Rules.preset("standard"), ["learned", "random", "random", "random"], games=200, seed=2026
    )
    learned = result.stats()[0]
    assert not result.problems
    # a random player wins a quarter of the games; the interval must lie well above that
    assert learned.win_ci[0] > 0.4, learned


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["standard", "hawaii", "vietcong"])
def test_the_shipped_learned_bot_beats_the_heuristic_bot(preset: str) -> None:
    """The issue's bar on deals of its own (docs/bots.md measures more games, on every
    preset): against three ``heuristic`` bots the win rate's interval lies above the
    quarter they win, on ``standard`` and on two other presets (one network for all)."""
    from tienlen.players.arena import run_arena

    rules = Rules.preset(preset)
    result = run_arena(rules, ["learned"] + ["heuristic"] * 3, games=400, seed=2027)
    learned = result.stats()[0]
    assert not result.problems
    assert learned.win_ci[0] > 0.25, learned


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "players", "floor"), [("standard", 2, 0.4), ("double-deck-13", 4, 0.25)]
)
def test_the_shipped_learned_bot_holds_up_where_cards_lie_undealt(
    preset: str, players: int, floor: float
) -> None:
    """Heads-up and two decks at four seats, where half the unseen cards are in nobody's
    hand: before the unseen plane was scaled by the share the opponents hold, the bot won
    36% and 13% there against the heuristic (docs/bots.md), far under par (1/2, 1/4). Two
    decks at four seats have a specialist since (:data:`SPECIALISTS`): above par there."""
    from tienlen.players.arena import run_arena

    rules = Rules.preset(preset).for_players(players)
    result = run_arena(rules, ["learned"] + ["heuristic"] * (players - 1), games=400, seed=2027)
    learned = result.stats()[0]
    assert not result.problems
    assert learned.win_ci[0] > floor, learned


def _every_preset_and_some_seat_counts() -> list[tuple[str, int]]:
    from tienlen import RULESETS

    own = [(name, Rules.preset(name).players) for name in RULESETS]
    return [*own, ("standard", 2), ("vietcong", 5), ("proplay", 3), ("double-deck-13", 4)]


@pytest.mark.parametrize(("preset", "players"), _every_preset_and_some_seat_counts())
def test_the_shipped_learned_bot_plays_legal_games_under_every_preset(
    preset: str, players: int
) -> None:
    rules = Rules.preset(preset).for_players(players)
    bot = make_bot("learned")
    game = Game(rules, seed=3)
    while not game.is_over:
        legal = game.legal_moves()
        move = bot.choose(observe(game, game.turn), legal, Budget())
        game.play(move)  # validated: an illegal answer raises
    assert sorted(game.finish_order) == list(range(players))


@pytest.mark.parametrize("code", sorted(SPECIALISTS))
def test_a_specialist_plays_exactly_its_rules(code: str) -> None:
    """A specialist's weights play the rules its code names (the seat count included) and
    nothing else: another seat count, or a house rule on top, gets the shipped weights, and
    weights given to the bot play every rule set."""
    from tienlen.players.bots.learned import LearnedBot, QNet

    rules = Rules.from_code(code)
    special, general = QNet.shipped(rules), QNet.shipped()
    assert special is not general
    assert len(special.members) == len(general.members)
    bot = LearnedBot()
    assert bot.net_for(rules) is special
    other_seats = next(n for n in range(2, 9) if n != rules.players)
    assert bot.net_for(rules.for_players(other_seats)) is general
    assert bot.net_for(Rules.from_code(code + ".cong")) is general
    own = LearnedBot(weights=general)
    assert own.net_for(rules) is general
    # the two differ in what they play somewhere in a game under these rules
    game, differ = Game(rules, seed=5), 0
    while not game.is_over:
        obs, legal = observe(game, game.turn), game.legal_moves()
        move = bot.choose(obs, legal, Budget())
        differ += move != own.choose(obs, legal, Budget())
        game.play(move)
    assert differ


def test_an_ensemble_values_a_move_by_its_networks_mean_and_saves_whole(tmp_path: Path) -> None:
    from tienlen.apps.cli import main
    from tienlen.players.bots.learned import LearnedBot, QNet, move_features, state_features

    a, b = QNet.init((16, 8), seed=1), QNet.init((8, 4), seed=2)  # sizes may differ
    a.meta = b.meta = {"rules": "standard", "players": 4}
    game = Game("standard", seed=4)
    obs, legal = observe(game, game.turn), game.legal_moves()
    o, m = state_features(obs), move_features(obs, legal)
    both = QNet.ensemble([a, b])
    assert np.allclose(both.values(o, m), (a.values(o, m) + b.values(o, m)) / 2, atol=1e-6)
    with pytest.raises(ValueError, match="ensemble of 2 networks has no single params"):
        both.params  # noqa: B018
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    assert main(["train", "--out", str(tmp_path / "ab.npz"), "--combine",
                 str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]) == 0  # fmt: skip
    loaded = QNet.load(tmp_path / "ab.npz")
    assert len(loaded.members) == 2 and loaded.meta == {"rules": "standard", "players": 4}
    assert np.array_equal(loaded.values(o, m), both.values(o, m))
    bot = LearnedBot(weights=str(tmp_path / "ab.npz"), candidates=3)
    assert bot.choose(obs, legal, Budget()) in legal
    b.meta = {"rules": "pagat", "players": 4}
    b.save(tmp_path / "b.npz")
    assert main(["train", "--out", str(tmp_path / "x.npz"), "--combine",
                 str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]) == 2  # fmt: skip


def test_the_network_values_moves_on_one_blas_thread_and_leaves_the_count_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # handed to threads, a decision's small products waited for a busy core: a p90 of
    # 9.6 ms against 2.4 ms on one thread beside a spinning process (docs/bots.md, "One
    # BLAS thread" under `learned`)
    from threadpoolctl import threadpool_info

    from tienlen.players.bots import learned
    from tienlen.players.bots.learned import QNet, move_features, state_features

    def blas_threads() -> list[int]:
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    assert before, "numpy's BLAS library is not one threadpoolctl can see"
    inside: list[list[int]] = []
    plain = learned._one_blas_thread

    @contextmanager
    def watched() -> Iterator[None]:
        with plain():
            inside.append(blas_threads())
            yield

    monkeypatch.setattr(learned, "_one_blas_thread", watched)
    game = Game("standard", seed=4)
    obs, legal = observe(game, game.turn), game.legal_moves()
    o, m = state_features(obs), move_features(obs, legal)
    net = QNet.init((16, 8), seed=1)
    p = net.params
    h = np.maximum(o @ p["w1o"] + p["b1"] + m @ p["w1a"], 0.0)
    expected = (np.maximum(h @ p["w2"] + p["b2"], 0.0) @ p["w3"] + p["b3"])[:, 0]
    assert np.allclose(net.values(o, m), expected, atol=1e-6)
    assert inside and set(inside[0]) == {1}
    assert blas_threads() == before


def test_bots_given_one_checkpoint_read_it_once_until_it_is_written_again(tmp_path: Path) -> None:
    # an arena makes a new bot for every game: reading the file each time cost more than
    # the games (48 s against 9.5 s for 1,000 games of wikipedia)
    from tienlen.players.bots.learned import LearnedBot, QNet

    path = tmp_path / "net.npz"
    QNet.init((16, 8), seed=1).save(path)
    rules = Rules.from_code("standard")
    first = LearnedBot(weights=str(path)).net_for(rules)
    assert LearnedBot(weights=path).net_for(rules) is first
    QNet.init((16, 4), seed=2).save(path)  # other sizes: a new size even where mtime is coarse
    again = LearnedBot(weights=str(path)).net_for(rules)
    assert again is not first
    assert again.members[0]["w2"].shape != first.members[0]["w2"].shape
    with pytest.raises(FileNotFoundError, match=r"missing\.npz"):
        LearnedBot(weights=str(tmp_path / "missing.npz"))
