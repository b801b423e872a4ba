"""Compiled kernels for categorical tables of integer-valued codes (what ordinal encoders and
most categorical data sets produce). One pass over the cells for fitting, one for scoring; the
cost per cell is a few instructions instead of several full-size numpy temporaries.

Each cell's key is ``base[j] + value − lo[j]``: a position in one flat array that covers every
feature's value range. NaN (float input) is a missing value and is skipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._in_order import sum_in_order
from .._jit import SMALL_TABLE, njit, prange

#: what an unseen value does in :func:`score`; the order matches Categorical.unseen.
SMOOTH, IGNORE, ERROR = 0, 1, 2


@njit(nogil=True)
def column_range(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:  # pragma: no cover
    """Smallest and largest value of each column (NaN skipped), and whether every value is a
    whole number."""
    n, d = X.shape
    lo = np.full(d, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(d, np.iinfo(np.int64).min, dtype=np.int64)
    whole = True
    for i in range(n):
        for j in range(d):
            v = X[i, j]
            if v != v:
                continue
            if not (-9.0e15 < v < 9.0e15):
                whole = False
                continue
            k = np.int64(v)
            if k != v:
                whole = False
            if k < lo[j]:
                lo[j] = k
            if k > hi[j]:
                hi[j] = k
    return lo, hi, whole


@njit(nogil=True)
def count_keys(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    lo: np.ndarray,
    base: np.ndarray,
    n_classes: int,
    n_keys: int,
) -> np.ndarray:  # pragma: no cover
    """Weighted count of every key in every class, shape (n_classes, n_keys)."""
    counts = np.zeros((n_classes, n_keys))
    n, d = X.shape
    for i in range(n):
        c = y[i]
        wi = w[i]
        for j in range(d):
            v = X[i, j]
            if v != v or v < lo[j]:  # NaN, or a negative code: missing
                continue
            counts[c, base[j] + np.int64(v) - lo[j]] += wi
    return counts


def value_range(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`column_range` by numpy, for a small table (numba's import and cache cost far
    more): least and largest value of each column of a numeric (n, d) block (NaN skipped; the
    int64 extremes, crossed, for a column with none), and whether every value is a whole
    number within ±9e15 (when not, no range: its callers need none)."""
    big = np.iinfo(np.int64)
    if values.dtype.kind in "biu":
        whole = bool(np.all((values > -9.0e15) & (values < 9.0e15)))
        ints, missing = values.astype(np.int64), np.zeros(values.shape, dtype=bool)
    else:
        missing = np.isnan(values)
        seen = np.where(missing, 0.0, values)
        whole = bool(np.all((np.abs(seen) < 9.0e15) & (seen == np.floor(seen))))
        if not whole:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
        ints = seen.astype(np.int64)
    lo = np.where(missing, big.max, ints).min(axis=0, initial=big.max)
    hi = np.where(missing, big.min, ints).max(axis=0, initial=big.min)
    return lo, hi, whole


def key_counts(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    lo: np.ndarray,
    base: np.ndarray,
    n_classes: int,
    n_keys: int,
) -> np.ndarray:
    """:func:`count_keys`, by numpy for a small table (:data:`~bayeskit._jit.SMALL_TABLE`),
    bit for bit: ``bincount`` adds the cells' weights in the loop's order (row after row,
    feature after feature)."""
    if X.size > SMALL_TABLE:
        return count_keys(X, y, w, lo, base, n_classes, n_keys)
    rows, cols = np.nonzero((X == X) & (lo <= X))  # NaN, or a negative code: missing
    keys = y[rows] * n_keys + base[cols] + X[rows, cols].astype(np.int64) - lo[cols]
    counts = np.bincount(keys, weights=w[rows], minlength=n_classes * n_keys)
    return counts.astype(np.float64, copy=False).reshape(n_classes, n_keys)


@njit(inline="always")
def _score_row(
    X: np.ndarray,
    i: int,
    lo: np.ndarray,
    span: np.ndarray,
    base: np.ndarray,
    lut: np.ndarray,
    table: np.ndarray,
    unseen: int,
    out: np.ndarray,
    bad: np.ndarray,
) -> None:  # pragma: no cover
    d = X.shape[1]
    n_classes = table.shape[1]
    first_unseen = table.shape[0] - d
    for j in range(d):
        v = X[i, j]
        if v != v:
            continue
        g = -1
        if -9.0e15 < v < 9.0e15:
            k = np.int64(v) - lo[j]
            if k >= 0 and k < span[j] and k + lo[j] == v:
                g = lut[base[j] + k]
        if g < 0:
            if bad[i] == 0:
                bad[i] = j + 1
            if unseen == SMOOTH:
                g = first_unseen + j
            else:  # IGNORE, ERROR
                continue
        for c in range(n_classes):
            out[i, c] += table[g, c]


@njit(parallel=True)
def score_parallel(
    X: np.ndarray,
    lo: np.ndarray,
    span: np.ndarray,
    base: np.ndarray,
    lut: np.ndarray,
    table: np.ndarray,
    unseen: int,
    out: np.ndarray,
    bad: np.ndarray,
) -> None:  # pragma: no cover
    """``out[i] += table[code of X[i, j]]`` over the features of each row, rows in parallel.

    ``lut`` maps a key to its row of ``table`` (−1: never seen); rows ``T + j`` after the
    ``T`` category rows hold feature j's score of an unseen value. The first unseen feature
    of row i is recorded as ``bad[i] = j + 1`` (under every policy: what the caller checks
    further is looked for only where a value was unseen).
    """
    for i in prange(X.shape[0]):
        _score_row(X, i, lo, span, base, lut, table, unseen, out, bad)


@njit()
def score_serial(
    X: np.ndarray,
    lo: np.ndarray,
    span: np.ndarray,
    base: np.ndarray,
    lut: np.ndarray,
    table: np.ndarray,
    unseen: int,
    out: np.ndarray,
    bad: np.ndarray,
) -> None:  # pragma: no cover
    """:func:`score_parallel` on one thread: for small tables, waking threads costs more."""
    for i in range(X.shape[0]):
        _score_row(X, i, lo, span, base, lut, table, unseen, out, bad)


#: Below this many cells the serial kernel is faster than starting the thread pool.
PARALLEL_CELLS = 1 << 20


def score(X: np.ndarray, *args: Any) -> None:
    """Score rows with numpy (a small table), the serial or the parallel kernel, by size
    (arguments as there)."""
    if X.size <= SMALL_TABLE:
        score_small(X, *args)
        return
    kernel = score_parallel if X.size >= PARALLEL_CELLS else score_serial
    kernel(X, *args)


def score_small(
    X: np.ndarray,
    lo: np.ndarray,
    span: np.ndarray,
    base: np.ndarray,
    lut: np.ndarray,
    table: np.ndarray,
    unseen: int,
    out: np.ndarray,
    bad: np.ndarray,
) -> None:
    """:func:`score_serial` by numpy, bit for bit: each row's terms are added feature after
    feature (a cumulative sum from the row's score so far; a skipped feature adds +0.0). With
    many classes the (row, feature, class) terms would be large: the compiled loop then."""
    n, d = X.shape
    if X.size * table.shape[1] > 4 * SMALL_TABLE:
        score_serial(X, lo, span, base, lut, table, unseen, out, bad)
        return
    valid = X == X
    inside = valid & (X > -9.0e15) & (X < 9.0e15)
    k = np.where(inside, X, 0).astype(np.int64) - lo
    known = inside & (k >= 0) & (k < span) & (k + lo == X)
    group = np.full((n, d), -1, dtype=np.int64)
    group[known] = lut[(base + k)[known]]
    absent = valid & (group < 0)
    first = np.argmax(absent, axis=1) + 1
    flag = absent.any(axis=1) & (bad == 0)
    bad[flag] = first[flag]
    if unseen == SMOOTH:
        group = np.where(absent, table.shape[0] - d + np.arange(d), group)
    used = valid & (group >= 0)
    terms = np.where(used[:, :, None], table[np.maximum(group, 0)], 0.0)
    out[:] = sum_in_order(terms, axis=1, start=out)
