"""A learn and its unlearn leave ``MixedNB()``'s held-out family choice as the fit made it: the
rows cancelled against their originals stay rows of one class each."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.stats import Sample


def test_a_value_two_classes_share_stays_a_row_of_each_after_an_unlearn():
    """The cancelled rows were merged by value across classes (one row weighing in both),
    and the folds, by each row's class, then differed from the fit's: Gaussian instead of
    discretized, probabilities [0, 1] instead of [1/3, 2/3]."""
    X, y = np.array([[5.0], [0.0], [0.0]]), np.array([1, 0, 1])
    fitted = bk.MixedNB().fit(X, y)
    back = bk.MixedNB().fit(X, y).partial_fit([[9.5]], [0]).unlearn([[9.5]], [0])
    assert back.feature_families_ == fitted.feature_families_ == {"x0": "discretized"}
    np.testing.assert_allclose(back.predict_proba(X), fitted.predict_proba(X), rtol=1e-12)


def test_netting_merges_equal_rows_of_one_class_only():
    weight = np.array([[1.0, 0.0, 2.0, -1.0], [0.0, 3.0, 0.0, 0.0]])
    values = np.array([[0.0], [0.0], [0.0], [7.0]])
    net = Sample(weight, values).without_empty(0.0)
    np.testing.assert_array_equal(net.weight, [[3.0, 0.0, -1.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(net.values, [[0.0], [0.0], [7.0]])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_learn_and_its_unlearn_leave_the_fit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 25))
    X = np.column_stack(
        [rng.integers(0, 4, size=n).astype(float), np.round(rng.normal(size=n) * 3, 1)]
    )
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    extra = np.array([[float(rng.integers(0, 6)), float(np.round(rng.normal() * 3, 1))]])
    label = [int(rng.integers(0, 2))]
    fitted = bk.MixedNB().fit(X, y)
    back = bk.MixedNB().fit(X, y).partial_fit(extra, label).unlearn(extra, label)
    assert back.feature_families_ == fitted.feature_families_
    np.testing.assert_allclose(
        back.predict_proba(X), fitted.predict_proba(X), rtol=1e-9, atol=1e-12
    )


def test_the_kernel_bandwidth_does_not_depend_on_the_order_of_fractional_weights():
    """Tied values weighing 0.3 + 0.2 + 0.4 + 0.1 reach the quartile's copy position 1.0 or
    1.0000000000000002 by the order they come in: the position fell on one side or the other
    (bandwidth 0.581 or 0.682, P(0 | 2) 0.908 or 0.925)."""
    X = np.array([[1.0], [1.0], [1.0], [1.0], [3.0], [10.0], [12.0]])
    y = np.array([0, 0, 0, 0, 0, 1, 1])
    w = np.array([0.3, 0.2, 0.4, 0.1, 1, 1, 1])
    whole = bk.MixedNB(numeric="kernel").fit(X, y, sample_weight=w)
    rows = bk.MixedNB(numeric="kernel")
    for i in [2, 1, 0, 3, 4, 5, 6]:
        rows.partial_fit(X[[i]], y[[i]], classes=[0, 1], sample_weight=w[[i]])
    np.testing.assert_allclose(rows.predict_proba([[2.0]]), whole.predict_proba([[2.0]]), rtol=1e-9)


def test_an_unlearn_of_fractional_weights_leaves_the_kernel_fit():
    X = np.array(
        [[0, 4.5], [1, 5.5], [4, 2.5], [6, 2.5], [1, 1.5], [1, 1.5], [6, 0.5], [3, 5.5], [3, 1.5]]
    )
    y = np.array([0, 1, 0, 0, 1, 1, 0, 1, 1])
    w = np.array([0.2, 0.3, 0.7, 0.7, 0.2, 0.1, 0.1, 0.1, 0.3])
    fitted = bk.MixedNB().fit(X, y, sample_weight=w)
    back = bk.MixedNB().fit(X, y, sample_weight=w)
    back.partial_fit(X[[6]], y[[6]], sample_weight=[0.2]).unlearn(
        X[[6]], y[[6]], sample_weight=[0.2]
    )
    assert back.feature_families_ == fitted.feature_families_
    np.testing.assert_allclose(
        back.predict_proba(X), fitted.predict_proba(X), rtol=1e-9, atol=1e-12
    )


def test_weights_of_1e300_choose_as_weights_of_1():
    """A column missing in every row of a class left 2e-316 of observed weight after a fold's
    rows were subtracted (1.0000000000000002e-300 - 1e-300): the Poisson candidate's rate
    divided by it and the whole fit was refused (naming the wrong column of two)."""
    X = np.array(
        [
            [4.2, np.nan],
            [2.2, 1],
            [4.2, 1],
            [2.2, 1],
            [0.2, 1],
            [2.2, np.nan],
            [4.2, 1],
            [2.2, 1],
            [2.2, 1],
            [2.2, 1],
        ]
    )
    y = [2, 1, 2, 1, 0, 1, 2, 1, 1, 1]
    tiny = bk.MixedNB().fit(X, y, sample_weight=np.full(10, 1e-300))
    ones = bk.MixedNB().fit(X, y)
    assert tiny.feature_families_ == ones.feature_families_
    np.testing.assert_allclose(tiny.predict_proba(X), ones.predict_proba(X), rtol=1e-9)


def test_a_constant_feature_s_floor_does_not_depend_on_the_row_order():
    """The class means summed in reverse order left a pooled variance of 1e-32 for values of
    0.7, not 0: the floor for a constant feature (the size of its value) gave way to 1e-9 of
    that residue, 1.2e-41 against 4.9e-10, and P(1 | 0.701) was 1.0 against 0.68."""
    X = np.full((4, 1), 0.7)
    y = np.array([0, 1, 1, 1])
    w = np.array([0.7, 0.6, 0.7, 0.2])
    for options in ({}, {"var_floor": "column"}, {"estimate": "predictive"}):
        a = bk.GaussianNB(**options).fit(X, y, sample_weight=w)
        b = bk.GaussianNB(**options).fit(X[::-1], y[::-1], sample_weight=w[::-1])
        np.testing.assert_allclose(
            b.predict_proba([[0.701]]), a.predict_proba([[0.701]]), rtol=1e-6
        )
    X = np.array([[2.0], [2.0], [2.5], [2.1], [np.nan]])
    y = np.array([1, 0, 1, 0, 0])
    w = np.array([0.3, 0.9, 0.1, 0.7, 0.3])
    gone = [3, 0, 1]
    back = (
        bk.GaussianNB().fit(X, y, sample_weight=w).unlearn(X[gone], y[gone], sample_weight=w[gone])
    )
    rest = bk.GaussianNB().fit(X[[2, 4]], y[[2, 4]], sample_weight=w[[2, 4]])
    np.testing.assert_allclose(back.epsilon_, rest.epsilon_, rtol=1e-12)
