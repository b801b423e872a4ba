"""The report's numbers: scikit-learn's metrics on the same predictions, the model's own
decision rule, and a clear error for every malformed input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest
from sklearn import metrics
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from bayeskit import CategoricalNB, MultinomialNB
from bayeskit.datasets.shared import load_uci_table
from bayeskit.errors import DataError, ParameterError, ShapeError
from bayeskit.report.evaluation import MIN_BIN_ROWS, evaluate, wilson
from bayeskit.text import SpamFilter


@pytest.fixture(scope="module")
def car(shared_data):
    """Four classes, out-of-fold probabilities of CategoricalNB on UCI car evaluation."""
    X, y = load_uci_table("car", shared_data)
    model = CategoricalNB()
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    P = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    return model.fit(X, y), y, P


def test_scores_match_sklearn_on_multiclass_data(car):
    model, y, P = car
    ev = evaluate(model.classes_, y, P, model)
    classes = model.classes_
    pred = classes[P.argmax(axis=1)]
    assert ev.accuracy == pytest.approx(metrics.accuracy_score(y, pred), abs=1e-12)
    assert ev.macro_f1 == pytest.approx(metrics.f1_score(y, pred, average="macro"), abs=1e-12)
    assert ev.log_loss == pytest.approx(metrics.log_loss(y, P, labels=classes), abs=1e-12)
    auc = metrics.roc_auc_score(y, P, multi_class="ovr", labels=classes)
    assert ev.roc_auc == pytest.approx(auc, abs=1e-12)
    np.testing.assert_array_equal(ev.confusion, metrics.confusion_matrix(y, pred, labels=classes))
    prec, rec, f1, support = metrics.precision_recall_fscore_support(y, pred, labels=classes)
    for row in ev.per_class:
        k = row.k
        assert (row.precision, row.recall, row.f1) == pytest.approx((prec[k], rec[k], f1[k]))
        assert row.support == support[k]
        hit = y == classes[k]
        assert row.auc == pytest.approx(metrics.roc_auc_score(hit, P[:, k]))
        assert row.ap == pytest.approx(metrics.average_precision_score(hit, P[:, k]))
    assert len(ev.roc) == len(ev.pr) == len(classes)
    counts = np.unique(y, return_counts=True)[1]
    assert ev.majority_accuracy == pytest.approx(counts.max() / len(y))
    assert ev.prior_log_loss == pytest.approx(-np.sum(counts / len(y) * np.log(counts / len(y))))


def test_curves_are_sklearns(car):
    model, y, P = car
    ev = evaluate(model.classes_, y, P, model)
    for curve in ev.roc:
        fpr, tpr, _ = metrics.roc_curve(y == model.classes_[curve.k], P[:, curve.k])
        np.testing.assert_array_equal(curve.x, fpr)
        np.testing.assert_array_equal(curve.y, tpr)
        assert curve.area == pytest.approx(metrics.auc(fpr, tpr))


def test_calibration_bins_count_every_row_once(car):
    model, y, P = car
    cal = evaluate(model.classes_, y, P, model).calibration
    top = P.max(axis=1)
    assert cal.count.sum() == len(y)
    last = len(cal.count) - 1
    for b in range(len(cal.count)):
        lo, hi = cal.edges[b], cal.edges[b + 1]
        inside = (top >= lo) & ((top < hi) if b < last else (top <= 1))
        assert cal.count[b] == inside.sum()
        if inside.any():
            assert cal.predicted[b] == pytest.approx(top[inside].mean())
            correct = model.classes_[P[inside].argmax(axis=1)] == y[inside]
            assert cal.observed[b] == pytest.approx(correct.mean())
    gaps = np.abs(cal.observed - cal.predicted) * cal.count
    assert cal.ece == pytest.approx(gaps.sum() / len(y))


def test_binary_scores_are_about_the_positive_class():
    rng = np.random.default_rng(1)
    y = rng.choice(["ham", "spam"], 300, p=[0.8, 0.2])
    p = np.clip(0.6 * (y == "spam") + rng.uniform(0, 0.4, 300), 0, 1)
    P = np.column_stack([1 - p, p])
    ev = evaluate(["ham", "spam"], y, P)
    assert ev.roc_auc == pytest.approx(metrics.roc_auc_score(y == "spam", p))
    assert [c.k for c in ev.roc] == [1]
    assert ev.calibration.what == "P(spam)"
    assert ev.calibration.count.sum() == 300


def test_wilson_interval_matches_scipy():
    n = np.array([10.0, 100.0, 7.0, 0.0])
    k = np.array([0, 50, 7, 0])
    low, high = wilson(np.where(n > 0, k / np.maximum(n, 1), 0.3), n)
    for i in range(3):
        ci = binomtest(int(k[i]), int(n[i])).proportion_ci(method="wilson")
        assert (low[i], high[i]) == pytest.approx((ci.low, ci.high), abs=1e-6)
    assert low[3] == high[3] == 0.3  # an empty bin has no interval


def test_decisions_follow_the_models_loss_matrix():
    rng = np.random.default_rng(0)
    X = rng.poisson(2.0, size=(200, 5))
    y = np.where(X[:, 0] + rng.normal(0, 1, 200) > 2, "b", "a")
    model = MultinomialNB(loss=[[0, 1], [8, 0]]).fit(X, y)
    P = model.predict_proba(X)
    ev = evaluate(model.classes_, y, P, model)
    pred = model.predict(X)
    assert not np.array_equal(pred, model.classes_[P.argmax(axis=1)])  # the rule matters here
    np.testing.assert_array_equal(
        ev.confusion, metrics.confusion_matrix(y, pred, labels=model.classes_)
    )
    assert "loss" in ev.rule


def test_decisions_follow_a_spam_filters_costs():
    texts = ["win cash now", "free prize cash", "claim free prize", "lunch at noon",
             "see you at lunch", "cash for lunch", "free lunch", "prize lunch"]  # fmt: skip
    labels = np.array(["spam", "spam", "spam", "ham", "ham", "ham", "ham", "spam"])
    f = SpamFilter(lost_ham_cost=10).fit(texts, labels)
    ev = evaluate(f.classes_, labels, f.predict_proba(texts), f)
    np.testing.assert_array_equal(
        ev.confusion, metrics.confusion_matrix(labels, f.predict(texts), labels=f.classes_)
    )
    assert "0.909" in ev.rule


@pytest.mark.parametrize(
    ("classes", "y_true", "proba", "error", "words"),
    [
        (["a"], ["a"], [[1.0]], ParameterError, "at least two classes"),
        (["a", "a"], ["a"], [[0.5, 0.5]], ParameterError, "distinct"),
        (["a", "b"], ["a", "b"], [[0.5, 0.5, 0.0]] * 2, ShapeError, "(n_samples, 2)"),
        (["a", "b"], ["a"], [[0.5, 0.5]] * 2, ShapeError, "1 labels but proba has 2"),
        (["a", "b"], [], np.zeros((0, 2)), DataError, "empty"),
        (["a", "b"], ["a", "b"], [[0.5, 0.5], [np.nan, 0.5]], DataError, "proba[1, 0]"),
        (["a", "b"], ["a", "b"], [[0.5, 0.5], [1.2, -0.2]], DataError, "[0, 1]"),
        (["a", "b"], ["a", "b"], [[0.5, 0.5], [0.5, 0.6]], DataError, "row 1 sums to 1.1"),
        (["a", "b"], ["a", "c"], [[0.5, 0.5]] * 2, DataError, "row 1 has the label 'c'"),
        ([1, "1"], [1, "1", 2], [[0.5, 0.5]] * 3, DataError, "row 2 has the label 2"),
        (["a", "b"], ["a", "b"], [["x", "y"]] * 2, DataError, "array of probabilities"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(classes, y_true, proba, error, words):
    with pytest.raises(error, match=None) as info:
        evaluate(classes, y_true, proba)
    assert words in str(info.value)


def test_labels_that_print_alike_are_kept_apart():
    ev = evaluate([1, "1"], [1, "1", "1"], [[0.9, 0.1], [0.2, 0.8], [0.4, 0.6]])
    assert [r.support for r in ev.per_class] == [1, 2]
    assert ev.accuracy == 1.0


def test_given_predictions_are_scored_as_given():
    y = np.array(["a", "b", "a", "b", "a"])
    P = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.7], [0.2, 0.8], [0.6, 0.4]])
    predicted = np.array(["a", "a", "a", "b", "b"])  # not the argmax of P: a rule's decisions
    ev = evaluate(["a", "b"], y, P, predicted=predicted)
    assert ev.accuracy == pytest.approx(metrics.accuracy_score(y, predicted))
    assert ev.macro_f1 == pytest.approx(metrics.f1_score(y, predicted, average="macro"))
    assert ev.confusion.tolist() == metrics.confusion_matrix(y, predicted).tolist()
    with pytest.raises(DataError, match="predicted row 1 has the label 'c'"):
        evaluate(["a", "b"], y, P, predicted=["a", "c", "a", "b", "b"])
    with pytest.raises(ShapeError, match="predicted has 2 labels"):
        evaluate(["a", "b"], y, P, predicted=["a", "b"])


def test_log_odds_rank_rows_whose_probabilities_round_to_one():
    # Log-odds of 40 to 60: every P(spam) is exactly 1.0 in float64, yet the rows are ordered.
    y = np.array(["spam", "ham", "spam", "ham", "spam"])
    odds = np.array([60.0, 50.0, 55.0, 40.0, 45.0])
    log_proba = np.column_stack([-np.logaddexp(0, odds), -np.logaddexp(0, -odds)])
    P = np.exp(log_proba)
    assert np.all(P[:, 1] == 1.0)
    ev = evaluate(["ham", "spam"], y, P, log_proba=log_proba)
    assert ev.roc_auc == pytest.approx(metrics.roc_auc_score(y == "spam", odds))
    assert evaluate(["ham", "spam"], y, P).roc_auc == pytest.approx(0.5)  # all tied
    assert ev.pr[0].area == pytest.approx(metrics.average_precision_score(y == "spam", odds))


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 400),
    concentration=st.sampled_from([0.05, 0.3, 1.0, 5.0]),
)
def test_calibration_bins_hold_enough_rows_to_mean_something(seed, n, concentration):
    # Bins of 1-3 rows give observed frequencies of 0 or 1 and a curve that zig-zags: every
    # bin holds MIN_BIN_ROWS rows (a quarter of the rows when there are few), whatever the
    # scores' spread, and the bins are tenths merged, counting every row once.
    rng = np.random.default_rng(seed)
    p = rng.beta(concentration, concentration, n)
    y = np.where(rng.random(n) < p, "spam", "ham")
    cal = evaluate(["ham", "spam"], y, np.column_stack([1 - p, p])).calibration
    least = max(1, min(MIN_BIN_ROWS, n // 4))
    assert cal.count.sum() == n
    assert cal.count.min() >= least
    assert cal.edges[0] == 0.0
    assert cal.edges[-1] == 1.0
    np.testing.assert_allclose(cal.edges * 10, np.round(cal.edges * 10))
    tenth = np.minimum((p * 10).astype(int), 9)
    for b in range(len(cal.count)):
        inside = (tenth >= round(cal.edges[b] * 10)) & (tenth < round(cal.edges[b + 1] * 10))
        assert cal.count[b] == inside.sum()
        assert cal.predicted[b] == pytest.approx(p[inside].mean())
        assert cal.observed[b] == pytest.approx((y[inside] == "spam").mean())


def test_many_classes_compute_each_curve_once_and_agree_with_sklearn(monkeypatch):
    from bayeskit.report import evaluation

    rng = np.random.default_rng(2)
    K, n = 120, 720
    classes = [f"c{k:03d}" for k in range(K)]  # sorted, as roc_auc_score wants labels
    y = np.asarray(classes)[np.arange(n) % K]
    P = np.round(rng.dirichlet(np.ones(K), n), 3)  # rounding: many tied scores
    P /= P.sum(axis=1, keepdims=True)
    expected_auc = metrics.roc_auc_score(y, P, multi_class="ovr", labels=classes)
    calls = {"roc_curve": 0, "roc_auc_score": 0, "average_precision_score": 0}
    for name in calls:
        real = getattr(metrics, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(evaluation.metrics, name, counted)
    ev = evaluation.evaluate(classes, y, P)
    monkeypatch.undo()
    assert calls == {"roc_curve": K, "roc_auc_score": 0, "average_precision_score": 0}
    assert ev.roc_auc == pytest.approx(expected_auc, abs=1e-12)
    for k in (0, 57, K - 1):
        hit = y == classes[k]
        assert ev.per_class[k].auc == pytest.approx(metrics.roc_auc_score(hit, P[:, k]))
        assert ev.per_class[k].ap == pytest.approx(metrics.average_precision_score(hit, P[:, k]))
