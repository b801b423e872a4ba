"""Getting a cluster: a local one of N worker processes, or an existing one by address."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator
from typing import Any

from ..errors import BayeskitError, MissingDependencyError, ParameterError

#: Seconds to wait for a scheduler before saying it cannot be reached (an address where nothing
#: listens is refused at once; a scheduler busy on a loaded machine took over 3 s to answer).
CONNECT_SECONDS = 10.0


class ClusterError(BayeskitError, ConnectionError):
    """A Dask scheduler that cannot be reached (the message names its address)."""


@contextlib.contextmanager
def connect(
    *, workers: int | None = None, scheduler: str | None = None, timeout: float = CONNECT_SECONDS
) -> Iterator[Any]:
    """A ``distributed.Client`` for the duration of the block: on a new local cluster of
    ``workers`` processes (one thread each), or on the scheduler at ``scheduler``
    (``tcp://host:8786``). The local cluster is shut down at the end.

    Raises
    ------
    ClusterError
        The scheduler does not answer within ``timeout`` seconds.
    MissingDependencyError
        ``distributed`` is not installed.

    Examples
    --------
    >>> from bayeskit.dask import connect
    >>> with connect(workers=1) as client:  # doctest: +SKIP
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
    except ImportError:  # pragma: no cover - the tests install dask[distributed]
        raise MissingDependencyError(
            'training on a cluster needs dask.distributed: pip install "bayeskit[dask]"'
        ) from None
    if workers is not None:
        if workers < 1:
            raise ParameterError(f"workers must be at least 1; got {workers}")
        with (
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
