"""The weights of a count model over a large vocabulary, without their full array.

A multinomial or complement model's weight of term ``j`` in class ``c`` is a logarithm of a
smoothed count over a per-class total, ``w_cj = ±(ln v_cj − ln d_c)``. Where the class has no
count of the term, ``v_cj`` is the same for every such class (the term's pseudo-count, or its
pooled count plus its pseudo-count for the complement), so ``w_cj = base_j + shift_c``: one
number a term and one a class. A text model's count array is mostly such cells (92 % of 20
classes × 1.2 million 1-2-grams of 20 Newsgroups), so :class:`StructuredWeights` keeps
``base``, ``shift`` and a sparse correction of the cells with counts, and scores documents as
``X @ w.T = X @ base + |x| shift + X @ correction``; the full array (190 MB there) is neither
computed nor kept, and a fit does not pay the first touch of that much fresh memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._jit import njit, prange
from .._lazy import sparse as sp
from ..stats import Counts, SparseCounts
from ._sparse_dot import dot_by_term

#: Models with at least this many class × term cells keep their weights structured (smaller
#: ones as one array: their numbers are then computed as scikit-learn computes them, bit for
#: bit, and the array is small).
STRUCTURED_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class StructuredWeights:
    """``w_cj = base_j + shift_c + correction[j, c]`` (``correction``: CSR by term, stored
    only where class ``c`` has counts of term ``j``)."""

    base: np.ndarray  # (n_features,)
    shift: np.ndarray  # (n_classes,)
    correction: Any  # CSR (n_features, n_classes)

    def dot_relative(self, X: Any) -> np.ndarray:
        """``X @ w.T`` less ``X @ base`` (the same for every class of a row)."""
        out = dot_by_term(X, self.correction)
        out += np.asarray(X.sum(axis=1), dtype=np.float64).reshape(-1, 1) * self.shift
        return out

    def dot(self, X: Any) -> np.ndarray:
        """``X @ w.T``, (n_rows, n_classes)."""
        out = self.dot_relative(X)
        out += np.asarray(X @ self.base, dtype=np.float64)[:, None]
        return out


def structured(
    stats: Counts,
    unseen: np.ndarray,
    seen: Callable[[np.ndarray, np.ndarray], np.ndarray],
    totals: Callable[[np.ndarray], np.ndarray],
    sign: float,
) -> StructuredWeights | None:
    """The weights ``w_cj = sign · (ln v_cj − ln d_c)`` of a count statistic (its
    (n_classes, n_features) ``total``, or a :class:`~bayeskit.stats.SparseCounts`' cells) in
    structured form, or None where a ``v`` or ``d`` is not positive (a zero probability: the
    full array's own rules apply).

    ``unseen`` (n_features,) is ``v`` where a class has no count of the term;
    ``seen(terms, counts)`` gives ``v`` of the cells with counts; ``totals(own)`` gives ``d``
    from each class's count total ``own``."""
    n_classes, n_features = stats.n_classes, stats.n_features
    if not n_classes * n_features or not unseen.min() > 0:
        return None
    if isinstance(stats, SparseCounts):  # the cells by term, as they are kept
        by_term = True
        cells = stats.cells  # (index arrays copied: the weights' matrix must not share them)
        pointer, minor, counts = cells.indptr.copy(), cells.indices.copy(), cells.data
    else:  # the cells with counts, read in the order the array is laid out in (no copy)
        total = stats.total
        if not isinstance(total, np.ndarray):
            return None
        by_term = total.T.flags.c_contiguous
        pointer, minor, counts = nonzero_cells(total.T if by_term else np.ascontiguousarray(total))
    major = np.repeat(np.arange(n_features if by_term else n_classes), np.diff(pointer))
    terms, classes = (major, minor) if by_term else (minor, major)
    values = seen(terms, counts)
    if values.size and not values.min() > 0:
        return None
    norm = totals(np.bincount(classes, weights=counts, minlength=n_classes))
    if not norm.min() > 0:
        return None
    base = np.log(unseen)
    base *= sign
    correction = np.log(values)
    correction *= sign
    correction -= base[terms]
    if by_term:
        matrix = sp.csr_matrix((correction, minor, pointer), shape=(n_features, n_classes))
    else:
        matrix = sp.csr_matrix((correction, minor, pointer), shape=(n_classes, n_features))
        matrix = matrix.T.tocsr()
    shift = np.log(norm)
    shift *= -sign
    return StructuredWeights(base, shift, matrix)


def others(own: np.ndarray) -> np.ndarray:
    """Each class's total of the other classes' counts, summed as they are (subtracting a
    class from the whole would lose the digits of a total far smaller than the whole)."""
    before = np.concatenate([[0.0], np.cumsum(own)[:-1]])
    after = np.concatenate([np.cumsum(own[::-1])[::-1][1:], [0.0]])
    return before + after


def nonzero_cells(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nonzero entries of a C-contiguous 2-D array as CSR parts: row pointer, column of
    each and its value, row by row (``np.nonzero``'s order). Compiled for a large array
    (one pass to count each row's entries and one to copy them, rows spread over the cores:
    20 × 1.2 million float64 in ~0.02 s, where ``np.flatnonzero`` and the index arithmetic
    took ~0.1 s); numpy for a small one."""
    if rows.size < SMALL_CELLS:
        r, c = np.nonzero(rows)
        pointer = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(r, minlength=rows.shape[0]), out=pointer[1:])
        return pointer, c.astype(np.int64), rows[r, c]
    per_row = _count_nonzero(rows)
    pointer = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(per_row, out=pointer[1:])
    columns = np.empty(pointer[-1], dtype=np.int64)
    values = np.empty(pointer[-1])
    _copy_nonzero(rows, pointer, columns, values)
    return pointer, columns, values


#: Arrays with fewer entries than this are searched by numpy (no kernel to load).
SMALL_CELLS = 1 << 20


@njit(parallel=True, nogil=True)
def _count_nonzero(rows: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    out = np.zeros(rows.shape[0], dtype=np.int64)
    for i in prange(rows.shape[0]):
        n = 0
        for j in range(rows.shape[1]):
            if rows[i, j] != 0:
                n += 1
        out[i] = n
    return out


@njit(parallel=True, nogil=True)
def _copy_nonzero(
    rows: np.ndarray, pointer: np.ndarray, columns: np.ndarray, values: np.ndarray
) -> None:  # pragma: no cover - compiled
    for i in prange(rows.shape[0]):
        k = pointer[i]
        for j in range(rows.shape[1]):
            if rows[i, j] != 0:
                columns[k] = j
                values[k] = rows[i, j]
                k += 1
