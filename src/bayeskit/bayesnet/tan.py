"""Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._estimator import TreeClassifier
from ._family import TAN


class TANClassifier(TreeClassifier):
    """Tree-augmented naive Bayes: ``P(y) Π_i P(x_i | y, x_pa(i))`` with the features on a tree.

    Each feature depends on the class and on at most one other feature, its parent in a
    maximum-weight spanning tree over the features (Chow & Liu 1968, given the class;
    Friedman, Geiger & Goldszmidt 1997), grown by Prim's algorithm from the root, the feature
    of largest ``I(X_i; Y)``, and directed away from it (ties: the lowest-numbered feature;
    weights or informations within 1e-9 of the largest compared, and within 1e-9 nats, are
    ties, so rounding does not choose between mathematically equal edges, nor between
    features the class is independent of).
    An edge ``(i, j)`` weighs, with ``edge_weight="bayes"`` (the default), the larger Bayesian
    Dirichlet gain of making one of the two the other's parent: the log marginal likelihood
    of the child's family with the parent less without it, under the Dirichlet prior
    ``alpha`` per cell (Cooper & Herskovits 1992; Heckerman, Geiger & Chickering 1995), which
    pays for the parameters a parent adds; with ``edge_weight="cmi"`` it weighs the conditional
    mutual information ``I(X_i; X_j | Y)``, Friedman et al.'s weight, the tree of largest
    likelihood. The structure is learned from the class-conditional pair counts ``N(y, x_i,
    x_j)`` alone, when the model is finalized: ``partial_fit``, ``merge`` (``+``),
    ``unlearn`` and :func:`bayeskit.dask.fit` give exactly the model ``fit`` gives on the same
    rows, and a new batch may change the tree without the old rows.

    Columns of strings, categories, booleans and (by default) integers are categories; float
    columns are cut into intervals by Fayyad & Irani's MDL rule (as
    :class:`~bayeskit.DiscretizedNB` with ``method="mdl"``). The cut points are fixed by the
    first ``fit`` (or first ``partial_fit``) and kept by every later ``partial_fit``, merge and
    unlearning, whose data may then differ from what ``fit`` on all rows would have cut; two
    models merge only with the same cut points. To learn from batches whose first is not
    like the rest (sorted by class), fix the cut points from a sample spread over all of them
    first: ``summarize(X_sample, y_sample)`` on the unfitted model (it counts nothing), then
    ``fit_summary`` of the batches' summaries (``bayeskit train`` does so).

    Missing values (NaN, None, pandas NA, polars null) drop out of the factors they touch: a
    missing ``x_i`` drops its factor, a missing parent turns ``P(x_i | y, x_pa)`` into
    ``P(x_i | y)``. A value never seen in training counts as missing.

    Parameters
    ----------
    edge_weight : {"bayes", "cmi"}, default="bayes"
        The tree's edge weight: the Bayesian Dirichlet gain of a parent (needs ``alpha >
        0``) or the conditional mutual information.
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing of every conditional probability table: ``P(x_i = a | y, x_pa = b)
        = (N(y, a, b) + α) / (N(y, b) + α V_i)``, and the Dirichlet prior of the Bayesian
        score.
    force_alpha : bool, default=True
    estimate : {"mean", "map", "mle"}, default="mean"
        Posterior mean (Lidstone), posterior mode (``α − 1``) or maximum likelihood.
    discretize : {"floats", "numbers", "none"}, default="floats"
        Which columns are cut into MDL intervals: float columns, all numeric columns, or
        none (every distinct value a category).
    fit_prior, class_prior, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    parents_ : dict
        Each feature's parent in the tree (a 1-tuple of its name; ``()`` for the root).
    edge_weights_ : ndarray of shape (n_features, n_features)
        The tree's edge weights under ``edge_weight`` (nats).
    conditional_information_ : ndarray of shape (n_features, n_features)
        ``I(X_i; X_j | Y)`` in nats (the edge weights with ``edge_weight="cmi"``).
    class_information_ : ndarray of shape (n_features,)
        ``I(X_i; Y)``; the root is its argmax.
    cut_points_ : dict
        The MDL cut points of each numeric column.
    categories_ : list of ndarray
        The values seen of each feature (interval indices for numeric columns).
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`.

    Examples
    --------
    >>> from bayeskit import TANClassifier
    >>> X = [["hot", "dry", "no"], ["hot", "wet", "yes"], ["cold", "wet", "yes"],
    ...      ["cold", "dry", "no"], ["hot", "dry", "no"], ["cold", "wet", "yes"]]
    >>> y = ["out", "in", "in", "out", "out", "in"]
    >>> model = TANClassifier().fit(X, y)
    >>> model.parents_
    {'x0': ('x1',), 'x1': (), 'x2': ('x1',)}
    >>> model.predict([["hot", "wet", None]])
    array(['in'], dtype='<U3')
    """

    def __init__(
        self,
        *,
        edge_weight: str = "bayes",
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
        self.edge_weight = edge_weight
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
        return [
            TAN(
                self.alpha,
                force_alpha=self.force_alpha,
                estimate=self.estimate,
                edge_weight=self.edge_weight,
            )
        ]

    @property
    def edge_weights_(self) -> np.ndarray:
        """The weights the tree was chosen by (``edge_weight``), (n_features, n_features)."""
        return np.asarray(self._fitted()[1][0].edge_weight)

    @property
    def root_(self) -> str:
        """The tree's root: the feature of largest ``I(X_i; Y)``."""
        return next(name for name, parents in self.parents_.items() if not parents)
