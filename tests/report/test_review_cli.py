"""A hostile review of what ``bayeskit evaluate`` and ``bayeskit report`` print: the numbers
against scikit-learn on the same decisions, a test set whose classes differ from the training
set's, 0/0 scores and clipped probabilities said in words, and long class names kept apart."""

from __future__ import annotations

import json
import re

import numpy as np
import polars as pl
import pytest
from sklearn import metrics
from typer.testing import CliRunner

import bayeskit as bk
from bayeskit.cli.app import app

from ._dom import parse

LONG = [f"organisation_department_subunit_{c}" for c in "ABCD"]


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def shifted(tmp_path_factory):
    """Training rows of three classes (one of them named with HTML, one with markup and one
    with a comma, quotes and accents); test rows of two of them and one the training never
    saw."""
    rng = np.random.default_rng(1)
    names = np.array(['ünï, "q"', "<b>bold</b>", "[red]x[/red]"])
    y = names[rng.integers(0, 3, 150)]
    shift = (y == names[0]) * 2.0 - (y == names[2]) * 2.0
    root = tmp_path_factory.mktemp("shifted")
    train = pl.DataFrame({"x": rng.normal(size=150) + shift, "label": y})
    yt = np.array(["never seen"] * 5 + [names[0]] * 12 + [names[2]] * 12)
    # far from '<b>bold</b>' (centred on 0), which the test rows neither have nor get
    xt = 0.3 * rng.normal(size=len(yt)) + 4.0 * (yt != names[2]) - 4.0 * (yt == names[2])
    test = pl.DataFrame({"x": xt, "label": yt})
    train.write_csv(root / "train.csv")
    test.write_csv(root / "test.csv")
    return root, train, test


def _decisions(train, test):
    model = bk.GaussianNB().fit(train.select("x").to_numpy(), train["label"].to_numpy())
    return model.predict(test.select("x").to_numpy())


def test_evaluate_on_a_test_set_with_other_classes_prints_sklearns_numbers(shifted):
    root, train, test = shifted
    found = json.loads(
        run("evaluate", root / "train.csv", "--target", "label", "--model", "gaussian",
            "--test", root / "test.csv", "--json").stdout
    )  # fmt: skip
    y, pred = test["label"].to_numpy(), _decisions(train, test)
    assert found["accuracy"] == pytest.approx(metrics.accuracy_score(y, pred), abs=1e-12)
    # the training class '<b>bold</b>' has no test rows and is never decided: no F1
    assert "<b>bold</b>" not in set(pred)
    assert found["macro_f1"] == pytest.approx(metrics.f1_score(y, pred, average="macro"))
    classes = found["classes"]
    prec, rec, f1, support = metrics.precision_recall_fscore_support(
        y, pred, labels=classes, zero_division=0
    )
    for k, label in enumerate(classes):
        row = found["per_class"][label]
        assert (row["precision"], row["recall"], row["f1"]) == pytest.approx(
            (prec[k], rec[k], f1[k])
        )
        assert row["support"] == support[k]
        assert row["predicted"] == int(np.sum(pred == label))
        # a 0/0 score is 0 as scikit-learn's zero_division=0 gives it, and named undefined
        want = {"precision"} if row["predicted"] == 0 else set()
        want |= {"recall"} if row["support"] == 0 else set()
        want |= {"f1"} if row["predicted"] == row["support"] == 0 else set()
        assert row["undefined"] == sorted(want)
    assert found["confusion_matrix"] == metrics.confusion_matrix(y, pred, labels=classes).tolist()
    # the 5 rows of a class the model never learnt had probability 0 for their class
    assert found["log_loss_clipped_rows"] == 5


def test_evaluate_says_which_scores_are_undefined_and_what_the_log_loss_clipped(shifted):
    root, _, _ = shifted
    out = run(
        "evaluate", root / "train.csv", "--target", "label", "--model", "gaussian",
        "--test", root / "test.csv",
    ).stdout  # fmt: skip
    never = next(line for line in out.splitlines() if line.startswith("never seen"))
    assert never.split()[2] == "–"  # precision: no row was decided 'never seen' (0/0)
    assert "–: undefined (0/0)" in out
    assert "zero_division=0" in out
    assert "log-loss: 5 rows gave the true class a probability below 2.22e-16" in out
    assert "36.04" in out


def test_the_report_of_the_same_data_says_it_too(shifted, tmp_path):
    _, train, test = shifted
    both = tmp_path / "both.csv"
    # one row of 'never seen': the fold that tests it was trained without it
    pl.concat([train, test.head(1)]).write_csv(both)
    out = run("report", both, "--target", "label", "--model", "gaussian", "--folds", 5,
              "-o", tmp_path / "r.html").stdout  # fmt: skip
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "log-loss: 1 row gave the true class a probability below 2.22e-16" in out
    assert "1 row gave the true class a probability below" in page
    assert "<b>bold</b>" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page
    parse(page)  # well formed


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    rng = np.random.default_rng(2)
    y = np.array(LONG)[rng.integers(0, 4, 160)]
    x = rng.normal(size=160) + 1.5 * np.searchsorted(LONG, y)
    path = tmp_path_factory.mktemp("long") / "long.csv"
    pl.DataFrame({"x": x, "label": y}).write_csv(path)
    return path


def test_long_class_names_sharing_a_start_stay_apart_in_the_printed_confusion_matrix(long_names):
    out = run("evaluate", long_names, "--target", "label", "--model", "gaussian", "--folds", 5)
    matrix = out.stdout.split("confusion matrix")[1]
    assert "…" not in matrix  # no name is cut to the prefix all four share
    for c in "ABCD":  # each row's name, folded over its lines, ends with its own letter
        assert re.search(rf"t_{c}\s", matrix), matrix


def test_long_class_names_sharing_a_start_stay_apart_in_the_report(long_names, tmp_path):
    run("report", long_names, "--target", "label", "--model", "gaussian", "--folds", 5,
        "-o", tmp_path / "r.html")  # fmt: skip
    dom = parse((tmp_path / "r.html").read_text("utf-8"))
    heatmap = next(
        n for n in dom.find_all("svg") if n.attrs.get("aria-label") == "Confusion matrix"
    )
    ticks = [n.text for n in heatmap.find_all("text") if "ticklabel" in n.attrs.get("class", "")]
    names = [t for t in ticks if not t.isdigit()]
    assert len(names) == 8, names  # each class once per axis
    assert len(set(names)) == 4, names
    for t in names:
        assert len(t) <= 22
    roc = next(n for n in dom.find_all("svg") if n.attrs.get("aria-label") == "ROC curves")
    legend = [n.text for n in roc.find_all("text") if n.attrs.get("class") == "legend"]
    assert len({t.split("  ")[0] for t in legend}) == 4, legend
