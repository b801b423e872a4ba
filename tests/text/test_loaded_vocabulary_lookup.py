"""A vocabulary the compiled scanner did not count in this process (a loaded model's, a copy,
a vocabulary given by hand) is looked up by a table of its word terms, built once, with the
header tokens by name: the same matrix as counting every term and looking it up in Python."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextClassifier, TextVectorizer, vectorize

TEXTS, LABELS = load_sms_spam()
MAILS = [
    f"From: Ann {i} <ann{i % 7}@example.org>\nTo: b@x.org\nSubject: {TEXTS[i][:40]}\n\n"
    f"{TEXTS[i + 1]} see http://s{i % 5}.example.com/x now\n"
    for i in range(0, 400, 2)
]
DOCS = [*MAILS, *TEXTS[1000:1200], MAILS[0].replace("now", "now \u0394\u03b5")]


def _same(a, b):
    assert a.shape == b.shape
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _by_python(vectorizer, docs, monkeypatch):
    """The matrix counted term by term and looked up in the vocabulary (the compiled
    lookups turned off)."""
    with monkeypatch.context() as patch:
        patch.setattr(vectorize.TextVectorizer, "_count_known_mail", lambda *a: None)
        patch.setattr(vectorize.TextVectorizer, "_count_known_words", lambda *a: None)
        return copy.deepcopy(vectorizer).transform(docs)


def _not_called(*args, **kwargs):
    raise AssertionError("every term counted and looked up by name")


def _loaded(vectorizer, tmp_path):
    """``vectorizer`` fitted on DOCS inside a text model saved and loaded again: its
    vocabulary the model file's, not the scanner's of this process."""
    labels = [LABELS[i % 50] for i in range(len(DOCS))]
    model = TextClassifier(vectorizer=vectorizer, model=bk.MultinomialNB()).fit(DOCS, labels)
    path = tmp_path / "model.bkm"
    bk.save(model, path)
    return model.fitted_parts()[0], bk.load(path).fitted_parts()[0]


@pytest.mark.parametrize("oov_token", [None, "<oov>"])
@pytest.mark.parametrize("min_df", [1, 2])
def test_a_loaded_vocabulary_transforms_as_the_fitted_one(monkeypatch, tmp_path, oov_token, min_df):
    fitted, loaded = _loaded(
        TextVectorizer(analyzer="auto", ngram_range=(1, 2), min_df=min_df, oov_token=oov_token),
        tmp_path,
    )
    expected = fitted.transform(DOCS)
    with monkeypatch.context() as patch:  # looked up by a table of its words, not term by term
        patch.setattr(vectorize.TextVectorizer, "_count_auto", _not_called)
        got = loaded.transform(DOCS)
    _same(got, expected)
    _same(got, _by_python(fitted, DOCS, monkeypatch))
    _same(loaded.transform(TEXTS[1000:1200]), expected[len(MAILS) : len(MAILS) + 200])


def test_a_vocabulary_given_by_hand_is_looked_up_alike(monkeypatch):
    terms = ["subject:free", "free", "free entry", "url:example.com", "call", "to:1", "now"]
    given = TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), vocabulary=terms, output="counts"
    ).fit(DOCS)
    with monkeypatch.context() as patch:
        patch.setattr(vectorize.TextVectorizer, "_count_auto", _not_called)
        got = given.transform(DOCS)
    assert got.sum() > 0
    _same(got, _by_python(given, DOCS, monkeypatch))


def test_little_text_is_looked_up_term_by_term(tmp_path):
    """A message or two (a service's check) make no table of the whole vocabulary."""
    fitted, loaded = _loaded(TextVectorizer(analyzer="auto", ngram_range=(1, 2)), tmp_path)
    got = loaded.transform(MAILS[:2])
    assert "_lookup_cache" not in loaded.__dict__
    _same(got, fitted.transform(MAILS[:2]))
