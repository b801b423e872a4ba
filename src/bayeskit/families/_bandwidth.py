"""Bandwidths of the kernel density family, one per (class, feature) cell, with the compiled
loops they need: the cells' weighted moments and quartiles (:func:`cell_stats`) and the
leave-one-out likelihood of the binned estimate (:func:`leave_one_out`).

A bandwidth is the standard deviation of the (unit-variance) kernel, in the feature's units:

``"silverman"``
    ``0.9 · min(σ, IQR / 1.349) · W^(−1/5)`` (Silverman 1986, eq. 3.31): robust to heavy
    tails and to a bimodal class. R's ``bw.nrd0`` is the same rule with the sample deviation
    (n − 1) and 1.34; its widths are wider than these by up to √(n / (n − 1)) · 1.349 / 1.34
    (0.7 % at n = 50), a difference the weighted statistics that add (σ² = M2 / W, exact for
    ``partial_fit`` and merges) keep. Where the quartiles coincide (a feature that
    is mostly one value, such as a word frequency that is usually 0) σ alone is used.
``"scott"``
    ``1.06 · σ · W^(−1/5)``, the normal reference rule (Scott 1992), optimal for a Gaussian.
``"cv"``
    the factor of Silverman's bandwidth, among 16 from 1/8 to 4 (spaced by 2^(1/3)), that
    maximises the leave-one-out log-likelihood of the cell's rows under the binned estimate
    (tail included). A row of weight w counts as w rows, one of which is left out at a time,
    so weights are repetitions here too. Each candidate costs one binning, one FFT and one
    pass over the rows, not an n × n sum. Ties (a class of one row, whose likelihood does not
    depend on ``h``) keep Silverman's bandwidth. Like every likelihood cross-validation it
    favours narrow bandwidths on data with many tied values.
a positive float ``b``
    ``b · σ``: a multiple of the class's standard deviation of the feature, like the scalar
    ``bw_method`` of ``scipy.stats.gaussian_kde``, so one number suits features of any scale.

σ, the quartiles and the weight ``W`` are the class's weighted statistics of the feature's
observed values (a row of weight w counts as w rows; σ² = M2 / W). Every bandwidth is floored
at ``min_bandwidth · s_j``, with ``s_j`` the feature's typical spread (the classes'
``min(σ, IQR/1.349)`` averaged, weighted by W; the overall σ if every class is constant): a
class with a single row or a constant feature (σ = 0) gets that floor, never 0 or NaN.

Shared bandwidths (the default). Each class's rule is computed from its own data as above,
then the feature's bandwidth is their mean weighted by ``W`` (for "cv": one factor per feature,
maximising the likelihood summed over classes). The reason is tied values. Where many rows
share one value (a word frequency of exactly 0, rounded or clipped data), a kernel estimate
has a spike of height ≈ mass / h there, so two classes' density ratio at the tie is the ratio
of their masses only if their bandwidths are equal; with per-class bandwidths it is scaled by
``h_c' / h_c``, which has nothing to do with the data's evidence. On uci-spambase (most of
its 57 features are mostly 0) per-class bandwidths give 0.50 10-fold accuracy, below the
majority rate; shared ones give 0.91. Per-class bandwidths (``shared_bandwidth=False``) suit
continuous features without ties whose spread differs between classes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np

from .._jit import njit
from .._validation import as_real
from .._values import one_of
from ..errors import ParameterError
from ._kde_kernels import locate

#: bandwidth rules accepted by name.
RULES = ("silverman", "scott", "cv")

#: factors of Silverman's bandwidth that ``"cv"`` tries; 1 first, so ties keep the rule.
CV_FACTORS = np.concatenate([[1.0], 2.0 ** (np.arange(-9, 7)[np.arange(-9, 7) != 0] / 3)])


def check_bandwidth(bandwidth: Any) -> str | float:
    """The rule name or positive factor ``bandwidth`` names; ParameterError otherwise."""
    if isinstance(bandwidth, str):
        if not one_of(bandwidth, RULES):
            raise ParameterError(
                f"bandwidth={bandwidth!r} is not a known rule; use one of "
                f"{', '.join(map(repr, RULES))} or a positive number (a multiple of the class's "
                "standard deviation of the feature)"
            )
        return bandwidth
    if isinstance(bandwidth, Real) and not isinstance(bandwidth, bool):
        value = float(bandwidth)
        if math.isfinite(value) and value > 0:
            return value
    raise ParameterError(
        f"bandwidth={bandwidth!r} is not accepted; use a finite number > 0 (a multiple of the "
        f"class's standard deviation of the feature) or one of {', '.join(map(repr, RULES))}"
    )


def check_positive(name: str, value: Any) -> float:
    """A finite number > 0, else ParameterError naming ``name`` and the value."""
    if isinstance(value, Real) and not isinstance(value, bool):
        number = as_real(value)
        if math.isfinite(number) and number > 0:
            return number
    raise ParameterError(f"{name}={value!r} is not accepted; use a finite number > 0")


def check_grid_size(value: Any) -> int:
    """An integer number of grid points between 16 and 2^20."""
    if isinstance(value, Integral) and not isinstance(value, bool) and 16 <= int(value) <= 1 << 20:
        return int(value)
    raise ParameterError(
        f"grid_size={value!r} is not accepted; use an integer from 16 to {1 << 20} (the most "
        "grid points the density of one class and feature is tabulated on)"
    )


def rule_of_thumb(
    rule: str | float, weight: np.ndarray, sigma: np.ndarray, iqr: np.ndarray
) -> np.ndarray:
    """The unfloored bandwidth of every cell for a rule of thumb or a factor (not "cv")."""
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = np.where(weight > 0, weight, 1.0) ** -0.2
    if not isinstance(rule, str):
        return rule * sigma
    if rule == "scott":
        return 1.06 * sigma * shrink
    return 0.9 * robust_spread(sigma, iqr) * shrink


#: Relative rounding of a running sum of weights: a copy position within this of it is
#: reached, in whichever order the weights came (see :func:`cell_stats`).
_POSITION_TOL = 1e-12


def robust_spread(sigma: np.ndarray, iqr: np.ndarray) -> np.ndarray:
    """``min(σ, IQR / 1.349)``, or σ where the quartiles coincide (to within 1e-9 of σ: an
    interquartile range of rounding residue is no spread)."""
    return np.where(iqr > 1e-9 * sigma, np.minimum(sigma, iqr / 1.349), sigma)


def floor_scale(
    sigma: np.ndarray, iqr: np.ndarray, weight: np.ndarray, fallback: np.ndarray
) -> np.ndarray:
    """The scale bandwidth floors are a fraction of, per feature: the classes' robust spreads
    averaged, weighted by their data; ``fallback`` where every class is constant. Robust, so
    that a few huge outliers do not lift the floor above the bandwidth the bulk needs."""
    total = weight.sum(axis=0)
    typical = weighted_mean(robust_spread(sigma, iqr), weight, total, np.zeros_like(total))
    return np.where(typical > 0, typical, fallback)


def weighted_mean(
    values: np.ndarray, weight: np.ndarray, total: np.ndarray, empty: np.ndarray
) -> np.ndarray:
    """``Σ_c weight · values / total`` per feature (``empty`` where the total is 0); where
    ``weight × value`` overflows (weights near 1e308), from the weights' shares instead."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.divide((values * weight).sum(axis=0), total, out=empty.copy(), where=total > 0)
    wide = ~np.isfinite(out)
    if wide.any():
        share = weight[:, wide] / total[wide]
        out[wide] = (values[:, wide] * share).sum(axis=0)
    return out


#: smooth(h) -> (grid layout..., conv, kernel at lag 0, kernel at lag 1) (see kernel.py).
Smoother = Callable[[np.ndarray], tuple[np.ndarray, ...]]
#: leave-one-out log-likelihood of every cell given smooth(h)'s output.
Scorer = Callable[[tuple[np.ndarray, ...]], np.ndarray]


def share(h: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Every class's bandwidth of a feature replaced by their mean weighted by ``weight``
    (classes without data of the feature do not count)."""
    total = weight.sum(axis=0)
    mean = weighted_mean(h, weight, total, h.max(axis=0))
    return np.broadcast_to(mean, h.shape).copy()


def cross_validate(
    base: np.ndarray, floor: np.ndarray, smooth: Smoother, loo: Scorer, *, shared: bool
) -> np.ndarray:
    """For each cell, the floored multiple of ``base`` in :data:`CV_FACTORS` with the largest
    leave-one-out log-likelihood (the first, 1, on ties). ``shared``: one factor per feature,
    maximising the likelihood summed over the classes."""
    best_h = np.maximum(base, floor)

    def score(h: np.ndarray) -> np.ndarray:
        ll = loo(smooth(h))
        return np.broadcast_to(ll.sum(axis=0), ll.shape) if shared else ll

    best_ll = score(best_h)
    for factor in CV_FACTORS[1:]:
        h = np.maximum(factor * base, floor)
        ll = score(h)
        # A cell whose likelihood does not depend on h differs only by rounding: keep 1.
        better = ll > best_ll + 1e-9 * np.abs(best_ll)
        best_h = np.where(better, h, best_h)
        best_ll = np.where(better, ll, best_ll)
    return best_h


@njit(nogil=True)
def cell_stats(
    columns: np.ndarray,
    order: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    scale: np.ndarray,
    n_classes: int,
) -> tuple[np.ndarray, ...]:  # pragma: no cover
    """Weight, mean, M2, variance and quartiles (q1, q3) of every (class, feature) cell.

    ``columns`` is the sample transposed, (n_features, n_rows); ``order[j]`` sorts its row j
    ascending with NaN last. Mean and M2 are West's weighted running updates, on weights
    multiplied by their class's ``scale`` (a power of two: the same numbers, which cannot
    overflow for weights near 1e308); M2 is returned unscaled (inf if that overflows) with the
    variance M2 / W that never does. A quartile is
    the value at position ``q (W − 1)`` among the sorted values, a row of weight w counting as
    w copies (numpy's default "linear" rule on repeated rows), so a weight equals that many
    repetitions.
    """
    d, n = columns.shape
    shape = (n_classes, d)
    weight, mean, m2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    scaled = np.zeros(shape)
    high = np.full(shape, np.nan)
    q1, q3 = np.full(shape, np.nan), np.full(shape, np.nan)
    for j in range(d):
        for k in range(n):
            r = order[j, k]
            x = columns[j, r]
            if x != x:
                break
            for e in range(indptr[r], indptr[r + 1]):
                w = data[e]
                if w <= 0.0:
                    continue
                c = indices[e]
                high[c, j] = x
                ws = w * scale[c]
                if weight[c, j] == 0.0:
                    # Exactly x, not 0 + x·w/w: a class of one repeated value has M2 = 0
                    # whether it came as one weighted row or as copies.
                    weight[c, j], scaled[c, j], mean[c, j] = w, ws, x
                    continue
                weight[c, j] += w
                scaled[c, j] += ws
                if scaled[c, j] == 0.0:  # weights too small to count beside the class's largest
                    continue
                delta = x - mean[c, j]
                mean[c, j] += delta * ws / scaled[c, j]
                m2[c, j] += ws * delta * (x - mean[c, j])
        # Copy positions of the two quartiles: floor(t) and floor(t) + 1, t = q (W − 1).
        pos = np.empty((n_classes, 4))
        val = np.full((n_classes, 4), np.nan)
        for c in range(n_classes):
            for i in range(2):
                t = max((0.25 + 0.5 * i) * (weight[c, j] - 1.0), 0.0)
                pos[c, 2 * i] = math.floor(t)
                pos[c, 2 * i + 1] = math.floor(t) + 1.0
        seen = np.zeros(n_classes)
        for k in range(n):
            r = order[j, k]
            x = columns[j, r]
            if x != x:
                break
            for e in range(indptr[r], indptr[r + 1]):
                w = data[e]
                if w <= 0.0:
                    continue
                c = indices[e]
                before, after = seen[c], seen[c] + w
                # (a copy position the weights reach only to rounding, 0.1 + 0.2 + 0.7 against
                # 0.7 + 0.2 + 0.1, is the next value's in any order: within 1e-12 of a sum)
                tol = _POSITION_TOL * max(1.0, after)
                for m in range(4):
                    if val[c, m] != val[c, m] and before - tol <= pos[c, m] < after - tol:
                        val[c, m] = x
                seen[c] = after
        for c in range(n_classes):
            if weight[c, j] == 0.0:
                continue
            for i in range(2):
                t = max((0.25 + 0.5 * i) * (weight[c, j] - 1.0), 0.0)
                frac = t - math.floor(t)
                a = val[c, 2 * i] if val[c, 2 * i] == val[c, 2 * i] else high[c, j]
                b = val[c, 2 * i + 1] if val[c, 2 * i + 1] == val[c, 2 * i + 1] else high[c, j]
                quartile = a + frac * (b - a) if frac > 0.0 else a
                if i == 0:
                    q1[c, j] = quartile
                else:
                    q3[c, j] = quartile
    var = np.zeros(shape)
    for c in range(n_classes):
        for j in range(d):
            if scaled[c, j] > 0.0:
                var[c, j] = max(m2[c, j], 0.0) / scaled[c, j]
            m2[c, j] = m2[c, j] / scale[c]
    return weight, mean, m2, var, q1, q3


@njit(nogil=True)
def leave_one_out(
    columns: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    scale: np.ndarray,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    cell_ptr: np.ndarray,
    conv: np.ndarray,
    k0: np.ndarray,
    k1: np.ndarray,
    weight: np.ndarray,
    tail_weight: float,
    tail: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """Weighted leave-one-out log-likelihood of every cell, shape (n_classes, n_features).

    ``conv`` is the binned sum ``Σ_s w_s K_h(g − x_s)`` on the grid laid out by ``layout`` and
    ``k0, k1`` the discrete kernel at lags 0 and 1. A row of weight w stands for w rows, so
    one of them, weight ``u = min(w, 1)``, is left out: its share of the linearly interpolated
    sum is ``u ((1−f)² + f²) k0 + 2 f (1−f) u k1`` exactly, and subtracting it leaves the binned
    estimate without it. Each of the row's w copies then scores that density. The tail
    (``tail[j, r] = a g_j(x_rj)``) is part of the model, so the likelihood stays finite for
    isolated rows.

    ``conv`` comes from weights multiplied by their class's ``scale`` (a power of two, 1 for
    ordinary weights): every term of the ratio is scaled alike, which changes no rounding; the
    row weights multiplying the logs are scaled by one power of two for all (again 1 unless
    the largest is beyond 2^400), which changes no choice of bandwidth.
    """
    d, n = columns.shape
    n_classes = step.shape[0]
    out = np.zeros((n_classes, d))
    top = 0.0
    for e in range(data.shape[0]):
        top = max(top, data[e])
    overall = 1.0 if top <= 2.0**400 else math.ldexp(1.0, -math.ceil(math.log2(top)))
    for j in range(d):
        acc = np.zeros(n_classes)
        for r in range(n):
            x = columns[j, r]
            if x != x:
                continue
            for e in range(indptr[r], indptr[r + 1]):
                w = data[e]
                if w <= 0.0:
                    continue
                c = indices[e]
                cell = j * n_classes + c
                k, f = locate(
                    x,
                    seg_ptr[cell],
                    seg_ptr[cell + 1],
                    seg_start,
                    seg_first,
                    seg_count,
                    step[c, j],
                )
                total = conv[k] * (1.0 - f) + conv[k + 1] * f
                u = min(w, 1.0)
                own = u * (((1.0 - f) ** 2 + f * f) * k0[c, j] + 2.0 * f * (1.0 - f) * k1[c, j])
                s = scale[c]
                rest = max(total - own * s, 0.0)
                below = weight[c, j] * s - u * s + tail_weight * s
                above = rest + tail[j, r] * s
                if above > 0.0 and below > 0.0:  # else weights that vanish beside the largest
                    acc[c] += (w * overall) * math.log(above / below)
        for c in range(n_classes):
            out[c, j] = acc[c]
    return out


#: magnitudes below this are scaled up before densities are estimated (see :func:`tiny_scale`)
TINY = 2.0**-200


def tiny_scale(largest: np.ndarray) -> np.ndarray:
    """A power of two for each largest magnitude that brings it near 1 where it is below
    :data:`TINY` (and above 0), else 1: exact scaling for data so small that its squared
    deviations and variances underflow float64 (from about 1e-155), where a kernel density
    would score every class alike. At most 2^1000 (subnormal values would ask for a power
    float64 cannot hold)."""
    largest = np.asarray(largest, dtype=np.float64)
    tiny = (largest > 0) & (largest < TINY)
    exponent = np.minimum(-np.frexp(np.where(tiny, largest, 1.0))[1], 1000)
    return np.where(tiny, np.ldexp(1.0, exponent), 1.0)
