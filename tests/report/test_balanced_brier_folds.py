"""Balanced accuracy, the Brier score and the folds' spread: scikit-learn's numbers on the
same decisions and probabilities, in Python, ``bayeskit evaluate`` and ``bayeskit report``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics
from typer.testing import CliRunner

from bayeskit.cli.app import app
from bayeskit.report.evaluation import evaluate


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(2, 5),
    n=st.integers(2, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_balanced_accuracy_and_brier_are_sklearns(k, n, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    t = rng.integers(0, k, n)
    labels = [f"c{j}" for j in range(k)]
    ev = evaluate(labels, np.array(labels)[t], P)
    pred = P.argmax(axis=1)
    with warnings.catch_warnings():  # (a decided class no row has: scikit-learn says so)
        warnings.simplefilter("ignore", UserWarning)
        want = metrics.balanced_accuracy_score(t, pred)
    assert ev.balanced_accuracy == pytest.approx(want, abs=1e-12)
    if k == 2:
        brier = metrics.brier_score_loss(t == 1, P[:, 1])
    else:
        brier = metrics.brier_score_loss(t, P, labels=np.arange(k))
    assert ev.brier == pytest.approx(brier, abs=1e-12)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 120, p=[0.6, 0.3, 0.1])
    x = rng.normal(size=120) + (y == "b") * 1.5 - (y == "c") * 1.5
    path = tmp_path_factory.mktemp("t") / "t.csv"
    pl.DataFrame({"x": x, "z": rng.normal(size=120), "label": y}).write_csv(path)
    return path, y


def test_evaluate_gives_each_folds_numbers_and_they_pool_to_the_whole(table):
    path, _ = table
    found = json.loads(
        run("evaluate", path, "--target", "label", "--model", "gaussian", "--folds", 5,
            "--json").stdout
    )  # fmt: skip
    folds = found["by_fold"]
    assert len(folds["accuracy"]) == len(folds["log_loss"]) == 5
    # stratified folds of 120 rows: 24 each, so the folds' mean is the pooled figure
    assert np.mean(folds["accuracy"]) == pytest.approx(found["accuracy"], abs=1e-12)
    assert np.mean(folds["log_loss"]) == pytest.approx(found["log_loss"], abs=1e-12)
    assert min(folds["accuracy"]) < max(folds["accuracy"])  # the spread is each fold's own
    assert 0 <= found["balanced_accuracy"] <= 1
    assert 0 <= found["brier"] <= 2
    # the rare class weighs as much as the others: balanced accuracy below plain accuracy
    assert found["balanced_accuracy"] < found["accuracy"]


def test_evaluate_prints_the_spread_and_a_test_set_has_none(table, tmp_path):
    path, _ = table
    out = run("evaluate", path, "--target", "label", "--model", "gaussian", "--folds", 5).stdout
    lines = out.splitlines()
    assert any(line.startswith("balanced accuracy ") and "Brier " in line for line in lines)
    spread = [line for line in lines if line.startswith("by fold (5): accuracy ")]
    assert len(spread) == 1
    assert "±" in spread[0]
    found = json.loads(
        run("evaluate", path, "--target", "label", "--model", "gaussian", "--test", path,
            "--json").stdout
    )  # fmt: skip
    assert found["by_fold"] is None
    assert (
        "by fold"
        not in run(
            "evaluate", path, "--target", "label", "--model", "gaussian", "--test", path
        ).stdout
    )


def test_the_report_shows_the_new_cards_and_the_spread(table, tmp_path):
    path, _ = table
    page = tmp_path / "r.html"
    result = run("report", path, "--target", "label", "--model", "gaussian", "--folds", 5,
                 "-o", page)  # fmt: skip
    assert "by fold (5): accuracy " in result.stdout
    html = page.read_text()
    for key in ("balanced_accuracy", "brier"):
        assert f'data-metric="{key}"' in html
    assert "by fold (5): accuracy " in html
