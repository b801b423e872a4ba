"""reg_covar relative to each column's variance (the default) on the cluster: the fit by rounds
reads the same scales from its first round as the fit in memory, and so gives its model in any
units."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
import bayeskit.dask as bkd


@pytest.mark.parametrize("scale", [1e-6, 1.0])
def test_rounds_store_the_in_memory_ridge_scales_in_any_units(on_threads, scale):
    X, y = load_wine(return_X_y=True)
    X = X * scale
    make = lambda: bk.GaussianMixtureClassifier(n_components=2, random_state=0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        here = make().fit(X, y)
        there = bkd.fit(make(), da.from_array(X, chunks=50), y)
    ours, theirs = (m.stats_.blocks[0] for m in (here, there))
    np.testing.assert_allclose(theirs.ridge_scale, ours.ridge_scale, rtol=1e-10)
    np.testing.assert_allclose(ours.ridge_scale[0], X[y == 0].var(axis=0), rtol=1e-10)
    np.testing.assert_allclose(there.predict_proba(X), here.predict_proba(X), atol=1e-8)
