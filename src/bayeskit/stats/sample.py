"""The weighted sample itself: the statistic of nonparametric families (kernel density,
discretization), whose parameters depend on every value, not on a few sums."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from ..errors import MergeError, ModelFileError
from ._base import Statistic, Tolerance, check_arrays, per_class


@dataclass(frozen=True, eq=False)
class Sample(Statistic):
    """Rows of real values with the class weight of each row.

    Parameters
    ----------
    weight : ndarray of shape (n_classes, n_rows)
        ``R.T``: the weight of each row in each class (one-hot labels × sample weights, or
        soft responsibilities).
    values : ndarray of shape (n_rows, n_features)
        The rows; NaN marks a missing value.

    Adding two samples concatenates them. Removing data (``a + (-b)``) appends ``b``'s rows
    with negative weight; :meth:`without_empty` then cancels them against the rows they
    remove, so an unlearned sample holds exactly the rows that are left.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> a = Sample.of(np.array([[1.0], [2.0]]), sp.csr_matrix(np.eye(2)))
    >>> b = Sample.of(np.array([[5.0]]), sp.csr_matrix(np.array([[0.0, 1.0]])))
    >>> s = a + b
    >>> s.values.ravel().tolist(), s.weight.tolist()
    ([1.0, 2.0, 5.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    >>> (s + (-b)).without_empty(1e-9).values.ravel().tolist()
    [1.0, 2.0]
    """

    weight: np.ndarray
    values: np.ndarray

    kind = "sample"
    signed_arrays = frozenset({"values"})
    missing_arrays = frozenset({"values"})

    @classmethod
    def of(cls, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Sample:
        """The sample of a dense float block ``X`` (NaN = missing) under class weights ``R``."""
        W = R.T.toarray() if sp.issparse(R) else np.asarray(R).T
        return cls(np.asarray(W, dtype=np.float64), np.array(X, dtype=np.float64))

    @property
    def n_features(self) -> int:
        return int(self.values.shape[1])

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])

    def _add(self, other: Sample) -> Sample:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add samples over {self.n_features} and {other.n_features} features"
            )
        return Sample(
            np.concatenate([self.weight, other.weight], axis=1),
            np.concatenate([self.values, other.values], axis=0),
        )

    def weights(self) -> tuple[np.ndarray, ...]:
        return (self.weight,)

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> Sample:
        (weight,) = arrays
        return Sample(weight, self.values)

    def netted(self) -> Sample:
        """Identical rows of one class as one row of their summed weight, wherever that can
        change an estimate: when a weight is negative (removed rows) or fractional.

        A leave-one-out rule leaves ``min(w, 1)`` of a row out, so two rows of weight 0.3
        and 0.4 and one row of 0.7 at the same point would give two models; an unlearn nets
        the rows it leaves, so without this a fit, a learn and its unlearn chose other
        bandwidths than the fit. Whole weights give the same numbers either way (a row of
        weight 2 leaves out 1 and keeps the other copy), so they are left as they are.
        """
        weight = self.weight
        if (weight < 0).any() or (weight != np.floor(weight)).any():
            return self._net(always=True)
        return self

    def _net(self, always: bool = False) -> Sample:
        """Identical rows of one class merged (their weights summed), in first-seen order:
        each row stays in one class. (Merged across classes, a value two classes share
        became one row weighing in both, which the family choice's folds, by each row's
        class, put in one class's fold: a fit, a learn and its unlearn chose other families
        than the fit.)"""
        if not always and not (self.weight < 0).any():
            return self
        row, klass = np.nonzero(self.weight.T)  # (row-major: the rows' own order)
        values = np.ascontiguousarray(self.values[row])
        width = values.dtype.itemsize * self.n_features
        keyed = np.empty((len(row), width + 8), dtype=np.uint8)
        keyed[:, :8] = klass.astype(np.int64)[:, None].view(np.uint8)
        keyed[:, 8:] = values.reshape(len(row), -1).view(np.uint8)[:, :width]
        keys = keyed.view(np.dtype((np.void, width + 8))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        group = rank[inverse.ravel()]
        weight = np.zeros((self.weight.shape[0], len(first)))
        np.add.at(weight, (klass[first[order]][group], group), self.weight[klass, row])
        return Sample(weight, values[first[order]])

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        total = self.weight.sum(axis=1)  # every row, its values missing or not
        return total, total

    def min_weights(self) -> np.ndarray:
        return self._net().weight.min(axis=1, initial=0.0)

    def without_empty(self, tolerance: Tolerance) -> Sample:
        net = self._net()
        weight = np.where(np.abs(net.weight) <= per_class(tolerance, net.weight), 0.0, net.weight)
        keep = weight.any(axis=0)
        if keep.all() and net is self:
            return self
        return Sample(weight[:, keep], net.values[keep])

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return {"weight": self.weight, "values": self.values}, {}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Sample:
        checked = check_arrays(
            cls.kind,
            {"weight": arrays["weight"], "values": arrays["values"]},
            signed=cls.signed_arrays,
            missing_ok=cls.missing_arrays,
            ndim={"weight": 2, "values": 2},
        )
        weight, values = checked["weight"], checked["values"]
        if weight.shape[1] != values.shape[0]:
            raise ModelFileError("sample arrays have inconsistent shapes")
        return cls(weight, values)
