"""Averaged one-dependence estimators (Webb, Boughton & Wang 2005)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ..contract import Contract
from ._estimator import NetworkClassifier
from ._family import AODE


class AODEClassifier(NetworkClassifier):
    """Averaged one-dependence estimators: every feature in turn the parent of all others.

    ``P(y | x) ∝ Σ_{p ∈ P(x)} P(y, x_p) Π_{i ≠ p} P(x_i | y, x_p)`` (Webb, Boughton & Wang
    2005), over the super-parents ``P(x)``: the features whose value in ``x`` occurs in at
    least ``m`` training rows (Weka's frequency limit, default 1). When no feature qualifies
    the model is naive Bayes. No structure is searched: the model averages all
    one-dependence estimators, which is why it needs only the class-conditional pair counts
    and why ``partial_fit``, ``merge`` (``+``), ``unlearn`` and :func:`bayeskit.dask.fit` are
    exact. Here ``P(y, x_p) = P(y) P(x_p | y)``, the class prior coming from the template
    (so ``class_prior``, ``class_weight`` and ``loss`` act as in every other model), and
    ``predict_joint_log_proba`` is ``ln P(y) + ln`` of the average of the ``|P(x)|``
    estimators of ``p(x | y)``.

    Columns, cut points, missing values and smoothing are as for
    :class:`~bayeskit.TANClassifier`; a missing value is neither a super-parent nor a child.

    Parameters
    ----------
    m : float, default=1
        Frequency limit: the least (weighted) number of training rows holding a value for it
        to act as a super-parent (to within 1e-9 of ``m``: weights summed in another order,
        or after an ``unlearn``, reach it to rounding).
    alpha, force_alpha, estimate, discretize, fit_prior, class_prior, prior_alpha,
    class_weight, loss
        As for :class:`~bayeskit.TANClassifier`.

    Attributes
    ----------
    class_information_, cut_points_, categories_, classes_, class_count_, class_log_prior_,
    stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.TANClassifier`.

    Examples
    --------
    >>> from bayeskit import AODEClassifier
    >>> X = [["hot", "dry", "no"], ["hot", "wet", "yes"], ["cold", "wet", "yes"],
    ...      ["cold", "dry", "no"], ["hot", "dry", "no"], ["cold", "wet", "yes"]]
    >>> y = ["out", "in", "in", "out", "out", "in"]
    >>> AODEClassifier().fit(X, y).predict([["hot", "wet", "yes"], ["cold", "dry", None]])
    array(['in', 'out'], dtype='<U3')
    """

    #: an average of one-dependence models: its log-odds has no exact share per feature, and
    #: the counts that estimate each model do not maximise the average's likelihood
    contract: ClassVar[Contract] = dataclasses.replace(
        NetworkClassifier.contract, feature_terms=False, em_maximizes=False
    )

    def __init__(
        self,
        *,
        m: float = 1,
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
        self.m = m
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
        return [AODE(self.m, self.alpha, force_alpha=self.force_alpha, estimate=self.estimate)]

    @property
    def parents_(self) -> dict[str, tuple[str, ...]]:
        """Each feature's parents besides the class: every other feature (one at a time, as
        super-parent)."""
        names = list(self._feature_names())
        self._fitted_summary()
        return {n: tuple(o for o in names if o != n) for n in names}
