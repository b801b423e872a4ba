"""KernelNB: scikit-learn's estimator checks, the laws of statistics that add, missing values,
real data and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import DataError, ParameterError
from bayeskit.io import model_file
from bayeskit.naive_bayes.kernel import KernelNB


def close(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def reals(seed: int, n: int = 60, d: int = 3, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[rng.integers(0, k, n)]
    X = rng.normal(size=(n, d)) + (y == "b")[:, None] * 2.0
    X[rng.random((n, d)) < 0.1] = np.nan
    return X, y


SETTINGS = [
    {},
    {"bandwidth": "cv", "kernel": "biweight", "grid_size": 256},
    {"shared_bandwidth": False},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 59), max_size=4, unique=True))
def test_fit_equals_partial_fits(settings, seed, cuts):
    X, y = reals(seed)
    whole = KernelNB(**settings).fit(X, y)
    streamed = KernelNB(**settings)
    for lo, hi in itertools.pairwise([0, *sorted(cuts), len(y)]):
        streamed.partial_fit(X[lo:hi], y[lo:hi])
    np.testing.assert_array_equal(streamed.classes_, whole.classes_)
    # The sample is the concatenation of the batches in order: the same numbers exactly.
    np.testing.assert_array_equal(
        streamed.predict_joint_log_proba(X), whole.predict_joint_log_proba(X)
    )


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 58), cut_b=st.integers(1, 58))
def test_merge_laws(settings, seed, cut_a, cut_b):
    X, y = reals(seed)
    lo, hi = min(cut_a, cut_b), max(cut_a, cut_b) + 1
    a, b, c = (
        KernelNB(**settings).fit(X[s], y[s]) for s in (slice(0, lo), slice(lo, hi), slice(hi, None))
    )
    whole = KernelNB(**settings).fit(X, y).predict_joint_log_proba(X)

    def jll(model: KernelNB) -> np.ndarray:
        return model.predict_joint_log_proba(X)

    close(jll(a + b + c), whole)
    close(jll(b + a), jll(a + b))
    close(jll((a + b) + c), jll(a + (b + c)))
    close(jll(bk.merge(c, a, b)), whole)


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@given(seed=st.integers(0, 10_000), cut=st.integers(5, 55))
def test_unlearn_is_the_inverse_of_learning(settings, seed, cut):
    X, y = reals(seed)
    model = KernelNB(**settings).fit(X, y).unlearn(X[cut:], y[cut:])
    kept = KernelNB(**settings).fit(X[:cut], y[:cut])
    np.testing.assert_array_equal(model.classes_, kept.classes_)
    close(model.predict_joint_log_proba(X), kept.predict_joint_log_proba(X))


@pytest.mark.parametrize("bandwidth", ["silverman", "scott", "cv", 0.3])
def test_sample_weight_is_repetition(bandwidth):
    X, y = reals(4, n=40)
    w = np.random.default_rng(0).integers(0, 4, len(y))
    w[:3] = 1
    weighted = KernelNB(bandwidth=bandwidth).fit(X, y, sample_weight=w)
    repeated = KernelNB(bandwidth=bandwidth).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    close(weighted.bandwidth_, repeated.bandwidth_)
    close(weighted.predict_joint_log_proba(X), repeated.predict_joint_log_proba(X))


def test_missing_value_drops_the_feature():
    X, y = reals(5, n=80)
    model = KernelNB().fit(X, y)
    row = np.array([[0.3, np.nan, -1.2]])
    without = KernelNB().fit(X[:, [0, 2]], y)
    close(model.predict_joint_log_proba(row), without.predict_joint_log_proba(row[:, [0, 2]]))
    all_missing = model.predict_joint_log_proba(np.full((2, 3), np.nan))
    close(all_missing, np.broadcast_to(model.class_log_prior_, (2, 3)))
    close(model.predict_proba(np.full((1, 3), np.nan))[0], np.exp(model.class_log_prior_))


def test_pandas_missing_values():
    X, y = reals(6)
    frame = pd.DataFrame(X, columns=["p", "q", "r"]).astype("Float64")  # NaN -> pd.NA
    model = KernelNB().fit(frame, y)
    assert model.feature_names_in_.tolist() == ["p", "q", "r"]
    close(model.predict_joint_log_proba(frame), KernelNB().fit(X, y).predict_joint_log_proba(X))


def test_declared_classes_start_empty():
    model = KernelNB().partial_fit([[1.0, 2.0], [1.5, 2.5]], ["x", "x"], classes=["x", "y"])
    assert model.classes_.tolist() == ["x", "y"]
    np.testing.assert_array_equal(model.feature_weight_, [[2, 2], [0, 0]])
    assert np.all(np.isfinite(model.predict_log_proba([[1.2, 9.0]])[:, 0]))


def test_set_params_after_fit_takes_effect_without_refit():
    X, y = reals(7)
    model = KernelNB().fit(X, y)
    model.set_params(kernel="triangular", bandwidth="scott", grid_size=256)
    refit = clone(model).fit(X, y)
    close(model.bandwidth_, refit.bandwidth_)
    close(model.predict_joint_log_proba(X), refit.predict_joint_log_proba(X))


def test_decision_hyperparameters():
    X, y = reals(8)
    flat = KernelNB(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    np.testing.assert_allclose(np.exp(flat.class_log_prior_), [0.2, 0.3, 0.5])
    loss = np.ones((3, 3)) - np.eye(3)
    loss[:, 0] = 100.0  # missing an "a" is expensive
    loss[0, 0] = 0.0
    risky = KernelNB(loss=loss).fit(X, y)
    plain = KernelNB().fit(X, y)
    assert (risky.predict(X) == "a").sum() >= (plain.predict(X) == "a").sum()


def test_model_file_round_trip(tmp_path, monkeypatch):
    monkeypatch.setitem(model_file.ESTIMATORS, "KernelNB", KernelNB)
    X, y = reals(9)
    for settings in SETTINGS:
        model = KernelNB(**settings).fit(X, y)
        bk.save(model, tmp_path / "kde.bkm")
        loaded = bk.load(tmp_path / "kde.bkm")
        assert type(loaded) is KernelNB
        assert loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"bandwidth": 0.0}, "bandwidth=0.0 is not accepted"),
        ({"bandwidth": -1}, "bandwidth=-1 is not accepted"),
        ({"bandwidth": float("inf")}, "bandwidth=inf"),
        ({"bandwidth": "auto"}, "bandwidth='auto' is not a known rule"),
        ({"kernel": "parzen"}, "kernel='parzen' is not a known kernel"),
        ({"grid_size": 8}, "grid_size=8"),
        ({"tail_weight": -1.0}, "tail_weight=-1.0"),
    ],
)
def test_bad_hyperparameters_are_reported_at_fit(settings, message):
    X, y = reals(10)
    with pytest.raises(ParameterError, match=message):
        KernelNB(**settings).fit(X, y)


def test_infinite_values_are_refused():
    X, y = reals(11)
    X[4, 2] = -np.inf
    with pytest.raises(DataError, match=r"row 4, column 2"):
        KernelNB().fit(X, y)
    model = KernelNB().fit(reals(11)[0], y)
    with pytest.raises(DataError, match=r"row 0, column 1"):
        model.predict([[0.0, np.inf, 0.0]])


def test_spambase_ten_fold(shared_data):
    """Per-feature KDE beats GaussianNB clearly on spambase (measured: 0.914 against 0.821 with
    these folds), whose features are skewed and zero-inflated; assert a 5-point margin."""
    X, y, _ = load_spambase(shared_data)
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    kde = cross_val_score(KernelNB(), X, y, cv=folds).mean()
    gnb = cross_val_score(SkGaussianNB(), X, y, cv=folds).mean()
    majority = max(y.mean(), 1 - y.mean())
    assert kde > majority + 0.2
    assert kde > gnb + 0.05
