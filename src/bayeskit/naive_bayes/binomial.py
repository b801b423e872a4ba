"""Binomial Naive Bayes: counts out of a known number of trials."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..contract import Contract
from ..families.binomial import Binomial
from ._numeric import NumericNB


class BinomialNB(NumericNB):
    """Naive Bayes for counts out of ``k`` trials: ``x_j ~ Binomial(k_j, p_cj)`` in class c.

    ``ln p(x|c) = Σ_j ln C(k_j, x_j) + x_j ln p_cj + (k_j − x_j) ln(1 − p_cj)`` (the binomial pmf;
    binomial row), linear in ``x``. ``p_cj = (S_cj + α) / (w_cj k_j + 2α)``: the posterior
    mean under a Beta(α, α) prior, with ``S`` the weighted successes and ``w`` the weight of
    the rows where feature j is observed. ``n_trials=1`` is Bernoulli NB (on 0/1 data).

    Every value must be a whole number from 0 to ``k_j``: a negative, fractional or too large
    count raises :class:`~bayeskit.errors.DataError` naming the row, column and value. NaN
    marks a missing value, whose term drops out in fitting and prediction; CSR input stays
    sparse.

    Parameters
    ----------
    n_trials : int or array-like of shape (n_features,)
        ``k``: the number of trials each count is out of, for every feature or per feature
        (e.g. 16 for scikit-learn's 8×8 digits, whose pixels are counts 0..16). Required (the
        default None raises :class:`~bayeskit.errors.ParameterError` at fit). The counts are
        learned as counts out of ``n_trials``: a fitted model whose ``n_trials`` changes
        (``set_params``) predicts and learns again only after ``fit``.
    alpha : float or array-like of shape (n_features,), default=1.0
        Beta(α, α) prior on each ``p_cj`` (α = 1: Laplace smoothing).
    estimate : {"mean", "map", "mle"}, default="mean"
        Posterior mean, posterior mode ``(S + α − 1)/(w k + 2α − 2)`` (needs α ≥ 1) or
        maximum likelihood.
    fit_prior, class_prior, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`. ``stats_`` holds per-class
        :class:`~bayeskit.stats.Counts`: row weights, count totals and the weight of rows
        missing each feature (the statistic of the multinomial and Bernoulli families).
    feature_prob_ : ndarray of shape (n_classes, n_features)
        ``p_cj``, the success probability of one trial.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``ln p_cj``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.naive_bayes.binomial import BinomialNB
    >>> X = np.array([[5, 0], [4, 1], [1, 4], [0, 3]])  # answers right out of 5 questions
    >>> y = np.array(["pass", "pass", "fail", "fail"])
    >>> model = BinomialNB(n_trials=5).fit(X, y)
    >>> model.feature_prob_.round(3).tolist()  # (S + 1) / (2·5 + 2)
    [[0.167, 0.667], [0.833, 0.167]]
    >>> model.predict([[4, 0], [1, np.nan]])
    array(['pass', 'fail'], dtype='<U4')
    """

    #: counts of events per row (:mod:`bayeskit.contract`); each count was checked against
    #: ``n_trials`` as it was learned, and the statistics keep only sums, so a fitted model
    #: whose ``n_trials`` changes waits for a fit (as :class:`~bayeskit.BernoulliNB`'s
    #: ``binarize`` does)
    contract: ClassVar[Contract] = Contract(
        input="counts", sums_columns=True, refit_settings=("n_trials",)
    )

    def __init__(
        self,
        *,
        n_trials: Any = None,
        alpha: Any = 1.0,
        estimate: str = "mean",
        fit_prior: bool = True,
        class_prior: Any = None,
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.n_trials = n_trials
        self.alpha = alpha
        self.estimate = estimate
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [Binomial(self.n_trials, alpha=self.alpha, estimate=self.estimate)]

    @property
    def feature_prob_(self) -> np.ndarray:
        """``p_cj``, the probability of success of one trial of feature j in class c."""
        return np.exp(self._fitted()[1][0].log_prob)

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """``ln p_cj``."""
        return self._fitted()[1][0].log_prob

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        # Whole-number input: scikit-learn's checks then feed rounded non-negative codes (as
        # for its CategoricalNB) instead of arbitrary floats, which no count model takes.
        tags.input_tags.categorical = True
        return tags
