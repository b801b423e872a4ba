"""Semi-supervised Naive Bayes by EM (Nigam, McCallum, Thrun & Mitchell, 2000)."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from .._all_or_nothing import unchanged_on_error
from .._decision import normalize_log
from .._labels import check_sample_weight, mean_accuracy
from .._merging import Adds
from .._params import (
    ClassifierMixin,
    ParamNamesOnce,
    fitted_again,
    is_classifier,
    refuse_while_waiting,
    waits_for_fit,
)
from .._validation import as_real, check_random_state
from .._values import unique_sorted
from ..contract import Contract, contract_of, declares
from ..errors import DataError, NotFittedError, ParameterError, convergence_warning
from ..mixture._em import Part, check_em_settings, run_em, warn_not_converged
from ..mixture._family import class_log_sum
from ._labels import labelled_classes, marked_labels, refuse_text_marker
from ._views import EstimatorView, TextView

#: Most mixture components a class may have.
MAX_COMPONENTS_PER_CLASS = 1_000


class SemiSupervisedNB(Adds, ClassifierMixin, ParamNamesOnce):
    """Naive Bayes trained on labelled and unlabelled rows together by EM (Nigam et al.,
    2000).

    Rows whose label is ``-1`` (scikit-learn's convention) or missing (``None``, NaN, pandas
    ``NA``, a polars null) are unlabelled. The model is first fitted to the labelled rows; then
    EM alternates the E-step — each unlabelled row's class posterior under the current model —
    and the M-step — the wrapped estimator refitted from the labelled rows' statistics plus the
    unlabelled rows' statistics weighted by their posteriors times ``unlabeled_weight`` (Nigam's
    λ, which keeps a large unlabelled set from swamping a few labels) — until the log-likelihood
    per row changes by less than ``tol``. Both steps are the wrapped estimator's own
    (``summarize`` with soft class weights, ``finalize``), run by bayeskit's one EM engine
    (:mod:`bayeskit.mixture`); its smoothing and class prior apply at every M-step (the estimate
    is the MAP one Nigam et al. describe).

    ``n_components > 1`` gives every class several mixture components (Nigam et al.'s
    "multiple mixture components per class", for a class made of sub-topics): a labelled row
    is shared among its class's components, an unlabelled row among all; a class's
    probability is the sum of its components'.

    On a Dask cluster, :func:`bayeskit.dask.fit` runs the same EM as one reduction per
    iteration (a wrapped generative classifier or TextClassifier — over a dask.bag of
    documents — with ``n_components=1``), giving this model.

    EM proper needs an M-step that maximises the expected complete-data log-likelihood
    (Dempster, Laird & Rubin 1977): the naive Bayes models' smoothed counts do (with their
    Dirichlet prior), and a TAN's tree maximises it over trees with ``edge_weight="cmi"``
    (Chow & Liu's tree given the class; Friedman, Geiger & Goldszmidt 1997), or the expected
    Bayesian-Dirichlet score with the default (Friedman's 1998 Bayesian structural EM).
    AODE's counts estimate each one-dependence model but do not maximise the likelihood of
    their average, and KDB chooses its structure greedily: over them (their contract's
    ``em_maximizes``) EM is a heuristic, whose bound may fall — a ``ConvergenceWarning`` says
    so when it does — and whose ``converged_`` means only that the iterations settled.
    A network's cut points of numeric columns (Fayyad & Irani's rule, which needs classes)
    are chosen from the labelled rows, before EM.

    Parameters
    ----------
    estimator : bayeskit estimator, default=MultinomialNB()
        MultinomialNB, ComplementNB, BernoulliNB, CategoricalNB, GaussianNB, MixedNB, any
        other bayeskit generative classifier, or a :class:`~bayeskit.text.TextClassifier`
        (which takes raw documents).
    unlabeled_weight : float, default=1.0
        λ, a finite number >= 0: the weight of an unlabelled row relative to a labelled one
        (0: supervised learning; Nigam et al. tune it in (0, 1]).
    max_iter : int, default=30
        Most EM iterations (at most 100000); a ``ConvergenceWarning`` when they run out.
    tol : float, default=1e-3
        EM stops when the log-likelihood per row (weighted) changes by less.
    n_components : int, default=1
        Mixture components per class.
    random_state : int, RandomState or None, default=0
        How labelled rows are first shared among their class's components (``n_components >
        1`` only). Fixed by default, as for :class:`~bayeskit.GaussianMixtureClassifier`,
        so two fits of the same data agree and cross-validation scores are reproducible;
        None draws fresh randomness on every fit.

    Attributes
    ----------
    estimator_ : the fitted estimator (its classes are the components when
        ``n_components > 1``)
    classes_ : ndarray of shape (n_classes,)
    transduction_ : ndarray of shape (n_samples,)
        The label of every training row: its own when labelled, the most probable class
        otherwise.
    label_distributions_ : ndarray of shape (n_samples, n_classes)
        Class probabilities of every training row (a labelled row: its label's indicator).
    n_iter_, converged_, lower_bound_, lower_bounds_
        How EM ended: iterations, whether the bound settled (changed by less than ``tol``),
        the final and every iteration's bound: the weighted mean log-likelihood per row under
        that iteration's starting parameters (without the smoothing's prior, whose share EM
        also raises).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import MultinomialNB, SemiSupervisedNB
    >>> X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 0], [4, 1, 0], [0, 2, 0], [1, 4, 1]])
    >>> y = np.array([0, 1, -1, -1, -1, -1])  # two labelled rows, four unlabelled
    >>> model = SemiSupervisedNB(MultinomialNB()).fit(X, y)
    >>> model.transduction_
    array([0, 1, 0, 0, 1, 1])
    >>> model.predict([[5, 0, 0], [0, 5, 0]])
    array([0, 1])
    """

    #: Fitted by rounds of EM over labelled and unlabelled rows together: the unlabelled rows'
    #: responsibilities change with every round, so nothing adds, merges or unlearns
    #: (:mod:`bayeskit.contract`); it reads what its ``estimator`` reads.
    contract: ClassVar[Contract] = Contract(
        incremental=False,
        mergeable=False,
        merges_classes=False,
        unlearnable=False,
        rounds="EM",
        input="wrapped",
        state="semi-supervised",
        # with several components a class is a mixture, whose features interact; with one,
        # its fitted estimator's declaration holds
        feature_terms=False,
        # every setting shapes EM's rounds over the unlabelled rows
        refit_settings=(
            "estimator",
            "estimator__*",
            "unlabeled_weight",
            "max_iter",
            "tol",
            "n_components",
            "random_state",
        ),
        why="the unlabelled rows' class responsibilities are refitted over all the data",
    )

    def __init__(
        self,
        estimator: Any = None,
        *,
        unlabeled_weight: float = 1.0,
        max_iter: int = 30,
        tol: float = 1e-3,
        n_components: int = 1,
        random_state: Any = 0,
    ):
        self.estimator = estimator
        self.unlabeled_weight = unlabeled_weight
        self.max_iter = max_iter
        self.tol = tol
        self.n_components = n_components
        self.random_state = random_state

    # ------------------------------------------------------------------ settings
    def check_params(self) -> SemiSupervisedNB:
        """Check the settings, the wrapped estimator's kind included (its declaration must
        allow EM over its classes); raises :class:`~bayeskit.errors.ParameterError` naming
        the one that is wrong. Fitting checks them, and so does loading a model file.

        Returns
        -------
        self
        """
        self._settings()
        self._prototype()
        return self

    def fitted_estimator(self) -> Any:
        """The fitted wrapped estimator (``estimator_``): its classes are the wrapper's
        classes, or their components with ``n_components > 1``. Raises
        :class:`~bayeskit.errors.NotFittedError` before a fit."""
        return self._check_fitted()

    def set_fitted_estimator(self, fitted: Any, classes: Any) -> SemiSupervisedNB:
        """Take a fitted wrapped estimator (read back from a model file) and the classes, with
        the input it was fitted on (``n_features_in_``, ``feature_names_in_``). The EM
        record (``n_iter_``, ``converged_``, ``lower_bounds_``) is the caller's to set.

        Returns
        -------
        self
        """
        self._adopt_estimator(fitted, np.asarray(classes))
        return self

    def _prototype(self) -> Any:
        from ..naive_bayes import MultinomialNB

        estimator = MultinomialNB() if self.estimator is None else self.estimator
        if isinstance(estimator, type):
            # (its declaration reads as a model's, and scikit-learn's clone then fails with a
            # TypeError of its own)
            raise ParameterError(
                f"estimator={estimator.__name__} is a class, not an estimator; pass an "
                f"instance: estimator={estimator.__name__}()"
            )
        declared = contract_of(estimator) if declares(estimator) else None
        if declared is None or declared.state != "generative" or not is_classifier(estimator):
            raise ParameterError(
                "estimator must be a bayeskit Naive Bayes estimator (MultinomialNB, "
                "ComplementNB, BernoulliNB, CategoricalNB, GaussianNB, MixedNB, …) or a "
                f"TextClassifier, not {type(estimator).__name__}"
            )
        if declared.rounds is not None:  # a model fitted by rounds of its own (EM)
            raise ParameterError(
                f"estimator={type(estimator).__name__} is already fitted by rounds "
                f"({declared.rounds}) within each class; wrap a Naive Bayes estimator "
                "(n_components gives classes several components)"
            )
        return estimator

    def _settings(self) -> tuple[float, float, int, int]:
        lam = self.unlabeled_weight
        if (
            isinstance(lam, bool)
            or not isinstance(lam, (int, float, np.number))
            or not math.isfinite(as_real(lam))
            or float(lam) < 0
        ):
            raise ParameterError(
                f"unlabeled_weight={lam!r} is not accepted; use a finite number >= 0 (the "
                "weight of an unlabelled row relative to a labelled one)"
            )
        tol, max_iter, _ = check_em_settings(tol=self.tol, max_iter=self.max_iter)
        k = self.n_components
        if (
            isinstance(k, bool)
            or not isinstance(k, (int, np.integer))
            or not 1 <= k <= MAX_COMPONENTS_PER_CLASS
        ):
            raise ParameterError(
                f"n_components={k!r} is not accepted; use an integer from 1 to "
                f"{MAX_COMPONENTS_PER_CLASS} (mixture components per class)"
            )
        return float(lam), tol, max_iter, int(k)

    # ------------------------------------------------------------------ fitting
    def fit(
        self, X: Any, y: Any, sample_weight: Any = None, *, classes: Any = None
    ) -> SemiSupervisedNB:
        """Fit on labelled and unlabelled rows.

        Parameters
        ----------
        X : the wrapped estimator's input (a matrix, a table, or documents)
        y : array-like of shape (n_samples,)
            Labels; ``-1`` or a missing value (``None``, NaN, pandas ``NA``) marks an
            unlabelled row.
        sample_weight : array-like of shape (n_samples,), optional
        classes : array-like, optional
            The classes; a label in ``y`` that is neither one of them nor the unlabelled
            marker is refused (default: the labels in ``y``). A class -1 declared here (labels
            -1 and 1) is a class: only a missing value then marks an unlabelled row; so is the
            text ``"-1"``, which is otherwise refused as the marker turned into text.

        Returns
        -------
        self
        """
        with unchanged_on_error(self):  # a refused fit keeps the model fitted before
            for attr in (
                "estimator_", "classes_", "transduction_", "label_distributions_",
                "n_features_in_", "feature_names_in_",
            ):  # fmt: skip
                self.__dict__.pop(attr, None)
            return self._fit(X, y, sample_weight, classes)

    def _fit(self, X: Any, y: Any, sample_weight: Any, classes: Any) -> SemiSupervisedNB:

        estimator = self._prototype()
        lam, tol, max_iter, k = self._settings()
        labels, codes, labelled = _split_labels(y, classes)
        n = len(codes)
        weight = check_sample_weight(sample_weight, n)
        if not (weight[labelled] > 0).any():
            raise DataError(
                "every labelled row has weight 0; semi-supervised learning needs some labelled "
                "rows to start from"
            )
        n_classes = len(labels)
        owner = np.repeat(np.arange(n_classes), k)
        components = labels if k == 1 else np.arange(n_classes * k)
        text = contract_of(estimator).input == "documents"
        view: EstimatorView | TextView = (
            TextView(estimator, components) if text else EstimatorView(estimator, components)
        )
        if isinstance(view, TextView):
            rows = view.prepare(_documents(X))
        else:  # (a layout chosen from classes — a network's cut points — from labelled rows)
            rows = view.prepare(X, labels[np.maximum(codes, 0)], np.where(labelled, weight, 0.0))
        if rows.n_rows != n:
            raise DataError(f"X has {rows.n_rows} rows but y has {n} labels; give one per row")
        allowed = np.ones((n, len(owner)), dtype=bool)
        allowed[labelled] = owner[None, :] == codes[labelled][:, None]
        row_weight = np.where(labelled, weight, lam * weight)
        start = self._start(codes, labelled, weight, owner, k)
        params = view.finalize(view.summarize(rows, start))
        part = Part(rows, row_weight, allowed)
        result = run_em(view, [part], params, tol=tol, max_iter=max_iter)
        self._owner, self.classes_ = owner, labels
        distributions = self.distributions(view.log_joint(result.params, rows), codes, labelled)
        return self._set_fitted(view, result, labels, distributions, tol, max_iter)

    def distributions(self, jll: np.ndarray, codes: np.ndarray, labelled: np.ndarray) -> np.ndarray:
        """Class probabilities of training rows from the components' joint log-likelihoods
        (a labelled row: its label's indicator)."""
        posterior = self._normalize(self._class_joint(jll))
        out = np.exp(posterior)
        out[labelled] = np.eye(out.shape[1])[codes[labelled]]
        return out

    def _set_fitted(
        self,
        view: Any,
        result: Any,
        labels: np.ndarray,
        distributions: np.ndarray,
        tol: float,
        max_iter: int,
    ) -> SemiSupervisedNB:
        """The fitted attributes from EM's result (in memory, or from a cluster's rounds)."""
        if not result.converged and max_iter > 0:
            warn_not_converged("the unlabelled rows", result.n_iter, tol)
        if not contract_of(view.fitted()).em_maximizes:
            _warn_if_bound_fell(type(view.fitted()).__name__, result.lower_bounds)
        self._adopt_estimator(view.fitted(), labels)
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        self.lower_bound_ = result.lower_bound
        self.lower_bounds_ = np.asarray(result.lower_bounds)
        self.label_distributions_ = distributions
        self.transduction_ = labels[np.argmax(distributions, axis=1)]
        return self

    def _adopt_estimator(self, fitted: Any, classes: np.ndarray) -> None:
        """Take a fitted wrapped estimator (from EM or a model file) and the classes, with the
        input the estimator was fitted on (``n_features_in_``, ``feature_names_in_``)."""
        self.estimator_ = fitted
        self.classes_ = classes
        fitted_again(self)
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(fitted, attr):
                setattr(self, attr, getattr(fitted, attr))
            else:
                self.__dict__.pop(attr, None)

    def _fit_rounds(self, *, partial: bool, classes: Any = None, **options: Any) -> Any:
        """The rounds that fit the model from parts of the data, one reduction per EM
        iteration (:mod:`bayeskit.semi_supervised._rounds`; run by
        :func:`bayeskit.dask.fit`)."""
        from ._rounds import semi_supervised_rounds

        if options:
            raise ParameterError(
                f"{', '.join(options)} does not apply to SemiSupervisedNB (its EM starts from "
                "the labelled rows)"
            )

        return semi_supervised_rounds(self, partial=partial)

    def _start(
        self,
        codes: np.ndarray,
        labelled: np.ndarray,
        weight: np.ndarray,
        owner: np.ndarray,
        k: int,
    ) -> np.ndarray:
        """The labelled rows alone: one-hot classes, shared at random among a class's
        components when it has several."""
        n = len(codes)
        R = np.zeros((n, len(owner)))
        rows = np.flatnonzero(labelled)
        if k == 1:
            R[rows, codes[rows]] = weight[rows]
            return R
        rng = check_random_state(self.random_state)
        shares = rng.dirichlet(np.ones(k), size=len(rows))
        for j in range(k):
            R[rows, codes[rows] * k + j] = shares[:, j] * weight[rows]
        return R

    # ------------------------------------------------------------------ prediction
    def _check_fitted(self) -> Any:
        refuse_while_waiting(self)
        try:
            return self.__dict__["estimator_"]
        except KeyError:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            ) from None

    def _class_joint(self, jll: np.ndarray) -> np.ndarray:
        """Classes' joint log-likelihoods from the components' (log-sum-exp over each class's
        components)."""
        jll = np.asarray(jll, dtype=np.float64)
        if self.n_components == 1:
            return jll
        starts = np.arange(0, jll.shape[1] + 1, self.n_components)
        out = np.full((jll.shape[0], len(self.classes_)), -np.inf)
        return class_log_sum(jll, starts, out)

    def _normalize(self, joint: np.ndarray) -> np.ndarray:
        uniform = np.full(joint.shape[1], -np.log(max(joint.shape[1], 1)))
        return normalize_log(joint, uniform)

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``ln P(y) + ln p(x|y)`` of each row and class (components summed)."""
        return self._class_joint(self._check_fitted().predict_joint_log_proba(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``ln P(y|x)``, shape (n_samples, n_classes)."""
        return self._normalize(self.predict_joint_log_proba(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(y|x)``, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class (the wrapped estimator's decision rule — class weights,
        loss — when every class has one component)."""
        estimator = self._check_fitted()
        if self.n_components == 1:
            return np.asarray(estimator.predict(X))
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of :meth:`predict` on ``X`` against the true labels ``y``, checked as
        every model's ``score`` checks them (one label per row, of the classes' type)."""
        self._check_fitted()
        return mean_accuracy(self, X, y, sample_weight)

    def __sklearn_is_fitted__(self) -> bool:
        return "estimator_" in self.__dict__ and not waits_for_fit(self)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        try:
            inner = self._prototype().__sklearn_tags__()
        except ParameterError:
            return tags
        tags.input_tags = inner.input_tags
        tags.classifier_tags.poor_score = True
        return tags


def _warn_if_bound_fell(name: str, bounds: Any) -> None:
    """Warn when EM over a model whose estimate is no maximiser of its likelihood (its
    contract's ``em_maximizes``) lowered its mean log-likelihood: EM proper never does
    (Dempster, Laird & Rubin 1977), so the iterations are a heuristic and ``converged_``
    says only that they settled."""
    falls = -np.diff(np.asarray(bounds, dtype=np.float64))
    if not len(falls) or not falls.max() > 1e-12 * max(1.0, float(np.abs(bounds).max())):
        return
    at = int(np.argmax(falls))
    warnings.warn(
        convergence_warning(
            f"EM's mean log-likelihood per row fell at iteration {at + 2}, from "
            f"{bounds[at]:.6g} to {bounds[at + 1]:.6g}: {name}'s estimate from weighted rows "
            "is not the maximiser of its likelihood (it declares em_maximizes=False), so EM "
            "over it is a heuristic, not a likelihood ascent; converged_ says only that the "
            "iterations settled"
        ),
        stacklevel=5,  # (the caller of fit)
    )


def _documents(X: Any) -> list[Any]:
    from ..text._documents import document_list

    return document_list(X)


def _split_labels(y: Any, classes: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted class labels, each row's class index (−1: unlabelled), labelled mask)."""
    y, labelled = marked_labels(y, classes)
    if not labelled.any():
        raise DataError(
            f"all {len(y)} rows are unlabelled (-1 or None); semi-supervised learning needs at "
            "least one labelled row of every class it is to predict"
        )
    refuse_text_marker(y, labelled, classes)
    found = labelled_classes(y, labelled)
    if classes is None:
        labels = found
    else:
        labels = unique_sorted(np.asarray(classes, dtype=object if y.dtype.kind == "O" else None))
        known = set(labels.tolist())
        for row in np.flatnonzero(labelled).tolist():
            value = y[row].item() if isinstance(y[row], np.generic) else y[row]
            if value not in known:
                raise DataError(
                    f"y[{row}] = {value!r} is neither one of the classes "
                    f"{labels.tolist()} nor the unlabelled marker (-1, or None for object labels)"
                )
        empty = sorted(set(labels.tolist()) - set(found.tolist()), key=repr)
        if empty:
            raise DataError(
                f"class {empty[0]!r} has no labelled row; EM needs a labelled row of every "
                "class to know which component is which"
            )
    where = {v: i for i, v in enumerate(labels.tolist())}
    codes = np.full(len(y), -1, dtype=np.int64)
    codes[labelled] = [where[v] for v in y[labelled].tolist()]
    return labels, codes, labelled
