"""What the discriminant analysis estimators share: the multivariate normal family's fitted
parameters as scikit-learn's attributes, the class priors, and the fix to name when a
covariance matrix is singular."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from .._decision import class_log_prior
from .._values import one_of
from ..errors import BayeskitWarning, DataError, ParameterError, SingularCovarianceError
from ..families.mvnormal import MVNormalParams
from ..naive_bayes._numeric import NumericNB


class DiscriminantAnalysis(NumericNB):
    """A generative classifier with one multivariate normal block over every column.

    NaN is refused (naming the row and column); sparse (CSR) input is summarised without
    densifying it. ``fit`` needs two classes and regular covariance matrices; ``partial_fit``
    accumulates statistics from any batch (the first may hold one class, or fewer rows than
    features) and prediction refuses a singular matrix by name.
    """

    #: the template's class prior: frequencies unless ``priors`` fixes it (scikit-learn's rule)
    fit_prior = True
    prior_alpha = 0.0
    _min_classes = 2
    _nan_is_missing = False
    _prior_name = "priors"
    #: what to change when a covariance matrix is singular
    _fix: ClassVar[str] = ""

    priors: Any

    @property
    def class_prior(self) -> Any:
        """The template's fixed class prior: ``priors`` (scikit-learn's name), renormalised
        with a :class:`~bayeskit.errors.BayeskitWarning` when they do not sum to 1, as
        scikit-learn's LDA does (its QDA takes them as they are: the same posteriors)."""
        return renormalised(self.priors, warn=True)

    def _finalize(self, summary: Any, parameters: Any = None) -> Any:
        # priors of the wrong shape or count are refused as such, before renormalising
        # them could warn about their sum
        check_priors_shape(self.priors, summary.class_count)
        return super()._finalize(summary, parameters)

    def _check_fit(self) -> None:
        live = self.class_count_ > 0
        if int(np.sum(live)) < self._min_classes:
            labels = ", ".join(repr(c) for c in self.classes_[live].tolist())
            raise DataError(
                f"{type(self).__name__} needs at least two classes to tell apart, but y (with "
                f"its sample weights) holds one class: {labels}"
            )
        super()._check_fit()

    def _summary_of(self, blocks: list[Any], labels: np.ndarray, R: Any) -> Any:
        # Training data only (predictions sum no squares of deviations): columns whose
        # deviations' squares (or fourth powers) float64 cannot sum are refused by name
        # before they are summed.
        names = self._block_names(self._feature_names())
        for family, block, block_names in zip(self._families(), blocks, names, strict=True):
            for check in ("check_spread", "check_fourth_powers"):
                method = getattr(family, check, None)
                if method is not None:
                    method(block, block_names)
        return super()._summary_of(blocks, labels, R)

    def _check_usable(self) -> None:
        try:
            super()._check_usable()
        except SingularCovarianceError as exc:
            raise SingularCovarianceError(f"{exc}; {self._singular_fix()}") from None

    def _singular_fix(self) -> str:
        """What to change when a covariance matrix is singular."""
        return self._fix

    def _rows_all_alike(self) -> bool:
        """Whether every singular matrix has a column without variance although the matrix
        was shrunk towards its average variance (shrinkage, γ): only a matrix whose average
        variance is 0 — a class whose rows are all alike, such as a single row — stays so, and
        more shrinkage cannot help it."""
        singular = self._params().singular
        return bool(singular) and all(s.column is not None for s in singular)

    def _params(self) -> MVNormalParams:
        params: MVNormalParams = self._fitted()[1][0]
        return params

    @property
    def means_(self) -> np.ndarray:
        """Mean of each class, shape (n_classes, n_features)."""
        return self._params().means

    @property
    def priors_(self) -> np.ndarray:
        """Prior probability of each class (``priors``, or the class frequencies)."""
        return np.exp(self.class_log_prior_)

    def decision_function(self, X: Any) -> np.ndarray:
        """scikit-learn's decision function: the joint log-likelihood without its ``2π``
        term, ``ln P(y) − ½ (x − μ_y)ᵀ Σ_y⁻¹ (x − μ_y) − ½ ln det Σ_y``; with two classes the
        log-odds of the second, shape (n_samples,)."""
        scores = self.predict_joint_log_proba(X)
        scores += 0.5 * int(self._params().keep.sum()) * np.log(2.0 * np.pi)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.classifier_tags.poor_score = False
        return tags


def check_solver(solver: Any, accepted: tuple[str, ...]) -> None:
    """scikit-learn's ``solver`` names (accepted for compatibility: every solver gives the
    same model from the statistics)."""
    if not one_of(solver, accepted):
        raise ParameterError(
            f"solver={solver!r}; accepted: {', '.join(accepted)} (all give the same model)"
        )


def covariance_estimators() -> dict[str, type]:
    """The :mod:`sklearn.covariance` estimators discriminant analysis takes (functions of the
    class covariance): model files store them by name and rebuild them from this list."""
    from sklearn.covariance import OAS, EmpiricalCovariance, LedoitWolf, ShrunkCovariance

    return {cls.__name__: cls for cls in (EmpiricalCovariance, ShrunkCovariance, LedoitWolf, OAS)}


def sklearn_shrinkage(shrinkage: Any, covariance_estimator: Any) -> Any:
    """The family's shrinkage for scikit-learn's ``shrinkage`` and ``covariance_estimator``:
    the estimators of :mod:`sklearn.covariance` that are functions of the class covariance
    (and its fourth moments) are computed from the statistics."""
    if covariance_estimator is None:
        return shrinkage
    if shrinkage is not None and shrinkage != 0:
        raise ParameterError("covariance_estimator and shrinkage are both set; give one of the two")
    kind = type(covariance_estimator)
    known = covariance_estimators()
    if getattr(covariance_estimator, "assume_centered", False):
        raise ParameterError(
            f"covariance_estimator={covariance_estimator!r}: assume_centered=True is not "
            "supported (the statistics are centred on each class mean)"
        )
    if kind is known["EmpiricalCovariance"]:
        return None
    if kind is known["ShrunkCovariance"]:
        return covariance_estimator.shrinkage
    if kind is known["LedoitWolf"]:
        return "ledoit-wolf"
    if kind is known["OAS"]:
        return "oas"
    raise ParameterError(
        f"covariance_estimator={covariance_estimator!r} needs the training rows themselves; "
        "discriminant analysis here is fitted from sufficient statistics, so it takes "
        "EmpiricalCovariance, ShrunkCovariance, LedoitWolf or OAS (or shrinkage=None, a "
        "number, 'auto', 'ledoit-wolf' or 'oas')"
    )


def check_priors_shape(priors: Any, class_count: np.ndarray) -> None:
    """Refuse ``priors`` that are not one number per class, naming the shape or the count."""
    if priors is None:
        return
    try:
        values = np.asarray(priors, dtype=np.float64)
    except (TypeError, ValueError):
        values = None  # no numbers: the class prior's check names it
    if values is None or values.shape != class_count.shape:
        class_log_prior(
            class_count, fit_prior=True, class_prior=priors, prior_alpha=0.0, name="priors"
        )


def renormalised(priors: Any, *, warn: bool) -> Any:
    """Non-negative finite ``priors`` divided by their sum when it is not 1 (with a
    :class:`~bayeskit.errors.BayeskitWarning` when ``warn``); anything else as given, for the
    class prior's own checks to name."""
    if priors is None:
        return None
    try:
        values = np.asarray(priors, dtype=np.float64)
    except (TypeError, ValueError):
        return priors
    if values.ndim != 1 or not (np.isfinite(values).all() and (values >= 0).all()):
        return priors
    with np.errstate(over="ignore"):
        total = float(values.sum())
    if not total > 0:
        return priors
    if np.isclose(total, 1.0, rtol=0, atol=1e-8):
        return priors
    if warn:
        warnings.warn(
            f"the priors {values.tolist()} sum to {total:.10g}, not 1; renormalising them",
            BayeskitWarning,
            stacklevel=3,
        )
    if not np.isfinite(total):  # finite priors near 1e308 sum past float64
        values = values / values.max()
        total = float(values.sum())
    return values / total  # (scikit-learn's division, where the sum is finite)
