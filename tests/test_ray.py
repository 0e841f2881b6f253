"""The Ray path: training rounds and arena games as Ray tasks on a local Ray instance give
what the local processes give."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")
pytest.importorskip("gymnasium", reason="the env extra (gymnasium) is not installed")
if importlib.util.find_spec("ray") is None:
    pytest.skip("Ray (the ray extra) is not installed", allow_module_level=True)
# each module run starts a Ray instance (tens of seconds): left out of make test-fast, and
# Ray imported only by the tests (a third of a second of CPU at every collection, in each
# of its worker processes, that loop's included)
pytestmark = pytest.mark.slow

from tienlen import Rules  # noqa: E402
from tienlen.apps.cli import main  # noqa: E402
from tienlen.env.train import TrainConfig, Trainer  # noqa: E402
from tienlen.players.arena import run_arena  # noqa: E402
from tienlen.players.executors import RayExecutor  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A one-CPU Ray instance on this machine, which ``--ray auto`` joins."""
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow  # a Ray instance takes seconds to start
def test_a_training_round_on_ray_gives_the_local_pools_weights(
    tmp_path: Path, cluster: None
) -> None:
    config = TrainConfig(
        method="rollouts",
        seed=6,
        workers=2,
        games_per_round=2,
        hidden=(32, 16),
        eval_bots=("random",),
        eval_games=4,
    )
    local = Trainer(config, tmp_path / "local")
    local.run(steps=1)  # one round, then the checkpoint and its evaluation
    with RayExecutor("auto") as executor:
        assert executor.workers == 1  # the instance's one CPU
        remote = Trainer(config, tmp_path / "ray")
        remote.run(steps=1, executor=executor)
    import ray

    assert ray.is_initialized()  # joined, so left running
    assert remote.rounds == local.rounds == 1 and remote.frames == local.frames > 0
    for name, value in local.net.params.items():
        assert np.array_equal(value, remote.net.params[name])
    logs = [
        (run / "log.jsonl").read_text().splitlines()
        for run in (tmp_path / "local", tmp_path / "ray")
    ]
    evals = [json.loads(log[-1])["eval"] for log in logs]
    assert evals[0] == evals[1] and evals[0]["standard"]["random"]["games"] == 4


@pytest.mark.slow  # a Ray instance takes seconds to start
def test_tienlen_train_with_ray_runs_a_round_there(
    tmp_path: Path, cluster: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["train", "--out", str(out), "--steps", "1", "--games-per-round", "2"]
    assert main([*args, "--eval-bots", "", "--hidden", "32,16", "--ray", "auto"]) == 0
    shown = capsys.readouterr()
    assert "1 jobs a round on Ray at auto (1 CPUs)" in shown.err
    assert "done: " in shown.out and (out / "latest.npz").exists()


@pytest.mark.slow  # a Ray instance takes seconds to start
def test_tienlen_arena_with_ray_plays_the_deals_of_the_local_run(
    tmp_path: Path, cluster: None
) -> None:
    path = tmp_path / "ray.json"
    specs = ["heuristic", "greedy", "random"]
    assert main(["arena", "--bots", ",".join(specs), "--games", "6", "--seed", "4", "--quiet",
                 "--ray", "auto", "--json", str(path)]) == 0  # fmt: skip
    there = json.loads(path.read_text())
    here = run_arena(Rules.preset("standard").for_players(3), specs, games=6, seed=4).to_dict()
    assert there["games"] == here["games"] == 6

    def played(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The entries' results less their decision times (a clock's, not the games')."""
        return [{k: v for k, v in e.items() if not k.startswith("decision_ms")} for e in entries]

    assert played(there["entries"]) == played(here["entries"])


@pytest.mark.slow  # a Ray instance takes seconds to start
def test_an_arena_on_ray_refuses_cmd_bots(cluster: None) -> None:
    with (
        RayExecutor("auto") as executor,
        pytest.raises(ValueError, match="runs on this machine only, not on Ray"),
    ):
        run_arena(
            Rules.preset("standard").for_players(2),
            ["cmd:python examples/protocol_bot.py", "greedy"],
            games=2,
            executor=executor,
        )


def test_rules_survive_rays_pickler() -> None:
    from ray import cloudpickle

    rules = Rules.preset("hawaii").for_players(3)
    assert cloudpickle.loads(cloudpickle.dumps(rules)) == rules  # type: ignore[no-untyped-call]
