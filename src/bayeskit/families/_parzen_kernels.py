"""Kernel sums of the Parzen window family: compiled, blocked, in log space.

``ln Σ_j exp(c_j + ln K(ρ(x, x_j) / h_j))`` for every test row and class, where ``c_j`` folds in
the row's weight and the kernel's normaliser. Rows are scored a block at a time against a
class's training rows a chunk at a time (:data:`BLOCK_CELLS` pairs at most), so memory stays
bounded whatever the sizes; the per-class sums are merged across chunks by an online
log-sum-exp (running maximum and scaled sum), so no term underflows before it is compared with
the largest.

Distances are computed directly in the compiled loop (each squared difference exactly
rounded), except two that come from one BLAS product per block: the cosine distance
``1 − u·u_j`` of unit vectors, and the squared euclidean (or whitened Mahalanobis) distance of
the gaussian kernel beyond :data:`DIRECT_EUCLIDEAN_FEATURES` features, as
``‖x‖² + ‖x_j‖² − 2 x·x_j`` on rows centred first (accurate to a few ulps of
``‖x‖² + ‖x_j‖²`` about the centre, which the gaussian's ``ρ²/(2h²)`` tolerates).

Kernels (profiles ``K(u)`` of ``u = ρ / h``, as scikit-learn's KernelDensity): gaussian
``exp(−u²/2)``, tophat ``1[u < 1]``, epanechnikov ``1 − u²``, exponential ``exp(−u)``, linear
``1 − u``, cosine ``cos(πu/2)`` (the compact ones 0 from ``u = 1`` on).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._jit import njit, prange
from .._lazy import special
from .._threads import one_blas_thread

KERNELS = ("gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine")
COMPACT = ("tophat", "epanechnikov", "linear", "cosine")
METRICS = ("euclidean", "manhattan", "chebyshev", "minkowski", "cosine", "mahalanobis")
#: pairs scored per block (8 MB of float64 per block of inner products)
BLOCK_CELLS = 1 << 20
#: test rows per block (the parallel loop runs over them)
_BLOCK_ROWS = 256
#: training rows per chunk when distances are computed directly
_DIRECT_CHUNK = 1 << 12
#: terms this far (in log) below a sum's largest cannot change it: e^-50 ≈ 2e-22, so even 10^6
#: of them add less than a unit in the last place
_NEGLIGIBLE = 50.0
#: below this many pairs one thread beats starting the thread pool
PARALLEL_PAIRS = 1 << 22

_KERNEL_ID = {name: i for i, name in enumerate(KERNELS)}
_EMPTY = np.zeros(0)
_EMPTY2 = np.zeros((0, 0))
_DIRECT_ID = {"manhattan": 0, "chebyshev": 1, "minkowski": 2, "euclidean": 3, "mahalanobis": 3}
#: euclidean distances are summed directly (to the rounding of each term) up to this many
#: features, and for every kernel but the gaussian at any number: those take ρ itself, whose
#: value from inner products, ``√(‖x‖² + ‖x_j‖² − 2 x·x_j)``, is poor near 0 (an error of
#: √ε·‖x‖), and the compact ones jump at ρ = h. The gaussian takes ρ², which inner products
#: give to a few ulps of ‖x‖² + ‖x_j‖²: beyond this many features they come from BLAS.
DIRECT_EUCLIDEAN_FEATURES = 32


# ---------------------------------------------------------------------------------- normalisers
def log_unit_ball(metric: str, d: int, p: float = 2.0) -> float:
    """``ln`` of the volume of the unit ball of the metric in ``d`` dimensions (euclidean for
    mahalanobis: the family adds ``½ ln det Σ``)."""
    if metric in ("euclidean", "mahalanobis"):
        return 0.5 * d * math.log(math.pi) - special.gammaln(0.5 * d + 1.0)
    if metric == "manhattan":
        return d * math.log(2.0) - special.gammaln(d + 1.0)
    if metric == "chebyshev":
        return d * math.log(2.0)
    if metric == "minkowski":
        return d * (math.log(2.0) + special.gammaln(1.0 / p + 1.0)) - special.gammaln(d / p + 1.0)
    raise ValueError(metric)


def log_radial_integral(kernel: str, d: int) -> float:
    """``ln(d ∫_0^∞ u^(d−1) K(u) du)``: with the unit-ball volume V, ``∫ K(ρ(z)) dz = V · that``
    for any norm ρ."""
    if kernel == "gaussian":
        return math.log(d) + (0.5 * d - 1.0) * math.log(2.0) + special.gammaln(0.5 * d)
    if kernel == "tophat":
        return 0.0
    if kernel == "epanechnikov":
        return math.log(2.0 / (d + 2.0))
    if kernel == "exponential":
        return special.gammaln(d + 1.0)
    if kernel == "linear":
        return -math.log(d + 1.0)
    # cosine: d Σ_k (−1)^k (π/2)^{2k} / ((2k)! (d + 2k)) — alternating, but the terms fall
    # fast (a^{2k}/(2k)!) and their sum is of order 1/d, so about log10(d) digits are lost.
    return math.log(d * _cosine_moment(d - 1))


def log_kernel_norm(kernel: str, metric: str, d: int, h: np.ndarray, p: float = 2.0) -> np.ndarray:
    """``ln ∫ K(ρ(z)/h) dz`` for each bandwidth in ``h`` (any shape).

    For a norm ρ: ``ln V + ln(d ∫ u^(d−1) K(u) du) + d ln h``. For the cosine distance
    ``ρ = 1 − cos θ`` the density is one of directions (on the unit sphere): the integral is
    ``S_(d−2) ∫_0^2 K(t/h) (t(2 − t))^((d−3)/2) dt``, computed by quadrature in log space
    (d >= 2).
    """
    h = np.asarray(h, dtype=np.float64)
    if metric != "cosine":
        # A width that underflowed to 0 (weights near float64's limits) gives an infinite
        # coefficient, which the fit refuses by name: no warning on the way.
        with np.errstate(divide="ignore"):
            log_h = np.log(h)
        return log_unit_ball(metric, d, p) + log_radial_integral(kernel, d) + d * log_h
    flat = h.ravel()
    distinct, inverse = np.unique(flat, return_inverse=True)
    if len(distinct) > 64:
        # Many bandwidths (adaptive widths): the integral is analytic in ln h between its
        # breaks, so a Chebyshev interpolant reaches the quadrature's own accuracy with a few
        # dozen integrals. (A 64-point linear interpolation, before, was off by up to 3e-3,
        # and by an amount that depended on the other classes' widths.)
        values = _interpolated_cosine_norm(kernel, d, np.log(distinct))
    else:
        values = np.array([_log_cosine_norm(kernel, d, float(v)) for v in distinct])
    return values[inverse].reshape(h.shape)


#: what an interpolated cosine normaliser may differ from its quadrature by (in ln; the
#: quadrature's own relative tolerance is 1e-10)
_COSINE_NORM_TOLERANCE = 1e-10


def _interpolated_cosine_norm(kernel: str, d: int, log_h: np.ndarray) -> np.ndarray:
    """:func:`_log_cosine_norm` at the sorted widths ``exp(log_h)``, by Chebyshev interpolation
    in ln h on each piece between the normaliser's breaks (a compact kernel's support passes
    the sphere's far end at h = 2).

    Each piece takes the nested Chebyshev points (of the second kind) of 17, 33, 65, …
    nodes, integrating only the new ones at each step, until the last interpolant agrees with
    the quadrature at them to within ``_COSINE_NORM_TOLERANCE``; where that would take more
    integrals than the piece has widths (a normaliser that is not smooth there), every width
    is integrated."""
    edges = [float(log_h[0]), float(log_h[-1])]
    if kernel in COMPACT and edges[0] < math.log(2.0) < edges[1]:
        edges.insert(1, math.log(2.0))
    out = np.empty(len(log_h))

    def exact(x: np.ndarray) -> np.ndarray:
        return np.array([_log_cosine_norm(kernel, d, math.exp(v)) for v in np.ravel(x)])

    for i, (a, b) in enumerate(itertools.pairwise(edges)):
        last = i == len(edges) - 2
        inside = (log_h >= a) & ((log_h <= b) if last else (log_h < b))
        widths = log_h[inside]
        out[inside] = _chebyshev_or_exact(exact, a, b, widths)
    return out


def _chebyshev_or_exact(
    exact: Callable[[np.ndarray], np.ndarray], a: float, b: float, x: np.ndarray, depth: int = 0
) -> np.ndarray:
    """``exact(x)`` for ``x`` in [a, b], interpolated where that takes fewer calls (see
    :func:`_interpolated_cosine_norm`). A piece whose interpolant has not converged by 65
    nodes (a normaliser steep near a break) is halved, so the nodes gather where it bends."""
    if len(x) <= 17 or b - a < 1e-12:
        return exact(x)
    cheb = np.polynomial.chebyshev

    def at(nodes: np.ndarray) -> np.ndarray:
        return 0.5 * (a + b) + 0.5 * (b - a) * nodes

    n = 17
    values = exact(at(cheb.chebpts2(n)))
    fitted = cheb.Chebyshev.fit(at(cheb.chebpts2(n)), values, n - 1, [a, b])
    while n < 65 and 2 * n - 1 < len(x):
        n = 2 * n - 1
        finer = cheb.chebpts2(n)
        new_values = exact(at(finer[1::2]))  # the nodes the last step did not have
        error = float(np.abs(fitted(at(finer[1::2])) - new_values).max())
        merged = np.empty(n)
        merged[0::2], merged[1::2] = values, new_values
        values = merged
        fitted = cheb.Chebyshev.fit(at(finer), values, n - 1, [a, b])
        if error <= _COSINE_NORM_TOLERANCE:
            return np.asarray(fitted(x))
    if depth < 16 and len(x) > 2 * n:
        middle = 0.5 * (a + b)
        low = x <= middle
        out = np.empty(len(x))
        out[low] = _chebyshev_or_exact(exact, a, middle, x[low], depth + 1)
        out[~low] = _chebyshev_or_exact(exact, middle, b, x[~low], depth + 1)
        return out
    return exact(x)


@functools.cache
def _underflow_reach(kernel: str) -> float:
    """Where a kernel's profile has fallen below float64's smallest number (inf for none:
    a compact kernel ends first)."""
    if kernel in COMPACT:
        return math.inf
    reach = 1.0
    while float(_log_profiles(kernel, reach)) > -750.0:
        reach *= 2.0
    return reach


def _log_cosine_norm(kernel: str, d: int, h: float) -> float:
    from scipy import integrate  # (with SciPy's optimizers, 0.3 s: only when needed)

    if d < 2:
        # One dimension: the "directions" are ±1, at distances 0 and 2.
        return float(np.logaddexp(_log_profiles(kernel, 0.0), _log_profiles(kernel, 2.0 / h)))
    # In s = t / h: h ∫_0^S K(s) (h s (2 − h s))^((d−3)/2) ds, S = 2/h (or 1 for a compact
    # kernel reaching less far). The integrand is taken relative to its largest value on a
    # grid, so neither its size (d in the hundreds) nor a narrow spike (small h) is lost.
    log_sphere = math.log(2.0) + 0.5 * (d - 1) * math.log(math.pi) - special.gammaln(0.5 * (d - 1))
    power = 0.5 * (d - 3.0)
    end = 2.0 / h if kernel not in COMPACT else min(1.0, 2.0 / h)
    if d == 2:
        # ∫_0^end K(s) (s (c − s))^(−1/2) ds with c = 2/h, singular at both ends of [0, c].
        # Up to s = c/2 (or where K underflows) with the weight s^(−1/2); beyond, in
        # s = c sin²θ, 2 ∫ K(c sin²θ) dθ, smooth (the singular weight at both ends warned of
        # "extremely bad integrand behavior" for a compact kernel whose end came near c, h
        # just below 2). No power of h is left over.
        c = 2.0 / h
        near = min(end, 0.5 * c, _underflow_reach(kernel))
        value, _ = integrate.quad(
            lambda x: math.exp(float(_log_profiles(kernel, x))) / math.sqrt(c - x),
            0.0,
            near,
            weight="alg",
            wvar=(-0.5, 0.0),
            limit=400,
            epsabs=0.0,
            epsrel=1e-10,
        )
        if end > near and near == 0.5 * c:
            far, _ = integrate.quad(
                lambda t: 2.0 * math.exp(float(_log_profiles(kernel, c * math.sin(t) ** 2))),
                0.25 * math.pi,
                math.asin(math.sqrt(min(end / c, 1.0))),
                limit=400,
                epsabs=0.0,
                epsrel=1e-10,
            )
            value += far
        return log_sphere + math.log(value)

    def log_integrand(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            inside = power * (np.log(h * x) + np.log(2.0 - h * x))
            return _log_profiles(kernel, x) + np.where(power == 0, 0.0, inside)

    grid = np.concatenate(
        [end * np.geomspace(1e-9, 1.0, 400)[:-1], np.linspace(0.0, end, 2001)[1:-1]]
    )
    values = log_integrand(grid)
    best = int(np.nanargmax(np.where(np.isfinite(values), values, -np.inf)))
    peak = float(values[best])
    value, _ = integrate.quad(
        lambda x: math.exp(float(log_integrand(np.array(x))) - peak),
        0.0,
        end,
        points=[float(grid[best])],
        limit=400,
        epsabs=0.0,
        epsrel=1e-10,
    )
    return log_sphere + math.log(h) + peak + math.log(value)


def _log_profiles(kernel: str, u: Any) -> np.ndarray:
    """``ln K(u)`` elementwise (−inf outside a compact kernel's support)."""

    u = np.asarray(u, dtype=np.float64)
    if kernel == "gaussian":
        return -0.5 * u * u
    if kernel == "exponential":
        return -u
    inside = u < 1.0
    v = np.where(inside, u, 0.0)
    if kernel == "tophat":
        value = np.zeros_like(v)
    elif kernel == "epanechnikov":
        value = np.log1p(-v * v)
    elif kernel == "linear":
        value = np.log1p(-v)
    else:
        value = np.log(np.cos(0.5 * np.pi * v))
    return np.where(inside, value, -np.inf)


def kernel_spread(kernel: str, d: int) -> float:
    """The standard deviation per dimension of the kernel's distribution with h = 1 (in
    ``d`` euclidean dimensions): ``√(E u² / d)`` with u's density ∝ ``u^(d−1) K(u)``. A rule
    of thumb for the gaussian (spread 1) becomes one for kernel K when divided by it."""
    if kernel == "gaussian":
        return 1.0
    if kernel == "tophat":
        second = d / (d + 2.0)
    elif kernel == "epanechnikov":
        second = d / (d + 4.0)
    elif kernel == "exponential":
        second = d * (d + 1.0)
    elif kernel == "linear":
        second = d * (d + 1.0) / ((d + 2.0) * (d + 3.0))
    else:
        second = _cosine_moment(d + 1) / _cosine_moment(d - 1)
    return math.sqrt(second / d)


def _cosine_moment(m: int) -> float:
    """``∫_0^1 u^m cos(πu/2) du`` by its series (terms fall as (π/2)^(2k)/(2k)!)."""
    a2 = (math.pi / 2.0) ** 2
    total, term, k = 0.0, 1.0, 0
    while k < 200:
        total += term / (m + 2.0 * k + 1.0)
        k += 1
        term *= -a2 / ((2.0 * k - 1.0) * (2.0 * k))
        if abs(term) < 1e-18 * abs(total):
            break
    return total


def kernel_id(kernel: str) -> int:
    return _KERNEL_ID[kernel]


def direct_id(metric: str) -> int:
    return _DIRECT_ID[metric]


# ---------------------------------------------------------------------------------- compiled
# fmt: off
@njit(inline="always")
def _log_k(u: float, kernel: int) -> float:  # pragma: no cover
    if kernel == 0:
        return -0.5 * u * u
    if kernel == 3:
        return -u
    if u >= 1.0:
        return -math.inf
    if kernel == 1:
        return 0.0
    if kernel == 2:
        return math.log1p(-u * u)
    if kernel == 4:
        return math.log1p(-u)
    return math.log(math.cos(0.5 * math.pi * u))


@njit(inline="always")
def _minkowski(i: int, Z: np.ndarray, VT: np.ndarray, p: float, out: np.ndarray) -> None:
    """(Σ_k |z_k − v_k|^p)^(1/p) as ``a (Σ_k (|z_k − v_k| / a)^p)^(1/p)`` with ``a`` the
    largest difference: the p-th powers of differences neither overflow (a difference of
    1000 to the 100th) nor underflow to 0 (of 0.001), whatever p and the data's scale."""
    m = out.shape[0]
    top = np.zeros(m)
    for k in range(Z.shape[1]):
        z = Z[i, k]
        row = VT[k]
        for j in range(m):
            top[j] = max(top[j], abs(z - row[j]))
    for k in range(Z.shape[1]):
        z = Z[i, k]
        row = VT[k]
        for j in range(m):
            if top[j] > 0:
                out[j] += (abs(z - row[j]) / top[j]) ** p
    for j in range(m):
        out[j] = top[j] * out[j] ** (1.0 / p) if top[j] > 0 else 0.0


@njit(inline="always")
def _distances(
    i: int,
    Z: np.ndarray,
    VT: np.ndarray,
    G: np.ndarray,
    znorm: np.ndarray,
    vnorm: np.ndarray,
    metric: int,
    p: float,
    squared: bool,
    out: np.ndarray,
) -> None:  # pragma: no cover
    """ρ (or ρ² when ``squared``) from row i to every training row of the chunk: from the
    inner products G for metric −1 (cosine when ``vnorm`` is empty, else euclidean), else
    directly from the chunk's rows given transposed (``VT``, features × rows), a feature at a
    time so that the loop over rows vectorises."""
    m = out.shape[0]
    if metric < 0:
        for j in range(m):
            if vnorm.shape[0] == 0:
                rho = max(1.0 - G[i, j], 0.0)
                out[j] = rho * rho if squared else rho
            else:
                rho = max(znorm[i] + vnorm[j] - 2.0 * G[i, j], 0.0)
                out[j] = rho if squared else math.sqrt(rho)
        return
    out[:] = 0.0
    if metric == 2:
        _minkowski(i, Z, VT, p, out)
        if squared:
            for j in range(m):
                out[j] = out[j] * out[j]
        return
    for k in range(Z.shape[1]):
        z = Z[i, k]
        row = VT[k]
        if metric == 3:
            for j in range(m):
                diff = z - row[j]
                out[j] += diff * diff
        elif metric == 0:
            for j in range(m):
                out[j] += abs(z - row[j])
        else:
            for j in range(m):
                out[j] = max(out[j], abs(z - row[j]))
    if metric == 3:
        if not squared:
            for j in range(m):
                out[j] = math.sqrt(out[j])
        return
    if squared:
        for j in range(m):
            out[j] = out[j] * out[j]


@njit(inline="always")
def _row(
    i: int, Z: np.ndarray, V: np.ndarray, G: np.ndarray, znorm: np.ndarray, vnorm: np.ndarray,
    metric: int, p: float, coef: np.ndarray, factor: np.ndarray, kernel: int,
    skip: np.ndarray, source: np.ndarray, own: np.ndarray, bounds: np.ndarray,
    run_max: np.ndarray, run_sum: np.ndarray,
) -> None:  # pragma: no cover
    """Row i against a chunk of training rows (class c at ``bounds[c]:bounds[c+1]`` of the
    chunk): for each class and bandwidth g, the chunk's log-sum-exp (the largest term first,
    then the sum of exp(t − largest), leaving out terms below ``largest − _NEGLIGIBLE``,
    which cannot change a double), merged into the running one. ``factor[j, g]`` is
    ``1 / (2 h²)`` for the gaussian (which takes ρ²) and ``1 / h`` for the others."""
    m = V.shape[1] if metric >= 0 else G.shape[1]
    n_scales = factor.shape[1]
    squared = kernel == 0
    rho = np.empty(m)
    _distances(i, Z, V, G, znorm, vnorm, metric, p, squared, rho)
    t = rho if n_scales == 1 else np.empty(m)  # one bandwidth: the terms replace ρ in place
    for c in range(bounds.shape[0] - 1):
        lo, hi = bounds[c], bounds[c + 1]
        if lo >= hi:
            continue
        for g in range(n_scales):
            if squared:
                for j in range(lo, hi):
                    t[j] = coef[j, g] - factor[j, g] * rho[j]
            else:
                for j in range(lo, hi):
                    t[j] = coef[j, g] + _log_k(rho[j] * factor[j, g], kernel)
            if skip[i] >= 0:  # leave-one-out: the row's own entries
                for j in range(lo, hi):
                    if source[j] == skip[i]:
                        t[j] += own[j]
            top = -math.inf
            for j in range(lo, hi):
                top = max(top, t[j])
            if top == -math.inf:
                continue
            # (compared by the difference to the largest, not with ``top − _NEGLIGIBLE``: far
            # from the data a term of −1e18 equals that floor, and the largest term itself
            # was left out, every class got −inf and the prior decided for the nearest kernel)
            total = 0.0
            for j in range(lo, hi):
                gap = t[j] - top
                if gap > -_NEGLIGIBLE:
                    total += math.exp(gap)
            old = run_max[i, c, g]
            if top > old:
                run_sum[i, c, g] = run_sum[i, c, g] * math.exp(old - top) + total
                run_max[i, c, g] = top
            else:
                run_sum[i, c, g] += total * math.exp(top - old)


@njit(parallel=True)
def _rows_parallel(
    Z: np.ndarray, V: np.ndarray, G: np.ndarray, znorm: np.ndarray, vnorm: np.ndarray,
    metric: int, p: float, coef: np.ndarray, factor: np.ndarray, kernel: int,
    skip: np.ndarray, source: np.ndarray, own: np.ndarray, bounds: np.ndarray,
    run_max: np.ndarray, run_sum: np.ndarray,
) -> None:  # pragma: no cover
    for i in prange(run_max.shape[0]):
        _row(
            i, Z, V, G, znorm, vnorm, metric, p, coef, factor, kernel, skip, source, own, bounds,
            run_max, run_sum,
        )


@njit()
def _rows_serial(
    Z: np.ndarray, V: np.ndarray, G: np.ndarray, znorm: np.ndarray, vnorm: np.ndarray,
    metric: int, p: float, coef: np.ndarray, factor: np.ndarray, kernel: int,
    skip: np.ndarray, source: np.ndarray, own: np.ndarray, bounds: np.ndarray,
    run_max: np.ndarray, run_sum: np.ndarray,
) -> None:  # pragma: no cover
    for i in range(run_max.shape[0]):
        _row(
            i, Z, V, G, znorm, vnorm, metric, p, coef, factor, kernel, skip, source, own, bounds,
            run_max, run_sum,
        )


# fmt: on
# ---------------------------------------------------------------------------------- driver
def kernel_sums(
    Z: np.ndarray,
    V: np.ndarray,
    class_ptr: np.ndarray,
    coef: np.ndarray,
    inv_h: np.ndarray,
    scales: np.ndarray,
    *,
    kernel: str,
    metric: str,
    p: float = 2.0,
    source: np.ndarray | None = None,
    skip: np.ndarray | None = None,
    own: np.ndarray | None = None,
) -> np.ndarray:
    """``out[i, c, g] = ln Σ_{j in class c} exp(coef[j, g] + ln K(ρ(Z_i, V_j) · inv_h[j] /
    scales[g]))``, shape (n_rows, n_classes, n_scales).

    ``V`` holds the training rows grouped by class (class c at ``class_ptr[c]:class_ptr[c+1]``),
    already transformed as ``Z`` is (centred; whitened or normalised for mahalanobis and
    cosine, whose distance is then taken from inner products). ``skip[i]`` (with ``source[j]``,
    the original row of training entry j) marks row i's own entries, whose terms get
    ``own[j]`` added (default −∞: left out): leave-one-out.
    A class none of whose rows is within reach gets ``−inf``.
    """
    n, n_classes, n_scales = Z.shape[0], len(class_ptr) - 1, len(scales)
    out = np.full((n, n_classes, n_scales), -np.inf)
    if n == 0:
        return out
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    V = np.ascontiguousarray(V, dtype=np.float64)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    scales = np.asarray(scales, dtype=np.float64)
    # 1 / (width × scale) of every training row and scale, once; 1 / (2 (width × scale)²)
    # for the gaussian, which takes ρ²
    inv_h = np.asarray(inv_h, dtype=np.float64)[:, None] / scales[None, :]
    inv_h = np.ascontiguousarray(0.5 * inv_h * inv_h if kernel == "gaussian" else inv_h)
    src = np.full(len(V), -1, dtype=np.int64) if source is None else source.astype(np.int64)
    skips = np.full(n, -1, dtype=np.int64) if skip is None else skip.astype(np.int64)
    owns = np.full(len(V), -np.inf) if own is None else np.asarray(own, dtype=np.float64)
    kid = kernel_id(kernel)
    gram = metric == "cosine" or (
        kernel == "gaussian"
        and metric in ("euclidean", "mahalanobis")
        and Z.shape[1] > DIRECT_EUCLIDEAN_FEATURES
    )
    # The products are small and many, and the compiled loop runs its own threads: BLAS's
    # threads would only contend with them.
    with one_blas_thread():
        _accumulate(Z, V, class_ptr, coef, inv_h, kid, metric, p, src, skips, owns, gram, out)
    return out


def _accumulate(
    Z: np.ndarray,
    V: np.ndarray,
    class_ptr: np.ndarray,
    coef: np.ndarray,
    inv_h: np.ndarray,
    kid: int,
    metric: str,
    p: float,
    src: np.ndarray,
    skips: np.ndarray,
    owns: np.ndarray,
    gram: bool,
    out: np.ndarray,
) -> None:
    """The blocked loop of :func:`kernel_sums`, filling ``out``: a block of test rows at a
    time, against the training rows a chunk (spanning any classes) at a time."""
    n, n_classes, n_scales = out.shape
    cosine = metric == "cosine"
    # Inner products give the cosine distance of unit rows, or ‖x‖² + ‖x_j‖² − 2 x·x_j;
    # direct distances read the rows transposed (a feature's values contiguous).
    vnorm = np.einsum("ij,ij->i", V, V) if gram and not cosine else None
    rows = min(n, _BLOCK_ROWS)
    # A chunk bounds the inner products held at once (gram), or the two per-row buffers of
    # distances and terms each thread uses.
    chunk = max(1, BLOCK_CELLS // rows) if gram else _DIRECT_CHUNK
    starts = list(range(0, len(V), chunk))
    # each chunk transposed once, contiguous (so the compiled loop over its rows vectorises)
    VT = [_EMPTY2 if gram else np.ascontiguousarray(V[a : a + chunk].T) for a in starts]
    ptr = np.asarray(class_ptr, dtype=np.int64)
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        Zb = Z[lo:hi]
        znorm = np.einsum("ij,ij->i", Zb, Zb) if vnorm is not None else _EMPTY
        run_max = np.full((hi - lo, n_classes, n_scales), -np.inf)
        run_sum = np.zeros((hi - lo, n_classes, n_scales))
        for part, a in enumerate(starts):
            b = min(len(V), a + chunk)
            bounds = np.clip(ptr, a, b) - a  # each class's part of the chunk
            pairs = (hi - lo) * (b - a) * n_scales
            run = _rows_parallel if pairs >= PARALLEL_PAIRS else _rows_serial
            if gram:
                G = Zb @ V[a:b].T
                norms = vnorm[a:b] if vnorm is not None else _EMPTY
                run(
                    Zb, _EMPTY2, G, znorm, norms, -1, float(p), coef[a:b], inv_h[a:b], kid,
                    skips[lo:hi], src[a:b], owns[a:b], bounds, run_max, run_sum,
                )  # fmt: skip
            else:
                run(
                    Zb, VT[part], _EMPTY2, _EMPTY, _EMPTY, direct_id(metric), float(p), coef[a:b],
                    inv_h[a:b], kid, skips[lo:hi], src[a:b], owns[a:b], bounds, run_max, run_sum,
                )  # fmt: skip
        with np.errstate(divide="ignore"):
            out[lo:hi] = np.where(run_sum > 0, run_max + np.log(run_sum), -np.inf)
