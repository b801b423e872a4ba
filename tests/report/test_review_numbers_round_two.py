"""The report's numbers, second review: the multi-class reliability table is of the top class,
the page scores the decisions the command printed, a class without a value of a feature
shows no "nan", a categorical model's never-seen values do not lead its telling features,
and no score is rounded onto a certainty it is not."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import bayeskit as bk
from bayeskit.cli.app import app
from bayeskit.inspection import top_features
from bayeskit.report import build_report
from bayeskit.report.evaluation import evaluate
from bayeskit.report.svg import bounded, percent


def test_the_multi_class_reliability_is_of_the_top_class_not_of_the_decision():
    """Rows whose top class (P 0.7) is right, decided otherwise (a loss matrix or class
    weights): the top class's observed frequency is 1. The table compared the top class's
    probability with whether the decision was right, and showed 0."""
    P = np.tile([0.72, 0.18, 0.10], (40, 1))
    t = np.full(40, "a")
    ev = evaluate(["a", "b", "c"], t, P, predicted=np.full(40, "b"))
    cal = ev.calibration
    assert cal.what == "top-class probability"
    filled = cal.count > 0
    np.testing.assert_allclose(cal.predicted[filled], [0.72])
    np.testing.assert_allclose(cal.observed[filled], [1.0])
    assert ev.accuracy == 0  # (the decisions themselves are all wrong, and scored so)


def test_the_page_scores_the_decisions_it_is_given():
    X = np.array([[3, 0], [2, 1], [0, 3], [1, 2], [2, 2], [0, 1]])
    y = np.array(["ham", "ham", "spam", "spam", "ham", "spam"])
    model = bk.MultinomialNB().fit(X, y)
    folds_said = np.array(["ham", "spam", "spam", "spam", "spam", "spam"])  # 4 of 6 right
    page = build_report(
        title="t", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, predicted=folds_said,
    )  # fmt: skip
    shown = re.search(r'data-metric="accuracy">.*?<div class="value">([^<]+)<', page)
    assert shown is not None
    assert float(shown.group(1)) == pytest.approx(4 / 6, abs=5e-5)


def test_the_command_and_its_page_agree_under_class_weights(tmp_path, shared_data):
    """Under class weights the model fitted on all rows decides some out-of-fold rows
    otherwise than each fold's model did: the page showed those decisions, the summary the
    folds' (car: 1,728 rows, balanced weights)."""
    rows = (shared_data / "uci-car-evaluation" / "car.data").read_text().split()
    table = tmp_path / "car.csv"
    table.write_text("buying,maint,doors,persons,lug_boot,safety,class\n" + "\n".join(rows) + "\n")
    page = tmp_path / "car.html"
    done = CliRunner().invoke(
        app,
        ["report", str(table), "--target", "class", "--model", "categorical",
         "--set", "class_weight=balanced", "-o", str(page)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    printed = re.search(r"accuracy (\d\.\d+)", done.output)
    shown = re.search(r'data-metric="accuracy">.*?<div class="value">([^<]+)<', page.read_text())
    assert printed is not None
    assert shown is not None
    assert float(shown.group(1)) == pytest.approx(float(printed.group(1)), abs=1e-4)
    assert "own predictions: " in page.read_text()  # (and the rule they followed)


def test_a_class_without_a_value_of_a_feature_shows_a_dash(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    y = np.repeat(["x", "y", "z"], 20)
    X.loc[y == "x", "a"] = np.nan
    model = bk.GaussianNB().fit(X, y)
    page = build_report(
        title="t", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, X=X, y=y,
    )  # fmt: skip
    assert "<td>nan</td>" not in page
    assert 'data-undefined="no value"' in page
    assert "the class has no observed value of the feature" in page


def test_never_seen_values_do_not_lead_a_class_s_telling_features():
    """A categorical model's ``column=<unseen>`` is the smoothed weight of a value no
    training row had: largest for the smallest class, never 1 in the data."""
    X = np.array([["a", "p"]] * 30 + [["b", "q"]] * 30 + [["a", "q"]] * 2)
    y = np.array(["big"] * 30 + ["other"] * 30 + ["tiny"] * 2)
    model = bk.CategoricalNB().fit(X, y)
    for label, features in top_features(model, 10).items():
        assert all("<unseen>" not in name for name, _ in features), label
    assert "x0=<unseen>" in model.linear_feature_names()  # (still a column of the form)


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (0.99971, 3, "0.9997"),  # a ROC-AUC: "1.000" claimed a perfect ranking
        (1.0, 3, "1.000"),
        (0.0, 3, "0.000"),
        (0.5, 3, "0.500"),
        (0.0004, 3, "0.0004"),
        (1 - 1e-9, 3, "&gt; 0.999999"),
        (1e-9, 3, "&lt; 0.000001"),
    ],
)
def test_a_score_is_never_rounded_onto_a_bound(value, digits, shown):
    assert bounded(value, digits) == shown


def test_a_share_is_never_shown_as_all_or_none():
    assert percent(0.99971) == "99.97%"
    assert percent(1.0) == "100.0%"
    assert percent(0.0003) == "0.03%"
    assert percent(0.996, 0) == "99.6%"  # (the class balance's whole percents)


def test_report_on_one_row_a_class_names_a_command_that_exists(tmp_path):
    table = tmp_path / "tiny.csv"
    table.write_text("a,species\n1,x\n2,y\n")
    done = CliRunner().invoke(
        app, ["report", str(table), "--target", "species", "-o", str(tmp_path / "t.html")]
    )
    assert done.exit_code == 2
    assert "bayeskit evaluate DATA --test TEST" in done.output
    assert "with --test instead" not in done.output
