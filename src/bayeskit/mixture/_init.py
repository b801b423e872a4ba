"""Starting points of EM: initial responsibilities, as scikit-learn's GaussianMixture draws
them (``init_params``), so that one random state gives the same start in both.

"k-means++" (the default here): k rows chosen by k-means++ seeding
(:func:`sklearn.cluster.kmeans_plusplus`), each the only member of its component; "kmeans":
the labels of one k-means run; "random": uniform random responsibilities; "random_from_data":
k distinct rows chosen at random. Missing values are replaced by the column's weighted mean
for choosing the start only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError

INIT_PARAMS = ("k-means++", "kmeans", "random", "random_from_data")


def check_init_params(value: Any) -> str:
    if not isinstance(value, str) or value not in INIT_PARAMS:
        raise ParameterError(
            f"init_params={value!r} is not accepted; use one of {', '.join(map(repr, INIT_PARAMS))}"
        )
    return value


def initial_responsibilities(
    X: np.ndarray, w: np.ndarray, k: int, init_params: str, random_state: np.random.RandomState
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, R): the rows that start the components and their (len(rows), k) weights."""
    filled = _filled(X, w)
    n = X.shape[0]
    if init_params == "k-means++":
        from sklearn.cluster import kmeans_plusplus

        _, rows = kmeans_plusplus(filled, k, sample_weight=w, random_state=random_state)
        return np.asarray(rows), np.eye(k)
    if init_params == "random_from_data":
        rows = random_state.choice(n, size=k, replace=False)
        return rows, np.eye(k)
    if init_params == "kmeans":
        from sklearn.cluster import KMeans

        labels = KMeans(n_clusters=k, n_init=1, random_state=random_state).fit(
            filled, sample_weight=w
        )
        R = np.zeros((n, k))
        R[np.arange(n), labels.labels_] = w
        return np.arange(n), R
    R = random_state.uniform(size=(n, k))
    R /= R.sum(axis=1, keepdims=True)
    R *= w[:, None]
    return np.arange(n), R


def _filled(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    missing = np.isnan(X)
    if not missing.any():
        return X
    observed = (~missing) * w[:, None]
    total = observed.sum(axis=0)
    mean = np.divide(
        np.where(missing, 0.0, X).T @ w, total, out=np.zeros(X.shape[1]), where=total > 0
    )
    return np.where(missing, mean, X)
