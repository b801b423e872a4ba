"""Hostile review of KernelNB: features of tiny magnitude."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk


def _blobs():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (20, 3)), rng.normal(3, 1, (20, 3))]
    Q = rng.normal(1.5, 2, (10, 3))
    Q[2, 1] = np.nan  # a missing value adds nothing, scaled or not
    return X, np.repeat([0, 1], 20), Q


@pytest.mark.parametrize("scale", [1e-170, 1e-250, 1e-305])
@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"bandwidth": "cv"},
        {"kernel": "epanechnikov", "shared_bandwidth": False},
        {"bandwidth": 0.5},
    ],
    ids=str,
)
def test_tiny_features_are_the_same_model_rescaled(settings, scale):
    """Features below about 1e-165: their variances underflowed to 0, every bandwidth fell to
    the floor of a constant feature and the prior decided every row (accuracy 0.5 on two
    separated blobs). The model of ``s X`` is now the model of X rescaled: the same
    posteriors, bandwidths times s, each observed value's density divided by s."""
    X, y, Q = _blobs()
    plain = bk.KernelNB(**settings).fit(X, y)
    tiny = bk.KernelNB(**settings).fit(X * scale, y)
    np.testing.assert_allclose(tiny.predict_proba(Q * scale), plain.predict_proba(Q), atol=1e-11)
    np.testing.assert_allclose(tiny.bandwidth_ / scale, plain.bandwidth_, rtol=1e-13)
    observed = (~np.isnan(Q)).sum(axis=1)[:, None]
    np.testing.assert_allclose(
        tiny.predict_joint_log_proba(Q * scale) + observed * np.log(scale),
        plain.predict_joint_log_proba(Q),
        rtol=1e-11,
    )
    assert (tiny.predict(X * scale) == y).all()


def test_one_tiny_feature_among_ordinary_ones(tmp_path):
    X, y, Q = _blobs()
    X2, Q2 = X.copy(), Q.copy()
    X2[:, 0] *= 1e-200
    Q2[:, 0] *= 1e-200
    model = bk.KernelNB().fit(X2, y)
    np.testing.assert_allclose(model.predict_proba(Q2), bk.KernelNB().fit(X, y).predict_proba(Q))
    bk.save(model, tmp_path / "m.bk")
    np.testing.assert_array_equal(
        bk.load(tmp_path / "m.bk").predict_proba(Q2), model.predict_proba(Q2)
    )
