"""Gaussian family: each real-valued feature is normal within each class (Duda, Hart & Stork 2001).

``ln p(x|c) = Σ_j −½ ln(2π σ²_cj) − (x_j − μ_cj)² / (2 σ²_cj)``, with the per-class mean and
variance taken from centred moments (:class:`~bayeskit.stats.Moments`, merged with Chan's
formula). Everything that is not a sum over the data happens in :meth:`Gaussian.finalize`, from
the merged statistics:

* the **variance floor** ``ε = var_smoothing · max_j Var(x_j)`` (the variance of each feature
  over all training rows, as scikit-learn's ``np.var(X, axis=0).max()``) is added to every
  variance. It is a function of the statistics, so it is the same however the data was split
  into ``partial_fit`` batches (scikit-learn keeps the last batch's, its issue #14054). When
  every feature is constant the largest variance is 0; the floor is then taken relative to the
  size of the values, ``var_smoothing · max_j x̄_j²`` (``var_smoothing`` itself if every value is
  0), so a variance is never 0. With ``var_floor="column"`` each feature is floored by its own
  scale instead, ``ε_j = var_smoothing · Var(x_j)`` (``x̄_j²``, or 1, for a constant feature), as
  R's e1071 and Weka floor each column by itself: scikit-learn's single floor makes one column
  measured in large units (variance 1e10) add 10 to the variance of every other column, which
  flattens a strong predictor of variance ~1 (John & Langley 1995 discuss the Gaussian
  assumption column by column);
* ``shared_variance=True`` pools the within-class variance of each feature over the classes,
  ``σ²_j = Σ_c M2_cj / Σ_c N_cj + ε``; the quadratic terms are then the same for every class
  and the decision is linear in ``x`` (Fisher's linear discriminant with a diagonal covariance,
  Hastie et al. §4.3; see :meth:`Gaussian.discriminant`);
* ``estimate="predictive"`` integrates the mean and variance out under a Normal-Gamma prior
  and scores with the Student-t posterior predictive (Murphy 2007, :mod:`._student_t`).

``log_prob`` is two matrix products: ``Σ_j (x_j − μ_cj)² / σ²_cj`` expands into
``U² @ (1/σ²)ᵀ − 2 U @ (μ'/σ²)ᵀ + Σ_j μ'²/σ²`` over values ``U = X − m`` and means ``μ' = μ − m``
centred on each feature's pooled mean ``m``, so a common offset cancels before any product.
The absolute error is a few ulps of ``Σ_j ((x_j − m_j)² + (μ_cj − m_j)²) / σ²_cj``: measured
against the direct formula in extended precision, relative errors of 1e-13 with offsets up to
1e9 and variances down to 1e-8, growing to ~5e-9 for a row next to its class mean when the
classes lie 1000 standard deviations apart (where every other class scores ~−1e6).

Missing values (NaN) are left out of the moments and contribute 0 to ``log_prob``. A class
with no observed value of a feature uses that feature's pooled mean and variance (what the
whole population says); a feature never observed in training contributes 0 for every class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from numbers import Real
from typing import Any

import numpy as np

from .._lazy import linalg
from .._lazy import sparse as sp
from .._validation import as_real
from .._values import one_of
from ..errors import ParameterError
from ..stats import Moments
from ..stats._base import safe_ratio
from ..stats.moments import pooled_spread, rounding_variance
from ._base import Family, observed_mask, real_block
from ._gaussian_refine import refine
from ._student_t import normal_gamma_predictive, student_t_log_prob, student_t_terms

ESTIMATES = ("mle", "predictive")
VAR_FLOORS = ("largest", "column")
#: The smallest variance used: its inverse, the precision, stays a finite float64 (the floor
#: ε can be smaller still when the data's own spread is near float64's smallest numbers).
_SMALLEST_VAR = float(np.finfo(np.float64).tiny)


@dataclass(frozen=True)
class GaussianParams:
    """Fitted parameters, each (n_classes, n_features) unless said otherwise.

    ``theta`` is the mean (the Student-t location under ``estimate="predictive"``), ``var`` the
    variance with the floor (the squared Student-t scale), ``dof`` the Student-t degrees of
    freedom (None: normal), ``reference`` (n_features,) the pooled mean that inputs are centred
    on, ``seen`` (n_features,) whether the feature had any observed training value.
    """

    theta: np.ndarray
    var: np.ndarray
    epsilon: float | np.ndarray  # one floor, or one per feature (var_floor="column")
    dof: np.ndarray | None
    reference: np.ndarray
    seen: np.ndarray
    shared: bool

    @cached_property
    def precision(self) -> np.ndarray:
        """``1 / var``, 0 for features never seen."""
        out = np.zeros(self.var.shape)
        np.divide(1.0, self.var, out=out, where=np.broadcast_to(self.seen, self.var.shape))
        return out

    @cached_property
    def quadratic(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A, B, C) with ``ln N(x_j; μ_cj, σ²_cj) = A_cj u_j² + B_cj u_j + C_cj`` for the
        centred value ``u_j = x_j − reference_j``; zero for features never seen."""
        precision = self.precision
        offset = self.theta - self.reference
        A = -0.5 * precision
        B = precision * offset
        C = -0.5 * (self.log_norm + B * offset)
        return A, B, C

    @cached_property
    def log_norm(self) -> np.ndarray:
        """``ln(2π σ²)``, 0 for features never seen."""
        with np.errstate(divide="ignore"):
            return np.where(self.seen, np.log(2.0 * np.pi * self.var), 0.0)

    @cached_property
    def student(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(1 / (ν s²), (ν + 1) / 2, log normaliser) for the Student-t kernel; zero for
        features never seen (they add nothing)."""
        assert self.dof is not None
        norm, power = student_t_terms(self.dof, self.var)
        keep = self.seen.astype(np.float64)
        inv = keep / (self.dof * self.var)
        return inv, power * keep, norm * keep


class Gaussian(Family):
    """Normal (or, Bayesian, Student-t) distribution of each feature in each class.

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        Portion of the largest feature variance added to every variance (the floor ε, see the
        module docstring). 0 disables the floor; a zero variance is then refused at fit.
    var_floor : {"largest", "column"}, default="largest"
        What ``var_smoothing`` is a portion of: the largest feature variance, one floor for
        every feature (scikit-learn's), or each feature's own variance (R's e1071 and Weka
        floor each column by itself; a column in large units then leaves the others alone).
    shared_variance : bool, default=False
        One variance per feature for all classes (pooled within-class variance): a linear
        decision rule.
    estimate : {"mle", "predictive"}, default="mle"
        "mle": maximum likelihood mean and variance, as scikit-learn's GaussianNB.
        "predictive": Normal-Gamma prior, Student-t posterior predictive.
    prior_mean : float, array-like of shape (n_features,) or None, default=None
        μ₀ of the Normal-Gamma prior; None: each feature's pooled mean.
    prior_count : float, default=1.0
        How many observations the prior is worth: κ₀ = 2α₀ = ``prior_count`` (> 0).
    prior_var : float, array-like of shape (n_features,) or None, default=None
        The prior's guess of the variance (its expected precision is ``1 / prior_var``);
        None: each feature's pooled variance plus the floor ε (a weakly informative prior
        centred on what the data as a whole says; a constant feature takes the floor's scale,
        the largest variance, instead of its own 0).

    The prior parameters are used by ``estimate="predictive"`` only.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[1.0], [3.0], [10.0], [12.0]])
    >>> R = sp.csr_matrix(np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]]))  # classes 0, 0, 1, 1
    >>> family = Gaussian()
    >>> params = family.finalize(family.summarize(X, R))
    >>> params.theta.tolist(), params.var.round(6).tolist(), params.epsilon
    ([[2.0], [11.0]], [[1.0], [1.0]], 2.125e-08)
    >>> family.log_prob(params, np.array([[2.0], [np.nan]])).round(4)
    array([[ -0.9189, -41.4189],
           [  0.    ,   0.    ]])
    """

    name = "gaussian"
    never_zero = True
    one_column = "density"
    column_kind = "real"

    def __init__(
        self,
        var_smoothing: float = 1e-9,
        *,
        var_floor: str = "largest",
        shared_variance: bool = False,
        estimate: str = "mle",
        prior_mean: Any = None,
        prior_count: float = 1.0,
        prior_var: Any = None,
    ):
        self.var_smoothing = var_smoothing
        self.var_floor = var_floor
        self.shared_variance = shared_variance
        self.estimate = estimate
        self.prior_mean = prior_mean
        self.prior_count = prior_count
        self.prior_var = prior_var

    def config(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            return np.asarray(v, dtype=np.float64).tolist() if isinstance(v, np.ndarray) else v

        return {
            "var_smoothing": self.var_smoothing,
            "var_floor": self.var_floor,
            "shared_variance": self.shared_variance,
            "estimate": self.estimate,
            "prior_mean": plain(self.prior_mean),
            "prior_count": self.prior_count,
            "prior_var": plain(self.prior_var),
        }

    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        return real_block(X, names, "the gaussian family")

    def summarize(self, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Moments:
        return Moments.of(X, R)

    # ------------------------------------------------------------------ finalize
    def parameter_size(self, stats: Moments) -> int:
        """What :meth:`finalize` holds at its peak in (n_classes, n_features) arrays, its
        temporaries included (a model file's load takes it from its budget first; the three
        arrays of the statistic were counted before, and finalize took up to eight): the
        pooled spread's products and masks, each class's mean and variance where a class
        is empty, the floor and its masks; where a product of a weight with a value
        overflows, each class's share of the weight and the pooled terms again (measured at
        6.0 arrays); ``estimate="predictive"``, the Normal-Gamma posterior's terms (8.0).
        One more is counted for the checks of the result."""
        arrays = 9 if self.estimate == "predictive" else 7
        return arrays * stats.n_classes * stats.n_features + 8 * stats.n_features

    def finalize(self, stats: Moments) -> GaussianParams:
        var_smoothing = _non_negative(self.var_smoothing, "var_smoothing")
        if not isinstance(self.shared_variance, (bool, np.bool_)):
            raise ParameterError(
                f"shared_variance must be True or False; got {self.shared_variance!r}"
            )
        if not one_of(self.estimate, ESTIMATES):
            raise ParameterError(
                f"estimate={self.estimate!r} is not one of {ESTIMATES}: 'mle' (maximum "
                "likelihood, as scikit-learn) or 'predictive' (Normal-Gamma prior, Student-t "
                "posterior predictive)"
            )
        if not one_of(self.var_floor, VAR_FLOORS):
            raise ParameterError(
                f"var_floor={self.var_floor!r} is not one of {VAR_FLOORS}: 'largest' (a portion "
                "of the largest feature variance, as scikit-learn) or 'column' (of each "
                "feature's own variance, as R's e1071 and Weka)"
            )
        pooled_weight, pooled_mean, pooled_var = pooled_spread(stats.weight, stats.mean, stats.m2)
        seen = pooled_weight > 0
        # A constant feature's pooled variance is 0 only to rounding: class means summed in
        # another row order (or after an unlearn) leave 1e-32 for values of 0.7, and a floor
        # of 1e-41 where the fit in row order had 4.9e-10 (probabilities 0.75 apart). A
        # spread of 16 ulps of the mean or less is no spread (noise of 1e-6 on values of 1e8,
        # 67 ulps, still is).
        pooled_var = np.where(pooled_var > rounding_variance(pooled_mean, 16), pooled_var, 0.0)
        scale: float | np.ndarray
        if self.var_floor == "column":
            # Each feature by its own spread; a constant one by the size of its value.
            size = np.where(pooled_mean**2 > 0, pooled_mean**2, 1.0)
            scale = np.where(seen & (pooled_var > 0), pooled_var, size)
        else:
            scale = float(pooled_var[seen].max(initial=0.0))
            if scale == 0.0:
                # Every feature constant (or a single row): the floor follows the values' size.
                scale = float((pooled_mean[seen] ** 2).max(initial=0.0)) or 1.0
        with np.errstate(over="ignore"):
            epsilon = var_smoothing * scale
        if not np.isfinite(epsilon).all():  # (the setting's fault, not the data's)
            raise ParameterError(
                f"var_smoothing={self.var_smoothing!r} times the features' variances passes "
                "float64's largest number (1.8e308) on this data; use a smaller var_smoothing "
                "(default 1e-9)"
            )
        shared = bool(self.shared_variance)
        if self.estimate == "predictive":
            return self._predictive(stats, pooled_mean, pooled_var, scale, epsilon, seen)
        empty = stats.weight <= 0
        theta = np.where(empty, pooled_mean, stats.mean)
        if shared:
            total = stats.weight.sum(axis=0)
            with np.errstate(over="ignore"):
                within = safe_ratio(np.maximum(stats.m2, 0.0).sum(axis=0), total)
            if not np.isfinite(within).all():
                # Σ_c M2_c overflowed (weights near 1e308): the classes' variances weighted
                # by their shares of the weight instead.
                share = safe_ratio(stats.weight, total)
                within = (share * stats.variance).sum(axis=0)
            var = np.broadcast_to(within + epsilon, theta.shape).copy()
        else:
            var = np.where(empty, pooled_var, stats.variance) + epsilon
        zero = (var <= 0) & seen
        if zero.any():
            c, j = (int(v) for v in np.argwhere(zero)[0])
            raise ParameterError(
                f"feature {j} has variance 0 in class index {c} (a constant feature) and "
                "var_smoothing=0 adds no floor; set var_smoothing > 0 (default 1e-9)",
                cell=(c, j),
            )
        return GaussianParams(
            theta, np.maximum(var, _SMALLEST_VAR), epsilon, None, pooled_mean, seen, shared
        )

    def _predictive(
        self,
        stats: Moments,
        pooled_mean: np.ndarray,
        pooled_var: np.ndarray,
        scale: float | np.ndarray,
        epsilon: float | np.ndarray,
        seen: np.ndarray,
    ) -> GaussianParams:
        d = stats.n_features
        count = _positive(self.prior_count, "prior_count")
        if self.prior_mean is None:
            mu0 = pooled_mean
        else:
            mu0 = _per_feature(self.prior_mean, d, "prior_mean")
        if self.prior_var is None:
            # A constant feature has no spread of its own to centre the prior on.
            v0 = np.where(pooled_var > 0, pooled_var, scale) + epsilon
        else:
            v0 = _per_feature(self.prior_var, d, "prior_var")
            if (v0 <= 0).any():
                raise ParameterError(f"prior_var must be > 0; got {self.prior_var!r}")
        dof, loc, scale2 = normal_gamma_predictive(
            stats.weight,
            stats.mean,
            stats.m2,
            prior_mean=mu0,
            prior_count=count,
            prior_var=v0,
            shared=bool(self.shared_variance),
        )
        return GaussianParams(
            loc,
            np.maximum(scale2, _SMALLEST_VAR),
            epsilon,
            dof,
            pooled_mean,
            seen,
            bool(self.shared_variance),
        )

    # ------------------------------------------------------------------ scoring
    def log_prob(self, params: GaussianParams, X: np.ndarray) -> np.ndarray:
        if params.dof is not None:
            inv, power, norm = params.student
            return student_t_log_prob(X, params.theta, inv, power, norm)
        A, B, C = params.quadratic
        # Centring on the pooled mean first removes the offset all classes share, so the
        # expansion below does not cancel digits the direct formula keeps.
        U = X - params.reference
        # One pass without a temporary tells complete data apart (inf was refused before).
        mask = None if np.isfinite(U.sum()) else observed_mask(X)
        # The (n, K) result is built as its transpose in Fortran order (the same memory), so
        # every term is accumulated by BLAS in place: no (n, K) temporaries.
        out = np.empty((U.shape[0], A.shape[0])).T
        if mask is None:
            out[:] = C.sum(axis=1)[:, None]
        else:
            np.nan_to_num(U, copy=False, nan=0.0)
            out = _gemm(C, mask, out, beta=0.0)
        out = _gemm(B, U, out)
        U *= U
        if params.shared:
            out += U @ A[0]
        else:
            out = _gemm(A, U, out)
        jll = np.asarray(out.T)
        offset_terms = (-C).sum(axis=1) - 0.5 * params.log_norm.sum(axis=1)
        return refine(
            jll, X, U.sum(axis=1), params.theta, params.precision, offset_terms, params.log_norm
        )

    def discriminant(self, params: GaussianParams) -> tuple[np.ndarray, np.ndarray]:
        """Linear discriminant ``(W, b)`` of a shared-variance maximum-likelihood fit.

        ``log_prob(X) = X @ W.T + b + g(X)`` where ``g(x) = −½ Σ_j (x_j² / σ²_j + ln 2πσ²_j)``
        is the same for every class, so the posterior is ``softmax(X @ W.T + b + log prior)``
        on complete rows: ``W_cj = μ_cj / σ²_j``, ``b_c = −½ Σ_j μ²_cj / σ²_j`` (Fisher's
        α_y and β_y). Not :meth:`linear_form`: that promises ``log_prob`` itself, and ``g``
        is not linear.
        """
        if not params.shared or params.dof is not None:
            raise ParameterError(
                "a linear discriminant exists for shared_variance=True with estimate='mle' "
                "only: per-class variances make the decision quadratic, and the Student-t "
                "predictive is not a Gaussian"
            )
        W = params.theta * params.precision
        return W, -0.5 * (W * params.theta).sum(axis=1)


def _gemm(W: np.ndarray, V: np.ndarray, out: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """``beta · out + W @ V.T`` into ``out`` (K, n), Fortran-ordered, in place; ``V`` is a
    C-ordered (n, d) block, passed to BLAS as its Fortran-ordered transpose (no copy)."""
    if out.size == 0:
        return out
    return np.asarray(linalg.blas.dgemm(1.0, W, V.T, beta=beta, c=out, overwrite_c=True))


def _number(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ParameterError(f"{what} must be a number; got {value!r}")
    out = as_real(value)
    if not np.isfinite(out):
        raise ParameterError(f"{what} must be finite; got {value!r}")
    return out


def _non_negative(value: Any, what: str) -> float:
    out = _number(value, what)
    if out < 0:
        raise ParameterError(f"{what} must be >= 0; got {value!r}")
    return out


def _positive(value: Any, what: str) -> float:
    out = _number(value, what)
    if out <= 0:
        raise ParameterError(f"{what} must be > 0; got {value!r}")
    return out


def _per_feature(value: Any, n_features: int, what: str) -> np.ndarray:
    """A scalar or one finite number per feature, as an (n_features,) array."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(
            f"{what} must be a number or one number per feature; got {value!r}"
        ) from None
    if arr.ndim == 0:
        arr = np.full(n_features, float(arr))
    if arr.shape != (n_features,):
        raise ParameterError(
            f"{what} has shape {arr.shape}; give one number or one per feature ({n_features})"
        )
    if not np.isfinite(arr).all():
        raise ParameterError(f"{what} must be finite; got {value!r}")
    return arr
