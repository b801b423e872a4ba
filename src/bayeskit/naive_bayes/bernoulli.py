"""Bernoulli Naive Bayes: presence and absence of binary features."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from ..contract import Contract
from ..families import Bernoulli
from ..stats import Counts
from ._numeric import NumericNB


class BernoulliNB(NumericNB):
    """Naive Bayes for binary features; absent features count too.

    ``p_cj = (N_cj + α) / (N_c + 2α)`` and ``ln p(x|c) = Σ_j x_j ln p_cj + (1 − x_j) ln(1 − p_cj)``
    (McCallum & Nigam 1998). Not the same model as multinomial NB on clipped counts: a word that
    is missing from a document is evidence too. Same parameters and numbers as scikit-learn's
    ``BernoulliNB``.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,) or "auto", default=1.0
        Additive smoothing (Dirichlet/Beta prior concentration); ``"auto"`` chooses it from
        the counts, as :class:`~bayeskit.families.Bernoulli` says.
    force_alpha : bool, default=True
    binarize : float or None, default=0.0
        Threshold for turning values into presence (``x > binarize``). None: X must already be
        0/1 (other values are refused, not silently treated as counts).
    fit_prior, class_prior, estimate, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, stats_, n_features_in_
        As for :class:`~bayeskit.MultinomialNB`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of rows of each class in which each feature is present.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``ln p_cj``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import BernoulliNB
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> model = BernoulliNB().fit(X, y)
    >>> model.predict([[1, 0, 0], [0, 0, 1]])
    array(['spam', 'ham'], dtype='<U4')
    """

    #: the presence of events in each row (a count above ``binarize``): a text model's count
    #: model too, but the presence of "any unknown word" is no sum of the words' presences
    #: (:mod:`bayeskit.contract`)
    #: the presence counts are of values above ``binarize``: a new threshold needs the rows
    contract: ClassVar[Contract] = Contract(
        input="counts", sums_columns=False, refit_settings=("binarize",)
    )

    def __init__(
        self,
        *,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        binarize: float | None = 0.0,
        fit_prior: bool = True,
        class_prior: Any = None,
        estimate: str = "mean",
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [
            Bernoulli(
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
                binarize=self.binarize,
            )
        ]

    @property
    def feature_count_(self) -> np.ndarray:
        """Weighted number of rows of each class in which each feature is present."""
        return cast(Counts, self._fitted_summary().blocks[0]).total

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """``ln p_cj``, the log probability that feature j is present in class c."""
        return self._fitted()[1][0].feature_log_prob
