"""bench/arena_deals.py: an arena run played deal by deal into a file, resumed where it
stopped, giving the games of ``run_arena`` itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tienlen import Rules
from tienlen.players.arena import GameOutcome, run_arena

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from arena_deals import ahead, ahead_by_deal, main, paired, per_deal, play, read  # noqa: E402

SPECS = ["greedy", "heuristic", "random", "greedy"]


def test_a_run_cut_short_and_resumed_gives_the_arenas_own_games(tmp_path: Path) -> None:
    rules = Rules.preset("suited")
    path = tmp_path / "run.jsonl"
    play(path, rules, SPECS, games=4, seed=7)  # one deal, as if the run had been stopped
    heard: list[tuple[int, int]] = []
    play(path, rules, SPECS, games=12, seed=7, progress=lambda d, t: heard.append((d, t)))
    _, outcomes, seconds = read(path)
    expected = run_arena(rules, SPECS, games=12, seed=7).outcomes
    assert outcomes == expected
    assert [o.deal for o in outcomes] == [0] * 4 + [1] * 4 + [2] * 4
    assert heard == [(4, 12), (8, 12), (12, 12)]  # the deal already played was not played again
    assert seconds > 0


def test_a_file_of_another_run_is_refused(tmp_path: Path) -> None:
    rules = Rules.preset("standard")
    path = tmp_path / "run.jsonl"
    play(path, rules, SPECS, games=4, seed=7)
    with pytest.raises(ValueError, match="holds another run"):
        play(path, rules, SPECS, games=8, seed=8)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2  # left as it was


def test_ahead_counts_the_games_where_one_entry_finished_above_another() -> None:
    def game(positions: tuple[int, ...]) -> GameOutcome:
        return GameOutcome(0, 0, (0, 1, 2), positions, (0, 0, 0), 1)

    games = [game((1, 2, 3)), game((3, 1, 2)), game((2, 3, 1))]
    assert ahead(games, 0, 1) == (2, 3)
    assert ahead(games, 1, 0) == (1, 3)
    assert ahead(games, 2, 1) == (1, 3)


def test_the_command_line_plays_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    argv = ["--rules", "pagat", "--bots", ",".join(SPECS), "--games", "8", "--seed", "3"]
    assert main([*argv, "--out", str(path), "--ahead", "1,0", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["bots"] == SPECS
    _, outcomes, _ = read(path)
    k, n = ahead(outcomes, 1, 0)
    assert n == 8
    assert f"heuristic finished ahead of greedy#1: {100 * k / n:.1f}%" in printed
    assert f"({k} of 8 games)" in printed
    # and the two entries paired by deal: the deals' differences and shares ahead
    mine, theirs = per_deal(outcomes, 1), per_deal(outcomes, 0)
    win = paired([100 * (mine[d][1] - theirs[d][1]) for d in (0, 1)])
    shares = ahead_by_deal(outcomes, 1, 0)
    assert sorted(shares) == [0, 1] and sum(shares.values()) * 4 == k
    above = paired([100 * x for x in shares.values()])
    assert (
        f"heuristic less greedy#1, paired by deal (2 deals): win rate {win[0]:+.1f} points"
        in printed.replace("\n", "")
    )
    assert f"ahead {above[0]:.1f}% [{above[1]:.1f}" in printed.replace("\n", "")
    assert main(["--report", str(path)]) == 0
    assert "heuristic" in capsys.readouterr().out


def test_versus_pairs_entry_zero_of_two_runs_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = Rules.preset("pagat")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    play(a, rules, ["heuristic", "random", "random", "random"], games=12, seed=5)
    play(b, rules, ["random", "random", "random", "random"], games=12, seed=5)
    mine, theirs = per_deal(read(a)[1], 0), per_deal(read(b)[1], 0)
    assert sorted(mine) == [0, 1, 2]
    diffs = [mine[d][0] - theirs[d][0] for d in (0, 1, 2)]
    mean, low, high = paired(diffs)
    assert mean == pytest.approx(sum(diffs) / 3) and low <= mean <= high
    assert main(["--report", str(a), "--versus", str(b)]) == 0
    printed = capsys.readouterr().out
    assert f"heuristic against random on the same 3 deals: mean position {mean:+.3f}" in printed
    # the deals of another seed are not these: refused, not paired
    c = tmp_path / "c.jsonl"
    play(c, rules, ["random", "random", "random", "random"], games=4, seed=6)
    with pytest.raises(ValueError, match="another run"):
        main(["--report", str(a), "--versus", str(c)])


def test_paired_is_the_mean_and_its_normal_interval() -> None:
    mean, low, high = paired([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert (low, high) == pytest.approx((2.0 - 1.96 / 3**0.5, 2.0 + 1.96 / 3**0.5))


def test_shards_of_a_run_read_together_are_the_whole_run(tmp_path: Path) -> None:
    """Two processes, each with every other deal, give the games of one process."""
    rules = Rules.preset("suited")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    play(a, rules, SPECS, games=12, seed=7, shard=(1, 2))
    play(b, rules, SPECS, games=12, seed=7, shard=(2, 2))
    assert sorted({o.deal for o in read(a)[1]}) == [0, 2]
    assert sorted({o.deal for o in read(b)[1]}) == [1]
    assert read(a, b)[1] == run_arena(rules, SPECS, games=12, seed=7).outcomes
    with pytest.raises(ValueError, match="deal 0 is in both"):
        read(a, b, a)
    other = tmp_path / "other.jsonl"
    play(other, rules, SPECS, games=4, seed=8)
    with pytest.raises(ValueError, match="holds another run"):
        read(a, other)
    with pytest.raises(ValueError, match="shard 3/2"):
        play(b, rules, SPECS, games=12, seed=7, shard=(3, 2))


def test_the_command_line_reports_shards_as_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--rules", "pagat", "--bots", ",".join(SPECS), "--games", "8", "--seed", "3"]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main([*argv, "--shard", "1/2", "--out", str(a), "--quiet"]) == 0
    assert main([*argv, "--shard", "2/2", "--out", str(b), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["--report", str(a), str(b), "--ahead", "1,0"]) == 0
    assert "(" + str(ahead(read(a, b)[1], 1, 0)[0]) + " of 8 games)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*argv, "--shard", "0/2", "--out", str(a)])
    assert "expected K/N with 1 <= K <= N, not '0/2'" in capsys.readouterr().err
