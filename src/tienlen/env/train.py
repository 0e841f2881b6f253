"""Training of the ``learned`` bot's move-value network, in numpy: by Deep Monte-Carlo
self-play (``method="dmc"``) or on rollout labels (``method="rollouts"``).

**dmc**: each round, self-play workers play whole games with the current network at every seat
(epsilon-greedy over ``Q(observation, move)``, choosing among the ``heuristic`` bot's best
``candidates``), or, with ``opponents``, some seats taken by registry bots (which then
explore with the same epsilon); an exploring decision plays a random move among the
``heuristic`` bot's best ``explore_top`` (or among all). Every decision becomes a sample
``(observation, chosen move, the seat's outcome)``: its final return, or with
``win_weight`` whether it won. The network is then regressed on
the new samples (mean squared error, Adam, one pass in shuffled mini-batches): the Monte-
Carlo targets need no bootstrapping, and the move features let one network score any
number of legal moves.

**rollouts**: each round, workers play games between ``heuristic`` bots (a seat goes to
the network with probability ``1 - mix``) and label their decisions by paired rollouts
from the real deal (:mod:`tienlen.env.labels`): every candidate the ``ismcts`` bot would
search at its root (the ``heuristic`` bot's best ``top`` and the pass), the network's own
choice and ``others`` random legal moves are played out, and each target is the ``ismcts``
bot's reward (``win_weight`` for a win, the rest by place).
The labelled decisions go into a buffer of the last ``buffer``; the network is then
updated on ``passes`` times as many of them, drawn from the buffer, as the round added.
Its loss compares the candidates of a decision with each other (their values less the
decision's mean), plus a tenth of the plain squared error that keeps the values on the
target's scale. The buffer is not saved: a resumed run refills it.

**Rule sets**: ``rules`` names one preset, several (comma-separated) or ``all``; each game
is dealt under one of them at random, with ``players`` seats (default: the preset's own)
or, with probability ``vary_players``, any seat count the rules allow (2-8). The network
reads the rules' knobs (:func:`~tienlen.players.encoding.encode_rules`), so one network
learns them all. ``init`` starts from existing weights (an ensemble trains every member on
the same draws).

A checkpoint is written every ``checkpoint_every`` frames (decisions)
and at the end, each evaluated through the arena against the bot ladder, on every preset
of ``rules``; the training state (optimiser moments, counters, the generator) is saved
beside it so a run resumes where it stopped.

The workers play a round while the learner updates on the one before, so a round's games
are played with the weights from before the last round's updates. The rounds and the
evaluation games go to an :class:`~tienlen.players.executors.Executor`: ``workers`` local
processes, or Ray tasks on a cluster (``tienlen train --ray ADDRESS``). A round is split into
``workers`` jobs, each seeded from the run's generator, so the same seed and the same
number of workers give the same weights wherever the jobs ran.

Files in the output folder: ``ckpt-FRAMES.npz`` (weights, loadable by
``make_bot("learned", weights=PATH)``), ``latest.npz`` and ``best.npz`` (the checkpoint with
the best win rate against the last bot of the evaluation list), ``state.npz`` and
``log.jsonl`` (one JSON line per checkpoint: frames, games, seconds, loss, evaluation by
preset and bot, and ``score``: the mean win rate against the last bot over the presets).
"""

from __future__ import annotations

import json
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
from tienlen.knobs import RulesError
from tienlen.observation import observe
from tienlen.players.arena import run_arena
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.bots.learned import (
    CANDIDATES,
    FEATURE_DIM,
    RANK_COLUMN,
    STATE_DIM,
    QNet,
    move_features,
    state_features,
)
from tienlen.players.executors import Batch, Executor, LocalExecutor
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out
from tienlen.rules import RULESETS, Rules

from . import deal, new_rng, resolve_rules, returns
from .labels import Labels, check_playout, label_games

__all__ = ["METHODS", "TrainConfig", "Trainer", "loss_and_grads", "rules_mix", "train"]

#: The training methods (see the module docstring).
METHODS = ("dmc", "rollouts")
#: Weight of the plain squared error beside the compared one (``rollouts``).
_ABSOLUTE = 0.1

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class TrainConfig:
    """The knobs of a training run (all saved with its state)."""

    rules: str = "standard"
    """A preset, several comma-separated, or ``all`` (every preset)."""
    players: int | None = None
    """Seats of every game (default: each preset's own)."""
    vary_players: float = 0.0
    """The chance that a game has instead any seat count its rules allow, drawn evenly."""
    init: str = ""
    """Weights to start from (a checkpoint, an ensemble, or weights made before the rules'
    features, which are widened): ``hidden`` is then theirs."""
    method: str = "rollouts"
    """``dmc`` or ``rollouts`` (see the module docstring)."""
    seed: int = 0
    workers: int = 1
    """The jobs a round is split into: that many local processes, or Ray tasks."""
    hidden: tuple[int, int] = (256, 128)
    games_per_round: int = 100
    batch: int = 256
    lr: float = 5e-4
    epsilon: float = 0.1
    checkpoint_every: int = 50_000
    eval_bots: tuple[str, ...] = ("random", "greedy", "heuristic")
    eval_games: int = 200
    eval_seed: int = 12
    opponents: tuple[str, ...] = ("heuristic",)
    """Registry bots that may take seats in training games (none: pure self-play)."""
    mix: float = 0.75
    """The chance that a seat goes to one of ``opponents`` rather than the network (with
    none, every seat is the network's)."""
    explore_top: int = 0
    """Exploring moves are drawn from the ``heuristic`` bot's best this many (0: any move)."""
    win_weight: float = 0.6
    """``dmc``: the target is ``(1 - win_weight) * return + win_weight * (±1 for a win or
    not)``; ``rollouts``: ``win_weight`` for first out, plus ``1 - win_weight`` times the
    share of the other seats finished below (the ``ismcts`` bot's reward)."""
    candidates: int | None = CANDIDATES
    """The network chooses among the ``heuristic`` bot's best this many moves and the pass
    (``None``: all), in ``dmc`` training games and in the evaluations (the ``learned``
    bot's ``candidates``); in ``rollouts`` games it chooses among all."""
    top: int = 3
    """``rollouts``: the ``heuristic`` bot's best this many moves (and the pass) are labelled."""
    others: int = 2
    """``rollouts``: this many more legal moves, drawn at random, are labelled too."""
    buffer: int = 1_000_000
    """``rollouts``: labelled decisions kept for the updates."""
    passes: float = 2.0
    """``rollouts``: each round draws this many times its new decisions from the buffer."""
    playout: str = "heuristic"
    """``rollouts``: who plays the deciding seat's later moves in a label's play-out: the
    ``heuristic`` bot, or the ``network`` being trained (policy iteration); the other seats
    are always the ``heuristic``'s."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, not {self.method!r}")
        check_playout(self.playout)
        if self.playout != "heuristic" and self.method != "rollouts":
            raise ValueError(f"playout {self.playout!r} is for the rollouts method only")
        if self.method == "rollouts" and set(self.opponents) - {"heuristic"}:
            raise ValueError(
                "the rollouts method plays the heuristic bot and the network only, not "
                + ", ".join(repr(o) for o in self.opponents)
            )
        rules_mix(self.rules, self.players, 0.0)  # refuses an unknown preset at once


def presets_of(rules: str) -> tuple[str, ...]:
    """The presets named by ``rules``: one, several comma-separated, or ``all``."""
    names = tuple(RULESETS) if rules == "all" else tuple(n for n in rules.split(",") if n)
    for name in names:
        if name not in RULESETS:
            raise RulesError(f"unknown preset {name!r} in rules {rules!r}")
    if not names:
        raise RulesError(f"no preset in rules {rules!r}")
    return names


def _seat_counts(rules: Rules) -> list[Rules]:
    """``rules`` for every seat count (2-8) it allows."""
    out = []
    for n in range(2, 9):
        try:
            out.append(rules.for_players(n))
        except RulesError:
            continue
    return out


def rules_mix(rules: str, players: int | None, vary_players: float) -> tuple[Rules, ...]:
    """The rules values training games are dealt under, drawn evenly from the tuple: each
    preset of ``rules`` with ``players`` seats (default its own), and with probability
    ``vary_players`` any seat count it allows (listed as often as that needs, to the
    nearest in 100)."""
    out: list[Rules] = []
    for name in presets_of(rules):
        base = resolve_rules(name, players)
        counts = _seat_counts(base)
        varied = min(max(round(100 * vary_players), 0), 100)
        if not varied:
            out.append(base)
            continue
        each, rest = divmod(varied, len(counts))
        out += [base] * (100 - varied)
        out += [r for r in counts for _ in range(each)] + counts[:rest]
    return tuple(out)


@dataclass(frozen=True)
class _Job:
    rules: tuple[Rules, ...]
    members: list[dict[str, FloatArray]]
    epsilon: float
    seed: int
    games: int
    opponents: tuple[str, ...]
    mix: float
    explore_top: int = 0
    win_weight: float = 0.0
    candidates: int | None = None
    top: int = 3
    others: int = 0
    playout: str = "heuristic"


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
        o, m = state_features(view), move_features(view, legal)
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
    net = _net(job.members)
    bots = [make_bot(name) for name in job.opponents]
    deals = new_rng(job.seed)
    obs: list[FloatArray] = []
    acts: list[FloatArray] = []
    targets: list[float] = []
    for _ in range(job.games):
        rules = job.rules[deals.randrange(len(job.rules))] if len(job.rules) > 1 else job.rules[0]
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
        np.asarray(obs, np.float32).reshape(-1, STATE_DIM),
        np.asarray(acts, np.float32).reshape(-1, FEATURE_DIM),
        np.asarray(targets, np.float32),
        job.games,
    )


def _label(job: _Job) -> Labels:
    """Label the decisions of ``job.games`` games (the ``rollouts`` method): a seat goes to
    the ``heuristic`` bot with probability ``job.mix`` when it is an opponent, else to the
    network."""
    share = 1.0 - job.mix if job.opponents else 1.0
    return label_games(
        job.rules,
        job.games,
        seed=job.seed,
        top=job.top,
        others=job.others,
        epsilon=job.epsilon,
        net=_net(job.members),
        net_share=share,
        playout=job.playout,
    )


def _net(members: list[dict[str, FloatArray]]) -> QNet:
    """The network (or ensemble) of these members' weights."""
    return QNet.ensemble([QNet(p) for p in members])


class _Buffer:
    """The last ``size`` labelled decisions (a ring), from which updates draw."""

    def __init__(self, size: int, group: int) -> None:
        self.obs = np.zeros((size, STATE_DIM), np.float16)
        self.moves = np.zeros((size, group, FEATURE_DIM), np.float16)
        self.mask = np.zeros((size, group), bool)
        self.targets = np.zeros((size, group), np.float32)
        self.size, self.filled, self.at = size, 0, 0

    def add(self, labels: Labels, targets: FloatArray) -> None:
        """Append ``labels`` (with their ``targets``), overwriting the oldest when full."""
        done = 0
        while done < len(labels):
            take = min(len(labels) - done, self.size - self.at)
            src, dst = slice(done, done + take), slice(self.at, self.at + take)
            self.obs[dst] = labels.obs[src]
            self.moves[dst] = labels.moves[src]
            self.mask[dst] = labels.mask[src]
            self.targets[dst] = targets[src]
            self.at = (self.at + take) % self.size
            self.filled = min(self.filled + take, self.size)
            done += take


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
    params: dict[str, FloatArray],
    obs: FloatArray,
    moves: FloatArray,
    mask: npt.NDArray[np.bool_],
    targets: FloatArray,
    *,
    absolute: float = 1.0,
) -> tuple[float, dict[str, FloatArray]]:
    """The network's loss on a batch of decisions, and its gradient by layer: ``obs (B,
    OBS_DIM)``, ``moves (B, G, FEATURE_DIM)`` with ``mask (B, G)`` marking the real rows,
    ``targets (B, G)``. The loss is the squared error of the values less their decision's
    mean against the targets less theirs (zero for one move a decision), plus ``absolute``
    times the plain squared error, both averaged over the real rows."""
    z1 = (obs @ params["w1o"])[:, None, :] + moves @ params["w1a"] + params["b1"]
    h1 = np.maximum(z1, 0.0)
    z2 = h1 @ params["w2"] + params["b2"]
    h2 = np.maximum(z2, 0.0)
    q = (h2 @ params["w3"] + params["b3"])[..., 0]
    real = mask.astype(np.float32)
    count = real.sum(axis=1, keepdims=True)
    count[count == 0] = 1.0
    # centred: the comparison between a decision's moves, free of how good the deal is
    centred = (
        (q - (q * real).sum(1, keepdims=True) / count)
        - (targets - (targets * real).sum(1, keepdims=True) / count)
    ) * real
    plain = (q - targets) * real
    n = max(float(real.sum()), 1.0)
    loss = float(((centred * centred).sum() + absolute * (plain * plain).sum()) / n)
    # d/dq of the centred term is 2/n × centred: its own decision mean is zero
    dq = (2.0 / n) * (centred + absolute * plain)
    hidden1, hidden2 = h1.shape[-1], h2.shape[-1]
    grads = {"w3": np.einsum("bgh,bg->h", h2, dq)[:, None], "b3": np.array([dq.sum()])}
    dz2 = dq[..., None] * params["w3"][:, 0] * (z2 > 0)
    grads["w2"] = h1.reshape(-1, hidden1).T @ dz2.reshape(-1, hidden2)
    grads["b2"] = dz2.sum(axis=(0, 1))
    dz1 = (dz2 @ params["w2"].T) * (z1 > 0)
    grads["w1a"] = moves.reshape(-1, moves.shape[-1]).T @ dz1.reshape(-1, hidden1)
    grads["w1o"] = obs.T @ dz1.sum(axis=1)
    grads["b1"] = dz1.sum(axis=(0, 1))
    return loss, {k: v.astype(np.float32) for k, v in grads.items()}


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
    buffer: _Buffer | None = None

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self.out.mkdir(parents=True, exist_ok=True)
        cfg = self.config
        self.presets = presets_of(cfg.rules)
        self.mix = rules_mix(cfg.rules, cfg.players, cfg.vary_players)
        if cfg.init:
            self.net = QNet.load(cfg.init, widen=True)
        else:
            self.net = QNet.init(cfg.hidden, seed=cfg.seed)
        self.net.meta = {"rules": cfg.rules, "players": cfg.players or 0}
        self.adams = [_Adam(p, cfg.lr) for p in self.net.members]
        self.rng = np.random.default_rng(cfg.seed)
        self.next_checkpoint = cfg.checkpoint_every
        if (self.out / "state.npz").exists():
            self._load_state()

    # --- state ----------------------------------------------------------------------------
    def _save_state(self) -> None:
        arrays: dict[str, Any] = {}
        for i, (params, adam) in enumerate(zip(self.net.members, self.adams, strict=True)):
            arrays.update({f"m{i}_{k}": v for k, v in params.items()})
            arrays.update({f"m{i}_adam_m_{k}": v for k, v in adam.m.items()})
            arrays.update({f"m{i}_adam_v_{k}": v for k, v in adam.v.items()})
        counters = {
            "frames": self.frames,
            "games": self.games,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "best": self.best,
            "next_checkpoint": self.next_checkpoint,
            "adam_t": self.adams[0].t,
            "rng": self.rng.bit_generator.state,
            "config": asdict(self.config),
        }
        arrays["counters"] = np.asarray(json.dumps(counters))
        tmp = self.out / "state.tmp.npz"
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        tmp.replace(self.out / "state.npz")

    def _load_state(self) -> None:
        cfg = self.config
        with np.load(self.out / "state.npz", allow_pickle=False) as data:
            counters = json.loads(str(data["counters"]))
            saved = counters["config"]
            mine = (cfg.rules, list(cfg.hidden), cfg.method, cfg.init)
            theirs = (saved["rules"], saved["hidden"], saved["method"], saved.get("init", ""))
            if mine != theirs:
                raise ValueError(
                    f"{self.out} holds a {saved['method']} run for rules {saved['rules']!r}, "
                    f"hidden {saved['hidden']!r} and init {saved.get('init', '')!r}: resume it "
                    "with the same settings or use another --out"
                )
            for i, (params, adam) in enumerate(zip(self.net.members, self.adams, strict=True)):
                for k in params:
                    params[k] = data[f"m{i}_{k}"].astype(np.float32)
                    adam.m[k] = data[f"m{i}_adam_m_{k}"]
                    adam.v[k] = data[f"m{i}_adam_v_{k}"]
                    adam.t = counters["adam_t"]
        self.frames, self.games = counters["frames"], counters["games"]
        self.rounds = counters["rounds"]
        self.seconds, self.best = counters["seconds"], counters["best"]
        self.next_checkpoint = counters["next_checkpoint"]
        self.rng.bit_generator.state = counters["rng"]

    # --- the loop -------------------------------------------------------------------------
    def _jobs(self) -> list[_Job]:
        cfg = self.config
        per = -(-cfg.games_per_round // cfg.workers)
        # a copy: the pool sends it while the learner updates the weights in place
        members = [{k: v.copy() for k, v in p.items()} for p in self.net.members]
        return [
            _Job(
                self.mix,
                members,
                cfg.epsilon,
                int(self.rng.integers(1 << 31)),
                per,
                cfg.opponents,
                cfg.mix,
                cfg.explore_top,
                cfg.win_weight,
                cfg.candidates,
                cfg.top,
                cfg.others,
                cfg.playout,
            )
            for _ in range(cfg.workers)
        ]

    def _start(self, executor: Executor) -> tuple[list[_Job], Batch[Any]]:
        """The next round's jobs, started on ``executor``."""
        jobs = self._jobs()
        work: Any = _label if self.config.method == "rollouts" else _play
        return jobs, executor.start(work, jobs)

    def _update(
        self,
        obs: FloatArray,
        moves: FloatArray,
        mask: npt.NDArray[np.bool_],
        targets: FloatArray,
        absolute: float,
    ) -> float:
        """One optimiser step of every member on a batch; their mean loss."""
        losses = []
        for params, adam in zip(self.net.members, self.adams, strict=True):
            loss, grads = loss_and_grads(params, obs, moves, mask, targets, absolute=absolute)
            adam.step(params, grads)
            losses.append(loss)
        return float(np.mean(losses))

    def _learn_round(self, jobs: list[_Job], parts: Any) -> tuple[int, int]:
        """Update on a round's results; the frames (decisions) and games it played."""
        if self.config.method == "rollouts":
            return self._learn_labels(parts), sum(j.games for j in jobs)
        obs, acts, targets = (np.concatenate([p[i] for p in parts]) for i in range(3))
        order = self.rng.permutation(len(targets))
        losses = []
        every = np.ones((self.config.batch, 1), bool)
        for start in range(0, len(order), self.config.batch):
            idx = order[start : start + self.config.batch]
            losses.append(
                self._update(obs[idx], acts[idx, None], every[: len(idx)], targets[idx, None], 1.0)
            )
        self.last_loss = float(np.mean(losses)) if losses else float("nan")
        return len(targets), sum(p[3] for p in parts)

    def _learn_labels(self, labelled: list[Labels]) -> int:
        """Add the labelled decisions to the buffer and update on draws from it; how many
        decisions were added."""
        cfg = self.config
        if self.buffer is None:
            self.buffer = _Buffer(cfg.buffer, cfg.top + 2 + cfg.others)
        buf = self.buffer
        added = 0
        for labels in labelled:
            buf.add(labels, labels.targets(cfg.win_weight))
            added += len(labels)
        losses = []
        for _ in range(max(1, round(cfg.passes * added / cfg.batch)) if added else 0):
            idx = self.rng.integers(buf.filled, size=cfg.batch)
            losses.append(
                self._update(
                    buf.obs[idx].astype(np.float32),
                    buf.moves[idx].astype(np.float32),
                    buf.mask[idx],
                    buf.targets[idx],
                    _ABSOLUTE,
                )
            )
        self.last_loss = float(np.mean(losses)) if losses else float("nan")
        return added

    def evaluate(
        self, weights: Path, executor: Executor | None = None
    ) -> dict[str, dict[str, dict[str, Any]]]:
        """Win rate (95% interval) of the weights against the evaluation bots, on every
        preset of the run's rules (with ``players`` seats, default the preset's own: one
        learned bot and the rest of one evaluation bot), by preset and bot; the games
        played on ``executor`` (default: in this process)."""
        cfg = self.config
        out: dict[str, dict[str, dict[str, Any]]] = {}
        # the weights travel with the games (a worker on another machine has no such file)
        net = QNet.load(weights)
        for preset in self.presets:
            rules = resolve_rules(preset, cfg.players)
            out[preset] = {}
            for bot in cfg.eval_bots:
                specs = ["learned"] + [bot] * (rules.players - 1)
                result = run_arena(
                    rules,
                    specs,
                    games=cfg.eval_games,
                    seed=cfg.eval_seed,
                    bot_options={"learned": {"weights": net, "candidates": cfg.candidates}},
                    executor=executor,
                )
                s = result.stats()[0]
                out[preset][bot] = {
                    "games": s.games,
                    "win_rate": s.win_rate,
                    "win_ci95": list(s.win_ci),
                    "mean_position": s.mean_position,
                }
        return out

    def checkpoint(self, executor: Executor | None = None) -> dict[str, Any]:
        """Write a checkpoint, evaluate it (on ``executor``), log it; returns the log
        entry."""
        path = self.out / f"ckpt-{self.frames:09d}.npz"
        self.net.meta.update({"frames": self.frames, "games": self.games, "seconds": self.seconds})
        self.net.save(path)
        shutil.copyfile(path, self.out / "latest.npz")
        evaluation = self.evaluate(path, executor) if self.config.eval_bots else {}
        entry: dict[str, Any] = {
            "frames": self.frames,
            "games": self.games,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 1),
            "loss": self.last_loss,
            "checkpoint": path.name,
            "eval": evaluation,
        }
        if evaluation:
            last = self.config.eval_bots[-1]
            score = float(np.mean([by_bot[last]["win_rate"] for by_bot in evaluation.values()]))
            entry["score"] = score
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
        executor: Executor | None = None,
    ) -> None:
        """Train until ``steps`` frames in all (counting a resumed run's) or ``minutes`` of
        this call, whichever comes first; a checkpoint is written at the end. The rounds and
        evaluations run on ``executor`` (the caller closes it; default: ``workers`` local
        processes, closed here)."""
        if steps is None and minutes is None:
            raise ValueError("give steps or minutes (or both)")
        start = time.perf_counter()
        deadline = start + minutes * 60 if minutes is not None else float("inf")
        ex = LocalExecutor(self.config.workers) if executor is None else executor
        try:
            self._rounds(ex, steps, deadline, progress, on_checkpoint)
        except BaseException:
            if executor is None:
                ex.terminate()
            raise
        if executor is None:
            ex.close()

    def _rounds(
        self,
        executor: Executor,
        steps: int | None,
        deadline: float,
        progress: Callable[[Trainer], None] | None,
        on_checkpoint: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        # the workers play the next round while the learner updates on this one (with the
        # weights from before these updates)
        pending = self._start(executor)
        while (steps is None or self.frames < steps) and time.perf_counter() < deadline:
            t0 = time.perf_counter()
            jobs, batch = pending
            parts = batch.results()
            pending = self._start(executor)
            frames, games = self._learn_round(jobs, parts)
            self.frames += frames
            self.games += games
            self.rounds += 1
            self.seconds += time.perf_counter() - t0
            if progress is not None:
                progress(self)
            if self.frames >= self.next_checkpoint:
                while self.next_checkpoint <= self.frames:
                    self.next_checkpoint += self.config.checkpoint_every
                entry = self.checkpoint(executor)
                if on_checkpoint is not None:
                    on_checkpoint(entry)
        # let the round in flight finish: stopping a local pool while its task thread is
        # still sending a round's weights to a worker can hang for ever
        pending[1].results()
        if not (self.out / f"ckpt-{self.frames:09d}.npz").exists():
            entry = self.checkpoint(executor)
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
    executor: Executor | None = None,
) -> Trainer:
    """Train (or resume) a run in ``out`` (on ``executor``, see :meth:`Trainer.run`);
    returns the trainer when done."""
    trainer = Trainer(config or TrainConfig(), Path(out))
    trainer.run(
        steps=steps,
        minutes=minutes,
        progress=progress,
        on_checkpoint=on_checkpoint,
        executor=executor,
    )
    return trainer
