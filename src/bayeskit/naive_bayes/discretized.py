"""Discretized Naive Bayes: real features cut into intervals, then categorical (Fayyad & Irani)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..families.discretized import Discretized, DiscretizedParams
from ._numeric import NumericNB


class DiscretizedNB(NumericNB):
    """Naive Bayes over intervals of real features: ``θ_cjb = (N_cjb + α) / (N_cj + α B_j)``.

    Each feature is cut into ``B_j`` intervals and scored as a categorical feature whose value
    is the interval ``x_j`` falls in (Fayyad & Irani). The cut points are computed from all the data
    seen, at the end, so ``fit``, ``partial_fit`` over any batches, ``merge`` and ``unlearn``
    give the same model, and ``set_params(method=…)`` re-cuts a fitted model without refitting.
    The model keeps its training rows (a :class:`~bayeskit.stats.Sample`) for that: on a
    cluster (:func:`bayeskit.dask.fit`) the fit is exact, but every training value comes back
    to the client, as it would be in memory.

    The score of a value is the probability of its interval, not a density: it is the same
    shift for every class, so posteriors and decisions do not depend on that choice. With
    ``method="width"`` the model equals scikit-learn's
    ``KBinsDiscretizer(encode="ordinal", strategy="uniform")`` followed by
    ``CategoricalNB(min_categories=n_bins)``.

    Parameters
    ----------
    method : {"mdl", "width", "frequency"}, default="mdl"
        ``"mdl"``: supervised cuts of Fayyad & Irani (1993), recursive minimum class entropy
        with the minimum description length stopping rule (a feature MDL will not cut gets one
        interval and drops out). ``"width"``: ``n_bins`` equal-width intervals over the
        observed range. ``"frequency"``: cuts at the weighted quantiles ``k / n_bins``
        (inverted CDF); tied values can leave fewer, never empty, intervals.
    n_bins : int, default=10
        Intervals per feature for ``"width"`` and ``"frequency"``; not used by ``"mdl"``.
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing (symmetric Dirichlet prior) over each feature's intervals.
    force_alpha : bool, default=True
    fit_prior, class_prior, estimate, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`.
    cut_points_ : list of ndarray
        Increasing cut points of each feature; ``x`` is in the interval above ``c`` when
        ``x >= c``. Values below the first or above the last cut fall in the end intervals.
    n_intervals_ : ndarray of shape (n_features,)
        ``B_j``, one more than the number of cuts.
    interval_count_ : list of ndarray of shape (n_classes, B_j)
        Weighted number of training rows of each class in each interval (missing values left
        out).
    feature_log_prob_ : list of ndarray of shape (n_classes, B_j)
        ``ln θ_cjb``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import DiscretizedNB
    >>> X = np.array([[1.0, 5.0], [2.0, 1.0], [3.0, 4.0], [7.0, 2.0], [8.0, 5.0], [9.0, 3.0]])
    >>> y = np.array(["low", "low", "low", "high", "high", "high"])
    >>> model = DiscretizedNB().fit(X, y)
    >>> [c.tolist() for c in model.cut_points_]  # the second feature says nothing of y
    [[5.0], []]
    >>> model.predict([[0.5, 9.0], [12.0, np.nan]])
    array(['low', 'high'], dtype='<U4')
    >>> model.set_params(method="width", n_bins=4).cut_points_[0].tolist()
    [3.0, 5.0, 7.0]
    """

    def __init__(
        self,
        *,
        method: str = "mdl",
        n_bins: int = 10,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        estimate: str = "mean",
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.method = method
        self.n_bins = n_bins
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [
            Discretized(
                self.method,
                self.n_bins,
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
            )
        ]

    def _params(self) -> DiscretizedParams:
        params: DiscretizedParams = self._fitted()[1][0]
        return params

    def _per_feature(self, flat: np.ndarray) -> list[np.ndarray]:
        off = self._params().interval_offsets
        return [flat[:, off[j] : off[j + 1]] for j in range(len(off) - 1)]

    @property
    def cut_points_(self) -> list[np.ndarray]:
        """Increasing cut points of each feature."""
        params = self._params()
        return [params.cut_points(j) for j in range(params.n_features)]

    @property
    def n_intervals_(self) -> np.ndarray:
        """Number of intervals of each feature."""
        return np.diff(self._params().interval_offsets)

    @property
    def interval_count_(self) -> list[np.ndarray]:
        """Weighted training rows of each class in each interval, one array per feature."""
        return self._per_feature(self._params().interval_count)

    @property
    def feature_log_prob_(self) -> list[np.ndarray]:
        """Log probability of each interval in each class, one array per feature."""
        return self._per_feature(self._params().feature_log_prob)
