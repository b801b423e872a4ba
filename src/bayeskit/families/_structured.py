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

    def columns(self, index: np.ndarray) -> np.ndarray:
        """The weights of terms ``index``, (n_classes, len(index)): a few columns of the
        full array, without it."""
        out = np.asarray(self.correction[index].toarray(), dtype=np.float64).T
        out += self.base[index]
        out += self.shift[:, None]
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
    """The weights ``w_cj = sign · (ln v_cj − ln d_c)`` of a count statistic, from its cells
    with counts (:meth:`~bayeskit.stats.SparseCounts.of`), in structured form, or None where
    a ``v`` or ``d`` is not positive (a zero probability: the full array's own rules apply).

    ``unseen`` (n_features,) is ``v`` where a class has no count of the term;
    ``seen(terms, counts)`` gives ``v`` of the cells with counts; ``totals(own)`` gives ``d``
    from each class's count total ``own``."""
    n_classes, n_features = stats.n_classes, stats.n_features
    if not n_classes * n_features or not unseen.min() > 0:
        return None
    cells = SparseCounts.of(stats).cells  # by term (a full array's found by a compiled pass)
    # (index arrays copied: the weights' matrix must not share the statistic's)
    pointer, classes, counts = cells.indptr.copy(), cells.indices.copy(), cells.data
    terms = np.repeat(np.arange(n_features), np.diff(pointer))
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
    matrix = sp.csr_matrix((correction, classes, pointer), shape=(n_features, n_classes))
    shift = np.log(norm)
    shift *= -sign
    return StructuredWeights(base, shift, matrix)


def structured_size(stats: Counts) -> int:
    """An upper bound of the bytes :func:`structured` allocates at its peak for ``stats``
    (a model file's load takes it from its budget first), from the number of its cells with
    counts ``n`` (counted in place for a full array) and of its terms ``f``: the cells found
    in a full array and turned by term (32 bytes a cell), or, later, the cells (16), the
    copies of their classes (8), each cell's term (8), their values and the temporaries of
    the complement's (24) or the weights' (16) arithmetic: at most 56 bytes a cell, and 64
    a term for the pointers, the per-term arrays and their temporaries."""
    if isinstance(stats, SparseCounts):
        n = int(stats.cells.nnz)
    else:
        n = int(np.count_nonzero(stats.total))
    return 56 * n + 64 * stats.n_features + 32 * stats.n_classes


def others(own: np.ndarray) -> np.ndarray:
    """Each class's total of the other classes' counts, summed as they are (subtracting a
    class from the whole would lose the digits of a total far smaller than the whole)."""
    before = np.concatenate([[0.0], np.cumsum(own)[:-1]])
    after = np.concatenate([np.cumsum(own[::-1])[::-1][1:], [0.0]])
    return before + after
