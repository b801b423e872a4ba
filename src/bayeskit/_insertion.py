"""An insertion sort of a few values, inlined in the kernels that sort short runs in place (a
document row's columns, a term's classes): fewer comparisons and no call for the handful of
values those runs hold."""

from __future__ import annotations

from typing import Any

from ._jit import njit


@njit(nogil=True, inline="always")
def sort_first(values: Any, n: int) -> None:  # pragma: no cover - compiled
    """``values[:n]`` sorted in place, ascending."""
    for k in range(1, n):
        x = values[k]
        j = k - 1
        while j >= 0 and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x
