"""A Ray cluster of two nodes on this one machine (a head and a worker node, each with its
own raylet and one CPU, from ``ray.cluster_utils.Cluster``), and ``tienlen train --ray
ADDRESS`` run against it from another process, as from a machine that joins a cluster.

    pip install 'tienlen[env,ray]'
    python examples/ray_two_nodes.py

The nodes are this script's own processes and end with it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time

from ray.cluster_utils import Cluster


def main() -> None:
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    print(f"two nodes at {cluster.address}", flush=True)
    try:
        with tempfile.TemporaryDirectory() as out:
            command = [
                sys.executable, "-m", "tienlen.apps.cli", "train", "--out", f"{out}/run",
                "--ray", cluster.address, "--steps", "1", "--games-per-round", "4",
                "--eval-bots", "random", "--eval-games", "8",
            ]  # fmt: skip
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            print(f"exit {done.returncode} after {time.perf_counter() - start:.1f} s")
            print(done.stdout, done.stderr[-2000:], sep="\n")
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
