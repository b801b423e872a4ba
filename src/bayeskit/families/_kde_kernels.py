"""Kernel shapes and the compiled loops of the kernel density family.

Every kernel here is scaled to unit variance, so a bandwidth ``h`` is the kernel's standard
deviation whatever its shape. With that scaling the rules of thumb, derived for the Gaussian,
carry over: the AMISE-optimal bandwidth of a unit-variance kernel is proportional to
``R(K)^(1/5)`` (``R(K) = ∫K²``), which is within 1% of the Gaussian's for the Epanechnikov,
biweight, triangular and cosine kernels and within 7% for the tophat (Marron & Nolan's
canonical kernels). scikit-learn's ``KernelDensity`` instead calls the support radius of a
compact kernel its bandwidth: its ``bandwidth`` is ``radius × h`` here (``h / √2`` for the
exponential kernel).

The compiled loops take the sample transposed (``columns``: n_features × n_rows, each
feature's values contiguous) and address the rows of a class through ``indptr / indices /
data``: the CSR form of the (n_rows, n_classes) class weights, so hard labels cost one entry
per row and soft labels one per (row, class). Per-cell numbers are (n_classes, n_features)
tables indexed ``[c, j]``; grid values of all cells lie end to end in one flat array, cell
``j · n_classes + c`` after cell ``j · n_classes + c − 1`` (see :func:`layout`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._jit import njit, prange


@dataclass(frozen=True)
class KernelShape:
    """A unit-variance kernel: its density, support radius and where to truncate it."""

    name: str
    density: Callable[[np.ndarray], np.ndarray]
    #: the kernel is 0 beyond ``radius`` standard deviations (inf: unbounded support).
    radius: float
    #: how far (in standard deviations) the grid reaches beyond the data.
    reach: float


def _compact(radius: float, profile: Callable[[np.ndarray], np.ndarray]) -> KernelShape:
    """``profile(v)`` on ``|v| < 1`` (a density on [-1, 1]) stretched to ``radius``."""

    def density(u: np.ndarray) -> np.ndarray:
        v = np.abs(u) / radius
        return np.where(v < 1.0, profile(np.minimum(v, 1.0)), 0.0) / radius

    return KernelShape("", density, radius, radius)


def _gaussian(u: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)


def _laplace(u: np.ndarray) -> np.ndarray:
    # exp(−|x|/b) / 2b with b = 1/√2 has unit variance.
    return np.exp(-math.sqrt(2.0) * np.abs(u)) / math.sqrt(2.0)


def _shapes() -> dict[str, KernelShape]:
    compact = {
        "epanechnikov": _compact(math.sqrt(5.0), lambda v: 0.75 * (1 - v * v)),
        "tophat": _compact(math.sqrt(3.0), lambda v: 0.5 + 0 * v),
        "triangular": _compact(math.sqrt(6.0), lambda v: 1 - v),
        "biweight": _compact(math.sqrt(7.0), lambda v: 15 / 16 * (1 - v * v) ** 2),
        "cosine": _compact(
            1 / math.sqrt(1 - 8 / math.pi**2), lambda v: math.pi / 4 * np.cos(math.pi / 2 * v)
        ),
    }
    shapes = {name: KernelShape(name, s.density, s.radius, s.reach) for name, s in compact.items()}
    # Unbounded kernels are truncated where they fall below ~1e-8 of their peak; the tail
    # density outweighs what is cut off there by orders of magnitude.
    shapes["gaussian"] = KernelShape("gaussian", _gaussian, math.inf, 6.0)
    shapes["exponential"] = KernelShape("exponential", _laplace, math.inf, 13.0)
    return shapes


#: kernel name -> shape.
KERNELS: dict[str, KernelShape] = _shapes()


@njit(inline="always")
def _log_cauchy(x: float, loc: float, scale: float) -> float:  # pragma: no cover
    """Log density of a Cauchy(loc, scale) at x, without overflow for huge |z|."""
    z = abs(x - loc) / scale
    if z > 1e100:
        return -math.log(math.pi * scale) - 2.0 * math.log(z)
    return -math.log(math.pi * scale) - math.log1p(z * z)


def log_cauchy(x: np.ndarray, loc: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """:func:`_log_cauchy` for broadcastable arrays."""
    z = np.abs(x - loc) / scale
    with np.errstate(over="ignore"):
        far = np.log(np.maximum(z, 1.0)) * 2.0
        near = np.log1p(z * z)
    return -np.log(np.pi * scale) - np.where(z > 1e100, far, near)


@njit(nogil=True)
def _count_segments(
    columns: np.ndarray,
    order: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    j: int,
    gap: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    count: np.ndarray,
    fill: bool,
    first: np.ndarray,
) -> None:  # pragma: no cover
    """Walk feature j's values in ascending order and cut each class's values into runs
    whose consecutive values are at most ``gap[c, j]`` apart. Counts the runs per class in
    ``count[c, j]``; with ``fill``, writes the first and last value of class c's k-th run to
    ``lows[first[c] + k]`` and ``highs[first[c] + k]``."""
    n_classes = gap.shape[0]
    last = np.full(n_classes, np.nan)
    for c in range(n_classes):
        count[c, j] = 0
    for k in range(columns.shape[1]):
        r = order[j, k]
        x = columns[j, r]
        if x != x:
            break
        for e in range(indptr[r], indptr[r + 1]):
            if data[e] <= 0.0:
                continue
            c = indices[e]
            if last[c] != last[c] or x - last[c] > gap[c, j]:
                if fill:
                    lows[first[c] + count[c, j]] = x
                count[c, j] += 1
            if fill:
                highs[first[c] + count[c, j] - 1] = x
            last[c] = x


@njit(nogil=True)
def layout(
    columns: np.ndarray,
    order: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    h: np.ndarray,
    reach: float,
    size: int,
    per_bandwidth: float,
) -> tuple[np.ndarray, ...]:  # pragma: no cover
    """Where each (class, feature) cell's grid points go.

    A cell's grid is a few segments, each covering a run of its values ± ``reach · h``, with
    one step: ``h / per_bandwidth``, or wider when that would take more than ``size`` points.
    The values are cut where consecutive ones are more than ``2 reach h`` apart (kernels that
    cannot overlap), so a far outlier costs a short segment of its own instead of stretching
    one grid over the empty range between (a heavy tail would otherwise leave the bulk with a
    step wider than the bandwidth). More than ``size / 4`` segments in a cell: the cut
    distance doubles until they fit.

    Returns, as one tuple (the ``grid`` every other loop takes): ``seg_ptr`` (cell ``j ·
    n_classes + c`` owns segments ``seg_ptr[cell] : seg_ptr[cell + 1]``), each segment's first
    point ``seg_start``, the position ``seg_first`` of that point in the flat array of all
    cells' grid values and its number of points ``seg_count``, each cell's ``step``
    (n_classes, n_features), and ``cell_ptr`` (cell owns values ``cell_ptr[cell] :
    cell_ptr[cell + 1]``).
    """
    d = columns.shape[0]
    n_classes = h.shape[0]
    gap = 2.0 * reach * h
    count = np.zeros((n_classes, d), dtype=np.int64)
    scratch = np.empty(0)
    none = np.zeros(n_classes, dtype=np.int64)
    for j in range(d):
        while True:
            _count_segments(
                columns, order, indptr, indices, data, j, gap, scratch, scratch, count, False, none
            )
            crowded = False
            for c in range(n_classes):
                if count[c, j] > size // 4:
                    gap[c, j] *= 2.0
                    crowded = True
            if not crowded:
                break
    seg_ptr = np.zeros(n_classes * d + 1, dtype=np.int64)
    for j in range(d):
        for c in range(n_classes):
            cell = j * n_classes + c
            seg_ptr[cell + 1] = seg_ptr[cell] + count[c, j]
    total = seg_ptr[-1]
    lows, highs = np.empty(total), np.empty(total)
    for j in range(d):
        _count_segments(
            columns,
            order,
            indptr,
            indices,
            data,
            j,
            gap,
            lows,
            highs,
            count,
            True,
            seg_ptr[j * n_classes : (j + 1) * n_classes],
        )
    seg_start, seg_first = np.empty(total), np.empty(total, dtype=np.int64)
    seg_count = np.empty(total, dtype=np.int64)
    step = np.ones((n_classes, d))
    cell_ptr = np.zeros(n_classes * d + 1, dtype=np.int64)
    for j in range(d):
        for c in range(n_classes):
            cell = j * n_classes + c
            a, b = seg_ptr[cell], seg_ptr[cell + 1]
            cell_ptr[cell + 1] = cell_ptr[cell]
            if a == b:
                continue
            margin = reach * h[c, j]
            data_span = 0.0
            for s in range(a, b):
                data_span += highs[s] - lows[s]
            span = data_span + 2.0 * margin * (b - a)
            # Segment s takes floor(span_s / step) + 2 points: Σ ≤ span / step + 2 (b − a).
            # The margins' share is counted apart: it is a whole multiple of h, and rounding
            # must not change the number of points (weights must equal repetitions exactly).
            per_margin = math.ceil(2.0 * reach * per_bandwidth)
            need = data_span * per_bandwidth / h[c, j] - 1e-9
            points = size
            if need + (b - a) * (per_margin + 2) < size:
                points = math.ceil(need) + (b - a) * (per_margin + 2)
            step[c, j] = span / (points - 2 * (b - a)) * (1.0 + 1e-12)
            used = cell_ptr[cell]
            for s in range(a, b):
                seg_start[s] = lows[s] - margin
                seg_first[s] = used
                seg_count[s] = int((highs[s] - lows[s] + 2.0 * margin) / step[c, j]) + 2
                used += seg_count[s]
            cell_ptr[cell + 1] = cell_ptr[cell] + points
    return seg_ptr, seg_start, seg_first, seg_count, step, cell_ptr


@njit(inline="always")
def locate(
    x: float,
    a: int,
    b: int,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: float,
) -> tuple[int, float]:  # pragma: no cover
    """(index k of the grid point at or left of x, fraction f of the way to k + 1) among
    segments ``a:b``; k = −1 when x lies in no segment."""
    if a == b or x < seg_start[a]:
        return -1, 0.0
    lo, hi = a, b - 1
    while lo < hi:  # the last segment starting at or before x
        mid = (lo + hi + 1) // 2
        if seg_start[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    t = (x - seg_start[lo]) / step
    last = seg_count[lo] - 1.0
    if not t <= last:
        return -1, 0.0
    k = min(int(t), seg_count[lo] - 2)
    return seg_first[lo] + k, t - k


@njit(nogil=True)
def bin_cells(
    columns: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    cell_ptr: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """Linear binning: each row's weight split between the two grid points around it, in the
    flat array laid out by :func:`layout`. Rows are visited in storage order, so the same
    sample always gives the same sums."""
    d, n = columns.shape
    n_classes = step.shape[0]
    bins = np.zeros(cell_ptr[-1])
    for j in range(d):
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
                bins[k] += w * (1.0 - f)
                bins[k + 1] += w * f
    return bins


@njit(nogil=True)
def grid_values(
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    cell_ptr: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """The x of every grid value in the flat array; the spare values at the end of a cell
    repeat its last point."""
    n_classes, d = step.shape
    out = np.zeros(cell_ptr[-1])
    for j in range(d):
        for c in range(n_classes):
            cell = j * n_classes + c
            k = cell_ptr[cell]
            for s in range(seg_ptr[cell], seg_ptr[cell + 1]):
                for p in range(seg_count[s]):
                    out[k] = seg_start[s] + p * step[c, j]
                    k += 1
            for p in range(k, cell_ptr[cell + 1]):
                out[p] = out[k - 1]
    return out


@njit(inline="always")
def _score_row(
    X: np.ndarray,
    i: int,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    log_density: np.ndarray,
    log_tail: np.ndarray,
    tail_loc: np.ndarray,
    tail_scale: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    d = X.shape[1]
    n_classes = log_tail.shape[0]
    for j in range(d):
        x = X[i, j]
        if x != x:
            continue
        tail = np.nan
        for c in range(n_classes):
            cell = j * n_classes + c
            k, f = locate(
                x, seg_ptr[cell], seg_ptr[cell + 1], seg_start, seg_first, seg_count, step[c, j]
            )
            if k >= 0:
                a = log_density[k]
                out[i, c] += a + f * (log_density[k + 1] - a)
            else:
                if tail != tail:
                    tail = _log_cauchy(x, tail_loc[j], tail_scale[j])
                out[i, c] += log_tail[c, j] + tail


@njit(parallel=True)
def _score_parallel(
    X: np.ndarray,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    log_density: np.ndarray,
    log_tail: np.ndarray,
    tail_loc: np.ndarray,
    tail_scale: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    for i in prange(X.shape[0]):
        _score_row(
            X,
            i,
            seg_ptr,
            seg_start,
            seg_first,
            seg_count,
            step,
            log_density,
            log_tail,
            tail_loc,
            tail_scale,
            out,
        )


@njit()
def _score_serial(
    X: np.ndarray,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    log_density: np.ndarray,
    log_tail: np.ndarray,
    tail_loc: np.ndarray,
    tail_scale: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    for i in range(X.shape[0]):
        _score_row(
            X,
            i,
            seg_ptr,
            seg_start,
            seg_first,
            seg_count,
            step,
            log_density,
            log_tail,
            tail_loc,
            tail_scale,
            out,
        )


@njit(parallel=True)
def locate_cells(
    columns: np.ndarray,
    seg_ptr: np.ndarray,
    seg_start: np.ndarray,
    seg_first: np.ndarray,
    seg_count: np.ndarray,
    step: np.ndarray,
    cell_ptr: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """:func:`locate` of every value of ``columns`` (n_features, n_rows) in each class's
    cell: (index, fraction), each (n_features, n_rows, n_classes); index −1 where the value
    lies in no segment or is missing."""
    d, n = columns.shape
    n_classes = step.shape[0]
    index = np.full((d, n, n_classes), -1, dtype=np.int64)
    frac = np.zeros((d, n, n_classes))
    for j in prange(d):
        for i in range(n):
            x = columns[j, i]
            if x != x:
                continue
            for c in range(n_classes):
                cell = j * n_classes + c
                index[j, i, c], frac[j, i, c] = locate(
                    x, seg_ptr[cell], seg_ptr[cell + 1], seg_start, seg_first, seg_count, step[c, j]
                )
    return index, frac


@njit(parallel=True)
def score_cells(
    columns: np.ndarray,
    index: np.ndarray,
    frac: np.ndarray,
    log_density: np.ndarray,
    log_tail: np.ndarray,
    tail_loc: np.ndarray,
    tail_scale: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """``log p_cj(x_ij)`` of every cell apart, (n_features, n_rows, n_classes), from
    :func:`locate_cells`' output: each term :func:`score` adds for it (the same operations,
    so a row holding one column's value alone scores exactly this); 0 where missing.
    ``log_density`` need only hold the grid points beside the values."""
    d, n = columns.shape
    n_classes = log_tail.shape[0]
    out = np.zeros((d, n, n_classes))
    for j in prange(d):
        for i in range(n):
            x = columns[j, i]
            if x != x:
                continue
            tail = np.nan
            for c in range(n_classes):
                k = index[j, i, c]
                if k >= 0:
                    a = log_density[k]
                    out[j, i, c] = a + frac[j, i, c] * (log_density[k + 1] - a)
                else:
                    if tail != tail:
                        tail = _log_cauchy(x, tail_loc[j], tail_scale[j])
                    out[j, i, c] = log_tail[c, j] + tail
    return out


#: Below this many (row × feature × class) evaluations one thread beats waking the pool.
PARALLEL_WORK = 1 << 18


def score(X: np.ndarray, grid: tuple[np.ndarray, ...], *tables: np.ndarray) -> np.ndarray:
    """Σ_j log p_cj(x_ij) for every row and class, shape (n_rows, n_classes).

    ``grid`` is :func:`layout`'s output and ``tables`` are ``log_density`` (flat, on the
    grid), ``log_tail`` (n_classes, n_features), ``tail_loc`` and ``tail_scale``
    (n_features,). Inside a cell's segments the log density is interpolated linearly;
    elsewhere the cell's density is its tail share alone, ``log_tail[c, j] + log Cauchy(x;
    tail_loc[j], tail_scale[j])``. A NaN adds nothing.
    """
    n_classes = tables[1].shape[0]
    out = np.zeros((X.shape[0], n_classes))
    kernel = _score_parallel if X.size * n_classes >= PARALLEL_WORK else _score_serial
    kernel(X, *grid[:5], *tables, out)
    return out
