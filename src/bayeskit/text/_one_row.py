"""One document's counts over a fitted vocabulary, as Python lists: the row that
:meth:`~bayeskit.text.TextVectorizer.transform` stores for it, without a matrix.

A service checks one short message at a time: its few dozen terms are counted and looked up
in the vocabulary, and a scipy matrix of one row (its validation of the index arrays, the
choice of their dtype) cost about as much as the counting itself. The model service reads
the row as columns and values (:meth:`~bayeskit.text.TextVectorizer.one_row`); ``transform``
builds its matrix from the same lists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np
import scipy.sparse as sp

__all__ = ["csr_of_rows", "row_counts"]

_INT32_MAX = int(np.iinfo(np.int32).max)


def row_counts(
    terms: Iterable[str], columns_of: Callable[[list[str]], np.ndarray], oov: int
) -> tuple[list[int], list[int]]:
    """The columns (increasing) and counts of one document's ``terms``: each distinct term
    looked up once by ``columns_of`` (-1 outside the vocabulary); terms outside it dropped,
    or summed into column ``oov`` when it is not -1."""
    tally = Counter(terms)
    found = columns_of(list(tally)).tolist()
    if oov < 0:  # distinct terms, distinct columns: nothing to add up
        row = {column: n for column, n in zip(found, tally.values(), strict=True) if column >= 0}
    else:
        row = {}
        for column, n in zip(found, tally.values(), strict=True):
            column = column if column >= 0 else oov
            row[column] = row.get(column, 0) + n
    columns = sorted(row)
    return columns, [row[c] for c in columns]


def csr_of_rows(
    data: list[int], indices: list[int], indptr: list[int], width: int
) -> sp.csr_matrix:
    """The float64 CSR matrix of rows given as :func:`row_counts` lists, one after another
    (canonical: each row's columns increase, none twice)."""
    # 32-bit indices where they fit, as scikit-learn's vectorizers give: scipy then takes
    # them as they are, where 64-bit ones are scanned for their range first (half of
    # building a one-row matrix)
    index = np.int32 if max(width, len(indices)) < _INT32_MAX else np.int64
    out = sp.csr_matrix(
        (
            np.asarray(data, dtype=np.float64),
            np.asarray(indices, dtype=index),
            np.asarray(indptr, dtype=index),
        ),
        shape=(len(indptr) - 1, width),
    )
    out.has_canonical_format = True
    return out
