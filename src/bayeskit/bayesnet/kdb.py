"""k-dependence Bayesian classifier (Sahami 1996)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ..contract import Contract
from ._estimator import TreeClassifier
from ._family import KDB


class KDBClassifier(TreeClassifier):
    """k-dependence Bayesian classifier: each feature depends on the class and ``k`` others.

    Sahami's (1996) structure: the features are taken in decreasing mutual information with
    the class ``I(X_i; Y)``; each takes as parents the (up to) ``k`` features before it with
    the largest ``I(X_i; X_j | Y)``. ``k = 0`` is naive Bayes. The statistic holds the
    class-conditional counts of every subset of up to ``k + 1`` features, so that any
    structure the data may call for can be read from it: fitting, ``partial_fit``, merging,
    unlearning and distributed fitting stay exact, at a memory cost growing as ``V^(k+1)
    d^(k+1)``; tables beyond 2^27 numbers are refused with
    :class:`~bayeskit.errors.CountTableTooLargeError`.

    Columns, cut points, missing values and smoothing are as for
    :class:`~bayeskit.TANClassifier`; a row missing any parent of ``x_i`` scores ``P(x_i |
    y)`` for it.

    Parameters
    ----------
    k : int, default=1
        Parents per feature besides the class, 0 to 3. It sets which feature subsets are
        counted, so changing it on a fitted model leaves the model waiting for ``fit``.
    alpha, force_alpha, estimate, discretize, fit_prior, class_prior, prior_alpha,
    class_weight, loss
        As for :class:`~bayeskit.TANClassifier`.

    Attributes
    ----------
    parents_ : dict
        Each feature's parents by name.
    conditional_information_, class_information_, cut_points_, categories_, classes_,
    class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.TANClassifier`.

    Examples
    --------
    >>> from bayeskit import KDBClassifier
    >>> X = [["hot", "dry", "no"], ["hot", "wet", "yes"], ["cold", "wet", "yes"],
    ...      ["cold", "dry", "no"], ["hot", "dry", "no"], ["cold", "wet", "yes"]]
    >>> y = ["out", "in", "in", "out", "out", "in"]
    >>> model = KDBClassifier(k=2).fit(X, y)
    >>> model.parents_
    {'x0': ('x1', 'x2'), 'x1': (), 'x2': ('x1',)}
    >>> model.predict([["cold", "dry", "no"]])
    array(['out'], dtype='<U3')
    """

    #: ``k`` sets which feature subsets are counted (up to ``k + 1`` features each), so a
    #: fitted model's counts cannot serve another ``k``; ``discretize`` as for every network.
    #: Sahami's greedy structure need not maximise the likelihood: EM over it is a heuristic.
    contract: ClassVar[Contract] = dataclasses.replace(
        TreeClassifier.contract, refit_settings=("discretize", "k"), em_maximizes=False
    )

    def __init__(
        self,
        *,
        k: int = 1,
        alpha: Any = 1.0,
        force_alpha: bool = True,
        estimate: str = "mean",
        discretize: str = "floats",
        fit_prior: bool = True,
        class_prior: Any = None,
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.k = k
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate
        self.discretize = discretize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    def _families(self) -> list[Any]:
        return [KDB(self.k, self.alpha, force_alpha=self.force_alpha, estimate=self.estimate)]
