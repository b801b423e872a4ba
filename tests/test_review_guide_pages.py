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
