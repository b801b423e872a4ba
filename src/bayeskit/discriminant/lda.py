"""Fisher's linear discriminant: one covariance matrix shared by every class (Fisher 1936)."""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np

from .._params import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from ..errors import CollinearColumnsWarning, DataError, ParameterError
from ..families.mvnormal import MVNormal
from ..stats import Scatter
from ._common import DiscriminantAnalysis, check_solver, renormalised, sklearn_shrinkage

SOLVERS = ("svd", "lsqr", "eigen")


class LinearDiscriminantAnalysis(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, DiscriminantAnalysis
):
    """Linear discriminant analysis: ``x | y ~ N(μ_y, Σ)`` with one ``Σ`` for every class.

    The decision is linear (Fisher 1936): ``a(x) = argmax_y xᵀα_y + β_y`` with ``α_y = Σ⁻¹μ_y``
    and ``β_y = ln(λ_y P(y)) − ½ μ_yᵀΣ⁻¹μ_y`` — ``coef_`` and ``intercept_``, which
    :func:`bayeskit.inspection.explain` and ``bayeskit inspect`` read. :meth:`transform` projects
    onto Fisher's discriminant axes.

    scikit-learn's parameters and numbers (``predict_proba``, ``coef_``, ``intercept_``,
    ``means_``, ``covariance_``, ``explained_variance_ratio_``; ``transform`` up to the sign of
    each axis), fitted from sufficient statistics (per-class weight, mean and scatter matrix), so
    that ``partial_fit``, ``sample_weight``, sparse input, merging models (``m1 + m2``) and
    ``unlearn`` are exact — none of which scikit-learn's LDA offers. Differences, on purpose:

    * on data of full rank every solver gives the model scikit-learn's ``"lsqr"`` and
      ``"eigen"`` give (``coef_ = Σ⁻¹μ`` through a Cholesky factor; ``scalings_`` the eigen
      solver's), shrinkage works with ``"svd"`` too, and ``transform`` works with ``"lsqr"``;
    * a column with the same value in every training row is left out (coefficient 0), as
      scikit-learn's ``"svd"`` and ``"lsqr"`` solvers do, where its ``"eigen"`` solver fails;
    * rank-deficient data (collinear columns, such as a price difference stored beside both
      prices; a column constant within every class but not between them): the default
      ``solver="svd"`` works in the span of the data, as scikit-learn's ``"svd"`` solver and
      R's ``MASS::lda`` do (Venables & Ripley 2002, §12.1): the null directions of the
      within-class covariance are dropped, with a
      :class:`~bayeskit.errors.CollinearColumnsWarning` naming the columns they involve, and
      the posterior is that of the model fitted on a basis of the span (on balanced classes
      with equal priors, the predictions of scikit-learn's ``"svd"`` solver, which scales the
      covariance by ``1/(n − K)`` rather than ``1/n``). ``"lsqr"`` and ``"eigen"`` refuse
      such data with a :class:`~bayeskit.errors.SingularCovarianceError` naming the column and
      the fix. The span is found from the statistics when they are finalised, so
      ``partial_fit`` and merging stay exact;
    * ``priors`` that do not sum to 1 are renormalised with a warning, as in scikit-learn;
    * ``covariance_estimator`` takes the estimators that are functions of the covariance
      (``EmpiricalCovariance``, ``ShrunkCovariance``, ``LedoitWolf``, ``OAS``).

    Parameters
    ----------
    solver : {"svd", "lsqr", "eigen"}, default="svd"
        Every solver gives the same model on data of full rank; ``"svd"`` also fits
        rank-deficient data, in its span (Hastie, Tibshirani & Friedman 2009, §4.3.2),
        where ``"lsqr"`` and ``"eigen"`` refuse it.
    shrinkage : None, "auto", float in [0, 1], "ledoit-wolf" or "oas", default=None
        Shrink each class's covariance towards the scaled identity before pooling:
        ``"auto"`` Ledoit–Wolf on standardised features (scikit-learn's), a fixed intensity,
        Ledoit–Wolf on the raw features or OAS.
        ``"auto"`` and ``"ledoit-wolf"`` sum fourth powers of the training values: they take
        columns within 1e70 in magnitude that spread over at least 1e-70 (or not at all),
        and refuse others by name at ``fit`` (Ledoit & Wolf 2004).
    priors : array-like of shape (n_classes,), default=None
        Class prior probabilities (in the order of ``classes_``); None: the class frequencies.
        As in scikit-learn, the pooled covariance weights each class by its prior.
    n_components : int, default=None
        Axes kept by :meth:`transform` (at most ``min(n_classes − 1, n_features)``).
    store_covariance : bool, default=False
        Accepted for compatibility: ``covariance_`` is always available.
    tol : float in [0, 1), default=1e-4
        The shared covariance is singular when its correlation matrix has an eigenvalue at
        most ``tol²`` (scikit-learn's ``"svd"`` threshold on the standardised data's singular
        values).
    covariance_estimator : sklearn.covariance estimator, default=None
        ``EmpiricalCovariance()``, ``ShrunkCovariance(shrinkage=s)``, ``LedoitWolf()`` or
        ``OAS()`` (estimators that need the rows themselves are refused).
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, priors_
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray of shape (n_features, n_features)
        The shared covariance: ``Σ_k π_k Ĉ_k`` with each class's (shrunk) maximum-likelihood
        estimate ``Ĉ_k``.
    coef_ : ndarray of shape (n_classes, n_features), or (1, n_features) for two classes
    intercept_ : ndarray of shape (n_classes,), or (1,) for two classes
    scalings_ : ndarray of shape (n_features, rank)
        Fisher's discriminant axes, largest between-class variance first.
    explained_variance_ratio_ : ndarray of shape (n_components,)
    stats_ : Summary
        The sufficient statistics (a :class:`~bayeskit.stats.Scatter` block).
    n_features_in_, feature_names_in_

    References
    ----------
    .. [1] T. Hastie, R. Tibshirani and J. Friedman, The Elements of Statistical Learning,
           2nd ed., Springer, 2009, §4.3.
    .. [2] W. N. Venables and B. D. Ripley, Modern Applied Statistics with S, 4th ed.,
           Springer, 2002, §12.1 (``MASS::lda``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import LinearDiscriminantAnalysis
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearDiscriminantAnalysis().fit(X, y)
    >>> model.predict([[-0.8, -1]])
    array([1])
    >>> model.coef_.round(3) + 0.0, model.intercept_.round(3) + 0.0
    (array([[ 0., 12.]]), array([0.]))
    >>> more = LinearDiscriminantAnalysis().partial_fit(X[:3], y[:3]).partial_fit(X[3:], y[3:])
    >>> np.allclose(more.predict_proba(X), model.predict_proba(X))
    True
    """

    def __init__(
        self,
        *,
        solver: str = "svd",
        shrinkage: Any = None,
        priors: Any = None,
        n_components: int | None = None,
        store_covariance: bool = False,
        tol: float = 1e-4,
        covariance_estimator: Any = None,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator
        self.class_weight = class_weight
        self.loss = loss

    _fix = "set shrinkage='auto' (or a number in (0, 1]), or drop the column"

    def _singular_fix(self) -> str:
        if self.solver == "svd":
            return self._fix
        return (
            "use solver='svd' (the default: it works in the span of the data), set "
            "shrinkage='auto' (or a number in (0, 1]), or drop the column"
        )

    def _families(self) -> list[Any]:
        check_solver(self.solver, SOLVERS)
        return [
            MVNormal(
                1.0,
                shrinkage=sklearn_shrinkage(self.shrinkage, self.covariance_estimator),
                pool_weights=renormalised(self.priors, warn=False),
                tol=self.tol,
                span=self.solver == "svd",
            )
        ]

    def _finalize(self, summary: Any, parameters: Any = None) -> Any:
        fitted = super()._finalize(summary, parameters)
        params = fitted[1][0]
        if params.collinear:
            names = self._feature_names()
            shown = ", ".join(repr(str(names[j])) for j in params.collinear[:10])
            more = len(params.collinear) - 10
            warnings.warn(
                f"the columns {shown}{f' and {more} more' if more > 0 else ''} are collinear "
                f"(or constant within every class): {params.n_null} direction"
                f"{'s' if params.n_null > 1 else ''} without within-class variance dropped; "
                "the model works in the span of the data",
                CollinearColumnsWarning,
                stacklevel=4,
            )
        return fitted

    def _check_fit(self) -> None:
        super()._check_fit()
        self._max_components()

    def _max_components(self) -> int:
        largest = min(len(self.classes_) - 1, int(self.n_features_in_))
        if self.n_components is None:
            return largest
        n = self.n_components
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ParameterError(f"n_components must be an int >= 1 or None; got {n!r}")
        if n > largest:
            raise ParameterError(
                f"n_components={n} cannot be larger than min(n_features, n_classes - 1) = "
                f"{largest} ({self.n_features_in_} features, {len(self.classes_)} classes)"
            )
        return int(n)

    # ------------------------------------------------------------------ fitted attributes
    @property
    def means_(self) -> np.ndarray:
        """Mean of each class, shape (n_classes, n_features)."""
        scatter = cast(Scatter, self._fitted_summary().blocks[0])
        return np.asarray(scatter.mean)

    @property
    def covariance_(self) -> np.ndarray:
        """The shared covariance matrix, (n_features, n_features)."""
        return self._params().covariance[0]

    @property
    def coef_(self) -> np.ndarray:
        """``Σ⁻¹μ_y`` for each class; for two classes the difference (second − first)."""
        W, _ = self.linear_discriminant()
        return W[1:] - W[:1] if len(W) == 2 else W

    @property
    def intercept_(self) -> np.ndarray:
        """``ln P(y) − ½ μ_yᵀΣ⁻¹μ_y`` for each class; for two classes the difference."""
        _, b = self.linear_discriminant()
        return b[1:] - b[:1] if len(b) == 2 else b

    @property
    def scalings_(self) -> np.ndarray:
        """Fisher's discriminant axes, columns ``v`` with ``vᵀ Σ v = 1``, (n_features, rank):
        on rank-deficient data (``solver="svd"``), the axes of the span of the data."""
        return self._projection()[0]

    @property
    def explained_variance_ratio_(self) -> np.ndarray:
        """Share of the between-class variance along each kept axis (the shares sorted, as
        scikit-learn sorts them: where ``priors`` far from the class weights make the
        between-class matrix's eigenvalues negative, their shares' order is not theirs)."""
        values = self._projection()[1]
        return np.sort(values / values.sum())[::-1][: self._n_axes()]

    def _projection(self) -> tuple[np.ndarray, np.ndarray]:
        self._check_usable()
        params = self._params()
        if not params.keep.any():
            raise DataError(
                "every column had one value in all the training rows: the model has no "
                "discriminant axis to project onto (it predicts the class priors); train it "
                "on columns whose values vary"
            )
        return params.projection

    def _n_axes(self) -> int:
        """Axes :meth:`transform` gives: ``n_components`` (or ``min(n_classes − 1,
        n_features)``), at most the rank of the within-class matrix."""
        return min(self._max_components(), self._projection()[0].shape[1])

    @property
    def _n_features_out(self) -> int:
        return self._n_axes()

    def transform(self, X: Any) -> np.ndarray:
        """Project rows onto the first ``n_components`` discriminant axes (scikit-learn's
        eigen solver: ``X @ scalings_``, not centred).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Fewer columns on rank-deficient data whose span has fewer dimensions.
        """
        scalings = self.scalings_[:, : self._n_axes()]
        family = self._fitted()[2][0]
        rows = family.validate(self._check_X(X, reset=False), self._feature_names())
        return self._output(np.asarray(rows @ scalings), X)

    def decision_function(self, X: Any) -> np.ndarray:
        """``X @ coef_.T + intercept_`` (scikit-learn's), shape (n_samples,) for two classes."""
        W, b = self.linear_discriminant()
        family = self._fitted()[2][0]
        X = family.validate(self._check_X(X, reset=False), self._feature_names())
        scores = np.asarray(X @ W.T) + b
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores
