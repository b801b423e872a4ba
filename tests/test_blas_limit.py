"""One BLAS thread while the library's thin products run, the user's setting back after: the
limit is the process's, so overlapping users (threads fitting at once) set it once and the last
one to leave restores it."""

from __future__ import annotations

import pytest

from bayeskit._threads import blas_threads, one_blas_thread


def test_overlapping_limits_restore_the_users_setting():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy as np  # noqa: F401  (BLAS loaded)

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        if before < 2:
            pytest.skip("this BLAS runs one thread whatever it is allowed")
        first, second = one_blas_thread(), one_blas_thread()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)  # the first leaves while the second still runs
        assert blas_threads() == 1
        second.__exit__(None, None, None)
        assert blas_threads() == before
