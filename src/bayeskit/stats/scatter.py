"""Per-class weight, mean and centred scatter matrix of real-valued features: the statistic of
the multivariate normal family (discriminant analysis, Gaussian mixtures), merged with the
matrix form of Chan's formula.

For the rows of one class with weights ``w_i`` (one-hot labels × sample weights, or EM
responsibilities), ``W = Σ w_i``, ``μ = Σ w_i x_i / W`` and the scatter
``S = Σ w_i (x_i − μ)(x_i − μ)ᵀ``; the maximum-likelihood covariance is ``S / W``. Two parts
merge exactly, ``S = S_a + S_b + (W_a W_b / W) δ δᵀ`` with ``δ = μ_b − μ_a``, and a part with
weight ``−W`` and scatter ``−S`` removes what adding it put in. Never ``Σ x xᵀ − W μ μᵀ`` on
dense data: that loses every digit when the mean is large against the spread.

Ledoit and Wolf's shrinkage intensity needs fourth moments as well, so on request the
statistic also carries the mixed moments ``m3[j, k] = Σ w_i a_ij² a_ik`` and
``m4[j, k] = Σ w_i a_ij² a_ik²`` of the centred values ``a = x − μ``. They merge by shifting
each part to the merged mean (a binomial expansion in ``δ``, exact like Chan's formula).

One statistic, a little over the usual length: adding, removing and the fourth moments of
Ledoit and Wolf's shrinkage must agree on the same centred arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._blas import N as _N
from .._blas import U as _U
from .._blas import function, letters
from .._jit import njit
from .._lazy import linalg
from .._lazy import sparse as sp
from ..errors import DataError, MergeError, ModelFileError
from ._base import Statistic, Tolerance, check_arrays, hard_labels, per_class, safe_ratio

#: Relative size of rounding residue when terms cancel (removing data), as for Moments.
_CANCELLATION = 1e-11
#: The least spread of a training column's values (largest minus smallest) discriminant
#: analysis takes, unless it is 0: squares of smaller deviations fall below float64's normal
#: range (about 2e-308) and lose their digits (the mirror of LARGEST_VALUE, whose squares
#: stay below float64's largest). ``fit`` refuses such a column by its values; adding
#: statistics refuses what their means show of it (:func:`_refuse_underflow`).
SMALLEST_SPREAD = 1e-150
#: Sparse blocks are summed about 0 (``Σ w x xᵀ − W μ μᵀ``, which keeps the zeros sparse) when
#: ``W μ_j² <= _SPARSE_SHIFT · S_jj`` for every column: about three digits at most are lost.
#: A column whose mean is larger against its spread is summed centred, by densified chunks.
_SPARSE_SHIFT = 1e3
#: Values centred at once into the buffer of a dense block's rank-k updates (64 KB: small
#: enough to come from the heap, not a fresh mapping).
_CHUNK_BUFFER_CELLS = 1 << 13
#: Rows densified at once when a sparse block is summed centred (bounded memory).
_CHUNK_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class Scatter(Statistic):
    """Weight, mean and centred scatter matrix of each class (and optionally the mixed third
    and fourth moments Ledoit–Wolf shrinkage needs).

    Parameters
    ----------
    weight : ndarray of shape (n_classes,)
        Total weight of each class's rows.
    mean : ndarray of shape (n_classes, n_features)
        Weighted mean of each class (0 for a class without weight).
    scatter : ndarray of shape (n_classes, n_features, n_features)
        ``Σ w_i (x_i − μ)(x_i − μ)ᵀ`` of each class: symmetric, positive semi-definite.
    m3, m4 : ndarray of shape (n_classes, n_features, n_features) or None
        ``Σ w_i a_ij² a_ik`` and ``Σ w_i a_ij² a_ik²`` with ``a = x − μ`` (None: not kept).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [1.0, 5.0], [3.0, 9.0]])
    >>> R = sp.csr_matrix(np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]]))
    >>> s = Scatter.of(X[:3], R[:3]) + Scatter.of(X[3:], R[3:])
    >>> s.weight.tolist(), s.mean.tolist()
    ([2.0, 2.0], [[1.0, 1.0], [2.0, 7.0]])
    >>> s.scatter[1].tolist()
    [[2.0, 4.0], [4.0, 8.0]]
    >>> (s + (-Scatter.of(X[3:], R[3:]))).scatter[1].tolist()  # unlearning the last row
    [[0.0, 0.0], [0.0, 0.0]]
    """

    weight: np.ndarray
    mean: np.ndarray
    scatter: np.ndarray
    m3: np.ndarray | None = None
    m4: np.ndarray | None = None

    kind = "scatter"
    #: the mean is a location; off-diagonal scatter entries and m3 have either sign (the
    #: scatter's diagonal is checked with the whole matrix, by :meth:`invalid`)
    signed_arrays = frozenset({"mean", "scatter", "m3"})

    # ------------------------------------------------------------------ construction
    @classmethod
    def zero(cls, n_classes: int, n_features: int, *, fourth: bool = False) -> Scatter:
        """The additive identity."""
        square = np.zeros((n_classes, n_features, n_features))
        extra = (square.copy(), square.copy()) if fourth else (None, None)
        return cls(np.zeros(n_classes), np.zeros((n_classes, n_features)), square, *extra)

    @classmethod
    def of(cls, X: Any, R: np.ndarray | sp.spmatrix, *, fourth: bool = False) -> Scatter:
        """The statistic of a float block ``X`` (dense, or CSR kept sparse) under class
        weights ``R`` (n × K: one-hot labels times weights as CSR, or dense soft weights).

        Dense input: per class, the mean, then one BLAS rank-k update with the centred rows
        (``fourth`` adds two matrix products for ``m3`` and ``m4``). Hard labels gather each
        class's rows once; soft weights visit every row with non-zero weight for each class.
        """
        n_classes = int(R.shape[1])
        labels = hard_labels(R)
        if labels is not None:
            codes, w = labels
            order = np.argsort(codes, kind="stable")
            bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_classes))])
            rows = [order[bounds[k] : bounds[k + 1]] for k in range(n_classes)]
            w = np.asarray(w, dtype=np.float64)
            if not sp.issparse(X):
                if not fourth:
                    return _dense_sorted(np.asarray(X, dtype=np.float64), order, w[order], bounds)
                # One gather of X in class order; each class is then a contiguous slice.
                X = np.take(np.asarray(X, dtype=np.float64), order, axis=0)
                parts = [X[bounds[k] : bounds[k + 1]] for k in range(n_classes)]
                return _stack(
                    [_dense_block(p, w[r], fourth) for p, r in zip(parts, rows, strict=True)]
                )
            X = X.tocsr()
            return _stack([_sparse_block(X[r], w[r], fourth) for r in rows])
        dense_R = R.toarray() if isinstance(R, (sp.spmatrix, sp.sparray)) else np.asarray(R)
        dense_R = np.asarray(dense_R, dtype=np.float64)
        blocks = []
        sparse = sp.issparse(X)
        X = X.tocsr() if sparse else np.asarray(X, dtype=np.float64)
        for k in range(n_classes):
            w = dense_R[:, k]
            hit = np.flatnonzero(w)
            part = X[hit] if len(hit) < len(w) else X
            block = _sparse_block if sparse else _dense_block
            blocks.append(block(part, np.ascontiguousarray(w[hit]), fourth))
        return _stack(blocks)

    # ------------------------------------------------------------------ views
    @property
    def n_features(self) -> int:
        return int(self.mean.shape[1])

    @property
    def fourth(self) -> bool:
        """Whether the mixed third and fourth moments are kept."""
        return self.m4 is not None

    @property
    def covariance(self) -> np.ndarray:
        """Maximum-likelihood covariance ``S / W`` of each class, (K, d, d); 0 for a class
        without weight."""
        return safe_ratio(self.scatter, self.weight[:, None, None])

    def pooled(self) -> Scatter:
        """All classes merged into one (a statistic with a single class): the total scatter
        ``Σ_k S_k + Σ_k W_k (μ_k − μ)(μ_k − μ)ᵀ``."""
        total = self.weight.sum()
        mean = _weighted_mean(self.weight, self.mean, total)[None, :]
        shifted = _shift(self, self.mean - mean)
        return Scatter(
            np.array([total]),
            mean,
            shifted.scatter.sum(axis=0, keepdims=True),
            *_extra(shifted, lambda m: m.sum(axis=0, keepdims=True)),
        )

    def pooled_variances(self) -> tuple[float, np.ndarray, np.ndarray]:
        """Weight, mean and variances of all classes merged into one: the diagonal of
        :meth:`pooled`'s covariance (``Σ_k S_k,jj + W_k (μ_kj − μ_j)²``, over the weight)
        without its (d, d) matrix."""
        total = self.weight.sum()
        mean = _weighted_mean(self.weight, self.mean, total)
        delta = self.mean - mean
        diagonal = np.einsum("kjj->kj", self.scatter) + self.weight[:, None] * (delta * delta)
        return float(total), mean, safe_ratio(diagonal.sum(axis=0), np.asarray(total))

    def classes(self, keep: np.ndarray) -> Scatter:
        """The statistic of the classes at ``keep`` (indices or a boolean mask)."""
        return self.map_weights(lambda w: w[keep])

    # ------------------------------------------------------------------ algebra
    def _add(self, other: Scatter) -> Scatter:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add scatter statistics over {self.n_features} and "
                f"{other.n_features} features"
            )
        if self.fourth != other.fourth:
            raise MergeError(
                "cannot add a scatter statistic with fourth moments to one without (one model "
                "was fitted for Ledoit-Wolf shrinkage, the other not); fit both with the same "
                "shrinkage setting"
            )
        weight = self.weight + other.weight
        live = weight != 0
        delta = other.mean - self.mean
        with np.errstate(over="ignore", invalid="ignore"):
            mean = self.mean + safe_ratio(delta * other.weight[:, None], weight[:, None])
            wide = ~np.isfinite(mean)
            if wide.any():
                # Weights near 1e308: the weights' ratio first (delta × weight overflows
                # where the mean need not).
                ratio = safe_ratio(other.weight, weight)[:, None]
                mean = np.where(wide, self.mean + delta * ratio, mean)
        mean = np.where(live[:, None], mean, 0.0)
        a, b = _shift(self, self.mean - mean), _shift(other, other.mean - mean)
        # Removing data cancels terms: a scatter within rounding of its terms is exactly 0 (a
        # class left with one row has none), as fitting the remaining rows gives; and so are
        # the higher moments of a column without scatter (all its deviations are 0). Other
        # higher moments are left as computed: they are small differences of large terms,
        # and rounding them to 0 would lose what digits they have.
        noise = _CANCELLATION * (
            _shift(_magnitude(self), np.abs(self.mean - mean)).scatter
            + _shift(_magnitude(other), np.abs(other.mean - mean)).scatter
        )
        total = a.scatter + b.scatter
        scatter = np.where(live[:, None, None] & (np.abs(total) > noise), total, 0.0)
        _refuse_underflow(self, other, delta, weight, mean, scatter)
        if a.m3 is None or a.m4 is None or b.m3 is None or b.m4 is None:
            return Scatter(weight, mean, scatter)
        j = np.arange(self.n_features)
        still = live[:, None] & (scatter[:, j, j] != 0)  # (K, d): columns with any spread
        mask = still[:, :, None] & still[:, None, :]
        return Scatter(
            weight,
            mean,
            scatter,
            np.where(mask, a.m3 + b.m3, 0.0),
            np.where(mask, a.m4 + b.m4, 0.0),
        )

    def weights(self) -> tuple[np.ndarray, ...]:
        base = (self.weight, self.mean, self.scatter)
        return base if self.m3 is None or self.m4 is None else (*base, self.m3, self.m4)

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> Scatter:
        return Scatter(*arrays)

    def __neg__(self) -> Scatter:
        # Weight −W and moments −S (…) are the exact inverse of adding: the mean is a
        # location, not a weight, and stays.
        return Scatter(-self.weight, self.mean, -self.scatter, *_extra(self, np.negative))

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.weight, self.weight  # the rows' weight itself

    def min_weights(self) -> np.ndarray:
        # The class weights: the mean is a location and the scatter's off-diagonal entries
        # (and m3) have either sign.
        return np.minimum(self.weight, 0.0)

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> Scatter:
        weight = np.where(
            np.abs(self.weight) <= per_class(tolerance, self.weight), 0.0, self.weight
        )
        empty = weight == 0

        def clear(m: np.ndarray) -> np.ndarray:
            return np.where(empty[:, None, None], 0.0, m)[keep]

        scatter = clear(_symmetric(self.scatter))
        # Removing data leaves rounding residue of either sign on the diagonal.
        j = np.arange(self.n_features)
        scatter[:, j, j] = np.maximum(scatter[:, j, j], 0.0)
        mean = np.where(empty[:, None], 0.0, self.mean)[keep]
        return Scatter(weight[keep], mean, scatter, *_extra(self, clear))

    # ------------------------------------------------------------------ model files
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays = {"weight": self.weight, "mean": self.mean, "scatter": self.scatter}
        if self.m3 is not None and self.m4 is not None:
            arrays |= {"m3": self.m3, "m4": self.m4}
        return arrays, {}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Scatter:
        names = set(arrays)
        if names not in ({"weight", "mean", "scatter"}, {"weight", "mean", "scatter", "m3", "m4"}):
            raise ModelFileError(
                f"scatter statistic with arrays {sorted(arrays)}; expected weight, mean, "
                "scatter (and m3, m4 together)"
            )
        got = check_arrays(cls.kind, arrays, signed=cls.signed_arrays)
        weight, mean, scatter = got["weight"], got["mean"], got["scatter"]
        k = weight.shape[0] if weight.ndim == 1 else -1
        d = mean.shape[1] if mean.ndim == 2 else -1
        squares = [got[n] for n in sorted(names - {"weight", "mean"})]
        if k < 0 or d < 0 or mean.shape != (k, d) or any(m.shape != (k, d, d) for m in squares):
            raise ModelFileError(
                "scatter arrays have inconsistent shapes: weight (K,), mean (K, d), scatter, "
                "m3 and m4 (K, d, d)"
            )
        # Whether each matrix is a scatter matrix (O(K d^3) work, d^2 temporaries) is checked
        # by the loader after it has taken the family's parameter size from its budget: a
        # crafted file with a huge d is refused first.
        return cls(weight, mean, scatter, got.get("m3"), got.get("m4"))

    def invalid(self) -> tuple[str, int, str] | None:
        """The first class whose scatter is not a scatter matrix (symmetric positive
        semi-definite within rounding): what a file may not hold, and what weights beyond
        float64's resolution (near 5e-324) give. Judged once per statistic (the loader and
        the template both ask; each asking is a Cholesky factorisation per class)."""
        return self._first_invalid

    @cached_property
    def _first_invalid(self) -> tuple[str, int, str] | None:
        if _all_scatter_matrices(self.scatter):
            return None
        for c in range(self.n_classes):
            problem = psd_problem(self.scatter[c])
            if problem:
                return "scatter", c, f"is not a scatter matrix: {problem}"
        return None


def psd_problem(matrix: np.ndarray) -> str:
    """Why a square matrix is not symmetric positive semi-definite ("" when it is), within
    rounding relative to its diagonal."""
    scale = float(np.abs(np.diag(matrix)).max(initial=0.0))
    if not np.allclose(matrix, matrix.T, rtol=1e-9, atol=1e-12 * scale):
        j, k = np.unravel_index(np.argmax(np.abs(matrix - matrix.T)), matrix.shape)
        a, b = float(matrix[j, k]), float(matrix[k, j])
        return f"not symmetric ([{j}, {k}] = {a!r} but [{k}, {j}] = {b!r})"
    diagonal = np.diag(matrix)
    if (diagonal < 0).any():
        low = int(np.argmin(diagonal))
        return f"negative diagonal entry [{low}, {low}] = {float(diagonal[low])!r}"
    if scale == 0.0:
        return "" if not matrix.any() else "off-diagonal entries with a zero diagonal"
    # A Cholesky factorisation of the matrix plus a tiny ridge exists exactly when no
    # eigenvalue is below -ridge: one O(d³/3) pass, no eigen-decomposition.
    ridge = 1e-9 * scale
    _, info = _potrf(_symmetric(matrix) + ridge * np.eye(len(matrix)))
    if info != 0:
        return "not positive semi-definite (it has a negative eigenvalue)"
    return ""


def _all_scatter_matrices(stack: np.ndarray) -> bool:
    """Whether every matrix of a (K, d, d) stack passes :func:`psd_problem`, judged for the
    whole stack at once (one comparison, one compiled pass of Cholesky factorisations): True
    proves it,
    False sends the caller to :func:`psd_problem` for the first offender and its reason."""
    if stack.size == 0:
        return True
    if not np.isfinite(stack).all():
        return False
    diagonal = np.diagonal(stack, axis1=1, axis2=2)
    if (diagonal < 0).any():
        return False
    scale = np.abs(diagonal).max(axis=1)[:, None, None]
    mirrored = np.swapaxes(stack, 1, 2)
    # np.allclose(matrix, matrix.T, rtol=1e-9, atol=1e-12 * scale), every class at once
    # (after the exact comparison that settles what Scatter.of mirrored)
    if (
        not np.array_equal(stack, mirrored)
        and (np.abs(stack - mirrored) > 1e-12 * scale + 1e-9 * np.abs(mirrored)).any()
    ):
        return False
    zero = scale[:, 0, 0] == 0.0
    if stack[zero].any():
        return False
    live = np.flatnonzero(~zero)
    work = np.empty(stack.shape[1:])
    ridge = 1e-9 * scale[:, 0, 0]
    stack = np.ascontiguousarray(stack, dtype=np.float64)
    return bool(_factorable(function("dpotrf"), stack, live, ridge, work, letters()))


@njit(nogil=True)
def _factorable(
    potrf: Any,
    stack: np.ndarray,
    live: np.ndarray,
    ridge: np.ndarray,
    work: np.ndarray,
    chars: np.ndarray,
) -> bool:  # pragma: no cover - compiled
    """Whether ``(S + Sᵀ)/2 + ridge[k] I`` has a Cholesky factor for every ``S = stack[k]``,
    ``k`` in ``live``: each copied into ``work`` (its C-ordered lower triangle, the Fortran
    upper one LAPACK reads) and factored in place."""
    d = stack.shape[1]
    ints = np.empty(3, dtype=np.int32)  # n, lda, info
    ints[0] = d
    ints[1] = d
    for k in live:
        S = stack[k]
        for a in range(d):
            for b in range(a + 1):
                work[a, b] = 0.5 * (S[a, b] + S[b, a])
            work[a, a] += ridge[k]
        ints[2] = 0
        potrf(chars[_U:].ctypes, ints[0:].ctypes, work.ctypes, ints[1:].ctypes, ints[2:].ctypes)
        if ints[2] != 0:
            return False
    return True


def _potrf(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    from scipy.linalg import lapack

    factor, info = lapack.dpotrf(matrix, lower=1, clean=1, overwrite_a=0)
    return factor, int(info)


# ---------------------------------------------------------------------------------- helpers
def _symmetric(m: np.ndarray) -> np.ndarray:
    return 0.5 * (m + np.swapaxes(m, -1, -2))


def _extra(s: Scatter, function: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    if s.m3 is None or s.m4 is None:
        return None, None
    return function(s.m3), function(s.m4)


def _weighted_mean(weight: np.ndarray, mean: np.ndarray, total: Any) -> np.ndarray:
    """``Σ_k W_k μ_k / W`` (0 when ``W`` is 0); from the weights' shares where the products
    overflow (weights near 1e308)."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = safe_ratio(weight @ mean, np.asarray(total))
    if not np.isfinite(out).all():
        out = safe_ratio(weight, np.asarray(total)) @ mean
    return out


def _magnitude(s: Scatter) -> Scatter:
    """Entry-wise absolute values: shifted with |δ|, an upper bound on the size of the terms
    a shifted moment is summed from."""
    return Scatter(np.abs(s.weight), s.mean, np.abs(s.scatter), *_extra(s, np.abs))


def _shift(s: Scatter, delta: np.ndarray) -> Scatter:
    """Each class's moments about its mean minus ``delta`` (K, d): the binomial expansion of
    ``Σ w (a + δ)…`` with ``Σ w a = 0``."""
    W = s.weight[:, None, None]
    outer = delta[:, :, None] * delta[:, None, :]
    scatter = s.scatter + W * outer
    if s.m3 is None or s.m4 is None:
        return Scatter(s.weight, s.mean, scatter)
    S, m3 = s.scatter, s.m3
    diag = np.einsum("kjj->kj", S)
    dj, dk = delta[:, :, None], delta[:, None, :]
    new_m3 = m3 + dk * diag[:, :, None] + 2.0 * dj * S + W * dj * outer
    new_m4 = (
        s.m4
        + 2.0 * dk * m3
        + 2.0 * dj * np.swapaxes(m3, 1, 2)
        + dk * dk * diag[:, :, None]
        + dj * dj * diag[:, None, :]
        + 4.0 * outer * S
        + W * outer * outer
    )
    return Scatter(s.weight, s.mean, scatter, new_m3, new_m4)


def _stack(blocks: list[Scatter]) -> Scatter:
    """Single-class statistics stacked into one with a class axis."""
    first = blocks[0]
    extra: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    if first.fourth:
        extra = (
            np.concatenate([b.m3 for b in blocks if b.m3 is not None]),
            np.concatenate([b.m4 for b in blocks if b.m4 is not None]),
        )
    return Scatter(
        np.concatenate([b.weight for b in blocks]),
        np.concatenate([b.mean for b in blocks]),
        np.concatenate([b.scatter for b in blocks]),
        *extra,
    )


def _syrk(A: np.ndarray) -> np.ndarray:
    """``AᵀA`` for a C-ordered (n, d) block: one BLAS rank-k update on its Fortran-ordered
    transpose (no copy), mirrored to a full symmetric matrix."""
    d = A.shape[1]
    if A.shape[0] == 0 or d == 0:
        return np.zeros((d, d))
    upper = linalg.blas.dsyrk(1.0, np.ascontiguousarray(A).T, trans=0, lower=0)  # lower part: 0
    full = upper + upper.T
    full[np.diag_indices(d)] = np.diag(upper)
    return full


def _dense_sorted(X: np.ndarray, order: np.ndarray, w: np.ndarray, bounds: np.ndarray) -> Scatter:
    """Every class's statistic from the rows of ``X`` taken in ``order`` (class ``k`` is
    ``X[order[bounds[k] : bounds[k + 1]]]``) and their weights ``w`` (in that order): per
    class the mean, then its rows centred a chunk at a time into a small buffer and one BLAS
    rank-k update per chunk, all in one compiled call (:func:`_class_scatters`). No copy of
    X: on a virtual machine a fresh array costs a page fault per 4 KB, more than the
    arithmetic (the sorted copy this replaces was 225 faults a fit on digits)."""
    n_classes, d = len(bounds) - 1, X.shape[1]
    counts = np.diff(bounds)
    rows = counts > 0
    starts = bounds[:-1][rows]
    total = np.zeros(n_classes)
    mean = np.zeros((n_classes, d))
    scatter = np.zeros((n_classes, d, d))
    if not len(starts):
        return Scatter(total, mean, scatter)
    total[rows] = np.add.reduceat(w, starts)
    unit = bool((w == 1.0).all())
    scaled, den = w, total
    if not unit:
        # Weights divided by a power of two near each class's largest (exact: the same
        # mean), so Σ w x cannot overflow for weights up to 1e308 nor vanish near 1e-308.
        top = np.zeros(n_classes)
        top[rows] = np.maximum.reduceat(w, starts)
        exponent = np.frexp(np.where(total != 0.0, top, 1.0))[1]
        scaled = np.ldexp(w, -np.repeat(exponent, counts))
        den = np.zeros(n_classes)
        den[rows] = np.add.reduceat(scaled, starts)
    if d:
        root = np.empty(0) if unit else np.sqrt(w)
        buffer = np.empty((max(128, _CHUNK_BUFFER_CELLS // d), d))
        X = np.ascontiguousarray(X)
        syrk = function("dsyrk")
        args = (X, order, bounds, total, scaled, den, unit, root, mean, scatter, buffer)
        _class_scatters(syrk, *args, letters())
    return Scatter(total, mean, scatter)


@njit(nogil=True)
def _class_scatters(
    syrk: Any,
    X: np.ndarray,
    order: np.ndarray,
    bounds: np.ndarray,
    total: np.ndarray,
    scaled: np.ndarray,
    den: np.ndarray,
    unit: bool,
    root: np.ndarray,
    mean: np.ndarray,
    scatter: np.ndarray,
    buffer: np.ndarray,
    chars: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """For each class with weight: its mean ``Σ s_i x_i / Σ s_i`` (``s = scaled``, the
    rows in order; 0 where the sum of ``s`` is 0), then its rows centred (and multiplied by
    ``root``, the square roots of the weights, unless ``unit``) into ``buffer`` a chunk at a
    time and ``scatter[k] += AᵀA`` of each chunk ``A``: one ``dsyrk`` on the Fortran (d,
    rows) matrix the C-ordered chunk is, whose Fortran upper triangle is the C-ordered lower
    one, mirrored at the end."""
    d = X.shape[1]
    size = buffer.shape[0]
    ints = np.empty(3, dtype=np.int32)  # n, k, lda = ldc
    ints[0] = d
    ints[2] = d
    one = np.ones(1)
    beta = np.zeros(1)
    for k in range(len(bounds) - 1):
        first, last = bounds[k], bounds[k + 1]
        if total[k] == 0.0 or last == first:
            continue
        mu = mean[k]
        for i in range(first, last):
            r = order[i]
            for j in range(d):
                mu[j] += scaled[i] * X[r, j]
        if den[k] != 0.0:
            for j in range(d):
                mu[j] /= den[k]
        else:
            for j in range(d):
                mu[j] = 0.0
        S = scatter[k]
        beta[0] = 0.0
        for start in range(first, last, size):
            stop = min(start + size, last)
            for i in range(start, stop):
                r = order[i]
                for j in range(d):
                    buffer[i - start, j] = X[r, j] - mu[j]
                if not unit:
                    for j in range(d):
                        buffer[i - start, j] *= root[i]
            ints[1] = stop - start
            syrk(
                chars[_U:].ctypes,
                chars[_N:].ctypes,
                ints[0:].ctypes,
                ints[1:].ctypes,
                one.ctypes,
                buffer.ctypes,
                ints[2:].ctypes,
                beta.ctypes,
                S.ctypes,
                ints[2:].ctypes,
            )
            beta[0] = 1.0
        for a in range(d):
            for b in range(a + 1, d):
                S[a, b] = S[b, a]


def _dense_block(X: np.ndarray, w: np.ndarray, fourth: bool) -> Scatter:
    """One class's statistic from its rows ``X`` (n, d) and their weights ``w`` (n,)."""
    d = X.shape[1]
    total = float(w.sum())
    if total == 0.0:
        return Scatter.zero(1, d, fourth=fourth)
    unit = bool((w == 1.0).all())
    # A reduction rather than a BLAS product: one BLAS call per class (the rank-k update)
    # keeps a busy machine's thread hand-offs few.
    if unit:
        mean = X.sum(axis=0) / total
    else:
        # Weights divided by a power of two near the largest (exact: the same mean), so
        # Σ w x cannot overflow for weights up to 1e308 nor vanish for weights near 1e-308.
        scaled = np.ldexp(w, -math.frexp(float(w.max()))[1])
        mean = np.einsum("i,ij->j", scaled, X) / scaled.sum()
    A = X - mean
    scatter = _syrk(A if unit else A * np.sqrt(w)[:, None])
    extra: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
    if fourth:
        A2 = A * A
        weighted = A2 if unit else A2 * w[:, None]
        extra = ((weighted.T @ A)[None], (weighted.T @ A2)[None])
    return Scatter(np.array([total]), mean[None, :], scatter[None], *extra)


def _sparse_block(X: sp.csr_matrix, w: np.ndarray, fourth: bool) -> Scatter:
    """One class's statistic from CSR rows, without densifying them: the scatter about 0
    (sparse products) moved to the mean, unless a column's mean is so large against its
    spread that digits would be lost, or fourth moments are wanted: then centred, by chunks
    of densified rows merged with Chan's formula."""
    d = X.shape[1]
    total = float(w.sum())
    if total == 0.0:
        return Scatter.zero(1, d, fourth=fourth)
    if not fourth:
        mean = np.asarray(X.T @ w, dtype=np.float64).ravel() / total
        weighted = sp.diags(w) @ X
        about_zero = (X.T @ weighted).toarray()
        scatter = about_zero - total * np.outer(mean, mean)
        diag = np.diag(scatter)
        if ((total * mean * mean <= _SPARSE_SHIFT * diag) | (mean == 0)).all():
            scatter = _symmetric(scatter)
            return Scatter(np.array([total]), mean[None, :], scatter[None])
    rows = max(1, _CHUNK_CELLS // max(d, 1))
    parts = [
        _dense_block(X[i : i + rows].toarray(), w[i : i + rows], fourth)
        for i in range(0, X.shape[0], rows)
    ]
    return sum(parts[1:], parts[0])


def _refuse_underflow(
    a: Scatter, b: Scatter, delta: np.ndarray, weight: np.ndarray, mean: np.ndarray, scatter: Any
) -> None:
    """Refuse (:class:`~bayeskit.errors.DataError`) to add statistics whose class means differ
    by less than :data:`SMALLEST_SPREAD` (but not 0) in a column spread over less than that in
    all: the square of that difference underflows and the sum loses the column's scatter, as
    ``fit`` would have refused its values (fitted a row at a time, each batch has no spread
    of its own to refuse). A difference beside a wider spread loses nothing float64 holds."""
    both = (a.weight != 0) & (b.weight != 0)
    tiny = both[:, None] & (delta != 0) & (np.abs(delta) < SMALLEST_SPREAD)
    if not tiny.any():
        return
    columns = np.flatnonzero(tiny.any(axis=0))
    live = weight != 0
    w = np.where(live, weight, 0.0)[:, None]
    centre = (w * mean[:, columns]).sum(axis=0) / max(float(w.sum()), np.finfo(float).tiny)
    within = np.abs(scatter[:, columns, columns]).sum(axis=0)
    with np.errstate(under="ignore"):
        between = (np.abs(w) * (mean[:, columns] - centre) ** 2).sum(axis=0)
    lost = columns[within + between < SMALLEST_SPREAD**2]
    if len(lost):
        j = int(lost[0])
        spread = float(np.max(np.abs(delta[:, j])))
        raise DataError(
            f"X's column {j} spreads over only {spread:.3g} (its class means in the parts "
            "added differ by that); discriminant analysis sums squares of the deviations from "
            "the class means, which float64 loses below 1e-300: it takes columns whose values "
            f"spread over at least {SMALLEST_SPREAD:g} (or not at all); rescale that column "
            "(sklearn.preprocessing.StandardScaler, or multiply it by a power of 10)"
        )
