"""Complement Naive Bayes (Rennie et al., 2003) for imbalanced text classes."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..contract import Contract
from ..families import Complement
from .multinomial import MultinomialNB


class ComplementNB(MultinomialNB):
    """Complement Naive Bayes: each class is weighted by the complement of its word counts.

    Same parameters and numbers as scikit-learn's ``ComplementNB``. As there (and in Rennie et
    al.), the class prior is not used in scoring unless the model has a single class.

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior, estimate, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`, applied to the complement counts.
    smoothing : {"uniform", "corpus"}, default="uniform"
        As for :class:`~bayeskit.MultinomialNB`: "corpus" centres the prior of the complement
        counts on the pooled distribution of all classes (tempered by ``corpus_power``).
    corpus_power : float in [0, 1], default=0.5
        As for :class:`~bayeskit.MultinomialNB`.
    norm : bool, default=False
        Rennie et al.'s weight normalisation: divide each class's log weights by their sum.

    Attributes
    ----------
    feature_all_ : ndarray of shape (n_features,)
        Count of each feature over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The complement weights ``w_cj`` (``-ln θ̃_cj``, or normalised with ``norm=True``). A
        model of at least 2²² cells scores without this array (one weight a term, one a class
        and a correction of the cells with counts) and makes it when it is first read.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import ComplementNB
    >>> X = np.array([[5, 1, 0], [4, 0, 1], [0, 3, 4], [1, 4, 3], [0, 0, 6]])
    >>> y = np.array([0, 0, 1, 1, 2])
    >>> ComplementNB().fit(X, y).predict([[3, 0, 0], [0, 0, 5]])
    array([0, 2])
    """

    #: Scores classes without the prior, as Rennie et al. (and scikit-learn) do.
    contract: ClassVar[Contract] = Contract(
        input="counts", sums_columns=True, prior_in_scores=False
    )

    def __init__(
        self,
        *,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        norm: bool = False,
        estimate: str = "mean",
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
        smoothing: str = "uniform",
        corpus_power: float = 0.5,
    ):
        super().__init__(
            alpha=alpha,
            force_alpha=force_alpha,
            fit_prior=fit_prior,
            class_prior=class_prior,
            estimate=estimate,
            prior_alpha=prior_alpha,
            class_weight=class_weight,
            loss=loss,
            smoothing=smoothing,
            corpus_power=corpus_power,
        )
        self.norm = norm

    def _families(self) -> list[Any]:
        return [
            Complement(
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
                norm=self.norm,
                smoothing=self.smoothing,
                corpus_power=self.corpus_power,
            )
        ]

    @property
    def feature_all_(self) -> np.ndarray:
        """Count of each feature over all classes."""
        return self.feature_count_.sum(axis=0)
