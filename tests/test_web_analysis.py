"""The browser's analysis of a finished game and its puzzle page (Playwright, Chromium), on
a live server (the analysis routes are part of every app)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverkit import HANG, LiveServer, server_settings, store_finished_game
from tienlen import Game
from tienlen.analysis.puzzles import elo_update, starter_set
from tienlen.cards import format_cards, parse_cards
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed", allow_module_level=True)


def record() -> dict[str, Any]:
    """Seat 0 could go out at once with 3♠ 4♠ 5♠ and led the 3♠ alone."""
    game = Game("standard", hands=["3s 4s 5s", "6c 7c", "9d 2h", "Kd Ks"])
    game.play("3s")
    bot = HeuristicBot()
    play_out(game, lambda g, legal: bot.choose(observe(g, g.turn), legal, Budget()))
    return GameRecord.from_game(game, names=["Ann", "Bo", "Cy", "Di"]).to_dict()


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"
    store_finished_game(url, "g1", record())
    live = LiveServer(server_settings(url, tmp_path))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(base_url=live.base)
        context.set_default_timeout(HANG * 1000)
        tab = context.new_page()
        tab.on("pageerror", lambda e: print(f"[page error] {e}"))
        context.request.post("/api/guest", data={"name": "Ann"})
        yield tab
        browser.close()
    live.close()


def test_a_finished_game_is_analysed_in_the_browser(page: Any) -> None:
    page.goto("/games/g1")
    page.click("#analyse")
    # The curve itself: a seat whose chance never moves draws a flat line, which has no
    # height and so never counts as visible; the chart does.
    page.wait_for_selector("#analysis svg.win-curve")
    assert page.locator("#analysis svg.win-curve polyline.curve").count() == 4
    assert page.locator(".analysis-summary tr").count() == 5  # the heading and four players
    page.click("#next")
    mark = page.locator("#analysis-mark").inner_text()
    assert mark.startswith("blunder") and "best: 3♠ 4♠ 5♠" in mark


def test_a_puzzle_is_solved_in_the_browser(page: Any) -> None:
    puzzle = starter_set()[0]
    page.goto(f"/puzzles/{puzzle.id}")
    page.wait_for_selector(".puzzle-choices button")
    page.click(f".puzzle-choices button:text-is('{format_cards(parse_cards(puzzle.solution))}')")
    result = page.locator("#puzzle-result")
    result.locator("p.right").wait_for()
    rating = round(elo_update(1500, puzzle.rating, True))
    assert f"Your puzzle rating: {rating}" in result.inner_text()
