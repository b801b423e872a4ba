"""Count matrices: the vocabulary statistics of one, its rows' squared norms, its columns
moved to a vocabulary's in numpy, and which documents are e-mails or wider than latin-1
(helpers of :class:`~bayeskit.text.vectorize.TextVectorizer`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _row_kernels as kernels
from ._scan import take_column_totals
from .analyze import is_raw_email
from .vocabulary import LazyTerms, VocabularyStats

#: Fewer count entries than this are summed per term by numpy (``stats_of``): the quick start's
#: folds of the SMS collection (about 10^5 entries) then need no compiled kernel at all.
SMALL_TOTALS_NNZ = 1 << 18


def mail_mask(documents: list[Any]) -> np.ndarray:
    """Which documents are raw e-mails (:func:`~bayeskit.text.analyze.is_raw_email`)."""
    return np.fromiter(map(is_raw_email, documents), dtype=bool, count=len(documents))


def wide_mask(texts: list[str]) -> np.ndarray:
    """Which texts hold a character beyond latin-1 (U+00FF)."""
    return np.fromiter(
        (not (t.isascii() or max(t) <= "\xff") for t in texts), dtype=bool, count=len(texts)
    )


def row_sums_of_squares(X: sp.csr_matrix) -> np.ndarray:
    """``X.multiply(X).sum(axis=1)`` as a flat array, the same numbers (the same
    ``np.add.reduceat`` over the same squares) without building the product matrix, for a
    canonical CSR matrix with no stored zero (the product would drop it)."""
    squares = np.square(X.data)
    if not X.has_canonical_format or not squares.all():
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    out = np.zeros(X.shape[0])
    rows = np.flatnonzero(np.diff(X.indptr))
    if len(rows):
        out[rows] = np.add.reduceat(squares, X.indptr[rows])
    return out


#: Weighed rows with fewer entries than this are scaled, normed and divided by numpy (no kernel to
#: load: a mail filter's one message, the service's checks).
KERNEL_WEIGH_NNZ = 1 << 17


def scale_columns(X: sp.csr_matrix, idf: np.ndarray | None, weights: np.ndarray | None) -> None:
    """``X.data *= idf[X.indices]``, then ``*= weights[X.indices]`` (each when given), in
    place."""
    if idf is not None:
        X.data *= idf[X.indices]
    if weights is not None:
        X.data *= weights[X.indices]


def divide_rows(X: sp.csr_matrix, size: np.ndarray) -> None:
    """Each row of ``X`` divided by its ``size`` (an empty row's, 0, taken as 1), in place."""
    size[size == 0] = 1.0
    if X.nnz < KERNEL_WEIGH_NNZ:
        X.data /= np.repeat(size, np.diff(X.indptr))
    else:
        kernels.divide_rows(X.indptr, X.data, size)


def scale_and_l2_normalize(
    X: sp.csr_matrix, idf: np.ndarray | None, weights: np.ndarray | None
) -> None:
    """:func:`scale_columns`, then each row divided by its L2 norm (``sqrt`` of
    :func:`row_sums_of_squares`), in place: the same numbers as those numpy steps. A large
    matrix is scaled and its norms summed in one compiled pass over the rows, on every core
    (numpy's gathers by a million-column index were most of a 20 Newsgroups fit's
    weighing)."""
    if X.nnz < KERNEL_WEIGH_NNZ:
        scale_columns(X, idf, weights)
        divide_rows(X, np.sqrt(row_sums_of_squares(X)))
        return
    canonical = X.has_canonical_format
    sums = np.empty(X.shape[0])
    no_zero = kernels.scale_rows(
        X.indptr, X.indices, X.data,
        _EMPTY if idf is None else np.asarray(idf, np.float64),
        _EMPTY if weights is None else np.asarray(weights, np.float64),
        sums,
    )  # fmt: skip
    # (a stored zero, or rows out of order: numpy's sums of the product matrix)
    divide_rows(X, np.sqrt(sums if canonical and no_zero else row_sums_of_squares(X)))


_EMPTY = np.zeros(0)


def stats_of(terms: np.ndarray | LazyTerms, counts: sp.csr_matrix) -> VocabularyStats:
    # Canonical counts: one entry per (document, term), so entries per column = documents.
    # The counts are whole numbers, so their int64 sums are exact.
    totals = take_column_totals(counts)  # summed already, when the scanner just counted
    if totals is not None:
        df, tf = totals
    elif counts.nnz < SMALL_TOTALS_NNZ:  # numpy's same sums, without loading a kernel
        df = np.bincount(counts.indices, minlength=len(terms)).astype(np.int64)
        tf = np.zeros(len(terms), np.int64)
        np.add.at(tf, counts.indices, counts.data.astype(np.int64))
    else:
        df, tf = kernels.column_totals(counts.indices, counts.data, len(terms))
    return VocabularyStats(terms, df, tf, counts.shape[0])


def remap_rows_small(
    counts: sp.csr_matrix, column: np.ndarray, oov_column: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~bayeskit.text._row_kernels.remap_rows` in numpy (same arrays): entry ``k``
    moves to column ``column[indices[k]]``, dropped where that is -1 or, when
    ``oov_column >= 0``, summed into one ``oov_column`` entry at the end of its row."""
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    target = column[counts.indices]
    data = counts.data.astype(np.float64)
    known = target >= 0
    if oov_column >= 0:
        unknown = ~known
        oov_rows, first = np.unique(rows[unknown], return_index=True)
        oov_sums = np.add.reduceat(data[unknown], first) if len(first) else data[:0]
        rows = np.concatenate((rows[known], oov_rows))
        target = np.concatenate((target[known], np.full(len(oov_rows), oov_column)))
        data = np.concatenate((data[known], oov_sums))
        order = np.argsort(rows, kind="stable")  # each row's OOV entry after its terms
        rows, target, data = rows[order], target[order], data[order]
    else:
        rows, target, data = rows[known], target[known], data[known]
    indptr = np.zeros(counts.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=counts.shape[0]), out=indptr[1:])
    return indptr, target.astype(np.int32), data
