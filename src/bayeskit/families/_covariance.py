"""Covariance estimates from a :class:`~bayeskit.stats.Scatter`, all in one place: the multivariate
normal family's ``finalize`` is these steps, in this order.

1. **Per class**: maximum likelihood ``Ĉ_k = S_k / W_k``, or shrunk towards the scaled identity
   ``(1 − α) Ĉ + α (tr Ĉ / d) I`` with a fixed ``α``, Ledoit and Wolf's ``α`` (``"ledoit-wolf"``;
   ``"auto"`` computes it on standardised features and scales back, as scikit-learn's LDA does),
   or Chen et al.'s oracle approximating shrinkage (``"oas"``).
2. **Pooling** (Friedman 1989, λ): ``Σ_k(λ) = ((1 − λ) W_k Ĉ_k + λ W P) / ((1 − λ) W_k + λ W)``
   with the pooled ``P = Σ_k ω_k Ĉ_k`` (``ω_k = W_k / W``, or given weights such as LDA's
   priors). λ = 0 keeps each class's own (QDA), λ = 1 gives every class ``P`` (LDA); in between a
   small class borrows more than a large one.
3. **γ** (Friedman): ``(1 − γ) Σ + γ (tr Σ / d) I``.
4. **reg_param** (scikit-learn's QDA): ``(1 − r) Σ + r I`` (the identity, not scaled: it depends
   on the units of the features).
5. **Shape**: ``"diag"`` keeps the diagonal, ``"spherical"`` its mean (Gaussian mixtures).
6. **Ridge**: ``Σ + ε I`` (scikit-learn's ``reg_covar`` for mixtures).

Steps 2–6 are linear in the matrices, so the order of 3–5 does not change the result; the
per-class shrinkage comes first because its intensity depends on the class's own data.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np

from .._validation import as_real
from ..errors import ParameterError
from ..stats import Scatter
from ..stats._base import safe_ratio

SHAPES = ("full", "diag", "spherical")
#: shrinkage estimators that need the fourth moments
NEEDS_FOURTH = ("auto", "ledoit-wolf")
#: The magnitudes those estimators take (Ledoit & Wolf 2004): the fourth moments are sums of
#: the fourth powers of the deviations from the class means, kept raw so that statistics add
#: (merging, unlearning, partitions). Values beyond FOURTH_LARGEST would overflow float64 in
#: them (1e70⁴ = 1e280, leaving 1e28 for the sum of the weights), and a column whose values
#: spread over less than FOURTH_SMALLEST has fourth powers below 1e-280, which float64 loses
#: to underflow (the intensity would then be computed from zeros: silently another model).
FOURTH_LARGEST = 1e70
FOURTH_SMALLEST = 1e-70
ESTIMATORS = ("auto", "ledoit-wolf", "oas")


def check_fraction(value: Any, name: str) -> float:
    """A number in [0, 1] (a shrinkage intensity, λ, γ, reg_param)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
        raise ParameterError(f"{name} must be a number in [0, 1]; got {value!r}")
    out = as_real(value)
    if not 0.0 <= out <= 1.0:
        raise ParameterError(f"{name} must be in [0, 1]; got {value!r}")
    return out


def check_shrinkage(value: Any) -> float | str | None:
    """None, a fixed intensity in [0, 1], or one of :data:`ESTIMATORS`."""
    if value is None or (isinstance(value, str) and value in ESTIMATORS):
        return value
    if isinstance(value, str):
        raise ParameterError(
            f"shrinkage={value!r}; accepted: None, a number in [0, 1], 'auto' (Ledoit-Wolf on "
            "standardised features), 'ledoit-wolf' or 'oas'"
        )
    return check_fraction(value, "shrinkage")


def constant(var: np.ndarray, mean: np.ndarray, weight: Any) -> np.ndarray:
    """Whether a variance is indistinguishable from 0, given the rounding of the two-pass
    computation (scikit-learn's StandardScaler rule): ``var <= n ε var + (n μ ε)²``.

    ``n`` counts the rows the rounding accumulates over: the weight, taken between 1 and
    2^24 so that the rule does not depend on the scale of the sample weights (weights of
    1e300 made every column "constant", weights of 1e-300 none) while data of unit weights
    gets scikit-learn's rule."""
    eps = np.finfo(np.float64).eps
    n = np.clip(np.asarray(weight, dtype=np.float64), 1.0, 2.0**24)
    return np.asarray(var <= n * eps * var + (n * mean * eps) ** 2)


def _scale(stats: Scatter) -> np.ndarray:
    """Each class's feature variances, 1 where a feature is constant (StandardScaler's)."""
    var = np.diagonal(stats.covariance, axis1=1, axis2=2)
    return np.where(constant(var, stats.mean, stats.weight[:, None]), 1.0, var)


def shrink(cov: np.ndarray, alpha: np.ndarray | float) -> np.ndarray:
    """``(1 − α) C + α (tr C / d) I`` for a stack of matrices (K, d, d) and α (K,) or scalar."""
    d = cov.shape[-1]
    alpha = np.broadcast_to(np.asarray(alpha, dtype=np.float64), cov.shape[:1])
    mu = np.trace(cov, axis1=1, axis2=2) / max(d, 1)
    out = (1.0 - alpha)[:, None, None] * cov
    j = np.arange(d)
    out[:, j, j] += (alpha * mu)[:, None]
    return out


def intensity(stats: Scatter, method: float | str) -> np.ndarray:
    """The shrinkage intensity α of each class, (K,)."""
    K, d = stats.weight.shape[0], stats.n_features
    if not isinstance(method, str):
        return np.full(K, float(method))
    if d <= 1:
        return np.zeros(K)  # one feature: every intensity gives the same matrix
    if method == "oas":
        return _oas(stats.covariance, stats.weight)
    if stats.m4 is None:
        raise ParameterError(
            f"shrinkage={method!r} needs the fourth moments of the data, which this model's "
            "statistics do not keep (it was fitted with another shrinkage); fit it again with "
            f"shrinkage={method!r} set"
        )
    return _ledoit_wolf(stats, standardize=method == "auto")


def _oas(cov: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Chen, Wiesel, Eldar & Hero (2010), in scikit-learn's form (``n`` = the class weight)."""
    d = cov.shape[-1]
    alpha = np.mean(cov**2, axis=(1, 2))
    mu = np.trace(cov, axis1=1, axis2=2) / d
    num = alpha + mu**2
    den = (weight + 1.0) * (alpha - mu**2 / d)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den == 0, 1.0, np.minimum(num / den, 1.0))
    return np.where(weight > 0, out, 0.0)


def _ledoit_wolf(stats: Scatter, *, standardize: bool) -> np.ndarray:
    """Ledoit & Wolf (2004)'s intensity from second and fourth moments, in scikit-learn's form;
    ``standardize`` computes it for the features divided by their class standard deviations
    (1 for a constant feature), scikit-learn's LDA ``shrinkage="auto"``."""
    assert stats.m4 is not None
    d = stats.n_features
    W = stats.weight
    cov = stats.covariance
    inv = 1.0 / (_scale(stats) if standardize else np.ones((len(W), d)))
    cov_std = cov * np.sqrt(inv)[:, :, None] * np.sqrt(inv)[:, None, :]
    # Σ_i w_i ||z_i||⁴ / W with z the (standardised) centred row: Σ_jk m4_jk / (s_j² s_k²) / W.
    fourth = safe_ratio(np.einsum("kab,ka,kb->k", stats.m4, inv, inv), W)
    trace = np.trace(cov_std, axis1=1, axis2=2)
    mu = trace / d
    frob = np.sum(cov_std**2, axis=(1, 2))
    # fourth >= frob in exact arithmetic (E||z||⁴ >= (tr C)² >= ||C||²), with equality for a
    # class of one or two distinct rows; a difference within rounding of the terms is 0, so
    # statistics that reached the same class by another path (unlearning most of the data)
    # give the same intensity.
    raw = fourth - frob
    raw = np.where(raw > 1e-10 * (np.abs(fourth) + frob), raw, 0.0)
    beta = safe_ratio(raw, d * W)
    delta = (frob - 2.0 * mu * trace + d * mu**2) / d
    beta = np.minimum(beta, delta)
    out = safe_ratio(beta, delta)
    return np.where((W > 0) & (beta != 0), out, 0.0)


def standardized_shrink(stats: Scatter, method: float | str, alpha: np.ndarray) -> np.ndarray:
    """Each class's shrunk covariance: for ``"auto"`` the target is the identity of the
    standardised features, ``α mu diag(s²)`` once scaled back (scikit-learn's LDA)."""
    cov = stats.covariance
    if method != "auto":
        return shrink(cov, alpha)
    var = np.diagonal(cov, axis1=1, axis2=2)
    scale = _scale(stats)
    d = stats.n_features
    mu = np.sum(var / scale, axis=1) / max(d, 1)  # trace of the standardised covariance / d
    out = (1.0 - alpha)[:, None, None] * cov
    j = np.arange(d)
    out[:, j, j] += (alpha * mu)[:, None] * scale
    return out


def class_estimates(stats: Scatter, shrinkage: float | str | None) -> tuple[np.ndarray, np.ndarray]:
    """Step 1: each class's covariance estimate (K, d, d) and the shrinkage intensity used."""
    if shrinkage is None:
        return stats.covariance, np.zeros(stats.weight.shape[0])
    alpha = intensity(stats, shrinkage)
    return standardized_shrink(stats, shrinkage, alpha), alpha


def pool(
    estimates: np.ndarray, weight: np.ndarray, pooling: float, pool_weights: np.ndarray | None
) -> np.ndarray:
    """Step 2: Friedman's blend of each class's estimate with the pooled one. Returns (1, d, d)
    when ``pooling == 1`` (one shared matrix), else (K, d, d)."""
    live = weight > 0
    omega = weight if pool_weights is None else np.where(live, pool_weights, 0.0)
    total = float(omega.sum())
    pooled = np.einsum("k,kab->ab", omega / total, estimates) if total > 0 else estimates[0] * 0
    if pooling == 1.0:
        return pooled[None]
    if pooling == 0.0:
        return estimates
    W = float(weight.sum())
    own = (1.0 - pooling) * weight
    den = own + pooling * W
    # Each part's share first: a weight near 1e308 times a matrix would overflow.
    mine = safe_ratio(own, den)[:, None, None]
    theirs = safe_ratio(np.full_like(den, pooling * W), den)[:, None, None]
    return mine * estimates + theirs * pooled


def finish(
    cov: np.ndarray, *, gamma: float, reg_param: float, shape: str, ridge: float
) -> np.ndarray:
    """Steps 3–6 on a stack of matrices."""
    if gamma:
        cov = shrink(cov, gamma)
    if reg_param:
        cov = (1.0 - reg_param) * cov
        j = np.arange(cov.shape[-1])
        cov[:, j, j] += reg_param
    if shape != "full":
        diag = np.diagonal(cov, axis1=1, axis2=2)
        if shape == "spherical":
            diag = np.broadcast_to(diag.mean(axis=1, keepdims=True), diag.shape)
        cov = np.zeros_like(cov)
        j = np.arange(cov.shape[-1])
        cov[:, j, j] = diag
    if ridge:
        cov = cov.copy()
        j = np.arange(cov.shape[-1])
        cov[:, j, j] += ridge
    return cov
