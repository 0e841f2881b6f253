"""Analysis of finished games and puzzles, for the browser (docs/analysis.md).

- ``POST /api/games/{id}/analysis`` starts the review of a finished game
  (:mod:`tienlen.analysis.review`): one decision at a time in the bots' worker pool, so a
  review never holds up a table's bots for long; ``GET`` the same path says how far it is and,
  once done, gives the analysis (the ``tienlen analyse --json`` form of one game). A player
  runs one review at a time and a node a few; a review once done is stored with the game in
  the database (a restart, or another node of a cluster, serves it) and served to everyone.
- ``GET /api/puzzles`` lists the shipped puzzles, ``GET /api/puzzles/{id}`` gives one (every
  hand, the pile, the legal choices: the browser holds no rule), and
  ``POST /api/puzzles/{id}/answer`` checks an answer with the open-hands solver and gives a
  winning line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncSession

from tienlen import GameRecord
from tienlen.analysis.decisions import DEFAULT_SAMPLES
from tienlen.analysis.puzzles import Puzzle, check_data, starter_set
from tienlen.analysis.review import decisions_of, review_decision_data, summary
from tienlen.cards import cards_of_mask, format_cards, mask_of, parse_cards

from .. import history
from ..deps import Me, Node
from ..node import Server
from ..tables import Refused
from ..views import mask_ids
from .pages import STATIC

__all__ = ["MAX_RUNNING", "Answer", "router"]

router = APIRouter()
log = logging.getLogger("tienlen.server")


def _shell() -> FileResponse:
    return FileResponse(STATIC / "index.html")


# The puzzle pages are the browser's shell, whose script reads the path (static/js/puzzle.js).
for _path in ("/puzzles", "/puzzles/{puzzle_id}"):
    router.add_api_route(_path, _shell, methods=["GET"], include_in_schema=False)

#: Reviews a node runs at once (each one decision at a time in the bots' pool).
MAX_RUNNING = 2


@dataclass
class Job:
    """One game's review: its progress, and its analysis once done."""

    player: str
    total: int
    seats: tuple[int, ...]
    decisions: list[dict[str, Any]] = field(default_factory=list)
    failed: str | None = None
    started: float = field(default_factory=time.monotonic)
    task: asyncio.Task[None] | None = None
    finished: bool = False
    """Every decision reviewed and the analysis stored (or its store failed): done."""

    @property
    def status(self) -> str:
        """``running``, ``done`` or ``failed``."""
        if self.failed is not None:
            return "failed"
        return "done" if self.finished else "running"

    def view(self, game_id: str) -> dict[str, Any]:
        """What ``GET`` answers."""
        out: dict[str, Any] = {
            "game": game_id,
            "status": self.status,
            "done": len(self.decisions),
            "total": self.total,
        }
        if self.failed is not None:
            out["message"] = self.failed
        if self.status == "done":
            out["analysis"] = self.analysis()
        return out

    def analysis(self) -> dict[str, Any]:
        """The finished analysis (one game of ``tienlen analyse --json``)."""
        return {
            "samples": DEFAULT_SAMPLES,
            "seats": list(self.seats),
            "players": summary(self.seats, self.decisions),
            "decisions": self.decisions,
        }


def _done(game_id: str, analysis: dict[str, Any]) -> dict[str, Any]:
    """What ``GET`` answers for a stored analysis."""
    n = len(analysis["decisions"])
    return {"game": game_id, "status": "done", "done": n, "total": n, "analysis": analysis}


def _jobs(request: Request) -> dict[str, Job]:
    """This app's reviews, by game id."""
    state = request.app.state
    jobs: dict[str, Job] | None = getattr(state, "analyses", None)
    if jobs is None:
        jobs = state.analyses = {}
    return jobs


async def _known(srv: Server, jobs: dict[str, Job], game_id: str) -> dict[str, Any] | None:
    """What is known of a game's review: the stored analysis, else this node's job (taken
    before the database is read: a job that ends meanwhile leaves the memory once stored)."""
    job = jobs.get(game_id)
    stored = await history.game_analysis(srv.sessions, game_id)
    if stored is not None:
        return _done(game_id, stored)
    return None if job is None else job.view(game_id)


async def _run(
    job: Job,
    srv: Server,
    jobs: dict[str, Job],
    game_id: str,
    record: dict[str, Any],
    numbers: list[int],
) -> None:
    """Review the game's decisions, then store the analysis with the game and forget the job
    (the database serves it from then on; if the store fails, this node's memory does)."""
    loop = asyncio.get_running_loop()
    try:
        for number in numbers:
            job.decisions.append(
                await loop.run_in_executor(
                    srv.pool, review_decision_data, record, number, DEFAULT_SAMPLES, game_id
                )
            )
    except Exception as e:  # a broken pool, a stopping server: the review says so
        job.failed = f"the analysis stopped: {type(e).__name__}"
        return
    analysis = job.analysis()

    async def store(s: AsyncSession) -> None:
        await history.store_analysis(s, game_id, analysis)

    try:
        await srv.writer.write(store)
    except Exception as e:
        log.warning("game %s: its analysis was not stored (%s)", game_id, e)
    else:
        if jobs.get(game_id) is job:
            del jobs[game_id]
    finally:
        job.finished = True


@router.post("/api/games/{game_id}/analysis")
async def start_analysis(game_id: str, request: Request, srv: Node, me: Me) -> dict[str, Any]:
    """Start reviewing a finished game (every seat), unless it is reviewed or under way."""
    jobs = _jobs(request)
    known = await _known(srv, jobs, game_id)
    if known is not None and known["status"] != "failed":
        return known
    running = [j for j in jobs.values() if j.status == "running"]
    if any(j.player == me.id for j in running):
        raise Refused("rate_limited", "one analysis at a time: wait for yours to finish")
    if len(running) >= MAX_RUNNING:
        raise Refused("rate_limited", "the server is busy with other analyses: try again soon")
    data = await history.game_record(srv.sessions, game_id)
    record = GameRecord.from_dict(data)
    numbers = decisions_of(record)
    seats = tuple(range(record.rules.players))
    job = jobs[game_id] = Job(me.id, len(numbers), seats)
    job.task = asyncio.create_task(_run(job, srv, jobs, game_id, data, numbers))
    return job.view(game_id)


@router.get("/api/games/{game_id}/analysis")
async def analysis_of(game_id: str, request: Request, srv: Node) -> dict[str, Any]:
    """How far a game's review is; once done, the analysis (stored with the game)."""
    known = await _known(srv, _jobs(request), game_id)
    if known is None:
        return {"game": game_id, "status": "none", "done": 0, "total": 0}
    return known


# --- puzzles ---------------------------------------------------------------------------------
@cache
def _puzzles() -> dict[str, Puzzle]:
    return {p.id: p for p in starter_set()}


def _puzzle(puzzle_id: str) -> Puzzle:
    found = _puzzles().get(puzzle_id)
    if found is None:
        raise Refused("not_found", f"no puzzle {puzzle_id[:40]!r}")
    return found


@router.get("/api/puzzles")
async def puzzles() -> list[dict[str, Any]]:
    """The puzzles, easiest first: id, difficulty, rating."""
    return [
        {"id": p.id, "difficulty": p.difficulty, "rating": p.rating, "depth": p.depth}
        for p in _puzzles().values()
    ]


@router.get("/api/puzzles/{puzzle_id}")
async def puzzle(puzzle_id: str) -> dict[str, Any]:
    """One puzzle: every hand, the pile, who is out, the seat to find the play for and its
    legal choices (``[]`` is the pass)."""
    p = _puzzle(puzzle_id)
    game = p.game()
    return {
        "id": p.id,
        "difficulty": p.difficulty,
        "rating": p.rating,
        "rules": p.rules.code(),
        "source": p.source,
        "seat": game.turn,
        "hands": [mask_ids(h) for h in game.hand_masks],
        "pile": [{"seat": a.seat, "cards": mask_ids(a.move.mask)} for a in game.pile],
        "out": list(game.finish_order),
        "choices": [mask_ids(m.mask) for m in game.legal_plays()],
    }


class Answer(BaseModel):
    """``POST /api/puzzles/{id}/answer``: the cards played (``[]``: pass)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    cards: list[str]


@router.post("/api/puzzles/{puzzle_id}/answer")
async def answer(puzzle_id: str, body: Answer, srv: Node) -> dict[str, Any]:
    """Whether the answer forces the win, the solution and a winning line."""
    p = _puzzle(puzzle_id)
    if len(body.cards) > 20:
        raise Refused("bad_answer", "a play has at most 20 cards")
    try:
        mask = mask_of(parse_cards(" ".join(body.cards)))
    except ValueError as e:
        raise Refused("bad_answer", str(e)) from None
    text = format_cards(cards_of_mask(mask), ascii=True) or "pass"
    if mask not in {m.mask for m in p.game().legal_plays()}:
        raise Refused("bad_answer", f"{text!r} is not a legal choice here")
    loop = asyncio.get_running_loop()
    correct = await loop.run_in_executor(srv.pool, check_data, p.to_dict(), text)
    return {
        "correct": correct,
        "solution": mask_ids(mask_of(parse_cards(p.solution))) if p.solution != "pass" else [],
        "line": [
            {"seat": seat, "cards": [] if move == "pass" else mask_ids(mask_of(parse_cards(move)))}
            for seat, move in p.line
        ],
    }
