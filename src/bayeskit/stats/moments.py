"""Per-class centred moments of real-valued features: weight, mean and M2, merged with Chan's
formula (never raw power sums, which lose every digit when the mean is large against the
spread)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._jit import SMALL_TABLE, njit
from .._lazy import sparse as sp
from ..errors import MergeError, ModelFileError
from ._base import Statistic, Tolerance, check_arrays, hard_labels, per_class, safe_ratio

#: Relative size of rounding residue when subtracting M2 terms (a few ulps times the number of
#: terms each was summed from, with margin).
_CANCELLATION = 1e-11
#: How many ulps of the terms of a removal (``a + (-b)``: the kept and removed M2, the
#: between-means term, and that term's error from the two means' own rounding) an M2 may fall
#: below 0 by rounding alone. Removals of rows that were learned, measured over random data
#: with means up to 1e12 times the spread, classes of up to 5e4 rows and weights over six
#: decades, fell at most ~500 ulps below 0 (growing like the root of the rows summed); rows
#: never learned fall below 0 by about the M2 itself (~1e15 ulps and more), and are refused.
_REMOVAL_ULPS = 1e6
_EPS = float(np.finfo(np.float64).eps)
#: Weights of a (class, feature)'s observed values summing below this may lose digits in
#: their products with small values: on the one-hot path, scaled weights (scaled down by a
#: much heavier row of the class whose value is missing, see _labelled_moments), which are
#: scaled again by their own largest; on the soft path, the plain weights (an EM component
#: with vanishing responsibilities), whose class is summed scaled (:func:`_soft_means_scaled`).
_LOST = 2.0**-40


@njit(nogil=True)
def _power_scale(top: float) -> float:  # pragma: no cover
    """The power of two that brings ``top`` (> 0) to [1/2, 1) (``frexp``'s exponent, exact);
    at most 2^1000 up, so that the scale of a subnormal weight is finite."""
    return math.ldexp(1.0, min(-math.frexp(top)[1], 1000))


def _power_scales(top: np.ndarray) -> np.ndarray:
    """:func:`_power_scale` of each of ``top`` (1 where it is 0), by numpy."""
    exponent = np.frexp(top)[1]
    return np.where(top > 0, np.ldexp(1.0, np.minimum(-exponent, 1000)), 1.0)


@njit(nogil=True)
def _scaled_sums(
    X: np.ndarray, codes: np.ndarray, w: np.ndarray, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """Per class and feature, over the observed entries: the weights, the weights times
    ``scale`` and the scaled weights times the values."""
    n, d = X.shape
    weight = np.zeros(scale.shape)
    scaled = np.zeros(scale.shape)
    total = np.zeros(scale.shape)
    for i in range(n):
        c, wi = codes[i], w[i]
        for j in range(d):
            x = X[i, j]
            if x == x:
                ws = wi * scale[c, j]
                weight[c, j] += wi
                scaled[c, j] += ws
                total[c, j] += ws * x
    return weight, scaled, total


@njit(nogil=True)
def _class_scales(
    codes: np.ndarray, w: np.ndarray, n_classes: int
) -> np.ndarray:  # pragma: no cover
    """Each class's scale of its weights: a power of two that brings the largest of them to
    [1/2, 1), then one that brings their sum so scaled to [1/2, 1) where it is above (never
    up again). Scaled weights summing to at most 1 make ``Σ w x`` at most the largest
    ``|x|``: it overflows only where the mean rounds past the largest float (values within
    a few ulps of it)."""
    top = np.zeros(n_classes)
    for i in range(codes.shape[0]):
        top[codes[i]] = max(top[codes[i]], w[i])
    first = np.ones(n_classes)
    for c in range(n_classes):
        if top[c] > 0.0:
            first[c] = _power_scale(top[c])
    mass = np.zeros(n_classes)
    for i in range(codes.shape[0]):
        mass[codes[i]] += w[i] * first[codes[i]]
    for c in range(n_classes):
        if mass[c] > 0.0:
            first[c] *= min(_power_scale(mass[c]), 1.0)
    return first


@njit(nogil=True)
def _labelled_moments(
    X: np.ndarray, codes: np.ndarray, w: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """(weight, mean, M2) per class and feature of rows with one class each (``codes``) and
    weights ``w``; NaN entries skipped.

    The mean is taken with each class's weights scaled by powers of two (exact: the same
    mean; :func:`_class_scales`), so ``Σ w x`` neither overflows for weights up to 1e308 or
    values up to 1.79e308 nor vanishes for weights near 1e-300. Where that leaves the weights
    of a (class, feature)'s observed values summing below 2^-40 (a row whose value is missing
    weighs 1e12 times more), every (class, feature) is scaled again by the largest and the
    sum of its own observed weights: a row of weight 1e-120 beside a missing value of weight
    1e213 keeps its value, not 0. So the mean keeps every digit for values of magnitude above
    about 2^-980 times the rows of the class, from rows whose weights lie within a factor of
    about 2^980 of the class's largest; below, the products are subnormal."""
    n, d = X.shape
    scale = np.ones((n_classes, d))
    first = _class_scales(codes, w, n_classes)
    for c in range(n_classes):
        scale[c, :] = first[c]
    weight, scaled, total = _scaled_sums(X, codes, w, scale)
    if np.any((weight > 0) & (scaled < _LOST)):
        observed_top = np.zeros((n_classes, d))
        for i in range(n):
            c = codes[i]
            for j in range(d):
                if X[i, j] == X[i, j]:
                    observed_top[c, j] = max(observed_top[c, j], w[i])
        for c in range(n_classes):
            for j in range(d):
                if observed_top[c, j] > 0.0:
                    scale[c, j] = _power_scale(observed_top[c, j])
        weight, scaled, total = _scaled_sums(X, codes, w, scale)
        if np.any(scaled >= 1.0):
            for c in range(n_classes):
                for j in range(d):
                    if scaled[c, j] > 0.0:
                        scale[c, j] *= min(_power_scale(scaled[c, j]), 1.0)
            weight, scaled, total = _scaled_sums(X, codes, w, scale)
    mean = np.zeros((n_classes, d))
    for c in range(n_classes):
        for j in range(d):
            if scaled[c, j] != 0:
                mean[c, j] = total[c, j] / scaled[c, j]
    m2 = np.zeros((n_classes, d))
    for i in range(n):
        c, wi = codes[i], w[i]
        for j in range(d):
            x = X[i, j]
            if x == x:
                z = x - mean[c, j]
                m2[c, j] += wi * z * z
    return weight, mean, m2


def _labelled_moments_small(
    X: np.ndarray, codes: np.ndarray, w: np.ndarray, n_classes: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_labelled_moments` by numpy for a small table, bit for bit: ``bincount`` takes
    each (class, column) sum row after row, as the loop does (a term the loop skips adds
    +0.0 here, which changes no sum), so a one-line script pays neither numba's import nor
    its compiler (half a second) for microseconds of work."""
    n_features = X.shape[1]
    observed = X == X
    keys = (codes[:, None] * n_features + np.arange(n_features)).ravel()
    top = np.zeros(n_classes)
    np.maximum.at(top, codes, w)
    first = _power_scales(top)
    mass = np.bincount(codes, w * first[codes], n_classes)
    first = first * np.minimum(_power_scales(mass), 1.0)
    scale = np.repeat(first[:, None], n_features, axis=1)

    def sums(terms: np.ndarray) -> np.ndarray:
        flat = np.where(observed, terms, 0.0).ravel()
        return np.bincount(keys, flat, n_classes * n_features).reshape(n_classes, n_features)

    def scaled_sums(scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with np.errstate(over="ignore", invalid="ignore"):  # (only where a value is missing)
            ws = w[:, None] * scale[codes]
            weighted = ws * X
        return sums(w[:, None]), sums(ws), sums(weighted)

    weight, scaled, total = scaled_sums(scale)
    if np.any((weight > 0) & (scaled < _LOST)):
        observed_top = np.zeros(n_classes * n_features)
        np.maximum.at(observed_top, keys, np.where(observed, w[:, None], 0.0).ravel())
        observed_top = observed_top.reshape(n_classes, n_features)
        scale = np.where(observed_top > 0, _power_scales(observed_top), scale)
        weight, scaled, total = scaled_sums(scale)
        if np.any(scaled >= 1.0):
            scale = np.where(scaled > 0, scale * np.minimum(_power_scales(scaled), 1.0), scale)
            weight, scaled, total = scaled_sums(scale)
    # (silent past the largest float, as the compiled loop is: a mean within ulps of it)
    with np.errstate(over="ignore"):
        mean = np.divide(total, scaled, out=np.zeros_like(total), where=scaled != 0)
    z = X - mean[codes]
    return weight, mean, sums(w[:, None] * z * z)


@njit(nogil=True)
def _soft_m2(X: np.ndarray, R: np.ndarray, mean: np.ndarray) -> np.ndarray:  # pragma: no cover
    """``Σ_i R[i, c] (X[i, j] − mean[c, j])²`` over the observed entries."""
    n, d = X.shape
    m2 = np.zeros(mean.shape)
    for i in range(n):
        for c in range(R.shape[1]):
            r = R[i, c]
            if r == 0:
                continue
            for j in range(d):
                x = X[i, j]
                if x == x:
                    z = x - mean[c, j]
                    m2[c, j] += r * z * z
    return m2


def _soft_means(X: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(weight, mean) of each class and feature under soft class weights ``R`` (n, k) over
    the observed entries of ``X``."""
    if np.isfinite(X.sum()):
        # Complete data (the common case, and every EM iteration on it): the class sums are
        # one small matrix product, without the masks missing values need.
        weight = np.repeat(R.sum(axis=0)[:, None], X.shape[1], axis=1)
        return weight, safe_ratio(R.T @ X, weight)
    observed = ~np.isnan(X)
    weight = R.T @ observed.astype(np.float64)
    return weight, safe_ratio(R.T @ np.where(observed, X, 0.0), weight)


def _soft_means_scaled(X: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_soft_means` for classes whose plain sums pass float64 (weights near 1e300,
    values near 1e308) or whose observed weights of a feature sum below 2^-40 (``_LOST``):
    each (class, feature)'s weights of its observed values scaled by a power of two that
    brings the largest of them to [1/2, 1), then one that brings their sum to [1/2, 1) where
    it is above, which leaves every ratio as it was and overflows only where the mean rounds
    past the largest float. One class at a time: a fall-back, whose (rows, features) arrays
    stay one class's."""
    observed = ~np.isnan(X)
    values = np.where(observed, X, 0.0)
    weight = np.zeros((R.shape[1], X.shape[1]))
    mean = np.zeros_like(weight)
    for c in range(R.shape[1]):
        r = R[:, c, None] * observed
        scaled = r * _power_scales(r.max(axis=0, initial=0.0))
        scaled *= np.minimum(_power_scales(scaled.sum(axis=0)), 1.0)
        weight[c] = r.sum(axis=0)
        mean[c] = safe_ratio((scaled * values).sum(axis=0), scaled.sum(axis=0))
    return weight, mean


def rounding_variance(mean: np.ndarray, ulps: float = 1e3) -> np.ndarray:
    """The variance a constant feature shows from rounding alone: its centred values are
    then about ``eps · |mean|`` (scikit-learn's estimator checks gave 1.2e-32 for 0.1);
    ``ulps`` of them allowed. A variance at or below it is no spread."""
    with np.errstate(over="ignore"):
        return np.square(ulps * np.finfo(np.float64).eps * np.abs(mean))


def pooled_spread(
    weight: np.ndarray, mean: np.ndarray, m2: np.ndarray, variance: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(total weight, mean, variance) of each feature over all classes, from the classes'
    (n_classes, n_features) weights, means and M2 (or variances, ``m2 / weight``).

    Computed as weighted sums divided by the total weight (the rounding every earlier
    release had); where a product of a weight with a value overflows (weights near 1e308),
    from each class's share of the weight instead, which cannot overflow."""
    total = weight.sum(axis=0)
    var = safe_ratio(np.maximum(m2, 0.0), weight) if variance is None else variance
    var = np.maximum(var, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        pooled_mean = safe_ratio((weight * mean).sum(axis=0), total)
        within = np.maximum(m2, 0.0) + weight * (mean - pooled_mean) ** 2
        pooled_var = safe_ratio(within.sum(axis=0), total)
    wide = ~(np.isfinite(pooled_mean) & np.isfinite(pooled_var))
    if wide.any():
        share = safe_ratio(weight[:, wide], total[wide])
        pooled_mean[wide] = (share * mean[:, wide]).sum(axis=0)
        deviation = (mean[:, wide] - pooled_mean[wide]) ** 2
        pooled_var[wide] = (share * (var[:, wide] + deviation)).sum(axis=0)
    return total, pooled_mean, pooled_var


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
    #: The floating dtype of the data the moments describe ("float32" or "float64"): the
    #: moments themselves are always float64, but a model fitted on float32 data reports its
    #: parameters in float32, as scikit-learn's GaussianNB does. A sum keeps the first's.
    dtype: str = "float64"

    kind = "moments"
    signed_arrays = frozenset({"mean"})

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> Moments:
        """The additive identity."""
        z = np.zeros((n_classes, n_features))
        return cls(z, z.copy(), z.copy())

    @classmethod
    def of(cls, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Moments:
        """The moments of a dense float block ``X`` (NaN = missing) under class weights ``R``.

        Two passes: the class means first, then the squared deviations from them (compiled
        loops: the cost is that of reading X twice, whatever the number of classes).
        """
        X = np.ascontiguousarray(X, dtype=np.float64)
        labels = hard_labels(R)
        if labels is not None:
            codes, w = labels
            moments = _labelled_moments_small if X.size <= SMALL_TABLE else _labelled_moments
            weight, mean, m2 = moments(X, codes.astype(np.int64), w.astype(np.float64), R.shape[1])
            return cls(weight, mean, m2)
        # Soft labels (EM responsibilities): every row belongs to every class in part.
        dense = R.toarray() if isinstance(R, (sp.spmatrix, sp.sparray)) else R
        Rs = np.ascontiguousarray(dense, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            weight, mean = _soft_means(X, Rs)
        # Only the classes whose plain sums overflowed or whose observed weights of some
        # feature sum below _LOST (an EM component with vanishing responsibilities; a
        # feature observed only in a class's lightest rows) pay the scaled passes.
        redo = ~(np.isfinite(mean).all(axis=1) & np.isfinite(weight).all(axis=1))
        redo |= ((weight > 0) & (weight < _LOST)).any(axis=1)
        if redo.any():
            with np.errstate(over="ignore"):  # (a mean within ulps of the largest float)
                weight[redo], mean[redo] = _soft_means_scaled(X, Rs[:, redo])
        m2 = _soft_m2(X, Rs, mean)
        return cls(weight, mean, m2)

    @property
    def n_features(self) -> int:
        return int(self.mean.shape[1])

    @property
    def variance(self) -> np.ndarray:
        """Weighted (biased) variance ``m2 / weight``; 0 where the weight is 0."""
        return safe_ratio(np.maximum(self.m2, 0.0), self.weight)

    def pooled(self) -> Moments:
        """The classes merged into one (a statistic with a single class)."""
        weight, mean, variance = pooled_spread(self.weight, self.mean, self.m2)
        return Moments(weight[None, :], mean[None, :], (variance * weight)[None, :], self.dtype)

    def _add(self, other: Moments) -> Moments:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add moments over {self.n_features} and {other.n_features} features"
            )
        na, nb = self.weight, other.weight
        n = na + nb
        delta = other.mean - self.mean
        with np.errstate(over="ignore", invalid="ignore"):
            mean = np.where(n != 0, self.mean + safe_ratio(delta * nb, n), 0.0)
            between = safe_ratio(delta * delta * na * nb, n)
            wide = ~(np.isfinite(mean) & np.isfinite(between))
            if wide.any():
                # Weights near 1e308: the weights' ratio first, as delta × weight overflows
                # where the result need not.
                ratio = safe_ratio(nb, n)
                mean = np.where(wide, self.mean + delta * ratio, mean)
                between = np.where(wide, delta * delta * (na * ratio), between)
        m2 = self.m2 + other.m2 + between
        # Removing data (negative weight) cancels terms: a result within rounding of the terms
        # is an M2 of exactly 0 (a class left with one value), as fitting those rows gives;
        # otherwise the residue would stand in for a variance below the floor. Adding data
        # (all terms >= 0) is unaffected.
        terms = np.abs(self.m2) + np.abs(other.m2) + np.abs(between)
        noise = _CANCELLATION * terms
        m2 = np.where((n != 0) & (np.abs(m2) > noise), m2, 0.0)
        if (m2 < 0).any():
            # Below 0 beyond the residue: rounding still, within _REMOVAL_ULPS of the terms
            # (the between-means term cancels most where the means are large against the
            # spread: its error is that of ``delta`` from the means' own last digits), is an
            # M2 of 0; further below, no rows have it (rows removed that were never learned,
            # or with another label or weight) and it stays negative, for :meth:`invalid`.
            with np.errstate(over="ignore", invalid="ignore"):
                ulp = _EPS * (np.abs(self.mean) + np.abs(other.mean))
                spread = np.abs(safe_ratio(na * nb, n)) * (2.0 * np.abs(delta) * ulp + ulp * ulp)
                slack = _REMOVAL_ULPS * (_EPS * terms + spread)
            m2 = np.where((m2 < 0) & ~(m2 < -slack), 0.0, m2)
        return Moments(n, mean, m2, self.dtype)

    def weights(self) -> tuple[np.ndarray, ...]:
        return self.weight, self.mean, self.m2

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> Moments:
        weight, mean, m2 = arrays
        return Moments(weight, mean, m2, self.dtype)

    def __neg__(self) -> Moments:
        # Chan's formula with weight −n and M2 −M2 is the exact inverse of adding: the mean
        # is a location, not a weight, and stays.
        return Moments(-self.weight, self.mean, -self.m2, self.dtype)

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        # each feature's weight is that of the rows in which it is observed: at most all of
        # them (rows missing every value count in none)
        k = self.n_classes
        least = self.weight.max(axis=1) if self.n_features else np.zeros(k)
        return least, np.full(k, np.inf)

    def min_weights(self) -> np.ndarray:
        return self.weight.min(axis=1, initial=0.0)

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> Moments:
        weight = np.where(
            np.abs(self.weight) <= per_class(tolerance, self.weight), 0.0, self.weight
        )
        empty = weight == 0
        mean = np.where(empty, 0.0, self.mean)
        # Removing data leaves M2 with rounding residue, made 0 by the sum (``_add``): an M2
        # still negative is of rows never learned, which :meth:`invalid` names.
        m2 = np.where(empty, 0.0, self.m2)
        return Moments(weight[keep], mean[keep], m2[keep], self.dtype)

    def invalid(self) -> tuple[str, int, str] | None:
        """The first class with a negative M2 (a sum of squared deviations): what removing
        rows never learned leaves (rows far from the class's, or learned under another label
        or weight), beyond the rounding a removal of learned rows leaves (``_REMOVAL_ULPS``).
        No rows give it; clipped to 0, it would make every variance of the class its floor."""
        negative = self.m2 < 0
        if not negative.any():
            return None
        c, j = (int(i) for i in np.argwhere(negative)[0])
        return "m2", c, f"is negative at feature {j} ({float(self.m2[c, j]):.6g})"

    def as_dtype(self, dtype: str) -> Moments:
        """The same moments, describing data of ``dtype`` ("float32" or "float64")."""
        return Moments(self.weight, self.mean, self.m2, dtype)

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        meta = {} if self.dtype == "float64" else {"dtype": self.dtype}
        return {"weight": self.weight, "mean": self.mean, "m2": self.m2}, meta

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Moments:
        checked = check_arrays(
            cls.kind,
            {k: arrays[k] for k in ("weight", "mean", "m2")},
            signed=cls.signed_arrays,
            ndim={"weight": 2, "mean": 2, "m2": 2},
        )
        weight, mean, m2 = checked["weight"], checked["mean"], checked["m2"]
        if weight.shape != mean.shape or weight.shape != m2.shape:
            raise ModelFileError("moments arrays have inconsistent shapes")
        dtype = meta.get("dtype", "float64")
        if dtype not in ("float32", "float64"):
            raise ModelFileError(f"moments of data of dtype {dtype!r}; float32 or float64")
        return cls(weight, mean, m2, dtype)
