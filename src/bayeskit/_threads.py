"""Threads: one BLAS thread for a stretch of many small matrix products, a runner that hands
tasks to a few Python threads, and one that runs a task beside this thread's own work.

The products of EM iterations (one side of k components), of the Parzen window's blocks and of
discriminant analysis on a few dozen columns are too thin for BLAS's threads to pay, and on a
machine shared with other work those threads contend: measured here, a 3–10× slower fit.
Splitting such stretches over threads by hand gains only where the work runs without the GIL:
scipy's Python wrappers of ``dtrmm`` and ``dsyrk`` hold it (QDA's scoring on two threads took
as long as on one), compiled ``nogil`` kernels (the text scanner, QDA's scoring kernel, which
calls BLAS itself) do not. threadpoolctl finds the BLAS libraries by scanning the loaded ones
(~20 ms); the controller is built once and reused.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported by the first model that limits BLAS's threads, not at start-up
    from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None


_limit_lock = threading.Lock()
_limit_users = 0
_limiter: Any = None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context manager limiting BLAS to one thread while it is open.

    BLAS's thread count belongs to the process, not to a thread: the limit is set by the
    first of overlapping users (threads fitting models at once) and the user's own setting
    restored when the last one leaves (each restoring what it found would leave the process
    on one thread whenever two overlapped)."""
    global _limit_users, _limiter
    with _limit_lock:
        if _limit_users == 0:
            _limiter = _get_controller().limit(limits=1, user_api="blas")
        _limit_users += 1
    try:
        yield
    finally:
        with _limit_lock:
            _limit_users -= 1
            if _limit_users == 0:
                _limiter.restore_original_limits()
                _limiter = None


def _get_controller() -> ThreadpoolController:
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()
    return _controller


def blas_threads() -> int:
    """The threads BLAS may use now (the most any loaded BLAS library is allowed: 1 under
    ``OPENBLAS_NUM_THREADS=1`` or a threadpoolctl limit); about 2 µs. Compiled kernels that
    call BLAS on one thread and split the work over threads themselves take no more than
    this: the user's limit holds for them as for BLAS."""
    controller = _get_controller()
    counts = [c.get_num_threads() for c in controller.lib_controllers if c.user_api == "blas"]
    return max([n for n in counts if n], default=1)


def usable_cpus() -> int:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def in_parallel(n_tasks: int, n_threads: int, task: Callable[[int, int], Any]) -> list[Any]:
    """``[task(worker, i) for i in range(n_tasks)]``, the tasks handed out to ``n_threads``
    workers as each becomes free (worker 0 is this thread; only compiled ``nogil`` kernels
    actually overlap). A worker the machine does not schedule leaves its tasks to the others.
    Exceptions propagate."""
    if n_threads == 1 or n_tasks == 1:
        return [task(0, i) for i in range(n_tasks)]
    results: list[Any] = [None] * n_tasks
    tickets = itertools.count()  # next() on a count is atomic under the GIL
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in tickets:
                if i >= n_tasks or errors:
                    return
                results[i] = task(worker, i)
        except BaseException as exc:  # re-raised below, in the caller's thread
            errors.append(exc)

    others = [threading.Thread(target=work, args=(w,)) for w in range(1, n_threads)]
    for thread in others:
        thread.start()
    work(0)
    for thread in others:
        thread.join()
    if errors:
        raise errors[0]
    return results


def in_background(threaded: bool, task: Callable[[], Any]) -> Callable[[], Any]:
    """Start ``task`` on another thread (when ``threaded``; otherwise run it now); returns
    a function that waits for its result (its exception is raised there). For work that
    overlaps this thread's own (a compiled ``nogil`` kernel beside Python code)."""
    if not threaded:
        result = task()
        return lambda: result
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, task()))
        except BaseException as exc:  # re-raised in the waiting thread
            outcome.append((False, exc))

    thread = threading.Thread(target=run)
    thread.start()

    def wait() -> Any:
        thread.join()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    return wait
