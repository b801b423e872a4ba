"""The count statistic of sparse rows with hard labels, kept as its cells with counts.

A multinomial or complement model of a large vocabulary (at least
``_structured.STRUCTURED_CELLS`` class × feature cells) fitted on sparse rows with one class
each keeps its statistic as :class:`~bayeskit.stats.SparseCounts`: the cells are summed
feature by feature (over the columns of the rows' matrix, each column's values in row order)
into each class's cell, so every cell is the same sum, added in the same order, as the full
array's (:func:`._base.class_totals`), and the full array is never made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._insertion import sort_first
from .._jit import njit
from .._lazy import sparse as sp
from ..stats import Counts, SparseCounts
from ..stats._base import hard_labels
from . import _structured
from ._base import class_totals, class_weight_totals


def counts_of(R: Any, X: Any) -> Counts:
    """``Counts`` of the rows ``X`` under class weights ``R``: a :class:`SparseCounts` for
    sparse rows with hard labels and at least ``STRUCTURED_CELLS`` cells."""
    n_classes = R.shape[1]
    if sp.issparse(X) and n_classes * X.shape[1] >= _structured.STRUCTURED_CELLS:
        labels = hard_labels(R)
        if labels is not None:
            return SparseCounts(class_weight_totals(R), class_cells(*labels, X, n_classes))
    return Counts(class_weight_totals(R), class_totals(R, X))


def class_cells(codes: np.ndarray, weight: np.ndarray, X: Any, n_classes: int) -> Any:
    """``(R.T @ X).T`` for hard labels (row ``i`` of class ``codes[i]`` with weight
    ``weight[i]``) as CSR by feature (n_features, n_classes) of its nonzero cells."""
    columns = sp.csc_matrix(X)  # (a canonical CSC keeps each column's rows in order)
    n_features = columns.shape[1]
    pointer = np.zeros(n_features + 1, dtype=np.int64)
    classes = np.empty(columns.nnz, dtype=np.int32)
    values = np.empty(columns.nnz)
    n = _sum_cells(
        columns.indptr,
        columns.indices,
        np.asarray(columns.data, dtype=np.float64),
        np.asarray(codes, dtype=np.int64),
        np.asarray(weight, dtype=np.float64),
        n_classes,
        pointer,
        classes,
        values,
    )
    out = sp.csr_matrix((values[:n], classes[:n], pointer), shape=(n_features, n_classes))
    out.has_canonical_format = True
    return out


@njit(nogil=True)
def _sum_cells(
    colptr: np.ndarray,
    rows: np.ndarray,
    data: np.ndarray,
    codes: np.ndarray,
    weight: np.ndarray,
    n_classes: int,
    pointer: np.ndarray,
    classes: np.ndarray,
    values: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Each column's values weighted and added into their rows' classes (in row order, from
    0), its nonzero cells written in class order; the number of cells."""
    total = np.zeros(n_classes)
    last = np.full(n_classes, -1, dtype=np.int64)
    touched = np.empty(n_classes, dtype=np.int64)
    k = 0
    for j in range(colptr.size - 1):
        m = 0
        for p in range(colptr[j], colptr[j + 1]):
            i = rows[p]
            c = codes[i]
            if last[c] != j:
                last[c] = j
                total[c] = 0.0
                touched[m] = c
                m += 1
            term = weight[i] * data[p]  # the product the full array adds
            total[c] += term
        sort_first(touched, m)  # a column's few classes
        for a in range(m):
            c = touched[a]
            if total[c] != 0.0:
                classes[k] = c
                values[k] = total[c]
                k += 1
        pointer[j + 1] = k
    return k
