"""Per-class centred moments of real-valued features: weight, mean and M2, merged with Chan's
formula (never raw power sums, which lose every digit when the mean is large against the
spread)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import MergeError, ModelFileError
from ._base import Statistic, hard_labels


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den`` is 0 (a class that has no value of a feature)."""
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape))
    np.divide(num, den, out=out, where=den != 0)
    return out


@dataclass(frozen=True, eq=False)
class Moments(Statistic):
    """Weighted count, mean and sum of squared deviations of each feature in each class.

    Parameters
    ----------
    weight : ndarray of shape (n_classes, n_features)
        Total weight of the rows of each class in which the feature is observed (missing
        values do not count, so the weight can differ between features).
    mean : ndarray of shape (n_classes, n_features)
        Weighted mean of the observed values (0 where the weight is 0).
    m2 : ndarray of shape (n_classes, n_features)
        ``Σ_i r_ic (x_ij − mean_cj)²`` over the observed values: the variance times the weight.

    Two statistics add by Chan et al.'s parallel formula, which is exact, associative and
    commutative; adding a statistic with negated weight and M2 (``-s``) removes its data.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[1.0], [3.0], [10.0], [np.nan]])
    >>> R = sp.csr_matrix(np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]]))
    >>> s = Moments.of(X[:2], R[:2]) + Moments.of(X[2:], R[2:])
    >>> s.weight.tolist(), s.mean.tolist(), s.m2.tolist()
    ([[2.0], [1.0]], [[2.0], [10.0]], [[2.0], [0.0]])
    """

    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    kind = "moments"

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> Moments:
        """The additive identity."""
        z = np.zeros((n_classes, n_features))
        return cls(z, z.copy(), z.copy())

    @classmethod
    def of(cls, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Moments:
        """The moments of a dense float block ``X`` (NaN = missing) under class weights ``R``.

        Two passes: the class means first, then the squared deviations from them.
        """
        X = np.asarray(X, dtype=np.float64)
        observed = ~np.isnan(X)
        some_missing = not observed.all()
        Xz = np.where(observed, X, 0.0) if some_missing else X
        present = observed.astype(np.float64)
        Rd = R.toarray() if sp.issparse(R) and R.shape[1] * R.shape[0] <= 1 << 22 else R
        weight = np.asarray(Rd.T @ present, dtype=np.float64)
        mean = _ratio(np.asarray(Rd.T @ Xz, dtype=np.float64), weight)
        labels = hard_labels(R)
        if labels is not None:
            codes = labels[0]
            dev = Xz - mean[codes]
            if some_missing:
                dev *= present
            m2 = np.asarray(Rd.T @ (dev * dev), dtype=np.float64)
        else:
            # Soft labels (EM responsibilities): every row belongs to every class in part,
            # so the deviations are taken from each class mean in turn.
            Rs = np.asarray(R.toarray() if sp.issparse(R) else R, dtype=np.float64)
            m2 = np.empty_like(mean)
            for c in range(Rs.shape[1]):
                dev = (Xz - mean[c]) * present
                m2[c] = Rs[:, c] @ (dev * dev)
        return cls(weight, mean, m2)

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[1])

    @property
    def variance(self) -> np.ndarray:
        """Weighted (biased) variance ``m2 / weight``; 0 where the weight is 0."""
        return _ratio(np.maximum(self.m2, 0.0), self.weight)

    def pooled(self) -> Moments:
        """The classes merged into one (a statistic with a single class)."""
        weight = self.weight.sum(axis=0, keepdims=True)
        mean = _ratio((self.weight * self.mean).sum(axis=0, keepdims=True), weight)
        m2 = (self.m2 + self.weight * (self.mean - mean) ** 2).sum(axis=0, keepdims=True)
        return Moments(weight, mean, m2)

    def _add(self, other: Moments) -> Moments:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add moments over {self.n_features} and {other.n_features} features"
            )
        na, nb = self.weight, other.weight
        n = na + nb
        delta = other.mean - self.mean
        mean = np.where(n != 0, self.mean + _ratio(delta * nb, n), 0.0)
        m2 = np.where(n != 0, self.m2 + other.m2 + _ratio(delta * delta * na * nb, n), 0.0)
        return Moments(n, mean, m2)

    def weights(self) -> tuple[np.ndarray, ...]:
        return self.weight, self.mean, self.m2

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> Moments:
        weight, mean, m2 = arrays
        return Moments(weight, mean, m2)

    def __neg__(self) -> Moments:
        # Chan's formula with weight −n and M2 −M2 is the exact inverse of adding: the mean
        # is a location, not a weight, and stays.
        return Moments(-self.weight, self.mean, -self.m2)

    def min_weight(self) -> float:
        return float(self.weight.min(initial=0.0))

    def cleaned(self, keep: np.ndarray, tolerance: float) -> Moments:
        weight = np.where(np.abs(self.weight) <= tolerance, 0.0, self.weight)
        empty = weight == 0
        mean = np.where(empty, 0.0, self.mean)
        # Removing data leaves M2 with rounding residue of either sign.
        m2 = np.where(empty, 0.0, np.maximum(self.m2, 0.0))
        return Moments(weight[keep], mean[keep], m2[keep])

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return {"weight": self.weight, "mean": self.mean, "m2": self.m2}, {}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Moments:
        weight, mean, m2 = (
            np.asarray(arrays[k], dtype=np.float64) for k in ("weight", "mean", "m2")
        )
        if weight.ndim != 2 or weight.shape != mean.shape or weight.shape != m2.shape:
            raise ModelFileError("moments arrays have inconsistent shapes")
        if not (np.isfinite(weight).all() and np.isfinite(mean).all() and np.isfinite(m2).all()):
            raise ModelFileError("moments arrays hold NaN or inf")
        if (weight < 0).any() or (m2 < 0).any():
            raise ModelFileError("moments arrays hold a negative weight or M2")
        return cls(weight, mean, m2)
