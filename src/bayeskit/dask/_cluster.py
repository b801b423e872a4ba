"""Getting a cluster: a local one of N worker processes, or an existing one by address."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import BayeskitError, MissingDependencyError, ParameterError

#: Seconds to wait for a scheduler before saying it cannot be reached (an address where nothing
#: listens is refused at once; a scheduler busy on a loaded machine took over 3 s to answer).
CONNECT_SECONDS = 10.0

#: Seconds a local cluster started here lets a task wait when no worker is left (every worker
#: died, and none came back) before failing it: dask's own default is to wait for ever.
NO_WORKERS_SECONDS = 60.0


class ClusterError(BayeskitError, ConnectionError):
    """A Dask scheduler that cannot be reached (the message names its address)."""


@contextlib.contextmanager
def connect(
    *, workers: int | None = None, scheduler: str | None = None, timeout: float = CONNECT_SECONDS
) -> Iterator[Any]:
    """A ``distributed.Client`` for the duration of the block: on a new local cluster of
    ``workers`` processes (one thread each), or on the scheduler at ``scheduler``
    (``tcp://host:8786``). The local cluster is shut down at the end.

    The client is not made dask's default (a program that connects to a cluster for one
    task does not send every later computation there): run :func:`fit` and the other
    functions of :mod:`bayeskit.dask` on it inside ``client.as_current()``, as below.

    Raises
    ------
    ClusterError
        The scheduler does not answer within ``timeout`` seconds.
    MissingDependencyError
        ``distributed`` is not installed.

    Examples
    --------
    >>> from bayeskit.dask import connect
    >>> with connect(workers=1) as client, client.as_current():  # doctest: +SKIP
    ...     fit(model, X, y)  # runs on the cluster
    """
    if (workers is None) == (scheduler is None):
        raise ParameterError("give either workers (a local cluster) or a scheduler address")
    if scheduler is not None:
        try:
            _listening(scheduler, timeout)
        except OSError as exc:
            raise _unreachable(scheduler, exc) from None
    try:
        import distributed

        import dask
    except ImportError:  # pragma: no cover - the tests install dask[distributed]
        raise MissingDependencyError(
            'training on a cluster needs dask.distributed: pip install "bayeskit[dask]"'
        ) from None
    if workers is not None:
        if workers < 1:
            raise ParameterError(f"workers must be at least 1; got {workers}")
        with (
            # a task that finds no worker left fails after a while instead of waiting for ever
            dask.config.set({"distributed.scheduler.no-workers-timeout": NO_WORKERS_SECONDS}),
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                # this machine only: the scheduler, the workers and the dashboard (which shows
                # the tasks and lets anyone who reaches it read their data), on a free port
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                # a cluster this process owns and stops: a worker whose heartbeat finds the
                # scheduler already gone while the cluster shuts down (a busy machine) logs
                # that at ERROR; failed tasks still reach the client as exceptions
                silence_logs=logging.CRITICAL,
            ) as cluster,
            distributed.Client(cluster, set_as_default=False) as client,
        ):
            yield client
        return
    assert scheduler is not None
    try:
        _probe(scheduler, timeout)
        client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
    except Exception as exc:  # whatever answered there is not a scheduler
        raise _unreachable(scheduler, exc) from None
    with client:
        yield client


def _unreachable(address: str, exc: BaseException) -> ClusterError:
    reason = " ".join(str(getattr(exc, "strerror", None) or exc).split()) or type(exc).__name__
    return ClusterError(
        f"cannot reach the Dask scheduler at {address} ({reason}); check the address "
        "(tcp://HOST:8786) and that the scheduler is running"
    )


def _listening(address: str, timeout: float) -> None:
    """Fail at once when nothing listens at a TCP address (before importing distributed, and
    because its comm would retry until its timeout)."""
    protocol, _, location = address.rpartition("://")
    host, _, port = location.rpartition(":")
    if protocol in ("", "tcp") and host and port.isdigit():
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass


def _probe(address: str, timeout: float) -> None:
    """Ask whatever listens at ``address`` who it is, within ``timeout`` seconds in all: a
    client would retry until its own timeout (and a service that is not a scheduler can hold
    it much longer), then take as long again to shut down."""
    from distributed.comm import connect as open_comm

    async def identity() -> Any:
        comm = await open_comm(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(identity(), timeout))
    except asyncio.TimeoutError:
        raise TimeoutError(f"no answer within {timeout:g} s") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ValueError("what answers there is not a Dask scheduler")


def cluster_failure(
    exc: BaseException, where: Callable[[Any], str | None], then: str
) -> ClusterError | None:
    """``exc``, raised while waiting for a computation on a Dask cluster, as a
    :class:`ClusterError` when the cluster failed (its workers died, none is left, the
    scheduler went away); None when it is the task's own error. ``where(key)`` names the part
    of the data the task ``key`` worked on (``"partition 7 of X"``), or None; ``then`` says
    what the failure left (``"the estimator is as it was"``)."""
    if "distributed" not in sys.modules:  # dask's local schedulers: no cluster to fail
        return None
    from concurrent.futures import CancelledError

    from distributed.comm import CommClosedError
    from distributed.scheduler import KilledWorker, NoValidWorkerError, NoWorkerError

    def task(key: Any) -> str:
        return where(key) or f"the task {key!r}"

    if isinstance(exc, KilledWorker):
        n = exc.allowed_failures + 1
        reason = (
            f"every Dask worker that ran {task(exc.task)} died while running it ({n} "
            f"{'worker' if n == 1 else 'workers'}, the last at {exc.last_worker.address}): a "
            "worker process ends when it runs out of memory or crashes (its log says which)"
        )
    elif isinstance(exc, (NoWorkerError, NoValidWorkerError)):
        reason = (
            f"no Dask worker was left to run {task(exc.task)} (it waited "
            f"{exc.timeout:g} s): every worker died or left the cluster; start workers"
        )
    elif isinstance(exc, CancelledError):
        text = " ".join(str(exc).split())
        if "scheduler-connection-lost" in text:  # one future's reason, or a group's
            reason = (
                "the connection to the Dask scheduler was lost (it stopped, or the network failed)"
            )
        else:
            key = getattr(exc, "key", None)
            subject = "the computation" if key is None else task(key)
            cause = getattr(exc, "reason", None) or text or "no reason given"
            reason = f"the Dask cluster cancelled {subject} ({cause})"
    elif isinstance(exc, CommClosedError):
        reason = f"the Dask cluster closed a connection ({' '.join(str(exc).split())})"
    else:
        return None
    return ClusterError(f"{reason}; {then}")
