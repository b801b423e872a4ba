"""Kernel density estimate per class and feature: the Parzen window (Vorontsov), made naive.

``p(x_j | c) = (W_cj f̂_cj(x_j) + a g_j(x_j)) / (W_cj + a)`` where

* ``f̂_cj(x) = Σ_i r_ic K_h((x − x_ij)) / W_cj`` is the kernel density estimate of class c's
  observed values of feature j, ``r_ic`` the row's class weight (label × sample weight, or a
  soft responsibility), ``W_cj = Σ_i r_ic`` over the rows where x_ij is observed, and ``K_h`` a
  unit-variance kernel scaled by the bandwidth ``h_cj`` (see ``_bandwidth``; by default one
  bandwidth per feature, shared by the classes);
* ``g_j`` is a wide, heavy-tailed density shared by every class — a Cauchy centred on the
  feature's overall mean with its overall standard deviation as scale — that holds ``a``
  (``tail_weight``) pseudo-rows.

Why the tail. A bare KDE is 0 beyond the data of a compact kernel and underflows to −inf a few
bandwidths from the data of a Gaussian one, so one unusual value in one feature would veto a
class outright. The tail is additive smoothing for densities: ``a`` pseudo-rows spread over the
whole line. Being shared, it says nothing about the class: far from every class's data the
feature's log-likelihood ratio between two classes tends to ``log((W_c' + a) / (W_c + a))``, and
a value inside one class's data but outside another's costs the other class a logarithmic
penalty (Cauchy), not a quadratic one (as a Gaussian tail would) or an infinite one. Its weight
``a / (W + a)`` vanishes as data grows, so the estimate stays consistent.

Evaluation is binned (Silverman 1982; Wand 1994): each cell's rows are linearly binned onto a
grid covering its data ± the kernel's reach, 32 points per bandwidth (at most ``grid_size``),
convolved with the discretised kernel by FFT, and the log density is stored on the grid.
Scoring interpolates it linearly (compiled, one pass over the cells of X). The grid covers the
occupied stretches only (see ``_kde_kernels.layout``): an outlier far from the rest gets a
short segment of its own, so a heavy tail does not spread the points thin over empty space.
Measured against the exact estimate (tests/families/test_kernel.py): with the Gaussian kernel
at 32 points per bandwidth the density is within ~5e-4 (relative) wherever it exceeds 1e-3 of
its peak; the error grows as (step / h)² where ``grid_size`` caps the points. The discrete
kernel is normalised to sum to 1, so the tabulated density integrates to 1 even when a
bandwidth is not much wider than the grid step. Everything is computed in ``finalize`` from
the merged :class:`~bayeskit.stats.Sample`, so fitting equals any sequence of partial fits.

Missing values: a NaN is left out of its feature's density (and of ``W_cj``) and contributes 0
at prediction. A class with no observed value of a feature (observed in other classes) takes
the population's density there, what the whole population says, as the Gaussian family takes
the pooled mean and variance: the other classes' densities mixed in proportion to their
weights ``W_c'j + a``. ``g_j`` alone, wider than every class's density, would hand that class
the evidence of every value in the far tail of the others' data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import fft
from .._lazy import sparse as sp
from ..errors import ParameterError
from ..stats import Sample
from ..stats.moments import pooled_spread
from . import _bandwidth as bw
from ._base import Family, real_block
from ._kde_kernels import (
    KERNELS,
    KernelShape,
    bin_cells,
    grid_values,
    layout,
    locate_cells,
    log_cauchy,
    score,
    score_cells,
)

#: FFT work is done this many grid values at a time, to bound memory for many cells.
_CHUNK_VALUES = 1 << 22
#: Grid values of the columns :meth:`Kernel.held_out_log_prob` is given at once (8 MiB values).
_HELD_OUT_VALUES = 1 << 23
#: Class weights within 2^±this are used as they are; beyond, scaled by a power of two.
_FREE_EXPONENT = 400
#: The narrowest bandwidth: the density of a narrower kernel, about 1 / h, would overflow
#: float64 (a class whose spread is that of one row weighing 1e308 against rows of weight 1).
_SMALLEST_BANDWIDTH = 1e-290
#: Grid points per bandwidth (while a cell's grid_size allows): the binned estimate is then
#: within ~5e-4 (relative) of the exact one for the Gaussian kernel.
_PER_BANDWIDTH = 32


@dataclass(frozen=True)
class KernelParams:
    """The tabulated densities.

    Attributes
    ----------
    bandwidth, weight, log_tail : ndarray of shape (n_classes, n_features)
        Bandwidth h_cj, observed weight W_cj and ``log(a / (W_cj + a))``.
    grid : tuple of ndarray
        Where each cell's grid points lie: ``seg_ptr, seg_start, seg_first, seg_count, step,
        cell_ptr`` as returned by :func:`~bayeskit.families._kde_kernels.layout`.
    log_density : ndarray of shape (n_grid_points,)
        ``log p(g | c)`` at every cell's grid points ``g`` (tail included), end to end.
    tail_loc, tail_scale : ndarray of shape (n_features,)
        Location and scale of the Cauchy tail of each feature (of its scaled values where
        ``column_scale`` is not 1, as the grid is).
    """

    bandwidth: np.ndarray
    weight: np.ndarray
    grid: tuple[np.ndarray, ...]
    log_tail: np.ndarray
    log_density: np.ndarray
    tail_loc: np.ndarray
    tail_scale: np.ndarray
    #: each feature's power of two its values are multiplied by before the grid is read (1
    #: unless all its values are tiny; see :func:`_column_scale`); None: all 1
    column_scale: np.ndarray | None = None

    @property
    def step(self) -> np.ndarray:
        """Grid step of each cell, (n_classes, n_features)."""
        return self.grid[4]

    def points(self, c: int, j: int) -> np.ndarray:
        """The grid points of class index c and feature j, ascending."""
        seg_ptr, seg_start, _, seg_count, step, _ = self.grid
        cell = j * len(self.weight) + c
        parts = range(seg_ptr[cell], seg_ptr[cell + 1])
        return np.concatenate(
            [seg_start[s] + step[c, j] * np.arange(seg_count[s]) for s in parts] or [np.empty(0)]
        )


@dataclass(frozen=True)
class _Tabulated:
    """What :meth:`Kernel.finalize` computes before the log density: the bandwidths, weights,
    grid and binned sums, the tail's weight ``a`` and terms, the classes' weight scales."""

    h: np.ndarray
    weight: np.ndarray
    grid: tuple[np.ndarray, ...]
    conv: np.ndarray
    a: float
    log_total: np.ndarray
    log_tail: np.ndarray
    tail_loc: np.ndarray
    tail_scale: np.ndarray
    scale: np.ndarray


@dataclass(frozen=True)
class _Rows:
    """A sample laid out for the compiled loops: the values transposed (n_features, n_rows),
    each feature's values contiguous, and the class weights as CSR rows."""

    columns: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    n_classes: int
    #: per class, a power of two that brings its largest weight near 1 when that weight is
    #: beyond 2^±400 (else exactly 1): sums of scaled weights cannot overflow or underflow,
    #: and scaling by a power of two changes no rounding, so ordinary weights give the very
    #: numbers they always did.
    scale: np.ndarray

    @classmethod
    def of(cls, sample: Sample) -> _Rows:
        # Removed rows cancelled, and rows repeated under fractional weights merged: the
        # leave-one-out rule leaves min(w, 1) of each row out (see Sample.netted).
        sample = sample.netted().without_empty(0.0)
        weight = sample.weight
        rows = sp.csr_matrix(np.maximum(weight, 0.0).T)
        top = np.max(weight, axis=1, initial=0.0)
        exponent = np.frexp(np.where(top > 0, top, 1.0))[1]
        ordinary = (exponent > -_FREE_EXPONENT) & (exponent < _FREE_EXPONENT)
        scale = np.ldexp(1.0, np.where(ordinary, 0, -exponent))
        return cls(
            np.ascontiguousarray(sample.values.T, dtype=np.float64),
            rows.indptr.astype(np.int64),
            rows.indices.astype(np.int64),
            rows.data.astype(np.float64),
            int(weight.shape[0]),
            scale,
        )

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.indptr, self.indices, self.data

    def scaled_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The weights, each multiplied by its class's ``scale``."""
        if (self.scale == 1.0).all():
            return self.csr()
        return self.indptr, self.indices, self.data * self.scale[self.indices]


class Kernel(Family):
    """Kernel density estimate of each feature in each class (Parzen window; John & Langley 1995).

    Parameters
    ----------
    kernel : str, default="gaussian"
        "gaussian", "epanechnikov", "tophat", "triangular", "biweight", "cosine" or
        "exponential"; all scaled to unit variance, so the bandwidth is the kernel's standard
        deviation.
    bandwidth : "silverman", "scott", "cv" or float, default="silverman"
        How each class's bandwidth of each feature is chosen; a float is a multiple of the
        class's standard deviation of the feature. See :mod:`bayeskit.families._bandwidth`.
    grid_size : int, default=4096
        Most grid points one (class, feature) density is tabulated on (it takes 32 per
        bandwidth of the range its data occupy, usually far fewer than this).
    tail_weight : float, default=1.0
        Pseudo-rows given to the shared heavy-tailed density (``a`` in the module docstring).
    min_bandwidth : float, default=1e-3
        Floor of every bandwidth, as a fraction of the feature's typical within-class spread.
    shared_bandwidth : bool, default=True
        One bandwidth per feature for all classes (the classes' rule bandwidths averaged,
        weighted by their data), or one per class and feature. See
        :mod:`bayeskit.families._bandwidth` for why sharing is the default.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[0.0], [0.5], [1.0], [5.0], [5.5], [6.0]])
    >>> R = sp.csr_matrix(np.repeat(np.eye(2), 3, axis=0))
    >>> family = Kernel(kernel="epanechnikov", bandwidth=1.0)
    >>> params = family.finalize(family.summarize(X, R))
    >>> family.log_prob(params, np.array([[0.4], [5.2]])).argmax(axis=1).tolist()
    [0, 1]
    """

    name = "kernel"
    one_column = "density"
    column_kind = "real"

    def __init__(
        self,
        kernel: str = "gaussian",
        *,
        bandwidth: Any = "silverman",
        grid_size: int = 4096,
        tail_weight: float = 1.0,
        min_bandwidth: float = 1e-3,
        shared_bandwidth: bool = True,
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.grid_size = grid_size
        self.tail_weight = tail_weight
        self.min_bandwidth = min_bandwidth
        self.shared_bandwidth = shared_bandwidth

    def config(self) -> dict[str, Any]:
        bandwidth = self.bandwidth
        if not isinstance(bandwidth, str) and isinstance(bandwidth, (int, float, np.number)):
            bandwidth = float(bandwidth)
        return {
            "kernel": self.kernel,
            "bandwidth": bandwidth,
            "grid_size": int(self.grid_size) if isinstance(self.grid_size, int) else self.grid_size,
            "tail_weight": self.tail_weight,
            "min_bandwidth": self.min_bandwidth,
            "shared_bandwidth": self.shared_bandwidth,
        }

    def _shape(self) -> KernelShape:
        shape = KERNELS.get(self.kernel) if isinstance(self.kernel, str) else None
        if shape is None:
            raise ParameterError(
                f"kernel={self.kernel!r} is not a known kernel; use one of "
                f"{', '.join(map(repr, KERNELS))}"
            )
        return shape

    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        return real_block(X, names, "the kernel density family")

    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Sample:
        return Sample.of(X, R)

    def parameter_size(self, stats: Sample) -> int:
        """At most ``grid_size`` grid points per (class, feature), each tabulated and
        convolved (twice that for the FFT's padding), and the sorted sample; the class
        weights as compressed rows (their non-negative copy, the conversion's indices and
        values and their int64 and float64 copies: six (n_classes, n_rows) arrays at most),
        and for ``bandwidth="cv"`` each row's tail density with its temporaries (a model
        file's load takes all of it from its budget first: the weights took up to 1.7
        times what was counted before)."""
        cells = stats.n_classes * stats.n_features
        grid = 4 * cells * bw.check_grid_size(self.grid_size)
        cross_validates = isinstance(self.bandwidth, str) and self.bandwidth == "cv"
        cv = 4 * stats.values.size if cross_validates else 0
        return grid + 3 * stats.values.size + 6 * stats.weight.size + cv

    def finalize(self, stats: Sample) -> KernelParams:
        column_scale = _column_scale(stats.values)
        if column_scale is not None:
            # The densities of the scaled values (exact: powers of two), read back in the
            # features' units by log_prob; the bandwidths given in the features' units.
            scaled = self.finalize(Sample(stats.weight, stats.values * column_scale))
            return dataclasses.replace(
                scaled, bandwidth=scaled.bandwidth / column_scale, column_scale=column_scale
            )
        t = self._tabulate(stats)
        return KernelParams(
            bandwidth=t.h,
            weight=t.weight,
            grid=t.grid,
            log_tail=t.log_tail,
            log_density=_log_density(
                t.grid, t.conv, t.log_total, t.a, t.tail_loc, t.tail_scale, t.scale
            ),
            tail_loc=t.tail_loc,
            tail_scale=t.tail_scale,
        )

    def held_out_log_prob(self, stats: Sample, X: np.ndarray) -> np.ndarray:
        """``log p(x_ij | c)`` of every column ``j`` and row ``i`` of ``X`` under the model
        fitted on ``stats``, shape (n_features, n_rows, n_classes); 0 where missing.

        The very numbers :meth:`log_prob` gives a row holding column ``j``'s value alone
        (the held-out choice of :class:`~bayeskit.families.Auto` asks for these), without
        its probes: the log density is formed only at the grid points beside the rows'
        values, not at every point of every cell's grid (most of them no row reads)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        column_scale = _column_scale(stats.values)
        if column_scale is not None:
            stats = Sample(stats.weight, stats.values * column_scale)
            X = np.ascontiguousarray(X * column_scale)
        t = self._tabulate(stats)
        columns = np.ascontiguousarray(X.T)
        index, frac = locate_cells(columns, *t.grid)
        # the grid points beside the values (a mark per point: cheaper than sorting them)
        mark = np.zeros(len(t.conv) + 1, dtype=bool)
        found = index[index >= 0]
        mark[found] = True
        mark[found + 1] = True
        near = np.flatnonzero(mark[:-1])
        density = np.zeros(len(t.conv))
        density[near] = _log_density(
            t.grid, t.conv, t.log_total, t.a, t.tail_loc, t.tail_scale, t.scale, near
        )
        out = score_cells(columns, index, frac, density, t.log_tail, t.tail_loc, t.tail_scale)
        if column_scale is not None:  # as _cells_log_prob: ln s_j where x_j is observed
            out += np.where(np.isnan(columns), 0.0, np.log(column_scale)[:, None])[:, :, None]
        empty = t.weight == 0
        pooled = np.flatnonzero(empty.any(axis=0) & ~empty.all(axis=0))
        if len(pooled):
            out[pooled] = _pooled_cells(
                out[pooled], columns[pooled], empty[:, pooled], t.log_tail[:, pooled]
            )
        return out

    def columns_at_once(self, n_classes: int) -> int:
        """How many columns :meth:`held_out_log_prob` takes at a time: their grids (at most
        ``grid_size`` points a cell, a few arrays of them) within about 64 MB each."""
        return max(1, _HELD_OUT_VALUES // (n_classes * bw.check_grid_size(self.grid_size)))

    def _tabulate(self, stats: Sample) -> _Tabulated:
        """The bandwidths and each cell's binned sums on its grid: all of :meth:`finalize`
        but the log density (``stats``' values not tiny: see :func:`_column_scale`)."""
        shape = self._shape()
        rule = bw.check_bandwidth(self.bandwidth)
        if not isinstance(self.shared_bandwidth, (bool, np.bool_)):
            raise ParameterError(
                f"shared_bandwidth must be True or False; got {self.shared_bandwidth!r:.60}"
            )
        size = bw.check_grid_size(self.grid_size)
        a = bw.check_positive("tail_weight", self.tail_weight)
        floor_factor = bw.check_positive("min_bandwidth", self.min_bandwidth)
        rows = _Rows.of(stats)
        order = np.argsort(rows.columns, axis=1)
        weight, mean, m2, var, q1, q3 = bw.cell_stats(
            rows.columns, order, *rows.csr(), rows.scale, rows.n_classes
        )
        _, tail_loc, var_all = pooled_spread(weight, mean, m2, var)
        sigma_all = np.sqrt(var_all)
        # A feature with no spread at all needs some positive scale; any will do, since every
        # class then has the same density of it.
        tail_scale = np.where(sigma_all > 0, sigma_all, np.maximum(1e-3 * np.abs(tail_loc), 1.0))

        empty = weight == 0
        sigma = np.sqrt(np.where(empty, 0.0, var))
        floor = np.broadcast_to(
            np.maximum(
                floor_factor * bw.floor_scale(sigma, q3 - q1, weight, tail_scale),
                _SMALLEST_BANDWIDTH,
            ),
            weight.shape,
        )
        base = bw.rule_of_thumb("silverman" if rule == "cv" else rule, weight, sigma, q3 - q1)
        base = np.where(empty, tail_scale, base)
        if self.shared_bandwidth:
            base = bw.share(base, weight)

        def smooth(h: np.ndarray) -> tuple[np.ndarray, ...]:
            grid = layout(rows.columns, order, *rows.csr(), h, shape.reach, size, _PER_BANDWIDTH)
            bins = bin_cells(rows.columns, *rows.scaled_csr(), *grid)
            return (*grid, *_convolve(bins, shape, h, grid[4], grid[5]))

        if rule == "cv":
            tail_at_rows = a * np.exp(
                log_cauchy(rows.columns, tail_loc[:, None], tail_scale[:, None])
            )

            def loo(smoothed: tuple[np.ndarray, ...]) -> np.ndarray:
                return bw.leave_one_out(
                    rows.columns, *rows.csr(), rows.scale, *smoothed, weight, a, tail_at_rows
                )

            h = bw.cross_validate(base, floor, smooth, loo, shared=bool(self.shared_bandwidth))
        else:
            h = np.maximum(base, floor)
        if not np.isfinite(h * (4.0 * shape.reach * size)).all():
            # A numeric factor so large that a grid of the kernel's reach (a few widths on
            # either side, ``size`` points) passes float64's largest number.
            raise ParameterError(
                f"bandwidth={self.bandwidth!r} gives widths too wide for float64 on this data "
                "(the factor times each class's standard deviation of a feature); use a "
                f"smaller factor or one of {', '.join(map(repr, bw.RULES))}"
            )
        *grid, conv, _, _ = smooth(h)
        log_total = np.log(weight + a)
        return _Tabulated(
            h,
            weight,
            tuple(grid),
            conv,
            a,
            log_total,
            np.log(a) - log_total,
            tail_loc,
            tail_scale,
            rows.scale,
        )

    def log_prob(self, params: KernelParams, X: Any) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = self._cells_log_prob(params, X)
        # A class without an observed value of a feature (observed in other classes) takes
        # the population's density there: the other classes' densities mixed in proportion
        # to their weights W + a. Its own estimate would be the tail g alone, wider than any
        # class's: a value in the far tail of the observed classes' data then gave the class
        # that never observed the feature the whole log((W + a) / a) of evidence.
        empty = params.weight == 0
        for j in np.flatnonzero(empty.any(axis=0) & ~empty.all(axis=0)):
            if np.isnan(X[:, j]).all():
                continue
            probe = np.full_like(X, np.nan)
            probe[:, j] = X[:, j]
            alone = self._cells_log_prob(params, probe)
            seen = ~empty[:, j]
            share = -params.log_tail[seen, j]  # log((W + a) / a)
            pooled = _logsumexp(alone[:, seen] + share) - _logsumexp(share)
            pooled = np.where(np.isnan(X[:, j]), 0.0, pooled)
            out[:, empty[:, j]] += pooled[:, None] - alone[:, empty[:, j]]
        return out

    def _cells_log_prob(self, params: KernelParams, X: np.ndarray) -> np.ndarray:
        """``log p(x_j | c)`` summed over the observed features, each (class, feature) cell
        read from its own tabulated density (an empty cell: the tail alone)."""
        scale = params.column_scale
        if scale is None:
            return score(
                X,
                params.grid,
                params.log_density,
                params.log_tail,
                params.tail_loc,
                params.tail_scale,
            )
        # p(x_j) = s_j p_s(s_j x_j): the scaled density plus ln s_j where x_j is observed
        out = score(
            np.ascontiguousarray(X * scale),
            params.grid,
            params.log_density,
            params.log_tail,
            params.tail_loc,
            params.tail_scale,
        )
        return out + (~np.isnan(X)) @ np.log(scale)[:, None]


def _logsumexp(a: np.ndarray) -> np.ndarray:
    """``log Σ exp`` over the last axis (a 1-D array: a float), without overflow."""
    top = np.max(a, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):  # every term -inf: a density of 0, log 0 = -inf
        return np.squeeze(top, axis=-1) + np.log(np.sum(np.exp(a - top), axis=-1))


def _pooled_cells(
    alone: np.ndarray, columns: np.ndarray, empty: np.ndarray, log_tail: np.ndarray
) -> np.ndarray:
    """:meth:`Kernel.log_prob`'s pooled density of the classes without an observed value of a
    column, for columns given as ``alone`` (n_columns, n_rows, n_classes) cell by cell, their
    values ``columns`` (n_columns, n_rows), ``empty`` (n_classes, n_columns) and the whole
    ``log_tail``: the same operations, the columns that leave the same classes empty taken
    together (one pass for each such set of classes, not one for each column)."""
    out = alone.copy()
    patterns, which = np.unique(empty.T, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        cols = np.flatnonzero(which.ravel() == p)
        seen = ~pattern
        share = -log_tail[seen][:, cols].T  # (columns, seen classes): log((W + a) / a)
        part = alone[cols]
        pooled = _logsumexp(part[:, :, seen] + share[:, None, :]) - _logsumexp(share)[:, None]
        pooled = np.where(np.isnan(columns[cols]), 0.0, pooled)
        out[np.ix_(cols, np.arange(out.shape[1]), np.flatnonzero(pattern))] += (
            pooled[:, :, None] - part[:, :, pattern]
        )
    return out


def _log_density(
    grid: tuple[np.ndarray, ...],
    conv: np.ndarray,
    log_total: np.ndarray,
    a: float,
    tail_loc: np.ndarray,
    tail_scale: np.ndarray,
    scale: np.ndarray,
    at: np.ndarray | None = None,
) -> np.ndarray:
    """``log((Σ r K_h + a g) / (W + a))`` at every grid point (flat, like ``conv``), from
    ``conv`` computed on weights multiplied by their class's ``scale`` (a power of two); at
    the grid points ``at`` alone (flat indices) when given, each by the same operations."""
    cell_ptr = grid[5]
    if at is None:
        cells = np.repeat(np.arange(len(cell_ptr) - 1), np.diff(cell_ptr))
        points, conv = grid_values(*grid), conv
    else:
        cells = np.searchsorted(cell_ptr, at, side="right") - 1
        points, conv = grid_values(*grid)[at], conv[at]
    feature = cells // len(log_total)
    log_g = log_cauchy(points, tail_loc[feature], tail_scale[feature])
    with np.errstate(divide="ignore"):
        out = np.log(np.maximum(conv, 0.0))
    if (scale != 1.0).any():  # Σ r K_h itself may be beyond float64: only its log is formed
        n_classes = len(scale)
        out -= np.log(scale)[cells % n_classes]
    np.logaddexp(out, np.log(a) + log_g, out=out)
    out -= log_total.T.reshape(-1)[cells]
    return out


def _convolve(
    bins: np.ndarray, shape: KernelShape, h: np.ndarray, step: np.ndarray, cell_ptr: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Each cell's binned weights convolved with its discretised kernel, by FFT.

    Returns the sums ``Σ r K_h(g − x)`` at the grid points (flat, like ``bins``) and the
    discrete kernel at lags 0 and 1, (n_classes, n_features). The segments of a cell's grid lie
    end to end, but each extends ``reach · h`` beyond its data, so kernels (zero beyond that
    reach) never carry weight from one segment into the next. Cells are transformed in batches
    of equal padded length (powers of two), a few FFT calls in all.
    """
    n_classes, d = h.shape
    lengths = np.diff(cell_ptr)
    cells_h, cells_step = h.T.reshape(-1), step.T.reshape(-1)
    conv = np.zeros_like(bins)
    k0, k1 = np.zeros(len(lengths)), np.zeros(len(lengths))
    padded = 1 << np.ceil(np.log2(np.maximum(lengths, 16))).astype(np.int64)
    for size in np.unique(padded[lengths > 0]):
        cells = np.flatnonzero((padded == size) & (lengths > 0))
        n_fft = 2 * int(size)
        for part in np.array_split(cells, -(-len(cells) * n_fft // _CHUNK_VALUES)):
            ratio = (cells_step[part] / cells_h[part])[:, None]
            # Lags 0…L and −L…−1 (circular), L the kernel's reach in grid steps: beyond it,
            # or beyond the grid, the kernel never meets a bin.
            reach = int(min(size - 1, np.ceil(shape.reach / ratio.min())))
            u = np.arange(reach + 1) * ratio
            half = np.where(u < shape.reach, shape.density(u), 0.0)
            kernel = np.zeros((len(part), n_fft))
            kernel[:, : reach + 1] = half
            kernel[:, n_fft - reach :] = half[:, :0:-1]
            kernel /= kernel.sum(axis=1, keepdims=True)
            k0[part], k1[part] = kernel[:, 0], kernel[:, 1]
            index = cell_ptr[part, None] + np.arange(size)
            inside = np.arange(size) < lengths[part, None]
            block = np.where(inside, bins[np.where(inside, index, 0)], 0.0)
            spectrum = fft.rfft(block, n=n_fft, axis=1) * fft.rfft(kernel, axis=1)
            conv[index[inside]] = fft.irfft(spectrum, n=n_fft, axis=1)[:, :size][inside]
    # Σ kernel = 1 makes the binned sums add up to W: density = conv / (W · step).
    scale = 1.0 / cells_step
    conv *= np.repeat(scale, lengths)
    return (
        conv,
        (k0 * scale).reshape(d, n_classes).T.copy(),
        (k1 * scale).reshape(d, n_classes).T.copy(),
    )


def _column_scale(values: np.ndarray) -> np.ndarray | None:
    """Each feature's :func:`~._bandwidth.tiny_scale` (its values all below 2^-200 in
    magnitude are scaled up), or None when no feature needs one: the variances of values at
    1e-170 underflow float64, and every bandwidth fell to the floor of a constant feature
    (the prior then decided every row)."""
    with np.errstate(invalid="ignore"):
        top = np.nanmax(np.abs(values), axis=0, initial=0.0) if values.size else np.zeros(0)
    scale = bw.tiny_scale(top)
    return scale if bool((scale != 1.0).any()) else None
