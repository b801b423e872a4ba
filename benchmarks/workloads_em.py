"""Workloads of the EM models: ParzenWindowClassifier against a scikit-learn KernelDensity per
class with the same bandwidth, and GaussianMixtureClassifier against one scikit-learn
GaussianMixture per class with the same settings and start."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.datasets import load_digits
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import KernelDensity

import bayeskit as bk
from workloads import Side, Workload
from workloads_kde import JointClassifier, agreement


class PerClassKDE(JointClassifier):
    """The Parzen-window classifier from scikit-learn parts: ``KernelDensity(bandwidth)`` per
    class (exact: ``atol=rtol=0``) plus the log prior."""

    def __init__(self, bandwidth: float = 1.0):
        self.bandwidth = bandwidth

    def fit(self, X: np.ndarray, y: np.ndarray) -> PerClassKDE:
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.log_prior_ = np.log(np.bincount(codes) / len(y))
        self.kdes_ = [
            KernelDensity(bandwidth=self.bandwidth, atol=0, rtol=0).fit(X[codes == c])
            for c in range(len(self.classes_))
        ]
        return self

    def predict_joint_log_proba(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([k.score_samples(X) for k in self.kdes_]) + self.log_prior_


class PerClassGMM(JointClassifier):
    """One scikit-learn ``GaussianMixture`` per class plus the log prior (what
    GaussianMixtureClassifier computes)."""

    def __init__(self, n_components: int = 4, covariance_type: str = "diag"):
        self.n_components = n_components
        self.covariance_type = covariance_type

    def fit(self, X: np.ndarray, y: np.ndarray) -> PerClassGMM:
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.log_prior_ = np.log(np.bincount(codes) / len(y))
        self.mixtures_ = [
            GaussianMixture(
                self.n_components,
                covariance_type=self.covariance_type,
                init_params="k-means++",
                random_state=0,
            ).fit(X[codes == c])
            for c in range(len(self.classes_))
        ]
        return self

    def predict_joint_log_proba(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([m.score_samples(X) for m in self.mixtures_]) + self.log_prior_


@cache
def clusters(
    n_rows: int, n_features: int, n_classes: int, per_class: int, seed: int, spread: float = 2.0
) -> Any:
    """Each class a mixture of ``per_class`` overlapping Gaussian clusters (diagonal
    covariances of different scales; centres drawn with standard deviation ``spread``),
    seeded."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, spread, (n_classes, per_class, n_features))
    scales = rng.uniform(0.5, 2.0, (n_classes, per_class, n_features))
    y = rng.integers(0, n_classes, n_rows)
    k = rng.integers(0, per_class, n_rows)
    X = centres[y, k] + rng.normal(size=(n_rows, n_features)) * scales[y, k]
    return X, y


@cache
def digits() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_digits(return_X_y=True)
    return X.astype(np.float64), y


def exact_where_they_differ(
    data: Callable[[], tuple[np.ndarray, np.ndarray]] | None, queries: Callable[[], np.ndarray]
) -> Callable[[Any, Any], str]:
    """The check of the Parzen workloads: agreement, and on the rows where the two disagree,
    each side's largest distance from the exact joint log-likelihood (a brute-force gaussian
    kernel sum in log space): scikit-learn's trees lose digits far from a class (its issues
    #7492 and #27186)."""

    def compare(sk_model: Any, bk_model: Any) -> str:
        text = agreement(queries)(sk_model, bk_model)
        X, y = data() if data is not None else _training_rows(bk_model)
        Q = queries()
        ours, theirs = bk_model.predict_joint_log_proba(Q), sk_model.predict_joint_log_proba(Q)
        differ = np.flatnonzero(ours.argmax(axis=1) != theirs.argmax(axis=1))[:10]
        if not len(differ):
            return text
        h = bk_model.bandwidth_
        exact = np.array([_exact(X, y, Q[i], h) for i in differ])
        gap = lambda a: float(np.max(np.abs(a[differ] - exact)))  # noqa: E731
        return (
            rf"{text}; there, max \|Δ log p\| from exact sums: bayeskit {gap(ours):.1e}, "
            f"scikit-learn {gap(theirs):.1e}"
        )

    return compare


def _training_rows(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rows and labels a Parzen classifier holds (its Sample statistic)."""
    sample = model.stats_.blocks[0]
    return sample.values, model.classes_[np.argmax(sample.weight, axis=0)]


def _exact(X: np.ndarray, y: np.ndarray, q: np.ndarray, h: float) -> np.ndarray:
    """``ln P(c) + ln p̂(q | c)`` by a brute-force gaussian kernel sum."""
    out = []
    d = X.shape[1]
    for c in np.unique(y):
        A = X[y == c]
        d2 = ((A - q) ** 2).sum(axis=1)
        norm = 0.5 * d * np.log(2 * np.pi * h * h)
        out.append(logsumexp(-d2 / (2 * h * h)) - np.log(len(A)) - norm + np.log(len(A) / len(y)))
    return np.array(out)


def _parzen(X: np.ndarray, y: np.ndarray, X_pred: np.ndarray) -> tuple[Side, Side]:
    h = bk.ParzenWindowClassifier().fit(X, y).bandwidth_  # Scott's width, given to both
    return (
        Side(lambda: PerClassKDE(bandwidth=h), X, y, X_pred),
        Side(lambda: bk.ParzenWindowClassifier(bandwidth=h), X, y, X_pred),
    )


def _parzen_digits(quick: bool) -> tuple[Side, Side]:
    X, y = digits()
    return _parzen(X, y, X)


def parzen_queries() -> np.ndarray:
    return clusters(2_000, 10, 5, 3, 11)[0]


def parzen_data(quick: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return clusters(20_000 if quick else 100_000, 10, 5, 3, 10)


def _parzen_1e5(quick: bool) -> tuple[Side, Side]:
    X, y = parzen_data(quick)
    return _parzen(X, y, parzen_queries())


def gmm_queries() -> np.ndarray:
    return clusters(5_000, 20, 5, 4, 21, 1.0)[0]


def _gmm_fit(quick: bool) -> tuple[Side, Side]:
    X, y = clusters(20_000 if quick else 100_000, 20, 5, 4, 20, 1.0)
    X_pred = gmm_queries()
    return (
        Side(lambda: PerClassGMM(4), X, y, X_pred),
        Side(
            lambda: bk.GaussianMixtureClassifier(
                n_components=4, init_params="k-means++", random_state=0
            ),
            X,
            y,
            X_pred,
        ),
    )


def digits_queries() -> np.ndarray:
    return digits()[0]


WORKLOADS = [
    Workload(
        "parzen-digits",
        5.0,
        _parzen_digits,
        compare=exact_where_they_differ(digits, digits_queries),
    ),
    Workload(
        "parzen-1e5",
        5.0,
        _parzen_1e5,
        # the training rows are read from the fitted model (quick runs use fewer)
        compare=exact_where_they_differ(None, parzen_queries),
    ),
    Workload("gmm-fit", 1.5, _gmm_fit, phase="fit", compare=agreement(gmm_queries)),
]
