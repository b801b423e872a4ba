"""Friedman's regularized discriminant analysis: between QDA and LDA, and towards the identity."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from ..contract import Contract
from ..families.mvnormal import MVNormal
from ._common import DiscriminantAnalysis


class RegularizedDiscriminantAnalysis(DiscriminantAnalysis):
    """Regularized discriminant analysis (Friedman 1989): each class's covariance blended with
    the pooled one (λ) and shrunk towards the scaled identity (γ).

    ``Σ_y(λ) = ((1 − λ) S_y + λ S) / ((1 − λ) N_y + λ N)`` with the class scatter ``S_y``, the
    pooled scatter ``S = Σ_y S_y`` and the class weights ``N_y``, ``N = Σ_y N_y`` (a small class
    borrows more from the pooled matrix than a large one); then
    ``Σ_y(λ, γ) = (1 − γ) Σ_y(λ) + γ (tr Σ_y(λ) / d) I``. ``lam=0, gamma=0`` is
    :class:`QuadraticDiscriminantAnalysis`, ``lam=1, gamma=0`` is
    :class:`LinearDiscriminantAnalysis`; R's klaR has it, no Python library did. Choose λ and γ
    by cross-validation (a grid search refits from the same statistics cheaply:
    ``set_params`` on a fitted model re-estimates without touching the data).

    Parameters
    ----------
    lam : float in [0, 1], default=0.5
        Friedman's λ: 0 each class's own covariance, 1 the pooled one. The blend does not
        depend on the units of the columns.
    gamma : float in [0, 1], default=0.0
        Friedman's γ: shrinkage towards the scaled identity ``tr(Σ)/d · I``. Any ``gamma > 0``
        makes every matrix regular (as long as some column varies), but the target mixes the
        units of the columns: on features of very different scales (UCI spambase: variances
        from 1e-4 to 4e5) it drowns the small ones, so standardise them first or choose γ by
        cross-validation.
    priors : array-like of shape (n_classes,), default=None
        Class prior probabilities; None: the class frequencies. Priors that do not sum to 1
        are renormalised with a warning (as in :class:`LinearDiscriminantAnalysis`).
    tol : float in [0, 1), default=1e-4
        A covariance is singular when its correlation matrix has an eigenvalue at most
        ``tol²``.
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, priors_
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray of shape (n_classes, n_features, n_features)
        ``Σ_y(λ, γ)`` of each class.
    stats_ : Summary
    n_features_in_, feature_names_in_

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import RegularizedDiscriminantAnalysis
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2], [2, 3]])
    >>> y = np.array([1, 1, 1, 2, 2, 2, 2])
    >>> model = RegularizedDiscriminantAnalysis(lam=0.5, gamma=0.1).fit(X, y)
    >>> model.predict([[-0.8, -1], [2.5, 2.0]])
    array([1, 2])
    >>> model.covariance_[0].round(3)
    array([[0.59 , 0.27 ],
           [0.27 , 0.418]])
    """

    #: each class's own (blended) covariance: the features interact in its log-odds
    contract: ClassVar[Contract] = dataclasses.replace(
        DiscriminantAnalysis.contract, feature_terms=False
    )

    def __init__(
        self,
        *,
        lam: float = 0.5,
        gamma: float = 0.0,
        priors: Any = None,
        tol: float = 1e-4,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.lam = lam
        self.gamma = gamma
        self.priors = priors
        self.tol = tol
        self.class_weight = class_weight
        self.loss = loss

    _fix = "set gamma > 0 (e.g. 0.1), or lam closer to 1, or drop the column"

    def _singular_fix(self) -> str:
        gamma = self.gamma
        real = isinstance(gamma, (int, float)) and not isinstance(gamma, bool)
        if real and gamma > 0 and self._rows_all_alike():
            return (
                "gamma shrinks towards the matrix's average variance, which cannot help a "
                "class whose rows are all alike (a single row, or copies of one); set "
                "lam > 0 (e.g. 0.5: the class borrows the pooled covariance), or give the "
                "class more rows"
            )
        return self._fix

    def _families(self) -> list[Any]:
        return [MVNormal(self.lam, gamma=self.gamma, tol=self.tol)]

    @property
    def covariance_(self) -> np.ndarray:
        """``Σ_y(λ, γ)`` of each class, (n_classes, n_features, n_features)."""
        cov = self._params().covariance
        return np.broadcast_to(cov, (len(self.classes_), *cov.shape[1:])).copy()
