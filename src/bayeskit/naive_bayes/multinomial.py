"""Multinomial Naive Bayes: word counts or any non-negative frequencies."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from ..contract import Contract
from ..families import Multinomial
from ..stats import Counts
from ._numeric import NumericNB


class MultinomialNB(NumericNB):
    """Naive Bayes for counts (bag of words): ``θ_cj = (N_cj + α) / (N_c + αD)``.

    Same parameters and the same numbers as scikit-learn's ``MultinomialNB``, plus the choice of
    point estimate, a smoothed class prior and the Bayes decision rule with losses.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing: the concentration of a symmetric Dirichlet prior.
    force_alpha : bool, default=True
        If False, an alpha below 1e-10 is raised to 1e-10 with a warning.
    fit_prior : bool, default=True
        Learn class priors from the data; if False use a uniform prior.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed prior probabilities (must sum to 1).
    estimate : {"mean", "map", "mle"}, default="mean"
        Posterior mean (Lidstone smoothing, scikit-learn's estimate), posterior mode under a
        Dirichlet(alpha) prior (needs alpha >= 1), or maximum likelihood.
    prior_alpha : float, default=0.0
        Dirichlet smoothing of the learned class prior,
        ``(N_k + prior_alpha) / (N + K·prior_alpha)``.
    class_weight : dict, array-like, "balanced" or None, default=None
        Class loss weights λ_y of the decision rule ``argmax λ_y P(y|x)``.
    loss : array-like of shape (n_classes, n_classes), default=None
        ``loss[i, j]``: cost of deciding ``classes_[i]`` when the truth is ``classes_[j]``;
        ``predict`` then minimises the conditional risk.
    smoothing : {"uniform", "corpus"}, default="uniform"
        The mean of the Dirichlet prior. "uniform": ``α`` added to every count
        (scikit-learn's). "corpus": the prior is centred on how common each word is over all
        classes, ``θ_cj = (N_cj + αD q_j) / (N_c + αD)`` with ``q_j = N_j^γ / Σ_k N_k^γ``
        (Dirichlet smoothing, Zhai & Lafferty 2001, tempered by ``γ = corpus_power``): an
        unseen word falls back on how common it is. Same total prior strength ``αD``;
        posterior mean only; ``N_j`` is the sum of the class counts, so ``partial_fit``,
        merging and ``unlearn`` stay exact.
    corpus_power : float in [0, 1], default=0.5
        ``γ`` of the corpus prior: 0 is the uniform prior, 1 the pooled distribution itself
        (Zhai & Lafferty's), under which a word seen in one class only gets the same log-odds
        however often it was seen there (its count and its pseudo-count grow together). With
        ``γ < 1`` the pseudo-count grows as ``N_j^γ``, slower than the count, and that
        log-odds grows with the count, as ``ln(1 + c N_j^{1−γ})``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``ln θ_cj``. A model of at least 2²² cells scores without this array (one weight a
        term, one a class and a correction of the cells with counts) and makes it when it is
        first read.
    stats_ : bayeskit.stats.Summary
        The sufficient statistics; everything else is computed from them.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Only when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import MultinomialNB
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2]])
    >>> y = np.array(["sport", "sport", "tech", "tech"])
    >>> model = MultinomialNB().fit(X, y)
    >>> model.predict([[1, 0, 0], [0, 2, 1]])
    array(['sport', 'tech'], dtype='<U5')
    >>> model.predict_proba([[1, 1, 0]]).round(3)
    array([[0.61, 0.39]])
    """

    #: counts of events per row (:mod:`bayeskit.contract`)
    contract: ClassVar[Contract] = Contract(input="counts", sums_columns=True)

    def __init__(
        self,
        *,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        estimate: str = "mean",
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
        smoothing: str = "uniform",
        corpus_power: float = 0.5,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss
        self.smoothing = smoothing
        self.corpus_power = corpus_power

    def _families(self) -> list[Any]:
        return [
            Multinomial(
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
                smoothing=self.smoothing,
                corpus_power=self.corpus_power,
            )
        ]

    @property
    def feature_count_(self) -> np.ndarray:
        """Weighted count of each feature in each class."""
        return cast(Counts, self._fitted_summary().blocks[0]).total

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """Log probability of each feature given the class, ``ln θ_cj``."""
        return self._fitted()[1][0].feature_log_prob

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags
