"""``learned``: a move-value network trained on rollout labels, run in numpy (no
deep-learning framework at play time).

The network scores every legal move: ``Q(state, move)`` is a small multilayer perceptron
over :func:`state_features` (the seat's observation,
:func:`~tienlen.players.encoding.encode_observation`, and the rules' knobs,
:func:`~tienlen.players.encoding.encode_rules`, so one network plays every rule set) joined
with the move's features (:func:`move_features`: its row of
:func:`~tienlen.players.encoding.encode_moves` and the ``heuristic`` bot's opinion of it,
:func:`advice`), trained by ``tienlen train`` (:mod:`tienlen.env.train`) to predict the
seat's outcome. The bot plays the legal move of highest value, among all of them by default
(so it can choose a play the ``heuristic`` bot would never propose), or among the
``heuristic`` bot's best ``candidates`` and the pass. Its weights ship with the package
(``players/bots/learned.npz``), with specialists for the rule sets where weights trained
further on those rules measured clearly stronger (:data:`SPECIALISTS`); ``weights=PATH``
loads another checkpoint for every rule set.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import AbstractContextManager
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from tienlen.combos import Choice
from tienlen.observation import Observation
from tienlen.players.base import Budget, split_choices
from tienlen.players.bots.endgame import ENDGAME_NODES, forcing_choice, in_endgame
from tienlen.players.bots.heuristic import Context, HeuristicBot
from tienlen.players.encoding import (
    MOVE_DIM,
    MOVE_PASS,
    OBS_DIM,
    RULES_DIM,
    UNSEEN_PLANE,
    encode_moves,
    encode_observation,
    encode_rules,
)
from tienlen.rules import Rules

__all__ = [
    "ADVICE_DIM",
    "CANDIDATES",
    "FEATURE_DIM",
    "RANK_COLUMN",
    "SHIPPED_WEIGHTS",
    "SPECIALISTS",
    "STATE_DIM",
    "LearnedBot",
    "QNet",
    "advice",
    "candidate_rows",
    "move_features",
    "state_features",
]

FloatArray = npt.NDArray[np.float32]
#: The weights that ship with the package (four networks trained on ``standard``, widened to
#: read the rules' features; docs/bots.md records how).
SHIPPED_WEIGHTS = "learned.npz"
#: Weights trained further on one rule set, by that rule set's code (:meth:`Rules.code`,
#: the seat count included), that ship beside :data:`SHIPPED_WEIGHTS`: where a game's rules
#: equal those, the ``learned`` bot plays these instead. An entry is added only where
#: docs/bots.md measures it clearly stronger than the shipped weights on those rules; any
#: other rules (another seat count, a house rule) get the shipped weights.
SPECIALISTS: dict[str, str] = {
    # 745,168 decisions of double-deck-13 at four seats from the shipped weights:
    # +3.5 points of wins, -0.093 mean position, paired by deal over 1,000 games
    "double-deck-13.players-4": "learned-double-deck-13-4.npz",
    # 300,360 decisions of suited from the shipped weights at half the learning rate:
    # +4.3 points of wins, -0.059 mean position, paired by deal over 2,000 games
    "suited": "learned-suited.npz",
}
_LAYERS = ("w1o", "w1a", "b1", "w2", "b2", "w3", "b3")
#: How many of the ``heuristic`` bot's best moves the bot chooses among by default, beside
#: the pass (``None``: every legal move is valued; docs/bots.md measures both).
CANDIDATES: int | None = None
#: Features of one state as the network reads it: :data:`OBS_DIM` then :data:`RULES_DIM`.
STATE_DIM = OBS_DIM + RULES_DIM
#: Advice features of one move (:func:`advice`).
ADVICE_DIM = 4
#: Features of one move as the network reads it: :data:`MOVE_DIM` then :data:`ADVICE_DIM`.
FEATURE_DIM = MOVE_DIM + ADVICE_DIM
#: The column of :func:`move_features` that holds ``1 / (1 + rank)`` in the ``heuristic``
#: bot's ranking (its last advice feature): the best moves have the largest.
RANK_COLUMN = FEATURE_DIM - 1
#: Scores of the ``heuristic`` bot are clipped to this size (going out scores 100).
_CLIP = 5.0


def advice(obs: Observation, legal: Sequence[Choice]) -> FloatArray:
    """The ``heuristic`` bot's opinion of each legal move, ``(len(legal), ADVICE_DIM)``: its
    score and its gap to the best score (both clipped to 5, then divided by 5), whether it
    is the bot's choice, and ``1 / (1 + rank)`` in its ranking. Computed from the
    observation only, as the bot itself decides."""
    n = len(legal)
    plays, gives = split_choices(legal)
    if gives or obs.phase == "trading":
        by_move: dict[Choice, float] = {s.move: s.score for s in HeuristicBot().ranked(obs, legal)}
        scores = np.array([by_move[m] for m in legal], dtype=np.float64)
    else:
        ctx = Context.of(obs)
        scores = np.array([ctx.score(m)[0] for m in plays], dtype=np.float64)
    # the bot's order (HeuristicBot.ranked): best score first, ties to the lowest top card
    order = sorted(range(n), key=lambda i: (-scores[i], legal[i].mask.bit_length(), legal[i].mask))
    rank = np.empty(n, dtype=np.float64)
    rank[order] = np.arange(n)
    out = np.empty((n, ADVICE_DIM), dtype=np.float32)
    out[:, 0] = np.clip(scores, -_CLIP, _CLIP) / _CLIP
    out[:, 1] = np.clip(scores.max() - scores, 0.0, _CLIP) / _CLIP
    out[:, 2] = rank == 0
    out[:, 3] = 1.0 / (1.0 + rank)
    return out


def state_features(obs: Observation) -> FloatArray:
    """The seat's state as the network reads it, ``(STATE_DIM,)``:
    :func:`~tienlen.players.encoding.encode_observation` joined with
    :func:`~tienlen.players.encoding.encode_rules`, the plane of unseen cards scaled by the
    share of them that the other seats hold (their counts as the seat keeps them, over the
    unseen copies): where every card is dealt the share is 1 and the plane is as encoded;
    where cards lie undealt (heads-up, two decks at four seats) an unseen card reads as
    the chance that an opponent holds it, not as a card an opponent holds."""
    o = encode_observation(obs)
    plane = o[UNSEEN_PLANE]  # a view: scaled in place
    unseen = float(plane.sum())
    held = sum(c for seat, c in enumerate(obs.tracked_counts()) if seat != obs.seat)
    if held < unseen:
        plane *= np.float32(held / unseen)
    return np.concatenate((o, encode_rules(obs.rules)))


def move_features(obs: Observation, legal: Sequence[Choice]) -> FloatArray:
    """The legal moves as the network reads them, ``(len(legal), FEATURE_DIM)``:
    :func:`~tienlen.players.encoding.encode_moves` joined with :func:`advice`."""
    return np.hstack((encode_moves(obs, legal), advice(obs, legal)))


class QNet:
    """``Q(obs, move)``: ``relu(o·W1o + a·W1a + b1) → relu(·W2 + b2) → ·W3 + b3``. Splitting
    the first layer computes the observation's share once per decision, whatever the number
    of legal moves.

    An ensemble (:meth:`ensemble`) holds several such networks, of any sizes, and values a
    move by the mean of their values; training works on one network (:attr:`params`)."""

    def __init__(self, params: dict[str, FloatArray], meta: dict[str, Any] | None = None) -> None:
        _check(params)
        self.members = [params]
        self.meta = dict(meta or {})

    @property
    def params(self) -> dict[str, FloatArray]:
        """The weights of the one network (an ensemble has no single set: refused)."""
        if len(self.members) != 1:
            raise ValueError(f"an ensemble of {len(self.members)} networks has no single params")
        return self.members[0]

    @classmethod
    def ensemble(cls, nets: Sequence[QNet], meta: dict[str, Any] | None = None) -> QNet:
        """The networks of ``nets`` (ensembles are flattened) as one ensemble."""
        members = [m for net in nets for m in net.members]
        if not members:
            raise ValueError("an ensemble needs at least one network")
        out = cls(members[0], meta)
        out.members = members
        return out

    @classmethod
    def init(cls, hidden: tuple[int, int] = (256, 128), *, seed: int = 0) -> QNet:
        """Fresh He-initialised weights."""
        rng = np.random.default_rng(seed)
        h1, h2 = hidden
        fan1 = STATE_DIM + FEATURE_DIM

        def he(rows: int, cols: int, fan: int) -> FloatArray:
            w: FloatArray = (rng.standard_normal((rows, cols)) * np.sqrt(2.0 / fan)).astype(
                np.float32
            )
            return w

        return cls(
            {
                "w1o": he(STATE_DIM, h1, fan1),
                "w1a": he(FEATURE_DIM, h1, fan1),
                "b1": np.zeros(h1, np.float32),
                "w2": he(h1, h2, h1),
                "b2": np.zeros(h2, np.float32),
                "w3": he(h2, 1, h2) * 0.1,
                "b3": np.zeros(1, np.float32),
            }
        )

    @classmethod
    def load(cls, path: str | Path, *, widen: bool = False) -> QNet:
        """Weights from an ``.npz`` file written by :meth:`save` (one network or several).
        ``widen``: weights made before the rules' features (their first layer reads
        :data:`OBS_DIM` features, not :data:`STATE_DIM`) get zero weights for those, so
        they value every move as before (``tienlen train --init`` starts from them)."""
        with np.load(path, allow_pickle=False) as data:
            meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta_")}
            count = int(meta.pop("members", 0))
            if count:
                members = [
                    {
                        k: data[f"m{i}_{k}"].astype(np.float32)
                        for k in _LAYERS
                        if f"m{i}_{k}" in data
                    }
                    for i in range(count)
                ]
            else:
                members = [{k: data[k].astype(np.float32) for k in _LAYERS if k in data}]
        for params in members:
            w = params.get("w1o")
            if widen and w is not None and w.shape[0] == OBS_DIM:
                params["w1o"] = np.vstack((w, np.zeros((RULES_DIM, w.shape[1]), np.float32)))
            _check(params)
        return cls.ensemble([cls(m) for m in members], meta)

    @staticmethod
    def shipped(rules: Rules | None = None) -> QNet:
        """The weights that ship with the package, or for ``rules`` that have a specialist
        (:data:`SPECIALISTS`) its weights (each file read once: every ``learned`` bot of a
        process shares them, and playing never changes them)."""
        if rules is not None:
            special = _specialists().get(rules)
            if special is not None:
                return _packaged(special)
        return _packaged(SHIPPED_WEIGHTS)

    def save(self, path: str | Path) -> None:
        """Write the weights (float32) and ``meta`` (numbers and strings) to ``path``."""
        arrays: dict[str, Any] = {f"meta_{k}": np.asarray(v) for k, v in self.meta.items()}
        if len(self.members) == 1:
            arrays.update(self.members[0])
        else:
            arrays["meta_members"] = np.asarray(len(self.members))
            for i, params in enumerate(self.members):
                arrays.update({f"m{i}_{k}": v for k, v in params.items()})
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)

    def values(self, obs: FloatArray, moves: FloatArray) -> FloatArray:
        """The value of each row of ``moves`` (one state vector, a batch of moves): the
        mean of the members' values. The products run on one BLAS thread
        (:func:`_one_blas_thread`)."""
        total = np.zeros(len(moves), np.float32)
        with _one_blas_thread():
            for p in self.members:
                h = np.maximum(obs @ p["w1o"] + p["b1"] + moves @ p["w1a"], 0.0)
                h = np.maximum(h @ p["w2"] + p["b2"], 0.0)
                total += (h @ p["w3"] + p["b3"])[:, 0]
        if len(self.members) > 1:
            total /= np.float32(len(self.members))
        return total

    def best(self, obs: FloatArray, moves: FloatArray, candidates: int | None = None) -> int:
        """The row of ``moves`` (rows of :func:`move_features`) of highest value; with
        ``candidates``, among :func:`candidate_rows` only (the others are not valued)."""
        if candidates is None:
            return int(np.argmax(self.values(obs, moves)))
        rows = candidate_rows(moves, candidates)
        return rows[int(np.argmax(self.values(obs, moves[rows])))]


def candidate_rows(moves: FloatArray, top: int) -> list[int]:
    """Rows of ``moves`` (rows of :func:`move_features`): the ``heuristic`` bot's best
    ``top`` moves, best first, then the pass if it is not among them: the moves the
    ``ismcts`` bot searches at its root."""
    if top < 1:
        # 0 would leave no move to choose, -1 would lift the restriction
        raise ValueError(f"candidates must be at least 1 (None: every move), not {top}")
    rows = [int(i) for i in np.argsort(-moves[:, RANK_COLUMN], kind="stable")[:top]]
    passes = np.flatnonzero(moves[:, MOVE_PASS])
    if len(passes) and int(passes[0]) not in rows:
        rows.append(int(passes[0]))
    return rows


def _check(params: dict[str, FloatArray]) -> None:
    """Refuse weights that lack a layer or were made for other encodings."""
    for name in _LAYERS:
        if name not in params:
            raise ValueError(f"weights lack the layer {name!r}")
    if params["w1o"].shape[0] != STATE_DIM or params["w1a"].shape[0] != FEATURE_DIM:
        raise ValueError(
            f"weights are for {params['w1o'].shape[0]} state and "
            f"{params['w1a'].shape[0]} move features, not {STATE_DIM} and {FEATURE_DIM}"
        )


class LearnedBot:
    """Plays the legal move the network values most (deterministic without ``endgame``).
    ``weights``: a checkpoint path, played on every rule set (default: the shipped weights,
    and a specialist's on its rules: :meth:`QNet.shipped`). ``candidates``: choose
    only among the ``heuristic`` bot's best this many moves and the pass (default
    :data:`CANDIDATES`; ``None``: among all legal moves). ``endgame``: near the end of a
    game, solve this many deals of the unseen cards with open hands and play a choice that
    forces going out in the most of them (:mod:`.endgame`; 0, the default: the network
    alone), searching at most ``nodes`` positions in each deal (default
    :data:`~.endgame.ENDGAME_NODES`); ``seed`` seeds those deals."""

    def __init__(
        self,
        *,
        weights: str | Path | QNet | None = None,
        candidates: int | None = CANDIDATES,
        endgame: int = 0,
        nodes: int = ENDGAME_NODES,
        seed: int | None = None,
        name: str = "learned",
    ) -> None:
        _check_count(endgame, "endgame is a number of deals", least=0)
        _check_count(nodes, "nodes is a number of positions", least=1)
        self.name = name
        self.candidates = candidates
        self.endgame = endgame
        self.nodes = nodes
        self._rng = random.Random(seed)
        # None: the shipped weights, chosen for each game's rules (a specialist's or not)
        self._weights = weights if isinstance(weights, QNet | None) else _checkpoint(weights)

    def net_for(self, rules: Rules) -> QNet:
        """The network that plays ``rules``: the weights given, else the shipped ones for
        those rules (a specialist's where there is one)."""
        return self._weights if self._weights is not None else QNet.shipped(rules)

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """The legal move of highest value; a trade offer answered as the ``heuristic``
        bot answers it."""
        if len(legal) == 1:
            return legal[0]
        if obs.pending_trade is not None:  # the network never learnt trade answers
            return HeuristicBot().ranked(obs, legal)[0].move
        features = move_features(obs, legal)
        net = self.net_for(obs.rules)
        state = state_features(obs)
        if self.endgame and in_endgame(obs):
            values = [float(v) for v in net.values(state, features)]
            forcing = forcing_choice(
                obs, legal, values, self._rng, samples=self.endgame, nodes=self.nodes
            )
            if forcing is not None:
                return legal[forcing]
        return legal[net.best(state, features, self.candidates)]


def _check_count(value: object, what: str, *, least: int) -> None:
    """Raise ``ValueError`` (saying ``what``) unless ``value`` is an int of ``least`` or
    more; booleans are not counts."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{what}, {least} or more, not {value!r}")


@cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


def _one_blas_thread() -> AbstractContextManager[object]:
    """A context in which the BLAS library runs on one thread. A decision's products are
    small (a state and a few dozen moves): handed to threads, they wait for cores, and
    where another process keeps a core busy that wait is most of the decision (docs/bots.md,
    "One BLAS thread": a p90 of 9.6 ms against 2.4 ms on one thread). Process-wide while it
    lasts, and the count is put back after; where bots of one process decide in several
    threads at once (the server's thread pool, for tests), one may put back another's 1.
    The trainer's own products, outside it, keep their threads."""
    limit: AbstractContextManager[object] = _blas().limit(limits=1, user_api="blas")
    return limit


@cache
def _packaged(name: str) -> QNet:
    ref = resources.files("tienlen.players.bots").joinpath(name)
    with resources.as_file(ref) as path:
        return QNet.load(path)


def _checkpoint(path: str | Path) -> QNet:
    """The weights in ``path``, read once while the file stays the same: an arena makes a
    new bot for every game, and reading the file each time cost more than the games."""
    resolved = Path(path).resolve()
    stat = resolved.stat()  # a missing file: FileNotFoundError naming it, as the loader's
    return _read_checkpoint(resolved, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read_checkpoint(path: Path, mtime_ns: int, size: int) -> QNet:
    # mtime and size are part of the key: a checkpoint written again is read again
    return QNet.load(path)


@cache
def _specialists() -> dict[Rules, str]:
    return {Rules.from_code(code): name for code, name in SPECIALISTS.items()}
