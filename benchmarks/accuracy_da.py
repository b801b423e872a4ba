"""Discriminant analysis accuracy: QDA, LDA (plain and Ledoit–Wolf) and RDA with (λ, γ)
chosen by cross-validation inside each training fold, beside scikit-learn's LDA and QDA, on
digits, wine, breast cancer and UCI spambase (stratified 10-fold, seed 0).

RDA's inner cross-validation runs on the statistics: the model is fitted once on the outer
training fold, each inner fold is *unlearned* from it (its scatter subtracted), and every
(λ, γ) of the grid is a re-estimate from the same statistics (``set_params`` on the fitted
model), scored on the inner fold. No inner refit touches the data twice.
"""

from __future__ import annotations

import copy
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy import linalg
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import SingularCovarianceError

LAMBDAS = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
GAMMAS = (0.0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5)
INNER_FOLDS = 10

HEADER = [
    "data",
    "scikit-learn LDA",
    "scikit-learn LDA (shrinkage auto)",
    "scikit-learn QDA",
    "bayeskit LDA",
    "bayeskit LDA (shrinkage auto)",
    "bayeskit QDA",
    "bayeskit RDA, (λ, γ) by inner CV",
    "(λ, γ) chosen most often",
    "RDA seconds",
]


class InnerCVRDA:
    """RegularizedDiscriminantAnalysis with (λ, γ) chosen by an inner stratified
    cross-validation of accuracy (ties: the lower log-loss; 10 folds, as outside)."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> InnerCVRDA:
        full = bk.RegularizedDiscriminantAnalysis(lam=0.5, gamma=0.1).partial_fit(X, y)
        hits = np.zeros((len(LAMBDAS), len(GAMMAS)))
        loss = np.zeros_like(hits)
        folds = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=1)
        for _train, test in folds.split(X, y):
            model = copy.deepcopy(full).unlearn(X[test], y[test])
            for i, lam in enumerate(LAMBDAS):
                for j, gamma in enumerate(GAMMAS):
                    model.set_params(lam=lam, gamma=gamma)
                    try:
                        log_proba = model.predict_log_proba(X[test])
                    except SingularCovarianceError:
                        hits[i, j] -= len(y)  # never chosen
                        continue
                    known = np.isin(y[test], model.classes_)
                    pick = model.classes_[np.argmax(log_proba, axis=1)]
                    hits[i, j] += np.sum(pick == y[test])
                    column = np.searchsorted(model.classes_, y[test][known])
                    loss[i, j] -= log_proba[known, column].sum()
        best = np.lexsort((loss.ravel(), -hits.ravel()))[0]
        i, j = np.unravel_index(best, hits.shape)
        self.choice_ = (LAMBDAS[i], GAMMAS[j])
        self.model_ = full.set_params(lam=LAMBDAS[i], gamma=GAMMAS[j])
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.model_.predict(X)


def _data(root: Path | None) -> list[tuple[str, np.ndarray, np.ndarray]]:
    sets = [
        ("digits (1797 × 64, 10 classes)", *load_digits(return_X_y=True)),
        ("wine (178 × 13, 3 classes)", *load_wine(return_X_y=True)),
        ("breast cancer (569 × 30, 2 classes)", *load_breast_cancer(return_X_y=True)),
    ]
    if root is not None:
        X, y, _ = load_spambase(root)
        sets.append(("spambase (4601 × 57, 2 classes)", X, y))
    return [(name, np.asarray(X, dtype=np.float64), y) for name, X, y in sets]


def _accuracy(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> tuple[str, Any, float]:
    """Pooled accuracy of stratified 10-fold (seed 0), the fitted models, and seconds; or the
    error that stopped a fit, named."""
    predicted = np.empty_like(y)
    models = []
    start = time.perf_counter()
    try:
        for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
            model = make().fit(X[train], y[train])
            models.append(model)
            predicted[test] = model.predict(X[test])
    except SingularCovarianceError:
        return "refused: singular covariance", models, 0.0
    except linalg.LinAlgError:
        return "fails: not full rank", models, 0.0
    return f"{accuracy_score(y, predicted):.4f}", models, time.perf_counter() - start


def discriminant(root: Path | None) -> list[tuple[str, ...]]:
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's collinearity warnings
        for name, X, y in _data(root):
            cells = [
                _accuracy(make, X, y)[0]
                for make in (
                    sk.LinearDiscriminantAnalysis,
                    lambda: sk.LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"),
                    sk.QuadraticDiscriminantAnalysis,
                    bk.LinearDiscriminantAnalysis,
                    lambda: bk.LinearDiscriminantAnalysis(shrinkage="auto"),
                    bk.QuadraticDiscriminantAnalysis,
                )
            ]
            rda, models, seconds = _accuracy(InnerCVRDA, X, y)
            common = Counter(m.choice_ for m in models).most_common(1)[0][0]
            rows.append((name, *cells, rda, f"({common[0]:g}, {common[1]:g})", f"{seconds:.1f}"))
    return rows
