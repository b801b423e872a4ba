"""The Bayesian Gaussian: a Normal-Gamma prior on each class's mean and precision, and the
Student-t posterior predictive it leads to (Murphy 2007, "integrate the parameters out").

Prior per class c and feature j (precision τ = 1/σ²)::

    τ ~ Gamma(α₀, β₀),   μ | τ ~ Normal(μ₀, 1 / (κ₀ τ))

After n (weighted) observations with mean x̄ and sum of squared deviations M2::

    κ_n = κ₀ + n,   μ_n = (κ₀ μ₀ + n x̄) / κ_n,   α_n = α₀ + n / 2,
    β_n = β₀ + M2 / 2 + κ₀ n (x̄ − μ₀)² / (2 κ_n)

and a new value is Student-t distributed with ``2 α_n`` degrees of freedom, location ``μ_n``
and squared scale ``β_n (κ_n + 1) / (α_n κ_n)``. With a precision shared by the classes (one
Gamma per feature) ``α_n`` and ``β_n`` sum the classes' terms: ``α_n = α₀ + Σ_c n_c / 2``,
``β_n = β₀ + Σ_c [M2_c / 2 + κ₀ n_c (x̄_c − μ₀)² / (2 κ_{n,c})]``; the means stay per class.

Everything here is computed from centred moments, so it adds over batches like the maximum
likelihood fit does.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import njit, prange
from .._lazy import special


def normal_gamma_predictive(
    weight: np.ndarray,
    mean: np.ndarray,
    m2: np.ndarray,
    *,
    prior_mean: np.ndarray,
    prior_count: float,
    prior_var: np.ndarray,
    shared: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(degrees of freedom, location, squared scale) of the Student-t predictive, each of
    shape (n_classes, n_features).

    ``prior_count`` is κ₀ and ``2 α₀`` (the prior is worth that many observations of the mean
    and of the spread); ``β₀ = α₀ · prior_var``, so the prior's expected precision is
    ``1 / prior_var``. ``prior_mean`` and ``prior_var`` have shape (n_features,).
    """
    k0 = float(prior_count)
    a0 = k0 / 2.0
    b0 = a0 * prior_var
    kn = k0 + weight
    # Ratios of weights first (each at most 1), so weights near 1e308 do not overflow.
    data_share = weight / kn
    loc = (k0 / kn) * prior_mean + data_share * mean
    spread = 0.5 * np.maximum(m2, 0.0) + 0.5 * k0 * data_share * (mean - prior_mean) ** 2
    if shared:
        an = np.broadcast_to(a0 + 0.5 * weight.sum(axis=0), weight.shape)
        bn = np.broadcast_to(b0 + spread.sum(axis=0), weight.shape)
    else:
        an = a0 + 0.5 * weight
        bn = b0 + spread
    scale2 = (bn / an) * ((kn + 1.0) / kn)
    return 2.0 * an, loc, scale2


def student_t_terms(dof: np.ndarray, scale2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (class, feature): the log normaliser ``ln Γ((ν+1)/2) − ln Γ(ν/2) − ½ ln(ν π s²)``
    and the exponent ``(ν + 1) / 2`` of ``ln p(x) = norm − (ν+1)/2 · ln(1 + (x−μ)² / (ν s²))``."""
    half = 0.5 * dof
    # ln Γ(h + ½) − ln Γ(h) = ln Γ(½) − ln B(h, ½): the difference of two gammaln values
    # loses every digit for large h (16.0 instead of 17.27 at h = 1e15, inf − inf beyond
    # 1e305, reached with sample weights near 1e308); betaln does not.
    log_ratio = special.gammaln(0.5) - special.betaln(half, 0.5)
    norm = log_ratio - 0.5 * (np.log(dof) + np.log(np.pi) + np.log(scale2))
    return norm, half + 0.5


@njit(inline="always")
def _row(
    X: np.ndarray,
    i: int,
    loc: np.ndarray,
    inv_dof_scale2: np.ndarray,
    power: np.ndarray,
    norm: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    d = X.shape[1]
    for c in range(loc.shape[0]):
        acc = 0.0
        for j in range(d):
            x = X[i, j]
            if x != x:
                continue
            # The deviation is taken directly from the location (no expansion): as accurate
            # as the inputs.
            z = x - loc[c, j]
            acc += norm[c, j] - power[c, j] * math.log1p(z * z * inv_dof_scale2[c, j])
        out[i, c] = acc


@njit(parallel=True)
def _parallel(
    X: np.ndarray,
    loc: np.ndarray,
    inv_dof_scale2: np.ndarray,
    power: np.ndarray,
    norm: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    for i in prange(X.shape[0]):
        _row(X, i, loc, inv_dof_scale2, power, norm, out)


@njit()
def _serial(
    X: np.ndarray,
    loc: np.ndarray,
    inv_dof_scale2: np.ndarray,
    power: np.ndarray,
    norm: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    for i in range(X.shape[0]):
        _row(X, i, loc, inv_dof_scale2, power, norm, out)


#: Below this many (row, class, feature) terms one thread beats starting the thread pool.
PARALLEL_WORK = 1 << 20


def student_t_log_prob(
    X: np.ndarray, loc: np.ndarray, inv_dof_scale2: np.ndarray, power: np.ndarray, norm: np.ndarray
) -> np.ndarray:
    """``out[i, c] = Σ_j norm[c, j] − power[c, j] · ln(1 + (X[i, j] − loc[c, j])² ·
    inv_dof_scale2[c, j])`` over the observed (non-NaN) entries of each row: shape
    (n_rows, n_classes). Rows run in parallel when there is enough work."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    args = [np.ascontiguousarray(a, dtype=np.float64) for a in (loc, inv_dof_scale2, power, norm)]
    out = np.empty((X.shape[0], loc.shape[0]))
    kernel = _parallel if X.size * loc.shape[0] >= PARALLEL_WORK else _serial
    kernel(X, *args, out)
    return out
