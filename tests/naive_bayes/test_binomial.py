"""BinomialNB: scikit-learn's estimator checks, the laws of additive statistics, missing values,
parity with Bernoulli and categorical NB at k = 1 on real votes, digits as counts out of 16,
and every bad count."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn import naive_bayes as sk
from sklearn.datasets import load_digits
from sklearn.model_selection import StratifiedKFold, cross_val_score

import bayeskit as bk
from bayeskit.datasets.shared import load_uci_table
from bayeskit.errors import DataError, NotFittedError, ParameterError
from bayeskit.io import model_file
from bayeskit.naive_bayes.binomial import BinomialNB

from .._grid import assert_same_model

K = [4, 1, 9, 2, 6]


def trials(seed: int, n: int = 60, holes: float = 0.1, sparse: bool = False):
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, size=n)]
    X = rng.binomial(K, rng.uniform(0.1, 0.9, size=len(K)), size=(n, len(K))).astype(float)
    X[rng.random(X.shape) < holes] = np.nan
    return (sp.csr_matrix(X) if sparse else X), y


def make() -> BinomialNB:
    return BinomialNB(n_trials=K)


@pytest.mark.parametrize("sparse", [False, True])
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 59), max_size=4, unique=True))
def test_fit_equals_partial_fits(sparse, seed, cuts):
    X, y = trials(seed, sparse=sparse)
    whole = make().fit(X, y)
    streamed = make()
    for lo, hi in itertools.pairwise([0, *sorted(cuts), len(y)]):
        streamed.partial_fit(X[lo:hi], y[lo:hi], classes=["a", "b", "c"])
    assert_same_model(whole, streamed, X)


@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 58), cut_b=st.integers(1, 58))
def test_merge_laws(seed, cut_a, cut_b):
    X, y = trials(seed)
    lo, hi = min(cut_a, cut_b), max(cut_a, cut_b) + 1
    a, b, c = (make().fit(X[s], y[s]) for s in (slice(0, lo), slice(lo, hi), slice(hi, None)))
    whole = make().fit(X, y)
    assert_same_model(a + b + c, whole, X)
    assert_same_model(a + b, b + a, X)
    assert_same_model((a + b) + c, a + (b + c), X)


@given(seed=st.integers(0, 10_000), cut=st.integers(10, 50))
def test_unlearn_is_fit_without_those_rows(seed, cut):
    X, y = trials(seed)
    model = make().fit(X, y).unlearn(X[cut:], y[cut:])
    assert_same_model(model, make().fit(X[:cut], y[:cut]), X[:cut])


def test_missing_values_drop_out_and_an_empty_row_gets_the_prior():
    X, y = trials(3, n=80, holes=0.2)
    model = make().fit(X, y)
    row = np.array([[np.nan, 1.0, 3.0, np.nan, 6.0]])
    seen = [1, 2, 4]
    restricted = BinomialNB(n_trials=[K[j] for j in seen]).fit(X[:, seen], y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row),
        restricted.predict_joint_log_proba(row[:, seen]),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        model.predict_proba(np.full((1, 5), np.nan))[0], np.exp(model.class_log_prior_)
    )


def test_one_trial_matches_sklearn_bernoulli():
    rng = np.random.default_rng(4)
    X = (rng.random((200, 8)) < 0.35).astype(float)
    y = rng.integers(0, 3, 200)
    ours = BinomialNB(n_trials=1, alpha=0.5).fit(X, y)
    theirs = sk.BernoulliNB(alpha=0.5, binarize=None).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=1e-10, atol=1e-12
    )


def test_votes_with_missing_values_match_categorical_nb(shared_data):
    votes, party = load_uci_table("voting", shared_data)
    X = np.where(votes == "?", np.nan, (votes == "y").astype(float))
    assert np.isnan(X).any()
    ours = BinomialNB(n_trials=1).fit(X, party)
    # Two categories per vote with "?" missing: the same Beta(1, 1) estimates per feature.
    categories = np.where(votes == "?", None, votes).astype(object)
    theirs = bk.CategoricalNB().fit(categories, party)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(categories), rtol=1e-10, atol=1e-12
    )
    complete = ~np.isnan(X).any(axis=1)
    sk_model = sk.BernoulliNB(binarize=None).fit(X[complete], party[complete])
    on_complete = BinomialNB(n_trials=1).fit(X[complete], party[complete])
    np.testing.assert_allclose(
        on_complete.predict_proba(X[complete]), sk_model.predict_proba(X[complete]), rtol=1e-10
    )


def test_digits_as_counts_out_of_sixteen():
    X, y = load_digits(return_X_y=True)  # 8×8 pixels, each a whole number 0..16
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    binomial = cross_val_score(BinomialNB(n_trials=16), X, y, cv=folds).mean()
    gaussian = cross_val_score(sk.GaussianNB(), X, y, cv=folds).mean()
    assert binomial > gaussian + 0.03


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (5.0, r"X\[2, 0\] = 5.0 \(column 0 \('q1'\)\) is above n_trials = 4; .* from 0 to 4"),
        (1.5, r"X\[2, 0\] = 1.5 \(column 0 \('q1'\)\) is not a whole number"),
        (-1.0, r"Negative values .* X\[2, 0\] = -1.0 \(column 0 \('q1'\)\)"),
    ],
)
def test_bad_counts_are_named_at_fit_and_predict(value, message):
    X, y = trials(5, holes=0.0)
    names = ["q1", "q2", "q3", "q4", "q5"]
    bad = pd.DataFrame(X, columns=names)
    bad.iloc[2, 0] = value
    with pytest.raises(DataError, match=message):
        make().fit(bad, y)
    model = make().fit(pd.DataFrame(X, columns=names), y)
    with pytest.raises(DataError, match=message):
        model.predict(bad)


def test_n_trials_is_required_and_checked_at_fit():
    X, y = trials(6)
    with pytest.raises(ParameterError, match="needs n_trials"):
        BinomialNB().fit(X, y)
    with pytest.raises(ParameterError, match="n_trials has 2 values"):
        BinomialNB(n_trials=[4, 9]).fit(X, y)
    model = BinomialNB(n_trials=9).fit(X, y)  # one k for every feature
    np.testing.assert_allclose(
        model.feature_prob_,
        BinomialNB(n_trials=[9] * 5).fit(X, y).feature_prob_,
        rtol=1e-12,
    )
    # Each count was checked against n_trials as it was learned, and the statistics keep only
    # sums: a changed n_trials (up or down: a count of 5 out of 5 is no count out of 2) waits
    # for a fit, and leaves the fitted numbers as they were
    before = model.feature_prob_.copy()
    for k in (18, 2):
        model.set_params(n_trials=k)
        with pytest.raises(NotFittedError, match="fitted with n_trials=9"):
            model.predict(X)
        # (a learn is refused too: for these counts out of 9 by the data check first)
        with pytest.raises((NotFittedError, DataError), match="n_trials"):
            model.partial_fit(X, y)
    model.set_params(n_trials=9)  # set back: the fitted model again, unchanged
    np.testing.assert_array_equal(model.feature_prob_, before)
    np.testing.assert_allclose(
        model.set_params(n_trials=18).fit(X, y).feature_prob_,
        BinomialNB(n_trials=18).fit(X, y).feature_prob_,
        rtol=1e-12,
    )


def test_counts_learned_above_a_lowered_n_trials_are_not_taken():
    """A count of 5 learned out of 5 trials, the class's mean count 1.25: lowering n_trials
    to 2 on the fitted model is refused (the mean alone would not show the count of 5), as a
    fit on the same rows with n_trials=2 is."""
    X = np.array([[5.0], [0.0], [0.0], [0.0], [1.0], [1.0]])
    y = [0, 0, 0, 0, 1, 1]
    model = BinomialNB(n_trials=5).fit(X, y)
    model.set_params(n_trials=2)
    with pytest.raises(NotFittedError, match="n_trials"):
        model.predict(X)
    with pytest.raises(DataError, match="above n_trials = 2"):
        model.fit(X, y)


def test_linear_form_is_exact_with_missing_values():
    X, y = trials(7, holes=0.2)
    model = make().fit(X, y)
    W, b = model.linear_form()
    np.testing.assert_allclose(
        model.linear_design(X) @ W.T + b, model.predict_joint_log_proba(X), rtol=1e-12
    )
    assert model.linear_feature_names()[-1] == "<Σ ln C(k, x)>"


def test_model_file_round_trip(tmp_path, monkeypatch):
    monkeypatch.setitem(model_file.ESTIMATORS, "BinomialNB", BinomialNB)
    X, y = trials(8)
    model = make().fit(X, y)
    bk.save(model, tmp_path / "binomial.bkm")
    loaded = bk.load(tmp_path / "binomial.bkm")
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
