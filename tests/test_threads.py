"""The thread runners: results in order, exceptions raised in the caller's thread."""

from __future__ import annotations

import threading

import pytest

from bayeskit._threads import in_background, in_parallel


def test_in_background_runs_beside_the_caller_and_raises_there():
    started = threading.Event()
    release = threading.Event()

    def task() -> str:
        started.set()
        release.wait(5)
        return threading.current_thread().name

    wait = in_background(True, task)
    assert started.wait(5)  # running while this thread goes on
    release.set()
    assert wait() != threading.current_thread().name
    assert wait() == wait()  # waiting again gives the same result

    def fail() -> None:
        raise KeyError("inside")

    with pytest.raises(KeyError, match="inside"):
        in_background(True, fail)()


def test_in_background_without_threads_runs_now():
    ran: list[str] = []
    wait = in_background(False, lambda: ran.append(threading.current_thread().name) or 7)
    assert ran == [threading.current_thread().name]  # done before waiting
    assert wait() == 7


def test_in_parallel_keeps_the_order_of_the_tasks_and_raises_their_error():
    assert in_parallel(7, 3, lambda worker, i: i * i) == [i * i for i in range(7)]

    def task(worker: int, i: int) -> int:
        if i == 3:
            raise ValueError(f"task {i}")
        return i

    with pytest.raises(ValueError, match="task 3"):
        in_parallel(5, 2, task)
