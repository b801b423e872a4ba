"""Counts over a large vocabulary kept as the cells with counts: a text model's statistic.

A text model's class × term totals are mostly zeros (20 Newsgroups' 1-2-grams: 20 classes ×
1.2 million terms, 92 % of the cells without a count). :class:`SparseCounts` is
:class:`~bayeskit.stats.Counts` keeping only the cells with counts, by term; the arithmetic a
fit, ``partial_fit``, merging, the cluster's sums and ``unlearn`` do with it stays on the cells
(the same sums, in the same order, as on the full array), and the full array is made on first
use by whatever reads ``total`` (``feature_count_``, the usefulness of terms).
A fit then neither makes nor keeps that array (190 MB there), nor pays for the first touch of
that much fresh memory.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._values import spread
from ..errors import MergeError, ModelFileError
from ._base import Tolerance, check_arrays, per_class
from .counts import Counts


class SparseCounts(Counts):
    """:class:`Counts` of many features kept as the cells with counts.

    Parameters
    ----------
    weight : ndarray of shape (n_classes,)
        Total weight of the rows of each class.
    cells : scipy.sparse CSR matrix of shape (n_features, n_classes)
        ``cells[j, c] = total[c, j]``, stored where it is not 0 (sorted, no duplicates).

    It is a :class:`Counts` (no missing values): ``total`` is the full (n_classes, n_features)
    array, laid out as a fit lays it out (class-fastest), made when first read. It adds to
    another SparseCounts cell by cell, and to a :class:`Counts` as the full arrays add (the
    sum is a Counts: the other's full array exists already); it merges and joins terms with
    either kept as cells. A model file holds the cells (``values``, ``classes`` and each
    term's ``pointer`` into them, as CSR keeps them).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> a = SparseCounts(np.array([1.0, 2.0]), sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 4.0]])))
    >>> b = SparseCounts(np.array([1.0, 0.0]), sp.csr_matrix(np.array([[2.0, 0.0], [0.0, 0.0]])))
    >>> (a + b).total
    array([[3., 0.],
           [0., 4.]])
    >>> (a + b).cells.nnz
    2
    """

    cells: Any

    kind = "sparse_counts"

    def __init__(self, weight: np.ndarray, cells: Any) -> None:
        # A frozen dataclass's fields, set as its __init__ sets them; ``total`` is made from
        # the cells on first use (a cached property: the instance's __dict__, not a field).
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "cells", cells)

    @functools.cached_property
    def total(self) -> np.ndarray:
        """The full (n_classes, n_features) array, class-fastest in memory."""
        return np.asarray(self.cells.toarray()).T

    def __repr__(self) -> str:
        return (
            f"SparseCounts({self.n_classes} classes, {self.n_features} features, "
            f"{self.cells.nnz} cells with counts)"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (SparseCounts, (self.weight, self.cells))  # (not the full array, if made)

    @property
    def n_features(self) -> int:
        return int(self.cells.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.weight.shape[0])

    @classmethod
    def of(cls, counts: Counts) -> SparseCounts:
        """``counts`` (without missing values) kept as its cells with counts."""
        if isinstance(counts, SparseCounts):
            return counts
        if counts.missing is not None:
            raise MergeError("counts with missing values are not kept as cells")
        from ._sparse_sums import nonzero_cells  # (compiled: imported when first needed)

        total = np.asarray(counts.total)
        n_classes, n_features = total.shape
        if total.T.flags.c_contiguous:  # laid out by term, as a fit lays it out: read so
            pointer, classes, values = nonzero_cells(total.T)
            cells = sp.csr_matrix((values, classes, pointer), shape=(n_features, n_classes))
        else:  # by class: its cells found so, then turned by term (a copy of them only)
            pointer, terms, values = nonzero_cells(np.ascontiguousarray(total))
            by_class = sp.csr_matrix((values, terms, pointer), shape=(n_classes, n_features))
            cells = by_class.T.tocsr()
        return cls(counts.weight, _canonical(cells))

    def dense(self) -> Counts:
        """The same statistic as a :class:`Counts`."""
        return Counts(self.weight, self.total)

    def feature_totals(self) -> np.ndarray:
        return pairwise_row_sums(self.cells) if self.pools_by_cells() else super().feature_totals()

    def pools_by_cells(self) -> bool:
        """Whether :meth:`feature_totals` sums the cells (else it makes the full array)."""
        return self.n_classes <= 128

    # --- arithmetic on the cells ----------------------------------------------------------
    def __add__(self, other: object) -> Counts:  # type: ignore[override]  # (see below)
        if not isinstance(other, Counts):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise MergeError(
                f"cannot add {self.kind} statistics with {self.n_classes} and "
                f"{other.n_classes} classes; align them on one class list first (Summary does "
                "this)"
            )
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add counts over {self.n_features} and {other.n_features} features"
            )
        if not isinstance(other, SparseCounts):
            # the other's full array is made already (soft labels' statistics are full): the
            # sum is one too, as the full arrays add (a Counts, where Statistic's + would give
            # this class)
            return Counts(self.weight + other.weight, self.total + other.total)
        return self._sum(self, other)

    @staticmethod
    def _sum(a: SparseCounts, b: SparseCounts) -> SparseCounts:
        # scipy adds each cell's two values (a + b, in that order) and drops a cell whose sum
        # is 0: the full arrays' sums, cell by cell
        return SparseCounts(a.weight + b.weight, _canonical(a.cells + b.cells))

    def __radd__(self, other: object) -> Counts:  # type: ignore[override]
        # A Counts on the left: Python asks this subclass first (each cell's a + b is b + a)
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        return self.__add__(other)

    def __neg__(self) -> SparseCounts:
        return SparseCounts(-self.weight, -self.cells)

    def min_weights(self) -> np.ndarray:
        low = np.minimum(self.weight, 0.0)
        if self.cells.nnz:
            np.minimum.at(low, self.cells.indices, self.cells.data)
        return low

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> SparseCounts:
        w = self.weight
        weight = np.where(np.abs(w) <= per_class(tolerance, w), 0.0, w)
        cells = self.cells.copy()
        cells.data[np.abs(cells.data) <= self._of_each_class(tolerance)[cells.indices]] = 0.0
        return SparseCounts(weight[keep], _canonical(_keep_classes(cells, keep)))

    def _of_each_class(self, tolerance: Tolerance) -> np.ndarray:
        """``tolerance`` as one number a class (n_classes,)."""
        return np.broadcast_to(np.asarray(tolerance, dtype=np.float64), (self.n_classes,))

    def embed_classes(self, index: np.ndarray, n_classes: int) -> SparseCounts:
        weight = np.zeros(n_classes)
        weight[index] = self.weight
        c = self.cells
        # the classes' new places are in the same order (a sorted list into a sorted union)
        moved = sp.csr_matrix(
            (c.data, np.asarray(index)[c.indices], c.indptr), shape=(c.shape[0], n_classes)
        )
        return SparseCounts(weight, _canonical(moved))

    # --- columns (terms) ------------------------------------------------------------------
    def take_columns(self, index: np.ndarray, found: np.ndarray | None = None) -> SparseCounts:
        index = np.asarray(index)
        if index.dtype == bool:  # a mask, as numpy reads one
            index = np.flatnonzero(index)
        return SparseCounts(self.weight, _take_rows(self.cells, index, found))

    def place_columns(self, index: np.ndarray, n_features: int) -> SparseCounts:
        source = np.full(n_features, -1, dtype=np.int64)
        source[index] = np.arange(len(index))
        found = source >= 0
        return SparseCounts(self.weight, _take_rows(self.cells, np.maximum(source, 0), found))

    def merge_columns(
        self, at: np.ndarray, other: Counts, at_other: np.ndarray, n: int
    ) -> SparseCounts:
        theirs = SparseCounts.of(other).place_columns(at_other, n)
        return self._sum(self.place_columns(at, n), theirs)

    def inserts(self, other: object) -> bool:
        """Whether :meth:`insert_columns` takes ``other``: counts of as many classes,
        without missing values."""
        return (
            isinstance(other, Counts)
            and other.n_classes == self.n_classes
            and (isinstance(other, SparseCounts) or other.missing is None)
        )

    def insert_columns(self, where: np.ndarray, other: Any, at: np.ndarray) -> SparseCounts:
        """``merge_columns`` for a few columns ``other`` (a learned message's) added to many:
        empty columns inserted before columns ``where`` of these (sorted), then ``other``'s
        columns added at places ``at`` of the result (sorted, distinct); ``other`` is a
        :class:`Counts` that :meth:`inserts` takes.

        The same sum as placing both by position and adding them, but this statistic's cells
        are not moved: an inserted column is one more entry of the pointer, where placing
        every column by position gathers every cell (most of a one-message learn of a
        20 Newsgroups model)."""
        c = self.cells
        pointer = np.asarray(c.indptr, dtype=np.int64)
        if len(where):
            pointer = spread(pointer, np.asarray(where), axis=0, fill=pointer[where])
        n = self.n_features + len(where)
        mine = sp.csr_matrix((c.data, c.indices, pointer), shape=(n, self.n_classes))
        mine.has_sorted_indices = True
        theirs = SparseCounts.of(other).cells
        lengths = np.zeros(n, dtype=np.int64)
        lengths[np.asarray(at)] = np.diff(theirs.indptr)
        placed = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=placed[1:])
        moved = sp.csr_matrix((theirs.data, theirs.indices, placed), shape=(n, self.n_classes))
        moved.has_sorted_indices = True
        return self._sum(SparseCounts(self.weight, mine), SparseCounts(other.weight, moved))

    def join_columns(self, other: Counts) -> SparseCounts:
        cells = sp.vstack([self.cells, SparseCounts.of(other).cells], "csr")
        return SparseCounts(self.weight, _canonical(cells))

    def seen_columns(self, tolerance: Tolerance) -> np.ndarray:
        c = self.cells
        tol = self._of_each_class(tolerance)
        rows = np.repeat(np.arange(c.shape[0]), np.diff(c.indptr))
        seen = np.zeros(c.shape[0], dtype=bool)
        seen[rows[np.abs(c.data) > tol[c.indices]]] = True
        return seen

    def overflow(self) -> tuple[str, tuple[int, ...], float] | None:
        # Statistic.overflow's quick test (every entry finite, no sum over the classes beyond
        # float64) on the cells: the full array's other entries are zeros
        k = self.n_classes
        for values in (self.weight, self.cells.data):
            low, high = (float(values.min()), float(values.max())) if values.size else (0, 0)
            if not (-np.inf < low and high < np.inf and max(-low, high) * k < 1e307):
                return self.dense().overflow()  # found and named as in the full array
        return None

    # --- model files ------------------------------------------------------------------------
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        c = self.cells
        arrays = {
            "weight": self.weight,
            "values": c.data,
            "classes": np.asarray(c.indices, np.int32),
            "pointer": np.asarray(c.indptr, np.int64),
        }
        return arrays, {}

    @classmethod
    def read_size(cls, arrays: Mapping[str, Any]) -> int:
        # the float64 copies check_arrays makes; the classes as int32 (the matrix's index
        # type) and the mask of their order; the pointer as int64, as int32 and its masks
        size = super().read_size({k: arrays.get(k) for k in ("weight", "values")})
        n, f = (np.size(arrays.get(k, ())) for k in ("classes", "pointer"))
        return size + 5 * n + 32 * f

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> SparseCounts:
        checked = check_arrays(
            cls.kind,
            {"weight": arrays.get("weight"), "values": arrays.get("values")},
            ndim={"weight": 1, "values": 1},
        )
        if len(checked) != 2:
            raise ModelFileError("a sparse_counts statistic needs its arrays 'weight' and 'values'")
        weight, values = checked["weight"], checked["values"]
        classes, pointer = (_integers(arrays.get(name), name) for name in ("classes", "pointer"))
        n = len(values)
        if len(classes) != n or not len(pointer) or pointer[0] != 0 or pointer[-1] != n:
            raise ModelFileError(
                "the sparse_counts statistic's cells do not match: 'pointer' must run from 0 to "
                "the number of 'values', and 'classes' hold one class a value"
            )
        # (compared in place, not through np.diff: the cells' size in int64 is not read_size's)
        if (pointer[1:] < pointer[:-1]).any():
            raise ModelFileError("the sparse_counts statistic's array 'pointer' decreases")
        if n and (classes.min() < 0 or classes.max() >= len(weight)):
            raise ModelFileError(
                f"the sparse_counts statistic's array 'classes' holds a class outside 0 to "
                f"{len(weight) - 1}"
            )
        # each term's classes sorted and distinct (a new term may start lower)
        rising = classes[1:] > classes[:-1]
        starts = pointer[1:-1]
        rising[starts[(starts > 0) & (starts < n)] - 1] = True
        if not rising.all():
            raise ModelFileError(
                "the sparse_counts statistic's classes are not sorted and distinct within a term"
            )
        cells = sp.csr_matrix(
            (values, classes.astype(np.int32, copy=False), pointer.astype(np.int64, copy=False)),
            shape=(len(pointer) - 1, len(weight)),
        )
        return cls(weight, _canonical(cells))


def _integers(array: Any, name: str) -> np.ndarray:
    """A model file's one-dimensional array of integers ``name`` (of the type it was stored
    as: the classes are int32, as the matrix keeps them)."""
    if not isinstance(array, np.ndarray) or array.ndim != 1 or array.dtype.kind not in "iu":
        raise ModelFileError(
            f"the sparse_counts statistic's array {name!r} must be one-dimensional integers"
        )
    return array


def pairwise_row_sums(cells: Any) -> np.ndarray:
    """Each row's sum of a CSR matrix of at most 128 columns, as numpy sums the row of the
    full matrix laid out contiguously (its pairwise summation: eight partial sums, added in
    pairs, then the last ``n % 8`` values one by one; fewer than eight values one by one), so
    that a term's pooled count is the full array's ``total.sum(axis=0)`` bit for bit."""
    from ._sparse_sums import pairwise_row_sums as kernel

    return kernel(cells.indptr, cells.indices, np.asarray(cells.data, np.float64), cells.shape[1])


def _canonical(cells: Any) -> Any:
    """``cells`` as CSR with sorted indices, no duplicates and no stored zero."""
    cells = sp.csr_matrix(cells)
    cells.sum_duplicates()
    cells.eliminate_zeros()
    return cells


def _keep_classes(cells: Any, keep: np.ndarray) -> Any:
    """The columns (classes) ``keep`` (sorted) of a CSR matrix, renumbered in that order."""
    new = np.full(cells.shape[1], -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    where = new[cells.indices]
    kept = where >= 0
    rows = np.repeat(np.arange(cells.shape[0]), np.diff(cells.indptr))[kept]
    return sp.csr_matrix((cells.data[kept], (rows, where[kept])), shape=(cells.shape[0], len(keep)))


def _take_rows(cells: Any, index: np.ndarray, found: np.ndarray | None) -> Any:
    """Rows ``index`` of a CSR matrix, in that order; where ``found`` is False, empty rows."""
    index = np.asarray(index, dtype=np.int64)
    if cells.shape[0] == 0:  # (no row to take: every row asked for is one of zeros)
        return sp.csr_matrix((len(index), cells.shape[1]))
    starts = cells.indptr[index].astype(np.int64)
    lengths = cells.indptr[index + 1].astype(np.int64) - starts
    if found is not None:
        lengths = lengths * np.asarray(found, dtype=bool)
    pointer = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(lengths, out=pointer[1:])
    at = np.repeat(starts - pointer[:-1], lengths) + np.arange(pointer[-1])
    out = sp.csr_matrix(
        (cells.data[at], cells.indices[at], pointer), shape=(len(index), cells.shape[1])
    )
    out.has_sorted_indices = True
    return out
