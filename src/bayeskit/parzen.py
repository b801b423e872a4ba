"""The Parzen-window classifier: a multivariate kernel density estimate per class."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, cast

import numpy as np

from .contract import Contract
from .errors import ModelFileError
from .families.parzen import Parzen, ParzenParams, check_search
from .naive_bayes._numeric import NumericNB

#: the width rules whose choice costs a pass over all pairs of training rows
SEARCHED = ("loo-likelihood", "cv-accuracy")


class ParzenWindowClassifier(NumericNB):
    """``a(x) = argmax_y λ_y P(y) p̂_h(x|y)`` with the Parzen window (Parzen 1962):
    ``p̂_h(x|y) = 1/(ℓ_y V_h) Σ_{x_i ∈ X_y} K(ρ(x, x_i)/h)``.

    Not naive: the kernel spans all features at once through the distance ρ (KernelNB is the
    per-feature, naive estimate). The statistic is the class samples, so ``partial_fit``,
    ``m1 + m2`` and ``unlearn`` are exact; the width, the transform for the distance and any
    adaptive widths are computed from the merged sample (see
    :mod:`bayeskit.families.parzen`). With ``kernel="gaussian"`` and ``metric="euclidean"``,
    ``predict_joint_log_proba`` is scikit-learn's ``KernelDensity(bandwidth=h)`` fitted on each
    class plus the log prior.

    Parameters
    ----------
    kernel : {"gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"}, \
default="gaussian"
        The window K (profiles as scikit-learn's KernelDensity).
    metric : {"euclidean", "manhattan", "chebyshev", "minkowski", "cosine", "mahalanobis"}, \
default="euclidean"
        The distance ρ; "mahalanobis" uses the pooled within-class covariance. The others
        add the columns as they are, so on a table whose columns are in different units the
        widest decides: scale the columns first, or use "mahalanobis" (which refuses
        collinear columns by name).
    p : float, default=2
        Minkowski exponent (``metric="minkowski"``).
    bandwidth : float or {"scott", "silverman", "loo-likelihood", "cv-accuracy"}, \
default="scott"
        The width h: a number (in ρ's units), a rule of thumb, or chosen by leave-one-out
        likelihood or leave-one-out (n-fold cross-validated) accuracy among multiples of
        Scott's width — O(n²) at fit.
    adaptive : int, optional
        k: each training row's width scaled by its distance to its k-th nearest neighbour in
        its class (relative to the class's geometric mean of them).
    priors : array-like of shape (n_classes,), optional
        Class prior probabilities; None: the class frequencies.
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_prior_
    bandwidth_ : float
        The width h used (the base width when adaptive).
    bandwidth_search_ : dict
        For the searched widths: ``factors`` (of Scott's width) tried, and the
        ``log_likelihood`` and ``accuracy`` (leave-one-out) of each.
    stats_ : Summary
        The class samples (:class:`~bayeskit.stats.Sample`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import ParzenWindowClassifier
    >>> X = np.array([[0, 0], [0.5, 0.2], [0.1, 0.6], [3, 3], [3.4, 2.8], [2.9, 3.5]])
    >>> y = np.array(["left", "left", "left", "right", "right", "right"])
    >>> model = ParzenWindowClassifier(bandwidth=0.5).fit(X, y)
    >>> model.predict([[0.3, 0.1], [3.1, 3.2]])
    array(['left', 'right'], dtype='<U5')
    >>> model.predict_proba([[0.3, 0.1]]).round(3)
    array([[1., 0.]])
    >>> model.unlearn(X[3:4], y[3:4]).class_count_  # remove a row exactly
    array([3., 2.])
    """

    fit_prior = True
    prior_alpha = 0.0

    #: a kernel over whole rows: the features interact in its log-odds
    contract: ClassVar[Contract] = dataclasses.replace(NumericNB.contract, feature_terms=False)

    def __init__(
        self,
        *,
        kernel: str = "gaussian",
        metric: str = "euclidean",
        p: float = 2.0,
        bandwidth: Any = "scott",
        adaptive: int | None = None,
        priors: Any = None,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.kernel = kernel
        self.metric = metric
        self.p = p
        self.bandwidth = bandwidth
        self.adaptive = adaptive
        self.priors = priors
        self.class_weight = class_weight
        self.loss = loss

    _prior_name = "priors"
    #: NaN is refused, not a missing value: the family checks every value (NaN, ±inf,
    #: magnitude) and names its one rule, rather than the numeric check's advice that NaN
    #: marks a missing value
    _nan_is_missing = False

    @property
    def class_prior(self) -> Any:
        """The template's fixed class prior (``priors``)."""
        return self.priors

    def _families(self) -> list[Any]:
        family = Parzen(
            self.kernel,
            metric=self.metric,
            p=self.p,
            bandwidth=self.bandwidth,
            adaptive=self.adaptive,
        )
        known = self.__dict__.get("_known")
        # What a file stored holds for the window it was computed with (either searched rule
        # picks from the same scores); a kernel, distance or adaptive width set since is
        # computed afresh.
        if known is not None and known[3] == self._window():
            block, search, ratio, _ = known
            family.known_search = None if search is None else (block, search)
            family.known_ratio = None if ratio is None else (block, ratio)
        return [family]

    # ------------------------------------------------------------------ model files
    def fitted_record(self) -> dict[str, Any] | None:
        """What a model file stores beyond the statistics, so a load does not redo work that
        grows faster than the sample: the width search's scores (an O(n²) pass) and the
        adaptive widths' factors (k-nearest-neighbour searches); None without either."""
        params = self._params()
        out: dict[str, Any] = {}
        if params.search:
            out["search"] = dict(params.search)
        if self.adaptive is not None:
            out["ratio"] = np.zeros(0) if params.ratio is None else params.ratio
        return out or None

    def set_fitted_record(self, record: Any, summary: Any) -> None:
        """Take what a file stored for ``summary`` (its statistics): a file of a searched
        width or adaptive widths without a valid record of them is refused, before any of
        that work could start."""
        searched = isinstance(self.bandwidth, str) and self.bandwidth in SEARCHED
        adaptive = self.adaptive is not None
        stored = record if isinstance(record, dict) else {}
        if record is not None and (not isinstance(record, dict) or not stored):
            raise ModelFileError("meta.json: the Parzen window's fitted record is malformed")
        newer = sorted(set(stored) - {"search", "ratio"}, key=str)
        if newer:
            # a part this version does not write, refused as a statistic block's is
            raise ModelFileError(
                f"meta.json: the Parzen window's fitted record holds {newer[0]!r}, which this "
                "bayeskit does not write (its parts: 'search', 'ratio'; a file of a newer "
                "bayeskit? load it with the version that wrote it)"
            )
        allowed = ({"search"} if searched else set()) | ({"ratio"} if adaptive else set())
        extra = set(stored) - allowed
        if extra:
            raise ModelFileError(f"meta.json: the Parzen window stores no {sorted(extra)[0]!r}")
        search = None
        if searched:
            raw = stored.get("search")
            problem = "it is missing" if not isinstance(raw, dict) else check_search(raw)
            if problem is not None:
                raise ModelFileError(
                    f"the stored width search of bandwidth={self.bandwidth!r} is invalid: {problem}"
                )
            search = {k: np.asarray(v) for k, v in cast(dict, raw).items()}
        ratio = None
        if adaptive:
            ratio = np.asarray(stored.get("ratio"))
            if (
                ratio.ndim != 1
                or ratio.dtype.kind != "f"
                or not (np.isfinite(ratio) & (ratio > 0)).all()
            ):
                raise ModelFileError(
                    f"the stored adaptive widths of adaptive={self.adaptive!r} are invalid: "
                    "they must be finite numbers > 0, one per training row of each class"
                )
        self._known = (summary.blocks[0], search, ratio, self._window())

    def _window(self) -> tuple[Any, ...]:
        return (self.kernel, self.metric, self.p, self.adaptive)

    def _params(self) -> ParzenParams:
        params: ParzenParams = self._fitted().params[0]
        return params

    @property
    def bandwidth_(self) -> float:
        """The width h (the base width when adaptive)."""
        self._check_usable()  # a singular mahalanobis covariance has no width
        return self._params().bandwidth

    @property
    def bandwidth_search_(self) -> dict[str, np.ndarray]:
        """The leave-one-out scores of the widths tried (empty unless searched)."""
        return dict(self._params().search)

    @property
    def class_prior_(self) -> np.ndarray:
        """Probability of each class."""
        return np.exp(self.class_log_prior_)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
