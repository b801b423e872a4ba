"""The additive laws on adversarial batches and scales (the grid's laws cut the rows at random
points; here: rows one at a time, each class in a batch of its own, weights with zeros and
fractions, values near float64's ends), to the posteriors' last digits."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError, MergeError

from ._grid import Case, _arrays, assert_same_model, dataset, law_cases


def assert_same_posteriors(a, b, X) -> None:
    """The law's statistics (as the grid compares them) and the log-posteriors to 1e-10 plus
    1e-11 of their size (posteriors to 1e-10 relative where they are not vanishingly small),
    or both refusing alike.

    Log space, because statistics equal to 1e-12 relative (an unlearn's subtraction) give a
    log-posterior of -600 (a posterior of 1e-261) to ~6e-10, its posterior to 6e-10 relative:
    a test of posteriors to 1e-10 relative failed for 1.2 % of GaussianNB's seeds on such
    entries while every moderate posterior agreed to the digits asked."""
    assert_same_model(a, b, X, score_rtol=None)
    try:
        expected = b.predict_log_proba(X)
    except BayeskitError as refusal:
        with pytest.raises(type(refusal)):
            a.predict_log_proba(X)
        return
    # (A posterior of exactly 0, -inf, must be -inf on both sides; NaN nowhere.)
    actual = a.predict_log_proba(X)
    assert not np.isnan(expected).any()
    np.testing.assert_allclose(actual, expected, rtol=1e-11, atol=1e-10, equal_nan=False)


def batches(plan: str, y: np.ndarray, seed: int) -> list[np.ndarray]:
    """Row indices of each batch: one row each, one class each (classes first seen in later
    batches, no ``classes`` given) or random cuts."""
    if plan == "rows":
        return [np.array([i]) for i in range(len(y))]
    if plan == "classes":
        return [np.flatnonzero(y == c) for c in np.unique(y)]
    cuts = np.sort(np.random.default_rng(seed).choice(np.arange(1, len(y)), 3, replace=False))
    return np.split(np.arange(len(y)), cuts)


@pytest.mark.parametrize("case", law_cases("incremental", statistics=True))
@settings(max_examples=4, deadline=None)
@given(
    plan=st.sampled_from(["rows", "classes", "cuts"]),
    seed=st.integers(0, 10_000),
    weighted=st.booleans(),
)
def test_fit_equals_partial_fits_of_adversarial_batches(
    case: Case, plan: str, seed: int, weighted: bool
):
    X, y = dataset(case, seed=seed, n=24)
    weights = None
    if weighted:  # zeros and fractions; each class keeps a row of weight 1
        weights = np.random.default_rng(seed).choice([0.0, 0.25, 1.0, 2.5], size=len(y))
        weights[[int(np.flatnonzero(y == c)[0]) for c in np.unique(y)]] = 1.0
    whole = case.make().fit(X, y, sample_weight=weights)
    streamed = case.make()
    for rows in batches(plan, y, seed):
        w = None if weights is None else weights[rows]
        if w is not None and not w.any():
            continue  # a batch of weight 0 is refused by name, and holds nothing
        streamed.partial_fit(X[rows], y[rows], sample_weight=w)
    assert_same_posteriors(streamed, whole, X)


@pytest.mark.parametrize("case", law_cases("unlearnable", statistics=True))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_unlearning_rows_learned_one_at_a_time_gives_back_the_model(case: Case, seed: int):
    X, y = dataset(case, seed=seed, n=30)
    first = np.arange(len(y)) < 20
    model = case.make().partial_fit(X[first], y[first])
    before = copy.deepcopy(model)
    for i in range(20, len(y)):
        model.partial_fit(X[i : i + 1], y[i : i + 1])
    for i in reversed(range(20, len(y))):
        model.unlearn(X[i : i + 1], y[i : i + 1])
    assert_same_posteriors(model, before, X)


@pytest.mark.parametrize("case", law_cases("unlearnable", statistics=True))
def test_a_refused_unlearn_leaves_the_model_unchanged(case: Case):
    X, y = dataset(case, seed=9, n=30)
    model = case.make().fit(X, y)
    before = copy.deepcopy(model)
    with pytest.raises(MergeError, match="never saw"):
        model.unlearn(X[:1], ["never"])
    assert_same_posteriors(model, before, X)
    for block_a, block_b in zip(model.stats_.blocks, before.stats_.blocks, strict=True):
        for key, value in _arrays(block_a)[0].items():
            np.testing.assert_array_equal(value, _arrays(block_b)[0][key])


COUNT_MODELS = [
    pytest.param(bk.MultinomialNB, id="MultinomialNB"),
    # a smoothing below the counts: the counts decide the posteriors
    pytest.param(lambda: bk.MultinomialNB(alpha=1e-14), id="MultinomialNB-small-alpha"),
    pytest.param(lambda: bk.ComplementNB(norm=True), id="ComplementNB"),
    pytest.param(lambda: bk.MultinomialNB(smoothing="corpus"), id="MultinomialNB-corpus"),
    pytest.param(bk.PoissonNB, id="PoissonNB"),
]


@pytest.mark.parametrize("scale", [1e-12, 1e-300])
@pytest.mark.parametrize("make", COUNT_MODELS)
def test_unlearning_keeps_counts_of_small_values(make, scale: float):
    """Counts of values far below 1 (a feature in small units, weights): unlearning a batch
    leaves the other rows' counts as they were, not rounded to 0 as if they were residue.
    Before the fix every count below 1e-9 times its class's rows became 0 at any unlearn, so
    the model left scored every word alike."""
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(24, 5)) * scale
    y = np.array(list("aab") * 8)
    model = make().fit(X[:12], y[:12])
    before = copy.deepcopy(model)
    model.partial_fit(X[12:], y[12:])
    model.unlearn(X[12:], y[12:])
    assert_same_posteriors(model, before, X)
    assert_same_posteriors(model, make().fit(X[:12], y[:12]), X)
    # each count to its own last digits (the grid compares them to 1e-12 absolute)
    for left, kept in zip(model.stats_.blocks, before.stats_.blocks, strict=True):
        for key, value in _arrays(left)[0].items():
            np.testing.assert_allclose(value, _arrays(kept)[0][key], rtol=1e-10, atol=0)


def test_unlearning_a_whole_term_still_empties_its_count():
    """The residue of a count every row of which was unlearned is still exactly 0 (values that
    are not whole numbers leave some)."""
    X = np.array([[0.1, 0.7], [0.2, 0.0], [0.3, 0.3], [0.0, 0.9]])
    y = np.array(["a", "a", "a", "b"])
    model = bk.MultinomialNB(alpha=1e-10).fit(X[[1, 3]], y[[1, 3]])
    model.partial_fit(X[[0, 2]], y[[0, 2]]).unlearn(X[[0, 2]], y[[0, 2]])
    assert model.stats_.blocks[0].total[0, 1] == 0.0
    assert_same_posteriors(model, bk.MultinomialNB(alpha=1e-10).fit(X[[1, 3]], y[[1, 3]]), X)


DISCRIMINANTS = [
    pytest.param(lambda: bk.LinearDiscriminantAnalysis(shrinkage=0.3), id="LDA"),
    pytest.param(lambda: bk.QuadraticDiscriminantAnalysis(reg_param=0.1), id="QDA"),
    pytest.param(bk.RegularizedDiscriminantAnalysis, id="RDA"),
]


@pytest.mark.parametrize("make", DISCRIMINANTS)
def test_batches_are_refused_values_fit_refuses(make):
    """Values spread over less than 1e-150: their squared deviations underflow, so ``fit``
    refuses the column by name. Learned a row at a time (each batch has no spread of its own)
    or merged, the squares underflowed all the same and the model scored on a zero scatter:
    every batch or merge that would lose them is refused too, leaving the model as it was."""
    rng = np.random.default_rng(0)
    y = np.array(list("aab") * 8)
    X = (rng.normal(size=(24, 2)) + 3) * 1e-300
    with pytest.raises(DataError, match="spreads over only"):
        make().fit(X, y)
    streamed = make().partial_fit(X[:1], y[:1])

    def stream() -> None:
        for i in range(1, len(y)):
            streamed.partial_fit(X[i : i + 1], y[i : i + 1])

    with pytest.raises(DataError, match="column 0 spreads over only"):
        stream()
    kept = copy.deepcopy(streamed)
    with pytest.raises(DataError, match="spreads over only"):
        streamed.partial_fit(X[1:2], y[1:2])  # a second row of class "a"
    assert_same_model(streamed, kept, X, score_rtol=None)
    a, b = make().partial_fit(X[:1], y[:1]), make().partial_fit(X[3:4], y[3:4])
    with pytest.raises(DataError, match="spreads over only"):
        bk.merge(a, b)


@pytest.mark.parametrize("make", DISCRIMINANTS)
def test_a_tiny_difference_beside_a_wide_spread_still_adds(make):
    """A class mean off by 1e-200 in a column spread over 1: nothing float64 can hold is lost
    (the refusal above is for columns whose whole scatter underflows)."""
    rng = np.random.default_rng(1)
    y = np.array(list("ab") * 10)
    X = rng.normal(size=(20, 2))
    X[:, 0] -= X[:10, 0].mean()  # the first half's mean of column 0 is (about) 0
    X[10, 0] = 1e-200
    parts = make().partial_fit(X[:10], y[:10]) + make().partial_fit(X[10:], y[10:])
    assert_same_posteriors(parts, make().fit(X, y), X)
