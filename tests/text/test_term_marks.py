"""The term weights' reading of a long list of terms as one byte array (``term_marks``): the
spaces, colons and ``subject:`` prefixes that str methods find, for any terms — and a loaded
model's vocabulary weighed by it as the fitted one is."""

from __future__ import annotations

from itertools import repeat

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayeskit import load, save
from bayeskit.text import TextClassifier, _term_weights
from bayeskit.text._term_weights import term_marks


def by_str_methods(terms):
    return (
        np.fromiter(map(str.count, terms, repeat(" ")), np.int64, count=len(terms)),
        np.fromiter(map(str.__contains__, terms, repeat(":")), bool, count=len(terms)),
        np.fromiter(map(str.startswith, terms, repeat("subject:")), bool, count=len(terms)),
    )


PIECES = st.sampled_from(["subject:", "subject", "url:", ":", " ", "a", "é", "\u0394", "\udcff"])
TERMS = st.lists(
    st.lists(PIECES | st.text(max_size=4), max_size=5).map("".join), min_size=1, max_size=60
)


@given(TERMS)
def test_the_byte_array_finds_what_str_methods_find(terms):
    expected = by_str_methods(terms)
    old, _term_weights.MARKED_MIN_TERMS = _term_weights.MARKED_MIN_TERMS, 1
    try:
        got = term_marks(terms)
    finally:
        _term_weights.MARKED_MIN_TERMS = old
    for a, b in zip(expected, got, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_a_term_holding_a_nul_is_read_by_str_methods(monkeypatch):
    monkeypatch.setattr(_term_weights, "MARKED_MIN_TERMS", 1)
    terms = ["a\x00b c", "subject:x", "", "a:b"]
    for a, b in zip(by_str_methods(terms), term_marks(terms), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("subject_weight", [1.0, 3.0])
def test_a_loaded_model_weighs_its_vocabulary_as_the_fitted_one(
    tmp_path, monkeypatch, subject_weight
):
    # a vocabulary the scanner did not count in this process (loaded) is weighed from its
    # strings: the weights of the str methods (a list this short), read as one byte array
    posts = [
        f"From: a{i}@x.org\nSubject: offer {i % 7} deal\n\nword{i % 11} and more text {i}\n"
        for i in range(60)
    ]
    labels = [i % 3 for i in range(60)]
    model = TextClassifier().set_params(vectorizer__subject_weight=subject_weight)
    model.fit(posts, labels)
    vec = model.fitted_parts()[0]
    fitted = vec.term_weights(vec.get_feature_names_out())
    assert len(fitted) < _term_weights.MARKED_MIN_TERMS
    assert (fitted == subject_weight).any()  # subject: tokens
    assert (fitted < 1).any()  # 2-grams
    save(model, tmp_path / "m.bk")
    monkeypatch.setattr(_term_weights, "MARKED_MIN_TERMS", 1)
    loaded = load(tmp_path / "m.bk")
    again = loaded.fitted_parts()[0]
    np.testing.assert_array_equal(again.term_weights(again.get_feature_names_out()), fitted)
    np.testing.assert_array_equal(loaded.predict_proba(posts), model.predict_proba(posts))


@given(TERMS)
def test_holds_colon_is_the_str_test(terms):
    old, _term_weights.MARKED_MIN_TERMS = _term_weights.MARKED_MIN_TERMS, 1
    try:
        got = _term_weights.holds_colon(terms)
    finally:
        _term_weights.MARKED_MIN_TERMS = old
    np.testing.assert_array_equal(got, by_str_methods(terms)[1])
