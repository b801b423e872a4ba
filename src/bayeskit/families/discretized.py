"""Discretized real features: cut each feature into intervals, then a categorical model over
the intervals (Dougherty et al. 1995: each continuous attribute replaced by its interval).

``θ_cjb = (N_cjb + α) / (N_cj + α B_j)``: the Dirichlet-smoothed share of class ``c``'s rows
whose feature ``j`` falls in interval ``b`` of the feature's ``B_j`` intervals.

The cut points are *parameters*, computed in ``finalize`` from the merged statistic (a
:class:`~bayeskit.stats.Sample`, the weighted rows themselves), so ``fit`` equals the sum of any
``partial_fit`` batches, merged models and unlearning exactly; changing ``method`` or
``n_bins`` on a fitted model takes effect without refitting. Three ways to cut:

``"width"``
    ``n_bins`` intervals of equal width over the observed range (``np.linspace``, as
    scikit-learn's ``KBinsDiscretizer(strategy="uniform")``); intervals may be empty.
``"frequency"``
    cuts at the weighted quantiles ``q = 1/n_bins, …, (n_bins−1)/n_bins``, each the smallest
    observed value whose cumulative weight share reaches ``q`` (``np.quantile(x, q,
    weights=w, method="inverted_cdf")``, the quantile numpy defines for weights, so a row of
    weight 2 is two rows). Repeated cuts and a cut at the minimum are dropped, so every
    interval holds training data; heavy ties give fewer intervals.
``"mdl"``
    supervised: Fayyad & Irani's recursive minimum-entropy splits with the MDL stopping rule
    (:mod:`bayeskit.families._mdl`); ``n_bins`` is not used.

A feature with a single observed value, or one MDL will not cut, has one interval and drops out
of the model (its factor is the same for every class). Values outside the training range fall
in the end intervals (``(−∞, c₁)`` and ``[c_last, ∞)``); a value equal to a cut belongs to the
interval above it, as in ``KBinsDiscretizer``.

The score of ``x_j`` is the *probability of its interval*, not a density (the end intervals are
unbounded, so no width could turn it into one). That is all classification needs: dividing by
an interval's width would subtract the same number from every class's score and leave every
posterior unchanged. It also makes the family exactly ``KBinsDiscretizer(encode="ordinal")``
followed by ``CategoricalNB`` when the cut points agree, and linear in the one-hot interval
indicators.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from numbers import Integral
from typing import Any

import numpy as np

from .._jit import njit, prange
from .._lazy import sparse as sp
from ..errors import ParameterError
from ..stats import Sample
from ._base import Family, real_block
from ._dirichlet import check_alpha, check_estimate, log_ratio, pseudo_count
from ._mdl import CHUNK, Groups, Rows, mdl_cuts, segment_search
from .categorical import one_hot

METHODS = ("width", "frequency", "mdl")
#: Below this many (cell × class) terms one thread beats starting the thread pool.
PARALLEL_WORK = 1 << 20


def _strictly_rising(first: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Mask of the cuts (rows: features) above both the feature's minimum and the cut before."""
    previous = np.concatenate([first[:, None], cuts[:, :-1]], axis=1)
    return cuts > previous


def width_cuts(rows: Rows, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(feature, cut) of ``n_bins`` equal-width intervals over each feature's observed range."""
    # fmin/fmax skip NaN (NaN only for a feature never observed); + 0.0 makes -0.0 plain 0.0.
    lo = np.fmin.reduce(rows.values, axis=0, initial=np.nan) + 0.0
    hi = np.fmax.reduce(rows.values, axis=0, initial=np.nan) + 0.0
    seen = np.flatnonzero(~np.isnan(lo))
    lo, hi = lo[seen], hi[seen]
    cuts = np.linspace(lo, hi, n_bins + 1, axis=1)[:, 1:-1]
    keep = _strictly_rising(lo, cuts)
    return np.broadcast_to(seen[:, None], cuts.shape)[keep], cuts[keep]


def frequency_cuts(rows: Rows, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(feature, cut) at each feature's weighted ``inverted_cdf`` quantiles ``k / n_bins``:
    the first value whose cumulative share of the feature's weight reaches ``k / n_bins``, as
    ``np.quantile(x, q, weights=w, method="inverted_cdf")`` computes it."""
    q = np.arange(1, n_bins) / n_bins
    row_weight = rows.weight.sum(axis=0)
    if not rows.stable and np.all(row_weight == row_weight[:1]):
        # Equal whole weights: the share of the first r + 1 values is exactly (r + 1) / count,
        # so sorted values suffice (no permutation, no running sums).
        values = np.sort(np.ascontiguousarray(rows.values.T), axis=1)
        count = (~np.isnan(values)).sum(axis=1)
        seen = np.flatnonzero(count)
        at = _first_share(count[seen][:, None], q[None, :])
        cuts = np.take_along_axis(values[seen], at, axis=1)
    else:
        values, order = rows.sorted_columns()
        weight = row_weight[order]
        weight[np.isnan(values)] = 0.0
        count = (~np.isnan(values)).sum(axis=1)
        seen = np.flatnonzero(count)
        cdf = np.cumsum(weight[seen], axis=1)
        cdf /= cdf[np.arange(len(seen)), count[seen] - 1][:, None]
        start = (np.arange(len(seen)) * values.shape[1])[:, None]
        stop = start + count[seen][:, None]
        at = np.minimum(segment_search(cdf.ravel(), start, stop, q[None, :], "left"), stop - 1)
        cuts = values[seen].ravel()[at]
    keep = _strictly_rising(values[seen, 0], cuts)
    return np.broadcast_to(seen[:, None], cuts.shape)[keep], cuts[keep]


def _first_share(count: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The smallest ``r`` with ``(r + 1) / count >= q`` in floating point (as a running sum
    divided by the total gives it), at most ``count − 1``."""
    r = np.ceil(q * count).astype(np.int64) - 1
    r = np.where((r + 1) / count < q, r + 1, r)  # q · count can be off by one ulp either way
    r = np.where((r >= 1) & (r / count >= q), r - 1, r)
    return np.clip(r, 0, count - 1)


@njit(inline="always")
def _position(x: float, cuts: np.ndarray, lo: int, hi: int) -> int:  # pragma: no cover
    """``lo`` + the number of ``cuts[lo:hi]`` at or below ``x``."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if cuts[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline="always")
def _score_row(
    X: np.ndarray,
    i: int,
    cuts: np.ndarray,
    cut_offsets: np.ndarray,
    table: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    n_classes = table.shape[1]
    for j in range(X.shape[1]):
        x = X[i, j]
        if x != x:  # missing: a factor of 1
            continue
        # Feature j's intervals are rows cut_offsets[j] + j … of the table.
        row = _position(x, cuts, cut_offsets[j], cut_offsets[j + 1]) + j
        for c in range(n_classes):
            out[i, c] += table[row, c]


@njit(parallel=True)
def _score_parallel(
    X: np.ndarray, cuts: np.ndarray, cut_offsets: np.ndarray, table: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover
    for i in prange(X.shape[0]):
        _score_row(X, i, cuts, cut_offsets, table, out)


@njit()
def _score_serial(
    X: np.ndarray, cuts: np.ndarray, cut_offsets: np.ndarray, table: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover
    for i in range(X.shape[0]):
        _score_row(X, i, cuts, cut_offsets, table, out)


@njit(nogil=True)
def _count(
    X: np.ndarray,
    code: np.ndarray,
    w: np.ndarray,
    cuts: np.ndarray,
    cut_offsets: np.ndarray,
    counts: np.ndarray,
) -> None:  # pragma: no cover
    """``counts[interval, class] += weight`` over the observed entries, rows in order."""
    for i in range(X.shape[0]):
        c = code[i]
        wi = w[i]
        for j in range(X.shape[1]):
            x = X[i, j]
            if x == x:
                counts[_position(x, cuts, cut_offsets[j], cut_offsets[j + 1]) + j, c] += wi


@njit(nogil=True)
def _intervals(
    X: np.ndarray, cuts: np.ndarray, cut_offsets: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            x = X[i, j]
            out[i, j] = -1 if x != x else _position(x, cuts, cut_offsets[j], cut_offsets[j + 1]) + j


@dataclass(frozen=True)
class DiscretizedParams:
    """Cut points and interval log-probabilities, flat over features.

    Feature ``j``'s cuts are ``cuts[cut_offsets[j]:cut_offsets[j + 1]]`` (increasing); its
    ``B_j = n_cuts_j + 1`` intervals are columns ``interval_offsets[j]:interval_offsets[j + 1]``
    of ``interval_count`` and ``feature_log_prob`` (n_classes, n_intervals).
    """

    cuts: np.ndarray
    cut_offsets: np.ndarray
    interval_count: np.ndarray
    feature_log_prob: np.ndarray

    @property
    def n_features(self) -> int:
        return len(self.cut_offsets) - 1

    @property
    def interval_offsets(self) -> np.ndarray:
        return self.cut_offsets + np.arange(self.n_features + 1)

    def cut_points(self, j: int) -> np.ndarray:
        return self.cuts[self.cut_offsets[j] : self.cut_offsets[j + 1]]

    @cached_property
    def table(self) -> np.ndarray:
        """``feature_log_prob`` transposed, contiguous: one row per interval, as the compiled
        scorer reads it. Built once per fitted model."""
        return np.ascontiguousarray(self.feature_log_prob.T)

    def intervals(self, X: np.ndarray) -> np.ndarray:
        """Column of each entry's interval in ``feature_log_prob``; −1 where missing."""
        return interval_codes(X, self.cuts, self.cut_offsets)

    def log_prob(self, X: np.ndarray) -> np.ndarray:
        """``Σ_j ln θ_c,j,b(x_j)`` over the observed entries of each row, (n_rows, n_classes)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = np.zeros((X.shape[0], self.table.shape[1]))
        kernel = _score_parallel if X.size * out.shape[1] >= PARALLEL_WORK else _score_serial
        kernel(X, self.cuts, self.cut_offsets, self.table, out)
        return out


def interval_codes(X: np.ndarray, cuts: np.ndarray, cut_offsets: np.ndarray) -> np.ndarray:
    """Column of each entry's interval (feature ``j``'s intervals are columns
    ``cut_offsets[j] + j …``); −1 where missing."""
    out = np.empty(X.shape, dtype=np.int64)
    _intervals(np.ascontiguousarray(X, dtype=np.float64), cuts, cut_offsets, out)
    return out


def interval_counts(rows: Rows, cuts: np.ndarray, cut_offsets: np.ndarray) -> np.ndarray:
    """Class weight in each interval, (n_classes, n_intervals), summed in row order."""
    K = rows.weight.shape[0]
    n_intervals = int(cut_offsets[-1]) + len(cut_offsets) - 1
    labels = rows.labels()
    if labels is None:  # responsibilities: every row counts in several classes
        codes = interval_codes(rows.values, cuts, cut_offsets)
        return np.asarray((one_hot(codes, n_intervals).T @ rows.weight.T).T)
    counts = np.zeros((n_intervals, K))
    X = np.ascontiguousarray(rows.values, dtype=np.float64)
    _count(X, labels[0], labels[1].astype(np.float64), cuts, cut_offsets, counts)
    return np.ascontiguousarray(counts.T)


def check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ParameterError(
            f"method={method!r} is not one of {METHODS}: 'width' (equal-width intervals), "
            "'frequency' (equal-frequency intervals) or 'mdl' (Fayyad-Irani supervised cuts)"
        )
    return method


#: The most intervals per feature: each costs a parameter per class and feature, and more
#: intervals than this leave too few rows in each to estimate its probability.
MAX_BINS = 1 << 16


def check_n_bins(n_bins: Any) -> int:
    if (
        isinstance(n_bins, (bool, np.bool_))
        or not isinstance(n_bins, Integral)
        or not 1 <= int(n_bins) <= MAX_BINS
    ):
        raise ParameterError(
            f"n_bins must be an integer >= 1 and at most {MAX_BINS} (intervals per feature); "
            f"got {n_bins!r}"
        )
    return int(n_bins)


class Discretized(Family):
    """Real features cut into intervals, then categorical over the intervals.

    Parameters
    ----------
    method : {"mdl", "width", "frequency"}
        How to cut (see the module docstring): supervised Fayyad–Irani MDL, equal width, or
        equal (weighted) frequency.
    n_bins : int >= 1
        Intervals per feature for ``"width"`` and ``"frequency"`` (fewer where values tie);
        not used by ``"mdl"``.
    alpha : float or array of shape (n_features,)
        Dirichlet prior concentration over each feature's intervals.
    force_alpha : bool
        Keep an alpha below 1e-10 as given.
    estimate : {"mean", "map", "mle"}
        Posterior mean (Laplace/Lidstone), posterior mode, or maximum likelihood.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[1.0], [2.0], [3.0], [7.0], [8.0], [9.0]])
    >>> R = sp.csr_matrix(np.repeat(np.eye(2), 3, axis=0))
    >>> family = Discretized("mdl")
    >>> params = family.finalize(family.summarize(X, R))
    >>> params.cut_points(0).tolist()
    [5.0]
    >>> np.exp(family.log_prob(params, np.array([[0.0], [np.nan]]))).round(3).tolist()
    [[0.8, 0.2], [1.0, 1.0]]
    """

    name = "discretized"
    column_kind = "real"
    linear = True

    def __init__(
        self,
        method: str = "mdl",
        n_bins: int = 10,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
    ):
        self.method = method
        self.n_bins = n_bins
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate

    def config(self) -> dict[str, Any]:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        n_bins = int(self.n_bins) if isinstance(self.n_bins, np.integer) else self.n_bins
        return {
            "method": self.method,
            "n_bins": n_bins,
            "alpha": alpha,
            "force_alpha": self.force_alpha,
            "estimate": self.estimate,
        }

    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        return real_block(X, names, "the discretized family")

    def summarize(self, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Sample:
        return Sample.of(X, R)

    def cut(self, rows: Rows) -> tuple[np.ndarray, np.ndarray]:
        """(feature, cut point) pairs of every feature, in no particular order."""
        method = check_method(self.method)
        n_bins = check_n_bins(self.n_bins)
        if not len(rows.values):  # no data left (every row removed): nothing to cut
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if method == "width":
            return width_cuts(rows, n_bins)
        if method == "frequency":
            return frequency_cuts(rows, n_bins)
        return mdl_cuts(Groups.of(rows))

    def parameter_size(self, stats: Sample) -> int:
        """What :meth:`finalize` holds at its peak, temporaries included (a model file's
        load takes it from its budget first; the MDL search took 1.8 times what was counted
        before): the rows kept and their order, then the larger of the search for the cuts
        and the tables over the intervals it gives. Intervals per feature: at most
        ``n_bins`` (width, frequency) or one per row (mdl)."""
        method = check_method(self.method)
        k, n, d = stats.n_classes, stats.n_rows, stats.n_features
        values = n * d
        per_feature = check_n_bins(self.n_bins) if method != "mdl" else n
        intervals = d * (per_feature + 1)
        # Rows.of: its masks, the weights and values of the rows kept, their order
        rows = 2 * k * n + 2 * values + 2 * n
        if method == "mdl":
            # Groups.of: the sorted columns, their order, the observed values and their rows,
            # keys, the class weights of every distinct value (soft labels: of every value)
            # and their running sums; then candidate cuts in batches of CHUNK (measured at 5.7
            # words a candidate and class)
            search = 4 * k * values + 13 * values + 8 * k * min(CHUNK, values)
        elif method == "width":
            search = 4 * intervals
        else:  # the sorted columns and their order, weights, running shares, the bisection's
            search = 6 * values + 12 * intervals
        # the counts (and their transposed copy), numerators, denominators, both logarithms
        # and the log-probabilities, copies where a class has no weight in a feature, each
        # interval's feature and size; soft labels: each value's interval, one-hot
        tables = 9 * k * intervals + 5 * intervals + 3 * values
        return rows + max(search, tables) + 2 * intervals

    def finalize(self, stats: Sample) -> DiscretizedParams:
        d = stats.n_features
        alpha = check_alpha(self.alpha, d, force_alpha=self.force_alpha)
        a = np.broadcast_to(
            np.asarray(pseudo_count(alpha, check_estimate(self.estimate)), float), (d,)
        )
        rows = Rows.of(stats)
        feature, cut = self.cut(rows)
        order = np.lexsort((cut, feature))
        cuts = np.ascontiguousarray(cut[order], dtype=np.float64)
        cut_offsets = np.concatenate([[0], np.cumsum(np.bincount(feature, minlength=d))])
        cut_offsets = cut_offsets.astype(np.int64)
        count = interval_counts(rows, cuts, cut_offsets)
        start = cut_offsets[:-1] + np.arange(d)
        size = np.diff(cut_offsets) + 1  # B_j
        col_feature = np.repeat(np.arange(d), size)
        per_feature = np.add.reduceat(count, start, axis=1) if d else count
        num = count + a[col_feature]
        den = (per_feature + a * size)[:, col_feature]
        flp = log_ratio(num, den, size[col_feature])
        return DiscretizedParams(cuts, cut_offsets, count, flp)

    def log_prob(self, params: DiscretizedParams, X: np.ndarray) -> np.ndarray:
        return params.log_prob(X)

    def design(self, params: DiscretizedParams, X: np.ndarray) -> sp.csr_matrix:
        """One-hot interval indicators (n_samples, n_intervals); a NaN makes no entry."""
        return one_hot(params.intervals(X), params.feature_log_prob.shape[1])

    def linear_form(self, params: DiscretizedParams) -> tuple[np.ndarray, np.ndarray]:
        """Weights over the one-hot interval columns of :meth:`design`; bias 0."""
        W = params.feature_log_prob
        return W, np.zeros(W.shape[0])

    def column_names(self, params: DiscretizedParams, names: Sequence[str]) -> list[str]:
        """``name<c1``, ``c1<=name<c2``, …, ``name>=c_last`` (``name`` alone: one interval)."""
        out: list[str] = []
        for j, name in enumerate(names):
            c = [f"{v:.6g}" for v in params.cut_points(j).tolist()]
            if not c:
                out.append(str(name))
                continue
            out.append(f"{name}<{c[0]}")
            out += [f"{lo}<={name}<{hi}" for lo, hi in pairwise(c)]
            out.append(f"{name}>={c[-1]}")
        return out
