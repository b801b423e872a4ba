"""Behaviour the user guide's pages describe (mixed tables, missing values, Bayesian
networks), checked as a reader would try it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
from bayeskit.errors import SingularCovarianceError


def _prices() -> tuple[pd.DataFrame, np.ndarray]:
    """Two prices, their difference beside them, and an unrelated column."""
    rng = np.random.default_rng(0)
    n = 120
    y = np.repeat([0, 1, 2], n // 3)
    low = rng.normal(10, 2, n) + y
    high = low + rng.normal(5, 1, n)
    other = rng.normal(0, 1, n) - y
    X = pd.DataFrame({"other": other, "low": low, "high": high, "range": high - low})
    return X, y


@pytest.mark.parametrize(
    "model",
    [
        bk.LinearDiscriminantAnalysis(solver="lsqr"),
        bk.LinearDiscriminantAnalysis(solver="eigen"),
        bk.QuadraticDiscriminantAnalysis(),
        bk.RegularizedDiscriminantAnalysis(),
    ],
    ids=["lda-lsqr", "lda-eigen", "qda", "rda"],
)
def test_a_singular_covariance_is_refused_naming_the_collinear_columns(model):
    # docs/guide/mixed-tables.md: lsqr and eigen refuse such data "with a
    # SingularCovarianceError that names the column and the fixes"
    X, y = _prices()
    with pytest.raises(SingularCovarianceError) as caught:
        model.fit(X, y)
    message = str(caught.value)
    assert "the columns 'low', 'high', 'range' are collinear" in message
    assert "'other'" not in message  # not part of the null direction


def test_too_few_rows_names_no_columns():
    # every column takes part when a class has fewer rows than columns: naming them all
    # would not help; the message says "too few rows"
    X, y = _prices()
    rows = [0, 1, 40, 41, 80, 81]  # two rows per class, three columns
    with pytest.raises(SingularCovarianceError) as caught:
        bk.QuadraticDiscriminantAnalysis().fit(X[["other", "low", "high"]].iloc[rows], y[rows])
    assert "are collinear there" not in str(caught.value)
    assert "too few rows" in str(caught.value)


def _weather() -> tuple[pd.DataFrame, list[int]]:
    X = pd.DataFrame(
        {"a": ["x", "y", "x", "y", "x", "z", "x"], "b": ["p", "p", "q", "q", "p", "q", "q"]}
    )
    return X, [0, 0, 1, 1, 0, 1, 1]  # unequal classes: a zero count weighs differently


def test_a_category_never_seen_is_a_zero_count_or_missing_as_the_missing_values_guide_says():
    X, y = _weather()
    new = pd.DataFrame({"a": ["NEW"], "b": ["p"]})
    missing = pd.DataFrame({"a": [None], "b": ["p"]})

    def same(model: object) -> bool:
        return bool(np.allclose(model.predict_proba(new), model.predict_proba(missing)))

    assert not same(bk.CategoricalNB().fit(X, y))  # unseen="smooth": a zero count
    assert not same(bk.MixedNB().fit(X, y))
    assert same(bk.CategoricalNB(unseen="ignore").fit(X, y))
    assert same(bk.MixedNB(options={"categorical": {"unseen": "ignore"}}).fit(X, y))
    for network in (bk.TANClassifier(), bk.AODEClassifier(), bk.KDBClassifier()):
        assert same(network.fit(X, y))
    with pytest.raises(bk.errors.UnknownCategoryError, match="'NEW' at row 0, column 0"):
        bk.CategoricalNB(unseen="error").fit(X, y).predict(new)


def test_at_fit_a_missing_value_leaves_out_only_the_statistics_it_touches():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    X[5] = np.nan  # a row of missing values only: it still counts towards its class
    y = np.repeat([0, 1], 20)
    model = bk.GaussianNB().fit(X, y)
    for k in (0, 1):
        np.testing.assert_allclose(model.theta_[k], np.nanmean(X[y == k], axis=0))
    np.testing.assert_array_equal(model.class_count_, [20, 20])


@pytest.mark.parametrize("seed", [0, 4])
def test_a_dask_fit_of_a_network_with_float_columns_is_refused_naming_them(seed):
    # docs/guide/bayesian-networks.md: a dask fit of a table with float columns cuts each
    # partition separately and is refused for that reason. With seed 4 the six partitions
    # each chose no cut where fit of all the rows cuts 'u': the dask fit was silently
    # another model (probabilities 0.12 apart).
    dd = pytest.importorskip("dask.dataframe")
    import bayeskit.dask as bkd

    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q"], 1200)
    u = np.where(y == "p", rng.normal(0, 1, 1200), rng.normal(0.35, 1, 1200))
    frame = pd.DataFrame({"u": u, "c": rng.choice(["a", "b"], 1200)})
    model = bk.TANClassifier()
    with pytest.raises(bk.errors.DataError, match=r"numeric columns \('u'\).*partial_fit"):
        bkd.fit(model, dd.from_pandas(frame, npartitions=6), y)
    assert "classes_" not in model.__dict__  # a refused fit leaves the model as it was
    # the way the guide gives: a first batch in memory, then the partitions added
    first = bk.TANClassifier().fit(frame[:300], y[:300])
    bkd.partial_fit(first, dd.from_pandas(frame[300:], npartitions=3), y[300:])
    local = bk.TANClassifier().fit(frame[:300], y[:300]).partial_fit(frame[300:], y[300:])
    np.testing.assert_allclose(first.predict_proba(frame), local.predict_proba(frame), rtol=1e-12)
