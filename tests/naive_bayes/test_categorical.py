"""CategoricalNB on raw values: DataFrames, missing values, unseen values, growing categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.datasets.shared import load_uci_table
from bayeskit.errors import InputTypeError, UnknownCategoryError

ROWS = [
    ["sunny", 1, True],
    ["sunny", 2, False],
    ["rain", 2, True],
    ["rain", 3, None],
    ["overcast", 1, True],
    [None, 3, False],
]
Y = ["no", "no", "yes", "yes", "yes", "no"]


def test_pandas_polars_numpy_agree():
    frame = pd.DataFrame(ROWS, columns=["outlook", "level", "windy"])
    frame["outlook"] = frame["outlook"].astype("category")
    frame["level"] = frame["level"].astype("Int64")
    polars = pl.DataFrame(
        {
            "outlook": [r[0] for r in ROWS],
            "level": [r[1] for r in ROWS],
            "windy": [r[2] for r in ROWS],
        }
    )
    array = np.array(ROWS, dtype=object)
    results = []
    for X in (frame, polars, array, ROWS):
        model = bk.CategoricalNB().fit(X, Y)
        results.append(model.predict_log_proba(X))
    for other in results[1:]:
        np.testing.assert_allclose(other, results[0], rtol=1e-12)
    model = bk.CategoricalNB().fit(frame, Y)
    assert model.feature_names_in_.tolist() == ["outlook", "level", "windy"]
    assert [c.tolist() for c in model.categories_] == [
        ["overcast", "rain", "sunny"],
        [1.0, 2.0, 3.0],
        [False, True],
    ]


def test_missing_value_drops_out_of_the_product():
    model = bk.CategoricalNB().fit(ROWS, Y)
    with_missing = model.predict_joint_log_proba([[None, 2, True]])
    only_rest = (
        bk.CategoricalNB().fit([r[1:] for r in ROWS], Y).predict_joint_log_proba([[2, True]])
    )
    # Training rows with a missing outlook count for the other features only, so the two
    # models differ in the outlook block alone; at prediction the missing value adds nothing.
    outlook_only = bk.CategoricalNB().fit([[r[0]] for r in ROWS], Y)
    np.testing.assert_allclose(
        with_missing,
        only_rest + outlook_only.predict_joint_log_proba([[None]]) - outlook_only.class_log_prior_,
        rtol=1e-12,
    )
    everything_missing = model.predict_proba([[None, np.nan, None]])
    np.testing.assert_allclose(everything_missing[0], np.exp(model.class_log_prior_))


def test_unseen_policies():
    model = bk.CategoricalNB().fit(ROWS, Y)
    probe = [["snow", 1, True]]
    smooth = model.predict_joint_log_proba(probe)
    ignore = model.set_params(unseen="ignore").predict_joint_log_proba(probe)
    missing = model.predict_joint_log_proba([[None, 1, True]])
    np.testing.assert_allclose(ignore, missing)
    assert not np.allclose(smooth, ignore)
    model.set_params(unseen="error")
    with pytest.raises(UnknownCategoryError, match=r"'snow' at row 0, column 0 \('x0'\)"):
        model.predict(probe)


def test_unseen_smooth_equals_a_zero_count_category():
    X = [["a"], ["a"], ["b"], ["c"]]
    y = [0, 0, 1, 1]
    model = bk.CategoricalNB(alpha=0.5).fit(X, y)
    # 'c' has zero count in class 0; an unseen value is scored the same way there.
    np.testing.assert_allclose(
        model.predict_joint_log_proba([["zzz"]])[0, 0],
        model.predict_joint_log_proba([["c"]])[0, 0],
    )


def test_new_categories_and_classes_in_later_batches():
    model = bk.CategoricalNB()
    model.partial_fit([["a", 1], ["b", 1]], ["x", "x"])
    model.partial_fit([["c", 2], ["a", 3]], ["y", "z"])
    assert [c.tolist() for c in model.categories_] == [["a", "b", "c"], [1, 2, 3]]
    whole = bk.CategoricalNB().fit([["a", 1], ["b", 1], ["c", 2], ["a", 3]], ["x", "x", "y", "z"])
    np.testing.assert_allclose(
        model.predict_log_proba([["c", 1]]), whole.predict_log_proba([["c", 1]]), rtol=1e-12
    )


def test_mixed_types_in_one_column():
    # (a number beside the text spelling it, 1 and "1", is refused:
    # test_categorical_spelled_twice.py)
    X = np.array([[1], ["a"], [2.5], ["b"]], dtype=object)
    model = bk.CategoricalNB().fit(X, [0, 0, 1, 1])
    assert model.categories_[0].tolist() == [1, 2.5, "a", "b"]


def test_non_scalar_values_are_refused():
    X = np.array([[{"a": 1}], ["b"]], dtype=object)
    with pytest.raises(InputTypeError, match=r"column 0 .* holds a dict at row 0"):
        bk.CategoricalNB().fit(X, [0, 1])


def test_mushroom_with_question_mark_as_missing(shared_data):
    X, y = load_uci_table("mushroom", shared_data)
    X = X.astype(object)
    X[X == "?"] = None
    model = bk.CategoricalNB().fit(X, y)
    assert "?" not in model.categories_[10].tolist()  # stalk-root holds the 2,480 "?"
    assert model.category_count_[10].sum() == len(y) - 2480
    assert model.score(X, y) > 0.94


def test_voting_with_missing_votes(shared_data):
    X, y = load_uci_table("voting", shared_data)
    X = np.where(X == "?", None, X).astype(object)
    model = bk.CategoricalNB().fit(X, y)
    assert all(c.tolist() == ["n", "y"] for c in model.categories_)
    assert model.score(X, y) > 0.88


@pytest.mark.parametrize("unseen", ["smooth", "ignore"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, bool])
def test_compiled_and_general_paths_agree(unseen, dtype):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2 if dtype is bool else 6, size=(300, 7)).astype(dtype)
    y = rng.integers(0, 3, size=300)
    probe = rng.integers(0, 2 if dtype is bool else 9, size=(100, 7)).astype(dtype)  # unseen
    if dtype is np.float64:
        X[rng.random(X.shape) < 0.1] = np.nan
        probe[rng.random(probe.shape) < 0.1] = np.nan
    compiled = bk.CategoricalNB(unseen=unseen).fit(X, y)
    general = bk.CategoricalNB(unseen=unseen).fit(X.astype(object), y)
    assert [c.tolist() for c in compiled.categories_] == [c.tolist() for c in general.categories_]
    np.testing.assert_allclose(
        compiled.predict_joint_log_proba(probe),
        general.predict_joint_log_proba(probe.astype(object)),
        rtol=1e-12,
    )


def test_compiled_path_names_unseen_values():
    model = bk.CategoricalNB(unseen="error").fit(np.array([[0, 1], [1, 2]]), [0, 1])
    with pytest.raises(UnknownCategoryError, match=r"value 7 at row 1, column 1 \('x1'\)"):
        model.predict(np.array([[0, 1], [1, 7]]))
    with pytest.raises(UnknownCategoryError, match=r"value 2\.5 at row 0"):
        model.predict(np.array([[2.5, 1.0]]))


def test_soft_labels_take_the_general_path():
    X = np.array([[0, 1], [1, 1], [1, 0]])
    R = np.array([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]])
    model = bk.CategoricalNB()
    stats = model._families()[0].summarize(model._check_X(X, reset=True), R)
    np.testing.assert_allclose(stats.counts, [[0.7, 0.7, 0.5, 0.9], [0.3, 1.3, 0.5, 1.1]])
