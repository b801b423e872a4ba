"""Moments under soft class weights (EM's responsibilities, the held-out family choice's
weights) hold the means the one-hot path holds, whatever the weights' scale: a weight near
1e300 times a value of 1e10 is past float64, the mean of such rows is not."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import bayeskit as bk
from bayeskit.stats.moments import Moments

values = st.one_of(st.floats(-1e10, 1e10, allow_nan=False), st.just(np.nan))
# (a class's weights within 1e300 of each other: both paths divide them by the largest)
weights = st.one_of(st.floats(1, 1e300), st.sampled_from([0.0, 1.0, 1e300]))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), d=st.integers(1, 4), k=st.integers(1, 3))
def test_soft_weights_give_the_one_hot_means_at_any_scale(data, n, d, k):
    X = data.draw(hnp.arrays(np.float64, (n, d), elements=values))
    codes = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    w = data.draw(hnp.arrays(np.float64, n, elements=weights))
    one_hot = sp.csr_matrix((w, codes, np.arange(n + 1)), shape=(n, k))
    with np.errstate(over="ignore"):  # M2 past float64 (1e300 times 1e20), on both paths
        hard = Moments.of(X, one_hot)
        soft = Moments.of(X, one_hot.toarray())  # the same weights, dense: the soft path
    np.testing.assert_allclose(soft.weight, hard.weight, rtol=1e-12)
    assert np.isfinite(soft.mean).all()
    np.testing.assert_allclose(soft.mean, hard.mean, rtol=1e-9, atol=1e-300)


def test_a_weight_of_1e300_on_a_value_of_1e10_keeps_its_mean():
    X = np.array([[np.nan], [1.82001237e10]])
    R = np.array([[0.0, 1e300], [1e300, 0.0]])
    moments = Moments.of(X, R)
    np.testing.assert_array_equal(moments.weight, [[1e300], [0.0]])
    np.testing.assert_array_equal(moments.mean, [[1.82001237e10], [0.0]])
    np.testing.assert_array_equal(moments.m2, [[0.0], [0.0]])


def test_mixed_nb_chooses_and_scores_rows_weighted_1e300():
    """Found by the extreme-numbers generator: MixedNB's family choice summarized its
    columns by the soft path, whose class sums overflowed (mean inf), so every row's
    log-likelihood was NaN after unlearning half the rows (and after fitting the half left)."""
    X = np.array([[1.75650216], [3.37909682], [np.nan], [1.82001237e10]])
    y = np.array(["b", "a", "b", "a"])
    w = np.full(4, 1e300)
    model = bk.MixedNB().fit(X, y, sample_weight=w)
    model.unlearn(X[:2], y[:2], sample_weight=w[:2])
    alone = bk.MixedNB().fit(X[2:], y[2:], sample_weight=w[2:])
    assert alone.feature_families_ == {"x0": "gaussian"}
    expected = bk.MixedNB(numeric="gaussian").fit(X[2:], y[2:], sample_weight=w[2:])
    np.testing.assert_array_equal(alone.predict_proba(X), expected.predict_proba(X))
    np.testing.assert_array_equal(model.predict_proba(X), alone.predict_proba(X))
