"""Deep Monte-Carlo self-play training of the ``learned`` bot, in numpy.

Each round, self-play workers play whole games with the current network at every seat
(epsilon-greedy over ``Q(observation, move)``, choosing among the ``heuristic`` bot's best
``candidates``), or, with ``opponents``, some seats taken by registry bots (which then
explore with the same epsilon); an exploring decision plays a random move among the
``heuristic`` bot's best ``explore_top`` (or among all). Every decision becomes a sample
``(observation, chosen move, the seat's outcome)``: its final return, or with
``win_weight`` whether it won. The network is then regressed on
the new samples (mean squared error, Adam, one pass in shuffled mini-batches): the Monte-
Carlo targets need no bootstrapping, and the move features let one network score any
number of legal moves. A checkpoint is written every ``checkpoint_every`` frames (decisions)
and at the end, each evaluated through the arena against the bot ladder; the training
state (optimiser moments, counters, the generator) is saved beside it so a run resumes
where it stopped.

Files in the output folder: ``ckpt-FRAMES.npz`` (weights, loadable by
``make_bot("learned", weights=PATH)``), ``latest.npz`` and ``best.npz`` (the checkpoint with
the best win rate against the last bot of the evaluation list), ``state.npz`` and
``log.jsonl`` (one JSON line per checkpoint: frames, games, seconds, loss, evaluation).
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.arena import run_arena
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.bots.learned import CANDIDATES, FEATURE_DIM, RANK_COLUMN, QNet, move_features
from tienlen.players.encoding import OBS_DIM, encode_observation
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules

from . import deal, new_rng, resolve_rules, returns

__all__ = ["TrainConfig", "Trainer", "train"]

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class TrainConfig:
    """The knobs of a training run (all saved with its state)."""

    rules: str = "standard"
    players: int | None = None
    seed: int = 0
    workers: int = 1
    hidden: tuple[int, int] = (256, 128)
    games_per_round: int = 16
    batch: int = 256
    lr: float = 5e-4
    epsilon: float = 0.05
    checkpoint_every: int = 50_000
    eval_bots: tuple[str, ...] = ("random", "greedy", "heuristic")
    eval_games: int = 200
    eval_seed: int = 12
    opponents: tuple[str, ...] = ()
    """Registry bots that may take seats in training games (none: pure self-play)."""
    mix: float = 0.5
    """The chance that a seat goes to one of ``opponents`` rather than the network."""
    explore_top: int = 0
    """Exploring moves are drawn from the ``heuristic`` bot's best this many (0: any move)."""
    win_weight: float = 0.0
    """The target is ``(1 - win_weight) * return + win_weight * (±1 for a win or not)``."""
    candidates: int | None = CANDIDATES
    """The network chooses among the ``heuristic`` bot's best this many moves (``None``: all),
    in training games and in the evaluations (the ``learned`` bot's ``candidates``)."""


@dataclass(frozen=True)
class _Job:
    rules: str
    players: int | None
    params: dict[str, FloatArray]
    epsilon: float
    seed: int
    games: int
    opponents: tuple[str, ...]
    mix: float
    explore_top: int = 0
    win_weight: float = 0.0
    candidates: int | None = None


def _play_game(
    game: Game, seats: Sequence[Player | None], net: QNet, job: _Job, rng: np.random.Generator
) -> list[list[tuple[FloatArray, FloatArray]]]:
    """Play ``game`` out (``None`` seats: the network); each seat's (observation, move)
    features of every decision it was asked for."""
    budget = Budget()
    steps: list[list[tuple[FloatArray, FloatArray]]] = [[] for _ in seats]

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        seat = game.turn
        view = observe(game, seat)
        o, m = encode_observation(view), move_features(view, legal)
        player = seats[seat]
        if rng.random() < job.epsilon:
            pool = len(legal) if job.explore_top <= 0 else min(job.explore_top, len(legal))
            i = int(np.argsort(-m[:, RANK_COLUMN], kind="stable")[rng.integers(pool)])
        elif player is None:
            i = net.best(o, m, job.candidates)
        else:
            i = legal.index(choose_safely(player, view, legal, budget)[0])
        steps[seat].append((o, m[i]))
        return legal[i]

    play_out(game, pick)
    return steps


def _play(job: _Job) -> tuple[FloatArray, FloatArray, FloatArray, int]:
    """Play ``job.games`` games; the samples as ``(observations, moves, targets, games)``.
    Each seat is the network, or with probability ``job.mix`` one of ``job.opponents``;
    every seat's decisions are samples (a bot's moves teach their value too). With
    probability ``job.epsilon`` a decision explores: a random move among the
    ``heuristic`` bot's best ``job.explore_top`` (0: among all legal moves)."""
    rng = np.random.default_rng(job.seed)
    net = QNet(job.params)
    bots = [make_bot(name) for name in job.opponents]
    rules = resolve_rules(job.rules, job.players)
    deals = new_rng(job.seed)
    obs: list[FloatArray] = []
    acts: list[FloatArray] = []
    targets: list[float] = []
    for _ in range(job.games):
        seats: list[Player | None] = [
            bots[int(rng.integers(len(bots)))] if bots and rng.random() < job.mix else None
            for _ in range(rules.players)
        ]
        game = deal(rules, deals)
        steps = _play_game(game, seats, net, job, rng)
        payoffs = returns(game)
        winner = game.finish_order[0] if game.finish_order else -1
        for seat, taken in enumerate(steps):
            won = 1.0 if seat == winner else -1.0
            target = (1.0 - job.win_weight) * payoffs[seat] + job.win_weight * won
            for o, a in taken:
                obs.append(o)
                acts.append(a)
                targets.append(target)
    return (
        np.asarray(obs, np.float32).reshape(-1, OBS_DIM),
        np.asarray(acts, np.float32).reshape(-1, FEATURE_DIM),
        np.asarray(targets, np.float32),
        job.games,
    )


class _Adam:
    def __init__(self, params: dict[str, FloatArray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, FloatArray], grads: dict[str, FloatArray]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        scale = self.lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            params[k] -= (scale * self.m[k] / (np.sqrt(self.v[k]) + 1e-8)).astype(np.float32)


def loss_and_grads(
    params: dict[str, FloatArray], obs: FloatArray, acts: FloatArray, targets: FloatArray
) -> tuple[float, dict[str, FloatArray]]:
    """Mean squared error of the network on a batch, and its gradient by layer."""
    z1 = obs @ params["w1o"] + acts @ params["w1a"] + params["b1"]
    h1 = np.maximum(z1, 0.0)
    z2 = h1 @ params["w2"] + params["b2"]
    h2 = np.maximum(z2, 0.0)
    q = (h2 @ params["w3"] + params["b3"])[:, 0]
    err = q - targets
    n = len(targets)
    dq = (2.0 / n) * err[:, None]
    grads = {"w3": h2.T @ dq, "b3": dq.sum(axis=0)}
    dz2 = (dq @ params["w3"].T) * (z2 > 0)
    grads["w2"], grads["b2"] = h1.T @ dz2, dz2.sum(axis=0)
    dz1 = (dz2 @ params["w2"].T) * (z1 > 0)
    grads["w1o"], grads["w1a"], grads["b1"] = obs.T @ dz1, acts.T @ dz1, dz1.sum(axis=0)
    return float(np.mean(err * err)), {k: v.astype(np.float32) for k, v in grads.items()}


@dataclass
class Trainer:
    """A training run writing to ``out`` (resumed from ``out/state.npz`` if present)."""

    config: TrainConfig
    out: Path
    net: QNet = field(init=False)
    frames: int = 0
    games: int = 0
    rounds: int = 0
    seconds: float = 0.0
    best: float = -1.0
    last_loss: float = float("nan")
    next_checkpoint: int = 0

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.rules: Rules = resolve_rules(self.config.rules, self.config.players)
        self.net = QNet.init(self.config.hidden, seed=self.config.seed)
        self.net.meta = {"rules": self.rules.name, "players": self.rules.players}
        self.adam = _Adam(self.net.params, self.config.lr)
        self.rng = np.random.default_rng(self.config.seed)
        self.next_checkpoint = self.config.checkpoint_every
        if (self.out / "state.npz").exists():
            self._load_state()

    # --- state ----------------------------------------------------------------------------
    def _save_state(self) -> None:
        arrays: dict[str, Any] = dict(self.net.params)
        arrays.update({f"adam_m_{k}": v for k, v in self.adam.m.items()})
        arrays.update({f"adam_v_{k}": v for k, v in self.adam.v.items()})
        counters = {
            "frames": self.frames,
            "games": self.games,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "best": self.best,
            "next_checkpoint": self.next_checkpoint,
            "adam_t": self.adam.t,
            "rng": self.rng.bit_generator.state,
            "config": asdict(self.config),
        }
        arrays["counters"] = np.asarray(json.dumps(counters))
        tmp = self.out / "state.tmp.npz"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        tmp.replace(self.out / "state.npz")

    def _load_state(self) -> None:
        with np.load(self.out / "state.npz", allow_pickle=False) as data:
            counters = json.loads(str(data["counters"]))
            for k in self.net.params:
                self.net.params[k] = data[k].astype(np.float32)
                self.adam.m[k] = data[f"adam_m_{k}"]
                self.adam.v[k] = data[f"adam_v_{k}"]
        saved = counters["config"]
        if saved["rules"] != self.config.rules or tuple(saved["hidden"]) != self.config.hidden:
            raise ValueError(
                f"{self.out} holds a run for rules {saved['rules']!r} and hidden "
                f"{saved['hidden']!r}: resume it with the same settings or use another --out"
            )
        self.frames, self.games = counters["frames"], counters["games"]
        self.rounds = counters["rounds"]
        self.seconds, self.best = counters["seconds"], counters["best"]
        self.next_checkpoint, self.adam.t = counters["next_checkpoint"], counters["adam_t"]
        self.rng.bit_generator.state = counters["rng"]

    # --- the loop -------------------------------------------------------------------------
    def _collect(self, pool: Any) -> tuple[FloatArray, FloatArray, FloatArray, int]:
        cfg = self.config
        per = -(-cfg.games_per_round // cfg.workers)
        jobs = [
            _Job(
                self.rules.name,
                cfg.players,
                self.net.params,
                cfg.epsilon,
                int(self.rng.integers(1 << 31)),
                per,
                cfg.opponents,
                cfg.mix,
                cfg.explore_top,
                cfg.win_weight,
                cfg.candidates,
            )
            for _ in range(cfg.workers)
        ]
        parts = pool.map(_play, jobs) if pool is not None else [_play(j) for j in jobs]
        return (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]),
            sum(p[3] for p in parts),
        )

    def _learn(self, obs: FloatArray, acts: FloatArray, targets: FloatArray) -> float:
        order = self.rng.permutation(len(targets))
        losses = []
        for start in range(0, len(order), self.config.batch):
            idx = order[start : start + self.config.batch]
            loss, grads = loss_and_grads(self.net.params, obs[idx], acts[idx], targets[idx])
            self.adam.step(self.net.params, grads)
            losses.append(loss)
        return float(np.mean(losses)) if losses else float("nan")

    def evaluate(self, weights: Path) -> dict[str, dict[str, Any]]:
        """Win rate (95% interval) of the weights against three of each evaluation bot."""
        cfg = self.config
        out = {}
        for bot in cfg.eval_bots:
            specs = ["learned"] + [bot] * (self.rules.players - 1)
            result = run_arena(
                self.rules,
                specs,
                games=cfg.eval_games,
                seed=cfg.eval_seed,
                bot_options={"learned": {"weights": str(weights), "candidates": cfg.candidates}},
            )
            s = result.stats()[0]
            out[bot] = {
                "games": s.games,
                "win_rate": s.win_rate,
                "win_ci95": list(s.win_ci),
                "mean_position": s.mean_position,
            }
        return out

    def checkpoint(self) -> dict[str, Any]:
        """Write a checkpoint, evaluate it, log it; returns the log entry."""
        path = self.out / f"ckpt-{self.frames:09d}.npz"
        self.net.meta.update({"frames": self.frames, "games": self.games, "seconds": self.seconds})
        self.net.save(path)
        shutil.copyfile(path, self.out / "latest.npz")
        evaluation = self.evaluate(path) if self.config.eval_bots else {}
        entry = {
            "frames": self.frames,
            "games": self.games,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 1),
            "loss": self.last_loss,
            "checkpoint": path.name,
            "eval": evaluation,
        }
        if evaluation:
            score = evaluation[self.config.eval_bots[-1]]["win_rate"]
            if score > self.best:
                self.best = score
                shutil.copyfile(path, self.out / "best.npz")
        with open(self.out / "log.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        self._save_state()
        return entry

    def run(
        self,
        *,
        steps: int | None = None,
        minutes: float | None = None,
        progress: Callable[[Trainer], None] | None = None,
        on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Train until ``steps`` frames in all (counting a resumed run's) or ``minutes`` of
        this call, whichever comes first; a checkpoint is written at the end."""
        if steps is None and minutes is None:
            raise ValueError("give steps or minutes (or both)")
        start = time.perf_counter()
        deadline = start + minutes * 60 if minutes is not None else float("inf")
        ctx = multiprocessing.get_context("fork")
        pool = ctx.Pool(self.config.workers) if self.config.workers > 1 else None
        try:
            while (steps is None or self.frames < steps) and time.perf_counter() < deadline:
                t0 = time.perf_counter()
                obs, acts, targets, games = self._collect(pool)
                self.last_loss = self._learn(obs, acts, targets)
                self.frames += len(targets)
                self.games += games
                self.rounds += 1
                self.seconds += time.perf_counter() - t0
                if progress is not None:
                    progress(self)
                if self.frames >= self.next_checkpoint:
                    while self.next_checkpoint <= self.frames:
                        self.next_checkpoint += self.config.checkpoint_every
                    entry = self.checkpoint()
                    if on_checkpoint is not None:
                        on_checkpoint(entry)
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
        if not (self.out / f"ckpt-{self.frames:09d}.npz").exists():
            entry = self.checkpoint()
            if on_checkpoint is not None:
                on_checkpoint(entry)


def train(
    out: str | Path,
    config: TrainConfig | None = None,
    *,
    steps: int | None = None,
    minutes: float | None = None,
    progress: Callable[[Trainer], None] | None = None,
    on_checkpoint: Callable[[dict[str, Any]], None] | None = None,
) -> Trainer:
    """Train (or resume) a run in ``out``; returns the trainer when done."""
    trainer = Trainer(config or TrainConfig(), Path(out))
    trainer.run(steps=steps, minutes=minutes, progress=progress, on_checkpoint=on_checkpoint)
    return trainer
