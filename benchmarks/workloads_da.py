"""Discriminant analysis workloads: bayeskit's LDA and QDA against scikit-learn's on 10⁵ × 50
synthetic rows with 10 classes and on digits, and streaming LDA (ten ``partial_fit`` batches)
against scikit-learn refitting on the data seen so far after each batch."""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import numpy as np
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_digits

import bayeskit as bk
from workloads import Side, Workload

N_ROWS, N_FEATURES, N_CLASSES, N_BATCHES = 100_000, 50, 10, 10


@cache
def gaussian_classes(quick: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X_fit, y, X_pred): K classes, each normal with its own mean and covariance."""
    n = N_ROWS // 10 if quick else N_ROWS
    rng = np.random.default_rng(20241109)
    means = rng.normal(scale=1.5, size=(N_CLASSES, N_FEATURES))
    # well-conditioned covariances (singular values about 0.5 to 1.5): every class regular
    mixing = 0.5 * rng.normal(size=(N_CLASSES, N_FEATURES, N_FEATURES)) / np.sqrt(N_FEATURES)
    mixing += np.eye(N_FEATURES)

    def draw(size: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, N_CLASSES, size)
        Z = rng.normal(size=(size, N_FEATURES))
        return np.einsum("nd,nde->ne", Z, mixing[y]) + means[y], y

    X, y = draw(n)
    X_pred, _ = draw(n)
    return X, y, X_pred


@cache
def digits() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_digits(return_X_y=True)
    return X.astype(np.float64), y


def _synthetic(sk_make: Any, bk_make: Any) -> Any:
    def build(quick: bool) -> tuple[Side, Side]:
        X, y, X_pred = gaussian_classes(quick)
        return Side(sk_make, X, y, X_pred), Side(bk_make, X, y, X_pred)

    return build


def _digits(sk_make: Any, bk_make: Any) -> Any:
    def build(quick: bool) -> tuple[Side, Side]:
        X, y = digits()
        return Side(sk_make, X, y, X), Side(bk_make, X, y, X)

    return build


class RefitOnGrowingData:
    """scikit-learn's LDA kept up to date on a stream: no partial_fit (its issue #30042), so
    after each batch it is fitted again on everything seen so far."""

    def __init__(self) -> None:
        self.model: Any = None

    def fit(self, X: np.ndarray, y: np.ndarray) -> RefitOnGrowingData:
        bounds = np.linspace(0, len(y), N_BATCHES + 1).astype(int)[1:]
        for end in bounds:
            self.model = sk.LinearDiscriminantAnalysis().fit(X[:end], y[:end])
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(X))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict_proba(X))


class PartialFitBatches:
    """bayeskit's LDA on the same stream: one ``partial_fit`` per batch, each leaving an
    up-to-date model (its parameters are finalised after every batch)."""

    def __init__(self) -> None:
        self.model = bk.LinearDiscriminantAnalysis()

    def fit(self, X: np.ndarray, y: np.ndarray) -> PartialFitBatches:
        bounds = np.linspace(0, len(y), N_BATCHES + 1).astype(int)
        for start, end in itertools.pairwise(bounds):
            self.model.partial_fit(X[start:end], y[start:end])
            self.model.coef_  # the up-to-date model after each batch  # noqa: B018
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.model.predict(X)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.model.predict_proba(X)


def _stream(quick: bool) -> tuple[Side, Side]:
    X, y, X_pred = gaussian_classes(quick)
    return Side(RefitOnGrowingData, X, y, X_pred), Side(PartialFitBatches, X, y, X_pred)


WORKLOADS = [
    Workload(
        "lda-fit-predict",
        2.0,
        _synthetic(sk.LinearDiscriminantAnalysis, bk.LinearDiscriminantAnalysis),
    ),
    Workload(
        "qda-fit-predict",
        2.0,
        _synthetic(sk.QuadraticDiscriminantAnalysis, bk.QuadraticDiscriminantAnalysis),
    ),
    Workload(
        "lda-fit-predict-digits",
        2.0,
        _digits(sk.LinearDiscriminantAnalysis, bk.LinearDiscriminantAnalysis),
    ),
    Workload(
        "qda-fit-predict-digits",
        2.0,
        _digits(
            lambda: sk.QuadraticDiscriminantAnalysis(reg_param=0.1),
            lambda: bk.QuadraticDiscriminantAnalysis(reg_param=0.1),
        ),
    ),
    Workload("lda-stream", 5.0, _stream, phase="fit"),
]
