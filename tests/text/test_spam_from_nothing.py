"""A SpamFilter trained the way mail users train it: on error, from nothing, a class at a time."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter
from bayeskit.text import calibration as cal

TEXTS, LABELS = load_sms_spam()


def _same_statistics(a: SpamFilter, b: SpamFilter) -> None:
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    np.testing.assert_array_equal(a.get_feature_names_out(), b.get_feature_names_out())
    np.testing.assert_allclose(a.log_odds(TEXTS[3000:3300]), b.log_odds(TEXTS[3000:3300]))


def test_infinite_scores_land_in_the_end_bins_without_warnings():
    scores = np.array([-np.inf, np.inf, -1e308, 1e308, np.nan, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        counts = cal.score_counts(scores, np.array([False, True, False, True, False, True]))
    assert counts[0, 0] == 2  # -inf and -1e308
    assert counts[1, -1] == 2  # +inf and 1e308
    assert counts[0, cal.BINS // 2] == 1  # NaN: the middle
    assert counts[1, cal.BINS // 2] == 1  # 0
    assert counts.sum() == 6


@given(st.lists(st.floats(allow_nan=False), min_size=2, max_size=30))
def test_bins_keep_the_order_of_scores(values):
    scores = np.sort(np.asarray(values))
    bins = [
        int(np.flatnonzero(cal.score_counts(scores[i : i + 1], np.array([False]))[0])[0])
        for i in range(len(scores))
    ]
    assert bins == sorted(bins)


def test_an_empty_filter_knows_both_classes_from_its_first_message():
    f = SpamFilter()
    assert f.train_on_error(["see you at lunch"], ["ham"]) == 1
    np.testing.assert_array_equal(f.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(f.class_count_, [1.0, 0.0])
    # It has seen no spam yet, so it cannot tell: unsure of everything (not "ham" of
    # everything, which a mail filter would act on).
    assert f.classify(["win a prize", "see you at lunch"]).tolist() == ["unsure", "unsure"]
    assert f.train_on_error(["win a prize now"], ["spam"]) == 1  # unsure, so learned
    assert f.predict(["win a prize", "see you at lunch"]).tolist() == ["spam", "ham"]


def test_train_on_error_from_nothing_equals_fit_on_what_was_learned():
    f = SpamFilter()
    learned = []
    for text, label in zip(TEXTS[:150], LABELS[:150], strict=True):
        if f.train_on_error([text], [label]):
            learned.append((text, label))
    assert 0 < len(learned) < 150
    assert {label for _, label in learned} == {"ham", "spam"}
    fitted = SpamFilter().fit([t for t, _ in learned], [y for _, y in learned])
    _same_statistics(f, fitted)


def test_partial_fit_one_class_at_a_time_equals_fit():
    ham = [t for t, y in zip(TEXTS[:300], LABELS[:300], strict=True) if y == "ham"]
    spam = [t for t, y in zip(TEXTS[:300], LABELS[:300], strict=True) if y == "spam"]
    f = SpamFilter().partial_fit(ham, ["ham"] * len(ham))
    np.testing.assert_array_equal(f.classes_, ["ham", "spam"])
    f.partial_fit(spam, ["spam"] * len(spam))
    _same_statistics(f, SpamFilter().fit(ham + spam, ["ham"] * len(ham) + ["spam"] * len(spam)))


def test_labels_of_the_filter_spelled_as_numbers():
    f = SpamFilter(ham_label=0, spam_label=1).partial_fit(["lunch at noon"], [0])
    np.testing.assert_array_equal(f.classes_, [0, 1])
    f.partial_fit(["free cash"], [1])
    assert f.predict(["free cash"]).tolist() == [1]


def _spam_share(f: SpamFilter, texts: list, cutoff: float = 0.5) -> float:
    return float((f.predict_proba(texts)[:, list(f.classes_).index("spam")] > cutoff).mean())


def test_a_class_learned_alone_leaves_no_scores_that_turn_the_scale_upside_down():
    # A model that knows one class scores every message ±inf: kept, those scores made the
    # scale fitted at the next learn fall (all ham "more spam-like" than the one spam), and
    # one correction turned the filter upside down.
    texts, labels = np.asarray(TEXTS, dtype=object), np.asarray(LABELS)
    spam, ham = texts[labels == "spam"].tolist(), texts[labels == "ham"].tolist()
    f = SpamFilter()
    f.partial_fit(spam[:500], ["spam"] * 500, classes=["ham", "spam"])
    f.partial_fit(ham[:3000], ["ham"] * 3000)
    before = _spam_share(f, spam[500:]), _spam_share(f, ham[3000:])
    assert f.score_counts_.sum() == 0  # every score was taken by a one-class model
    f.partial_fit(spam[500:501], ["spam"])
    a, _ = f.probability_scale()
    assert a > 0
    after = _spam_share(f, spam[501:]), _spam_share(f, ham[3000:])
    assert after[0] > 0.9, (before, after)
    assert after[1] < 0.02, (before, after)


def test_a_falling_scale_is_never_fitted():
    # Counts where spam scores below ham (as counts of an older model's one-class scores
    # do): the filter's own scale, not one that inverts it.
    counts = cal.empty_counts()
    counts[0, -1] = 2500  # ham at +inf
    counts[1, cal.BINS // 2] = 1
    assert cal.fit_scale(counts) == cal.IDENTITY
