"""Compiled sums over the cells of a sparse count statistic (:mod:`.sparse_counts`)."""

from __future__ import annotations

import numpy as np

from .._jit import njit


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
