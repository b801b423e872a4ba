"""The command line on a Dask cluster: ``--workers N`` (a local cluster of N processes) or
``--scheduler ADDRESS`` (an existing one).

``train`` reads its batches here, as on one machine, and the workers summarize them (a folder's
files are read by the workers themselves); the summaries come back and are added in batch
order, so the model file is the one a single-machine run writes. ``evaluate`` fits and scores
its folds in parallel, one task per fold. A cluster that fails (the workers that ran a batch
died, none is left, the scheduler went away) ends the command with a ClusterError naming the
batch or fold, before anything is written.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import typer

from ..io.stream import Batch, FileBatch
from ..reduction import Part, Round
from .data import Labelled
from .measure import fold
from .options import BatchSizeOpt as BatchSizeOpt
from .options import SchedulerOpt as SchedulerOpt
from .options import WorkersOpt as WorkersOpt
from .streaming import Prepare, Runner, run_here, summarize_batch


@contextlib.contextmanager
def cluster_client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    """A ``distributed.Client`` for ``--workers``/``--scheduler``, or None for neither."""
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise typer.BadParameter(
            "give --workers (a local cluster) or --scheduler (an existing one), not both",
            param_hint="--workers",
        )
    from ..dask._cluster import connect  # without dask: an error naming what to install

    with connect(workers=workers, scheduler=scheduler) as client:
        yield client


@contextlib.contextmanager
def batch_runner(workers: int | None, scheduler: str | None) -> Iterator[Runner]:
    """How ``train`` summarizes its batches: here, or on the cluster the options name."""
    with cluster_client(workers, scheduler) as client:
        if client is None:
            yield run_here
            return

        def run(
            step: Round, prepare: Prepare, batches: Iterator[Batch | FileBatch]
        ) -> Iterator[tuple[Part, int, int, list[Any]]]:
            return _run_on(client, step, prepare, batches)

        yield run


def _run_on(
    client: Any, step: Round, prepare: Prepare, batches: Iterator[Batch | FileBatch]
) -> Iterator[tuple[Part, int, int, list[Any]]]:
    """Summarize the batches on the cluster, in order, with a few batches in flight per
    worker (so the client holds a bounded number of batches: flat memory here too)."""
    state = _scattered(client, step.state)
    in_flight = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
    pending: deque[Any] = deque()
    batch: dict[Any, int] = {}
    with _failures(lambda key: f"batch {batch[key]} of DATA" if key in batch else None):
        for index, raw in enumerate(batches, start=1):
            future = client.submit(
                _summarize_on_worker, step.summarize, state, prepare, raw, index, pure=False
            )
            batch[future.key] = index
            pending.append(future)
            while len(pending) >= in_flight:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _scattered(client: Any, value: Any) -> Any:
    """``value`` sent to every worker of ``client``'s cluster, as a future."""
    from ..dask._cluster import ClusterError

    with _failures(lambda key: None):
        try:
            [future] = client.scatter([value], broadcast=True, hash=False)
        except TimeoutError as exc:  # the scheduler waited for a worker to take it
            raise ClusterError(
                f"no Dask worker was there to take the work ({exc}); start workers; nothing "
                "was written"
            ) from exc
    return future


@contextlib.contextmanager
def _failures(where: Callable[[Any], str | None]) -> Iterator[None]:
    """A failure of the cluster as a ClusterError naming the batch or fold (``where``)."""
    from ..dask._cluster import cluster_failure

    try:
        yield
    except Exception as exc:
        failure = cluster_failure(exc, where, "nothing was written")
        if failure is None:
            raise
        raise failure from exc


def _summarize_on_worker(
    summarize: Any, state: Any, prepare: Prepare, raw: Batch | FileBatch, index: int
) -> Any:
    return summarize_batch(Round(state, summarize), prepare, raw, index)


def fold_runner(client: Any) -> Any:
    """``cross_validate``'s ``run_folds`` on ``client``: the data sent to the workers once,
    one task per fold, the results read in fold order; None without a client."""
    if client is None:
        return None

    def run_folds(
        make: Any, data: Labelled, splits: list[Any], classes: Any
    ) -> Iterator[tuple[Any, Any]]:
        shared = _scattered(client, data)
        futures = [
            client.submit(fold, make, shared, train, test, classes, pure=False)
            for train, test in splits
        ]
        number = {future.key: k for k, future in enumerate(futures, start=1)}
        with _failures(lambda key: f"fold {number[key]}" if key in number else None):
            for future in futures:
                yield future.result()

    return run_folds
