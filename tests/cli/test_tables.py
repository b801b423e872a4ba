"""The command line on tables: UCI mushroom (categorical, '?' as missing) end to end, and the
numbers it prints checked against the library computing the same thing."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import accuracy_score, f1_score, log_loss
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.families import FAMILIES
from bayeskit.io.model_file import ESTIMATORS
from bayeskit.naive_bayes import MixedNB


def _needs(family: str, estimator: str | None = None) -> None:
    """Skip until the family is registered (and its estimator can be saved): these land in the
    tree separately from the command line."""
    if family not in FAMILIES:
        pytest.skip(f"the {family} family is not registered in this build yet")
    if estimator is not None and estimator not in ESTIMATORS:
        pytest.skip(f"{estimator} model files are not in this build yet")


@pytest.fixture(scope="module")
def mushroom_model(mushroom_csv, tmp_path_factory):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    path = tmp_path_factory.mktemp("models") / "mushroom.bk"
    args = ["train", str(mushroom_csv), "--target", "class", "--missing", "?", "-o", str(path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    return path, result.stdout


def _frame(mushroom_csv):
    return pl.read_csv(mushroom_csv, null_values=["?"])


def test_train_writes_a_mixed_model_with_a_family_per_column(mushroom_model, mushroom_csv):
    path, out = mushroom_model
    model = bk.load(path)
    assert isinstance(model, MixedNB)
    frame = _frame(mushroom_csv)
    assert model.feature_families_ == dict.fromkeys(frame.drop("class").columns, "categorical")
    assert "3000 rows × 22 columns; classes: e" in out
    assert "families: categorical (22)" in out
    expected = MixedNB().fit(frame.drop("class"), frame.get_column("class").to_numpy())
    X = frame.drop("class").head(50)
    np.testing.assert_array_equal(model.predict_proba(X), expected.predict_proba(X))


def test_predict_gives_the_models_probabilities(cli, mushroom_model, mushroom_csv, tmp_path):
    path, _ = mushroom_model
    frame = _frame(mushroom_csv)
    out = tmp_path / "predictions.jsonl"
    result = cli("predict", path, mushroom_csv, "--ignore", "class", "--missing", "?", "-o", out)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    got = pl.read_ndjson(out)
    model = bk.load(path)
    X = frame.drop("class")
    assert got.columns == ["label", "p_e", "p_p"]
    assert got.get_column("label").to_list() == model.predict(X).tolist()
    np.testing.assert_allclose(got.select("p_e", "p_p").to_numpy(), model.predict_proba(X))


def test_predict_from_stdin_with_an_id_column(cli, mushroom_model, mushroom_csv):
    path, _ = mushroom_model
    frame = _frame(mushroom_csv).head(5).with_row_index("id", offset=100)
    text = frame.write_csv(null_value="")
    result = cli("predict", path, "-", "--id", "id", "--ignore", "class", input=text)
    assert result.exit_code == 0, result.stderr
    got = pl.read_csv(io.StringIO(result.stdout))
    assert got.get_column("id").to_list() == [100, 101, 102, 103, 104]
    expected = bk.load(path).predict_proba(frame.drop("id", "class"))[:, 1]
    np.testing.assert_allclose(got.get_column("p_p").to_numpy(), expected)


def test_evaluate_json_matches_cross_validation_by_hand(cli, mushroom_csv):
    result = cli("evaluate", mushroom_csv, "-t", "class", "--missing", "?", "--folds", 3, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    frame = _frame(mushroom_csv)
    X, y = frame.drop("class"), frame.get_column("class").to_numpy()
    proba = np.zeros((len(y), 2))
    predicted = np.empty_like(y)
    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
        model = MixedNB().fit(X[train], y[train])
        proba[test] = model.predict_proba(X[test])
        predicted[test] = model.predict(X[test])
    assert found["accuracy"] == pytest.approx(accuracy_score(y, predicted), abs=1e-12)
    assert found["macro_f1"] == pytest.approx(f1_score(y, predicted, average="macro"), abs=1e-12)
    assert found["log_loss"] == pytest.approx(log_loss(y, proba), rel=1e-9)
    assert found["classes"] == ["e", "p"]
    assert found["positive_class"] == "p"
    matrix = np.array(found["confusion_matrix"])
    assert matrix.sum() == len(y)
    assert np.trace(matrix) == int((predicted == y).sum())
    assert found["per_class"]["p"]["support"] == int((y == "p").sum())
    assert 0.9 < found["roc_auc"] <= 1.0
    assert found["method"] == "3-fold stratified cross-validation (seed 0)"


def test_evaluate_prints_a_readable_summary(cli, mushroom_csv):
    result = cli("evaluate", mushroom_csv, "-t", "class", "--missing", "?", "--cv", 2)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"data: {mushroom_csv} — 3000 rows × 22 columns")
    assert lines[1] == "model: MixedNB()"
    assert lines[2].startswith("families: categorical (22): cap-shape, cap-surface")
    assert lines[3] == "evaluation: 2-fold stratified cross-validation (seed 0)"
    # 3000 mushrooms, categories smoothed by the pseudo-count the counts choose: every row
    # right is possible (1.0000), so the line is checked for its form and a sane value
    assert re.match(r"accuracy [01]\.\d{4}   macro-F1 ", lines[4]), lines[4]
    assert float(lines[4].split()[1]) > 0.9
    assert "ROC-AUC" in lines[4]
    assert any(line.split()[:1] == ["p"] for line in lines)  # the per-class row
    assert "confusion matrix (rows: true class, columns: predicted)" in result.stdout


def test_evaluate_on_a_test_file(cli, mushroom_csv, tmp_path):
    frame = pl.read_csv(mushroom_csv)
    train, test = tmp_path / "train.csv", tmp_path / "test.jsonl"
    frame.head(2000).write_csv(train)
    frame.tail(1000).select(reversed(frame.columns)).write_ndjson(test)  # columns reordered
    result = cli("evaluate", train, "-t", "class", "--test", test, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    model = MixedNB().fit(frame.head(2000).drop("class"), frame.head(2000).get_column("class"))
    expected = model.predict(frame.tail(1000).drop("class"))
    truth = frame.tail(1000).get_column("class").to_numpy()
    assert found["n"] == 1000
    assert found["accuracy"] == pytest.approx(float((expected == truth).mean()), abs=1e-12)
    assert found["method"] == f"trained on {train}, tested on {test}"


def test_explain_splits_the_log_odds_exactly(cli, mushroom_model):
    path, _ = mushroom_model
    row = {"odor": "n", "cap-shape": "x", "spore-print-color": "k", "stalk-root": None}
    result = cli("explain", path, json.dumps(row), "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    model = bk.load(path)
    frame = pl.DataFrame({c: [row.get(c)] for c in model.feature_names_in_}, strict=True)
    frame = frame.cast(pl.String)
    jll = model.predict_joint_log_proba(frame)[0]
    k = {c: i for i, c in enumerate(model.classes_.tolist())}
    assert found["log_odds"] == pytest.approx(jll[k[found["label"]]] - jll[k[found["versus"]]])
    shares = [c["log_odds"] for c in found["contributions"]]
    assert found["prior"] + found["intercept"] + sum(shares) == pytest.approx(found["log_odds"])
    assert sorted(c["feature"] for c in found["contributions"]) == [
        "cap-shape=x",
        "odor=n",
        "spore-print-color=k",
    ]
    assert found["probability"] == pytest.approx(model.predict_proba(frame)[0][k[found["label"]]])
    pairs = cli("explain", path, "odor=n, cap-shape=x ,spore-print-color=k", "--json")
    assert json.loads(pairs.stdout) == found


def test_explain_compares_the_classes_asked_for(cli, mushroom_model):
    path, _ = mushroom_model
    result = cli("explain", path, "odor=n", "--label", "p", "--versus", "e")
    assert result.exit_code == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("'p' (P = 0.")
    assert "vs 'e': log-odds -" in first
    assert "odor=n" in result.stdout


def test_inspect_lists_classes_priors_families_and_top_features(cli, mushroom_model):
    path, _ = mushroom_model
    result = cli("inspect", path, "--json", "--top", 3)
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    model = bk.load(path)
    counts = model.class_count_
    assert [c["label"] for c in found["classes"]] == ["e", "p"]
    assert [c["prior"] for c in found["classes"]] == pytest.approx(counts / counts.sum())
    assert found["families"] == model.feature_families_
    assert all(len(v) == 3 for v in found["top_features"].values())
    text = cli("inspect", path, "--top", 2).stdout
    assert "classes: e (prior 0." in text
    assert "families: categorical (22)" in text
    assert "  p: " in text


def test_a_numeric_table_gets_gaussian_families(cli, tmp_path):
    _needs("gaussian")
    rng = np.random.default_rng(0)
    frame = pl.DataFrame(
        {
            "height": np.r_[rng.normal(170, 8, 60), rng.normal(150, 8, 60)],
            "smoker": [True, False] * 60,
            "colour": ["red", "blue", "green"] * 40,
            "group": ["a"] * 60 + ["b"] * 60,
        }
    )
    path = tmp_path / "people.parquet"
    frame.write_parquet(path)
    result = cli("train", path, "-t", "group", "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.stderr
    model = bk.load(tmp_path / "m.bk")
    assert model.feature_families_ == {
        "height": "gaussian",
        "smoker": "bernoulli",
        "colour": "categorical",
    }
    explained = cli("explain", tmp_path / "m.bk", "height=168,smoker=true", "--json")
    assert explained.exit_code == 0, explained.stderr
    found = json.loads(explained.stdout)
    assert found["label"] == "a"
    shares = [c["log_odds"] for c in found["contributions"]]
    assert found["prior"] + found["intercept"] + sum(shares) == pytest.approx(found["log_odds"])


@pytest.mark.parametrize("choice", ["gaussian", "kernel", "poisson"])
def test_numeric_models_on_a_numeric_table(cli, tmp_path, choice):
    _needs(choice, f"{choice.capitalize()}NB")
    rng = np.random.default_rng(1)
    frame = pl.DataFrame(
        {
            "a": np.r_[rng.poisson(2, 50), rng.poisson(6, 50)].astype(float),
            "b": np.r_[rng.poisson(5, 50), rng.poisson(1, 50)].astype(float),
            "y": ["low"] * 50 + ["high"] * 50,
        }
    )
    path = tmp_path / "counts.csv"
    frame.write_csv(path)
    model_path = tmp_path / f"{choice}.bk"
    result = cli("train", path, "-t", "y", "--model", choice, "-o", model_path)
    assert result.exit_code == 0, result.stderr
    model = bk.load(model_path)
    assert type(model).__name__ == f"{choice.capitalize()}NB"
    explained = cli("explain", model_path, "a=1,b=6", "--json")
    assert explained.exit_code == 0, explained.stderr
    found = json.loads(explained.stdout)
    jll = model.predict_joint_log_proba(pl.DataFrame({"a": [1.0], "b": [6.0]}))[0]
    k = {c: i for i, c in enumerate(model.classes_.tolist())}
    assert found["label"] == "low"
    assert found["log_odds"] == pytest.approx(jll[k["low"]] - jll[k["high"]])
    shares = [c["log_odds"] for c in found["contributions"]]
    assert found["prior"] + found["intercept"] + sum(shares) == pytest.approx(found["log_odds"])
    assert sorted(c["feature"] for c in found["contributions"]) == ["a=1", "b=6"]


def test_prediction_columns_are_read_as_in_training(cli, tmp_path):
    _needs("gaussian")
    train = tmp_path / "train.csv"
    train.write_text("code,size,y\n1,1.5,a\n2,2.5,b\nx,1.0,a\n2,3.0,b\n1,1.2,a\n2,2.9,b\n")
    assert cli("train", train, "-t", "y", "-o", tmp_path / "m.bk").exit_code == 0
    model = bk.load(tmp_path / "m.bk")
    # size read as numbers; numeric="auto" picks its family.
    assert model.feature_families_ == {"code": "categorical", "size": "discretized"}
    new = tmp_path / "new.csv"
    new.write_text("code,size\n1,2\n2,2\n")  # codes that parse as integers, sizes as ints
    result = cli("predict", tmp_path / "m.bk", new)
    assert result.exit_code == 0, result.stderr
    got = pl.read_csv(io.StringIO(result.stdout))
    expected = model.predict_proba(pl.DataFrame({"code": ["1", "2"], "size": [2.0, 2.0]}))
    np.testing.assert_allclose(got.select("p_a", "p_b").to_numpy(), expected)
    new.write_text("code,size\n1,2\n2,big\n")
    bad = cli("predict", tmp_path / "m.bk", new)
    assert bad.exit_code == 2
    assert "column 'size' holds 'big' in row 2; the model reads numbers there" in bad.stderr


@pytest.mark.parametrize("family", ["poisson", "categorical"])
def test_integer_columns_take_the_family_asked_for(cli, tmp_path, family):
    path = tmp_path / "ints.csv"
    path.write_text("visits,colour,y\n0,red,a\n1,red,a\n5,blue,b\n7,blue,b\n1,red,a\n6,red,b\n")
    model_path = tmp_path / "m.bk"
    result = cli("train", path, "-t", "y", "--integers", family, "-o", model_path)
    assert result.exit_code == 0, result.stderr
    model = bk.load(model_path)
    assert model.feature_families_ == {"visits": family, "colour": "categorical"}
    new = tmp_path / "new.csv"
    new.write_text("visits,colour\n1,blue\n6,red\n")
    got = pl.read_csv(io.StringIO(cli("predict", model_path, new).stdout))
    expected = model.predict_proba(pl.DataFrame({"visits": [1, 6], "colour": ["blue", "red"]}))
    np.testing.assert_allclose(got.select("p_a", "p_b").to_numpy(), expected)
    bad = cli("train", path, "-t", "y", "--integers", "kernel", "-o", model_path)
    assert bad.exit_code == 2
    assert "Invalid value for --integers: 'kernel'; choose gaussian" in bad.stderr


def test_evaluate_notes_test_classes_the_training_data_lack(cli, tmp_path):
    """Test rows of classes the training file does not hold are named (no model can get them
    right); when no test class is a training class, the note asks whether the two files
    write their labels alike (0/1 against ham/spam)."""
    rng = np.random.default_rng(0)
    train, other, partly = tmp_path / "train.csv", tmp_path / "other.csv", tmp_path / "partly.csv"
    rows = [f"{rng.normal(i % 2):.4f},{rng.normal():.4f}" for i in range(60)]
    train.write_text("a,b,y\n" + "".join(f"{r},{'spam' if i % 2 else 'ham'}\n"
                                          for i, r in enumerate(rows)))  # fmt: skip
    other.write_text("a,b,y\n" + "".join(f"{r},{i % 2}\n" for i, r in enumerate(rows[:20])))
    partly.write_text("a,b,y\n" + "".join(f"{r},{'spam' if i % 2 else 'eggs'}\n"
                                           for i, r in enumerate(rows[:20])))  # fmt: skip
    none_known = cli("evaluate", train, "-t", "y", "--test", other)
    assert none_known.exit_code == 0, none_known.stderr
    assert (
        f"note: {other}: none of its classes ('0', '1') is one of {train}'s ('ham', 'spam'): "
        "no model can classify its rows right; are the labels written alike in both files?"
    ) in none_known.stderr
    some = cli("evaluate", train, "-t", "y", "--test", partly)
    assert (
        f"note: {partly}: 10 of 20 rows are of classes the training data do not hold "
        "('eggs'): no model can classify them right"
    ) in some.stderr
    alike = cli("evaluate", train, "-t", "y", "--test", train)
    assert "note:" not in alike.stderr
