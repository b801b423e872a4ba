"""BLAS threads for stretches of many small matrix products, and blocks of rows worked on in
parallel instead.

The products of EM iterations (one side of k components), of the Parzen window's blocks and of
discriminant analysis on a few dozen columns are too thin for BLAS's threads to pay, and on a
machine shared with other work those threads contend: measured here, a 3–10× slower fit. Such
stretches hold BLAS to one thread, and where the rows split into independent blocks they spend
the threads BLAS was allowed on the blocks (:func:`in_parallel`). Only work that releases the
GIL gains: numpy's products, ufuncs and reductions and scipy's ``dtrmm`` do; scipy's ``dsyrk``
does not (measured: another thread made no progress during a 300 ms call). threadpoolctl finds
the BLAS libraries by scanning the loaded ones (~20 ms); the controller is built once and
reused.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None
#: (process id, workers, pool): a pool inherited through fork has no threads behind it
_pool: tuple[int, int, ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()
#: the machine's processors (os.cpu_count reads /sys each time)
_CPUS = os.cpu_count() or 1


def _blas() -> ThreadpoolController:
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller


def one_blas_thread() -> Any:
    """A context manager limiting BLAS to one thread while it is open."""
    return _blas().limit(limits=1, user_api="blas")


def blas_threads() -> int:
    """The threads BLAS may use now (the smallest limit over the loaded BLAS libraries, 1
    inside :func:`one_blas_thread` or under ``OPENBLAS_NUM_THREADS=1``): what work split by
    hand may use as well, so a limit the user set holds for both."""
    libraries = _blas().select(user_api="blas").lib_controllers
    counts = [int(lib.num_threads) for lib in libraries]
    return max(1, min(counts)) if counts else 1


def in_parallel(task: Callable[[Any], None], items: Sequence[Any], threads: int) -> None:
    """``task(item)`` for every item, on up to ``threads`` threads (this one included); the
    first exception is raised once every task has ended. The tasks must not change thread
    limits (the limit is process-wide): hold BLAS to one thread around the call instead."""
    threads = min(threads, len(items), _CPUS)
    if threads <= 1:
        for item in items:
            task(item)
        return
    pool = _executor(threads)
    # Round-robin shares: the calling thread takes the first and works too.
    shares = [items[i::threads] for i in range(threads)]

    def run(share: Sequence[Any]) -> None:
        for item in share:
            task(item)

    futures = [pool.submit(run, share) for share in shares[1:]]
    try:
        run(shares[0])
    finally:
        errors = [f.exception() for f in futures]
    for error in errors:
        if error is not None:
            raise error


def _executor(threads: int) -> ThreadPoolExecutor:
    """A pool of at least ``threads - 1`` workers (the caller is the other thread), kept."""
    global _pool
    with _pool_lock:
        pid = os.getpid()
        if _pool is None or _pool[0] != pid or _pool[1] < threads - 1:
            if _pool is not None and _pool[0] == pid:
                _pool[2].shutdown(wait=False)
            workers = max(threads - 1, 1)
            _pool = (pid, workers, ThreadPoolExecutor(workers, thread_name_prefix="bayeskit"))
        return _pool[2]
