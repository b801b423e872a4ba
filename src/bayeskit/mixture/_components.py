"""One class's mixture as a model EM can fit: components of a distribution family, each the
"class" of a finer partition (DESIGN.md), with mixing weights from the responsibilities.

Also the covariance structures of the Gaussian mixture: which family scores the components
(the Gaussian family's centred moments for diagonal and spherical covariances, the
multivariate normal family's scatter matrices for full and tied ones) and how the statistics
are shaped before its plain maximum-likelihood ``finalize`` (``M2 + reg_covar · W`` per
feature: the Gaussian family has no ridge, the multivariate normal family adds ``reg_covar``
itself), so that it returns scikit-learn's GaussianMixture estimates — and, with
``reg_param``, each covariance shrunk as scikit-learn's QDA shrinks a class's; the stored
statistics stay the data's own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from ..errors import ParameterError
from ..families import Family
from ..families._covariance import check_fraction
from ..families._gaussian_refine import refine
from ..families.gaussian import _gemm as gemm_into
from ..stats import Moments, Statistic
from ..stats._base import safe_ratio
from ..stats.moments import _soft_m2 as soft_m2
from ._floor import floored_covariances

#: covariance structures, as scikit-learn's GaussianMixture names them.
COVARIANCE_TYPES = ("diag", "full", "tied", "spherical")


@dataclass(frozen=True)
class ComponentStats:
    """One EM iteration's statistics of a mixture: the total responsibility of each component
    and the component family's statistic. Adds (one reduce per EM iteration)."""

    weight: np.ndarray
    stats: Statistic

    def __add__(self, other: object) -> ComponentStats:
        if not isinstance(other, ComponentStats):
            return NotImplemented
        return ComponentStats(self.weight + other.weight, self.stats + other.stats)

    def __radd__(self, other: object) -> ComponentStats:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


@dataclass(frozen=True)
class ComponentParams:
    """The component family's parameters and each component's log mixing weight."""

    params: Any
    log_weight: np.ndarray


class Components:
    """A mixture of ``family`` components (the EM model of one class).

    ``regularize`` maps the summed statistics to the ones ``finalize`` estimates from (the
    covariance structure and ``reg_covar``; see :func:`regularizer`).
    """

    def __init__(
        self,
        family: Family,
        regularize: Callable[[Statistic], Statistic],
        log_prior: Callable[[ComponentParams], float] | None = None,
    ):
        self.family = family
        self.regularize = regularize
        #: the log density of the parameters' prior (None: none), whose sum with the
        #: log-likelihood MAP-EM raises at every iteration (:func:`conjugate_log_prior`)
        self.log_prior = log_prior

    def summarize(self, X: Any, R: np.ndarray) -> ComponentStats:
        return ComponentStats(R.sum(axis=0), self.family.summarize(X, R))

    def finalize(self, stats: ComponentStats) -> ComponentParams:
        total = stats.weight.sum()
        with np.errstate(divide="ignore"):
            log_weight = np.log(stats.weight) - np.log(total)
        return ComponentParams(self.family.finalize(self.regularize(stats.stats)), log_weight)

    def log_joint(self, params: ComponentParams, X: Any) -> np.ndarray:
        return self.family.log_prob(params.params, X) + params.log_weight

    def prepare(self, X: Any, w: np.ndarray) -> Any:
        """What the EM iterations on the rows ``X`` (weights ``w``) take as their input."""
        return X


@dataclass(frozen=True)
class CentredRows:
    """A class's complete rows, prepared once for the EM iterations of a diagonal mixture:
    ``U = X − c`` centred on the class's weighted mean ``c``, ``U²`` and each row's ``Σ_j u²``.
    Every iteration then scores and summarises from them with two matrix products each,
    instead of centring, squaring and checking ``X`` for missing values again."""

    X: np.ndarray
    U: np.ndarray
    U2: np.ndarray
    u2_rows: np.ndarray
    centre: np.ndarray
    ones: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray, w: np.ndarray) -> CentredRows | None:
        """The prepared rows, or None when ``X`` has a missing value (the general path)."""
        total = float(w.sum())
        if not np.isfinite(X.sum()) or total <= 0:
            return None
        centre = (w @ X) / total
        U = np.ascontiguousarray(X - centre)
        U2 = U * U
        return cls(X, U, U2, U2.sum(axis=1), centre, np.ones(len(X)))


class DiagonalComponents(Components):
    """Components of the Gaussian (diagonal) family, with the EM iterations' fused path on
    :class:`CentredRows`: ``ln w_k + ln N(x; μ_k, σ²_k) = U² A_kᵀ + U B_kᵀ + C_k`` with
    ``A = −½/σ²``, ``B = (μ − c)/σ²``, ``C = ln w − ½ Σ_j (ln 2πσ² + (μ − c)²/σ²)`` (the
    Gaussian family's expansion about the fixed centre, its pairs the expansion cannot give
    accurately rescored exactly), and the M-step's moments from ``Rᵀ U`` and the deviations
    from the new means (centred moments, never raw power sums)."""

    def prepare(self, X: Any, w: np.ndarray) -> Any:
        rows = CentredRows.of(X, w)
        return X if rows is None else rows

    def summarize(self, X: Any, R: np.ndarray) -> ComponentStats:
        if not isinstance(X, CentredRows):
            return super().summarize(X, R)
        R = np.ascontiguousarray(R, dtype=np.float64)
        weight = X.ones @ R  # a matrix product: numpy's sum down a narrow array is strided
        W = np.repeat(weight[:, None], X.U.shape[1], axis=1)
        mean_u = safe_ratio(R.T @ X.U, W)
        m2 = soft_m2(X.U, R, mean_u)
        return ComponentStats(weight, Moments(W, mean_u + X.centre, m2))

    def log_joint(self, params: ComponentParams, X: Any) -> np.ndarray:
        if not isinstance(X, CentredRows):
            return super().log_joint(params, X)
        g = params.params
        precision = g.precision
        offset = g.theta - X.centre
        A = -0.5 * precision
        B = precision * offset
        half = 0.5 * (B * offset).sum(axis=1)
        log_norm_sum = g.log_norm.sum(axis=1)
        # The (n, K) result is built as its Fortran-ordered transpose, each product
        # accumulated into it by BLAS in place.
        out = np.empty((X.U.shape[0], A.shape[0])).T
        out[:] = (-0.5 * log_norm_sum - half)[:, None]
        out = gemm_into(B, X.U, out)
        out = gemm_into(A, X.U2, out)
        L = np.asarray(out.T)
        refine(L, X.X, X.u2_rows, g.theta, precision, half, g.log_norm)
        L += params.log_weight
        return L


def check_covariance_type(value: Any) -> str:
    if not isinstance(value, str) or value not in COVARIANCE_TYPES:
        raise ParameterError(
            f"covariance_type={value!r} is not accepted; use one of "
            f"{', '.join(map(repr, COVARIANCE_TYPES))}"
        )
    return value


def component_family(covariance_type: str, reg_covar: float) -> Family:
    """The family that scores the components of a covariance structure: the Gaussian
    (diagonal) family on centred moments for "diag" and "spherical", the multivariate normal
    family on scatter matrices, with ``reg_covar`` as its ridge, for "full" and "tied" (0
    where :func:`regularizer` adds a relative ridge itself)."""
    if covariance_type in ("diag", "spherical"):
        from ..families.gaussian import Gaussian

        # No relative floor: reg_covar, added to the statistics, is the floor.
        return Gaussian(var_smoothing=0.0)
    from ..families.mvnormal import MVNormal

    # tol=0: a matrix is refused only if it cannot be factorised (reg_covar > 0 never is).
    return MVNormal(ridge=reg_covar, tol=0.0)


def finalize_size(covariance_type: str, n_components: int, n_features: int) -> int:
    """The float64 words a mixture's finalize holds at its peak for ``n_components`` in all
    and ``n_features``, temporaries included, known before any is allocated (a model file's
    load takes it from its budget first; it counted the statistic's size, and full
    covariances took five times that): for "full" and "tied", the scatters regularized
    (shrunk, floored, pooled, the prior's posterior) and the multivariate normal family's
    estimates, factors and inverses (measured at 5.0 (n_components, d, d) stacks, 6
    counted); for "diag" and "spherical", the Gaussian family's arrays and the regularized
    moments (measured at 8.1 (n_components, d) arrays with the prior, 10 counted)."""
    m, d = n_components, n_features
    if covariance_type in ("full", "tied"):
        return 6 * m * d * d + 16 * m * d + 8 * d
    return 10 * m * d + 8 * d


def regularizer(
    covariance_type: str,
    reg_covar: float,
    owner: np.ndarray | None = None,
    prior: str | None = None,
    class_data: Statistic | None = None,
    reg_param: float = 0.0,
    floor: np.ndarray | None = None,
    scale: np.ndarray | None = None,
) -> Callable[[Statistic], Statistic]:
    """The statistics → statistics map that gives the component family's maximum-likelihood
    ``finalize`` the covariance structure (and, for the Gaussian family, which has no ridge,
    the ``reg_covar`` one).

    diag: ``M2_kj + r W_kj`` (variance ``σ²_kj + r``); spherical: every feature of a component
    gets ``mean_j σ²_kj + r``; full: unchanged (the family adds ``r I``); tied: each
    component's scatter replaced by ``W_k`` times the pooled within-class covariance, which
    the components of one class (``owner``) share.

    ``reg_param`` = ρ > 0 first shrinks each component's covariance as scikit-learn's QDA
    shrinks a class's (:func:`qda_shrink`: ``(1 − ρ) Σ_k + ρ I``, every variance
    ``(1 − ρ) σ²_kj + ρ`` for diag and spherical), before ``reg_covar`` is added. Shrinking is
    linear in the statistics, so it commutes with the structures (the pooled matrix of the
    shrunk scatters is the shrunk pooled matrix, the mean of shrunk variances the shrunk
    mean); under the conjugate prior it shrinks the posterior mode.

    ``floor`` (``(n_features,)`` for one class's components, or ``(n_components,
    n_features)``): each component's variance of feature j becomes at least ``floor_j`` — the
    variance ``σ²_kj + reg_covar`` of diag, spherical's one variance (the mean of the
    ``σ²_kj``) at least the mean of the floors, full's and tied's pooled matrix (with the
    ridge) at least ``diag(floor)`` in the order of positive semidefinite matrices
    (:mod:`._floor`): each the maximum of the likelihood under its bound, so that EM never
    lowers the likelihood. A floor below the ridge
    never binds, so it changes nothing on finely recorded data.

    ``scale`` (shaped as ``floor``): the ridge is ``reg_covar · scale`` per feature, relative to
    the column's spread (:mod:`._ridge`), added here for every covariance type (the
    multivariate normal family then has none: :func:`component_family` with ``scale``); a
    spherical component gets the mean of its features' ridges. None: ``reg_covar`` itself.
    """
    shrink = qda_shrink(reg_param)
    ridge: float | np.ndarray = reg_covar if scale is None else reg_covar * np.asarray(scale)
    low = None if floor is None or not np.any(floor > ridge) else np.asarray(floor)
    # added to a scatter's diagonal here (a relative ridge), or by the family afterwards (the
    # absolute reg_covar, as scikit-learn adds it), whose floor is then lowered by it (once
    # per fit, not per EM iteration)
    added = None if scale is None else ridge
    low_scatter = low
    if low is not None and scale is None:
        low_scatter = np.maximum(low - reg_covar, 0.0)

    def floored_m2(stats: Moments, add: float | np.ndarray) -> np.ndarray:
        # W (σ² + add) raised to W max(σ² + add, floor): a component's own spread where the
        # data resolve it, the floor where they cannot.
        m2 = stats.m2 + add * stats.weight
        return m2 if low is None else np.maximum(m2, low * stats.weight)

    def floored_scatter(stats: Any) -> Any:
        if low_scatter is None and added is None:
            return stats
        scatter = np.array(stats.scatter)
        j = np.arange(scatter.shape[-1])
        W = np.asarray(stats.weight, dtype=np.float64)[:, None]
        if added is not None:
            scatter[:, j, j] += added * W
        if low_scatter is not None:
            # the maximum under the floor (Σ ⪰ diag(floor), see ._floor), not the diagonal
            # raised to it, so that EM never lowers the likelihood
            scatter = floored_covariances(scatter, low_scatter * W)
        return replace(stats, scatter=scatter)

    def diag(stats: Statistic) -> Statistic:
        assert isinstance(stats, Moments)
        return replace(stats, m2=floored_m2(stats, ridge))

    def spherical(stats: Statistic) -> Statistic:
        assert isinstance(stats, Moments)
        # The floor of the one variance is the mean of the features' floors: the maximum of
        # the likelihood under that bound (the mean of the variances, raised to it), so EM
        # still never lowers the likelihood, where flooring each variance before the mean
        # (no maximum of anything) let it drift down by 1e-6 per row an iteration.
        variance = stats.variance.mean(axis=1, keepdims=True)
        if low is not None:
            variance = np.maximum(variance, np.mean(low, axis=-1, keepdims=True))
        spherical_ridge = np.mean(ridge, axis=-1, keepdims=True) if scale is not None else ridge
        return replace(stats, m2=(variance + spherical_ridge) * stats.weight)

    def full(stats: Statistic) -> Statistic:
        return floored_scatter(stats)

    def tied(stats: Any) -> Statistic:
        groups = np.zeros(stats.n_classes, dtype=np.int64) if owner is None else owner
        W = stats.weight
        n_groups = int(groups.max(initial=-1)) + 1
        pooled = np.zeros((n_groups, stats.n_features, stats.n_features))
        np.add.at(pooled, groups, stats.scatter)
        total = np.bincount(groups, weights=W, minlength=n_groups)[:, None, None]
        cov = np.divide(pooled, total, out=np.zeros_like(pooled), where=total > 0)
        return floored_scatter(replace(stats, scatter=W[:, None, None] * cov[groups]))

    structure = {"diag": diag, "spherical": spherical, "full": full, "tied": tied}
    if prior == "conjugate":
        # The posterior mode already has the covariance structure; reg_covar is added on top
        # (the diagonal families here, the multivariate normal family's ridge for full/tied).
        mode = conjugate_prior(covariance_type, owner, class_data)
        if covariance_type in ("diag", "spherical"):
            return lambda stats: structure["diag"](shrink(mode(stats)))
        return lambda stats: floored_scatter(shrink(mode(stats)))
    shaped = structure[covariance_type]
    return lambda stats: shaped(shrink(stats))


def check_reg_param(value: Any) -> float:
    """``reg_param``: a number in [0, 1] (QDA's)."""
    try:
        return check_fraction(value, "reg_param")
    except ParameterError:
        raise ParameterError(
            f"reg_param={value!r} is not accepted; use a number from 0 to 1 (each covariance "
            "becomes (1 − reg_param) Σ + reg_param · I)"
        ) from None


def qda_shrink(reg_param: float) -> Callable[[Any], Any]:
    """scikit-learn's QDA ``reg_param`` ρ on a component statistic: the scatter ``S_k`` becomes
    ``(1 − ρ) S_k + ρ W_k I`` (covariance ``(1 − ρ) Σ_k + ρ I``, QDA's
    :func:`bayeskit.families._covariance.finish`), the moments' ``M2_kj`` become
    ``(1 − ρ) M2_kj + ρ W_kj``. ρ = 0 leaves the statistic as it is."""
    rho = float(reg_param)

    def shrink(stats: Any) -> Any:
        if rho == 0.0:
            return stats
        if isinstance(stats, Moments):
            return replace(stats, m2=(1.0 - rho) * stats.m2 + rho * stats.weight)
        scatter = (1.0 - rho) * stats.scatter
        j = np.arange(scatter.shape[-1])
        scatter[:, j, j] += rho * stats.weight[:, None]
        return replace(stats, scatter=scatter)

    return shrink


#: mclust's default conjugate prior (Fraley & Raftery 2007): the mean's prior weight κ (in
#: rows) and the covariance's degrees of freedom beyond the dimension (ν = d + 2)
PRIOR_SHRINKAGE = 0.01
PRIOR_EXTRA_DOF = 2
PRIORS = (None, "conjugate")


def check_prior(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and value in PRIORS):
        return value
    raise ParameterError(
        f"prior={value!r} is not accepted; use None (maximum likelihood) or 'conjugate'"
    )


def conjugate_prior(
    covariance_type: str, owner: np.ndarray | None, class_data: Any = None
) -> Callable[[Any], Any]:
    """The statistics → statistics map whose maximum-likelihood estimates are the posterior
    modes under mclust's default conjugate prior (``priorControl()``; Fraley & Raftery,
    "Bayesian regularization for normal mixture estimation and model-based clustering",
    2007), taken per class from the class's own data: ``class_data`` (its one-class
    statistic, given while EM runs on the class, whose starts hold a few rows only), or else
    the class's components merged (``owner`` groups them), which after EM are the same:

    ``μ_p`` = the class mean, κ = 0.01, ν = d + 2, scale ``Λ = C / G^(2/d)`` with ``C`` the
    class covariance (its diagonal for "diag"/"spherical") and G the class's components;
    component k with weight ``n_k``, mean ``x̄_k``, scatter ``W_k`` and ``δ_k = x̄_k − μ_p``:

    * mean ``(n_k x̄_k + κ μ_p) / (n_k + κ)``;
    * diag: ``σ²_kj = (Λ_jj + κ n_k/(n_k+κ) δ²_kj + W_kjj) / (ν + n_k + 3)``;
      spherical: their mean over the features;
    * full: ``Σ_k = (Λ + κ n_k/(n_k+κ) δ_k δ_kᵀ + W_k) / (ν + n_k + d + 2)``;
    * tied: ``Σ = (Λ + Σ_k [κ n_k/(n_k+κ) δ_k δ_kᵀ + W_k]) / (ν + N + d + 2)``, N the class's
      weight.
    """
    kappa = PRIOR_SHRINKAGE

    def groups_of(k: int) -> np.ndarray:
        return np.zeros(k, dtype=np.int64) if owner is None else owner

    def diag(stats: Any) -> Any:
        n, xbar, W = stats.weight, stats.mean, stats.m2  # (k, d) each
        k, d = xbar.shape
        g = groups_of(k)
        G = np.bincount(g)[g][:, None].astype(np.float64)
        if class_data is not None:
            mu, spread, total = class_data.mean, class_data.m2, class_data.weight
        else:
            total = np.zeros((int(g.max(initial=-1)) + 1, d))
            np.add.at(total, g, n)
            mu = np.zeros_like(total)
            np.add.at(mu, g, n * xbar)
            mu = safe_ratio(mu, total)
            spread = np.zeros_like(total)
            np.add.at(spread, g, W + n * (xbar - mu[g]) ** 2)
        scale = safe_ratio(spread, total)[g] / G ** (2.0 / d)
        delta = xbar - mu[g]
        var = (scale + kappa * n / (n + kappa) * delta**2 + W) / (d + PRIOR_EXTRA_DOF + n + 3)
        if covariance_type == "spherical":
            var = np.repeat(var.mean(axis=1, keepdims=True), d, axis=1)
        mean = (n * xbar + kappa * mu[g]) / (n + kappa)
        return replace(stats, mean=mean, m2=var * n)

    def full(stats: Any) -> Any:
        n, xbar, S = stats.weight, stats.mean, stats.scatter  # (k,), (k, d), (k, d, d)
        k, d = xbar.shape
        g = groups_of(k)
        n_groups = int(g.max(initial=-1)) + 1
        G = np.bincount(g, minlength=n_groups).astype(np.float64)
        weight = np.bincount(g, weights=n, minlength=n_groups)  # the components' rows
        if class_data is not None:
            mu, scatter, total = class_data.mean, class_data.scatter, class_data.weight
        else:
            mu = np.zeros((n_groups, d))
            np.add.at(mu, g, n[:, None] * xbar)
            mu = safe_ratio(mu, weight[:, None])
            spread = xbar - mu[g]
            scatter = np.zeros((n_groups, d, d))
            np.add.at(scatter, g, S + n[:, None, None] * spread[:, :, None] * spread[:, None, :])
            total = weight
        between = xbar - mu[g]
        scale = safe_ratio(scatter, total[:, None, None]) / (G ** (2.0 / d))[:, None, None]
        shrink = (kappa * n / (n + kappa))[:, None, None]
        own = shrink * between[:, :, None] * between[:, None, :] + S
        dof = d + PRIOR_EXTRA_DOF + d + 2
        if covariance_type == "tied":
            pooled = np.zeros_like(scatter)
            np.add.at(pooled, g, own)
            cov = ((scale + pooled) / (dof + weight)[:, None, None])[g]
        else:
            cov = (scale[g] + own) / (dof + n)[:, None, None]
        mean = (n[:, None] * xbar + kappa * mu[g]) / (n[:, None] + kappa)
        return replace(stats, mean=mean, scatter=cov * n[:, None, None])

    return diag if covariance_type in ("diag", "spherical") else full


def conjugate_log_prior(
    covariance_type: str, class_data: Any
) -> Callable[[ComponentParams], float]:
    """The log density (up to a constant) of the prior whose mode :func:`conjugate_prior`
    computes, at a class's mixture parameters: what MAP-EM raises at every iteration together
    with the log-likelihood (Dempster, Laird & Rubin 1977, §3; Fraley & Raftery 2007), while
    the log-likelihood alone may fall.

    With the class mean ``μ_p``, ``Λ`` as in :func:`conjugate_prior` (G: the mixture's
    components), ν = d + 2, κ = 0.01 and ``δ_k = μ_k − μ_p``:

    * diag: ``Σ_kj [−(ν + 3)/2 ln σ²_kj − (Λ_jj + κ δ²_kj) / (2 σ²_kj)]``;
    * spherical: ``Σ_k [−d (ν + 3)/2 ln σ²_k − (tr Λ + κ |δ_k|²) / (2 σ²_k)]``;
    * full: ``Σ_k [−(ν + d + 2)/2 ln |Σ_k| − ½ tr(Λ Σ_k⁻¹) − κ/2 δ_kᵀ Σ_k⁻¹ δ_k]``;
    * tied: the shared matrix's terms once, ``−κ/2 Σ_k δ_kᵀ Σ⁻¹ δ_k``.

    Each is the normal prior on the means times the inverse-gamma / inverse-Wishart on the
    (co)variances whose joint mode, given a component's statistics, is the one of
    :func:`conjugate_prior` (the exponents of ``ln |Σ|`` match its denominators).
    """
    kappa = PRIOR_SHRINKAGE

    def log_prior(params: ComponentParams) -> float:
        g = params.params
        if covariance_type in ("diag", "spherical"):
            mean, var = np.asarray(g.theta), np.asarray(g.var)
            k, d = mean.shape
            mu = np.asarray(class_data.mean, dtype=np.float64).reshape(-1)
            spread = np.asarray(class_data.m2, dtype=np.float64).reshape(-1)
            total = np.asarray(class_data.weight, dtype=np.float64).reshape(-1)
            scale = safe_ratio(spread, total) / k ** (2.0 / d)
            delta2 = (mean - mu) ** 2
            nu = d + PRIOR_EXTRA_DOF
            with np.errstate(divide="ignore"):
                if covariance_type == "spherical":
                    s2 = var[:, 0]
                    return float(
                        np.sum(
                            -0.5 * d * (nu + 3) * np.log(s2)
                            - (scale.sum() + kappa * delta2.sum(axis=1)) / (2.0 * s2)
                        )
                    )
                return float(
                    np.sum(-0.5 * (nu + 3) * np.log(var) - (scale + kappa * delta2) / (2.0 * var))
                )
        mean, cov = np.asarray(g.means), np.asarray(g.covariance)
        k, d = mean.shape
        mu = np.asarray(class_data.mean, dtype=np.float64).reshape(-1)
        rows = float(np.sum(class_data.weight))
        scatter = np.asarray(class_data.scatter, dtype=np.float64).reshape(d, d)
        scale_full = scatter / rows / k ** (2.0 / d)
        if covariance_type == "tied":
            cov = cov[:1]
        try:
            L = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            return -math.inf
        log_det = 2.0 * np.log(np.diagonal(L, axis1=1, axis2=2)).sum(axis=1)
        # tr(Λ Σ⁻¹) = tr(L⁻¹ Λ L⁻ᵀ) and δᵀ Σ⁻¹ δ = |L⁻¹ δ|², by triangular solves (L: Σ's
        # Cholesky factor), never an inverse
        half = np.linalg.solve(L, np.broadcast_to(scale_full, L.shape))
        trace = np.trace(np.linalg.solve(L, np.swapaxes(half, 1, 2)), axis1=1, axis2=2)
        delta = mean - mu
        factors = np.broadcast_to(L, (k, d, d)) if covariance_type == "tied" else L
        quad = np.sum(np.linalg.solve(factors, delta[:, :, None])[:, :, 0] ** 2)
        nu = d + PRIOR_EXTRA_DOF
        return float(np.sum(-0.5 * (nu + d + 2) * log_det - 0.5 * trace) - 0.5 * kappa * quad)

    return log_prior


def n_parameters(covariance_type: str, k: int, d: int) -> int:
    """Free parameters of a k-component mixture over d features (for BIC)."""
    cov = {
        "diag": k * d,
        "spherical": k,
        "full": k * d * (d + 1) // 2,
        "tied": d * (d + 1) // 2,
    }[covariance_type]
    return cov + k * d + k - 1


def component_parameters(covariance_type: str, d: int) -> int:
    """Free parameters of one component over d features, its mixing weight not counted: its
    mean and its own covariance (a tied mixture's components share theirs)."""
    return d + {"diag": d, "spherical": 1, "full": d * (d + 1) // 2, "tied": 0}[covariance_type]


#: A component must hold more than this fraction of its free parameters in rows' weight.
#: Figueiredo & Jain's minimum-message-length criterion annihilates a component of at most
#: N/2 rows (N: its free parameters); here the threshold is half theirs, N/4: at N/2, one-hot
#: tables (each category a 0/1 column, so N = 2d is large) lose components their classes
#: support (congressional voting: 0.933 against GaussianNB's 0.943), while N/4 still stops
#: every collapse onto one or two rows seen on R's and UCI's tables (benchmarks/peers.md).
SUPPORT_FRACTION = 0.25


def least_support(covariance_type: str, d: int) -> float:
    """The rows' weight a component must exceed: ``N / 4``, N = :func:`component_parameters`.

    The rule is the component annihilation of Figueiredo & Jain's minimum-message-length
    criterion ("Unsupervised learning of finite mixture models", IEEE TPAMI 24(3), 2002:
    the M-step's weight ``max(0, n_k − N/2)``, a Dirichlet prior of exponent −N/2 on
    the weights): a component with too few rows cannot pay for the parameters that describe
    it. The constant is half theirs (:data:`SUPPORT_FRACTION`).
    """
    return SUPPORT_FRACTION * component_parameters(covariance_type, d)


def zero_variance(covariance_type: str, stats: Statistic) -> int | None:
    """Index of a component with data and no spread in some feature (a single row, a constant
    feature; for "tied", one shared by the class), or None: with ``reg_covar=0`` its density
    would be infinite."""
    if isinstance(stats, Moments):
        bad = (stats.weight > 0) & (stats.m2 <= 0)
        hit = bad.any(axis=1) if covariance_type == "diag" else bad.all(axis=1)
    else:
        scatter = cast(Any, stats)
        diagonal = np.einsum("kjj->kj", scatter.scatter)
        hit = (scatter.weight > 0) & (diagonal <= 0).any(axis=1)
        if covariance_type == "tied":
            hit = hit & (diagonal <= 0).all(axis=0).any()
    where = np.flatnonzero(hit)
    return int(where[0]) if len(where) else None
