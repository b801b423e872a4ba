"""GaussianNB: scikit-learn's numbers, QDA with diagonal covariances, missing values, and the
laws of statistics that add."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multivariate_normal
from sklearn import naive_bayes as sk
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_predict

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import DataError, ParameterError
from bayeskit.io import model_file
from bayeskit.naive_bayes.gaussian import GaussianNB

from .._grid import assert_same_model

RTOL = 1e-9


@pytest.fixture(scope="module")
def spambase(shared_data):
    X, y, names = load_spambase(shared_data)
    return X, y, names


def assert_parity(ours: GaussianNB, theirs: sk.GaussianNB, X: np.ndarray) -> None:
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=RTOL)
    np.testing.assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=RTOL)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=RTOL)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=RTOL)
    assert ours.epsilon_ == pytest.approx(theirs.epsilon_, rel=RTOL)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=RTOL
    )
    # Rows the model is sure of have log posteriors of ~0 whose last digits are cancellation
    # noise in both libraries (|jll| reaches 1e6 on spambase): a tiny absolute slack.
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=RTOL, atol=1e-12
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_spambase_parity(spambase):
    X, y, _ = spambase
    assert_parity(GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y), X)


def test_spambase_parity_with_priors_and_smoothing(spambase):
    X, y, _ = spambase
    settings = {"priors": [0.3, 0.7], "var_smoothing": 1e-4}
    assert_parity(GaussianNB(**settings).fit(X, y), sk.GaussianNB(**settings).fit(X, y), X)


def test_spambase_parity_with_integer_weights_is_repetition(spambase):
    X, y, _ = spambase
    w = np.random.default_rng(0).integers(0, 4, len(y))
    theirs = sk.GaussianNB().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_parity(GaussianNB().fit(X, y, sample_weight=w), theirs, X)


def test_spambase_parity_with_sample_weight(spambase):
    X, y, _ = spambase
    w = np.random.default_rng(1).uniform(0.1, 3.0, len(y))
    ours = GaussianNB().fit(X, y, sample_weight=w)
    theirs = sk.GaussianNB().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.class_count_, theirs.class_count_, rtol=RTOL)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=RTOL)
    # scikit-learn's floor is var_smoothing times the *unweighted* np.var(X); ours is the
    # weighted variance (the one repetition gives, see the test above). Everything else agrees
    # once the floors are swapped.
    weighted = np.average((X - np.average(X, axis=0, weights=w)) ** 2, axis=0, weights=w)
    assert ours.epsilon_ == pytest.approx(1e-9 * weighted.max(), rel=RTOL)
    np.testing.assert_allclose(
        ours.var_ - ours.epsilon_, theirs.var_ - theirs.epsilon_, rtol=RTOL, atol=1e-15
    )
    theirs.var_ = theirs.var_ - theirs.epsilon_ + ours.epsilon_
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=RTOL
    )


def test_spambase_ten_fold_predictions_match(spambase):
    X, y, _ = spambase
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    ours = cross_val_predict(GaussianNB(), X, y, cv=folds)
    theirs = cross_val_predict(sk.GaussianNB(), X, y, cv=folds)
    np.testing.assert_array_equal(ours, theirs)
    assert np.mean(ours == y) == pytest.approx(0.821, abs=0.01)


def test_floor_does_not_depend_on_batches(spambase):
    X, y, _ = spambase
    whole = GaussianNB().fit(X, y)
    ours, theirs = GaussianNB(), sk.GaussianNB()
    # The last batch holds only small-spread rows: a per-batch floor would change.
    order = np.argsort(-X[:, 56])  # capital_run_length_total, largest first
    for batch in np.array_split(order, 5):
        ours.partial_fit(X[batch], y[batch], classes=[0, 1])
        theirs.partial_fit(X[batch], y[batch], classes=[0, 1])
    assert ours.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)
    np.testing.assert_allclose(ours.var_, whole.var_, rtol=1e-10)
    # scikit-learn keeps the last batch's floor (its issue #14054): the data does discriminate.
    assert theirs.epsilon_ < 0.5 * whole.epsilon_


def test_is_qda_with_diagonal_covariances(spambase):
    X, y, _ = spambase
    model = GaussianNB().fit(X, y)
    rows = X[::9]
    expected = np.column_stack(
        [
            multivariate_normal(mean=model.theta_[c], cov=np.diag(model.var_[c])).logpdf(rows)
            + np.log(model.class_prior_[c])
            for c in range(2)
        ]
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-9)


# ---------------------------------------------------------------- laws of added statistics
CONFIGS = {
    "mle": {},
    "shared": {"shared_variance": True, "var_smoothing": 1e-6},
    "predictive": {"estimate": "predictive", "prior_count": 2.0},
}


def reals(seed: int, n: int = 60, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, n)]
    y[:6] = ["a", "b", "c", "a", "b", "c"]
    shift = {"a": 0.0, "b": 1.5, "c": -2.0}
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, d) + np.array([shift[v] for v in y])[:, None]
    # The first six rows are complete: every class keeps two values of every feature.
    X[6:][rng.random((n - 6, d)) < 0.1] = np.nan
    return X, y


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 59), max_size=4, unique=True))
def test_fit_equals_partial_fits(config, seed, cuts):
    X, y = reals(seed)
    whole = GaussianNB(**CONFIGS[config]).fit(X, y)
    streamed = GaussianNB(**CONFIGS[config])
    for lo, hi in itertools.pairwise([0, *sorted(cuts), len(y)]):
        streamed.partial_fit(X[lo:hi], y[lo:hi])
    assert_same_model(whole, streamed, X)
    assert streamed.epsilon_ == pytest.approx(whole.epsilon_, rel=1e-12)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@given(seed=st.integers(0, 10_000), cuts=st.tuples(st.integers(1, 58), st.integers(1, 58)))
def test_merge_laws(config, seed, cuts):
    X, y = reals(seed)
    lo, hi = min(cuts), max(cuts) + 1
    a, b, c = (
        GaussianNB(**CONFIGS[config]).fit(X[s], y[s])
        for s in (slice(0, lo), slice(lo, hi), slice(hi, None))
    )
    whole = GaussianNB(**CONFIGS[config]).fit(X, y)
    assert_same_model(a + b + c, whole, X)
    assert_same_model(a + b, b + a, X)
    assert_same_model((a + b) + c, a + (b + c), X)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@given(seed=st.integers(0, 10_000), cut=st.integers(10, 55))
def test_unlearn_is_fit_without_the_rows(config, seed, cut):
    X, y = reals(seed)
    model = GaussianNB(**CONFIGS[config]).fit(X, y).unlearn(X[cut:], y[cut:])
    kept = GaussianNB(**CONFIGS[config]).fit(X[:cut], y[:cut])
    np.testing.assert_array_equal(model.classes_, kept.classes_)
    np.testing.assert_allclose(model.class_count_, kept.class_count_, rtol=1e-12)
    # Subtracting leaves rounding residue of the size of the removed data's spread in M2, and
    # an M2 within 1e-11 of the terms it was computed from is taken for residue and made 0
    # (the moments' rule: a class left with one value has none): two kept values 4e-5 apart
    # among 20 of variance 2.8 keep a variance of 4e-10 when fitted, none when unlearned
    # (seed 3994, cut 10).
    spread = np.nanvar(X, axis=0).max()
    full = GaussianNB(**CONFIGS[config]).fit(X, y).stats_.blocks[0]
    left = kept.stats_.blocks[0].weight
    residue = 2e-11 * np.abs(full.m2) / np.maximum(left, 1.0)
    np.testing.assert_allclose(model.theta_, kept.theta_, rtol=1e-10, atol=1e-12)
    gap = np.abs(model.var_ - kept.var_)
    allowed = 1e-9 * kept.var_ + 1e-12 * spread + residue
    assert (gap <= allowed).all(), f"variances off by {gap.max():.3g} (allowed {allowed.min():.3g})"
    # A row far from a tight class has a log-likelihood of -(x - mu)^2 / (2 var) ~ -1e7, whose
    # relative error is the variance's: as large as the residue allowed above (seed 858: 6e-9).
    var_error = float(np.max(np.abs(model.var_ - kept.var_) / kept.var_))
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X),
        kept.predict_joint_log_proba(X),
        rtol=1e-9 + 2 * var_error,
        atol=1e-9,
    )


def test_unlearning_down_to_one_row_leaves_exactly_the_floor():
    # A class left with one value of a feature has M2 = 0 after fitting; the subtraction must
    # not leave rounding residue in its place (with the default floor of 1e-9 of the largest
    # variance, residue of 1e-16 of the removed spread would change that variance by ~1e-6).
    X, y = reals(11)
    X = X[:, :2] + 100.0
    X[np.isnan(X)] = 100.0
    keep = np.ones(len(y), bool)
    keep[np.flatnonzero(y == "a")[1:]] = False
    model = GaussianNB().fit(X, y).unlearn(X[~keep], y[~keep])
    kept = GaussianNB().fit(X[keep], y[keep])
    assert model.var_[0].tolist() == [model.epsilon_] * 2
    np.testing.assert_allclose(model.var_, kept.var_, rtol=1e-12)


def test_unlearning_rows_never_learned_is_refused_when_m2_turns_negative():
    # Rows far from a class's own remove more squared deviation than the class holds: its M2
    # would be negative, which no rows give (it was clipped to 0, and every variance of the
    # class fell to the floor). LDA's scatter refuses the same rows; so does the M2 now.
    X, y = reals(5)
    model = GaussianNB().fit(X, y)
    before = model.stats_.blocks[0]
    never = np.nan_to_num(X[:3]) + 100.0
    with pytest.raises(bk.errors.MergeError, match=r"'m2' of class .* is negative"):
        model.unlearn(never, y[:3])
    assert model.stats_.blocks[0] is before  # the model is as it was
    with pytest.raises(bk.errors.MergeError, match="'m2'"):
        bk.MixedNB(numeric="gaussian").fit(X, y).unlearn(never, y[:3])


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    offset=st.sampled_from([0.0, 1.0, -1e3, 1e6, -1e9, 1e12]),
    spread=st.sampled_from([1e-6, 1e-3, 1.0, 1e3]),
    decimals=st.sampled_from([None, 0, 2]),
    weighted=st.booleans(),
    left=st.sampled_from([None, 1, 2]),
)
def test_unlearning_learned_rows_never_refuses_their_rounding(
    seed, offset, spread, decimals, weighted, left
):
    # Removing rows that were learned leaves an M2 below 0 only by rounding, which is the
    # larger the larger the means against the spread (the between-means term cancels): it is
    # made 0, never taken for rows never learned.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 300))
    y = np.array(["a", "b"])[rng.integers(0, 2, n)]
    y[:4] = ["a", "b", "a", "b"]
    X = offset + spread * rng.normal(size=(n, 2))
    if decimals is not None:
        X = np.round(X, decimals)
    w = 10.0 ** rng.uniform(-3, 3, n) if weighted else None
    # every row but ``left`` of each class removed (a class down to one or two rows), or a
    # random half
    if left is None:
        gone = rng.random(n) < 0.5
    else:
        gone = np.ones(n, bool)
        for c in ("a", "b"):
            gone[np.flatnonzero(y == c)[:left]] = False
    gone[:2] = False
    gone[2] |= not gone.any()
    model = GaussianNB().fit(X, y, sample_weight=w)
    model.unlearn(X[gone], y[gone], sample_weight=None if w is None else w[gone])
    assert (model.stats_.blocks[0].m2 >= 0).all()


def test_set_params_after_fit_moves_the_floor_without_refit():
    X, y = reals(5)
    model = GaussianNB().fit(X, y)
    model.set_params(var_smoothing=0.05, shared_variance=True)
    assert_same_model(model, clone(model).fit(X, y), X)
    model.set_params(estimate="predictive")
    assert_same_model(model, clone(model).fit(X, y), X)


# ---------------------------------------------------------------- missing values
def test_missing_feature_drops_its_term(spambase):
    X, y, _ = spambase
    model = GaussianNB().fit(X, y)
    rows = X[:40].copy()
    holes = np.random.default_rng(2).random(rows.shape) < 0.3
    rows[holes] = np.nan
    log_normal = -0.5 * (
        np.log(2 * np.pi * model.var_)[None]
        + (rows[:, None, :] - model.theta_[None]) ** 2 / model.var_[None]
    )
    expected = np.where(holes[:, None, :], 0.0, log_normal).sum(axis=2) + model.class_log_prior_
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected, rtol=1e-9)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_row_with_everything_missing_gets_the_prior(config):
    X, y = reals(6)
    model = GaussianNB(**CONFIGS[config]).fit(X, y)
    empty = np.full((2, X.shape[1]), np.nan)
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(empty), [model.class_log_prior_] * 2
    )
    np.testing.assert_allclose(model.predict_proba(empty), [model.class_prior_] * 2, rtol=1e-12)


def test_nan_in_training_is_ignored_per_feature(spambase):
    X, y, _ = spambase
    Xm = X.copy()
    holes = np.random.default_rng(3).random(len(y)) < 0.2
    Xm[holes, 54] = np.nan
    model = GaussianNB(var_smoothing=0.0).fit(Xm, y)
    alone = GaussianNB(var_smoothing=0.0).fit(X[~holes][:, [54]], y[~holes])
    np.testing.assert_allclose(model.theta_[:, 54], alone.theta_[:, 0], rtol=1e-12)
    np.testing.assert_allclose(model.var_[:, 54], alone.var_[:, 0], rtol=1e-12)
    full = GaussianNB(var_smoothing=0.0).fit(X, y)
    others = np.arange(57) != 54
    np.testing.assert_allclose(model.theta_[:, others], full.theta_[:, others], rtol=1e-12)
    np.testing.assert_allclose(model.var_[:, others], full.var_[:, others], rtol=1e-12)
    np.testing.assert_array_equal(model.class_count_, full.class_count_)  # every row counts


def test_dataframe_missing_markers():
    X, y = reals(7, d=3)
    holes = np.isnan(X)
    frame = pd.DataFrame(X, columns=["u", "v", "w"]).astype("Float64")
    frame[pd.DataFrame(holes, columns=["u", "v", "w"])] = pd.NA
    polars = pl.from_numpy(np.where(holes, 0.0, X), schema=["u", "v", "w"]).with_columns(
        [
            pl.when(pl.Series(holes[:, j])).then(None).otherwise(pl.col(c)).alias(c)
            for j, c in enumerate(["u", "v", "w"])
        ]
    )
    reference = GaussianNB().fit(X, y).predict_joint_log_proba(X)
    for data in (frame, polars):
        model = GaussianNB().fit(data, y)
        assert model.feature_names_in_.tolist() == ["u", "v", "w"]
        np.testing.assert_allclose(model.predict_joint_log_proba(data), reference, rtol=1e-12)


# ---------------------------------------------------------------- bad input
def test_constant_feature_in_one_class(spambase):
    X, y, _ = spambase
    X = X.copy()
    X[y == 1, 3] = 0.0  # word_freq_3d constant in the spam class
    model = GaussianNB().fit(X, y)
    assert model.var_[1, 3] == model.epsilon_ > 0
    for array in (model.var_, model.predict_joint_log_proba(X), model.predict_proba(X)):
        assert np.all(np.isfinite(array))
    with pytest.raises(ParameterError, match=r"column 3 \('x3'\) has variance 0 in class 1 "):
        GaussianNB(var_smoothing=0.0).fit(X, y)


def test_a_constant_feature_is_named_by_column_and_class_label():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"height": rng.normal(size=40), "weight": rng.normal(size=40)})
    y = np.array(["ham", "spam"] * 20)
    frame.loc[y == "spam", "weight"] = 1.0
    model = GaussianNB().fit(frame, y)
    before = model.predict_proba(frame)
    message = r"column 1 \('weight'\) has variance 0 in class 'spam' \(a constant feature\)"
    with pytest.raises(ParameterError, match=message):
        model.set_params(var_smoothing=0.0)
    np.testing.assert_array_equal(model.predict_proba(frame), before)
    with pytest.raises(ParameterError, match=message):
        GaussianNB(var_smoothing=0.0).partial_fit(frame, y, classes=["ham", "spam"])


def test_infinity_is_named():
    X, y = reals(8)
    X[4, 2] = np.inf
    with pytest.raises(DataError, match=r"inf at row 4, column 2"):
        GaussianNB().fit(X, y)
    frame = pd.DataFrame(np.nan_to_num(X, posinf=0.0), columns=["p", "q", "r", "s"])
    model = GaussianNB().fit(frame, y)
    frame.iloc[1, 3] = -np.inf
    with pytest.raises(DataError, match=r"-inf at row 1, column 3 \('s'\)"):
        model.predict(frame)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"var_smoothing": -1e-3}, "var_smoothing must be >= 0"),
        ({"priors": [0.5, 0.6, -0.1]}, "priors must hold probabilities >= 0"),
        ({"priors": [0.5, 0.5]}, "priors has 2 values but the model has 3 classes"),
        ({"estimate": "bayes"}, "estimate='bayes' is not one of"),
    ],
)
def test_bad_settings_are_refused_at_fit(settings, message):
    X, y = reals(9)
    with pytest.raises(ParameterError, match=message):
        GaussianNB(**settings).fit(X, y)


# ---------------------------------------------------------------- extras
def test_shared_variance_posterior_is_a_linear_discriminant(spambase):
    X, y, _ = spambase
    model = GaussianNB(shared_variance=True).fit(X, y)
    W, b = model.linear_discriminant()
    scores = X @ W.T + b
    expected = scores - np.logaddexp(scores[:, 0], scores[:, 1])[:, None]
    np.testing.assert_allclose(model.predict_log_proba(X), expected, rtol=1e-8, atol=1e-10)
    with pytest.raises(ParameterError, match="linear discriminant"):
        GaussianNB().fit(X, y).linear_discriminant()


def test_predictive_on_spambase(spambase):
    X, y, _ = spambase
    model = GaussianNB(estimate="predictive").fit(X, y)
    assert np.all(np.isfinite(model.dof_))
    assert np.all(model.dof_ == model.class_count_[:, None] + 1.0)
    assert np.all(np.isfinite(model.predict_log_proba(X)))
    assert model.score(X, y) > 0.8


def test_model_file_round_trip(tmp_path, monkeypatch):
    monkeypatch.setitem(model_file.ESTIMATORS, "GaussianNB", GaussianNB)
    X, y = reals(10)
    for config in CONFIGS.values():
        model = GaussianNB(priors=[0.2, 0.3, 0.5], **config).fit(X, y)
        bk.save(model, tmp_path / "gnb.bkm")
        loaded = bk.load(tmp_path / "gnb.bkm")
        assert loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("floor", ["largest", "column"])
def test_a_var_smoothing_past_float64_names_the_setting(floor):
    """var_smoothing=1e308 times a variance above 1 is infinite: the error blamed the training
    numbers ("rescale them"); it names the setting now, and 1e300 still fits (flat odds)."""
    X = np.random.default_rng(0).normal(size=(20, 2)) * 3
    y = np.repeat([0, 1], 10)
    with pytest.raises(ParameterError, match=r"var_smoothing=1e\+308 times the features'"):
        GaussianNB(var_smoothing=1e308, var_floor=floor).fit(X, y)
    wide = GaussianNB(var_smoothing=1e300, var_floor=floor).fit(X, y)
    np.testing.assert_allclose(wide.predict_proba(X), 0.5, atol=1e-9)


@pytest.mark.parametrize(
    "model", [bk.LinearDiscriminantAnalysis, bk.QuadraticDiscriminantAnalysis,
              bk.RegularizedDiscriminantAnalysis],
)  # fmt: skip
def test_a_tol_of_one_or_more_is_refused_before_the_fit(model):
    """A correlation matrix's smallest eigenvalue is at most 1, so tol >= 1 called every
    covariance singular: LDA fitted with a warning, then every predict failed."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.repeat([0, 1], 15)
    with pytest.raises(ParameterError, match=r"tol must be a number in \[0, 1\)"):
        model(tol=1.0).fit(X, y)
    model(tol=0.5).fit(X, y).predict(X)
