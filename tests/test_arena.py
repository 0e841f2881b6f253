"""The arena: duplicate deals, reproducibility, the statistics and the command line."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from tienlen import Game, Rules
from tienlen.apps.cli import main
from tienlen.cards import cards_of_mask
from tienlen.players.arena import (
    GameOutcome,
    deal_seed,
    entry_labels,
    entry_stats,
    play_game,
    ratings,
    run_arena,
    wilson,
)
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import accepts_trade
from tienlen.players.registry import make_bot


def test_arena_games_with_trading_complete_and_the_bots_accept_offers_by_their_rule() -> None:
    rules = Rules.preset("vietcong", trading="mutual")
    accepted = 0
    for seed in range(4):
        game = Game(rules, seed=seed)
        # bots make no offers: the first seat offers its highest card for the next one's lowest
        seat, partner = game.turn, (game.turn + 1) % rules.players
        give = 1 << game.hand_masks[seat].bit_length() - 1
        take = game.hand_masks[partner] & -game.hand_masks[partner]
        game.offer_trade(partner, cards_of_mask(give), cards_of_mask(take))
        rule = accepts_trade(rules, game.hand_masks[partner], give, take)
        problems: list[str] = []
        play_game(game, [make_bot("heuristic")] * rules.players, on_problem=problems.append)
        assert game.is_over and not problems
        assert game.trades[0].accepted is rule
        accepted += rule
    assert accepted >= 2


def test_every_deal_is_played_once_per_rotation_so_each_bot_plays_each_hand() -> None:
    rules = Rules.preset("standard")
    result = run_arena(rules, ["greedy", "random", "heuristic", "greedy"], games=24, seed=3)
    assert len(result.outcomes) == 24
    by_deal: dict[int, list[GameOutcome]] = {}
    for o in result.outcomes:
        by_deal.setdefault(o.deal, []).append(o)
    assert len(by_deal) == 6
    for outcomes in by_deal.values():
        for entry in range(4):
            assert sorted(o.seats[entry] for o in outcomes) == [0, 1, 2, 3]
        for o in outcomes:
            assert sorted(o.positions) == [1, 2, 3, 4]
            assert len(set(o.seats)) == 4
    # the games of one deal use the same cards: the deal seed
    game = Game(rules, seed=deal_seed(3, 0))
    assert len(game.hands[0]) == 13


def test_games_round_up_to_whole_deals() -> None:
    result = run_arena(Rules.preset("standard", players=3), ["greedy"] * 3, games=10, seed=1)
    assert len(result.outcomes) == 12


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    rules = Rules.preset("pagat", players=3)
    specs = ["random", "greedy", "heuristic"]
    one = run_arena(rules, specs, games=18, seed=7, jobs=1)
    two = run_arena(rules, specs, games=18, seed=7, jobs=2)
    assert one.outcomes == two.outcomes
    assert run_arena(rules, specs, games=18, seed=8).outcomes != one.outcomes


def test_the_figures_add_up() -> None:
    rules = Rules.preset("standard")
    result = run_arena(rules, ["greedy", "random", "random", "random"], games=80, seed=1)
    stats = result.stats()
    assert sum(s.wins for s in stats) == 80
    assert sum(s.losses for s in stats) == 80
    assert sum(s.mean_position for s in stats) == pytest.approx(1 + 2 + 3 + 4)
    assert sum(s.mean_score for s in stats) == pytest.approx(0)  # the score pad is zero-sum
    for s in stats:
        assert s.win_ci[0] <= s.win_rate <= s.win_ci[1]
        assert s.position_ci[0] <= s.mean_position <= s.position_ci[1]
    assert result.problems == []


def test_the_rating_table_puts_the_strong_bot_first() -> None:
    pytest.importorskip("openskill")
    rules = Rules.preset("standard")
    result = run_arena(rules, ["greedy", "random", "random", "random"], games=80, seed=1)
    table = result.ratings()
    assert table is not None and len(table) == 4
    assert table[0]["label"] == "greedy"  # greedy beats random by far


def test_without_openskill_there_is_no_rating_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openskill.models", None)  # makes the import fail
    outs = [GameOutcome(0, 0, (0, 1), (1, 2), (1, -1), 5)]
    assert ratings(["a", "b"], outs) is None


def test_labels_number_repeated_bots() -> None:
    specs = ["ismcts", "greedy", "greedy", "cmd:python /x/my_bot.py"]
    assert entry_labels(specs) == ["ismcts", "greedy#1", "greedy#2", "cmd:my_bot.py"]


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson(60, 100)
    assert low == pytest.approx(0.5020, abs=1e-4)
    assert high == pytest.approx(0.6906, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_means_use_per_deal_clusters() -> None:
    # two deals; the entry's positions per deal are (1, 1) and (4, 4)
    outs = [
        GameOutcome(0, 0, (0, 1), (1, 2), (1, -1), 5),
        GameOutcome(0, 1, (1, 0), (1, 2), (1, -1), 5),
        GameOutcome(1, 0, (0, 1), (2, 1), (-1, 1), 5),
        GameOutcome(1, 1, (1, 0), (2, 1), (-1, 1), 5),
    ]
    stats = entry_stats(["a", "b"], outs, 2)
    assert stats[0].mean_position == 1.5
    # two clusters of means 1 and 2: standard error 0.5
    half = stats[0].position_ci[1] - 1.5
    assert half == pytest.approx(1.959964 * 0.5, rel=1e-5)


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard", players=2),
        Rules.preset("double-deck-13"),
        Rules.preset("lu", players=3),
        Rules.preset("akita", players=5, decks=2),
    ],
)
def test_any_preset_and_player_count(rules: Rules) -> None:
    specs = ["heuristic"] + ["greedy"] * (rules.players - 1)
    result = run_arena(rules, specs, games=rules.players, seed=2)
    assert len(result.outcomes) == rules.players
    assert result.stats()[0].games == rules.players


def test_a_wrong_line_up_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="3 bots given for 4 players"):
        run_arena(Rules.preset("standard"), ["greedy"] * 3, games=4)
    with pytest.raises(ValueError, match="unknown bot 'deepblue'"):
        run_arena(Rules.preset("standard"), ["greedy"] * 3 + ["deepblue"], games=4)


def test_play_game_reports_a_failing_bot_and_finishes() -> None:
    class Broken:
        name = "broken"

        def choose(self, obs: object, legal: object, budget: Budget) -> object:
            raise RuntimeError("boom")

    problems: list[str] = []
    game = Game("standard", seed=5)
    play_game(
        game,
        [Broken(), make_bot("greedy"), make_bot("greedy"), make_bot("greedy")],  # type: ignore[list-item]
        on_problem=problems.append,
    )
    assert game.is_over
    assert problems and "broken raised RuntimeError: boom" in problems[0]


def test_the_command_prints_the_tables_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("openskill")
    out = tmp_path / "arena.json"
    code = main(
        [
            "arena",
            "--rules",
            "pagat.cong",
            "--bots",
            "heuristic,greedy,random",
            "--games",
            "9",
            "--seed",
            "4",
            "--jobs",
            "1",
            "--quiet",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert (
        "pagat.players-3.cong, 3 players: 9 games (3 duplicate deals × 3 rotations), seed 4" in text
    )
    assert "Plackett-Luce" in text
    data = json.loads(out.read_text())
    assert data["games"] == 9 and data["rules"]["players"] == 3
    assert data["rules_code"] == "pagat.players-3.cong"
    assert Rules.from_code(data["rules_code"]) == Rules.from_dict(data["rules"])
    assert [e["label"] for e in data["entries"]] == ["heuristic", "greedy", "random"]
    assert Counter(r["label"] for r in data["ratings"]) == Counter(
        ["heuristic", "greedy", "random"]
    )
    assert set(data["entries"][0]) >= {
        "win_rate",
        "win_rate_ci95",
        "mean_position_ci95",
        "mean_score",
    }


def test_the_command_rejects_a_bad_line_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            ["arena", "--bots", "greedy,greedy", "--rules", "standard", "--players", "3", "--quiet"]
        )
        == 2
    )
    assert "2 bots given for 3 players" in capsys.readouterr().err


def test_a_bot_spec_carries_options_after_colons() -> None:
    from tienlen.players.registry import parse_spec

    assert parse_spec("ismcts:iterations=40:exploration=0.5:playout=greedy") == (
        "ismcts",
        {"iterations": 40, "exploration": 0.5, "playout": "greedy"},
    )
    assert parse_spec("greedy") == ("greedy", {})
    for bad in ("ismcts:iterations", "ismcts:=3", "ismcts:iterations="):
        with pytest.raises(ValueError, match="write KEY=VALUE"):
            parse_spec(bad)


def test_the_arena_plays_a_spec_with_options_as_its_own_entry() -> None:
    rules = Rules.preset("standard").for_players(2)
    specs = ["ismcts:iterations=4:playout=greedy", "ismcts:iterations=4"]
    result = run_arena(rules, specs, games=2, seed=3)
    assert [s.label for s in result.stats()] == specs
    for bad, message in (
        ("ismcts:playout=neural", "playout must be"),
        ("ismcts:depth=3", "bad options in bot spec 'ismcts:depth=3'"),
        ("nobody:depth=3", "unknown bot 'nobody:depth=3'"),
    ):
        with pytest.raises(ValueError, match=message):
            run_arena(rules, [bad, "greedy"], games=2, seed=3)


# --- cmd: bots by their hello name; decision times -------------------------------------------
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "protocol_bot.py"


def named_bot(folder: Path, name: str) -> str:
    """A ``cmd:`` entry for the example bot, greeting as ``name``, at ``folder/bot.py`` (so
    every bot made here has the same file name)."""
    folder.mkdir()
    script = folder / "bot.py"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert '"name": "example-lowest"' in text
    script.write_text(text.replace('"example-lowest"', json.dumps(name)), encoding="utf-8")
    return f"cmd:{sys.executable} {script}"


def test_cmd_bots_are_labelled_by_their_hello_name_made_unique(tmp_path: Path) -> None:
    alpha = named_bot(tmp_path / "a", "alpha")
    beta = named_bot(tmp_path / "b", "beta")
    also_alpha = named_bot(tmp_path / "c", "alpha")
    rules = Rules.preset("standard")
    # two programs of the same file name, told apart by what they call themselves
    result = run_arena(rules, [alpha, beta, "greedy", "greedy"], games=4, seed=1)
    assert result.labels == ("cmd:alpha", "cmd:beta", "greedy#1", "greedy#2")
    assert [s.label for s in result.stats()] == list(result.labels)
    assert result.to_dict()["labels"] == list(result.labels)
    # two that give the same name are numbered
    result = run_arena(rules, [alpha, also_alpha, "greedy", "random"], games=4, seed=1)
    assert result.labels == ("cmd:alpha#1", "cmd:alpha#2", "greedy", "random")


def test_labels_fall_back_to_the_program_without_a_hello_name() -> None:
    specs = ["cmd:python /x/bot.py", "cmd:python /y/bot.py", "greedy"]
    assert entry_labels(specs, ["mine", "", "greedy"]) == ["cmd:mine", "cmd:bot.py", "greedy"]
    assert entry_labels(specs, ["same", "same", "greedy"]) == [
        "cmd:same#1",
        "cmd:same#2",
        "greedy",
    ]


def test_each_entry_reports_its_decision_time() -> None:
    rules = Rules.preset("standard")
    result = run_arena(
        rules, ["ismcts:iterations=30", "greedy", "greedy", "random"], games=4, seed=2
    )
    stats = result.stats()
    asked = [sum(len(o.times[e]) for o in result.outcomes) for e in range(4)]
    assert [s.decisions for s in stats] == asked and all(n > 0 for n in asked)
    assert sum(asked) == sum(o.decisions for o in result.outcomes)
    for s in stats:
        assert 0 < s.decision_ms_median <= s.decision_ms_p99
    # a search of 30 iterations a move takes longer than a greedy pick
    assert stats[0].decision_ms_median > stats[1].decision_ms_median
    entry = result.to_dict()["entries"][0]
    assert entry["decision_ms_median"] == stats[0].decision_ms_median
    assert entry["decision_ms_p99"] == stats[0].decision_ms_p99


def test_the_decision_time_is_the_median_and_the_99th_percentile() -> None:
    times = tuple(float(ms) / 1000 for ms in range(1, 101))  # 1 ms to 100 ms
    outs = [
        GameOutcome(0, 0, (0, 1), (1, 2), (1, -1), 100, times=(times, ())),
    ]
    a, b = entry_stats(["a", "b"], outs, 2)
    assert a.decisions == 100
    assert a.decision_ms_median == pytest.approx(50.5)
    assert a.decision_ms_p99 == pytest.approx(99.01)
    assert b.decisions == 0 and b.decision_ms_median != b.decision_ms_median  # nan: none asked


def test_the_arena_table_shows_decision_times(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--bots", "greedy,random", "--games", "2", "--seed", "1", "--quiet"]
    assert main([*args, "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "ms median, p99" in out
