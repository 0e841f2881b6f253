"""The cluster scaling benchmark (bench/cluster_load.py): how it finds a node's bot workers,
and a few seconds of it on one node, for the shape of what it prints (no figure is judged:
timings are never asserted). The run needs PostgreSQL and Redis."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backends import POSTGRES

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from cluster_load import descendants, tree_cpu_seconds  # noqa: E402

REDIS = os.environ.get("TIENLEN_TEST_REDIS_URL")


def test_a_nodes_children_and_their_childrens_cpu_count_as_the_nodes() -> None:
    # A child that starts a grandchild, like a node's bot pool.
    code = "import subprocess, sys; subprocess.run(['sleep', '30']); sys.exit()"
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(200):
            tree = descendants(os.getpid())
            if child.pid in tree and len(tree) >= 2:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert child.pid in tree
        grandchildren = [pid for pid in tree if pid != child.pid]
        assert grandchildren, "the child's own child is part of the tree"
        assert tree_cpu_seconds(os.getpid()) >= tree_cpu_seconds(child.pid)
    finally:
        child.kill()
        child.wait()


@pytest.mark.slow
@pytest.mark.skipif(
    POSTGRES is None or REDIS is None,
    reason="needs TIENLEN_TEST_POSTGRES_URL and TIENLEN_TEST_REDIS_URL",
)
def test_one_node_for_a_few_seconds_prints_every_figure() -> None:
    assert POSTGRES is not None and REDIS is not None
    argv = [sys.executable, str(ROOT / "bench" / "cluster_load.py"), "--postgres", POSTGRES]
    argv += ["--redis", REDIS, "--nodes", "1", "--tables", "3", "--humans", "2"]
    argv += ["--think", "0.2", "--warmup", "2", "--seconds", "4", "--direct", "on"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition(": ") for line in done.stdout.splitlines())
        if value
    )
    assert figures["nodes"] == "1"
    assert figures["tables held, by node"] == "[3]"
    assert figures["direct (nodes advertise their address)"] == "True"
    # (one node owns every table: no socket is sent on)
    assert figures["sockets sent to another node when opened, of all"] == "0 of 6"
    assert figures["humans per table (and bots)"] == "2 (greedy)"
    assert float(figures["actions per second"]) > 0
    assert float(figures["server CPU ms per action"]) > 0
    assert float(figures["idle nodes' CPU ms per second (all nodes)"]) >= 0
    assert re.fullmatch(r"\['\d+ -> \d+'\]", figures["RSS MiB by node (idle -> end)"])
    assert float(figures["idle nodes' CPU ms per second (all nodes)"]) >= 0
    total, net = done.stdout.splitlines()[-2:]
    assert re.fullmatch(
        r"server CPU ms per action, direct, 1 node\(s\): [\d.]+ .*, 1\.00x one node's", total
    )
    assert net.startswith("server CPU ms per action, less the idle CPU, direct, 1 node(s): ")


@pytest.mark.slow
@pytest.mark.skipif(
    POSTGRES is None or REDIS is None,
    reason="needs TIENLEN_TEST_POSTGRES_URL and TIENLEN_TEST_REDIS_URL",
)
def test_reference_runs_one_node_at_each_nodes_share_of_the_tables() -> None:
    assert POSTGRES is not None and REDIS is not None
    argv = [sys.executable, str(ROOT / "bench" / "cluster_load.py"), "--postgres", POSTGRES]
    argv += ["--redis", REDIS, "--nodes", "2", "--tables", "4", "--humans", "1", "--reference"]
    argv += ["--think", "0.2", "--warmup", "1", "--seconds", "3", "--idle", "1"]
    argv += ["--direct", "on"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    held = [line for line in done.stdout.splitlines() if "tables held, by node" in line]
    # the two nodes' run (four tables between them), then one node alone with two
    assert [line.split(": ")[1] for line in held][1:] == ["[2]"]
    assert sum(json.loads(held[0].split(": ")[1])) == 4
    total = done.stdout.splitlines()[-2]
    assert re.fullmatch(
        r"server CPU ms per action, direct, 2 node\(s\): [\d.]+ \(median of runs\); "
        r"one node at 1/2 of the tables [\d.]+, [\d.]+x",
        total,
    ), total
