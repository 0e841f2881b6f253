"""Write the starter set of puzzles: positions of self-played games (and of any game records
given, such as real games) where exactly one choice forces the win with open hands.

Self-play games are ``standard`` deals played by a mix of bots (``--bots``, seats rotated
each game); every position with at most ``--cards`` cards in hand in all is given to the
solver (:func:`tienlen.analysis.puzzles.find_puzzle`). The set keeps up to ``--each``
puzzles of each difficulty (easy, medium, hard), easiest first, without two from the same
game and action.

Run: ``.venv/bin/python bench/puzzles.py`` (writes ``src/tienlen/analysis/puzzles.json``;
``--records FILE ...`` adds the positions of recorded games or saved matches).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.progress import MofNCompleteColumn, Progress

from tienlen import Game
from tienlen.analysis.puzzles import Puzzle, puzzles_of_record
from tienlen.match_record import read_games
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord
from tienlen.solver import Solver

OUT = Path(__file__).resolve().parent.parent / "src" / "tienlen" / "analysis" / "puzzles.json"


def self_played(seed: int, bots: list[str]) -> GameRecord:
    """The record of a ``standard`` deal ``seed`` played by ``bots`` (rotated by seed)."""
    shift = seed % len(bots)
    seated = bots[shift:] + bots[:shift]
    players = [make_bot(name, seed=seed * 10 + i) for i, name in enumerate(seated)]
    game = Game("standard", seed=seed)
    budget = Budget()
    play_out(game, lambda g, legal: players[g.turn].choose(observe(g, g.turn), legal, budget))
    return GameRecord.from_game(game, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="self-played games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", default="learned,heuristic,greedy,heuristic")
    parser.add_argument("--cards", type=int, default=16, help="most cards in hand in all")
    parser.add_argument("--each", type=int, default=20, help="puzzles of each difficulty")
    parser.add_argument("--records", nargs="*", default=[], help="game records to add")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    bots = args.bots.split(",")
    found: dict[str, Puzzle] = {}
    sources: list[tuple[str, GameRecord]] = []
    for path in args.records:
        for i, record in enumerate(read_games(Path(path).read_bytes()), 1):
            sources.append((f"{Path(path).name} game {i}", record))
    with Progress(*Progress.get_default_columns(), MofNCompleteColumn()) as bar:
        task = bar.add_task("games", total=len(sources) + args.games)
        for i in range(len(sources) + args.games):
            if i < len(sources):
                source, record = sources[i]
            else:
                seed = args.seed * 100_000 + i
                source, record = f"self-play standard seed {seed}", self_played(seed, bots)
            solver = Solver()
            for puzzle in puzzles_of_record(record, solver, source=source, most_cards=args.cards):
                found.setdefault(puzzle.id, puzzle)
            bar.advance(task)
    chosen: list[Puzzle] = []
    for difficulty in ("easy", "medium", "hard"):
        of = [p for p in found.values() if p.difficulty == difficulty]
        seen_games: set[str] = set()
        for p in sorted(of, key=lambda p: (p.depth, p.id)):
            game = p.source.rsplit(" action ", 1)[0]
            if game in seen_games:
                continue  # one puzzle a game and difficulty: the set stays varied
            seen_games.add(game)
            chosen.append(p)
            if sum(1 for c in chosen if c.difficulty == difficulty) == args.each:
                break
    data = {
        "format": "tienlen-puzzles",
        "version": 1,
        "command": "bench/puzzles.py "
        + f"--games {args.games} --seed {args.seed} --bots {args.bots} --cards {args.cards}",
        "puzzles": [p.to_dict() for p in chosen],
    }
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    counts = {d: sum(1 for p in chosen if p.difficulty == d) for d in ("easy", "medium", "hard")}
    print(f"{len(found)} puzzles found, {len(chosen)} written to {args.out}: {counts}")


if __name__ == "__main__":
    main()
