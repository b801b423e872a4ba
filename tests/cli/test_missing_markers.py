"""Missing values from every door: the command line reads NA, NaN, null… as missing (as
pandas does), stores how it read the training data in the model file for predict, ignores the
training target at predict and reads an absent column as missing where missing values drop
out."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import InputTypeError
from bayeskit.io.model_file import load_reading
from bayeskit.io.readers import DEFAULT_MISSING, read_table


@pytest.fixture(scope="module")
def wine_na(tmp_path_factory):
    """UCI wine (scikit-learn's copy) with 6% of its numbers written ``NA`` (R's and pandas'
    convention), a categorical column with some ``N/A`` and ``null``, and the class."""
    data = load_wine(as_frame=True)
    frame = data.frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].map({0: "barolo", 1: "grignolino", 2: "barbera"})
    rng = np.random.default_rng(0)
    numeric = [c for c in frame.columns if c != "cultivar"]
    frame[numeric] = frame[numeric].mask(rng.random((len(frame), len(numeric))) < 0.06)
    colour = np.where(frame["color_intensity"].fillna(5) > 5, "deep", "pale").astype(object)
    colour[rng.random(len(frame)) < 0.05] = "N/A"
    colour[rng.random(len(frame)) < 0.03] = "null"
    frame.insert(3, "tint", colour)
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    frame.to_csv(path, index=False, na_rep="NA")
    return path


@pytest.fixture(scope="module")
def wine_model(wine_na, tmp_path_factory):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    path = tmp_path_factory.mktemp("models") / "wine.bkm"
    result = CliRunner().invoke(app, ["train", str(wine_na), "-t", "cultivar", "-o", str(path)])
    assert result.exit_code == 0, result.stderr
    return path, result.stdout


def _pandas(path):
    frame = pd.read_csv(path)  # pandas' default na_values
    return frame.drop(columns="cultivar"), frame["cultivar"].to_numpy()


def test_na_reads_as_missing_and_the_cli_model_is_the_pandas_one(wine_na, wine_model):
    path, out = wine_model
    model = bk.load(path)
    X, y = _pandas(wine_na)
    assert X.isna().to_numpy().mean() > 0.05  # the file does hold missing numbers
    expected = type(model)(**model.get_params()).fit(X, y)
    assert model.feature_families_ == expected.feature_families_
    assert model.feature_families_["alcohol"] != "categorical"  # not read as a category
    assert model.feature_families_["tint"] == "categorical"
    assert sorted(model.categories_["tint"].tolist()) == ["deep", "pale"]  # N/A, null: missing
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    assert "families: " in out
    assert "alcohol" in out


def test_no_default_missing_reads_the_markers_as_values(cli, wine_na, tmp_path):
    path = tmp_path / "literal.bkm"
    result = cli("train", wine_na, "-t", "cultivar", "--no-default-missing", "-o", path)
    assert result.exit_code == 0, result.stderr
    model = bk.load(path)
    assert model.feature_families_["alcohol"] == "categorical"  # "NA" is a value there
    assert "N/A" in model.categories_["tint"].tolist()
    assert load_reading(path)["default_missing"] is False


def test_the_reading_is_stored_in_the_model_file(wine_model):
    path, _ = wine_model
    reading = load_reading(path)
    assert reading["target"] == "cultivar"
    assert reading["default_missing"] is True
    assert reading["missing"] == []


def test_round_trip_train_then_predict_on_the_same_file(cli, wine_na, wine_model):
    """predict reads the training file as train did (NA missing) and ignores its target
    column, with a note, instead of refusing it."""
    path, _ = wine_model
    result = cli("predict", path, wine_na)
    assert result.exit_code == 0, result.stderr
    assert "column 'cultivar' is the training target: ignored" in result.stderr
    got = pl.read_csv(io.StringIO(result.stdout))
    X, y = _pandas(wine_na)
    model = bk.load(path)
    assert got.get_column("label").to_list() == model.predict(X).tolist()
    np.testing.assert_allclose(
        got.select("p_barbera", "p_barolo", "p_grignolino").to_numpy(),
        model.predict_proba(X),
        rtol=1e-12,
    )
    assert np.mean(got.get_column("label").to_numpy() == y) > 0.9


def test_missing_given_at_predict_replaces_the_stored_markers(cli, wine_na, tmp_path):
    """A '?' file trained with --missing '?': predict needs no option to read it alike."""
    text = re.sub(r"(?<=,)NA(?=,|$)|^NA(?=,)", "?", wine_na.read_text(), flags=re.MULTILINE)
    assert "NA" not in text.split()
    data = tmp_path / "wine-q.csv"
    data.write_text(text)
    model = tmp_path / "q.bkm"
    assert cli("train", data, "-t", "cultivar", "--missing", "?", "-o", model).exit_code == 0
    assert load_reading(model)["missing"] == ["?"]
    result = cli("predict", model, data)
    assert result.exit_code == 0, result.stderr
    wrong = cli("predict", model, data, "--missing", "n/a", "--no-default-missing")
    assert wrong.exit_code != 0  # '?' then reads as a value in numeric columns: named
    assert "holds '?'" in wrong.stderr


def test_an_absent_column_is_missing_for_a_naive_model(cli, wine_na, wine_model, tmp_path):
    path, _ = wine_model
    X, _ = _pandas(wine_na)
    data = tmp_path / "no-alcohol.csv"
    X.drop(columns="alcohol").to_csv(data, index=False, na_rep="NA")
    result = cli("predict", path, data)
    assert result.exit_code == 0, result.stderr
    assert "has no column 'alcohol': read as missing in every row" in result.stderr
    got = pl.read_csv(io.StringIO(result.stdout))
    expected = bk.load(path).predict_proba(X.assign(alcohol=np.nan))
    np.testing.assert_allclose(got.select("p_barbera").to_numpy()[:, 0], expected[:, 0])


def test_an_absent_column_is_named_for_a_model_that_needs_it(cli, tmp_path):
    X, y = load_wine(return_X_y=True, as_frame=True)
    frame = X.assign(cultivar=y.astype(str))
    data = tmp_path / "wine.csv"
    frame.to_csv(data, index=False)
    model = tmp_path / "lda.bkm"
    result = cli("train", data, "-t", "cultivar", "--model", "lda", "-o", model)
    assert result.exit_code == 0, result.stderr
    short = tmp_path / "short.csv"
    X.drop(columns="proline").to_csv(short, index=False)
    result = cli("predict", model, short)
    assert result.exit_code != 0
    assert "missing 'proline'" in result.stderr


def test_evaluate_prints_each_columns_family(cli, wine_na):
    result = cli("evaluate", wine_na, "-t", "cultivar", "--folds", 3)
    assert result.exit_code == 0, result.stderr
    families = [line for line in result.stdout.splitlines() if line.startswith("families: ")]
    assert len(families) == 1
    assert "categorical (1): tint" in families[0]


@pytest.mark.parametrize("marker", ["NA", "N/A", "NaN", "null", "", "nan", "NULL"])
def test_every_usual_marker_is_missing_in_read_table(marker):
    frame = read_table(f"x,y\n1,a\n{marker},b\n".encode(), format="csv")
    assert frame.get_column("x").to_list() == [1, None]
    assert marker in DEFAULT_MISSING
    literal = read_table(f"x,y\n1,a\n{marker},b\n".encode(), format="csv", default_missing=False)
    assert literal.get_column("x").null_count() == (1 if marker == "" else 0)


def test_a_model_file_without_reading_and_bad_readings(tmp_path):
    model = bk.GaussianNB().fit([[0.0], [1.0]], ["a", "b"])
    plain = tmp_path / "plain.bkm"
    bk.save(model, plain)
    assert load_reading(plain) is None  # as every file written before readings existed
    with pytest.raises(InputTypeError, match="reading must be a dict"):
        bk.save(model, tmp_path / "bad.bkm", reading={"missing": [1, 2]})
    assert not (tmp_path / "bad.bkm").exists()
    with pytest.raises(InputTypeError, match="reading must be a dict"):
        bk.save(model, tmp_path / "bad.bkm", reading=["NA"])  # type: ignore[arg-type]
