"""The diagonal mixtures' EM path on prepared rows (centred once, two matrix products per
step) gives what the Gaussian family's general path gives on the raw rows."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit.mixture._components import CentredRows, ComponentParams
from bayeskit.mixture._family import GaussianMixtureFamily


@pytest.mark.parametrize("cov", ["diag", "spherical"])
def test_prepared_rows_score_and_summarize_as_the_raw_rows(cov):
    rng = np.random.default_rng(3)
    # far from the origin, with a tight feature: the expansion needs its exact rescoring
    X = 1e4 + rng.normal(size=(500, 6)) * np.array([1, 2, 1e-3, 5, 1, 1])
    w = rng.uniform(0.5, 2.0, 500)
    R = rng.dirichlet(np.ones(3), 500) * w[:, None]
    model = GaussianMixtureFamily(3, covariance_type=cov)._components()
    prepared = model.prepare(X, w)
    assert isinstance(prepared, CentredRows)
    fast, slow = model.summarize(prepared, R), model.summarize(X, R)
    np.testing.assert_allclose(fast.weight, slow.weight, rtol=1e-12)
    np.testing.assert_allclose(fast.stats.mean, slow.stats.mean, rtol=1e-12)
    np.testing.assert_allclose(fast.stats.m2, slow.stats.m2, rtol=1e-9)
    params = model.finalize(slow)
    params = ComponentParams(params.params, params.log_weight)
    np.testing.assert_allclose(
        model.log_joint(params, prepared), model.log_joint(params, X), rtol=1e-10
    )


def test_missing_values_take_the_general_path():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.5]])
    model = GaussianMixtureFamily(1)._components()
    assert model.prepare(X, np.ones(3)) is X
