"""The variance floor a column's recorded resolution allows (``var_floor="resolution"``).

Finding each column's smallest gap between distinct values needs the column in order. A
comparison sort of the whole training matrix cost more than the EM fit it guards (numpy's
sort of 10⁵ × 20 values: ~0.1 s, against ~0.1 s for a 5-class, 4-component diagonal fit), so
the columns are put in order by a least-significant-digit radix sort of their IEEE-754 bit
patterns (linear in the rows), the columns shared among threads (the kernel runs without
the GIL, so the threads of a Dask worker's pool may call it at once); and a mixture keeps
only the floors that can bind (:func:`binding_floor`), which a sample of the rows settles for
finely recorded columns without ordering them at all.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._jit import njit
from .._threads import in_parallel, usable_cpus
from ..errors import ParameterError

#: the variance of a rounding error spread uniformly over a step h is h² / 12
ROUNDING_VARIANCE_DIVISOR = 12.0

_SIGN = np.uint64(1 << 63)
_MAGNITUDE = np.uint64((1 << 63) - 1)
_INFINITY = np.uint64(0x7FF0000000000000)  # bit patterns above it (magnitude) are NaN
# six digits of 11 bits cover the 64 bits; 2¹¹ counters per digit stay in the L1 cache
_DIGIT_BITS = 11
_DIGITS = 6
_RADIX = 1 << _DIGIT_BITS
_DIGIT = np.uint64(_RADIX - 1)
# below this many values a second thread costs more to start than it saves
_VALUES_PER_THREAD = 1 << 16
# rows of the sample that shows which columns are too fine for their floor to bind
_SAMPLE_ROWS = 2048


def check_var_floor(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value == "resolution"):
        return value
    raise ParameterError(
        f"var_floor={value!r} is not accepted; use 'resolution' (each variance at least the "
        "one the data's recorded resolution allows) or None (reg_covar only)"
    )


def resolution_floor(X: np.ndarray) -> np.ndarray:
    """The variance floor of each column of ``X`` (the training rows): ``h_j² / 12``, with
    ``h_j`` the smallest gap between two distinct values of column j (missing values left
    out; 0 for a column with fewer than two distinct values).

    A value recorded to a resolution ``h`` (an integer, a 0/1 indicator, a price in cents)
    carries a rounding error spread uniformly over ``h``, of variance ``h² / 12`` (Sheppard's
    correction; Kendall & Stuart, *The Advanced Theory of Statistics*, §3.18): no component
    can locate such a value more finely. Without this floor the Gaussian density of a
    component sitting on one value of a discrete column (every row of a one-hot column at
    0) grows without bound, EM and BIC reward that, and the class gives ~zero likelihood to
    any row with the other value. On finely recorded continuous data the floor lies far
    below every variance and changes nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.mixture import resolution_floor
    >>> X = np.array([[0.0, 1.5, 7.0], [1.0, 1.25, 7.0], [1.0, np.nan, 7.0]])
    >>> resolution_floor(X) * 12  # the squared steps 1 and 0.25; a constant column has none
    array([1.    , 0.0625, 0.    ])
    """
    h = _smallest_gaps_of(np.asarray(X, dtype=np.float64))
    return np.where(np.isfinite(h), h * h / ROUNDING_VARIANCE_DIVISOR, 0.0)


def binding_floor(X: np.ndarray, reg_covar: float | np.ndarray) -> np.ndarray:
    """:func:`resolution_floor` where it exceeds ``reg_covar`` (one number, or one per
    column: the smallest ridge of any class, :mod:`._ridge`), 0 elsewhere: the floor a
    mixture keeps (each variance already includes the ridge, so a lower floor never binds).

    Which columns are that fine is seen on a sample of the rows first: a subset's smallest
    gap is never smaller than the whole column's, so a sample gap ``g`` with ``g²/12 ≤
    reg_covar`` settles the column without ordering all its rows. Only the coarse columns
    (0/1 indicators, counts, codes, values in cents) are ordered in full.

    >>> import numpy as np
    >>> from bayeskit.mixture._resolution import binding_floor
    >>> X = np.column_stack([np.arange(10_000) % 2, np.linspace(0, 1, 10_000)])
    >>> binding_floor(X, 1e-6) * 12  # step 1 binds; the fine column's (~1e-4) does not
    array([1., 0.])
    """
    X = np.asarray(X, dtype=np.float64)
    ridge = np.broadcast_to(np.asarray(reg_covar, dtype=np.float64), (X.shape[1],))
    floor = np.zeros(X.shape[1])
    coarse = np.arange(X.shape[1])
    if X.shape[0] > 2 * _SAMPLE_ROWS:
        g = _smallest_gaps_of(X[:: X.shape[0] // _SAMPLE_ROWS])
        coarse = coarse[~(np.isfinite(g) & (g * g / ROUNDING_VARIANCE_DIVISOR <= ridge))]
    if coarse.size:
        exact = resolution_floor(X[:, coarse])
        floor[coarse] = np.where(exact > ridge[coarse], exact, 0.0)
    return floor


def _smallest_gaps_of(X: np.ndarray) -> np.ndarray:
    """Each column's smallest positive gap between two values (+inf where none)."""
    n_columns = X.shape[1]
    h = np.full(n_columns, np.inf)
    if X.shape[0] < 2 or not n_columns:
        return h
    bits = X.view(np.uint64)
    n_threads = max(1, min(usable_cpus(), n_columns, X.size // _VALUES_PER_THREAD))
    bounds = np.linspace(0, n_columns, n_threads + 1).astype(np.int64)
    in_parallel(
        n_threads, n_threads, lambda _, t: _smallest_gaps(bits, bounds[t], bounds[t + 1], h)
    )
    return h


@njit(nogil=True)
def _smallest_gaps(
    bits: np.ndarray, first: int, last: int, out: np.ndarray
) -> None:  # pragma: no cover
    """Into ``out[first:last]``: each of those columns' smallest positive difference between
    two of its values (``bits``: the float64 matrix's bit patterns), +inf where none."""
    for j in range(first, last):
        out[j] = _column_gap(bits[:, j])


@njit(nogil=True)
def _column_gap(column: np.ndarray) -> float:  # pragma: no cover
    # Keys that order as the floats do: negative numbers' bits flipped, positive numbers'
    # sign bit set. NaN is left out.
    n = column.shape[0]
    keys = np.empty(n, np.uint64)
    m = 0
    for i in range(n):
        u = column[i]
        if (u & _MAGNITUDE) > _INFINITY:
            continue
        keys[m] = ~u if u & _SIGN else u | _SIGN
        m += 1
    if m < 2:
        return math.inf
    keys = keys[:m]
    counts = np.zeros((_DIGITS, _RADIX), np.int64)
    for i in range(m):
        key = keys[i]
        for d in range(_DIGITS):
            counts[d, (key >> np.uint64(_DIGIT_BITS * d)) & _DIGIT] += 1
    source = keys
    target = np.empty(m, np.uint64)
    for d in range(_DIGITS):
        shift = np.uint64(_DIGIT_BITS * d)
        if counts[d, (source[0] >> shift) & _DIGIT] == m:
            continue  # a digit every key shares (the exponent of values of one scale)
        start = 0
        for b in range(_RADIX):
            size = counts[d, b]
            counts[d, b] = start
            start += size
        for i in range(m):
            key = source[i]
            b = (key >> shift) & _DIGIT
            target[counts[d, b]] = key
            counts[d, b] += 1
        source, target = target, source
    for i in range(m):
        key = source[i]
        source[i] = key & _MAGNITUDE if key & _SIGN else ~key
    values = source.view(np.float64)
    best = math.inf
    for i in range(1, m):
        gap = values[i] - values[i - 1]
        if gap > 0.0 and gap < best:
            best = gap
    return best
