"""A second review of the model-understanding functions: a text classifier over PoissonNB
(whose linear form has more columns than terms) explained and inspected, a class of no weight
explained, and the bad arguments that reached the user as raw numpy or Python errors."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

import bayeskit as bk
from bayeskit.cli.app import app
from bayeskit.errors import ParameterError, ShapeError
from bayeskit.inspection import explain
from bayeskit.text import TextClassifier

DOCS = ["free money now", "meeting at noon", "free prize money", "lunch at noon"] * 3
LABELS = ["spam", "ham", "spam", "ham"] * 3
X = np.array([[3, 0], [0, 3], [1, 1]] * 10, dtype=float)
Y = np.array(["a", "b", "c"] * 10)


def test_a_poisson_text_classifier_is_explained_and_its_top_terms_listed(tmp_path):
    """Its linear form has a missing-value indicator per term and −Σ ln x!: explain and
    top_terms named the columns by the terms alone and refused ('feature_names has 10 names;
    the model has 21 linear columns'), and so did ``bayeskit inspect`` and ``explain``."""
    model = TextClassifier(model=bk.PoissonNB()).fit(DOCS, LABELS)
    e = model.explain("free money at noon")
    jll = model.predict_joint_log_proba(["free money at noon"])[0]
    a, c = (list(model.classes_).index(k) for k in (e.label, e.versus))
    assert e.log_odds == pytest.approx(jll[a] - jll[c], abs=1e-12)
    terms = e.prior + e.intercept + sum(t.weight for t in e.contributions)
    assert terms == pytest.approx(e.log_odds, abs=1e-10)
    # the terms present (words and word pairs), and −Σ ln x!, alike in every class
    shown = {t.feature: t.weight for t in e.contributions}
    assert set(shown) == {"free", "money", "at", "noon", "free money", "at noon", "<−Σ ln x!>"}
    assert shown["<−Σ ln x!>"] == 0
    top = model.top_terms(2)
    assert [t for t, _ in top["spam"]] == ["free", "money"]
    assert {t for t, _ in top["ham"]} <= {"at", "noon", "meeting", "lunch"}
    path = tmp_path / "poisson.bkm"
    bk.save(model, path)
    runner = CliRunner()
    inspected = runner.invoke(app, ["inspect", str(path)])
    assert inspected.exit_code == 0, inspected.output
    explained = runner.invoke(app, ["explain", str(path), "free money"])
    assert explained.exit_code == 0, explained.output
    assert "free" in explained.output


@pytest.mark.parametrize("model", [bk.MultinomialNB(), bk.BernoulliNB(), bk.PoissonNB()])
def test_a_class_of_no_weight_is_explained_without_nan(model):
    """Its bias and prior are both −inf: the intercept was −inf − −inf = NaN, and the
    explanation's sum NaN where the model's log-odds is −inf."""
    model.fit(X, Y, sample_weight=np.where(Y == "c", 0.0, 1.0))
    for label, versus in (("c", None), ("a", "c")):
        e = explain(model, [2.0, 1.0], label=label, versus=versus)
        assert not np.isnan(e.intercept)
        assert e.prior + e.intercept + sum(t.weight for t in e.contributions) == e.log_odds
        assert np.isinf(e.log_odds)


def test_a_row_that_is_not_one_row_of_the_models_features_is_a_shape_error():
    gaussian = bk.GaussianNB().fit(X, Y)
    for row in (5.0, [1.0, 2.0, 3.0]):
        with pytest.raises(ShapeError, match="one row of the model's 2 features"):
            explain(gaussian, row)
    one_feature = bk.GaussianNB().fit(X[:, :1], Y)
    with pytest.raises(ShapeError, match="one row of the model's 1 features"):
        explain(one_feature, X[0, 0])


def test_a_label_must_be_one_class():
    model = bk.MultinomialNB().fit(X, Y)
    for label in (np.array(["a", "b"]), ["b"]):
        with pytest.raises(ParameterError, match="a label is one class"):
            explain(model, [2.0, 1.0], label=label)


@pytest.mark.parametrize("n", [-1, "2", 1.5, True])
def test_an_explanations_top_counts_features(n):
    e = explain(bk.MultinomialNB().fit(X, Y), [2.0, 1.0])
    with pytest.raises(ParameterError, match="n must be a whole number"):
        e.top(n)


@pytest.mark.parametrize("alpha", ["1", float("nan"), float("inf"), None])
def test_term_usefulness_refuses_an_alpha_that_is_no_number(alpha):
    model = TextClassifier().fit(DOCS, LABELS)
    with pytest.raises(ParameterError, match="alpha must be a finite number >= 0"):
        model.term_usefulness(alpha=alpha)


def test_leaving_values_out_explains_a_class_of_no_weight_without_nan():
    """GaussianNB is explained by leaving each value out: against a class of no weight the
    log-odds is +inf with any value left out, and every contribution was inf − inf = NaN."""
    from bayeskit.inspection import split_by_leaving_out

    model = bk.GaussianNB().fit(X, Y, sample_weight=np.where(Y == "c", 0.0, 1.0))
    e, rest = split_by_leaving_out(model, [2.0, 1.0], versus="c")
    assert e.log_odds == np.inf
    assert [t.weight for t in e.contributions] == [0.0, 0.0]
    assert rest == 0.0
