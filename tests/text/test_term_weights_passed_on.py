"""A learned document's terms merged into a model's: the new vocabulary's weights are the old
ones moved to their new columns, the new terms weighed apart, and equal to weighing every term
again."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit.datasets import load_sms_spam
from bayeskit.families import _structured
from bayeskit.text import TextClassifier
from bayeskit.text import _term_weights as term_weights


def _mail(subject: str, body: str) -> bytes:
    return f"From: a@b.example\nSubject: {subject}\n\n{body}\n".encode()


@pytest.mark.parametrize("cells", [False, True])  # the full arrays' insert, the cells' merge
def test_a_learned_message_passes_the_weights_on(monkeypatch, cells):
    if cells:
        monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)
    texts, labels = load_sms_spam()
    docs = [_mail(f"note {i % 7}", t) for i, t in enumerate(texts[:1500])]
    model = TextClassifier().fit(docs, labels[:1500])
    model.predict(docs[:3])  # the vocabulary's weights made
    given = term_weights.inherited
    passed_on: list[bool] = []

    def watched(child, weighting):
        found = given(child, weighting)
        passed_on.append(found is not None)
        return found

    monkeypatch.setattr(term_weights, "inherited", watched)
    for new in (
        _mail("zebraquux offer", "brand newword pairs zebraquux here"),
        _mail("note 1", "nothing new at all"),
    ):
        passed_on.clear()
        model.partial_fit([new], ["spam"])
        model.predict([new])
        vectorizer = model.fitted_parts()[0]
        vocabulary = vectorizer.terms_
        key = (vectorizer.ngram_weights, vectorizer.subject_weight, True, False)
        weights = term_weights.kept(vectorizer._given_vocabulary(), key)
        assert weights is not None
        if "zebraquux" in str(new):  # new terms: weights passed on, not all weighed again
            assert any(passed_on)
        np.testing.assert_array_equal(weights, vectorizer.term_weights(vocabulary))
    assert {"subject:zebraquux", "zebraquux here"} <= set(vocabulary.tolist())
    assert len(set(weights.tolist())) > 2  # subject, 1-gram and 2-gram weights all present


def test_weights_pass_on_only_where_kept():
    parent, child = np.array(["a", "c"], dtype=object), np.array(["a", "b", "c"], dtype=object)
    term_weights.inherit(parent, child, np.array([0, 2]))
    assert term_weights.inherited(child, ("k",)) is None  # nothing kept beside the parent
    term_weights.keep(parent, ("k",), np.array([1.0, 0.7]))
    term_weights.inherit(parent, child, np.array([0, 2]))
    assert term_weights.inherited(child, ("other weighting",)) is None
    old, at = term_weights.inherited(child, ("k",))
    np.testing.assert_array_equal(old, [1.0, 0.7])
    np.testing.assert_array_equal(at, [0, 2])
    assert term_weights.inherited(child, ("k",)) is None  # given once, then let go
