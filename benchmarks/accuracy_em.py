"""Accuracy of the EM models (run through ``benchmarks/accuracy.py --only em`` or
``--only 20ng-semi``): the Gaussian-mixture and Parzen-window classifiers beside GaussianNB,
QDA and scikit-learn on four real tables, and semi-supervised Naive Bayes on 20 Newsgroups."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import GaussianNB as SkGaussianNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.neighbors import KernelDensity
from sklearn.semi_supervised import SelfTrainingClassifier

import bayeskit as bk
from bayeskit.datasets.shared import load_20newsgroups, load_spambase
from bayeskit.text import TextClassifier, TextVectorizer

REG_PARAMS = [0.001, 0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]


class PerClassKDE:
    """A ``KernelDensity`` per class plus the log prior, with one width for every class chosen
    by 5-fold likelihood of the training fold's rows (all classes pooled)."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> PerClassKDE:
        self.classes_ = np.unique(y)
        self.log_prior_ = np.log(np.array([np.mean(y == c) for c in self.classes_]))
        grid = {"bandwidth": np.logspace(-1, 1.5, 12) * X.std(axis=0).mean()}
        search = GridSearchCV(KernelDensity(), grid, cv=5).fit(X)  # one width for every class
        h = search.best_params_["bandwidth"]
        self.kdes_ = [KernelDensity(bandwidth=h).fit(X[y == c]) for c in self.classes_]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        jll = np.column_stack([k.score_samples(X) for k in self.kdes_]) + self.log_prior_
        return self.classes_[np.argmax(jll, axis=1)]


class KDEClassifier(ClassifierMixin, BaseEstimator):
    """scikit-learn's KDE-classifier recipe (its Python Data Science Handbook example): a
    ``KernelDensity(bandwidth)`` per class plus the log prior; the width is searched by
    cross-validated classification accuracy (:func:`_kde_by_accuracy`)."""

    def __init__(self, bandwidth: float = 1.0):
        self.bandwidth = bandwidth

    def fit(self, X: np.ndarray, y: np.ndarray) -> KDEClassifier:
        self.classes_ = np.unique(y)
        self.log_prior_ = np.log(np.array([np.mean(y == c) for c in self.classes_]))
        self.kdes_ = [KernelDensity(bandwidth=self.bandwidth).fit(X[y == c]) for c in self.classes_]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        jll = np.column_stack([k.score_samples(X) for k in self.kdes_]) + self.log_prior_
        return self.classes_[np.argmax(jll, axis=1)]


class _KDEByAccuracy:
    """KDEClassifier with its width chosen by 5-fold accuracy inside each training fold,
    on a grid of 12 multiples (0.1 … 30) of the mean column standard deviation."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> _KDEByAccuracy:
        grid = {"bandwidth": np.logspace(-1, 1.5, 12) * X.std(axis=0).mean()}
        self.search_ = GridSearchCV(KDEClassifier(), grid, cv=5).fit(X, y)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.search_.predict(X))


#: the recipe on the three bundled tables only: scikit-learn's trees are slow in spambase's
#: 57 dimensions (``--only em-kde``)
KDE_RECIPE: list[tuple[str, Callable[[], Any]]] = [
    ("KernelDensity per class, width by 5-fold CV accuracy (scikit-learn recipe)", _KDEByAccuracy),
]


def _qda_by_cv() -> Any:
    return GridSearchCV(
        bk.QuadraticDiscriminantAnalysis(), {"reg_param": REG_PARAMS}, cv=5, error_score=0.0
    )


def _gmm_by_cv(**settings: Any) -> Any:
    """GaussianMixtureClassifier("bic", full) with ``reg_param`` chosen as QDA's row chooses
    its own: 5-fold CV accuracy inside the training folds over REG_PARAMS (BIC still picks
    the components of each class for every candidate)."""
    model = bk.GaussianMixtureClassifier(covariance_type="full", random_state=0, **settings)
    return GridSearchCV(model, {"reg_param": REG_PARAMS}, cv=5, error_score=0.0)


MODELS: list[tuple[str, Callable[[], Any]]] = [
    ("GaussianNB (scikit-learn)", SkGaussianNB),
    ("GaussianNB", bk.GaussianNB),
    ("QDA, reg_param by 5-fold CV in the training folds", _qda_by_cv),
    (
        'GaussianMixtureClassifier("bic", diag)',
        lambda: bk.GaussianMixtureClassifier(random_state=0),
    ),
    (
        'GaussianMixtureClassifier("bic", full)',
        lambda: bk.GaussianMixtureClassifier(covariance_type="full", random_state=0),
    ),
    (
        'GaussianMixtureClassifier("bic", diag, prior="conjugate")',
        lambda: bk.GaussianMixtureClassifier(prior="conjugate", random_state=0),
    ),
    (
        'GaussianMixtureClassifier("bic", full, prior="conjugate")',
        lambda: bk.GaussianMixtureClassifier(
            covariance_type="full", prior="conjugate", random_state=0
        ),
    ),
    ("ParzenWindowClassifier (Scott)", bk.ParzenWindowClassifier),
    (
        "ParzenWindowClassifier (leave-one-out accuracy)",
        lambda: bk.ParzenWindowClassifier(bandwidth="cv-accuracy"),
    ),
    (
        "ParzenWindowClassifier (mahalanobis, leave-one-out accuracy)",
        lambda: bk.ParzenWindowClassifier(metric="mahalanobis", bandwidth="cv-accuracy"),
    ),
    ("KernelDensity per class (scikit-learn recipe)", PerClassKDE),
]


#: the mixtures with ``reg_param`` chosen as QDA's row chooses its own (45 fits per training
#: fold: in ``--only em-gmm`` only)
GMM_BY_CV: list[tuple[str, Callable[[], Any]]] = [
    (
        'GaussianMixtureClassifier("bic", full), reg_param by 5-fold CV in the training folds',
        _gmm_by_cv,
    ),
    (
        'GaussianMixtureClassifier("bic", full, prior="conjugate"), reg_param by 5-fold CV in '
        "the training folds",
        lambda: _gmm_by_cv(prior="conjugate"),
    ),
]

#: the Gaussian-mixture rows and their references (``--only em-gmm``)
GMM_TABLE = [
    row for row in MODELS if "Parzen" not in row[0] and "KernelDensity" not in row[0]
] + GMM_BY_CV


def _cross_validated(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> tuple[str, float]:
    """Stratified 10-fold (seed 0) accuracy, or the error that stopped a fold."""
    predicted = np.empty_like(y)
    start = time.perf_counter()
    try:
        for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", UserWarning)
                predicted[test] = make().fit(X[train], y[train]).predict(X[test])
    except ValueError as exc:  # a model that cannot be fitted to the data: say why
        return f"— ({type(exc).__name__})", time.perf_counter() - start
    return f"{accuracy_score(y, predicted):.4f}", time.perf_counter() - start


def tables(
    root: Path | None, models: list[tuple[str, Callable[[], Any]]] | None = None
) -> tuple[list[str], list[tuple[str, ...]]]:
    """Accuracy of every model (or of ``models``) on digits, wine, breast cancer and, with
    ``root``, spambase."""
    data: list[tuple[str, np.ndarray, np.ndarray]] = [
        ("digits", *load_digits(return_X_y=True)),
        ("wine", *load_wine(return_X_y=True)),
        ("breast cancer", *load_breast_cancer(return_X_y=True)),
    ]
    if root is not None:
        X, y, _ = load_spambase(root)
        data.append(("spambase", X, y))
    rows = []
    for name, make in MODELS if models is None else models:
        cells = []
        for _, X, y in data:
            accuracy, seconds = _cross_validated(make, np.asarray(X, dtype=np.float64), y)
            cells.append(f"{accuracy} ({seconds:.0f} s)")
        rows.append((name, *cells))
    return ["model", *(d[0] for d in data)], rows


def semi_supervised(root: Path, draws: int = 5) -> list[tuple[str, ...]]:
    """20 Newsgroups bydate: 20 labelled training posts per class, the rest of the training
    set unlabelled, tested on the test set; error mean ± sd over ``draws`` random draws."""
    train, y_train = load_20newsgroups("train", root)
    test, y_test = load_20newsgroups("test", root)
    y_train, y_test = np.asarray(y_train, dtype=object), np.asarray(y_test, dtype=object)
    classes = np.unique(y_train)

    def text_model() -> TextClassifier:
        vectorizer = TextVectorizer(stop_words="english", min_df=3)
        return TextClassifier(vectorizer=vectorizer, model=bk.MultinomialNB(alpha=0.1))

    counts = CountVectorizer(stop_words="english", min_df=3).fit(train)
    A, B = counts.transform(train), counts.transform(test)
    results: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}

    def record(name: str, predicted: np.ndarray, start: float) -> None:
        results.setdefault(name, []).append(float(np.mean(predicted != y_test)))
        seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start

    for seed in range(draws):
        rng = np.random.default_rng(seed)
        labelled = np.concatenate(
            [rng.choice(np.flatnonzero(y_train == c), 20, replace=False) for c in classes]
        )
        marked = np.full(len(y_train), None, dtype=object)
        marked[labelled] = y_train[labelled]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            start = time.perf_counter()
            docs = [train[i] for i in labelled]
            record("supervised MultinomialNB, vocabulary of the labelled posts",
                   text_model().fit(docs, y_train[labelled]).predict(test), start)  # fmt: skip
            start = time.perf_counter()
            supervised = bk.SemiSupervisedNB(text_model(), unlabeled_weight=0.0)
            record("supervised MultinomialNB, vocabulary of all training posts (λ = 0)",
                   supervised.fit(train, marked).predict(test), start)  # fmt: skip
            for k in (1, 2):
                start = time.perf_counter()
                semi = bk.SemiSupervisedNB(text_model(), n_components=k, random_state=0)
                record(f"SemiSupervisedNB(MultinomialNB), λ = 1, {k} component(s) per class",
                       semi.fit(train, marked).predict(test), start)  # fmt: skip
            start = time.perf_counter()
            codes = np.full(len(y_train), -1)
            codes[labelled] = np.searchsorted(classes, y_train[labelled])
            self_training = SelfTrainingClassifier(SkMultinomialNB()).fit(A, codes)
            record("scikit-learn SelfTrainingClassifier(MultinomialNB()), same vocabulary",
                   classes[self_training.predict(B)], start)  # fmt: skip
    best_supervised = min(
        np.mean(v) for name, v in results.items() if name.startswith("supervised")
    )
    rows = []
    for name, errors in results.items():
        mean, sd = float(np.mean(errors)), float(np.std(errors, ddof=1))
        cut = 1.0 - mean / best_supervised
        rows.append((name, f"{mean:.4f} ± {sd:.4f}", f"{cut:+.1%}", f"{seconds[name] / draws:.1f}"))
    return rows
