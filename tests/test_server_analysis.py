"""The analysis and puzzle routes (``routes/analysis.py``) on a server of its own: a
finished game reviewed in the bots' pool with its progress, its analysis stored with the game
(served by a server started later on the same database), the one-at-a-time limit, and
puzzles checked by the solver."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import database, server_settings, store_finished_game
from tienlen import Game
from tienlen.analysis.puzzles import starter_set
from tienlen.apps.server import Server, create_app, history
from tienlen.apps.server.routes import analysis
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord


def finished_record() -> dict[str, Any]:
    """Seat 0 could go out at once with 3♠ 4♠ 5♠ and led the 3♠ alone."""
    game = Game("standard", hands=["3s 4s 5s", "6c 7c", "9d 2h", "Kd Ks"])
    game.play("3s")
    bot = HeuristicBot()
    play_out(game, lambda g, legal: bot.choose(observe(g, g.turn), legal, Budget()))
    return GameRecord.from_game(game).to_dict()


def serve(tmp_path: Path, scenario: Any, *, url: str | None = None, fresh: bool = True) -> Any:
    """Run ``scenario(http)`` against a started server with the analysis routes on ``url``
    (a SQLite file in ``tmp_path`` by default); a ``fresh`` database is given the finished
    game ``g1`` (the record above) first."""
    db = url or f"sqlite+aiosqlite:///{tmp_path / 't.db'}"
    if fresh:
        store_finished_game(db, "g1", finished_record())

    async def main() -> Any:
        settings = server_settings(db, tmp_path)
        srv = Server(settings)
        app = create_app(settings, server=srv)
        await srv.start()
        try:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                return await scenario(http)
        finally:
            await srv.stop()

    return asyncio.run(main())


async def reviewed(
    http: httpx.AsyncClient, game_id: str, headers: dict[str, str]
) -> list[dict[str, Any]]:
    """Start a game's review and poll it to its end; every answer seen, in order."""
    seen = [(await http.post(f"/api/games/{game_id}/analysis", headers=headers)).json()]
    while seen[-1]["status"] == "running":
        await asyncio.sleep(0.05)
        seen.append((await http.get(f"/api/games/{game_id}/analysis")).json())
    return seen


async def guest(http: httpx.AsyncClient, name: str) -> dict[str, str]:
    r = await http.post("/api/guest", json={"name": name})
    assert r.status_code == 200
    return {"authorization": f"Bearer {r.json()['token']}"}


def test_a_finished_game_is_reviewed_with_progress_and_kept(tmp_path: Path) -> None:
    async def scenario(http: httpx.AsyncClient) -> list[dict[str, Any]]:
        ann = await guest(http, "Ann")
        before = (await http.get("/api/games/g1/analysis")).json()
        seen = [before, *await reviewed(http, "g1", ann)]
        bo = await guest(http, "Bo")
        seen.append((await http.post("/api/games/g1/analysis", headers=bo)).json())
        return seen

    seen = serve(tmp_path, scenario)
    assert seen[0] == {"game": "g1", "status": "none", "done": 0, "total": 0}
    assert seen[1]["status"] == "running" and seen[1]["total"] > 0
    done = seen[-2]
    assert done["status"] == "done" and done["done"] == done["total"]
    first = done["analysis"]["decisions"][0]
    assert (first["number"], first["choice"], first["best"], first["label"]) == (
        1,
        "3s",
        "3s 4s 5s",
        "blunder",
    )
    assert done["analysis"]["players"][0]["labels"]["blunder"] == 1
    assert seen[-1] == done  # kept: asked again, the same analysis at once


def test_a_finished_analysis_is_served_by_a_server_started_later_on_the_database(
    backend: str, tmp_path: Path
) -> None:
    async def review(http: httpx.AsyncClient) -> dict[str, Any]:
        seen = await reviewed(http, "g1", await guest(http, "Ann"))
        return seen[-1]

    async def ask(http: httpx.AsyncClient) -> list[dict[str, Any]]:
        again = await http.post("/api/games/g1/analysis", headers=await guest(http, "Bo"))
        return [(await http.get("/api/games/g1/analysis")).json(), again.json()]

    with database(backend, tmp_path) as url:
        done = serve(tmp_path, review, url=url)
        later, asked_again = serve(tmp_path, ask, url=url, fresh=False)
    assert done["status"] == "done" and done["analysis"]["decisions"][0]["label"] == "blunder"
    assert later == done
    assert asked_again == done  # not reviewed again: the stored analysis at once


def test_an_analysis_the_database_would_not_take_is_served_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refused(_s: Any, game_id: str, _analysis: Any) -> None:
        raise OSError(f"the database did not answer for {game_id}")

    monkeypatch.setattr(history, "store_analysis", refused)

    async def scenario(http: httpx.AsyncClient) -> tuple[dict[str, Any], dict[str, Any]]:
        seen = await reviewed(http, "g1", await guest(http, "Ann"))
        return seen[-1], (await http.get("/api/games/g1/analysis")).json()

    done, again = serve(tmp_path, scenario)
    assert done["status"] == "done" and done["analysis"]["decisions"][0]["label"] == "blunder"
    assert again == done


def test_a_player_runs_one_analysis_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis, "MAX_RUNNING", 1)

    async def scenario(http: httpx.AsyncClient) -> tuple[int, dict[str, Any], int]:
        ann = await guest(http, "Ann")
        await http.post("/api/games/g1/analysis", headers=ann)
        jobs = http._transport.app.state.analyses  # type: ignore[attr-defined]
        jobs["g2"] = jobs.pop("g1")  # still running, under another game's name
        again = await http.post("/api/games/g1/analysis", headers=ann)
        other = await guest(http, "Bo")
        busy = await http.post("/api/games/g1/analysis", headers=other)
        while jobs["g2"].status == "running":
            await asyncio.sleep(0.05)
        return again.status_code, again.json(), busy.status_code

    status, body, busy = serve(tmp_path, scenario)
    assert (status, body["code"]) == (429, "rate_limited")
    assert "one analysis at a time" in body["message"]
    assert busy == 429


def test_puzzles_are_served_and_answers_checked_by_the_solver(tmp_path: Path) -> None:
    puzzle = starter_set()[0]

    async def scenario(http: httpx.AsyncClient) -> list[httpx.Response]:
        one = await http.get(f"/api/puzzles/{puzzle.id}")
        wrong = next(c for c in one.json()["choices"] if " ".join(c) != puzzle.solution)
        return [
            await http.get("/api/puzzles"),
            one,
            await http.post(
                f"/api/puzzles/{puzzle.id}/answer", json={"cards": puzzle.solution.split()}
            ),
            await http.post(f"/api/puzzles/{puzzle.id}/answer", json={"cards": wrong}),
            await http.post(f"/api/puzzles/{puzzle.id}/answer", json={"cards": ["3x"]}),
            await http.get("/api/puzzles/nope"),
            await http.get(f"/puzzles/{puzzle.id}"),
        ]

    listing, one, right, wrong, bad, missing, page = serve(tmp_path, scenario)
    assert [p["id"] for p in listing.json()] == [p.id for p in starter_set()]
    view = one.json()
    assert view["seat"] == puzzle.seat and puzzle.solution.split() in view["choices"]
    assert right.json()["correct"] is True
    assert right.json()["line"][0] == {"seat": puzzle.seat, "cards": puzzle.solution.split()}
    assert wrong.json()["correct"] is False
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_answer")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    assert page.status_code == 200 and '<main id="page"' in page.text
