"""With var_floor=None reg_covar is absolute (scikit-learn's GaussianMixture's): a column whose
within-class variance it exceeds is swamped, and the fit says so by name. The default makes it
relative to each column's variance: the classifier is the same in any units."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import cross_val_score

import bayeskit as bk
from bayeskit._params import clone
from bayeskit.mixture import SwampedColumnWarning
from bayeskit.stats import Summary


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
        bk.GaussianMixtureClassifier(check_folds=None, var_floor=None).fit(X, y)


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


# ---------------------------------------------------------------- relative reg_covar (default)
TABLES = {"iris": load_iris, "wine": load_wine}


@pytest.fixture(scope="module")
def reference():
    """Each table's default model in its own units, and its probabilities."""
    out = {}
    for name, load in TABLES.items():
        X, y = load(return_X_y=True)
        out[name] = (X, y, bk.GaussianMixtureClassifier().fit(X, y).predict_proba(X))
    return out


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(sorted(TABLES)), st.integers(-8, 8))
def test_the_default_classifier_is_the_same_in_any_units(reference, name, k):
    """Every column times 10^k: the same probabilities (reg_covar relative to each column's
    variance, like every variance and the resolution floor; with the absolute reg_covar wine
    at 1e-6 lost its columns, 5-fold accuracy 0.53)."""
    X, y, want = reference[name]
    scaled = X * 10.0**k
    with warnings.catch_warnings():
        warnings.simplefilter("error", SwampedColumnWarning)  # nothing is swamped
        got = bk.GaussianMixtureClassifier().fit(scaled, y).predict_proba(scaled)
    np.testing.assert_allclose(got, want, atol=1e-6)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-8, 8), min_size=13, max_size=13))
def test_each_column_in_its_own_units_gives_the_same_mixtures(powers):
    """Each column scaled by its own power of ten, from a start that does not measure
    distances (random responsibilities; k-means++ measures them in the columns' units, as
    scikit-learn's does): the same probabilities."""
    X, y = load_wine(return_X_y=True)
    scaled = X * 10.0 ** np.array(powers, dtype=np.float64)
    make = lambda: bk.GaussianMixtureClassifier(init_params="random", check_folds=None)  # noqa: E731
    want = make().fit(X, y).predict_proba(X)
    np.testing.assert_allclose(make().fit(scaled, y).predict_proba(scaled), want, atol=1e-6)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_in_small_units_the_mixture_is_no_worse_than_gaussian_nb(name):
    """wine × 1e-6 (variances within a class ~1e-12): 5-fold accuracy 0.533 with the absolute
    reg_covar against GaussianNB's 0.966; iris 0.900 against 0.953."""
    X, y = TABLES[name](return_X_y=True)
    X = X * 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SwampedColumnWarning)
        gmm = cross_val_score(bk.GaussianMixtureClassifier(), X, y, cv=5).mean()
    naive = cross_val_score(bk.GaussianNB(), X, y, cv=5).mean()
    assert gmm >= naive


def test_the_ridge_is_reg_covar_times_each_class_variance_and_old_statistics_keep_it_absolute(
    iris,
):
    X, y = iris
    X = X.to_numpy()
    model = bk.GaussianMixtureClassifier(n_components=1, check_folds=None, reg_covar=1e-3)
    model.fit(X, y)
    stats = model.stats_.blocks[0]
    for c, label in enumerate(model.classes_):
        v = X[y == label].var(axis=0)
        np.testing.assert_allclose(stats.ridge_scale[c], v, rtol=1e-12)
        expected = np.maximum(v * (1 + 1e-3), stats.floors[c])
        np.testing.assert_allclose(model.covariances_[label][0], expected, rtol=1e-12)
    # statistics written before the scale existed: reg_covar absolute, as they were fitted
    arrays, meta = stats.to_arrays()
    del arrays["ridge_scale"]
    old = type(stats).from_arrays(arrays, meta)
    assert old.ridge_scales is None
    before = clone(model).fit_summary(Summary(model.classes_, model.class_count_, (old,)))
    for c, label in enumerate(model.classes_):
        v = X[y == label].var(axis=0)
        expected = np.maximum(v + 1e-3, stats.floors[c])
        np.testing.assert_allclose(before.covariances_[label][0], expected, rtol=1e-12)


def test_a_column_constant_in_a_class_takes_its_variance_over_every_row():
    X, y = load_iris(return_X_y=True)
    X = np.column_stack([X, np.where(y == 0, 3.0, np.linspace(0, 1, len(y)))])
    model = bk.GaussianMixtureClassifier(n_components=1, check_folds=None).fit(X, y)
    scale = model.stats_.blocks[0].ridge_scale
    assert scale[0, -1] == pytest.approx(X[:, -1].var(), rel=1e-12)
    np.testing.assert_allclose(scale[1:, -1], [X[y == c, -1].var() for c in (1, 2)], rtol=1e-12)
    assert np.isfinite(model.predict_proba(X)).all()
