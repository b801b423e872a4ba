"""What explain and top_features show: the values a user gave, and only columns that favour a
class."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit.inspection import explain, top_features


def _counts():
    rng = np.random.default_rng(0)
    X = rng.poisson(3, size=(200, 3))
    y = rng.integers(0, 2, 200)
    X[y == 1, 0] += 3
    return X, y


def test_top_features_leave_out_a_column_weighted_alike_in_every_class():
    X, y = _counts()
    model = bk.PoissonNB().fit(X, y)
    W, _ = model.linear_discriminant()
    alike = [n for n, w in zip(model.linear_feature_names(), W.T, strict=True) if np.all(w == w[0])]
    assert alike == ["<−Σ ln x!>"]  # the column the lists must leave out
    top = top_features(model, 10)
    for label in model.classes_.tolist():
        assert [name for name, _ in top[label]] == sorted(
            ["x0", "x1", "x2"], key=lambda n: -dict(top[label])[n]
        )


def test_top_features_still_rank_every_column_that_differs():
    X, y = _counts()
    model = bk.MultinomialNB().fit(X, y)
    top = top_features(model, 10)
    assert {name for name, _ in top[0]} == {"x0", "x1", "x2"}


@pytest.mark.parametrize(
    "row",
    [
        [2.5, 0.2, 1.5],
        np.array([[2.5, 0.2, 1.5]]),
        pd.DataFrame([[2.5, 0.2, 1.5]], columns=["a", "b", "c"]),
        sp.csr_matrix([[2.5, 0.2, 1.5]]),
    ],
    ids=["list", "array", "pandas", "sparse"],
)
def test_a_bernoulli_explanation_shows_the_values_given_not_their_binarized_form(row):
    rng = np.random.default_rng(1)
    X = rng.random((100, 3)) * 3
    y = (X[:, 0] + rng.normal(0, 0.5, 100) > 1.5).astype(int)
    if isinstance(row, pd.DataFrame):
        X = pd.DataFrame(X, columns=["a", "b", "c"])
    model = bk.BernoulliNB(binarize=1.0).fit(X, y)
    e = explain(model, row)
    values = {c.feature: c.value for c in e.contributions}
    assert sorted(values.values()) == [1.5, 2.5]  # the two above the threshold, as given
    terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
    assert e.log_odds == pytest.approx(terms, abs=1e-9)


def test_a_bernoulli_missing_value_is_not_listed_and_the_sum_rule_holds():
    rng = np.random.default_rng(2)
    X = rng.random((100, 3)) * 3
    y = rng.integers(0, 2, 100)
    model = bk.BernoulliNB(binarize=1.0).fit(X, y)
    e = explain(model, [2.5, np.nan, 1.2])
    assert sorted(c.value for c in e.contributions) == [1.2, 2.5]
    terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
    assert e.log_odds == pytest.approx(terms, abs=1e-9)


def test_a_categorical_explanation_keeps_its_one_hot_columns():
    X = np.array([[0, 1], [1, 1], [2, 0], [0, 0], [1, 0], [2, 1]])
    y = [0, 0, 1, 1, 0, 1]
    model = bk.CategoricalNB().fit(X, y)
    e = explain(model, [2, 1])
    assert all(c.value == 1.0 for c in e.contributions)
    assert {c.feature for c in e.contributions} == {"x0=2", "x1=1"}
