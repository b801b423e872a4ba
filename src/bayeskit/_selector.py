"""UsefulnessSelector: a scikit-learn feature selector keeping the most useful features
(Vorontsov's usefulness). Importable as ``bayeskit.inspection.UsefulnessSelector``; a module
of its own so that importing :mod:`bayeskit.inspection` (the text models do) does not import
scikit-learn's feature_selection package (~0.3 s)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from ._usefulness import feature_usefulness, top_useful


class UsefulnessSelector(SelectorMixin, BaseEstimator):
    """Keep the features with the highest usefulness ``max_y p(y|j)`` (Vorontsov's lectures).

    A scikit-learn feature selector for count or presence matrices: it drops stop words and
    words every class uses alike. Keeps the ``k`` most useful features, or those at least
    ``threshold`` useful (both: the ``k`` best among those).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.inspection import UsefulnessSelector
    >>> X = np.array([[3, 1, 0], [2, 1, 0], [0, 1, 2], [0, 1, 3]])
    >>> UsefulnessSelector(k=2).fit(X, [0, 0, 1, 1]).get_support()
    array([ True, False,  True])
    """

    def __init__(
        self,
        *,
        k: int | None = None,
        threshold: float | None = None,
        alpha: float = 1.0,
        prior: str = "uniform",
    ):
        self.k = k
        self.threshold = threshold
        self.alpha = alpha
        self.prior = prior

    def fit(self, X: Any, y: Any) -> UsefulnessSelector:
        from .naive_bayes import MultinomialNB

        model = MultinomialNB().fit(X, y)
        self.n_features_in_ = model.n_features_in_
        # A DataFrame's column names, so that get_feature_names_out gives them back.
        names = getattr(model, "feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = names
        else:
            self.__dict__.pop("feature_names_in_", None)
        self.usefulness_ = feature_usefulness(model, alpha=self.alpha, prior=self.prior)
        self.support_ = top_useful(self.usefulness_, k=self.k, threshold=self.threshold)
        return self

    def _get_support_mask(self) -> np.ndarray:
        return self.support_
