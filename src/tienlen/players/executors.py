"""Where batches of independent work run: this process, a pool of local processes, or a Ray
cluster. The arena plays its deals and the trainer its self-play and labelling rounds
through one :class:`Executor`, so pointing them at a cluster changes no other code.

An executor starts a function on a list of items (:meth:`Executor.start`); the returned
:class:`Batch` gives the results as they finish (:meth:`Batch.as_finished`) or all of them
in the items' order (:meth:`Batch.results`). The function and the items must pickle: a
function defined at a module's top level, items of plain data.

- :class:`LocalExecutor` (``workers`` processes, forked; one: the work runs in this
  process when its results are asked for);
- :class:`RayExecutor` (Ray tasks on the cluster at ``address``: ``"local"`` starts a Ray
  instance on this machine, ``"auto"`` joins the one ``ray start`` runs here, or
  ``HOST:PORT``; needs Ray, the ``ray`` extra, on every machine of the cluster, and
  ``tienlen`` installed there too).

>>> with LocalExecutor(1) as ex:
...     ex.start(abs, [-3, 1, -2]).results()
[3, 1, 2]
"""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

__all__ = ["Batch", "Executor", "LocalExecutor", "RayExecutor", "executor"]

T = TypeVar("T")
R = TypeVar("R")


class Batch(Generic[R]):
    """Work started together: ``pending`` yields ``(item index, result)`` pairs as they
    finish; each result is kept, so the batch can be read either way, once or more."""

    def __init__(self, pending: Iterator[tuple[int, R]], size: int) -> None:
        self._pending = pending
        self._done: dict[int, R] = {}
        self.size = size
        """How many items the batch holds."""

    def as_finished(self) -> Iterator[R]:
        """The results not yet read, as they finish."""
        for i, result in self._pending:
            self._done[i] = result
            yield result

    def results(self) -> list[R]:
        """Every result in the items' order (waits for the unfinished ones)."""
        for _ in self.as_finished():
            pass
        return [self._done[i] for i in range(self.size)]


class Executor(Protocol):
    """Runs a function on many items, spread over ``workers``."""

    workers: int
    """How many items run at once (what a caller splits its work into)."""
    where: str
    """Where the work runs, in words (for reports)."""

    def start(self, fn: Callable[[T], R], items: Sequence[T]) -> Batch[R]:
        """Start ``fn`` on every item; the batch of results."""
        ...

    def close(self) -> None:
        """Release the workers once started batches are read (an unread batch is dropped)."""
        ...

    def terminate(self) -> None:
        """Release the workers now, dropping the work in flight where that can be done."""
        ...


def _indexed(fn: Callable[[T], R], pair: tuple[int, T]) -> tuple[int, R]:
    return pair[0], fn(pair[1])


class _Released:
    """A ``with`` block over an executor: closed when the block ends normally, terminated
    when it ends with an error."""

    def close(self) -> None:
        raise NotImplementedError

    def terminate(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.terminate()


class LocalExecutor(_Released):
    """``workers`` forked processes of this machine (created at the first batch that needs
    them); with one worker, the work runs in this process as its results are read.
    ``initializer`` runs in each worker process as it starts."""

    def __init__(self, workers: int = 1, *, initializer: Callable[[], None] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers!r}")
        self.workers = workers
        self.where = "this process" if workers == 1 else f"{workers} local processes"
        self._initializer = initializer
        self._pool: Any = None

    def start(self, fn: Callable[[T], R], items: Sequence[T]) -> Batch[R]:
        """Start ``fn`` on the items (one worker: run each as its result is read)."""
        pairs = list(enumerate(items))
        if self.workers == 1:
            return Batch(((i, fn(item)) for i, item in pairs), len(pairs))
        if self._pool is None:
            ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
            self._pool = ctx.Pool(self.workers, initializer=self._initializer)
        work = functools.partial(_indexed, fn)
        return Batch(self._pool.imap_unordered(work, pairs, chunksize=1), len(pairs))

    def close(self) -> None:
        """End the workers normally (they run their exit handlers)."""
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def terminate(self) -> None:
        """Stop the workers at once (SIGTERM), dropping the work in flight."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


class RayExecutor(_Released):
    """Ray tasks on the cluster at ``address`` (see the module docstring), one task per
    item. ``workers``: how many items a caller should split its work into (default: the
    cluster's CPUs). Joins the Ray instance this process has already started, if any; shuts
    down only one it started itself."""

    def __init__(self, address: str, *, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError as e:
            raise ValueError(f"--ray needs Ray (pip install 'tienlen[ray]'): {e}") from e
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            target = None if address == "local" else address
            try:
                ray.init(address=target, include_dashboard=False, log_to_driver=False)
            except ConnectionError as e:
                raise ValueError(f"cannot reach the Ray cluster at {address!r}: {e}") from e
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers!r}")
        self.workers = workers or max(cpus, 1)
        self.where = f"Ray at {address} ({cpus} CPUs)"
        self._remote: dict[Callable[..., Any], Any] = {}

    def start(self, fn: Callable[[T], R], items: Sequence[T]) -> Batch[R]:
        """Submit one Ray task per item."""
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self._ray.remote(fn)
        refs = [remote.remote(item) for item in items]
        return Batch(self._collect(refs), len(refs))

    def _collect(self, refs: list[Any]) -> Iterator[tuple[int, Any]]:
        where = {ref: i for i, ref in enumerate(refs)}
        waiting = list(refs)
        while waiting:
            ready, waiting = self._ray.wait(waiting, num_returns=1)
            for ref in ready:
                yield where[ref], self._ray.get(ref)

    def close(self) -> None:
        """Shut down the Ray instance if this executor started it."""
        if self._started:
            self._ray.shutdown()
            self._started = False

    def terminate(self) -> None:
        """As :meth:`close` (Ray cancels nothing here: unread tasks finish on their own)."""
        self.close()


def executor(
    ray: str | None, workers: int | None, *, initializer: Callable[[], None] | None = None
) -> LocalExecutor | RayExecutor:
    """The executor of a command: Ray at the address ``ray`` (``workers`` tasks a batch,
    default the cluster's CPUs), or without one ``workers`` local processes (default 1)."""
    if ray is not None:
        return RayExecutor(ray, workers=workers)
    return LocalExecutor(workers or 1, initializer=initializer)
