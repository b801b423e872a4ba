"""Behaviour of the network classifiers: the statistic's size bound, cut points fixed by the
first fit, structure that follows new batches, mixed tables, model files and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.bayesnet import MAX_CELLS, SubsetCounts
from bayeskit.bayesnet._counts import layout_of, n_cells
from bayeskit.errors import CountTableTooLargeError, MergeError, ParameterError

NETWORKS = [bk.TANClassifier, bk.AODEClassifier, lambda: bk.KDBClassifier(k=2)]


def _linked(rng: np.random.Generator, n: int, pairs: list[tuple[int, int]]) -> tuple:
    """Five binary features, independent given the class except each pair (i, j): x_j
    copies x_i (90%)."""
    y = rng.integers(0, 2, n)
    X = (rng.random((n, 5)) < np.where(y[:, None] == 1, 0.7, 0.3)).astype(np.int64)
    for i, j in pairs:
        X[:, j] = np.where(rng.random(n) < 0.9, X[:, i], 1 - X[:, i])
    return X, y


def test_layout_counts_every_subset_once():
    sizes = np.array([2, 3, 4, 1])
    for order in (1, 2, 3):
        layout = layout_of(sizes, order)
        assert layout.n_cells == n_cells(sizes, order)
        assert len(layout.features) == sum(
            len(list(__import__("itertools").combinations(range(4), t)))
            for t in range(1, order + 1)
        )


def test_the_bound_is_stated_and_refused_by_name():
    # 1,000 binary features (2.0 million pair cells per class) fit in memory
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (40, 1000))
    y = rng.integers(0, 2, 40)
    model = bk.TANClassifier().fit(X, y)
    assert model.stats_.blocks[0].counts.size == 2 * n_cells(np.full(1000, 2), 2)
    assert len(model.parents_) == 1000
    # 100 features of 20 values are fine too (1.98 million cells per class)
    assert n_cells(np.full(100, 20), 2) * 3 < MAX_CELLS
    # 2,000 features of 10 values are not: refused before anything is allocated
    X = rng.integers(0, 10, (30, 2000))
    with pytest.raises(CountTableTooLargeError, match="beyond the limit of 134217728"):
        bk.AODEClassifier().fit(X, rng.integers(0, 2, 30))
    assert isinstance(CountTableTooLargeError("x"), ValueError)


def test_a_new_batch_changes_the_structure_without_the_old_rows():
    rng = np.random.default_rng(1)
    X1, y1 = _linked(rng, 4000, [(0, 1)])
    X2, y2 = _linked(rng, 20000, [(2, 3), (0, 4)])
    model = bk.TANClassifier().partial_fit(X1, y1)
    before = model.parents_
    assert before["x1"] == ("x0",) or before["x0"] == ("x1",)
    model.partial_fit(X2, y2)
    whole = bk.TANClassifier().fit(np.vstack([X1, X2]), np.concatenate([y1, y2]))
    assert model.parents_ == whole.parents_ != before
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X1), whole.predict_joint_log_proba(X1), rtol=1e-12
    )
    # and removing the batch gives the first structure back
    model.unlearn(X2, y2)
    assert model.parents_ == before


def test_cut_points_are_fixed_by_the_first_fit():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 600)
    X = pd.DataFrame(
        {
            "size": rng.normal(y * 3.0, 1.0),
            "colour": np.array(["red", "blue", "green"])[rng.integers(0, 3, 600)],
            "count": rng.integers(0, 4, 600),
            "flag": rng.random(600) < 0.5,
        }
    )
    model = bk.TANClassifier().partial_fit(X[:300], y[:300])
    cuts = model.cut_points_
    assert list(cuts) == ["size"]
    assert len(cuts["size"]) >= 1
    model.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(model.cut_points_["size"], cuts["size"])
    # a model fitted on other rows cuts elsewhere and does not merge
    other = bk.TANClassifier().fit(X[300:], y[300:])
    if not np.array_equal(other.cut_points_["size"], cuts["size"]):
        with pytest.raises(MergeError, match="different"):
            bk.merge(model, other)
    # every numeric column cut when asked
    assert set(bk.TANClassifier(discretize="numbers").fit(X, y).cut_points_) == {"size", "count"}
    assert bk.TANClassifier(discretize="none").fit(X.drop(columns="size"), y).cut_points_ == {}


@pytest.mark.parametrize("make", NETWORKS)
def test_pandas_and_polars_tables_give_the_same_model(make, tmp_path):
    rng = np.random.default_rng(4)
    n = 300
    y = np.array(["no", "yes"])[rng.integers(0, 2, n)]
    frame = pd.DataFrame(
        {
            "age": np.where(rng.random(n) < 0.1, np.nan, rng.normal(40, 10, n)),
            "city": pd.Series(
                np.array(["Oslo", "Lyon", None], dtype=object)[rng.integers(0, 3, n)]
            ),
            "owner": rng.random(n) < 0.4,
            "rooms": rng.integers(1, 5, n),
        }
    )
    a = make().fit(frame, y)
    b = make().fit(pl.from_pandas(frame), y)
    np.testing.assert_allclose(a.predict_proba(frame), b.predict_proba(pl.from_pandas(frame)))
    path = tmp_path / "model.bkm"
    bk.save(a, path)
    loaded = bk.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(frame), a.predict_proba(frame))
    assert loaded.cut_points_.keys() == a.cut_points_.keys() == {"age"}
    np.testing.assert_array_equal(loaded.cut_points_["age"], a.cut_points_["age"])


def test_statistics_align_their_categories_when_added():
    rng = np.random.default_rng(5)
    X = np.array(["a", "b", "c", "d"], dtype=object)[rng.integers(0, 4, (80, 3))]
    y = rng.integers(0, 2, 80)
    first = X[:40].copy()
    first[first == "d"] = "a"  # the first half never sees "d"
    whole = bk.AODEClassifier().fit(np.vstack([first, X[40:]]), y)
    parts = bk.AODEClassifier().fit(first, y[:40]) + bk.AODEClassifier().fit(X[40:], y[40:])
    a, b = whole.stats_.blocks[0], parts.stats_.blocks[0]
    assert isinstance(a, SubsetCounts)
    assert [c.tolist() for c in a.categories] == [c.tolist() for c in b.categories]
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.pair_counts(2, 0), b.pair_counts(0, 2).transpose(0, 2, 1))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: bk.KDBClassifier(k=4), "k must be an integer from 0 to 3"),
        (lambda: bk.KDBClassifier(k=1.5), "k must be an integer"),
        (lambda: bk.AODEClassifier(m=-1), "m must be a number >= 0"),
        (lambda: bk.TANClassifier(discretize="all"), "discretize='all' is not one of"),
        (lambda: bk.TANClassifier(alpha=-1), "alpha must be >= 0"),
        (lambda: bk.TANClassifier(estimate="median"), "estimate='median' is not one of"),
        (lambda: bk.TANClassifier(edge_weight="mdl"), "edge_weight must be 'bayes'.*got 'mdl'"),
        (lambda: bk.TANClassifier(alpha=0.0), "edge_weight='bayes' needs alpha > 0"),
    ],
)
def test_bad_settings_are_refused_by_name(make, message):
    with pytest.raises(ParameterError, match=message):
        make().fit([["a", 1.0], ["b", 2.0]], [0, 1])


def test_a_refused_edge_weight_leaves_the_fitted_model_as_it_was():
    X, y = [["a", "x"], ["b", "y"], ["a", "y"]], [0, 1, 1]
    model = bk.TANClassifier().fit(X, y)
    before = model.predict_joint_log_proba(X)
    with pytest.raises(ParameterError, match="edge_weight='bayes' needs alpha > 0"):
        model.set_params(alpha=0.0).fit(X, y)
    np.testing.assert_array_equal(model.set_params(alpha=1.0).predict_joint_log_proba(X), before)
    # the likelihood weight takes alpha = 0 (maximum likelihood tables need no prior)
    assert bk.TANClassifier(alpha=0.0, edge_weight="cmi", estimate="mle").fit(X, y).parents_


def test_infinite_numbers_are_refused_naming_the_column():
    model = bk.TANClassifier().fit(
        pd.DataFrame({"v": [1.0, 2.0, 3.0], "c": list("abc")}), [0, 1, 1]
    )
    with pytest.raises(bk.errors.DataError, match=r"'v'\) holds inf at row 1"):
        model.predict(pd.DataFrame({"v": [1.0, np.inf], "c": ["a", "b"]}))


def test_numeric_object_columns_read_as_mixed_nb_reads_them():
    # an object column of numbers with pandas NA is numeric (as for MixedNB): NA is missing
    y = [0, 1, 0, 1, 0, 1]
    typed = pd.DataFrame(
        {"v": pd.array([1.5, None, 2.0, 3.1, 0.2, 5.0], dtype="Float64"), "c": list("xyxyxy")}
    )
    loose = typed.assign(v=pd.Series([1.5, pd.NA, 2.0, 3.1, 0.2, 5.0], dtype=object))
    model = bk.TANClassifier().fit(loose, y)
    assert list(model.cut_points_) == ["v"]
    np.testing.assert_array_equal(
        model.predict_proba(loose), bk.TANClassifier().fit(typed, y).predict_proba(typed)
    )
    # text in a numeric column is refused by name, not read as a number
    with pytest.raises(bk.errors.DataError, match=r"'v'\) holds '1.5' at row 0"):
        model.predict(loose.assign(v=pd.Series(["1.5"] * 6, dtype=object)))


def test_loss_and_class_weight_act_through_the_template():
    rng = np.random.default_rng(6)
    X = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, (200, 4))]
    y = rng.integers(0, 2, 200)
    for make in NETWORKS:
        model = make().fit(X, y)
        always_one = make().set_params(loss=[[0, 100], [1, 0]]).fit(X, y)
        assert (always_one.predict(X) == 1).all()
        heavy = make().set_params(class_weight={0: 1e6, 1: 1}).fit(X, y)
        assert (heavy.predict(X) == 0).all()
        np.testing.assert_allclose(heavy.predict_proba(X), model.predict_proba(X))


def test_explain_splits_a_network_decision_by_feature():
    from bayeskit.inspection import explain

    rng = np.random.default_rng(7)
    X = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, (300, 4))]
    y = np.where((X[:, 0] == "a") ^ (X[:, 1] == "b"), "yes", "no")
    for model in (bk.TANClassifier().fit(X, y), bk.KDBClassifier(k=2).fit(X, y)):
        e = explain(model, X[0])
        jll = model.predict_joint_log_proba(X[:1])[0]
        index = {c: k for k, c in enumerate(model.classes_.tolist())}
        assert e.log_odds == pytest.approx(jll[index[e.label]] - jll[index[e.versus]])
        assert e.log_odds == pytest.approx(e.prior + sum(c.weight for c in e.contributions))
        assert {c.feature for c in e.contributions} <= {"x0", "x1", "x2", "x3"}


def test_dask_continues_from_a_first_fit_with_its_cut_points():
    dd = pytest.importorskip("dask.dataframe")
    import bayeskit.dask as bkd

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 400)
    frame = pd.DataFrame(
        {"v": rng.normal(y * 2.0, 1.0), "c": np.array(["a", "b"])[rng.integers(0, 2, 400)]}
    )
    # partitions would each cut the numbers their own way: refused, naming them
    with pytest.raises(bk.errors.DataError, match=r"cut points of its numeric columns \('v'\)"):
        bkd.fit(bk.TANClassifier(), dd.from_pandas(frame, npartitions=3), y)
    model = bk.TANClassifier().fit(frame[:100], y[:100])
    bkd.partial_fit(model, dd.from_pandas(frame[100:], npartitions=3), y[100:])
    local = bk.TANClassifier().fit(frame[:100], y[:100]).partial_fit(frame[100:], y[100:])
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), local.predict_joint_log_proba(frame)
    )


def test_the_report_draws_the_tree():
    from bayeskit.report import build_report

    rng = np.random.default_rng(9)
    X, y = _linked(rng, 2000, [(0, 1), (2, 3)])
    model = bk.TANClassifier().fit(X, y)
    page = build_report(
        title="t", classes=model.classes_, y_true=y, proba=model.predict_proba(X), model=model
    )
    assert "Network structure" in page
    assert page.count("<rect") >= 5  # a box per feature
    for name, parents in model.parents_.items():
        assert f"<td>{name}</td><td>{', '.join(parents) or '(the class only)'}</td>" in page
    aode = bk.AODEClassifier().fit(X, y)
    page = build_report(
        title="t", classes=aode.classes_, y_true=y, proba=aode.predict_proba(X), model=aode
    )
    assert "Network structure" not in page  # every feature parent of every other: no tree


def test_a_refused_merge_names_the_first_column_cut_otherwise_in_a_line():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 900)
    X = pd.DataFrame({f"c{j}": rng.normal(y * (1 + j % 3), 1.0) for j in range(40)})
    a, b = bk.TANClassifier().fit(X[:450], y[:450]), bk.TANClassifier().fit(X[450:], y[450:])
    first = next(c for c in X.columns if not np.array_equal(a.cut_points_[c], b.cut_points_[c]))
    with pytest.raises(MergeError) as refused:
        bk.merge(a, b)
    message = str(refused.value)
    assert len(message) < 400  # (every cut list of every column made it 1,334 characters)
    assert f"column {first!r} is cut at [" in message
    shown = a.cut_points_[first][:4]
    assert ", ".join(f"{c:.6g}" for c in shown) in message
    # a column that is a category in one fit and numbers in the other
    c = bk.TANClassifier().fit(X.assign(c0=np.round(X["c0"]).astype(int)), y)
    with pytest.raises(MergeError, match=r"column 'c0' is cut at .* no cut points \(a category"):
        bk.merge(a, c)
