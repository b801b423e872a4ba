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
