"""Compiled passes over the cells of a sparse count statistic (:mod:`.sparse_counts`): a full
count array's cells with counts, and sums over the cells."""

from __future__ import annotations

import numpy as np

from .._jit import njit, prange


@njit(nogil=True)
def pairwise_row_sums(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n_columns: int
) -> np.ndarray:  # pragma: no cover - compiled
    """Each row's sum, as numpy's pairwise summation adds a contiguous row of ``n_columns``
    (at most 128) values with the zeros in place: fewer than 8 one by one from 0; else 8
    partial sums over the first ``n - n % 8`` values (value ``i`` into sum ``i % 8``), added
    as ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))``, then the rest one by one. A
    zero left out adds nothing, so the stored values alone give the same sums."""
    n_rows = indptr.size - 1
    out = np.zeros(n_rows)
    paired = n_columns - n_columns % 8 if n_columns >= 8 else 0
    partial = np.zeros(8)
    for row in range(n_rows):
        start, stop = indptr[row], indptr[row + 1]
        if paired == 0:
            total = 0.0
            for p in range(start, stop):
                total += data[p]
            out[row] = total
            continue
        partial[:] = 0.0
        p = start
        while p < stop and indices[p] < paired:
            partial[indices[p] % 8] += data[p]
            p += 1
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        while p < stop:
            total += data[p]
            p += 1
        out[row] = total
    return out


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
