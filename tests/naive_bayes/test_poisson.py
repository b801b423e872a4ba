"""PoissonNB: scikit-learn's estimator checks, the laws of additive statistics, missing values,
real count data (spambase, SMS) and the Poisson–multinomial relation of seed 002."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import StratifiedKFold, cross_val_score

import bayeskit as bk
from bayeskit.datasets.shared import load_sms_collection, load_spambase
from bayeskit.errors import DataError, ParameterError
from bayeskit.inspection import explain
from bayeskit.io import model_file
from bayeskit.naive_bayes.poisson import PoissonNB

from .._grid import assert_same_model


def counts(seed: int, n: int = 60, d: int = 5, holes: float = 0.1, sparse: bool = False):
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, size=n)]
    X = rng.poisson(rng.uniform(0.3, 3.0, size=d), size=(n, d)).astype(np.float64)
    X[rng.random(X.shape) < holes] = np.nan
    return (sp.csr_matrix(X) if sparse else X), y


MODELS = [PoissonNB, lambda: PoissonNB(given_length=True, alpha=2.0, beta=0.5)]


@pytest.mark.parametrize("make", MODELS)
@pytest.mark.parametrize("sparse", [False, True])
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 59), max_size=4, unique=True))
def test_fit_equals_partial_fits(make, sparse, seed, cuts):
    X, y = counts(seed, sparse=sparse)
    whole = make().fit(X, y)
    streamed = make()
    for lo, hi in itertools.pairwise([0, *sorted(cuts), len(y)]):
        streamed.partial_fit(X[lo:hi], y[lo:hi], classes=["a", "b", "c"])
    assert_same_model(whole, streamed, X)


@pytest.mark.parametrize("make", MODELS)
@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 58), cut_b=st.integers(1, 58))
def test_merge_laws(make, seed, cut_a, cut_b):
    X, y = counts(seed)
    lo, hi = min(cut_a, cut_b), max(cut_a, cut_b) + 1
    a, b, c = (make().fit(X[s], y[s]) for s in (slice(0, lo), slice(lo, hi), slice(hi, None)))
    whole = make().fit(X, y)
    assert_same_model(a + b + c, whole, X)
    assert_same_model(a + b, b + a, X)
    assert_same_model((a + b) + c, a + (b + c), X)


@pytest.mark.parametrize("sparse", [False, True])
@given(seed=st.integers(0, 10_000), cut=st.integers(10, 50))
def test_unlearn_is_fit_without_those_rows(sparse, seed, cut):
    X, y = counts(seed, sparse=sparse)
    model = PoissonNB().fit(X, y).unlearn(X[cut:], y[cut:])
    assert_same_model(model, PoissonNB().fit(X[:cut], y[:cut]), X[:cut])


def test_weights_are_repetitions_and_declared_classes_start_empty():
    X, y = counts(4, n=30)
    w = np.random.default_rng(0).integers(0, 4, size=30)
    w[:3] = 1
    weighted = PoissonNB().fit(X, y, sample_weight=w)
    assert_same_model(weighted, PoissonNB().fit(np.repeat(X, w, axis=0), np.repeat(y, w)), X)
    model = PoissonNB(fit_prior=False).partial_fit(X[:5], ["a"] * 5, classes=["a", "z"])
    # A class without rows takes the rates pooled over classes: its likelihood is finite.
    np.testing.assert_allclose(model.feature_rate_[1], model.feature_rate_[0])
    assert np.isfinite(model.predict_log_proba(X)).all()


@pytest.mark.parametrize("given_length", [False, True])
def test_missing_values_drop_out_and_an_empty_row_gets_the_prior(given_length):
    X, y = counts(5, n=80, holes=0.2)
    model = PoissonNB(given_length=given_length).fit(X, y)
    row = np.array([[2.0, np.nan, 1.0, 0.0, np.nan]])
    seen = [0, 2, 3]
    restricted = PoissonNB(given_length=given_length).fit(X[:, seen], y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row),
        restricted.predict_joint_log_proba(row[:, seen]),
        rtol=1e-12,
    )
    proba = model.predict_proba(np.full((2, 5), np.nan))
    np.testing.assert_allclose(proba, np.exp(model.class_log_prior_)[None].repeat(2, 0))


def test_dataframe_with_missing_values_and_named_errors():
    X, y = counts(6, n=40, d=3, holes=0.1)
    frame = pd.DataFrame(X, columns=["links", "capitals", "exclaims"]).astype("Float64")
    model = PoissonNB().fit(frame, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), PoissonNB().fit(X, y).predict_joint_log_proba(X)
    )
    bad = frame.copy()
    bad.loc[7, "capitals"] = -2
    with pytest.raises(DataError, match=r"X\[7, 1\] = -2.0 \(column 1 \('capitals'\)\)"):
        model.predict(bad)
    bad.loc[7, "capitals"] = np.inf
    with pytest.raises(DataError, match=r"inf at row 7, column 1 \('capitals'\)"):
        PoissonNB().fit(bad, y)


def test_hyperparameters_apply_at_fit_and_after_it():
    X, y = counts(7)
    with pytest.raises(ParameterError, match="beta"):
        PoissonNB(beta=-1.0).fit(X, y)
    model = PoissonNB().fit(X, y)
    model.set_params(alpha=2.0, beta=1.5, given_length=True)
    refit = PoissonNB(alpha=2.0, beta=1.5, given_length=True).fit(X, y)
    assert_same_model(model, refit, X)


@pytest.mark.parametrize("given_length", [False, True])
def test_linear_form_and_explanations(given_length):
    X, y = counts(8, holes=0.0)
    model = PoissonNB(given_length=given_length).fit(X, y)
    W, b = model.linear_form()
    np.testing.assert_allclose(
        model.linear_design(X) @ W.T + b, model.predict_joint_log_proba(X), rtol=1e-12
    )
    assert len(model.linear_feature_names()) == W.shape[1]
    e = explain(model, X[0])
    assert e.label == model.predict(X[:1])[0]
    terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
    np.testing.assert_allclose(e.log_odds, terms)


def test_model_file_round_trip(tmp_path, monkeypatch):
    monkeypatch.setitem(model_file.ESTIMATORS, "PoissonNB", PoissonNB)
    X, y = counts(9)
    model = PoissonNB(alpha=np.array([0.5, 1, 1, 2, 3.0]), given_length=True).fit(X, y)
    bk.save(model, tmp_path / "poisson.bkm")
    loaded = bk.load(tmp_path / "poisson.bkm")
    assert loaded.get_params().keys() == model.get_params().keys()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_spambase_capital_run_lengths_beat_the_prior(shared_data):
    X, y, names = load_spambase(shared_data)
    columns = [names.index("capital_run_length_longest"), names.index("capital_run_length_total")]
    counts_only = X[:, columns]
    assert np.array_equal(counts_only, np.round(counts_only))  # whole numbers: counts
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    poisson = cross_val_score(PoissonNB(), counts_only, y, cv=folds).mean()
    majority = max(y.mean(), 1 - y.mean())
    gaussian = cross_val_score(sk.GaussianNB(), counts_only, y, cv=folds).mean()
    assert poisson > majority + 0.05
    assert poisson > gaussian  # counts are better described as counts


def test_sms_poisson_given_length_is_multinomial_nb(shared_data):
    texts, labels = load_sms_collection(shared_data)
    X = CountVectorizer().fit_transform(texts)
    for alpha in (1.0, 0.1):
        ours = PoissonNB(alpha=alpha, given_length=True).fit(X, labels)
        theirs = sk.MultinomialNB(alpha=alpha).fit(X, labels)
        np.testing.assert_allclose(
            ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-9, atol=1e-9
        )
        np.testing.assert_allclose(
            ours.linear_form()[0][:, :-1], theirs.feature_log_prob_, rtol=1e-12
        )
    # The plain Poisson model (length term −Σλ) is a different classifier, still a good one.
    train, test = slice(0, 4000), slice(4000, None)
    plain = PoissonNB().fit(X[train], labels[train])
    error = 1 - plain.score(X[test], labels[test])
    prior_error = np.mean(labels[test] != "ham")
    assert error < prior_error / 3
    assert not np.allclose(plain.predict_log_proba(X[test]), ours.predict_log_proba(X[test]))
