"""Write the README's screenshot: a seeded match, a few turns in, exported by Textual.

python -m tienlen.apps.tui.demo docs/screenshot.svg [WIDTH HEIGHT]
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tienlen import PASS, Move, Rules, format_move

from ..controller import MatchController, MatchSetup
from .app import TienLenApp

__all__ = ["demo_controller", "save_screenshot"]


def demo_controller(seed: int = 25) -> MatchController:
    """A seeded match at a turn of the person's with a pile to beat and a pair selected."""
    settings = MatchSetup(
        rules=Rules.preset("standard"),
        bots=("greedy", "heuristic", "greedy"),
        games=5,
        seed=seed,
        delay=0,
    )
    ctl = MatchController(settings)
    turns = 0
    while not ctl.game_over:
        if ctl.bot_to_act:
            ctl.step_bot()
            continue
        top = ctl.game.top
        pairs = [m for m in ctl.combos() if isinstance(m, Move) and m.kind == "pair"]
        if turns >= 2 and top is not None and len(ctl.game.pile) >= 2 and pairs:
            ctl.selected = pairs[0].mask
            ctl.toggle(pairs[0].cards[0])  # one card selected: its partners are marked
            return ctl
        plays = [m for m in ctl.legal_moves() if m.mask]
        ctl.play_text(format_move(plays[0] if plays else PASS, ascii=True))
        turns += 1
    raise AssertionError("the demo deal never reached the wanted position")


async def _shoot(path: Path, size: tuple[int, int]) -> None:
    app = TienLenApp(controller=demo_controller())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.save_screenshot(path.name, path=str(path.parent))


def save_screenshot(path: str | Path, size: tuple[int, int] = (100, 30)) -> Path:
    """Write the demo screenshot (SVG) to ``path``."""
    p = Path(path)
    asyncio.run(_shoot(p, size))
    return p


if __name__ == "__main__":
    args = sys.argv[1:]
    target = args[0] if args else "docs/screenshot.svg"
    dims = (int(args[1]), int(args[2])) if len(args) >= 3 else (100, 30)
    print(save_screenshot(target, dims))
