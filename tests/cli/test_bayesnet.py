"""The command line builds the Bayesian network classifiers: --model tan|aode|kdb on a table
of categories and one of numbers, saved models equal to the library's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.datasets.shared import load_uci_table


@pytest.mark.parametrize(
    ("choice", "cls"),
    [("tan", bk.TANClassifier), ("aode", bk.AODEClassifier), ("kdb", bk.KDBClassifier)],
)
def test_train_each_network_on_mushroom(cli, mushroom_csv, tmp_path, choice, cls):
    path = tmp_path / f"{choice}.bkm"
    result = cli(
        "train", mushroom_csv, "--target", "class", "--missing", "?", "--model", choice, "-o", path
    )
    assert result.exit_code == 0, result.stderr
    assert f"model: {cls.__name__}()" in result.stdout
    model = bk.load(path)
    frame = pl.read_csv(mushroom_csv, null_values="?")
    X, y = frame.drop("class"), frame.get_column("class").to_numpy()
    np.testing.assert_allclose(model.predict_proba(X), cls().fit(X, y).predict_proba(X))


def test_numbers_are_cut_into_intervals(cli, tmp_path: Path):
    data = load_wine(as_frame=True)
    frame = pl.from_pandas(data.frame.rename(columns={"od280/od315_of_diluted_wines": "od280"}))
    csv = tmp_path / "wine.csv"
    frame.with_columns(pl.col("target").cast(pl.String)).write_csv(csv)
    path = tmp_path / "tan.bkm"
    result = cli("train", csv, "--target", "target", "--model", "tan", "-o", path)
    assert result.exit_code == 0, result.stderr
    model = bk.load(path)
    assert set(model.cut_points_) == set(frame.drop("target").columns)


CAR_COLUMNS = ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
CAR_ROW = {"buying": "low", "maint": "low", "doors": "4", "persons": "more", "safety": "high"}


@pytest.fixture(scope="module")
def car_csv(shared_data, tmp_path_factory) -> Path:
    """UCI car evaluation as CSV with named columns (every value a word or a number-like word)."""
    X, y = load_uci_table("car", shared_data)
    frame = pl.DataFrame({c: X[:, j].astype(str) for j, c in enumerate(CAR_COLUMNS)})
    path = tmp_path_factory.mktemp("car") / "car.csv"
    frame.with_columns(pl.Series("class", y.astype(str))).write_csv(path)
    return path


def _explained(cli, car_csv, tmp_path, choice):
    path = tmp_path / f"{choice}.bkm"
    trained = cli("train", car_csv, "--target", "class", "--model", choice, "-o", path)
    assert trained.exit_code == 0, trained.stderr
    row = ",".join(f"{c}={v}" for c, v in CAR_ROW.items())  # lug_boot left out: missing
    result = cli("explain", path, row, "--json")
    assert result.exit_code == 0, result.stderr
    model = bk.load(path)
    frame = pl.DataFrame(
        {c: [CAR_ROW.get(c)] for c in CAR_COLUMNS}, schema=dict.fromkeys(CAR_COLUMNS, pl.String)
    )
    jll = model.predict_joint_log_proba(frame)[0]
    found = json.loads(result.stdout)
    k = {c: i for i, c in enumerate(model.classes_.tolist())}
    assert found["log_odds"] == pytest.approx(jll[k[found["label"]]] - jll[k[found["versus"]]])
    return path, model, frame, found, row


@pytest.mark.parametrize("choice", ["tan", "kdb"])
def test_explain_splits_a_networks_decision_exactly(cli, car_csv, tmp_path, choice):
    _, model, frame, found, _ = _explained(cli, car_csv, tmp_path, choice)
    assert found["exact"] is True
    assert found["interactions"] == 0.0
    shares = [c["log_odds"] for c in found["contributions"]]
    assert found["prior"] + sum(shares) == pytest.approx(found["log_odds"], abs=1e-9)
    # each term is the two classes' ln P(x_i | y, x_pa(i)) apart, named with the parents given
    factors = model.feature_log_factors(frame)[0]
    a, b = (list(model.classes_).index(found[key]) for key in ("label", "versus"))
    names = list(model.feature_names_in_)
    for c in found["contributions"]:
        feature, _, given = c["feature"].partition(" | ")
        column = feature.split("=")[0]
        assert feature == f"{column}={CAR_ROW[column]}"
        expected = [f"{p}={CAR_ROW[p]}" for p in model.parents_[column] if p in CAR_ROW]
        assert (given.split(", ") if given else []) == expected
        j = names.index(column)
        assert c["log_odds"] == pytest.approx(factors[j, a] - factors[j, b])
    assert {c["feature"].split("=")[0] for c in found["contributions"]} <= set(CAR_ROW)


def test_explain_says_aode_has_no_exact_split(cli, car_csv, tmp_path):
    path, _, _, found, row = _explained(cli, car_csv, tmp_path, "aode")
    assert found["exact"] is False
    shares = [c["log_odds"] for c in found["contributions"]]
    total = found["prior"] + sum(shares) + found["interactions"]
    assert total == pytest.approx(found["log_odds"], abs=1e-9)
    assert abs(found["interactions"]) > 1e-6  # the terms alone do not add up
    text = cli("explain", path, row)
    assert text.exit_code == 0, text.stderr
    assert "features interact within a class" in text.stdout
    assert "(interactions)" in text.stdout


@pytest.mark.parametrize("choice", ["tan", "aode", "kdb"])
@pytest.mark.parametrize("more", [[], ["--batch-size", "7"]])
def test_an_infinite_number_is_named_by_the_files_row(cli, tmp_path, choice, more):
    rows = [f"{i % 6 + 0.5},{'uvw'[i % 3]},{'pq'[i % 2]}" for i in range(30)]
    good = tmp_path / "good.csv"
    good.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    rows[25] = "inf,u,p"  # data row 26, after the first batch of 7 rows
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    message = "bad.csv, row 26: column 'a' holds inf; numeric columns take finite numbers"
    refused = cli("train", bad, "-t", "y", "-m", choice, "-o", tmp_path / "m.bkm", *more)
    assert refused.exit_code == 2
    assert message in refused.stderr
    assert cli("train", good, "-t", "y", "-m", choice, "-o", tmp_path / "m.bkm").exit_code == 0
    predicted = cli("predict", tmp_path / "m.bkm", bad)
    assert predicted.exit_code == 2
    assert message in predicted.stderr


def _sorted_by_class(tmp_path: Path, n: int = 600) -> tuple[Path, pl.DataFrame, np.ndarray]:
    """A table of two float columns and a word column whose rows come class by class."""
    rng = np.random.default_rng(3)
    y = np.repeat(["a", "b", "c"], n // 3)
    shift = np.repeat([0.0, 1.5, 3.0], n // 3)
    X = pl.DataFrame(
        {
            "u": np.round(rng.normal(size=n) + shift, 3),
            "v": np.round(rng.normal(size=n) - shift / 2, 3),
            "w": rng.choice(["x", "y", "z"], n),
        }
    )
    path = tmp_path / "sorted.csv"
    X.with_columns(pl.Series("label", y)).write_csv(path)
    return path, X, y


@pytest.mark.parametrize("choice", ["tan", "aode", "kdb"])
def test_batches_of_a_sorted_file_get_the_cut_points_of_all_its_rows(cli, tmp_path, choice):
    path, X, y = _sorted_by_class(tmp_path)
    whole, batched = tmp_path / "whole.bkm", tmp_path / "batched.bkm"
    assert cli("train", path, "-t", "label", "-m", choice, "-o", whole).exit_code == 0
    result = cli("train", path, "-t", "label", "-m", choice, "-o", batched, "--batch-size", 50)
    assert result.exit_code == 0, result.stderr
    a, b = bk.load(whole), bk.load(batched)
    # the first batch holds class "a" only: cut points from it alone would be none
    assert all(len(c) for c in b.cut_points_.values())
    assert a.cut_points_.keys() == b.cut_points_.keys()
    for name, cuts in a.cut_points_.items():
        np.testing.assert_array_equal(b.cut_points_[name], cuts)
    np.testing.assert_array_equal(b.class_count_, a.class_count_)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=1e-12, atol=0)
    cls = {"tan": bk.TANClassifier, "aode": bk.AODEClassifier, "kdb": bk.KDBClassifier}[choice]
    expected = cls().fit(X, y)
    np.testing.assert_allclose(b.predict_proba(X), expected.predict_proba(X), rtol=1e-12)


def test_the_cut_points_of_a_long_file_come_from_rows_spread_over_it(cli, tmp_path, monkeypatch):
    from bayeskit.cli import streaming

    monkeypatch.setattr(streaming, "LAYOUT_SAMPLE", 64)
    path, X, y = _sorted_by_class(tmp_path)
    out = tmp_path / "m.bkm"
    result = cli("train", path, "-t", "label", "-m", "tan", "-o", out, "--batch-size", 50)
    assert result.exit_code == 0, result.stderr
    model = bk.load(out)
    # 600 rows, at most 64 kept: every 16th (38 rows; every 8th would be 75), of every class
    sample = np.arange(0, 600, 16)
    expected = bk.TANClassifier()
    expected.summarize(X[sample], y[sample])  # the cut points of the sample, nothing counted
    expected.fit_summary(expected.summarize(X, y))
    for name, cuts in expected.cut_points_.items():
        np.testing.assert_array_equal(model.cut_points_[name], cuts)
    assert model.class_count_.sum() == 600
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), rtol=1e-12)


def test_sorted_spambase_in_batches_is_the_model_of_all_its_rows(cli, shared_data, tmp_path):
    from bayeskit.datasets.shared import load_spambase

    X, y, _ = load_spambase(shared_data)
    order = np.argsort(y, kind="stable")  # every ham row, then every spam row
    frame = pl.DataFrame({f"f{j}": X[order, j] for j in range(X.shape[1])})
    path = tmp_path / "spambase_sorted.csv"
    frame.with_columns(pl.Series("spam", y[order].astype(int))).write_csv(path)
    whole, batched = tmp_path / "whole.bkm", tmp_path / "batched.bkm"
    assert cli("train", path, "-t", "spam", "-m", "tan", "-o", whole).exit_code == 0
    result = cli("train", path, "-t", "spam", "-m", "tan", "-o", batched, "--batch-size", 1000)
    assert result.exit_code == 0, result.stderr
    a, b = bk.load(whole), bk.load(batched)
    assert sum(len(c) > 0 for c in b.cut_points_.values()) > 40  # (the first batch: none)
    np.testing.assert_allclose(b.predict_proba(frame), a.predict_proba(frame), rtol=1e-12)


def test_set_gives_a_model_its_settings(cli, tmp_path):
    path, X, y = _sorted_by_class(tmp_path)
    X = X.with_columns((pl.col("v") * 10).round().cast(pl.Int64).alias("v"))  # an integer column
    X.with_columns(pl.Series("label", y)).write_csv(path)
    out = tmp_path / "kdb.bkm"
    result = cli("train", path, "-t", "label", "-m", "kdb", "--set", "k=2", "--set",
                 "discretize=numbers", "-o", out)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "model: KDBClassifier(discretize='numbers', k=2)" in result.stdout
    model = bk.load(out)
    expected = bk.KDBClassifier(k=2, discretize="numbers").fit(X, y)
    assert set(model.cut_points_) == {"u", "v"}  # the integer column is cut too
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    # JSON values: a list, a number; evaluate and report take --set too
    chosen = ["edge_weight=cmi", "class_prior=[0.2, 0.3, 0.5]", "alpha=0.5"]
    sets = [arg for setting in chosen for arg in ("--set", setting)]
    measured = cli("evaluate", path, "-t", "label", "-m", "tan", *sets, "--json")
    assert measured.exit_code == 0, measured.stderr
    assert json.loads(measured.stdout)["model"] == (
        "TANClassifier(alpha=0.5, class_prior=[0.2, 0.3, 0.5], edge_weight='cmi')"
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (["--set", "parents=2"], "KDBClassifier has no setting 'parents'; its settings are: "
         "alpha, class_prior, class_weight, discretize, estimate, fit_prior, force_alpha, k, "
         "loss, prior_alpha"),
        (["--set", "k=9"], "k must be an integer from 0 to 3 (parents per feature); got 9"),
        (["--set", "k"], "'k' is not NAME=VALUE; write e.g. --set k=2"),
        (["--set", "k=1", "--set", "k=2"], "'k' is given twice"),
        (["--alpha", "1", "--set", "alpha=2"], "alpha is given by --alpha and by --set alpha="),
        (["--set", "k=2", "--unlabeled", "more"], "--unlabeled learns word counts + Multinom"),
    ],
)  # fmt: skip
def test_set_refuses_what_the_model_does_not_take_in_a_line(cli, tmp_path, settings, message):
    path, _, _ = _sorted_by_class(tmp_path, 60)
    out = tmp_path / "m.bkm"
    result = cli("train", path, "-t", "label", "-m", "kdb", *settings, "-o", out)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()
