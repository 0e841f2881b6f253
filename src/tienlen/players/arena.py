"""The arena: many games between bots, with duplicate deals, statistics and ratings.

A run plays ``deals`` deals; every deal is replayed once per seat rotation, so each entry
plays each hand of the deal from each seat (``games = deals × players``). Deals and bots
are seeded from the run's seed, the deal number and the rotation, so the figures do not
depend on how many worker processes shared the work, nor on where they ran: the deals go
to an :class:`~tienlen.players.executors.Executor` (local processes, or Ray tasks).

Statistics per entry (see :func:`entry_stats`):

- win rate (first out) and loss rate (last): 95% Wilson score interval over the games;
- mean finishing position (1 = first) and mean score (:func:`tienlen.scoring.score`): 95%
  normal interval whose standard error is computed from the per-deal means. The rotated
  games of one deal share the cards, so they are not independent; treating each deal as one
  observation accounts for that. Rates use the games as if independent: for an entry that
  plays every hand of a deal this is conservative (the deal's luck cancels out).

Decision time: the seconds each entry took per decision it was asked (forced moves are not
asked), as the median and the 99th percentile; a ``cmd:`` bot's includes the exchange with
its process.

Labels: a built-in bot is labelled by its spec, a ``cmd:`` bot by the name it gives in its
hello (``cmd:my-bot``); a label that would be shown twice is numbered (``greedy#1``).

Ratings: openskill's Plackett-Luce model (each game a free-for-all ranked by finishing
position, entries processed in deal and rotation order), shown as mu, sigma and the
conservative ordinal mu − 3·sigma. Skipped when openskill is not installed.
"""

from __future__ import annotations

import math
import multiprocessing.util
import os
import secrets
import shlex
import shutil
import signal
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.inputs import quote_value
from tienlen.observation import Observation, observe
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.executors import Executor, LocalExecutor, RayExecutor
from tienlen.players.protocol import ProtocolError, ProtocolPlayer
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules
from tienlen.scoring import score
from tienlen.text import NAME_CHARS, printable

__all__ = [
    "ArenaResult",
    "EntryStats",
    "GameOutcome",
    "entry_labels",
    "entry_stats",
    "play_game",
    "ratings",
    "run_arena",
    "wilson",
]

Z95 = 1.959963984540054
_NO_BUDGET = Budget()


def _program_name(command: str) -> str:
    """What to call a bot command: its script (the first argument that is a file, as in
    ``python bots/mine.py``), else its last word."""
    try:
        args = shlex.split(command)
    except ValueError:
        args = command.split()
    if not args:
        return command
    script = next((a for a in args[1:] if os.path.isfile(a)), args[-1])
    return printable(os.path.basename(script) or script, limit=NAME_CHARS)


def entry_labels(specs: Sequence[str], names: Sequence[str] | None = None) -> list[str]:
    """Display labels, one per entry: the spec of a built-in bot; for a ``cmd:`` bot,
    ``cmd:`` and its name (``names[e]``, the one its hello gave; without ``names``, its
    program's). A label used more than once gets ``#1``, ``#2`` … (``greedy#2``)."""
    bases = []
    for e, spec in enumerate(specs):
        if spec.startswith("cmd:"):
            name = names[e] if names is not None and names[e] else _program_name(spec[4:])
            bases.append("cmd:" + name)
        else:
            bases.append(spec)
    return [
        f"{base}#{bases[: e + 1].count(base)}" if bases.count(base) > 1 else base
        for e, base in enumerate(bases)
    ]


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One finished game of a run, seen per entry (entry ``e`` sat at ``seats[e]``)."""

    deal: int
    rotation: int
    seats: tuple[int, ...]
    positions: tuple[int, ...]
    """Finishing position of each entry, 1 = first out."""
    scores: tuple[int, ...]
    """Score of each entry for this game."""
    decisions: int
    problems: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    """Each entry's player's name (a ``cmd:`` bot's from its hello)."""
    times: tuple[tuple[float, ...], ...] = field(default=(), compare=False)
    """Each entry's seconds per decision it was asked, in order (a measurement, so two
    outcomes of the same play compare equal whatever their times)."""


def play_game(
    game: Game,
    players: Sequence[Player],
    budget: Budget = _NO_BUDGET,
    *,
    on_problem: Callable[[str], None] | None = None,
    on_decision: Callable[[int, float], None] | None = None,
) -> int:
    """Play ``game`` to its end, seat ``s`` by ``players[s]``; forced moves (a single legal
    move) are made without asking. ``on_decision(seat, seconds)`` hears how long each
    decision took. Returns the number of decisions asked for."""

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        seat = game.turn
        obs = observe(game, seat)
        start = time.perf_counter()
        move, problem = choose_safely(players[seat], obs, legal, budget)
        if on_decision is not None:
            on_decision(seat, time.perf_counter() - start)
        if problem is not None and on_problem is not None:
            on_problem(f"seat {seat}: {problem}")
        return move

    return play_out(game, pick)


@dataclass(frozen=True, slots=True)
class _Job:
    rules: Rules
    specs: tuple[str, ...]
    seed: int
    deal: int
    budget: Budget
    bot_options: tuple[tuple[str, Any], ...] = ()
    bot_timeout: float = 10.0


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of a run seeded ``seed``."""
    return seed * 1_000_003 + deal


_CMD_PLAYERS: dict[int, Player] = {}
"""The external bots of this process, by entry: one process per entry (two entries with the
same command get two processes, so no program sees two hands), reused from game to game."""


class _Broken:
    """Stands in for an external bot that could not be started: every request fails."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """Fail with the reason the bot did not start."""
        raise ProtocolError(self.reason)


def _close_cmd_players() -> None:
    """Tell the external bots of this process to quit (and end their process groups)."""
    while _CMD_PLAYERS:
        _, player = _CMD_PLAYERS.popitem()
        close = getattr(player, "close", None)
        if close is not None:
            close()


def _player(entry: int, spec: str, seed: int, options: dict[str, Any], timeout: float) -> Player:
    if spec.startswith("cmd:"):
        player = _CMD_PLAYERS.get(entry)
        if player is None:
            name = _program_name(spec[4:])
            try:
                player = ProtocolPlayer(spec[4:], timeout=timeout, name=name)
            except ProtocolError as e:
                player = _Broken(name, f"did not start: {e}")
            _CMD_PLAYERS[entry] = player
        return player
    from tienlen.players.registry import make_bot, parse_spec

    name, given = parse_spec(spec)
    return make_bot(name, seed=seed, **(options.get(name, {}) | given))


def _worker_start() -> None:
    """In a worker process: end its external bots when the worker ends, also when the
    pool terminates it."""
    multiprocessing.util.Finalize(None, _close_cmd_players, exitpriority=10)
    signal.signal(signal.SIGTERM, _exit_on_term)


def _exit_on_term(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up
    raise SystemExit(128 + signum)


def _play_deal(job: _Job) -> list[GameOutcome]:
    rules = job.rules
    n = rules.players
    options = dict(job.bot_options)
    out = []
    base = deal_seed(job.seed, job.deal)
    times: list[list[float]] = [[] for _ in range(n)]  # this game's, by seat

    def timed(seat: int, seconds: float) -> None:
        times[seat].append(seconds)

    for rotation in range(n):
        # entry e sits at seat (e + rotation) % n
        seats = tuple((e + rotation) % n for e in range(n))
        by_seat: list[Player] = [None] * n  # type: ignore[list-item]
        for e, seat in enumerate(seats):
            by_seat[seat] = _player(
                e, job.specs[e], base * 64 + rotation * 8 + e, options, job.bot_timeout
            )
        game = Game(rules, seed=base)
        problems: list[str] = []
        for seat_times in times:
            seat_times.clear()
        decisions = play_game(
            game, by_seat, job.budget, on_problem=problems.append, on_decision=timed
        )
        order = game.finish_order
        points = score(game)
        out.append(
            GameOutcome(
                deal=job.deal,
                rotation=rotation,
                seats=seats,
                positions=tuple(order.index(s) + 1 for s in seats),
                scores=tuple(points[s] for s in seats),
                decisions=decisions,
                problems=tuple(problems),
                names=tuple(str(getattr(by_seat[s], "name", "")) for s in seats),
                times=tuple(tuple(times[s]) for s in seats),
            )
        )
    return out


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _mean_ci(per_deal: Sequence[float]) -> tuple[float, float, float]:
    m = statistics.fmean(per_deal) if per_deal else float("nan")
    if len(per_deal) < 2:
        return (m, float("nan"), float("nan"))
    half = Z95 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))
    return (m, m - half, m + half)


def _percentile(values: Sequence[float], p: int) -> float:
    """The ``p``-th percentile of ``values`` (linear between the order statistics; nan for
    none)."""
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


@dataclass(frozen=True, slots=True)
class EntryStats:
    """The figures of one entry; each ``*_ci`` is a 95% interval ``(low, high)``."""

    label: str
    games: int
    wins: int
    losses: int
    win_rate: float
    win_ci: tuple[float, float]
    loss_rate: float
    loss_ci: tuple[float, float]
    mean_position: float
    position_ci: tuple[float, float]
    mean_score: float
    score_ci: tuple[float, float]
    decisions: int
    """Decisions the entry was asked for (forced moves are not asked)."""
    decision_ms_median: float
    decision_ms_p99: float
    """Milliseconds per decision: the median and the 99th percentile (nan: none asked)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "label": self.label,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "win_rate_ci95": list(self.win_ci),
            "loss_rate": self.loss_rate,
            "loss_rate_ci95": list(self.loss_ci),
            "mean_position": self.mean_position,
            "mean_position_ci95": list(self.position_ci),
            "mean_score": self.mean_score,
            "mean_score_ci95": list(self.score_ci),
            "decisions": self.decisions,
            "decision_ms_median": self.decision_ms_median,
            "decision_ms_p99": self.decision_ms_p99,
        }


def entry_stats(
    labels: Sequence[str], outcomes: Sequence[GameOutcome], players: int
) -> list[EntryStats]:
    """Per-entry figures of a run (see the module docstring for the intervals)."""
    out = []
    for e, label in enumerate(labels):
        games = len(outcomes)
        wins = sum(1 for o in outcomes if o.positions[e] == 1)
        losses = sum(1 for o in outcomes if o.positions[e] == players)
        by_deal_pos: dict[int, list[int]] = {}
        by_deal_score: dict[int, list[int]] = {}
        for o in outcomes:
            by_deal_pos.setdefault(o.deal, []).append(o.positions[e])
            by_deal_score.setdefault(o.deal, []).append(o.scores[e])
        pos = _mean_ci([statistics.fmean(v) for v in by_deal_pos.values()])
        sc = _mean_ci([statistics.fmean(v) for v in by_deal_score.values()])
        ms = [1000 * t for o in outcomes if o.times for t in o.times[e]]
        # The per-deal means weigh deals equally; with every rotation played, that is the
        # plain mean over games.
        out.append(
            EntryStats(
                label=label,
                games=games,
                wins=wins,
                losses=losses,
                win_rate=wins / games if games else float("nan"),
                win_ci=wilson(wins, games),
                loss_rate=losses / games if games else float("nan"),
                loss_ci=wilson(losses, games),
                mean_position=pos[0],
                position_ci=(pos[1], pos[2]),
                mean_score=sc[0],
                score_ci=(sc[1], sc[2]),
                decisions=len(ms),
                decision_ms_median=statistics.median(ms) if ms else float("nan"),
                decision_ms_p99=_percentile(ms, 99),
            )
        )
    return out


def ratings(labels: Sequence[str], outcomes: Iterable[GameOutcome]) -> list[dict[str, Any]] | None:
    """openskill Plackett-Luce ratings, best first (``None`` if openskill is missing)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    current = [model.rating(name=label) for label in labels]
    for o in outcomes:
        teams = [[r] for r in current]
        rated = model.rate(teams, ranks=list(o.positions))
        current = [team[0] for team in rated]
    rows = sorted(zip(labels, current, strict=True), key=lambda lr: -(lr[1].mu - 3 * lr[1].sigma))
    return [
        {"label": label, "mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma}
        for label, r in rows
    ]


@dataclass
class ArenaResult:
    """Everything a run produced."""

    rules: Rules
    specs: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int
    budget: Budget
    outcomes: list[GameOutcome] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1

    @property
    def problems(self) -> list[str]:
        """Every fallback the run needed, as log lines."""
        return [
            f"deal {o.deal} rotation {o.rotation} {p}" for o in self.outcomes for p in o.problems
        ]

    def stats(self) -> list[EntryStats]:
        """Per-entry figures."""
        return entry_stats(self.labels, self.outcomes, self.rules.players)

    def ratings(self) -> list[dict[str, Any]] | None:
        """The rating table (see :func:`ratings`)."""
        return ratings(self.labels, self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        """The figures, for ``--json``."""
        decisions = sum(o.decisions for o in self.outcomes)
        return {
            "rules": self.rules.to_dict(),
            "rules_code": self.rules.code(),
            "bots": list(self.specs),
            "labels": list(self.labels),
            "seed": self.seed,
            "budget": {"seconds": self.budget.seconds, "iterations": self.budget.iterations},
            "games": len(self.outcomes),
            "deals": len({o.deal for o in self.outcomes}),
            "seconds": self.seconds,
            "jobs": self.jobs,
            "decisions": decisions,
            "problems": len(self.problems),
            "problem_lines": self.problems,
            "method": {
                "rates": "95% Wilson score interval over games",
                "means": "95% normal interval, standard error over per-deal means",
                "ratings": (
                    "openskill PlackettLuce, games in deal/rotation order; ordinal = mu - 3 sigma"
                ),
                "decision_ms": "milliseconds per decision asked: median and 99th percentile",
            },
            "entries": [s.to_dict() for s in self.stats()],
            "ratings": self.ratings(),
        }


def _check_command(command: str) -> None:
    """Refuse a ``cmd:`` entry that names no program that can be found."""
    try:
        args = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"bad bot command {quote_value(command)}: {e}") from None
    if not args:
        raise ValueError("a cmd: entry needs a command after 'cmd:'")
    if shutil.which(args[0]) is None:
        raise ValueError(
            f"bot program {quote_value(args[0])} not found (in cmd:{quote_value(command)})"
        )


def run_arena(
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int | None = None,
    jobs: int = 1,
    budget: Budget = _NO_BUDGET,
    bot_options: dict[str, dict[str, Any]] | None = None,
    bot_timeout: float = 10.0,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> ArenaResult:
    """Play at least ``games`` games (rounded up to whole deals: every deal is played once
    per seat rotation) between the bots ``specs`` (registry names or ``cmd:COMMAND``), one
    per seat. ``seed`` makes the run reproducible (``None``: a random seed, kept in the
    result). ``jobs`` worker processes share the deals; ``progress(done, total)`` is
    called as games finish. ``bot_timeout`` is a ``cmd:`` bot's time for its greeting and,
    beyond ``budget``, for each answer (:class:`~tienlen.players.protocol.ProtocolPlayer`).
    ``executor``: where the deals are played instead (such as a
    :class:`~tienlen.players.executors.RayExecutor`; the caller closes it), ``jobs`` then
    unused; ``cmd:`` bots play only in local processes."""
    n = rules.players
    if len(specs) != n:
        raise ValueError(f"{len(specs)} bots given for {n} players: name one bot per seat")
    from tienlen.players.registry import BOTS, make_bot, parse_spec

    for spec in specs:
        if spec.startswith("cmd:"):
            continue
        if spec.split(":")[0] not in BOTS:
            raise ValueError(f"unknown bot {spec!r}; use one of {', '.join(BOTS)} or 'cmd:PROGRAM'")
        name, given = parse_spec(spec)
        try:  # a bad option is refused here, not in every worker
            make_bot(name, **((bot_options or {}).get(name, {}) | given))
        except TypeError as e:
            raise ValueError(f"bad options in bot spec {spec!r}: {e}") from None
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs!r}")
    for spec in specs:
        if spec.startswith("cmd:"):
            _check_command(spec[4:])
            if isinstance(executor, RayExecutor):
                raise ValueError(
                    f"{quote_value(spec)}: a cmd: bot runs on this machine only, not on Ray"
                )
    if seed is None:
        seed = secrets.randbelow(1 << 32)
    deals = -(-games // n)
    total = deals * n
    options = tuple(sorted((bot_options or {}).items()))
    if not 0 < bot_timeout < math.inf:
        raise ValueError(f"bot_timeout must be a positive number of seconds, not {bot_timeout!r}")
    work = [_Job(rules, tuple(specs), seed, d, budget, options, bot_timeout) for d in range(deals)]
    own = executor is None
    ex = LocalExecutor(jobs, initializer=_worker_start) if executor is None else executor
    labels = tuple(entry_labels(specs))
    result = ArenaResult(rules, tuple(specs), labels, seed, budget, jobs=ex.workers)
    start = time.perf_counter()
    done = 0
    if progress is not None:
        progress(0, total)
    try:
        for outcomes in ex.start(_play_deal, work).as_finished():
            result.outcomes.extend(outcomes)
            done += n
            if progress is not None:
                progress(done, total)
    except BaseException:
        if own:
            ex.terminate()  # SIGTERM: a worker still closes its bots on the way out
        raise
    finally:
        _close_cmd_players()  # those of this process (one job plays here)
    if own:
        ex.close()  # the workers end normally and close their bots
    result.outcomes.sort(key=lambda o: (o.deal, o.rotation))
    result.seconds = time.perf_counter() - start
    if result.outcomes:  # a cmd: bot is labelled by the name its hello gave
        result.labels = tuple(entry_labels(specs, result.outcomes[0].names))
    return result
