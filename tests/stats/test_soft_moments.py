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
from bayeskit.stats import moments
from bayeskit.stats.moments import Moments

# (no products below 1e-200: subnormal arithmetic loses digits on either path)
values = st.one_of(
    st.floats(-1e10, -1e-100), st.floats(1e-100, 1e10), st.sampled_from([0.0, np.nan])
)
weights = st.one_of(st.floats(1e-100, 1e300), st.sampled_from([0.0, 1.0, 1e300, 1e-100]))


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


def test_a_light_observed_row_beside_a_heavy_missing_one_keeps_its_value():
    """The one-hot path divided a class's weights by a power of two above the largest of the
    whole class, a row whose value is missing included: a row of weight 1e-120 beside one
    of 5.4e213 was divided to nothing, and the class's mean read 0 where its only value is
    1 (found by the property test above)."""
    X = np.array([[1.0], [np.nan]])
    w = np.array([1e-120, 5.38637916e213])
    one_hot = sp.csr_matrix((w, [0, 0], [0, 1, 2]), shape=(2, 1))
    compiled = moments._labelled_moments(X, np.zeros(2, np.int64), w, 1)
    small = moments._labelled_moments_small(X, np.zeros(2, np.int64), w, 1)
    for found in (Moments.of(X, one_hot), Moments.of(X, one_hot.toarray())):
        np.testing.assert_array_equal(found.mean, [[1.0]])
        np.testing.assert_array_equal(found.weight, [[w[0]]])
    for found in (compiled, small):
        np.testing.assert_array_equal(found[1], [[1.0]])


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


def _both_paths(X, w, codes, k):
    """The moments of one table by the compiled loop, by numpy, and by the soft path."""
    codes = np.asarray(codes, np.int64)
    one_hot = sp.csr_matrix((w, codes, np.arange(len(w) + 1)), shape=(len(w), k))
    return {
        "compiled": moments._labelled_moments(X, codes, w, k)[1],
        "numpy": moments._labelled_moments_small(X, codes, w, k)[1],
        "soft": Moments.of(X, one_hot.toarray()).mean,
    }


def test_the_mean_of_values_near_the_largest_float_is_finite_at_any_weight():
    """Weights scaled so that only their largest sat in (1/2, 1] summed past float64 for two
    rows of 1e308 (mean inf); weights of 1/2 were scaled up to 1 for it, so the same rows
    that once gave 1e308 gave inf. The scaled weights now sum to at most 1."""
    X = np.array([[1e308], [1e308], [-1.7e308]])
    for w in ([0.5, 0.5, 1.0], [1.0, 1.0, 1.0], [1e300, 1e300, 1.0], [1e-300, 1e-300, 1.0]):
        for path, mean in _both_paths(X, np.array(w), [0, 0, 1], 2).items():
            np.testing.assert_allclose(mean, [[1e308], [-1.7e308]], rtol=1e-15, err_msg=path)


def test_one_row_near_the_largest_float_keeps_its_value_under_a_soft_weight_of_3():
    """The soft path's scale brought a class's largest weight to [1, 2): a weight of 3 on
    1.5e308 overflowed where the one-hot path gave the value back."""
    X = np.array([[1.5e308]])
    for path, mean in _both_paths(X, np.array([3.0]), [0], 1).items():
        np.testing.assert_array_equal(mean, [[1.5e308]], err_msg=path)


def test_only_a_class_of_tiny_responsibilities_is_summed_again():
    """An EM component whose responsibilities sum below 2^-40 takes the scaled passes;
    the other classes keep the matrix product's means to the bit (every class was summed
    again before, and moved in its last digits)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) * 1e3 + 7.0
    R = rng.dirichlet(np.ones(3), size=50)
    plain = Moments.of(X, R)
    tiny = R.copy()
    tiny[:, 2] = 1e-40 * rng.random(50)
    found = Moments.of(X, tiny)
    np.testing.assert_array_equal(found.mean[:2], moments._soft_means(X, tiny)[1][:2])
    np.testing.assert_array_equal(found.mean[:2], plain.mean[:2])
    expected = (tiny[:, 2] @ X) / tiny[:, 2].sum()
    np.testing.assert_allclose(found.mean[2], expected, rtol=1e-13)
    called = []
    original = moments._soft_means_scaled

    def spy(X, R):
        called.append(R.shape[1])
        return original(X, R)

    moments._soft_means_scaled = spy
    try:
        Moments.of(X, tiny)
    finally:
        moments._soft_means_scaled = original
    assert called == [1]


def test_power_scales_bring_every_weight_to_a_half_up_to_one():
    top = np.array([1.0, 0.5, 1 + 2**-52, 3.0, 1e300, 1e-300, 5e-324, 0.0])
    scales = moments._power_scales(top)
    for t, s in zip(top[:-2], scales[:-2], strict=True):
        assert 0.5 <= t * s < 1.0
        assert s == moments._power_scale(t)
    assert scales[-2] == 2.0**1000
    assert scales[-1] == 1.0


def test_a_feature_observed_only_in_a_class_s_lightest_rows_keeps_its_value_on_the_soft_path():
    """The soft path summed a class scaled only when its largest weight was tiny, whichever
    rows observe the feature: a class's heavy row missing the value beside a subnormal one
    observing it gave 1.0 for 0.7 (the product 0.7 x 5e-324 is 5e-324), 0 for 1e-200;
    weights of 1e-20 on values of 1e-300 lost digits to subnormal products. Now any
    (class, feature) whose observed weights sum below 2^-40 has its class summed scaled,
    as the one-hot path rescales it."""
    cases = [
        (np.array([[np.nan], [0.7]]), np.array([[1.0], [5e-324]]), 0.7),
        (np.array([[np.nan], [1e-200]]), np.array([[1.0], [1e-200]]), 1e-200),
        (np.array([[np.nan], [0.3]]), np.array([[1.0], [1e-310]]), 0.3),
        (np.array([[1e-300], [3e-300]]), np.array([[1e-20], [1e-20]]), 2e-300),
    ]
    for X, R, expected in cases:
        soft = Moments.of(X, R)
        hard = Moments.of(X, sp.csr_matrix(R))
        np.testing.assert_allclose(soft.mean, [[expected]], rtol=1e-15)
        np.testing.assert_allclose(hard.mean, [[expected]], rtol=1e-15)
