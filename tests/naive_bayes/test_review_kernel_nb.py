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


def test_a_factor_too_wide_for_float64_names_the_bandwidth():
    """A numeric bandwidth factor whose grid passes float64's largest number is the setting's
    fault, and the error says so (it blamed the training numbers); a huge but representable
    factor still fits (every class flat: even odds)."""
    X, y, _ = _blobs()
    with pytest.raises(bk.errors.ParameterError, match=r"bandwidth=1e\+308 gives widths too wide"):
        bk.KernelNB(bandwidth=1e308).fit(X, y)
    wide = bk.KernelNB(bandwidth=1e200).fit(X, y)
    np.testing.assert_allclose(wide.predict_proba(X), 0.5, atol=1e-12)


@pytest.mark.parametrize("flag", ["False", "no", 0, None])
def test_shared_bandwidth_must_be_a_bool(flag):
    """``shared_bandwidth="False"`` gave shared bandwidths in silence."""
    X, y, _ = _blobs()
    with pytest.raises(bk.errors.ParameterError, match="shared_bandwidth must be True or False"):
        bk.KernelNB(shared_bandwidth=flag).fit(X, y)
    fitted = bk.KernelNB(shared_bandwidth=np.bool_(False)).fit(X, y)
    assert not np.allclose(fitted.bandwidth_[0], fitted.bandwidth_[1])
