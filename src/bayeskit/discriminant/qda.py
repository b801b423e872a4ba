"""Quadratic discriminant analysis: a covariance matrix per class (Vorontsov's lectures)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np

from ..contract import Contract
from ..families.mvnormal import MVNormal
from ._common import DiscriminantAnalysis, check_solver, sklearn_shrinkage

SOLVERS = ("svd", "eigen")


class QuadraticDiscriminantAnalysis(DiscriminantAnalysis):
    """Quadratic discriminant analysis: ``x | y ~ N(μ_y, Σ_y)``, a covariance per class.

    The plug-in rule ``argmax_y ln λ_y P(y) − ½ (x − μ_y)ᵀ Σ_y⁻¹ (x − μ_y) − ½ ln det Σ_y``,
    scored through a Cholesky factor of each ``Σ_y``. scikit-learn's parameters and numbers
    (``predict_proba``, ``means_``, ``covariance_`` with ``reg_param``), fitted from sufficient
    statistics, so ``partial_fit``, ``sample_weight``, sparse input, merging and ``unlearn`` are
    exact. Differences, on purpose:

    * a singular class covariance — fewer rows than features, a column constant within the
      class, collinear columns — is a :class:`~bayeskit.errors.SingularCovarianceError` naming
      the class and the column at ``fit`` (never a model that predicts wrongly, scikit-learn
      issues #14997, #32560), judged on the correlation scale: ``tol`` bounds the singular
      values of the class's standardised data, so data measured in small units is not refused
      (scikit-learn compares the eigenvalues themselves with ``tol`` and refuses UCI spambase
      and breast cancer at ``reg_param=0``);
    * ``reg_param`` applies with every solver (scikit-learn's ``"eigen"`` ignores it), and a
      class with fewer rows than features gets the full regularised matrix
      ``(1 − r) Σ_y + r I``;
    * ``solver`` is accepted for compatibility; ``shrinkage`` and ``covariance_estimator`` work
      with every solver;
    * a column with the same value in every training row is left out (it scores alike in
      every class).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Class prior probabilities; None: the class frequencies. Priors that do not sum to 1
        are renormalised with a warning (as in :class:`LinearDiscriminantAnalysis`).
    reg_param : float in [0, 1], default=0.0
        ``Σ_y ← (1 − reg_param) Σ_y + reg_param · I`` (note: the identity, in the units of
        the features).
    store_covariance : bool, default=False
        Accepted for compatibility: ``covariance_`` is always available.
    tol : float in [0, 1), default=1e-4
        A class covariance is singular when its correlation matrix has an eigenvalue at most
        ``tol²``.
    solver : {"svd", "eigen"}, default="svd"
        Accepted for compatibility; every solver gives the same model.
    shrinkage : None, "auto", float in [0, 1], "ledoit-wolf" or "oas", default=None
        Shrink each class's covariance towards the scaled identity (before ``reg_param``).
        ``"auto"`` and ``"ledoit-wolf"`` sum fourth powers of the training values: they take
        columns within 1e70 in magnitude that spread over at least 1e-70 (or not at all),
        and refuse others by name at ``fit`` (Ledoit & Wolf 2004).
    covariance_estimator : sklearn.covariance estimator, default=None
        ``EmpiricalCovariance``, ``ShrunkCovariance``, ``LedoitWolf`` or ``OAS``.
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, priors_
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray of shape (n_classes, n_features, n_features)
        Each class's covariance, regularisation included.
    rotations_ : list of ndarray of shape (n_features, n_features)
        Eigenvectors of each class covariance (scikit-learn's, up to sign), largest first.
    scalings_ : list of ndarray of shape (n_features,)
        Eigenvalues of each class covariance, largest first.
    stats_ : Summary
    n_features_in_, feature_names_in_

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import QuadraticDiscriminantAnalysis
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> model = QuadraticDiscriminantAnalysis().fit(X, y)
    >>> model.predict([[-0.8, -1]])
    array([1])
    >>> QuadraticDiscriminantAnalysis().fit(X[:4], y[:4])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayeskit.errors.SingularCovarianceError: the covariance matrix of class 2 is singular: ...
    """

    #: a covariance per class: the features interact in its log-odds (a quadratic form)
    contract: ClassVar[Contract] = dataclasses.replace(
        DiscriminantAnalysis.contract, feature_terms=False
    )

    def __init__(
        self,
        *,
        priors: Any = None,
        reg_param: float = 0.0,
        store_covariance: bool = False,
        tol: float = 1e-4,
        solver: str = "svd",
        shrinkage: Any = None,
        covariance_estimator: Any = None,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.priors = priors
        self.reg_param = reg_param
        self.store_covariance = store_covariance
        self.tol = tol
        self.solver = solver
        self.shrinkage = shrinkage
        self.covariance_estimator = covariance_estimator
        self.class_weight = class_weight
        self.loss = loss

    _fix = "set reg_param > 0 (e.g. 0.1) or shrinkage='auto', or drop the column"

    def _singular_fix(self) -> str:
        shrinkage = sklearn_shrinkage(self.shrinkage, self.covariance_estimator)
        if shrinkage is None or (not isinstance(shrinkage, str) and shrinkage == 0):
            return self._fix
        if not self._rows_all_alike():
            return self._fix
        return (
            "shrinkage towards the class's average variance cannot help a class whose rows "
            "are all alike (a single row, or copies of one); set reg_param > 0 (e.g. 0.1), "
            "or give the class more rows"
        )

    def _families(self) -> list[Any]:
        check_solver(self.solver, SOLVERS)
        return [
            MVNormal(
                0.0,
                shrinkage=sklearn_shrinkage(self.shrinkage, self.covariance_estimator),
                reg_param=self.reg_param,
                tol=self.tol,
            )
        ]

    @property
    def covariance_(self) -> np.ndarray:
        """Each class's covariance matrix, (n_classes, n_features, n_features)."""
        return self._params().covariance

    def _eigen(self) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        for cov in self.covariance_:
            values, vectors = np.linalg.eigh(cov)
            out.append((values[::-1], vectors[:, ::-1]))
        return out

    @property
    def scalings_(self) -> list[np.ndarray]:
        """Eigenvalues of each class covariance (the variances along its principal axes)."""
        return [values for values, _ in self._eigen()]

    @property
    def rotations_(self) -> list[np.ndarray]:
        """Principal axes of each class covariance (columns), largest variance first."""
        return [vectors for _, vectors in self._eigen()]
