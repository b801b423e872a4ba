"""bayeskit explain on a Bernoulli table with missing values and on LDA: the printed prior is
the classes' prior, the terms add up to the model's log-odds, and --label/--versus compare two
different classes."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.cli.explaining import parse_row, row_frame


@pytest.fixture(scope="module")
def bernoulli_file(tmp_path_factory):
    rng = np.random.default_rng(5)
    n = 200
    label = np.where(np.arange(n) % 4 == 0, "spam", "ham")  # priors 0.25 / 0.75
    spam = label == "spam"
    frame = pl.DataFrame(
        {
            "won": (rng.random(n) < np.where(spam, 0.7, 0.1)).astype(int),
            "meeting": (rng.random(n) < np.where(spam, 0.1, 0.5)).astype(int),
            "free": (rng.random(n) < np.where(spam, 0.6, 0.2)).astype(int),
            "label": label,
        }
    )
    folder = tmp_path_factory.mktemp("bern")
    frame.write_csv(folder / "t.csv")
    return folder / "t.csv", folder / "t.bk"


@pytest.mark.parametrize("row", ["won=1", "won=1,meeting=0,free=1", "meeting=null,free=0"])
def test_bernoulli_row_with_missing_values(cli, bernoulli_file, row):
    data, path = bernoulli_file
    result = cli("train", data, "--target", "label", "--model", "bernoulli", "-o", path)
    assert result.exit_code == 0, result.stderr
    result = cli("explain", path, row, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)  # strict: NaN is not JSON
    model = bk.load(path)
    frame = row_frame(model, parse_row(row))
    jll = model.predict_joint_log_proba(frame)[0]
    k = {c: i for i, c in enumerate(model.classes_.tolist())}
    a, c = k[found["label"]], k[found["versus"]]
    assert found["label"] == model.classes_[np.argmax(jll)]
    assert found["log_odds"] == pytest.approx(jll[a] - jll[c], rel=1e-12)
    prior = model.class_log_prior_
    assert found["prior"] == pytest.approx(prior[a] - prior[c], abs=1e-12)
    terms = found["prior"] + found["intercept"] + sum(t["log_odds"] for t in found["contributions"])
    assert terms == pytest.approx(found["log_odds"], rel=1e-10)
    text = cli("explain", path, row)
    assert "nan" not in text.stdout
    assert f"(prior) {found['prior']:+.3f}".replace(" ", "") in text.stdout.replace(" ", "")


def test_same_class_twice_is_refused(cli, bernoulli_file):
    data, path = bernoulli_file
    cli("train", data, "--target", "label", "--model", "bernoulli", "-o", path)
    result = cli("explain", path, "won=1", "--label", "ham", "--versus", "ham")
    assert result.exit_code != 0
    assert "both 'ham'" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_mixed_model_versus_the_predicted_class(cli, tmp_path):
    rng = np.random.default_rng(2)
    n = 150
    y = np.array(["a", "b", "c"] * (n // 3))
    frame = pl.DataFrame(
        {"v": rng.normal(size=n) + (y == "a") * 2.0, "k": rng.choice(["p", "q"], n), "y": y}
    )
    frame.write_csv(tmp_path / "m.csv")
    assert cli("train", tmp_path / "m.csv", "--target", "y", "-o", tmp_path / "m.bk").exit_code == 0
    result = cli("explain", tmp_path / "m.bk", "v=3,k=p", "--versus", "a", "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["versus"] == "a"
    assert found["label"] != "a"
    assert found["log_odds"] != 0.0


@pytest.mark.parametrize(("model", "family"), [("bernoulli", "bernoulli"), ("lda", "mvnormal")])
def test_inspect_json_names_each_columns_family(cli, bernoulli_file, model, family):
    """--json gave families null for every model but MixedNB, where the text says them."""
    data, path = bernoulli_file
    assert cli("train", data, "--target", "label", "--model", model, "-o", path).exit_code == 0
    result = cli("inspect", path, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["families"] == {"won": family, "meeting": family, "free": family}
    assert f"families: {family} (3): won, meeting, free" in cli("inspect", path).stdout
    model_ = bk.load(path)
    priors = [c["prior"] for c in found["classes"]]
    assert priors == pytest.approx(np.exp(model_.class_log_prior_), rel=1e-12)
    assert [c["count"] for c in found["classes"]] == model_.class_count_.tolist()


def test_lda_row_without_every_column(cli, tmp_path):
    """A column left out of an LDA row was reported as 'X contains nan at row 0'."""
    rng = np.random.default_rng(4)
    y = np.repeat(["neg", "pos"], 40)
    frame = pl.DataFrame(
        {"a": rng.normal(size=80) + (y == "pos"), "b": rng.normal(size=80), "y": y}
    )
    frame.write_csv(tmp_path / "n.csv")
    path = tmp_path / "lda.bk"
    assert cli("train", tmp_path / "n.csv", "--target", "y", "-m", "lda", "-o", path).exit_code == 0
    result = cli("explain", path, "a=1")
    assert result.exit_code != 0
    assert "no value for 'b'" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    result = cli("explain", path, "a=1,b=0.5", "--json")
    found = json.loads(result.stdout)
    model = bk.load(path)
    jll = model.predict_joint_log_proba(pl.DataFrame({"a": [1.0], "b": [0.5]}))[0]
    k = {c: i for i, c in enumerate(model.classes_.tolist())}
    assert found["log_odds"] == pytest.approx(jll[k[found["label"]]] - jll[k[found["versus"]]])
    assert found["prior"] == 0.0  # equal priors; Fisher's constant is the intercept
    terms = found["prior"] + found["intercept"] + sum(t["log_odds"] for t in found["contributions"])
    assert terms == pytest.approx(found["log_odds"], rel=1e-10)
