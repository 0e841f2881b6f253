"""A round robin of the arena: every way of seating ``players`` of the entries at one table,
each table an arena run on the same duplicate deals, and the entries rated from who
finished ahead of whom.

Every game of ``n`` players gives ``n(n-1)/2`` head-to-head results (for each two entries
at the table, which finished higher). The ratings are a Bradley-Terry fit of those
results (the minorization-maximization iteration; half a win added each way to every pair
that met, so an entry that never finished ahead of another still gets a finite rating),
on the Elo scale (400 points: ten to one odds of finishing ahead), the first entry at 0.
The 95% intervals come from a bootstrap over the deals: every table played the same deals,
so a resample draws deals and keeps every table's games of each.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tienlen.players.arena import GameOutcome, run_arena, wilson
from tienlen.rules import Rules

__all__ = ["HeadToHead", "Rating", "RoundRobin", "bradley_terry", "round_robin"]


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """How often ``first`` finished ahead of ``second`` in the games both played."""

    first: str
    second: str
    ahead: int
    games: int

    @property
    def rate(self) -> float:
        """The share of those games ``first`` finished ahead (nan: they never met)."""
        return self.ahead / self.games if self.games else float("nan")

    @property
    def ci(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`rate`."""
        return wilson(self.ahead, self.games)


@dataclass(frozen=True, slots=True)
class Rating:
    """An entry's Bradley-Terry rating (Elo scale) with its 95% bootstrap interval."""

    label: str
    elo: float
    low: float
    high: float


def bradley_terry(
    labels: Sequence[str], ahead: dict[tuple[str, str], float], *, rounds: int = 500
) -> list[float]:
    """Bradley-Terry ratings on the Elo scale, ``labels[0]`` at 0, from ``ahead[(a, b)]``:
    how many times ``a`` finished ahead of ``b`` (half a win is added each way to every
    pair that met)."""
    k = len(labels)
    index = {label: i for i, label in enumerate(labels)}
    wins = [[0.0] * k for _ in range(k)]
    for (a, b), count in ahead.items():
        wins[index[a]][index[b]] += count
    for i, j in itertools.combinations(range(k), 2):
        if wins[i][j] + wins[j][i] > 0:
            wins[i][j] += 0.5
            wins[j][i] += 0.5
    strength = [1.0] * k
    for _ in range(rounds):
        new = []
        for i in range(k):
            total = sum(wins[i])
            denom = sum(
                (wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(k) if j != i
            )
            new.append(total / denom if denom else strength[i])
        mean = math.exp(sum(math.log(s) for s in new) / k)
        strength = [s / mean for s in new]
    return [400 * math.log10(s / strength[0]) for s in strength]


@dataclass
class RoundRobin:
    """The games of a round robin, by table (the entries' labels at each table)."""

    labels: tuple[str, ...]
    specs: tuple[str, ...]
    players: int
    tables: list[tuple[tuple[str, ...], list[GameOutcome]]] = field(default_factory=list)
    seconds: float = 0.0

    def _ahead_by_deal(self) -> dict[int, dict[tuple[str, str], int]]:
        by_deal: dict[int, dict[tuple[str, str], int]] = {}
        for seated, outcomes in self.tables:
            for o in outcomes:
                counts = by_deal.setdefault(o.deal, {})
                for x, y in itertools.permutations(range(len(seated)), 2):
                    if o.positions[x] < o.positions[y]:
                        key = (seated[x], seated[y])
                        counts[key] = counts.get(key, 0) + 1
        return by_deal

    def head_to_head(self, first: str, second: str) -> HeadToHead:
        """``first`` against ``second`` over every game both played."""
        ahead = games = 0
        for seated, outcomes in self.tables:
            if first in seated and second in seated:
                x, y = seated.index(first), seated.index(second)
                games += len(outcomes)
                ahead += sum(1 for o in outcomes if o.positions[x] < o.positions[y])
        return HeadToHead(first, second, ahead, games)

    def win_rate(self, label: str) -> tuple[int, int]:
        """Games ``label`` won (first out) and games it played, over every table."""
        won = played = 0
        for seated, outcomes in self.tables:
            if label in seated:
                e = seated.index(label)
                played += len(outcomes)
                won += sum(1 for o in outcomes if o.positions[e] == 1)
        return won, played

    def ratings(self, *, resamples: int = 200, seed: int = 0) -> list[Rating]:
        """Every entry's rating, in entry order, with 95% bootstrap intervals over deals."""
        by_deal = self._ahead_by_deal()
        deals = sorted(by_deal)

        def fit(drawn: Sequence[int]) -> list[float]:
            total: dict[tuple[str, str], float] = {}
            for d in drawn:
                for key, count in by_deal[d].items():
                    total[key] = total.get(key, 0) + count
            return bradley_terry(self.labels, total)

        point = fit(deals)
        rng = random.Random(seed)
        samples = [fit(rng.choices(deals, k=len(deals))) for _ in range(resamples)]
        out = []
        for i, label in enumerate(self.labels):
            values = sorted(s[i] for s in samples)
            low = values[int(0.025 * (len(values) - 1))] if values else math.nan
            high = values[math.ceil(0.975 * (len(values) - 1))] if values else math.nan
            out.append(Rating(label, point[i], low, high))
        return out


def round_robin(
    rules: Rules,
    entries: Sequence[tuple[str, str]],
    *,
    deals: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> RoundRobin:
    """Play every seating of ``rules.players`` of ``entries`` (``(label, spec)`` pairs,
    weakest first) at one table, ``deals`` deals each in every seat rotation, the same
    deals at every table; ``progress(done, total)`` hears the games played."""
    n = rules.players
    labels = tuple(label for label, _ in entries)
    if len(set(labels)) != len(labels):
        raise ValueError(f"entry labels must differ: {', '.join(labels)}")
    if len(entries) < n:
        raise ValueError(f"{len(entries)} entries cannot fill a table of {n}")
    specs = dict(entries)
    tables = list(itertools.combinations(labels, n))
    total = len(tables) * deals * n
    result = RoundRobin(labels, tuple(specs[label] for label in labels), n)
    done = 0
    for seated in tables:

        def heard(games: int, _total: int, before: int = done) -> None:
            if progress is not None:
                progress(before + games, total)

        run = run_arena(
            rules,
            [specs[label] for label in seated],
            games=deals * n,
            seed=seed,
            jobs=jobs,
            progress=heard,
        )
        result.tables.append((seated, run.outcomes))
        result.seconds += run.seconds
        done += len(run.outcomes)
    return result
