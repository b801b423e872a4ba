"""Point estimates and the relations between them that the seeds state."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.families import Bernoulli, Categorical, Multinomial
from bayeskit.families._codebook import Table
from bayeskit.stats import CategoryCounts, Counts

count_tables = st.lists(
    st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=2, max_size=4
).map(lambda rows: np.asarray(rows, dtype=np.float64))


@given(count_tables)
def test_multinomial_formulas(total):
    stats = Counts(total.sum(axis=1), total)
    d = total.shape[1]
    mean = np.exp(Multinomial(1.0).finalize(stats).feature_log_prob)
    np.testing.assert_allclose(mean, (total + 1) / (total.sum(1, keepdims=True) + d))
    # Seed 003: Laplace smoothing = posterior mean under Dir(1) = MAP under Dir(2).
    mode = np.exp(Multinomial(2.0, estimate="map").finalize(stats).feature_log_prob)
    np.testing.assert_allclose(mode, mean, rtol=1e-12)
    mle = np.exp(Multinomial(estimate="mle").finalize(stats).feature_log_prob)
    has_data = total.sum(1) > 0
    np.testing.assert_allclose(
        mle[has_data], total[has_data] / total[has_data].sum(1, keepdims=True), rtol=1e-12
    )
    np.testing.assert_allclose(mle[~has_data], 1 / d)  # a class without data: uniform
    np.testing.assert_allclose(mean.sum(axis=1), 1.0, rtol=1e-12)


@given(count_tables)
def test_bernoulli_formulas(total):
    weight = total.max(axis=1) + 1
    stats = Counts(weight, total)
    p = Bernoulli(alpha=0.5).finalize(stats)
    expected = (total + 0.5) / (weight[:, None] + 1.0)
    np.testing.assert_allclose(np.exp(p.feature_log_prob), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(p.feature_log_neg_prob), 1 - expected, rtol=1e-12)


def test_categorical_formulas_and_unseen():
    X = Table([np.array(["a", "a", "b", "c"]), np.array([1, 2, 1, 1])], ["f", "g"])
    R = np.array([[1.0, 0], [1, 0], [0, 1], [0, 1]])
    family = Categorical(alpha=1.0)
    stats = family.summarize(X, R)
    assert isinstance(stats, CategoryCounts)
    assert [c.tolist() for c in stats.categories] == [["a", "b", "c"], [1, 2]]
    params = family.finalize(stats)
    # class 0: f = a,a -> (2+1)/(2+3), (0+1)/5, (0+1)/5
    np.testing.assert_allclose(np.exp(params.feature_log_prob[0, :3]), [3 / 5, 1 / 5, 1 / 5])
    np.testing.assert_allclose(np.exp(params.unseen_log_prob[:, 0]), [1 / 5, 1 / 5])
    mle = Categorical(estimate="mle").finalize(stats)
    assert np.isneginf(mle.feature_log_prob[0, 1])
    np.testing.assert_array_equal(mle.unseen_log_prob, 0.0)  # no information under MLE


def test_map_needs_alpha_at_least_one():
    with pytest.raises(ParameterError, match="estimate='map' needs alpha >= 1"):
        bk.MultinomialNB(estimate="map", alpha=0.5).fit([[1, 2]], [0])
    with pytest.raises(ParameterError, match="estimate='bayes' is not one of"):
        bk.CategoricalNB(estimate="bayes").fit([["a"]], [0])


@pytest.mark.parametrize(
    "model",
    [
        bk.MultinomialNB(estimate="mle"),
        bk.BernoulliNB(estimate="mle"),
        bk.CategoricalNB(estimate="mle"),
    ],
    ids=lambda m: type(m).__name__,
)
def test_unsmoothed_mle_never_gives_nan(model):
    # Feature 1 never occurs in class 0 and feature 0 never in class 1: each row below is
    # impossible under one class (or both), which must give 0 probability, not NaN.
    X = np.array([[3, 0], [2, 0], [0, 4], [0, 1]])
    y = np.array([0, 0, 1, 1])
    model.fit(X, y)
    probe = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    proba = model.predict_proba(probe)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    "model",
    [
        bk.MultinomialNB(alpha=0.7),
        bk.BernoulliNB(alpha=0.2),
        bk.ComplementNB(norm=True),
        bk.CategoricalNB(alpha=0.4),
    ],
    ids=lambda m: type(m).__name__,
)
def test_linear_form_reproduces_joint_log_likelihood(model):
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(40, 6))
    X = (X > 0).astype(float) if isinstance(model, bk.BernoulliNB) else X
    y = rng.integers(0, 3, size=40)
    model.fit(X, y)
    W, b = model.linear_form()
    design = model.linear_design(X)
    if not isinstance(model, bk.CategoricalNB):
        np.testing.assert_allclose(design, X)  # count models: the features themselves
    np.testing.assert_allclose(design @ W.T + b, model.predict_joint_log_proba(X), rtol=1e-10)
    assert len(model.linear_feature_names()) == W.shape[1]


def test_complement_refuses_infinite_weights():
    X = np.array([[3, 0], [2, 0], [0, 4], [1, 1]])
    with pytest.raises(ParameterError, match="ComplementNB needs smoothing"):
        bk.ComplementNB(estimate="mle").fit(X, [0, 0, 1, 1])


def test_bernoulli_is_not_multinomial_on_binary_input():
    # Seeds 000/003: Bernoulli counts the absence of a word as evidence; multinomial does not.
    X = np.array([[1, 1, 1], [1, 1, 0], [0, 0, 1], [0, 0, 1]])
    y = np.array([0, 0, 1, 1])
    empty = np.array([[0, 0, 0]])
    np.testing.assert_allclose(bk.MultinomialNB().fit(X, y).predict_proba(empty), [[0.5, 0.5]])
    b = bk.BernoulliNB().fit(X, y).predict_proba(empty)
    assert b[0, 1] > 0.8  # absent words 0 and 1 point to class 1
