"""SpamFilter.held_out_score_counts + calibrate: a filter trained in batches gets the
probability scale ``fit`` gives, from held-out scores of its batches read again."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import KFold, StratifiedKFold

from bayeskit.errors import DataError, ParameterError
from bayeskit.naive_bayes import MultinomialNB
from bayeskit.text import SpamFilter, TextVectorizer, calibration

SPAM = ["win cash now", "free prize cash", "claim your free prize", "cheap meds now", "cash offer"]
HAM = ["lunch at noon", "see you at lunch", "the budget report", "meeting moved", "call me later"]


def _messages(n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    spam = rng.random(n) < 0.4
    words = [SPAM if s else HAM for s in spam]
    texts = [" ".join(rng.choice(w, size=2)) + f" w{rng.integers(30)}" for w in words]
    return texts, np.where(spam, "spam", "ham")


COUNTS = {"vectorizer": TextVectorizer(ngram_range=(1, 2)), "model": MultinomialNB(alpha=0.3)}


def test_one_batch_gives_fits_counts_and_scale():
    texts, labels = _messages(120)
    fitted = SpamFilter(**COUNTS).fit(texts, labels)
    plain = SpamFilter(calibration_folds=None, **COUNTS).fit(texts, labels)
    counts = plain.held_out_score_counts(texts, labels)
    np.testing.assert_array_equal(counts, fitted.score_counts_)
    plain.set_params(calibration_folds=5).calibrate(counts)
    assert plain.calibration_ == fitted.calibration_
    np.testing.assert_array_equal(plain.predict_proba(texts), fitted.predict_proba(texts))


def test_unit_length_weights_score_a_held_out_message_as_a_new_one():
    # fit scales a held-out message to unit length over all its terms; held-out scores here
    # are the held-out filter's own, over the terms it knows: close scales, not equal counts
    texts, labels = _messages(300)
    fitted = SpamFilter().fit(texts, labels)
    plain = SpamFilter(calibration_folds=None).fit(texts, labels)
    plain.set_params(calibration_folds=5).calibrate(plain.held_out_score_counts(texts, labels))
    assert plain.score_counts_.sum() == fitted.score_counts_.sum() == 300
    np.testing.assert_allclose(
        plain.spam_probability(texts), fitted.spam_probability(texts), atol=0.05
    )


@pytest.mark.parametrize("model", ["counts", "log-tf"])
def test_each_fold_is_scored_by_the_filter_fitted_without_it(model):
    texts, labels = _messages(90, seed=1)
    params = {}
    if model == "log-tf":  # a per-document weight: the statistics still add
        params["vectorizer"] = TextVectorizer(output="tfidf", use_idf=False, sublinear_tf=True)
    whole = SpamFilter(calibration_folds=None, **params)
    for part in np.array_split(np.arange(90), 3):  # three batches
        whole.partial_fit([texts[i] for i in part], labels[part])
    batch = np.arange(30, 60)
    docs, ys = [texts[i] for i in batch], labels[batch]
    got = whole.held_out_score_counts(docs, ys)
    expected = calibration.empty_counts()
    for _, test in StratifiedKFold(5, shuffle=True, random_state=0).split(docs, ys == "spam"):
        keep = np.setdiff1d(np.arange(90), batch[test])
        without = SpamFilter(calibration_folds=None, **params)
        without.fit([texts[i] for i in keep], labels[keep])
        scores = without.log_odds([docs[i] for i in test])
        expected += calibration.score_counts(scores, ys[test] == "spam")
    np.testing.assert_array_equal(got, expected)


def test_batches_of_one_class_and_of_one_message():
    texts, labels = _messages(60, seed=2)
    order = np.argsort(labels, kind="stable")  # class by class, as folders are read
    texts, labels = [texts[i] for i in order], labels[order]
    f = SpamFilter(calibration_folds=None)
    batches = [np.arange(0, 20), np.arange(20, 59), np.arange(59, 60)]
    for b in batches:
        f.partial_fit([texts[i] for i in b], labels[b])
    assert len(set(labels[batches[0]])) == 1
    counts = sum(f.held_out_score_counts([texts[i] for i in b], labels[b]) for b in batches)
    assert counts.sum() == 60  # every message scored once
    ham = batches[0]  # one class: plain folds, each scored by the filter without it
    expected = calibration.empty_counts()
    for _, test in KFold(5, shuffle=True, random_state=0).split(ham):
        keep = np.setdiff1d(np.arange(60), ham[test])
        without = SpamFilter(calibration_folds=None).fit([texts[i] for i in keep], labels[keep])
        scores = without.log_odds([texts[i] for i in ham[test]])
        expected += calibration.score_counts(scores, np.zeros(len(test), dtype=bool))
    got = f.held_out_score_counts([texts[i] for i in ham], labels[ham])
    np.testing.assert_array_equal(got, expected)
    f.set_params(calibration_folds=5).calibrate(counts)
    assert f.calibration_ != calibration.IDENTITY
    np.testing.assert_array_equal(f.score_counts_, counts)


def test_a_class_gone_without_a_fold_gives_no_score():
    f = SpamFilter(calibration_folds=None).fit(
        ["win cash", "lunch", "see you"], ["spam", "ham", "ham"]
    )
    counts = f.held_out_score_counts(["win cash"], ["spam"])  # without it: no spam left
    assert counts.sum() == 0


def test_refusals_name_the_fix_and_leave_the_filter_as_it_was():
    texts, labels = _messages(40, seed=3)
    with pytest.raises(NotFittedError):
        SpamFilter().held_out_score_counts(texts, labels)
    f = SpamFilter(calibration_folds=None).fit(texts, labels)
    with pytest.raises(DataError, match="the filter's two, 'ham' and 'spam'"):
        f.held_out_score_counts(texts[:2], ["ham", "eggs"])
    counts = f.held_out_score_counts(texts, labels)
    with pytest.raises(ParameterError, match="calibration_folds is None"):
        f.calibrate(counts)
    f.set_params(calibration_folds=5)
    for bad in (counts[:, :10], -counts, np.full_like(counts, np.nan)):
        with pytest.raises(DataError, match="score counts must be an array of shape"):
            f.calibrate(bad)
    assert "calibration_" not in f.__dict__ or f.calibration_ == calibration.IDENTITY
    idf = SpamFilter(vectorizer=TextVectorizer(output="tfidf"), calibration_folds=None)
    idf.fit(texts, labels)
    with pytest.raises(ParameterError, match="idf"):
        idf.held_out_score_counts(texts, labels)


def test_folds_scored_on_threads_give_the_counts_of_one_thread(monkeypatch):
    from bayeskit.text import spam

    texts, labels = _messages(200, seed=4)
    one = SpamFilter(**COUNTS).fit(texts, labels)
    used = []

    def recorded(n_tasks, n_threads, task):
        used.append(n_threads)
        return in_parallel(n_tasks, n_threads, task)

    in_parallel = spam.in_parallel
    monkeypatch.setattr(spam, "PARALLEL_FOLD_ENTRIES", 0)
    monkeypatch.setattr(spam, "usable_cpus", lambda: 3)
    monkeypatch.setattr(spam, "in_parallel", recorded)
    threaded = SpamFilter(**COUNTS).fit(texts, labels)
    assert used == [3]  # five folds, three threads
    np.testing.assert_array_equal(threaded.score_counts_, one.score_counts_)
    plain = SpamFilter(calibration_folds=None, **COUNTS).fit(texts, labels)
    np.testing.assert_array_equal(plain.held_out_score_counts(texts, labels), one.score_counts_)
