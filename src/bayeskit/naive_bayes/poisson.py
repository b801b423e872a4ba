"""Poisson Naive Bayes: counts with a rate per class and feature (Vorontsov's lectures)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..contract import Contract
from ..families.poisson import Poisson
from ._numeric import NumericNB


class PoissonNB(NumericNB):
    """Naive Bayes for counts: ``x_j ~ Poisson(λ_cj)`` in class ``c``.

    ``ln p(x|c) = Σ_j x_j ln λ_cj − λ_cj − ln x_j!`` (Vorontsov): a linear classifier with
    weights ``ln λ_cj`` and a length term ``−Σ_j λ_cj``, the expected total count of the
    class. The rates are estimated from per-class means of the observed values, smoothed by
    a Gamma(α, β) prior: ``λ_cj = (S_cj + α) / (w_cj + β)`` (``S``: weighted count total,
    ``w``: weight of the rows where feature j is observed).

    With ``given_length=True`` each row is scored given its length ``N = Σ_j x_j``: Poisson
    counts conditioned on their sum are multinomial with ``π_cj = λ_cj / Σ_j λ_cj``, so the
    length term becomes ``−N ln Σ_j λ_cj`` and the posterior equals
    :class:`~bayeskit.MultinomialNB`'s with the same ``alpha`` (β cancels; with missing
    values the two differ: here a missing count is left out, there it counts as 0).

    Non-integer values are accepted (``ln x! = ln Γ(x + 1)``), as multinomial NB accepts
    tf-idf: the score is then a quasi-likelihood. Negative values and ±inf are refused; NaN
    marks a missing value, whose term drops out in fitting and prediction. Sparse (CSR)
    input stays sparse.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=0.5
        Shape of the Gamma prior: a pseudo-count added to each class total, so a feature never
        seen in a class still has a positive rate (finite log rate). The default is the
        Jeffreys prior (α = 1/2, β = 0). 0 with ``estimate="mean"`` is maximum likelihood.
    beta : float, default=0.0
        Rate of the Gamma prior: pseudo-rows added to each class weight; shrinks rates of
        small classes towards ``alpha / beta``.
    estimate : {"mean", "map", "mle"}, default="mean"
        Posterior mean ``(S + α)/(w + β)``, posterior mode ``(S + α − 1)/(w + β)`` (needs
        α ≥ 1) or maximum likelihood ``S / w`` (a count never seen in a class makes it
        impossible).
    given_length : bool, default=False
        Score rows given their total count (the multinomial model, see above).
    fit_prior, class_prior, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`. ``stats_`` holds per-class
        :class:`~bayeskit.stats.Counts`: row weights, count totals and the weight of rows
        missing each feature (the statistic of the multinomial and Bernoulli families).
    feature_rate_ : ndarray of shape (n_classes, n_features)
        ``λ_cj``. A class that never observed a feature (and ``beta=0``) gets the rate pooled
        over classes; a feature observed in no class is ignored like a missing value (rate 0).
    feature_log_rate_ : ndarray of shape (n_classes, n_features)
        ``ln λ_cj``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.naive_bayes.poisson import PoissonNB
    >>> X = np.array([[3, 0, 1], [5, 1, 0], [0, 4, 2], [1, 6, 1]])
    >>> y = np.array(["sport", "sport", "tech", "tech"])
    >>> model = PoissonNB().fit(X, y)
    >>> model.feature_rate_.tolist()  # (S + 0.5) / 2
    [[4.25, 0.75, 0.75], [0.75, 5.25, 1.75]]
    >>> model.predict([[2, 0, 0], [0, 3, np.nan]])
    array(['sport', 'tech'], dtype='<U5')
    """

    #: counts of events per row (:mod:`bayeskit.contract`)
    contract: ClassVar[Contract] = Contract(input="counts", sums_columns=True)

    def __init__(
        self,
        *,
        alpha: Any = 0.5,
        beta: float = 0.0,
        estimate: str = "mean",
        given_length: bool = False,
        fit_prior: bool = True,
        class_prior: Any = None,
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.alpha = alpha
        self.beta = beta
        self.estimate = estimate
        self.given_length = given_length
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [
            Poisson(
                self.alpha, beta=self.beta, estimate=self.estimate, given_length=self.given_length
            )
        ]

    @property
    def feature_rate_(self) -> np.ndarray:
        """``λ_cj``, the expected count of feature j in a row of class c."""
        return self._fitted()[1][0].rate

    @property
    def feature_log_rate_(self) -> np.ndarray:
        """``ln λ_cj`` (the weights of the linear classifier)."""
        return self._fitted()[1][0].log_rate

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags
