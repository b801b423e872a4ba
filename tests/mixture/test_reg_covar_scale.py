"""reg_covar is absolute (scikit-learn's GaussianMixture's): a column whose within-class
variance it exceeds is swamped, and the fit says so by name."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import bayeskit as bk
from bayeskit.mixture import SwampedColumnWarning


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True, as_frame=True)


def test_a_column_reg_covar_swamps_is_named(iris):
    """Petal width in units 1e10 times larger (variances ~1e-22): reg_covar=1e-6 makes every
    variance of it ~1e-6 and the column hardly counts (5-fold accuracy 0.967 → 0.793)."""
    X, y = iris
    X = X.copy()
    X["petal width (cm)"] *= 1e-10
    with pytest.warns(SwampedColumnWarning, match=r"column 'petal width \(cm\)' within class 0"):
        bk.GaussianMixtureClassifier(check_folds=None).fit(X, y)


def test_columns_of_ordinary_scale_and_constant_ones_are_not_warned_of(iris):
    X, y = iris
    X = X.assign(constant=1.0)  # no variance in any class: what reg_covar is for
    # constant but for the rounding of weighted sums (scikit-learn's estimator checks warned:
    # a variance of 1.2e-32 beside reg_covar=1e-6)
    X = X.assign(rounded=0.1)
    weights = np.random.default_rng(0).uniform(0.1, 3.0, len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SwampedColumnWarning)
        bk.GaussianMixtureClassifier(check_folds=None).fit(X, y)
        bk.GaussianMixtureClassifier(check_folds=None).fit(X, y, sample_weight=weights)


def test_an_explicit_smaller_reg_covar_keeps_the_column(iris):
    X, y = iris
    tiny = pd.DataFrame(X.to_numpy() * np.array([1, 1, 1e-10, 1e-10]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SwampedColumnWarning)
        model = bk.GaussianMixtureClassifier(check_folds=None, reg_covar=1e-30).fit(tiny, y)
    assert model.score(tiny, y) > 0.95
