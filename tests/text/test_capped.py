"""bayeskit.text.capped: a capped number of terms, and held-out scores from a capped filter."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.errors import MergeError, ParameterError
from bayeskit.text import SpamFilter, TextClassifier
from bayeskit.text.capped import cap_terms, kept_part

SPAM = ["win cash now", "free prize cash", "claim your free prize", "cheap meds now"]
HAM = ["lunch at noon", "see you at lunch", "the budget report", "meeting moved"]


def _messages(n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    spam = rng.random(n) < 0.4
    texts = [
        " ".join(rng.choice(SPAM if s else HAM, size=2)) + f" w{rng.integers(40)}" for s in spam
    ]
    return texts, np.where(spam, "spam", "ham")


@pytest.mark.parametrize("max_terms", [0, -1, 2.5, float("nan"), None, True, "3"], ids=repr)
def test_a_max_terms_that_is_not_a_positive_int_is_refused(max_terms):
    """0 or -1 raised numpy's "kth out of bounds", 2.5 or None a TypeError, True was taken
    as 1."""
    clf = TextClassifier().fit(["cash now", "cash prize", "lunch now"], ["spam", "spam", "ham"])
    with pytest.raises(ParameterError, match=r"max_terms must be a positive int .*got "):
        cap_terms(clf.stats_, max_terms)
    assert cap_terms(clf.stats_, np.int64(1)).blocks[0].vocabulary.terms.tolist() == ["cash"]


@settings(max_examples=25, deadline=None)
@given(max_terms=st.integers(1, 60), seed=st.integers(0, 5))
def test_the_terms_in_the_most_documents_are_kept(max_terms, seed):
    texts, labels = _messages(30, seed)
    clf = TextClassifier().fit(texts, labels)
    stats = cap_terms(clf.stats_, max_terms)
    vocab = stats.blocks[0].vocabulary
    full = clf.vocabulary_stats_
    assert len(vocab) == min(max_terms, len(full))
    kept = np.isin(full.terms, vocab.terms)
    if not kept.all():  # nothing dropped is in more documents than anything kept
        assert full.doc_freq[~kept].max() <= vocab.doc_freq.min()
        at_cut = full.doc_freq == vocab.doc_freq.min()  # ties: the first alphabetically
        assert not (kept[at_cut] < np.maximum.accumulate(kept[at_cut][::-1])[::-1]).any()
    where = np.searchsorted(full.terms, vocab.terms)
    np.testing.assert_array_equal(vocab.doc_freq, full.doc_freq[where])
    np.testing.assert_array_equal(vocab.term_freq, full.term_freq[where])
    np.testing.assert_array_equal(
        stats.blocks[0].keyed.block.total, clf.stats_.blocks[0].keyed.block.total[:, where]
    )
    np.testing.assert_array_equal(stats.class_count, clf.stats_.class_count)
    assert vocab.n_docs == 30


def test_kept_part_of_an_uncapped_filter_is_the_part_itself():
    texts, labels = _messages(60, seed=1)
    f = SpamFilter(calibration_folds=None).fit(texts, labels)
    part = f.summarize(texts[:20], labels[:20])
    got = kept_part(f.stats_, part)
    (got_block,), (part_block,) = got.blocks, part.blocks
    np.testing.assert_array_equal(got_block.keyed.block.total, part_block.keyed.block.total)
    np.testing.assert_array_equal(got_block.terms, part_block.terms)
    np.testing.assert_array_equal(got_block.vocabulary.doc_freq, part_block.vocabulary.doc_freq)
    np.testing.assert_array_equal(
        f.held_out_score_counts(texts, labels, kept_only=True),
        f.held_out_score_counts(texts, labels),
    )


def test_a_capped_filter_removes_what_it_kept_of_a_fold():
    texts, labels = _messages(60, seed=2)
    f = SpamFilter(calibration_folds=None).fit(texts, labels)
    # capped: the messages hold terms and counts the filter no longer has
    f.fit_summary(cap_terms(f.stats_, 8))
    with pytest.raises(MergeError):  # exact removal is impossible: refused, as before
        f.held_out_score_counts(texts, labels)
    counts = f.held_out_score_counts(texts, labels, kept_only=True)
    assert counts.sum() == 60  # every message scored by the filter without its fold
    kept = kept_part(f.stats_, f.summarize(texts, labels))
    kept_vocab = kept.blocks[0].vocabulary
    assert kept_vocab.terms.tolist() == f.vocabulary_stats_.terms.tolist()
    # all the messages it learned: what it kept of them is all it holds
    np.testing.assert_array_equal(
        kept.blocks[0].keyed.block.total, f.stats_.blocks[0].keyed.block.total
    )
    assert (kept_vocab.doc_freq <= f.vocabulary_stats_.doc_freq).all()
