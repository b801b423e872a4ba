"""Kernel density workloads: KernelNB against scikit-learn parts (a ``KernelDensity`` per class
and feature with the same bandwidths and tail), on spambase and on 10⁵ synthetic rows."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import KernelDensity

import bayeskit as bk
from workloads import Side, Workload, spambase


class JointClassifier(ClassifierMixin, BaseEstimator):
    """A reference classifier from its ``predict_joint_log_proba``: posteriors by
    log-sum-exp, decisions by the largest joint."""

    classes_: np.ndarray

    def predict_joint_log_proba(self, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        jll = self.predict_joint_log_proba(X)
        return np.exp(jll - logsumexp(jll, axis=1, keepdims=True))

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(self.predict_joint_log_proba(X), axis=1)]


class PerFeatureKDE(JointClassifier):
    """Naive Bayes from scikit-learn parts: a ``KernelDensity`` per class and feature.

    Bandwidths follow KernelNB's defaults: Silverman's rule ``0.9 min(σ, IQR/1.349) n^(-1/5)``
    per class (σ where the quartiles coincide), averaged over the classes weighted by their
    sizes, floored at 1e-3 of the feature's overall σ. ``rtol`` is KernelDensity's relative
    tolerance (0: exact).
    """

    def __init__(self, rtol: float = 0.0):
        self.rtol = rtol

    def fit(self, X: np.ndarray, y: np.ndarray) -> PerFeatureKDE:
        self.classes_, codes = np.unique(y, return_inverse=True)
        parts = [X[codes == c] for c in range(len(self.classes_))]
        n = np.array([len(p) for p in parts], dtype=float)
        self.log_prior_ = np.log(n / n.sum())
        sigma = np.array([p.std(axis=0) for p in parts])
        q1, q3 = np.array([np.percentile(p, [25, 75], axis=0) for p in parts]).transpose(1, 0, 2)
        iqr = q3 - q1
        robust = np.where(iqr > 0, np.minimum(sigma, iqr / 1.349), sigma)
        rule = 0.9 * robust * n[:, None] ** -0.2
        self.tail_loc_, self.tail_scale_ = X.mean(axis=0), X.std(axis=0)
        self.bandwidth_ = np.maximum((n[:, None] * rule).sum(0) / n.sum(), 1e-3 * self.tail_scale_)
        self.n_ = n
        self.kdes_ = [
            [
                KernelDensity(bandwidth=h, rtol=self.rtol).fit(p[:, [j]])
                for j, h in enumerate(self.bandwidth_)
            ]
            for p in parts
        ]
        return self

    def predict_joint_log_proba(self, X: np.ndarray) -> np.ndarray:
        z = (X - self.tail_loc_) / self.tail_scale_
        log_g = -np.log(np.pi * self.tail_scale_) - np.log1p(z * z)
        jll = np.tile(self.log_prior_, (len(X), 1))
        for c, kdes in enumerate(self.kdes_):
            for j, kde in enumerate(kdes):
                log_kde = np.log(self.n_[c]) + kde.score_samples(X[:, [j]])
                jll[:, c] += np.logaddexp(log_kde, log_g[:, j]) - np.log(self.n_[c] + 1.0)
        return jll


@cache
def synthetic(
    n_rows: int, n_features: int, n_classes: int = 2, seed: int = 20240607
) -> tuple[np.ndarray, np.ndarray]:
    """Skewed, bimodal and heavy-tailed real features whose shape differs between classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    shift = np.random.default_rng(0).normal(0, 1, (n_classes, n_features))
    X = rng.standard_t(4, (n_rows, n_features)) + shift[y]
    bimodal = rng.random((n_rows, n_features)) < 0.3
    X += bimodal * 3.0 * (y % 2 + 1)[:, None]
    X[:, ::3] = np.exp(X[:, ::3] / 3)  # skewed columns
    return X, y


def spambase_queries() -> np.ndarray:
    return spambase()[0][::10]  # 461 rows, both classes


def synthetic_queries() -> np.ndarray:
    return synthetic(1_000, 4, 2, seed=7)[0]


def agreement(queries: Callable[[], np.ndarray]) -> Callable[[Any, Any], str]:
    """The check: how often the two predict alike, how far apart their probabilities are, and
    how close to a tie the rows they disagree on are."""

    def compare(sk_model: Any, bk_model: Any) -> str:
        X = queries()
        ours, theirs = bk_model.predict_proba(X), sk_model.predict_proba(X)
        differ = ours.argmax(axis=1) != theirs.argmax(axis=1)
        text = (
            f"predictions agree on {len(X) - differ.sum()}/{len(X)}; "
            f"max \\|Δproba\\| {np.abs(ours - theirs).max():.1e}"
        )
        if differ.any():
            top2 = np.sort(theirs[differ], axis=1)[:, -2:]
            text += (
                f" (disagreements are near-ties: top-two gap ≤ {np.ptp(top2, axis=1).max():.1e})"
            )
        return text

    return compare


# scikit-learn's trees sum a kernel over the training rows for every prediction: ~0.4 s per
# (class, feature) for spambase's 4,601 rows and ~60 s for 10^5 predictions against 3×10^4 rows.
# Its side is given rtol=1e-4 (our binned estimate is within ~5e-4 of the exact one, see
# tests/families/test_kernel.py), and both sides predict a subset so a run takes seconds.


def _spambase(quick: bool) -> tuple[Side, Side]:
    X, y = spambase()
    X_pred = spambase_queries()
    return (
        Side(lambda: PerFeatureKDE(rtol=1e-4), X, y, X_pred),
        Side(bk.KernelNB, X, y, X_pred),
    )


def _synthetic(quick: bool) -> tuple[Side, Side]:
    X, y = synthetic(20_000, 4) if quick else synthetic(100_000, 4)
    X_pred = synthetic_queries()
    return (
        Side(lambda: PerFeatureKDE(rtol=1e-4), X, y, X_pred),
        Side(bk.KernelNB, X, y, X_pred),
    )


WORKLOADS = [
    Workload("kde-spambase", 10.0, _spambase, compare=agreement(spambase_queries)),
    Workload("kde-synthetic-1e5", 10.0, _synthetic, compare=agreement(synthetic_queries)),
]
