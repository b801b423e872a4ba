"""Sums taken in a loop's order, for the numpy twins of compiled loops.

A loop ``s = start; for t in terms: s += t`` rounds after every addition, left to right;
numpy's ``sum`` adds pairwise and rounds differently. ``np.cumsum`` is that loop, so a twin
that must give a kernel's (or scipy's) numbers bit for bit sums its terms with it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sum_in_order"]


def sum_in_order(terms: np.ndarray, axis: int, start: np.ndarray | None = None) -> np.ndarray:
    """The sum of ``terms`` along ``axis`` as a loop adds it: from ``start`` (zeros by
    default, as a loop's ``s = 0.0``: a sum of ``-0.0`` terms is then ``+0.0``), term after
    term.

    Examples
    --------
    >>> terms = np.full((1, 10), 0.1)
    >>> float(sum_in_order(terms, axis=1)[0]), float(terms.sum(axis=1)[0])
    (0.9999999999999999, 1.0)
    """
    shape = list(terms.shape)
    shape[axis] = 1
    first = np.zeros(shape) if start is None else np.expand_dims(start, axis)
    sums = np.cumsum(np.concatenate([first, terms], axis=axis), axis=axis)
    return np.take(sums, -1, axis=axis)
