"""The Parzen window family: a multivariate kernel density estimate per class (Parzen 1962).

``p̂_h(x | y) = 1 / (W_y V_h) Σ_{i in class y} w_i K(ρ(x, x_i) / h_i)`` with a kernel profile K
(:data:`~bayeskit.families._parzen_kernels.KERNELS`), a distance ρ, the class's total weight
``W_y`` (its number of rows without sample weights) and the normaliser ``V_h = ∫ K(ρ(z)/h) dz``
that makes every row's bump integrate to 1 (for a norm: the unit ball's volume times a radial
integral times ``h^d``; see :func:`~bayeskit.families._parzen_kernels.log_kernel_norm`).

The statistic is the weighted sample itself (:class:`~bayeskit.stats.Sample`), so fitting,
``partial_fit`` over any batches, merging and unlearning give the same model; everything else
is computed in :meth:`Parzen.finalize` from the merged sample:

* the distance. euclidean, manhattan, chebyshev, minkowski(p) as named; ``mahalanobis``
  whitens the rows by the Cholesky factor of the pooled within-class covariance (from the
  scatter statistic of the sample); ``cosine`` is ``1 − cos θ`` between the rows as directions
  (a density of directions on the unit sphere; an all-zero row is at distance 1 from every
  row, as scikit-learn's cosine distance has it);
* the width ``h``. A float (in the units of ρ, as scikit-learn's KernelDensity bandwidth);
  "scott", ``σ̄ n^(−1/(d+4))``, or "silverman", ``σ̄ (n (d + 2) / 4)^(−1/(d+4))``, with σ̄² the
  pooled within-class variance averaged over the features (in ρ's space: after whitening or
  normalising) and n the class's weight, averaged over the classes weighted by their weight
  (one width for all classes, so a density ratio never depends on the classes' widths alone).
  Both are the gaussian's rules; for another kernel σ̄ is first divided by that kernel's
  standard deviation per dimension at h = 1, ``√(E u² / d)`` with u's density ∝
  ``u^(d−1) K(u)`` (tophat √(1/(d+2)), epanechnikov √(1/(d+4)), exponential √(d+1), ...), so
  every kernel's bumps have the spread the gaussian's would: in 1-D the tophat's width is
  √3 × the gaussian's, the epanechnikov's √5 ×;
  "loo-likelihood" and "cv-accuracy": the factor of Scott's width, among 21 from 1/8 to 4
  (spaced by 2^(1/4)), that maximises the leave-one-out log-likelihood of the training rows
  under their own class, or their leave-one-out classification accuracy (n-fold
  cross-validation; ties to the larger likelihood). A row of weight w stands for w rows, of
  which ``min(w, 1)`` is left out at a time; where a weight is fractional, a class's identical
  rows count as one row of their summed weight, so the rule does not depend on how a weight
  was split (a learn and its unlearn give back the fit). Each costs one pass over all pairs of
  training rows, scoring every candidate at once: O(n²) time, for samples up to a few 10⁴
  rows;
* optionally adaptive widths (``adaptive=k``): row i's width is ``h · d_k(x_i) / g_y``, with
  ``d_k`` the distance to its k-th nearest neighbour in its class and ``g_y`` their geometric
  mean over the class: narrow where the class is dense, wide in its tails (Breiman, Meisel and
  Purcell 1977), each bump still integrating to 1.

``log_prob`` sums kernels in log space, a block of rows against a chunk of a class's rows at a
time (:func:`~bayeskit.families._parzen_kernels.kernel_sums`): never an n_test × n_train
matrix. With the gaussian kernel and euclidean ρ it is scikit-learn's
``KernelDensity(bandwidth=h).fit(X_y).score_samples(x)`` for every class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

from .._lazy import linalg
from .._lazy import sparse as sp
from .._validation import as_real, column_label, column_named, within
from .._values import one_of
from ..errors import DataError, ParameterError, SingularCovarianceError
from ..stats import Moments, Sample
from . import _bandwidth as bw
from . import _parzen_kernels as pk
from ._base import Family, weight_exponent

BANDWIDTH_RULES = ("scott", "silverman", "loo-likelihood", "cv-accuracy")
#: factors of Scott's width the searches try (1/8 … 4, spaced by 2^(1/4))
SEARCH_FACTORS = 2.0 ** (np.arange(-12, 9) / 4.0)
#: largest magnitude accepted: squared distances of larger values overflow float64
_LARGEST = 1e150
#: the narrowest widths float64 can evaluate: the gaussian's 1 / (2h²), others' 1 / h
_NARROWEST_GAUSSIAN = 2.0**-511
_NARROWEST = 2.0**-1021
#: a k-th neighbour distance of 0 (duplicate rows) counts as this fraction of the class's
#: typical one, so no width is 0
_ADAPTIVE_FLOOR = 1e-3


@dataclass(frozen=True)
class ParzenParams:
    """A fitted Parzen window: the class samples, transformed for their distance, and widths.

    Attributes
    ----------
    values : ndarray (n_entries, n_features)
        The rows of each class, class after class (a row with weight in two classes appears
        in both), centred and whitened (mahalanobis) or normalised (cosine).
    class_ptr : ndarray (n_classes + 1,)
        Where each class's rows are in ``values``.
    source : ndarray (n_entries,)
        The row of the sample each entry comes from.
    h : ndarray (n_entries,)
        Each entry's width (all ``bandwidth`` unless adaptive).
    coef : ndarray (n_entries,)
        ``ln w_i − ln W_y − ln V_(h_i)``: the log weight of each entry's kernel.
    bandwidth : float
        The (base) width h.
    transform : Transform
        How rows are moved into ρ's space (centred; whitened or normalised).
    search : dict
        For "loo-likelihood" / "cv-accuracy": the factors tried and their scores.
    """

    values: np.ndarray
    class_ptr: np.ndarray
    source: np.ndarray
    h: np.ndarray
    coef: np.ndarray
    bandwidth: float
    transform: Transform
    kernel: str
    metric: str
    p: float
    search: dict[str, np.ndarray] = field(default_factory=dict)
    #: each entry's adaptive width factor ``d_k(x_i) / g_y`` (None without adaptive widths)
    ratio: np.ndarray | None = None


class Parzen(Family):
    """Multivariate kernel density estimate of each class (the Parzen window, Parzen 1962).

    Parameters
    ----------
    kernel : str, default="gaussian"
        One of "gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine".
    metric : str, default="euclidean"
        ρ: "euclidean", "manhattan", "chebyshev", "minkowski" (with ``p``), "cosine" or
        "mahalanobis" (pooled within-class covariance).
    p : float, default=2
        The Minkowski exponent (>= 1), for ``metric="minkowski"``.
    bandwidth : float or str, default="scott"
        h (see the module docstring): a number > 0, "scott", "silverman", "loo-likelihood"
        or "cv-accuracy".
    adaptive : int, optional
        k: widths proportional to each row's distance to its k-th nearest neighbour in its
        class.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> X = np.array([[0.0, 0.0], [0.5, 0.0], [4.0, 4.0], [4.5, 4.0]])
    >>> R = sp.csr_matrix(np.repeat(np.eye(2), 2, axis=0))
    >>> family = Parzen(bandwidth=1.0)
    >>> params = family.finalize(family.summarize(X, R))
    >>> family.log_prob(params, np.array([[0.2, 0.1], [4.1, 3.8]])).argmax(axis=1).tolist()
    [0, 1]
    """

    name = "parzen"
    column_kind = "real"

    def __init__(
        self,
        kernel: str = "gaussian",
        *,
        metric: str = "euclidean",
        p: float = 2.0,
        bandwidth: Any = "scott",
        adaptive: int | None = None,
    ):
        self.kernel = kernel
        self.metric = metric
        self.p = p
        self.bandwidth = bandwidth
        self.adaptive = adaptive
        #: (the statistic, its width search) when the search's outcome is already known (a
        #: model file stores it): finalize of that very statistic then skips the O(n²) search
        self.known_search: tuple[Sample, dict[str, np.ndarray]] | None = None
        #: likewise the adaptive widths' factors of that statistic (their k-nearest-neighbour
        #: searches are not redone)
        self.known_ratio: tuple[Sample, np.ndarray] | None = None

    def config(self) -> dict[str, Any]:
        bandwidth = self.bandwidth
        if not isinstance(bandwidth, str) and isinstance(bandwidth, Real):
            bandwidth = float(bandwidth)
        return {
            "kernel": self.kernel,
            "metric": self.metric,
            "p": self.p,
            "bandwidth": bandwidth,
            "adaptive": self.adaptive,
        }

    # ------------------------------------------------------------------ settings
    def check(self) -> tuple[str, str, float, str | float, int | None]:
        """The settings, or ParameterError naming the one at fault and what is accepted."""
        if not isinstance(self.kernel, str) or self.kernel not in pk.KERNELS:
            raise ParameterError(
                f"kernel={self.kernel!r} is not a known kernel; use one of "
                f"{', '.join(map(repr, pk.KERNELS))}"
            )
        if not isinstance(self.metric, str) or self.metric not in pk.METRICS:
            raise ParameterError(
                f"metric={self.metric!r} is not a known distance; use one of "
                f"{', '.join(map(repr, pk.METRICS))}"
            )
        p = self.p
        if isinstance(p, bool) or not isinstance(p, Real) or not (1.0 <= as_real(p) < math.inf):
            raise ParameterError(f"p={p!r} is not accepted; the Minkowski exponent is >= 1")
        bandwidth = self.bandwidth
        if isinstance(bandwidth, str):
            if not one_of(bandwidth, BANDWIDTH_RULES):
                raise ParameterError(
                    f"bandwidth={bandwidth!r} is not a known rule; use a number > 0 or one of "
                    f"{', '.join(map(repr, BANDWIDTH_RULES))}"
                )
        elif (
            isinstance(bandwidth, bool)
            or not isinstance(bandwidth, Real)
            or not (0.0 < float(bandwidth) < math.inf)
        ):
            raise ParameterError(
                f"bandwidth={bandwidth!r} is not accepted; use a finite number > 0 (the width "
                f"h in the units of the distance) or one of {', '.join(map(repr, BANDWIDTH_RULES))}"
            )
        else:
            bandwidth = float(bandwidth)
        adaptive = self.adaptive
        if adaptive is not None and (
            isinstance(adaptive, bool) or not isinstance(adaptive, Integral) or adaptive < 1
        ):
            raise ParameterError(
                f"adaptive={adaptive!r} is not accepted; use None or a number of neighbours >= 1"
            )
        return self.kernel, self.metric, float(p), bandwidth, adaptive

    # ------------------------------------------------------------------ statistics
    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        # One check of every value, NaN, ±inf and magnitude alike, so that each is refused
        # with the one rule the window has (the numeric families' check reads NaN as a missing
        # value, which the window cannot use).
        if sp.issparse(X):
            X = X.toarray()
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise DataError(
                f"the Parzen window takes a 2-D table of numbers, got an array of shape {X.shape}"
            )
        if within(X, _LARGEST):
            return X
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(X) <= _LARGEST)  # NaN compares False: bad too
        if bad.any():
            row, col = (int(v) for v in np.argwhere(bad)[0])
            missing = bool(np.isnan(X[row, col]))
            what = "a missing value (NaN)" if missing else f"{X[row, col]:g}"
            accepted = f"the Parzen window needs complete rows of finite values up to {_LARGEST:g} "
            if missing:
                accepted += (
                    "in magnitude (distances between rows with a missing value are undefined): "
                    "impute missing values first, or use KernelNB or GaussianNB, which read NaN "
                    "as missing"
                )
            else:  # (KernelNB and GaussianNB refuse it too)
                accepted += "in magnitude: clip the column, or rescale it (np.log1p, a unit)"
            raise DataError(
                f"X has {what} at row {row}, {column_label(names, col)}; {accepted}",
                row=row,
                detail=f"{column_named(names, col)} holds {what}; {accepted}",
            )
        return X

    def summarize(self, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Sample:
        return Sample.of(X, R)

    def parameter_size(self, stats: Sample) -> int:
        """What :meth:`finalize` holds at once: the weights and a few copies of the rows
        (centred, transformed, per class entry), the entries' widths and coefficients, the
        width search's scores (rows × classes × factors), and for mahalanobis what the
        multivariate normal family allocates for the pooled scatter (d × d stacks): a model
        file is checked against it before any is allocated."""
        k, n, d = stats.n_classes, stats.n_rows, stats.n_features
        entries = int(np.count_nonzero(stats.weight))
        size = 2 * k * n + 3 * n * d + entries * (d + 4) + n * k * (len(SEARCH_FACTORS) + 2)
        if self.metric == "mahalanobis":
            from .mvnormal import work_size

            size += work_size(k, d)
        return size

    # ------------------------------------------------------------------ finalize
    def finalize(self, stats: Sample) -> ParzenParams:
        kernel, metric, p, bandwidth, adaptive = self.check()
        # Removed rows cancelled, and rows repeated under fractional weights merged: the
        # leave-one-out rules leave min(w, 1) of each row out (see Sample.netted).
        sample = stats.netted().without_empty(0.0)
        W = np.maximum(sample.weight, 0.0)  # (n_classes, n_rows)
        values = sample.values
        n_classes, d = W.shape[0], sample.n_features
        cls, rows = np.nonzero(W)  # class-major: each class's rows together, in sample order
        class_ptr = np.searchsorted(cls, np.arange(n_classes + 1))
        class_weight = W.sum(axis=1)
        log_weight = np.log(W[cls, rows]) - np.log(class_weight[cls])

        moved = self._transform_of(values, W, metric)
        if moved.singular is not None:
            # Recorded, refused when the model is used (check_usable): a stream may start
            # with fewer rows than features. No rows and no width (0, not NaN: the template
            # refuses NaN parameters as overflow, and this is not one).
            empty = np.zeros(0)
            return ParzenParams(
                np.zeros((0, d)), np.zeros(n_classes + 1, dtype=np.int64),
                np.zeros(0, dtype=np.int64), empty, empty, 0.0, moved, kernel, metric, p,
            )  # fmt: skip
        T = moved.apply(values)
        d = T.shape[1]
        sigma = _pooled_spread(T, W, cls, rows, metric, p) / pk.kernel_spread(kernel, d)
        scott = _rule("scott", sigma, class_weight, d)
        # (T is in units of ``moved.scale`` times ρ's for tiny data; mahalanobis and cosine
        # distances have no units)
        unit = moved.scale if metric not in ("mahalanobis", "cosine") else 1.0
        if isinstance(bandwidth, float):
            h0 = bandwidth * unit
        elif bandwidth in ("scott", "silverman"):
            h0 = _rule(bandwidth, sigma, class_weight, d)
        else:
            h0 = scott
        if adaptive is None:
            ratio = np.ones(len(rows))
        elif self.known_ratio is not None and self.known_ratio[0] is stats:
            ratio = self.known_ratio[1]
            if ratio.shape != (len(rows),):
                raise ParameterError(
                    f"{len(ratio)} adaptive widths are stored for a sample of {len(rows)} entries"
                )
        else:
            ratio = _adaptive_ratio(T[rows], W[cls, rows], class_ptr, adaptive, metric, p)
        V = T[rows]
        log_det = moved.log_det
        search: dict[str, np.ndarray] = {}
        if isinstance(bandwidth, str) and bandwidth in ("loo-likelihood", "cv-accuracy"):
            known = self.known_search
            if known is not None and known[0] is stats:
                search = known[1]
            else:
                search = self._search(T, W, V, class_ptr, cls, rows, h0 * ratio, log_det)
            h0 *= best_factor(bandwidth, search)
        h = h0 * ratio
        if isinstance(bandwidth, float) and len(h):  # (the rules' widths follow the data)
            self._check_width(float(h.min()), unit, kernel)
        coef = log_weight - pk.log_kernel_norm(kernel, metric, d, h, p) - log_det
        return ParzenParams(
            V, class_ptr, rows, h, coef, float(h0 / unit), moved, kernel, metric, p, search,
            None if adaptive is None else ratio,
        )  # fmt: skip

    def _check_width(self, h: float, unit: float, kernel: str) -> None:
        """Refuse a width (in T's units) whose kernel float64 cannot evaluate: the gaussian
        takes ``ρ² / (2h²)``, whose ``1 / (2h²)`` is infinite below about 1e-154 (then every
        term was NaN or −inf and the prior decided every row), the others ``ρ / h``."""
        scale = h * h if kernel == "gaussian" else h  # (h * h is 0.0 below about 1e-162)
        if scale > 0 and math.isfinite((0.5 if kernel == "gaussian" else 1.0) / scale):
            return
        smallest = (_NARROWEST_GAUSSIAN if kernel == "gaussian" else _NARROWEST) / unit
        raise ParameterError(
            f"bandwidth={self.bandwidth!r} gives a width of {h / unit:g}, too narrow for the "
            f"{kernel} kernel in float64 on this data; use a width of at least {smallest:g} "
            "(in the units of the distance) or a rule such as 'scott'"
        )

    def _transform_of(self, values: np.ndarray, W: np.ndarray, metric: str) -> Transform:
        """Where rows are moved for the distance: centred on the pooled mean (all rows count);
        for mahalanobis, whitened by the pooled within-class covariance. Rows whose centred
        values are all tiny (below 2^-200) are first scaled up by a power of two (exact):
        their squared differences, and their variances, would underflow float64, and every
        class's density with them."""
        d = values.shape[1]
        total = W.sum(axis=0)
        if metric == "cosine" or total.sum() == 0:
            return Transform(metric, np.zeros(d))
        # (weights near float64's limits scaled by a power of two: their products with the
        # values would overflow)
        scaled = np.ldexp(total, -weight_exponent(total))
        shift = (scaled @ values) / scaled.sum()
        used = values[total > 0]
        largest = float(np.abs(used - shift).max(initial=0.0))
        scale = float(bw.tiny_scale(np.array(largest)))
        if metric != "mahalanobis":
            return Transform(metric, shift * scale, scale=scale)
        return mahalanobis_transform(values * scale, W, scale)

    def _search(
        self,
        T: np.ndarray,
        W: np.ndarray,
        V: np.ndarray,
        class_ptr: np.ndarray,
        cls: np.ndarray,
        rows: np.ndarray,
        h: np.ndarray,
        log_det: float,
    ) -> dict[str, np.ndarray]:
        """The leave-one-out scores of every factor of the width (see :func:`best_factor`)."""
        kernel, metric, p = str(self.kernel), str(self.metric), float(self.p)
        d = T.shape[1]
        scales = SEARCH_FACTORS
        w = W[cls, rows]
        class_weight = W.sum(axis=1)
        log_weight = np.log(w) - np.log(class_weight[cls])
        coef = (
            log_weight[:, None]
            - pk.log_kernel_norm(kernel, metric, d, h[:, None] * scales[None, :], p)
            - log_det
        )
        # A row of weight w stands for w rows: one of them (weight u = min(w, 1)) is left
        # out at a time, the rest of its weight stays, and each copy is scored.
        with np.errstate(divide="ignore"):
            own = np.log(np.maximum(w - 1.0, 0.0)) - np.log(w)
        out = pk.kernel_sums(
            T, V, class_ptr, coef, 1.0 / h, scales,
            kernel=kernel, metric=metric, p=p, source=rows, skip=np.arange(len(T)), own=own,
        )  # fmt: skip
        # Leave-one-out normalisers: W_y − u instead of W_y for the row's own classes.
        rest = class_weight[:, None] - np.minimum(W, 1.0)
        counted = (W > 0) & (rest > 0)  # a class of a single row has nothing left
        with np.errstate(divide="ignore", invalid="ignore"):
            adjust = np.where(counted, np.log(class_weight)[:, None] - np.log(rest), 0.0)
        loo = out + adjust.T[:, :, None]
        weight = np.where(counted, W, 0.0).T  # (n_rows, n_classes)
        # The factors compared with the weights scaled by a power of two (weights near
        # float64's limits times the log-likelihoods would overflow; ordinary ones stay).
        scaled = np.ldexp(weight, -weight_exponent(weight))
        with np.errstate(invalid="ignore", over="ignore"):
            terms = np.where(scaled[:, :, None] > 0, scaled[:, :, None] * loo, 0.0)
            likelihood = terms.sum(axis=(0, 1))
        if np.isnan(likelihood).any() or (likelihood == np.inf).any():
            raise DataError(
                f"bandwidth={self.bandwidth!r}: the leave-one-out log-likelihood of a width "
                "overflows float64 (values or sample weights near its limits); rescale them"
            )
        with np.errstate(divide="ignore"):
            prior = np.log(class_weight) - np.log(class_weight.sum())
        decided = np.argmax(loo + prior[None, :, None], axis=1)  # (n_rows, n_scales)
        right = np.take_along_axis(W.T, decided, axis=1).sum(axis=0)
        # The two sums add the same weights in different orders: their ratio may pass 1 by
        # a rounding step (weights of 1e150), which a saved model must not carry.
        accuracy = np.minimum(right / W.sum(), 1.0)
        return {"factors": scales.copy(), "log_likelihood": likelihood, "accuracy": accuracy}

    # ------------------------------------------------------------------ scoring
    def check_usable(self, params: ParzenParams, classes: np.ndarray, names: Any) -> None:
        problem = params.transform.singular
        if problem is not None:
            raise SingularCovarianceError(
                f"metric='mahalanobis' needs a regular pooled within-class covariance: "
                f"{problem(names)}; drop the collinear or constant columns, or use another metric"
            )

    def log_prob(self, params: ParzenParams, X: np.ndarray) -> np.ndarray:
        self.check_usable(params, np.zeros(0), None)
        Z = params.transform.apply(X)
        return pk.kernel_sums(
            Z,
            params.values,
            params.class_ptr,
            params.coef[:, None],
            1.0 / params.h,
            np.ones(1),
            kernel=params.kernel,
            metric=params.metric,
            p=params.p,
        )[:, :, 0]


@dataclass(frozen=True)
class Transform:
    """Rows as the distance sees them: ``x − shift`` (on the columns ``keep``), whitened by
    ``L⁻¹`` for mahalanobis, or normalised to unit length for cosine (an all-zero row stays
    zero). ``log_det`` is ``ln det L`` (0 without whitening): the whitened window's volume."""

    metric: str
    shift: np.ndarray
    whiten: np.ndarray | None = None
    keep: np.ndarray | None = None
    #: why the transform cannot be used (given the column names), or None
    singular: Callable[[Any], str] | None = None

    #: a power of two the rows are multiplied by first (1 unless they are tiny)
    scale: float = 1.0

    @property
    def log_det(self) -> float:
        """``ln`` of the Jacobian from T's space back to the rows' (``ln det L``, less
        ``d ln scale`` when scaled)."""
        if self.metric == "cosine":
            return 0.0
        d = len(self.shift)
        out = -d * math.log(self.scale) if self.scale != 1.0 else 0.0
        return out + (0.0 if self.whiten is None else float(np.log(np.diag(self.whiten)).sum()))

    def apply(self, X: np.ndarray) -> np.ndarray:
        if self.metric == "cosine":
            # each row divided by its largest magnitude first: the squares of a row of tiny
            # values (1e-160) underflow to 0, which would make it the all-zero row
            top = np.abs(X).max(axis=1, initial=0.0)[:, None]
            X = np.divide(X, top, out=np.zeros_like(X), where=top > 0)
            norm = np.sqrt(np.einsum("ij,ij->i", X, X))
            return np.divide(X, norm[:, None], out=np.zeros_like(X), where=norm[:, None] > 0)
        X = X if self.keep is None else X[:, self.keep]
        Z = (X * self.scale if self.scale != 1.0 else X) - self.shift
        if self.whiten is not None:
            Z = linalg.solve_triangular(self.whiten, Z.T, lower=True).T
        return np.ascontiguousarray(Z)


def mahalanobis_transform(values: np.ndarray, W: np.ndarray, scale: float = 1.0) -> Transform:
    """Whitening by the pooled within-class covariance, estimated by the multivariate normal
    family (``pooling=1``) from the sample's scatter statistic: its Cholesky factor, on the
    columns it keeps (a column constant in every row carries no distance and is left out).
    A singular covariance is recorded in the transform (see :meth:`Parzen.check_usable`)."""
    from .mvnormal import MVNormal, describe_singular

    family = MVNormal(pooling=1.0)
    params = family.finalize(family.summarize(values, W.T))
    if params.singular or params.factor is None:
        first = params.singular[0] if params.singular else None

        def problem(names: Any) -> str:
            if first is None:
                return "there are no rows to estimate it from"
            return describe_singular(first, None, names, params)

        return Transform("mahalanobis", np.zeros(0), singular=problem)
    return Transform("mahalanobis", params.reference, params.factor[0], params.keep, scale=scale)


def _pooled_spread(
    T: np.ndarray, W: np.ndarray, cls: np.ndarray, rows: np.ndarray, metric: str, p: float
) -> float:
    """σ̄: the root of the pooled within-class variance averaged over the features (of all
    the rows when every class is constant, 1 when they all coincide), in the units of ρ: for
    a metric other than euclidean (or mahalanobis, euclidean after whitening) scaled by the
    ratio of the rows' mean ρ-distance to their class mean and their mean euclidean one."""
    # One class per row (the usual case) is the compiled labelled path: no matrix products.
    moments = Moments.of(T, sp.csr_matrix(W.T))
    total = moments.weight.sum(axis=0)
    within = np.divide(moments.m2.sum(axis=0), total, out=np.zeros_like(total), where=total > 0)
    spread = float(np.sqrt(within.mean())) if within.size else 0.0
    if spread == 0:
        everything = moments.pooled().variance[0]
        spread = float(np.sqrt(everything.mean())) if everything.size else 0.0
    if spread == 0:
        return 1.0
    if metric in ("euclidean", "mahalanobis"):
        return spread
    centre = moments.mean[cls]
    diff = np.abs(T[rows] - centre)
    euclid = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    if metric == "manhattan":
        rho = diff.sum(axis=1)
    elif metric == "chebyshev":
        rho = diff.max(axis=1, initial=0.0)
    elif metric == "minkowski":  # scaled by the largest difference: no overflow, whatever p
        top = diff.max(axis=1, initial=0.0)
        scaled = np.divide(diff, top[:, None], out=np.zeros_like(diff), where=top[:, None] > 0)
        rho = top * (scaled**p).sum(axis=1) ** (1.0 / p)
    else:  # cosine: to the class's mean direction
        norm = np.sqrt(np.einsum("ij,ij->i", centre, centre))
        unit = np.divide(centre, norm[:, None], out=np.zeros_like(centre), where=norm[:, None] > 0)
        # (1 − cos θ rounds below 0 for rows of one direction: a distance is never negative)
        rho = np.maximum(1.0 - np.einsum("ij,ij->i", T[rows], unit), 0.0)
    w = W[cls, rows]
    if metric == "cosine" and not float(w @ rho) > _COSINE_ROUNDING * float(w.sum()):
        # Every row in its class's direction (1 − cos θ within rounding of 0): the rows
        # coincide for this metric, and ρ (in [0, 2]) gets the width 1 coinciding rows get.
        return 1.0
    mean_euclid = float(w @ euclid)
    return spread * float(w @ rho) / mean_euclid if mean_euclid > 0 else spread


#: 1 − cos θ of two rows of one direction, computed, is a few ulps of 1 (either sign).
_COSINE_ROUNDING = 64 * float(np.finfo(np.float64).eps)


def best_factor(rule: str, search: dict[str, np.ndarray]) -> float:
    """The factor of Scott's width a search chose: the largest leave-one-out likelihood, or
    the best accuracy with ties to the larger likelihood."""
    likelihood, accuracy = search["log_likelihood"], search["accuracy"]
    key = (accuracy, likelihood) if rule == "cv-accuracy" else (likelihood,)
    order = np.lexsort(tuple(reversed(key)))  # last key first: primary is key[0]
    return float(search["factors"][int(order[-1])])


def check_search(search: dict[str, Any]) -> str | None:
    """Why a stored width search cannot be one :meth:`Parzen._search` made, or None."""
    written = {"factors", "log_likelihood", "accuracy"}
    newer = sorted(set(search) - written, key=str)
    if newer:
        return (
            f"it holds {newer[0]!r}, which this bayeskit does not write (a file of a newer "
            "bayeskit? load it with the version that wrote it)"
        )
    if set(search) != written:
        return "it must hold factors, log_likelihood and accuracy"
    arrays = [np.asarray(search[k]) for k in ("factors", "log_likelihood", "accuracy")]
    if any(a.shape != SEARCH_FACTORS.shape or a.dtype.kind != "f" for a in arrays):
        return f"each must be {len(SEARCH_FACTORS)} floats"
    factors, likelihood, accuracy = arrays
    if not np.array_equal(factors, SEARCH_FACTORS):
        return "its factors are not the ones searched"
    if np.isnan(likelihood).any() or (likelihood == np.inf).any():
        return "a log-likelihood is NaN or +inf"
    if not ((accuracy >= 0) & (accuracy <= 1)).all():
        return "an accuracy is outside [0, 1]"
    return None


def _rule(rule: str, sigma: float, class_weight: np.ndarray, d: int) -> float:
    """Scott's or Silverman's width of each class, averaged weighted by the classes'
    weights."""
    n = np.where(class_weight > 0, class_weight, 1.0)
    if rule == "scott":
        per_class = sigma * n ** (-1.0 / (d + 4))
    else:
        per_class = sigma * (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))
    return float((per_class * class_weight).sum() / class_weight.sum())


class _MinkowskiNeighbours:
    """The nearest rows of ``V`` by the Minkowski distance, each distance scaled by the
    row pair's largest difference as the window's own are (scikit-learn's p-th powers of
    differences overflow, or underflow to 0, for a large p: the neighbours, and with them
    the adaptive widths, changed with the scale of the data). By blocks of query rows."""

    def __init__(self, V: np.ndarray, p: float) -> None:
        self.V = V
        self.p = p

    def kneighbors(self, Q: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
        n, d = self.V.shape
        found = np.empty((len(Q), n_neighbors))
        index = np.empty((len(Q), n_neighbors), dtype=np.intp)
        block = max(1, (1 << 22) // max(n * d, 1))  # ~32 MB of differences at a time
        for start in range(0, len(Q), block):
            diff = np.abs(Q[start : start + block, None, :] - self.V[None, :, :])
            top = diff.max(axis=2, initial=0.0)
            scaled = np.divide(
                diff, top[..., None], out=np.zeros_like(diff), where=top[..., None] > 0
            )
            rho = top * (scaled**self.p).sum(axis=2) ** (1.0 / self.p)
            nearest = (
                np.argpartition(rho, n_neighbors - 1, axis=1)[:, :n_neighbors]
                if n_neighbors < n
                else np.broadcast_to(np.arange(n), rho.shape)
            )
            near = np.take_along_axis(rho, nearest, axis=1)
            order = np.argsort(near, axis=1, kind="stable")
            found[start : start + block] = np.take_along_axis(near, order, axis=1)
            index[start : start + block] = np.take_along_axis(nearest, order, axis=1)
        return found, index


def _adaptive_ratio(
    V: np.ndarray, w: np.ndarray, class_ptr: np.ndarray, k: int, metric: str, p: float
) -> np.ndarray:
    """``d_k(x_i) / g_y`` for every entry: the distance within which its class's other rows
    weigh k (a row of weight w counting as w rows, one unit of the entry itself left out),
    over the class's weighted geometric mean of them (1 for a class of one row)."""
    from sklearn.neighbors import NearestNeighbors

    names = {"mahalanobis": "euclidean"}
    ratio = np.ones(len(V))
    for c in range(len(class_ptr) - 1):
        a, b = int(class_ptr[c]), int(class_ptr[c + 1])
        n = b - a
        if n < 2:
            continue
        nn = (
            _MinkowskiNeighbours(V[a:b], p)
            if metric == "minkowski"
            else NearestNeighbors(metric=names.get(metric, metric), p=p).fit(V[a:b])
        )
        weight = w[a:b]
        dist = np.full(n, np.nan)
        todo = np.arange(n)
        count = min(n, k + 1)
        while len(todo):
            found, index = nn.kneighbors(V[a:b][todo], n_neighbors=count)
            self_hit = index == todo[:, None]
            shares = weight[index] - self_hit * np.minimum(weight[todo], 1.0)[:, None]
            reached = np.cumsum(shares, axis=1) >= k - 1e-12
            done = reached.any(axis=1) | (count == n)
            first = np.where(reached.any(axis=1), reached.argmax(axis=1), count - 1)
            dist[todo[done]] = found[done, first[done]]
            todo = todo[~done]
            count = min(n, 2 * count)
        positive = dist > 0
        if not positive.any():
            continue
        typical = float(np.exp(weight[positive] @ np.log(dist[positive]) / weight[positive].sum()))
        ratio[a:b] = np.maximum(dist, _ADAPTIVE_FLOOR * typical) / typical
    return ratio
