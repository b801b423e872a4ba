"""A SpamFilter's numbers, as a review found them: labels told apart by their text everywhere
(the spam class was the ham class under spam_label="0"), costs that sum past float64,
score counts that are not finite, calibration_folds set on a fitted filter, sample weights in
the calibration, and explain's label and scoring."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import DataError, ParameterError
from bayeskit.text import SpamFilter, calibration

TEXTS, LABELS = load_sms_spam()
T, Y = list(TEXTS[:600]), np.asarray(LABELS[:600])
NEW, NEW_Y = list(TEXTS[600:800]), np.asarray(LABELS[600:800])
IS_SPAM = Y == "spam"


def mean_p(model, texts, is_spam):
    p = model.spam_probability(texts)
    return p[is_spam].mean(), p[~is_spam].mean()


@pytest.mark.parametrize(
    ("spam_label", "ham_label", "y"),
    [
        ("0", "1", np.where(IS_SPAM, 0, 1)),  # by text, integer labels
        (0, 1, np.where(IS_SPAM, "0", "1")),  # by value, text labels
        ("1", "0", np.where(IS_SPAM, 1, 0)),
    ],
)
def test_the_spam_class_is_found_by_its_text(spam_label, ham_label, y):
    """spam_label="0" over integer labels was accepted, and spam_index() fell back on 1, the
    ham class: P(spam) was 0.08 on spam and 0.86 on ham."""
    named = SpamFilter(spam_label=spam_label, ham_label=ham_label).fit(T, y)
    plain = SpamFilter().fit(T, Y)
    assert str(named.classes_[named.spam_index()]) == str(spam_label)
    np.testing.assert_allclose(
        named.spam_probability(NEW), plain.spam_probability(NEW), rtol=1e-9, atol=1e-12
    )
    assert [str(v) for v in named.predict(NEW)] == [
        str(spam_label) if v == "spam" else str(ham_label) for v in plain.predict(NEW)
    ]


def test_train_on_error_reads_the_labels_by_their_text():
    y, new_y = np.where(IS_SPAM, 1, 0), np.where(NEW_Y == "spam", 1, 0)
    by_text = SpamFilter(spam_label="1", ham_label="0").fit(T, y)
    by_value = SpamFilter(spam_label=1, ham_label=0).fit(T, y)
    assert by_text.train_on_error(NEW, new_y) == by_value.train_on_error(NEW, new_y)


def test_equal_costs_past_float64_keep_the_half_threshold():
    huge = SpamFilter(lost_ham_cost=1e308, passed_spam_cost=1e308).fit(T, Y)
    assert huge.decision_rule()[2] == 0.5
    assert (huge.predict(NEW) == SpamFilter().fit(T, Y).predict(NEW)).all()
    assert SpamFilter(lost_ham_cost=0.0, passed_spam_cost=1.0).decision_rule()[2] == 0.0


def test_score_counts_that_are_not_finite_are_refused_and_change_nothing(tmp_path):
    model = SpamFilter().fit(T, Y)
    before = (model.score_counts().copy(), model.calibration_)
    for bad in (np.inf, np.nan, 1e308):
        counts = model.score_counts().copy()
        counts[0, 3], counts[1, 4] = bad, bad  # (1e308 twice: a sum past float64)
        with pytest.raises(DataError, match="finite counts"):
            model.calibrate(counts)
    np.testing.assert_array_equal(model.score_counts(), before[0])
    assert model.calibration_ == before[1]
    path = tmp_path / "f.bk"
    bk.save(model, path)  # (the counts kept are a model file's)
    assert bk.load(path).calibration_ == before[1]


def test_calibration_folds_set_on_a_fitted_filter_takes_effect_at_once(tmp_path):
    """It took effect only at the next save/load or partial_fit: P(spam) moved by up to 0.54
    across a round trip."""
    model = SpamFilter().fit(T, Y)
    model.set_params(calibration_folds=None)
    assert model.calibration_ == calibration.IDENTITY
    own = SpamFilter(calibration_folds=None).fit(T, Y)
    np.testing.assert_allclose(model.spam_probability(NEW), own.spam_probability(NEW), atol=1e-12)
    path = tmp_path / "f.bk"
    bk.save(model, path)
    np.testing.assert_array_equal(bk.load(path).spam_probability(NEW), model.spam_probability(NEW))
    model.set_params(calibration_folds=5)  # the counts kept are fitted again
    assert model.calibration_ == SpamFilter().fit(T, Y).calibration_


def test_a_message_weighs_in_the_calibration_as_in_the_statistics():
    """Weights had no effect on the scale: every message added 1 to the score counts, a
    weight of 0 too."""
    weight = np.where(np.arange(len(T)) % 2 == 0, 0.0, 1.0)
    weight[IS_SPAM] *= 3
    model = SpamFilter().fit(T, Y, sample_weight=weight)
    counts = model.score_counts()
    assert counts[0].sum() == pytest.approx(weight[~IS_SPAM].sum())
    assert counts[1].sum() == pytest.approx(weight[IS_SPAM].sum())
    assert model.calibration_ != SpamFilter().fit(T, Y).calibration_
    added = np.full(len(NEW), 0.5)
    before = model.score_counts().sum()
    model.partial_fit(NEW, NEW_Y, sample_weight=added)
    assert model.score_counts().sum() == pytest.approx(before + added.sum())


def test_explain_takes_the_filter_s_decision_and_refuses_fisher_scores():
    costly = SpamFilter(lost_ham_cost=50.0).fit(T, Y)
    for text in NEW[:60]:
        assert costly.explain(text).label == costly.predict([text])[0]
    fisher = SpamFilter(scoring="fisher", vectorizer=bk.text.TextVectorizer(output="binary")).fit(
        T, Y
    )
    with pytest.raises(ParameterError, match="Fisher's method"):
        fisher.explain(NEW[0])
