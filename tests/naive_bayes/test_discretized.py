"""DiscretizedNB: scikit-learn parity where scikit-learn has the pieces, the partial_fit,
merge and unlearn laws, missing values, bad input and spambase."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import DataError, MergeError, ParameterError
from bayeskit.io import model_file
from bayeskit.naive_bayes.discretized import DiscretizedNB
from bayeskit.naive_bayes.mixed import MixedNB

METHODS = ["mdl", "width", "frequency"]


def blobs(seed: int, n: int = 240, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Three classes with shifted means in some features, noise in the others."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    X = rng.normal(size=(n, d))
    X[:, 0] += 1.5 * y
    X[:, 1] -= y * (y - 1)
    return X, np.array(["a", "b", "c"])[y]


# ---------------------------------------------------------------------------------- parity
@pytest.mark.parametrize(("n_bins", "alpha"), [(10, 1.0), (4, 0.3), (2, 2.0)])
def test_width_is_kbins_uniform_then_categorical_nb(n_bins, alpha):
    X, y = blobs(0)
    probe = np.vstack([blobs(1)[0], X.min(axis=0) - 5, X.max(axis=0) + 5])  # beyond the range
    reference = make_pipeline(
        KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy="uniform"),
        SkCategoricalNB(alpha=alpha, min_categories=n_bins),
    )
    reference.fit(X, y)
    model = DiscretizedNB(method="width", n_bins=n_bins, alpha=alpha).fit(X, y)
    for j in range(X.shape[1]):
        np.testing.assert_array_equal(model.cut_points_[j], reference[0].bin_edges_[j][1:-1])
    np.testing.assert_allclose(
        model.predict_proba(probe), reference.predict_proba(probe), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_array_equal(model.predict(probe), reference.predict(probe))


def test_frequency_is_kbins_quantile_then_categorical_nb():
    X, y = blobs(2, n=301)
    probe = blobs(3)[0]
    reference = make_pipeline(
        KBinsDiscretizer(
            n_bins=6, encode="ordinal", strategy="quantile", quantile_method="inverted_cdf"
        ),
        SkCategoricalNB(alpha=0.5),
    ).fit(X, y)
    model = DiscretizedNB(method="frequency", n_bins=6, alpha=0.5).fit(X, y)
    np.testing.assert_allclose(
        model.predict_proba(probe), reference.predict_proba(probe), rtol=1e-10, atol=1e-12
    )


def test_mdl_scores_as_categorical_nb_on_its_intervals():
    X, y = blobs(4)
    model = DiscretizedNB(alpha=0.7).fit(X, y)
    assert model.n_intervals_[0] > 1
    assert model.n_intervals_[-1] == 1  # noise: not cut

    def codes(Z):
        return np.column_stack(
            [np.searchsorted(c, Z[:, j], side="right") for j, c in enumerate(model.cut_points_)]
        )

    reference = SkCategoricalNB(alpha=0.7, min_categories=model.n_intervals_).fit(codes(X), y)
    probe = blobs(5)[0]
    np.testing.assert_allclose(
        model.predict_proba(probe), reference.predict_proba(codes(probe)), rtol=1e-10
    )
    for j in range(X.shape[1]):
        np.testing.assert_allclose(
            model.feature_log_prob_[j], reference.feature_log_prob_[j], rtol=1e-12
        )
        np.testing.assert_array_equal(model.interval_count_[j], reference.category_count_[j])


# ---------------------------------------------------------------------------------- laws
def data_with_missing(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = blobs(seed, n=n, d=3)
    X = np.round(X, 1)  # ties, so that tied rows from different batches meet
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X, y


@pytest.mark.parametrize("method", METHODS)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 79), max_size=4, unique=True))
def test_partial_fit_over_batches_is_fit(method, seed, cuts):
    X, y = data_with_missing(seed, 80)
    w = np.random.default_rng(seed).random(80) + 0.5
    whole = DiscretizedNB(method=method, n_bins=5).fit(X, y, sample_weight=w)
    online = DiscretizedNB(method=method, n_bins=5)
    for part in np.split(np.arange(80), sorted(cuts)):
        online.partial_fit(X[part], y[part], classes=["a", "b", "c"], sample_weight=w[part])
    assert_same(online, whole, X)


@pytest.mark.parametrize("method", METHODS)
@given(seed=st.integers(0, 10_000))
def test_merge_is_commutative_and_associative(method, seed):
    X, y = data_with_missing(seed, 90)
    w = np.random.default_rng(seed).random(90) + 0.5
    a, b, c = (
        DiscretizedNB(method=method).fit(X[i::3], y[i::3], sample_weight=w[i::3]) for i in range(3)
    )
    # The rows of the parts in another order than X's: the same model, bit for bit.
    assert_same(bk.merge(a, b, c), DiscretizedNB(method=method).fit(X, y, sample_weight=w), X)
    assert_same((a + b) + c, c + (b + a), X)


@pytest.mark.parametrize("method", METHODS)
@given(
    seed=st.integers(0, 10_000),
    drop=st.lists(st.integers(0, 59), min_size=1, max_size=40, unique=True),
)
def test_unlearn_is_fit_without_the_rows(method, seed, drop):
    X, y = data_with_missing(seed, 60)
    keep = np.setdiff1d(np.arange(60), drop)
    model = DiscretizedNB(method=method, n_bins=4).fit(X, y).unlearn(X[drop], y[drop])
    alone = DiscretizedNB(method=method, n_bins=4).fit(X[keep], y[keep])
    assert_same(model, alone, X)


def assert_same(a: DiscretizedNB, b: DiscretizedNB, X: np.ndarray) -> None:
    np.testing.assert_array_equal(a.classes_, b.classes_)
    for ca, cb in zip(a.cut_points_, b.cut_points_, strict=True):
        np.testing.assert_array_equal(ca, cb)
    for ca, cb in zip(a.interval_count_, b.interval_count_, strict=True):
        np.testing.assert_allclose(ca, cb, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_unlearning_rows_never_seen_is_refused():
    X, y = blobs(6, n=30)
    model = DiscretizedNB().fit(X, y)
    with pytest.raises(MergeError, match="not trained on"):
        model.unlearn(X[:2] + 100.0, y[:2])


# ---------------------------------------------------------------------------------- missing values
@pytest.mark.parametrize("method", METHODS)
def test_missing_value_drops_the_feature(method):
    X, y = data_with_missing(7, 200)
    model = DiscretizedNB(method=method, n_bins=5).fit(X, y)
    # Features are cut and counted one by one: the model on the other two columns is the
    # full model without column 1.
    rest = DiscretizedNB(method=method, n_bins=5).fit(X[:, [0, 2]], y)
    probe = X[:20].copy()
    probe[:, 1] = np.nan
    np.testing.assert_allclose(
        model.predict_joint_log_proba(probe),
        rest.predict_joint_log_proba(probe[:, [0, 2]]),
        rtol=1e-12,
    )
    nothing = model.predict_proba(np.full((2, 3), np.nan))
    np.testing.assert_allclose(nothing, np.exp(model.class_log_prior_)[None, :].repeat(2, 0))
    for j in range(3):
        seen = ~np.isnan(X[:, j])
        np.testing.assert_array_equal(
            model.interval_count_[j].sum(axis=1),
            [np.sum(seen & (y == c)) for c in model.classes_],
        )


def test_pandas_with_missing_and_names():
    X, y = data_with_missing(8, 120)
    frame = pd.DataFrame(X, columns=["width", "height", "depth"]).astype("Float64")
    frame.iloc[0, 0] = pd.NA
    X[0, 0] = np.nan
    model = DiscretizedNB(method="frequency", n_bins=3).fit(frame, y)
    np.testing.assert_allclose(
        model.predict_proba(frame),
        DiscretizedNB(method="frequency", n_bins=3).fit(X, y).predict_proba(X),
    )
    names = model.linear_feature_names()
    assert names[0].startswith("width<")
    assert names[-1].startswith("depth>=")
    W, b = model.linear_form()
    np.testing.assert_allclose(
        model.linear_design(frame) @ W.T + b, model.predict_joint_log_proba(frame), rtol=1e-12
    )


def test_as_a_mixed_nb_block():
    X, y = data_with_missing(13, 150)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    options = {"discretized": {"method": "width", "n_bins": 6}}
    mixed = MixedNB(families=dict.fromkeys("abc", "discretized"), options=options)
    mixed.fit(frame, y)
    alone = DiscretizedNB(method="width", n_bins=6).fit(frame, y)
    np.testing.assert_allclose(mixed.predict_proba(frame), alone.predict_proba(frame), rtol=1e-12)
    # Next to another family: the discretized block scores its columns alone.
    table = frame.assign(kind=np.array(["x", "y", "z"], dtype=object)[np.arange(150) % 3])
    families = {"a": "discretized", "b": "discretized", "c": "discretized", "kind": "categorical"}
    both = MixedNB(families=families).fit(table, y)
    assert both.feature_families_ == families
    jll = both.predict_joint_log_proba(table.assign(kind=None))
    np.testing.assert_allclose(
        jll, DiscretizedNB().fit(frame, y).predict_joint_log_proba(frame), rtol=1e-12
    )


# ---------------------------------------------------------------------------------- settings
def test_set_params_recuts_a_fitted_model():
    X, y = blobs(9)
    model = DiscretizedNB().fit(X, y)
    for method, n_bins in [("width", 7), ("frequency", 3), ("mdl", 2)]:
        model.set_params(method=method, n_bins=n_bins)
        assert_same(model, DiscretizedNB(method=method, n_bins=n_bins).fit(X, y), X)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_bins": 0}, "n_bins must be an integer >= 1"),
        ({"method": "uniform"}, "method='uniform' is not one of"),
        ({"alpha": -0.5}, "alpha must be >= 0"),
    ],
)
def test_bad_settings_are_reported_by_fit(params, message):
    X, y = blobs(10, n=20)
    with pytest.raises(ParameterError, match=message):
        DiscretizedNB(**params).fit(X, y)


def test_bad_input():
    X, y = blobs(11, n=20)
    X[3, 2] = np.inf
    with pytest.raises(DataError, match=r"inf at row 3, column 2"):
        DiscretizedNB().fit(X, y)
    model = DiscretizedNB().fit(blobs(11, n=20)[0], y)
    with pytest.raises(DataError, match=r"-inf at row 0, column 1"):
        model.predict(np.array([[0.0, -np.inf, 0.0, 0.0]]))


def test_save_and_load(tmp_path, monkeypatch):
    monkeypatch.setitem(model_file.ESTIMATORS, "DiscretizedNB", DiscretizedNB)
    X, y = data_with_missing(12, 100)
    model = DiscretizedNB(method="frequency", n_bins=np.int64(4), alpha=0.5).fit(X, y)
    bk.save(model, tmp_path / "m.bk")
    again = bk.load(tmp_path / "m.bk")
    assert again.get_params() == {**model.get_params(), "n_bins": 4}
    assert_same(again, model, X)


# ---------------------------------------------------------------------------------- real data
def test_spambase_ten_fold(shared_data):
    X, y, _ = load_spambase(shared_data)
    majority = np.bincount(y).max() / len(y)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    for method in METHODS:
        accuracy = cross_val_score(DiscretizedNB(method=method), X, y, cv=cv).mean()
        assert accuracy > majority + 0.1, method
