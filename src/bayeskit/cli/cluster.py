"""The command line on a Dask cluster: ``--workers N`` (a local cluster of N processes) or
``--scheduler ADDRESS`` (an existing one).

``train`` reads its batches here, as on one machine, and the workers summarize them (a folder's
files are read by the workers themselves); the summaries come back and are added in batch
order, so the model file is the one a single-machine run writes. ``evaluate`` fits and scores
its folds in parallel, one task per fold.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
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
    [state] = client.scatter([step.state], broadcast=True, hash=False)
    in_flight = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
    pending: deque[Any] = deque()
    for index, raw in enumerate(batches, start=1):
        pending.append(
            client.submit(
                _summarize_on_worker, step.summarize, state, prepare, raw, index, pure=False
            )
        )
        while len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


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
        [shared] = client.scatter([data], broadcast=True, hash=False)
        futures = [
            client.submit(fold, make, shared, train, test, classes, pure=False)
            for train, test in splits
        ]
        for future in futures:
            yield future.result()

    return run_folds
