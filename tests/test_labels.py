"""Rollout labels (tienlen.env.labels) and the ``rollouts`` training method."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")

from tienlen import Game, Rules  # noqa: E402
from tienlen.combos import Choice  # noqa: E402
from tienlen.env.labels import Labels, _Labeller, label_games  # noqa: E402
from tienlen.env.train import TrainConfig, Trainer  # noqa: E402
from tienlen.observation import observe  # noqa: E402
from tienlen.players.base import Budget  # noqa: E402
from tienlen.players.bots.ismcts import PolicyMemo  # noqa: E402
from tienlen.players.bots.learned import (  # noqa: E402
    RANK_COLUMN,
    QNet,
    candidate_rows,
    move_features,
    state_features,
)
from tienlen.players.encoding import MOVE_PASS  # noqa: E402
from tienlen.players.registry import make_bot  # noqa: E402
from tienlen.players.toolkit import play_out  # noqa: E402

STANDARD = Rules.preset("standard")


def test_the_candidates_are_the_heuristic_bots_best_and_the_pass() -> None:
    game = Game(STANDARD, seed=3)
    game.play(game.legal_moves()[0])  # the next seat may pass
    view, legal = observe(game, game.turn), game.legal_moves()
    features = move_features(view, legal)
    rows = candidate_rows(features, 2)
    ranked = make_bot("heuristic").ranked(view, legal)  # type: ignore[attr-defined]
    assert [legal[i] for i in rows[:2]] == [s.move for s in ranked[:2]]
    assert features[rows[-1], MOVE_PASS] == 1.0 and len(rows) == 3


def test_labels_hold_every_labelled_decisions_candidates() -> None:
    labels = label_games(STANDARD, 3, seed=1, top=3, epsilon=0.0)
    n = len(labels)
    assert n > 20
    # room for the heuristic's best three, the pass and the network's choice
    assert labels.obs.shape[0] == labels.moves.shape[0] == n and labels.moves.shape[1] == 5
    assert not labels.mask[:, 4].any()  # no network played
    assert labels.mask[:, :2].all()  # a labelled decision has a choice
    # the first candidate is the heuristic bot's choice (rank 0: 1 / (1 + 0))
    assert (labels.moves[:, 0, RANK_COLUMN] == 1.0).all()
    real = labels.mask
    assert set(np.unique(labels.place[real])) <= {0, 1, 2, 3}
    assert (labels.moves[:, :, MOVE_PASS].sum(axis=1) <= 1).all()
    # every labelled game had one winner: some candidate of some decision won
    assert labels.won.any()


def _labelled_decision(labeller: _Labeller, game: Game) -> tuple[int, list[Choice], list[int]]:
    """Play ``game`` on with ``labeller`` to a labelled decision a few moves in (so that the
    pile and the counts matter) with three candidates or more: its seat, legal moves and
    candidate rows; ``game`` is left before the move."""
    memo: PolicyMemo = {}
    while True:
        seat, legal = game.turn, game.legal_moves()
        move = labeller.decide(game, legal, None, memo)
        if len(game.history) > 6 and labeller.mask and labeller.mask[-1][2]:
            return seat, list(legal), candidate_rows(move_features(observe(game, seat), legal), 3)
        game.play(move)


def _played_on(game: Game, move: Choice, bot: object) -> Game:
    """A copy of ``game`` with ``move`` made, then played to its end by ``bot``."""
    trial = game.copy()
    trial.play(move)
    play_out(trial, bot)  # type: ignore[arg-type]
    return trial


def test_a_label_is_where_the_seat_finishes_when_the_heuristic_bot_plays_on() -> None:
    """A candidate's label is the place its seat reaches when that move is made and every
    seat then plays as the ``heuristic`` bot does (the memoised rollout of the ``ismcts``
    bot, checked here against the bot itself deciding from each seat's observation)."""
    heuristic = make_bot("heuristic")
    game = Game(STANDARD, seed=11)
    labeller = _Labeller(seed=0, top=3, others=0, epsilon=0.0)
    seat, legal, rows = _labelled_decision(labeller, game)
    labels = labeller.labels()
    assert len(rows) >= 3

    def bot(g: Game, options: object) -> object:
        return heuristic.choose(observe(g, g.turn), g.legal_moves(), Budget())

    for j, i in enumerate(rows):
        assert labels.mask[-1, j]
        trial = _played_on(game, legal[i], bot)
        assert trial.finish_order.index(seat) == labels.place[-1, j]
        assert labels.won[-1, j] == (trial.finish_order[0] == seat)


def test_labelling_is_reproducible_and_the_network_plays_its_seats() -> None:
    a = label_games(STANDARD, 2, seed=5)
    b = label_games(STANDARD, 2, seed=5)
    for x, y in zip(vars(a).values(), vars(b).values(), strict=True):
        assert np.array_equal(x, y)
    net = QNet.init((16, 8), seed=1)
    played = label_games(STANDARD, 2, seed=5, net=net, net_share=1.0)
    assert len(played) != len(a) or not np.array_equal(played.obs, a.obs)


def test_the_network_s_own_choice_and_random_moves_are_labelled_too() -> None:
    """Beside the heuristic's short list, the labels cover the move the network plays
    (chosen among every legal move) and ``others`` random legal moves: the values of moves
    the heuristic would never propose are learned, not guessed."""
    net = QNet.init((16, 8), seed=1)
    labels = label_games(STANDARD, 3, seed=2, top=3, others=2, epsilon=0.0, net=net,
                         net_share=1.0)  # fmt: skip
    assert labels.moves.shape[1] == 3 + 2 + 2
    rank = labels.moves[:, :, RANK_COLUMN].astype(np.float32)
    outside = labels.mask & (rank < 1 / 4) & (labels.moves[:, :, MOVE_PASS] == 0)
    assert outside.any()  # moves below the heuristic's best three were labelled
    assert (labels.mask.sum(axis=1) > 4).any()


@pytest.mark.slow  # a labelling round under several rule sets
def test_a_mix_of_rules_deals_each_game_under_one_of_them() -> None:
    from tienlen.env.train import rules_mix

    mix = rules_mix("pike,double-deck-13", 4, 0.0)
    assert [(r.name, r.players) for r in mix] == [("pike", 4), ("double-deck-13", 4)]
    varied = rules_mix("pike", None, 0.3)
    assert len(varied) == 100 and {r.players for r in varied} == {2, 3, 4}  # pike: 2-4 seats
    assert sum(r.players == 4 for r in varied) == 70 + 10
    labels = label_games(mix, 6, seed=3, epsilon=0.0)
    assert set(labels.players.tolist()) == {4}
    seats = label_games(rules_mix("standard", None, 1.0), 8, seed=3, epsilon=0.0)
    assert len(set(seats.players.tolist())) > 2
    with pytest.raises(ValueError, match="unknown preset 'nope'"):
        rules_mix("standard,nope", None, 0.0)


def test_the_target_is_the_ismcts_bots_reward() -> None:
    won = np.array([[True, False, False]])
    place = np.array([[0, 1, 3]], np.int8)
    labels = Labels(np.zeros((1, 1), np.float16), np.zeros((1, 3, 1), np.float16),
                    np.ones((1, 3), bool), place, np.array([4], np.int8))  # fmt: skip
    assert labels.won.tolist() == won.tolist()
    assert labels.targets(1.0).tolist() == [[1.0, 0.0, 0.0]]
    assert labels.targets(0.0)[0].tolist() == pytest.approx([1.0, 2 / 3, 0.0])
    assert labels.targets(0.6)[0].tolist() == pytest.approx([1.0, 0.4 * 2 / 3, 0.0])
    # in a game of six, third place is ahead of three of the five others
    six = Labels(labels.obs, labels.moves, labels.mask, np.array([[2, 0, 5]], np.int8),
                 np.array([6], np.int8))  # fmt: skip
    assert six.targets(0.0)[0].tolist() == pytest.approx([3 / 5, 1.0, 0.0])


@pytest.mark.slow
def test_a_rollouts_run_keeps_the_last_decisions_and_resumes_only_as_one(
    tmp_path: Path,
) -> None:
    # reproducibility with workers: test_env.py::test_training_with_workers_is_reproducible
    config = TrainConfig(method="rollouts", games_per_round=2, hidden=(32, 16), eval_bots=(),
                         buffer=500, candidates=3)  # fmt: skip
    trainer = Trainer(config, tmp_path)
    trainer.run(steps=700)
    assert trainer.frames >= 700 and trainer.buffer is not None
    assert trainer.buffer.filled == 500 and trainer.buffer.at == trainer.frames % 500
    assert trainer.buffer.mask[:, 0].all()  # every slot holds a decision
    with pytest.raises(ValueError, match="holds a rollouts run"):
        Trainer(TrainConfig(method="dmc", hidden=(32, 16)), tmp_path)


def test_the_rollouts_method_plays_only_the_heuristic_bot_and_the_network() -> None:
    with pytest.raises(ValueError, match="not 'greedy'"):
        TrainConfig(method="rollouts", opponents=("greedy",))
    with pytest.raises(ValueError, match="method must be one of dmc, rollouts, not 'ppo'"):
        TrainConfig(method="ppo")


def test_with_playout_network_the_seat_plays_on_as_the_network_would() -> None:
    """Policy iteration (``playout="network"``): a candidate's label is the place its seat
    reaches when the network chooses that seat's later moves from its observation (among
    every legal move) and the ``heuristic`` bot every other seat's."""
    net = QNet.init((16, 8), seed=4)
    heuristic = make_bot("heuristic")
    game = Game(STANDARD, seed=11)
    labeller = _Labeller(seed=0, top=3, others=0, epsilon=0.0, playout_net=net)
    seat, legal, rows = _labelled_decision(labeller, game)
    labels = labeller.labels()

    def bot(g: Game, options: object) -> object:
        view, moves = observe(g, g.turn), g.legal_moves()
        if g.turn == seat:
            return moves[net.best(state_features(view), move_features(view, moves))]
        return heuristic.choose(view, moves, Budget())

    for j, i in enumerate(rows):
        trial = _played_on(game, legal[i], bot)
        assert trial.finish_order.index(seat) == labels.place[-1, j]


def test_the_network_s_play_outs_change_the_labels_of_the_same_decisions() -> None:
    net = QNet.init((16, 8), seed=4)
    # net_share 0: the heuristic plays every seat of the real games, so the decisions agree
    mine = label_games(STANDARD, 2, seed=5, net=net, playout="network")
    theirs = label_games(STANDARD, 2, seed=5, net=net, playout="heuristic")
    assert np.array_equal(mine.obs, theirs.obs) and np.array_equal(mine.mask, theirs.mask)
    assert not np.array_equal(mine.place, theirs.place)
    # an untrained network going on for the seat finishes it lower, on the whole
    assert mine.place[mine.mask].mean() > theirs.place[theirs.mask].mean()
    with pytest.raises(ValueError, match="playout='network' needs a net"):
        label_games(STANDARD, 1, seed=5, playout="network")
    with pytest.raises(ValueError, match="playout must be one of heuristic, network, not 'x'"):
        label_games(STANDARD, 1, seed=5, playout="x")
    with pytest.raises(ValueError, match="playout 'network' is for the rollouts method only"):
        TrainConfig(method="dmc", playout="network")
