"""numba's ``njit`` with an on-disk cache where one can be written.

Cached kernels compile once per installation. numba refuses ``cache=True`` (RuntimeError when
the function is decorated) when neither the package directory nor a user cache directory is
writable — a read-only install with no home directory, say. Importing bayeskit must not fail
there: the kernels are then compiled in each process instead (a few seconds on first use).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, **options)``, or without the cache where none is possible."""

    def decorate(function: Callable[..., Any]) -> Any:
        try:
            return numba.njit(cache=True, **options)(function)
        except RuntimeError:
            return numba.njit(cache=False, **options)(function)

    return decorate
