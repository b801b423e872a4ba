"""explain, top_features and feature usefulness."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.inspection import explain, feature_usefulness, top_features

X = np.array([[3, 0, 1, 2], [2, 0, 1, 2], [0, 3, 1, 2], [0, 2, 1, 2], [1, 1, 4, 2]])
Y = np.array(["ham", "ham", "spam", "spam", "other"])
NAMES = ["meeting", "free", "rare", "the"]


@pytest.mark.parametrize(
    "model",
    [bk.MultinomialNB(), bk.BernoulliNB(), bk.ComplementNB(norm=True)],
    ids=lambda m: type(m).__name__,
)
def test_contributions_add_up_to_the_log_odds(model):
    model.fit(X, Y)
    for row in ([0, 2, 1, 2], sp.csr_matrix([[1, 0, 0, 2]]), [0, 0, 0, 0]):
        e = explain(model, row, feature_names=NAMES)
        dense = row.toarray() if sp.issparse(row) else np.atleast_2d(row)
        jll = model.predict_joint_log_proba(dense)[0]
        a, b = (np.flatnonzero(model.classes_ == c)[0] for c in (e.label, e.versus))
        assert e.log_odds == pytest.approx(jll[a] - jll[b], rel=1e-10, abs=1e-10)
        terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
        assert terms == pytest.approx(e.log_odds)
        assert e.label == model.predict(dense)[0]
        weights = [abs(c.weight) for c in e.contributions]
        assert weights == sorted(weights, reverse=True)


def test_explain_categorical_and_chosen_classes():
    rows = [["sunny", "hot"], ["sunny", "mild"], ["rain", "mild"], ["rain", "cool"]]
    model = bk.CategoricalNB().fit(rows, ["no", "no", "yes", "yes"])
    e = explain(model, ["rain", "hot"], label="no", versus="yes")
    assert (e.label, e.versus) == ("no", "yes")
    assert {c.feature for c in e.contributions} == {"x0=rain", "x1=hot"}
    jll = model.predict_joint_log_proba([["rain", "hot"]])[0]
    assert e.log_odds == pytest.approx(jll[0] - jll[1])
    with pytest.raises(ParameterError, match="'maybe' is not one of the classes"):
        explain(model, ["rain", "hot"], label="maybe")


def test_top_features_and_usefulness():
    model = bk.MultinomialNB().fit(X, Y)
    top = top_features(model, 1, feature_names=NAMES)
    assert top["ham"][0][0] == "meeting"
    assert top["spam"][0][0] == "free"
    assert top["other"][0][0] == "rare"
    useful = feature_usefulness(model, alpha=0.0)
    assert useful[3] == pytest.approx(1 / 3)  # "the": same rate in every class
    assert useful[0] > 0.6
    assert np.all((useful >= 1 / 3 - 1e-12) & (useful <= 1.0))
    empirical = feature_usefulness(model, alpha=0.0, prior="empirical")
    np.testing.assert_allclose(empirical[0], 5 / 6)  # 5 of the 6 "meeting" in ham
    with pytest.raises(ParameterError, match="count model"):
        feature_usefulness(bk.CategoricalNB().fit([["a"], ["b"]], [0, 1]))


def test_usefulness_selector_in_a_pipeline():
    from sklearn.pipeline import make_pipeline

    from bayeskit.inspection import UsefulnessSelector

    selector = UsefulnessSelector(k=2).fit(X, Y)
    kept = selector.get_support()
    assert kept.sum() == 2
    assert selector.usefulness_[kept].min() >= selector.usefulness_[~kept].max()
    assert selector.transform(X).shape == (5, 2)
    assert 3 not in np.flatnonzero(selector.get_support())  # "the" is never kept
    only_sure = UsefulnessSelector(threshold=0.5).fit(X, Y)
    assert np.all(only_sure.usefulness_[only_sure.get_support()] >= 0.5)
    pipe = make_pipeline(UsefulnessSelector(k=3), bk.MultinomialNB()).fit(X, Y)
    assert pipe.score(X, Y) >= 0.8
    with pytest.raises(ParameterError, match="k must be a positive int"):
        UsefulnessSelector(k=0).fit(X, Y)


def test_usefulness_selector_keeps_dataframe_column_names():
    """Issue 10 §4: the names of a DataFrame's columns, not x0, x1, ..."""
    import pandas as pd

    from bayeskit.inspection import UsefulnessSelector

    frame = pd.DataFrame(np.asarray(X), columns=["w", "x", "y", "the"])
    selector = UsefulnessSelector(k=2).fit(frame, Y)
    expected = np.array(["w", "x", "y", "the"], dtype=object)[selector.get_support()]
    np.testing.assert_array_equal(selector.get_feature_names_out(), expected)
    assert "the" not in selector.get_feature_names_out()


@pytest.mark.parametrize("n", [-1, 1.5, "2", True, None])
def test_top_features_refuses_an_n_that_is_not_a_count(n):
    model = bk.MultinomialNB().fit(X, Y)
    with pytest.raises(ParameterError, match=r"n must be a whole number >= 0.*got"):
        top_features(model, n)


def test_top_features_n_zero_and_beyond_the_width():
    model = bk.MultinomialNB().fit(X, Y)
    assert all(v == [] for v in top_features(model, 0).values())
    assert all(len(v) == X.shape[1] for v in top_features(model, np.int64(99)).values())


def test_explain_refuses_several_rows():
    from bayeskit.errors import ShapeError

    model = bk.MultinomialNB().fit(X, Y)
    with pytest.raises(ShapeError, match="explain takes one row; got 2 rows"):
        explain(model, [[1, 2, 3, 0], [9, 0, 0, 0]])
    with pytest.raises(ShapeError, match="got 3 rows"):
        explain(model, sp.csr_matrix(X[:3]))
    assert explain(model, [[1, 2, 3, 0]]).label == explain(model, [1, 2, 3, 0]).label
    rows = np.array([["a", "x"], ["a", "y"], ["b", "y"], ["b", "x"]] * 5, dtype=object)
    tan = bk.TANClassifier().fit(rows, ["p", "p", "q", "q"] * 5)
    with pytest.raises(ShapeError, match="got 2 rows"):
        explain(tan, [["a", "x"], ["b", "y"]])


def test_top_features_leave_out_missing_indicators_of_columns_never_missing():
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 60)
    X = np.column_stack(
        [rng.poisson(np.where(y == "a", 900.0, 300.0)), rng.poisson(np.where(y == "a", 2.0, 5.0))]
    ).astype(float)
    complete = bk.PoissonNB().fit(X, y)
    names = [name for feats in top_features(complete, 4).values() for name, _ in feats]
    assert names
    assert not [name for name in names if name.endswith("=<missing>")]
    holes = X.copy()
    holes[::10, 0] = np.nan  # column 0 seen missing: its indicator is ranked with the rest
    listed = top_features(bk.PoissonNB().fit(holes, y), 99)
    assert any(name == "x0=<missing>" for name, _ in listed["a"])
    assert not any(name == "x1=<missing>" for name, _ in listed["a"])


def test_report_top_features_leave_out_missing_indicators_of_columns_never_missing():
    from bayeskit.report.page import top_terms

    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b", "c"], 40)
    X = rng.poisson(np.where(y[:, None] == "a", 500.0, 50.0), (120, 3)).astype(float)
    heading, table = top_terms(bk.PoissonNB().fit(X, y))
    assert heading == "Most telling features per class"
    shown = [name for feats in table.values() for name, _ in feats]
    assert shown
    assert not [name for name in shown if "<missing>" in name]
