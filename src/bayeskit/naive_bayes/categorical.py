"""Categorical Naive Bayes on raw category values, with missing values and unseen values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from .._base import GenerativeClassifier
from .._validation import check_features
from ..families import Categorical
from ..families.categorical import CategoricalParams
from ..stats import CategoryCounts
from ._numeric import wrap_sklearn_errors
from ._table import refuse_dates, to_table


class CategoricalNB(GenerativeClassifier):
    """Naive Bayes for categorical features: ``θ_cjv = (N_cjv + α) / (N_cj + α K_j)``.

    Takes category values as they are — strings, ints, bools, from numpy arrays, lists, pandas or
    polars DataFrames — not only ordinal integer codes. NaN, None, pandas NA and polars null are
    missing values: the feature drops out of the product in training and in prediction
    (Duda et al. 2001, §2.10). Whole numbers >= 0 are ordinal codes, as in scikit-learn's
    ``CategoricalNB``, with the same numbers: a feature of codes has the categories ``0 … max code``
    (``n_categories_ = max + 1``, raised to ``min_categories``), so a code missing from
    training is a category with zero count. Integers that are labels rather than codes (years,
    postcodes) are better passed as strings: as codes, every number below the largest is a
    category and takes a share of the smoothing. A column to predict none of whose values was
    learned, whose values spell learned ones in the other kind (the text ``"3"`` where the
    model learned the number 3, or the reverse), is refused by name rather than scored as
    values never seen; so is a column that would be learned holding both (a batch read as
    text beside one read as numbers): one value read two ways, not two categories.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,) or "auto", default=1.0
        Additive smoothing (symmetric Dirichlet prior concentration) per feature. ``"auto"``
        chooses one among 1, 1/2, 1/4, 1/10, 1/30 and 1/100 by the leave-one-out
        log-likelihood of the class, exactly from the counts (as :class:`~bayeskit.MixedNB`
        does by default; :class:`~bayeskit.families.Categorical`).
    force_alpha : bool, default=True
    fit_prior, class_prior, estimate, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature (unobserved ones have zero counts).
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A value never seen in training: ``"smooth"`` scores it as a category with zero count,
        ``α / (N_cj + α K_j)``; ``"ignore"`` drops the feature for that row; ``"error"`` raises
        :class:`~bayeskit.errors.UnknownCategoryError` naming the column and value.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`.
    categories_ : list of ndarray
        Sorted values seen for each feature.
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Column ``v`` is code ``v`` for a feature of codes (as in scikit-learn), else the
        ``v``-th of ``categories_[j]``; columns beyond the values seen (``min_categories``)
        count 0.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
        Laid out as ``category_count_``.
    n_categories_ : ndarray of shape (n_features,)
        Categories in each feature's smoothing denominator: the values seen, ``max code +
        1`` for codes, at least ``min_categories``.

    Examples
    --------
    >>> from bayeskit import CategoricalNB
    >>> X = [["sunny", "hot"], ["sunny", "mild"], ["rain", "mild"], ["rain", "cool"],
    ...      ["overcast", "hot"], ["rain", None]]
    >>> y = ["no", "no", "yes", "yes", "yes", "yes"]
    >>> model = CategoricalNB().fit(X, y)
    >>> model.categories_[0].tolist()
    ['overcast', 'rain', 'sunny']
    >>> model.predict([["sunny", "hot"], ["rain", None], ["snow", "cool"]])
    array(['no', 'yes', 'yes'], dtype='<U3')
    """

    def __init__(
        self,
        *,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        min_categories: Any = None,
        unseen: str = "smooth",
        estimate: str = "mean",
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.unseen = unseen
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [
            Categorical(
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
                min_categories=self.min_categories,
                unseen=self.unseen,
            )
        ]

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        table, shaped = to_table(X, type(self).__name__)
        refuse_dates(table, type(self).__name__)
        try:
            check_features(self, shaped, reset=reset)
        except (ValueError, TypeError) as exc:
            raise wrap_sklearn_errors(exc) from None
        if getattr(self, "feature_names_in_", None) is not None:
            table.names = [str(n) for n in self.feature_names_in_]
        return table

    @property
    def categories_(self) -> list[np.ndarray]:
        """Sorted values seen for each feature."""
        return list(cast(CategoryCounts, self._fitted_summary().blocks[0]).categories)

    @property
    def category_count_(self) -> list[np.ndarray]:
        """Per-class counts of each category, one array per feature, padded with zeros to
        ``n_categories_`` columns (column ``v`` is code ``v`` for integer codes)."""
        params = self._fitted()[1][0]
        return _per_feature(params, params.category_count, lambda j: 0.0)

    @property
    def feature_log_prob_(self) -> list[np.ndarray]:
        """Per-class log probability of each category, one array per feature, padded to
        ``n_categories_`` columns with the probability of a category never seen (column ``v``
        is code ``v`` for integer codes)."""
        params = self._fitted()[1][0]
        return _per_feature(params, params.feature_log_prob, lambda j: params.unseen_log_prob[:, j])

    @property
    def n_categories_(self) -> np.ndarray:
        """Number of categories of each feature used in the smoothing denominators."""
        return self._fitted()[1][0].n_categories

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


def _per_feature(
    params: CategoricalParams, flat: np.ndarray, pad: Callable[[int], Any]
) -> list[np.ndarray]:
    """Feature ``j``'s columns of ``flat``, then ``pad(j)`` columns up to ``n_categories_``
    (scikit-learn's shape), except where that would be far wider than the values seen."""
    off = params.codebook.offsets
    out = []
    for j in range(len(off) - 1):
        part = flat[:, off[j] : off[j + 1]]
        missing = int(params.n_categories[j]) - part.shape[1]
        if 0 < missing <= max(1 << 16, 4 * part.shape[1]):
            fill = np.broadcast_to(np.reshape(pad(j), (-1, 1)), (part.shape[0], missing))
            part = np.hstack([part, fill])
        out.append(part)
    return out
