"""UsefulnessSelector: a scikit-learn feature selector keeping the most useful features
(Vorontsov's usefulness). Importable as ``bayeskit.inspection.UsefulnessSelector``; a module
of its own so that importing :mod:`bayeskit.inspection` (the text models do) does not import
scikit-learn's feature_selection package (~0.3 s)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from ._usefulness import check_selection, check_settings, feature_usefulness, top_useful
from .errors import DataError


class UsefulnessSelector(SelectorMixin, BaseEstimator):
    """Keep the features with the highest usefulness ``max_y p(y|j)`` (Vorontsov's lectures).

    A scikit-learn feature selector for count or presence matrices: it drops stop words and
    words every class uses alike. Keeps the ``k`` most useful features, or those at least
    ``threshold`` useful (both: the ``k`` best among those); a ``k`` at or above the number
    of features keeps them all. Missing values (NaN) count as no events, as
    :class:`~bayeskit.MultinomialNB` counts them.

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
        """Score every feature by its usefulness and choose those to keep.

        Raises
        ------
        ParameterError
            ``k``, ``threshold``, ``alpha`` or ``prior`` of a kind not accepted.
        DataError
            Fewer than two classes in ``y`` (no feature tells one class from another), or
            what :class:`~bayeskit.MultinomialNB` refuses (negative counts, …).
            A refused fit leaves the selector as it was.
        """
        from .naive_bayes import MultinomialNB

        check_settings(alpha=self.alpha, prior=self.prior)
        check_selection(k=self.k, threshold=self.threshold)
        model = MultinomialNB().fit(X, y)
        if int(np.count_nonzero(model.class_count_ > 0)) < 2:
            raise DataError(
                f"UsefulnessSelector needs rows of two classes or more to tell them apart; "
                f"y holds one class only, {model.classes_[model.class_count_ > 0].tolist()!r}"
            )
        useful = feature_usefulness(model, alpha=self.alpha, prior=self.prior)
        support = top_useful(useful, k=self.k, threshold=self.threshold)
        # (set together, once nothing can be refused: a refused fit changes nothing)
        self.n_features_in_ = model.n_features_in_
        # A DataFrame's column names, so that get_feature_names_out gives them back.
        names = getattr(model, "feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = names
        else:
            self.__dict__.pop("feature_names_in_", None)
        self.usefulness_, self.support_ = useful, support
        return self

    def transform(self, X: Any) -> Any:
        """The columns of ``X`` kept (missing values stay missing).

        Raises
        ------
        ShapeError
            ``X`` of another number of columns (or other column names) than the fit's.
        """
        from sklearn.utils.validation import check_is_fitted

        from .naive_bayes._numeric import wrap_sklearn_errors

        check_is_fitted(self)
        try:
            return super().transform(X)
        except (ValueError, TypeError) as exc:
            raise wrap_sklearn_errors(exc, type(self).__name__) from None

    def _get_support_mask(self) -> np.ndarray:
        return self.support_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # counts or presences (MultinomialNB's input): sparse, missing values, never negative
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True
        tags.input_tags.positive_only = True
        return tags
