"""A hostile review of the report's numbers: every score against scikit-learn's metrics on the
same predictions (string labels with commas, quotes and accents; classes never decided, absent
from the truth, or both; probabilities of exactly 0 and 1; tied scores), and what the page says
about a score that is 0/0 or a log-loss that clipped a probability."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

from bayeskit.report import build_report
from bayeskit.report.evaluation import evaluate

from ._dom import parse

EPS = np.finfo(np.float64).eps  # scikit-learn clips log_loss probabilities to [EPS, 1 - EPS]
NAMES = ['ünï, "q"', "a,b", "it's", "<script>alert(1)</script>", "日本"]


def _sklearn_scores(classes, y, P, pred):
    """What a user computes by hand with scikit-learn's defaults."""
    classes = list(classes)
    prec, rec, f1, support = metrics.precision_recall_fscore_support(
        y, pred, labels=classes, zero_division=0
    )
    return {
        "accuracy": metrics.accuracy_score(y, pred),
        "macro_f1": metrics.f1_score(y, pred, average="macro", zero_division=0),
        "log_loss": metrics.log_loss(y, P, labels=classes),
        "confusion": metrics.confusion_matrix(y, pred, labels=classes),
        "per_class": list(zip(prec, rec, f1, support, strict=True)),
    }


def _check_against_sklearn(classes, y, P, ev):
    classes = np.asarray(classes, dtype=object)
    pred = classes[P.argmax(axis=1)]
    want = _sklearn_scores(classes, y, P, pred)
    assert ev.accuracy == pytest.approx(want["accuracy"], abs=1e-12)
    assert ev.macro_f1 == pytest.approx(want["macro_f1"], abs=1e-12)
    assert ev.log_loss == pytest.approx(want["log_loss"], rel=1e-12, abs=1e-12)
    np.testing.assert_array_equal(ev.confusion, want["confusion"])
    for row, (p, r, f, s) in zip(ev.per_class, want["per_class"], strict=True):
        assert (row.precision, row.recall, row.f1) == pytest.approx((p, r, f), abs=1e-12)
        assert row.support == s
        assert row.predicted == int(np.sum(pred == classes[row.k]))


@pytest.mark.parametrize("K", [2, 3, 5])
def test_string_labels_with_commas_quotes_and_accents_score_as_sklearn(K):
    rng = np.random.default_rng(K)
    classes = sorted(NAMES[:K])
    y = np.array(classes, dtype=object)[rng.integers(0, K, 300)]
    P = rng.dirichlet(np.ones(K), 300)
    ev = evaluate(classes, y, P)
    _check_against_sklearn(classes, y, P, ev)
    if K == 2:
        assert ev.roc_auc == pytest.approx(metrics.roc_auc_score(y == classes[1], P[:, 1]))
    else:
        auc = metrics.roc_auc_score(y, P, multi_class="ovr", labels=classes)
        assert ev.roc_auc == pytest.approx(auc, abs=1e-12)
    for row in ev.per_class:
        hit = y == classes[row.k]
        assert row.ap == pytest.approx(metrics.average_precision_score(hit, P[:, row.k]))


def test_tied_scores_give_sklearns_auc_and_average_precision():
    y = np.array(["n", "p", "n", "p", "p", "n", "p", "n"])
    p = np.array([0.5, 0.5, 0.5, 0.7, 0.2, 0.2, 0.7, 0.7])
    ev = evaluate(["n", "p"], y, np.column_stack([1 - p, p]))
    assert ev.roc_auc == pytest.approx(metrics.roc_auc_score(y == "p", p), abs=1e-12)
    assert ev.per_class[1].ap == pytest.approx(
        metrics.average_precision_score(y == "p", p), abs=1e-12
    )


def test_a_class_neither_true_nor_decided_is_left_out_of_macro_f1_as_sklearn_does():
    # 'c' is a class of the model (learnt in training) that the test rows neither have nor get
    y = np.array(["a", "b"] * 6)
    P = np.tile([[0.7, 0.3, 0.0], [0.4, 0.6, 0.0]], (6, 1))
    P[:4] = P[:4, [1, 0, 2]]
    ev = evaluate(["a", "b", "c"], y, P)
    pred = np.array(["a", "b", "c"])[P.argmax(axis=1)]
    assert ev.macro_f1 == pytest.approx(metrics.f1_score(y, pred, average="macro"), abs=1e-12)
    assert ev.per_class[2].undefined == {"precision", "recall", "f1"}


@settings(max_examples=60, deadline=None)
@given(
    K=st.integers(2, 5),
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.booleans(),
)
def test_every_headline_score_is_sklearns_whatever_classes_are_missing(K, n, seed, zeros):
    """Random truths and probabilities over K classes, some classes never true or never
    decided, some probabilities exactly 0 or 1: the scores are scikit-learn's."""
    rng = np.random.default_rng(seed)
    classes = [f"c{k}" for k in range(K)]
    y = np.array(classes, dtype=object)[rng.integers(0, max(K - 1, 1), n)]
    P = rng.dirichlet(np.ones(K) * 0.3, n)
    if zeros:
        P = np.eye(K)[rng.integers(0, K, n)]
    _check_against_sklearn(classes, y, P, evaluate(classes, y, P))


def test_a_class_never_decided_has_undefined_precision_said_on_the_page():
    rng = np.random.default_rng(0)
    classes = ["a", "b", "c"]
    y = np.array(classes)[rng.integers(0, 3, 90)]
    P = rng.dirichlet([3, 3, 0.2], 90)
    P[:, 2] = np.minimum(P[:, 2], 0.05)
    P /= P.sum(axis=1, keepdims=True)
    ev = evaluate(classes, y, P)
    assert ev.per_class[2].predicted == 0
    assert ev.per_class[2].support > 0
    assert ev.per_class[2].undefined == {"precision"}
    assert ev.per_class[0].undefined == frozenset()
    page = build_report(title="t", classes=classes, y_true=y, proba=P, model=None)
    dom = parse(page)
    row = dom.find("tr", data_class="2")
    cell = row.find("td", data_col="precision")
    assert cell.text == "–"
    assert cell.attrs["data-undefined"] == "0/0"
    assert row.find("td", data_col="recall").text == "0.0000"  # defined: 0 of its rows found
    note = next(n for n in dom.iter() if n.attrs.get("data-undefined") == "1")
    assert "never decided" in note.text
    assert "zero_division=0" in note.text
    # the macro average row is scikit-learn's macro precision (0/0 counted as 0)
    total = next(n for n in dom.find_all("tr") if n.attrs.get("class") == "total")
    pred = np.array(classes)[P.argmax(axis=1)]
    want = metrics.precision_score(y, pred, average="macro", zero_division=0)
    assert float(total.find("td", data_col="precision").text) == pytest.approx(want, abs=5e-5)


def test_a_page_with_every_score_defined_has_no_undefined_note():
    rng = np.random.default_rng(1)
    y = np.array(["a", "b"])[rng.integers(0, 2, 60)]
    P = rng.dirichlet([1, 1], 60)
    page = build_report(title="t", classes=["a", "b"], y_true=y, proba=P, model=None)
    assert "data-undefined" not in page
    assert "–</td><td data-col" not in page


def test_probabilities_of_exactly_zero_are_clipped_as_sklearn_does_and_the_page_says_so():
    y = np.array(["a", "b", "a", "b", "a"])
    P = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.5, 0.5], [1e-300, 1.0]])
    ev = evaluate(["a", "b"], y, P)
    assert ev.log_loss == pytest.approx(metrics.log_loss(y, P, labels=["a", "b"]), rel=1e-12)
    assert ev.clipped == 2  # rows 2 and 4: their true class got (about) 0
    assert ev.log_loss == pytest.approx((2 * -np.log(EPS) + np.log(2)) / 5, rel=1e-9)
    dom = parse(build_report(title="t", classes=["a", "b"], y_true=y, proba=P, model=None))
    card = next(n for n in dom.iter() if n.attrs.get("data-metric") == "log_loss")
    assert "2 rows gave the true class a probability below 2.22e-16" in card.text
    assert "36.04" in card.text
    assert "scikit-learn" in card.text


def test_a_log_loss_without_clipping_says_nothing_of_it():
    y = np.array(["a", "b", "a"])
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    ev = evaluate(["a", "b"], y, P)
    assert ev.clipped == 0
    assert "clipped" not in build_report(
        title="t", classes=["a", "b"], y_true=y, proba=P, model=None
    )


def test_binary_log_odds_ranking_of_exact_zero_and_one_matches_sklearn_on_the_log_odds():
    """With log-probabilities the binary curves rank by log-odds: scikit-learn's AUC of the
    same log-odds, which keeps apart rows whose probability rounds to exactly 0 or 1."""
    L = np.array([[0.0, -800.0], [-900.0, 0.0], [0.0, -700.0], [-1e3, 0.0], [-0.5, -0.9]])
    L -= np.logaddexp(L[:, :1], L[:, 1:])
    y = np.array(["a", "b", "b", "a", "a"])
    ev = evaluate(["a", "b"], y, np.exp(L), log_proba=L)
    assert ev.roc_auc == pytest.approx(metrics.roc_auc_score(y == "b", L[:, 1] - L[:, 0]))
