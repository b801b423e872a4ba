"""Hostile review of ParzenWindowClassifier: rows far from the data, data at tiny scales."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import logsumexp

import bayeskit as bk


def _two_blobs(d=2, n=20, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n, d)), rng.normal(3, 1, (n, d))]
    return X, np.repeat(["a", "b"], n)


def _gaussian_joint(X_train, y_train, Q, h):
    """ln P(y) + ln of the gaussian window's density, from cdist and logsumexp."""
    d = X_train.shape[1]
    out = []
    for c in np.unique(y_train):
        A = X_train[y_train == c]
        terms = -0.5 * (cdist(Q, A) / h) ** 2
        log_p = logsumexp(terms, axis=1) - np.log(len(A)) - 0.5 * d * np.log(2 * np.pi * h * h)
        out.append(log_p + np.log(len(A) / len(y_train)))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("offset", [1e9, 1e12])
def test_far_from_the_data_the_nearest_window_decides(offset):
    """Far from every training row (a gaussian term below about −2e17) the kernel sum left out
    its own largest term, compared with ``largest − 50`` which rounds to the largest: every
    class got −inf and the prior decided, not the nearest window."""
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth=1.0).fit(X, y)
    Q = np.array([[offset, offset], [-offset, -offset], [offset + 3, offset + 3]])
    jll = model.predict_joint_log_proba(Q)
    assert np.isfinite(jll).all()
    np.testing.assert_allclose(jll, _gaussian_joint(X, y, Q, 1.0), rtol=1e-12)
    # up and to the right is class b's side, down and to the left class a's
    assert model.predict(Q).tolist() == ["b", "a", "b"]
    assert np.isfinite(model.predict_log_proba(Q)).all()


@pytest.mark.parametrize("kernel", ["gaussian", "exponential"])
def test_a_narrow_window_still_ranks_the_classes_off_the_rows(kernel):
    """A width of 1e-100: a row 1e-3 from a training row of class a has a finite density
    under a (about −1e194 in log) and a smaller one under b; it was −inf for both."""
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth=1e-100, kernel=kernel).fit(X, y)
    Q = X[[0, 1, 25, 30]] + 1e-3
    jll = model.predict_joint_log_proba(Q)
    assert np.isfinite(jll).all()
    assert model.predict(Q).tolist() == ["a", "a", "b", "b"]
