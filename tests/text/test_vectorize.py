"""TextVectorizer: scikit-learn's vocabulary and numbers, additive statistics, bad input."""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import (
    DataError,
    EmptyVocabularyWarning,
    InputTypeError,
    NotFittedError,
    ParameterError,
)
from bayeskit.text import TextVectorizer

TEXTS, _ = load_sms_spam()


def assert_same_matrix(ours: TextVectorizer, X_ours, theirs, X_theirs, rtol=0.0):
    assert ours.get_feature_names_out().tolist() == theirs.get_feature_names_out().tolist()
    assert sp.isspmatrix_csr(X_ours) or X_ours.format == "csr"
    np.testing.assert_allclose(X_ours.toarray(), X_theirs.toarray(), rtol=rtol, atol=1e-15)


COUNT_SETTINGS = [
    {},
    {"ngram_range": (1, 2)},
    {"analyzer": "char_wb", "ngram_range": (2, 4)},
    {"analyzer": "char", "ngram_range": (1, 3)},
    {"min_df": 2, "max_df": 0.5},
    {"min_df": 0.001},
    {"max_features": 500},
    {"max_features": 3000, "ngram_range": (1, 2)},
    {"stop_words": ["the", "to", "you"]},
    {"lowercase": False, "token_pattern": r"(?u)\b\w+\b"},
    {"ngram_range": (1, 3), "stop_words": ["the", "to", "you"], "max_df": 0.5},
    {"analyzer": "char_wb", "ngram_range": (1, 3), "max_features": 2000, "min_df": 2},
    {"ngram_range": (2, 2), "token_pattern": r"(?u)\b\w+\b", "lowercase": False},
]


@pytest.mark.parametrize("settings", COUNT_SETTINGS, ids=str)
def test_counts_equal_count_vectorizer(settings):
    texts = TEXTS[:2500]
    ours, theirs = TextVectorizer(**settings), CountVectorizer(**settings)
    assert_same_matrix(ours, ours.fit_transform(texts), theirs, theirs.fit_transform(texts))
    held_out = TEXTS[2500:3000]
    assert_same_matrix(ours, ours.transform(held_out), theirs, theirs.transform(held_out))


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"sublinear_tf": True},
        {"norm": "l1", "smooth_idf": False},
        {"use_idf": False},
        {"sublinear_tf": True, "ngram_range": (1, 2), "min_df": 2},
    ],
    ids=str,
)
def test_tfidf_equals_tfidf_vectorizer(settings):
    ours, theirs = TextVectorizer(output="tfidf", **settings), TfidfVectorizer(**settings)
    assert_same_matrix(ours, ours.fit_transform(TEXTS), theirs, theirs.fit_transform(TEXTS), 1e-12)
    assert_same_matrix(
        ours, ours.transform(TEXTS[:99]), theirs, theirs.transform(TEXTS[:99]), 1e-12
    )


def test_binary_and_user_vocabulary():
    ours, theirs = TextVectorizer(output="binary"), CountVectorizer(binary=True)
    assert_same_matrix(ours, ours.fit_transform(TEXTS), theirs, theirs.fit_transform(TEXTS))
    vocab = ["free", "call", "zzz-not-a-token", "win"]
    ours = TextVectorizer(vocabulary=vocab).fit(TEXTS)
    theirs = CountVectorizer(vocabulary=sorted(vocab)).fit(TEXTS)
    assert_same_matrix(ours, ours.transform(TEXTS), theirs, theirs.transform(TEXTS))


def test_out_of_vocabulary_token_counts_every_other_word():
    vec = TextVectorizer(max_features=2, oov_token="NOTAWORD")
    X = vec.fit_transform(["free free win money", "free win lunch lunch lunch"])
    assert vec.get_feature_names_out().tolist() == ["free", "lunch", "NOTAWORD"]
    np.testing.assert_array_equal(X.toarray(), [[2, 0, 2], [1, 3, 1]])
    np.testing.assert_array_equal(vec.transform(["brand new words"]).toarray(), [[0, 0, 3]])


def _state(vec: TextVectorizer) -> tuple:
    return (
        vec.get_feature_names_out().tolist(),
        vec.transform(["free lunch at noon", "brand new words"]).toarray().tolist(),
        vec.stats_,
    )


@pytest.mark.parametrize("text", ["short", "long"])
def test_an_oov_token_that_is_a_term_is_refused_and_changes_nothing(text):
    """oov_token="free" with "free" in the vocabulary gave two columns named 'free' (the
    vocabulary_ entry pointing at the term's, explain printing two rows 'free'): refused at
    fit, fit_stats, partial_fit and, set after fitting, at the next transform, naming the
    token; each refusal leaves a fitted vectorizer as it was. ``long``: enough text for the
    compiled scanner, whose terms are searched without being made."""
    docs = ["free money now", "lunch at noon", "free lunch", "money money"]
    if text == "long":
        docs = [f"{d} filler{i % 50} " * 30 for i, d in enumerate(docs * 10)]
    refusal = r"oov_token='free' is also the term 'free' of the .*vocabulary.* '<oov>'"
    with pytest.raises(ParameterError, match=refusal):
        TextVectorizer(oov_token="free").fit(docs)
    with pytest.raises(ParameterError, match=refusal):
        TextVectorizer(oov_token="free").fit_stats(TextVectorizer().fit(docs).stats_)
    vec = TextVectorizer(oov_token="<oov>").fit(docs)
    before = _state(vec)
    with pytest.raises(ParameterError, match=refusal):
        vec.set_params(oov_token="free").fit(docs)
    with pytest.raises(ParameterError, match=refusal):
        vec.transform(docs)  # a fitted vocabulary holding the token set after fitting
    with pytest.raises(ParameterError, match=refusal):
        vec.get_feature_names_out()
    assert _state(vec.set_params(oov_token="<oov>")) == before
    # a stream: refused by the batch that makes the token a term of the vocabulary
    stream = TextVectorizer(oov_token="free", min_df=2).partial_fit(["free money", "money"])
    assert stream.get_feature_names_out().tolist() == ["money", "free"]
    before = _state(stream)
    with pytest.raises(ParameterError, match=refusal):
        stream.partial_fit(["free lunch"])
    assert _state(stream) == before
    # a token outside the vocabulary is the OOV column's name, as before
    vec = TextVectorizer(oov_token="free", vocabulary=["lunch", "money"]).fit(docs)
    assert vec.get_feature_names_out().tolist() == ["lunch", "money", "free"]


def test_min_df_above_max_df_is_refused_before_a_stream_learns():
    """min_df=3, max_df=2 passed check_params and partial_fit; only every later transform
    raised. Two ints (or two floats) contradicting each other are refused at once."""
    vec = TextVectorizer().partial_fit(["free money", "lunch"])
    before = _state(vec)
    vec.set_params(min_df=3, max_df=2)
    with pytest.raises(ParameterError, match=r"max_df=2 keeps terms .*fewer than min_df=3"):
        vec.partial_fit(["free lunch"])
    assert _state(vec.set_params(min_df=1, max_df=1.0)) == before
    # an int and a float compare only against the number of documents: accepted until then
    TextVectorizer(min_df=3, max_df=0.5).check_params()


doc_lists = st.lists(
    st.lists(st.sampled_from(["free", "win", "cash", "lunch", "ok", "été", "Ünï"]), max_size=8).map(
        " ".join
    ),
    min_size=2,
    max_size=20,
)


@given(doc_lists, st.integers(1, 19))
def test_partial_fit_and_summaries_equal_fit(docs, cut):
    cut = min(cut, len(docs) - 1)
    settings = {"min_df": 2, "output": "tfidf"}
    whole = TextVectorizer(**settings)
    try:
        whole.fit(docs)
    except DataError:
        return  # nothing occurs twice: both ways must refuse
    streamed = TextVectorizer(**settings).partial_fit(docs[:cut]).partial_fit(docs[cut:])
    assert streamed.vocabulary_ == whole.vocabulary_
    np.testing.assert_allclose(streamed.transform(docs).toarray(), whole.transform(docs).toarray())
    vec = TextVectorizer(**settings)
    summed = vec.summarize(docs[:cut]) + vec.summarize(docs[cut:])
    assert vec.fit_stats(summed).vocabulary_ == whole.vocabulary_
    assert (summed - vec.summarize(docs[cut:])).terms.tolist() == sorted(
        set(vec.summarize(docs[:cut]).terms.tolist())
    )


def test_hashed_output_is_stable_and_needs_no_vocabulary():
    vec = TextVectorizer(output="hashed", n_features=64)
    X = vec.fit_transform(["free free win", "lunch"])
    assert X.shape == (2, 64)
    np.testing.assert_array_equal(np.asarray(X.sum(axis=1)).ravel(), [3, 1])
    again = TextVectorizer(output="hashed", n_features=64).fit_transform(["free free win"])
    np.testing.assert_array_equal(again.toarray()[0], X.toarray()[0])


def test_empty_documents_and_documents_without_tokens():
    vec = TextVectorizer().fit(["free money", "", "!!! ?? a", "money"])
    X = vec.transform(["", "a !", "money"])
    assert X.shape == (3, 2)
    np.testing.assert_array_equal(X.toarray(), [[0, 0], [0, 0], [0, 1]])


def test_non_utf8_bytes_use_the_stated_fallback():
    # (b"\xff\xfe" would be UTF-16's byte-order mark, which is read as UTF-16 first)
    vec = TextVectorizer().fit([b"caf\xe9 ol\xe9", "café".encode(), b"\xff\x00garbage"])
    assert {"café", "olé", "garbage"} <= set(vec.vocabulary_)


@pytest.mark.parametrize("settings", [{}, {"ngram_range": (1, 2)}], ids=str)
def test_a_fifty_megabyte_document(settings):
    words = " ".join(["free", "money", "lunch", "meeting"] * 12)
    lines = 50_000_000 // (len(words) + 1)
    big = (words + "\n") * lines
    start = time.perf_counter()
    vec = TextVectorizer(**settings)
    X = vec.fit_transform([big, "free lunch"])
    assert time.perf_counter() - start < 60
    tokens = 48 * lines
    assert X[0].sum() == tokens + (tokens - 1 if settings else 0)
    assert vec.transform([big]).sum() == X[0].sum()


@pytest.mark.slow
def test_a_fifty_megabyte_document_in_character_n_grams():
    big = "free money, lunch at noon\n" * 2_000_000
    X = TextVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit_transform([big, "x"])
    small = CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)).fit_transform([big[:260]])
    assert X[0].sum() == small.sum() * 200_000


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"ngram_range": (1, 3), "stop_words": ["a", "b"]},
        {"analyzer": "char", "ngram_range": (1, 3)},
        {"analyzer": "char_wb", "ngram_range": (2, 4)},
    ],
    ids=str,
)
def test_empty_documents_nul_bytes_and_bytes_beyond_utf8_equal_count_vectorizer(settings):
    # Long enough for the compiled scanner, with empty documents, documents without a token,
    # NUL bytes, and bytes that are not UTF-8 (decoded as latin-1, the stated fallback).
    docs = [
        *TEXTS[:300],
        "",
        "!!! ?? -",
        " \t\n ",
        "a\x00b ab\x00\x00cd \x00",
        b"caf\xe9 ol\xe9 \xff\xfe\x00garbage",
        "café olé".encode(),
        None,
    ]
    ours, theirs = TextVectorizer(**settings), CountVectorizer(**settings)
    as_text = [TextVectorizer()._documents([d]).__iter__().__next__() for d in docs]
    assert as_text[-3] == "café olé ÿþ\x00garbage"  # latin-1 where UTF-8 fails
    assert_same_matrix(ours, ours.fit_transform(docs), theirs, theirs.fit_transform(as_text))
    assert_same_matrix(ours, ours.transform(docs[-7:]), theirs, theirs.transform(as_text[-7:]))


def test_empty_vocabulary_names_the_setting():
    with pytest.raises(
        DataError, match=r"vocabulary is empty after min_df=5, max_df=1.0 .*in 2 doc"
    ):
        TextVectorizer(min_df=5).fit(["a b c free", "win"])
    with pytest.raises(DataError, match=r"empty after min_df=2, max_df=0\.1"):
        TextVectorizer(min_df=2, max_df=0.1).fit(["free win"] * 5)
    # a stream whose documents meet the rules in no term yet: rows of zeros, with a warning
    with pytest.warns(EmptyVocabularyWarning, match=r"rules yet, min_df=3, max_df=1\.0 "):
        shape = TextVectorizer(min_df=3).partial_fit(["free"]).transform(["free x"]).shape
    assert shape == (1, 0)
    # a count of documents past the largest float: more than any corpus, not an overflow
    with pytest.raises(DataError, match="empty after min_df=1000000"):
        TextVectorizer(min_df=10**400).fit(["free win", "win"])
    vec = TextVectorizer(max_df=10**400).fit(["free win", "win"])
    assert vec.get_feature_names_out().tolist() == ["free", "win"]


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"ngram_range": (2, 1)}, "1 <= min_n <= max_n"),
        ({"ngram_range": (0, 1)}, "1 <= min_n <= max_n"),
        ({"ngram_range": (1, 11)}, "max_n is at most 10"),
        ({"ngram_range": (1, 100_000)}, "max_n is at most 10"),
        ({"ngram_range": (1.5, 2)}, "pair of ints"),
        ({"ngram_range": 3}, "pair of ints"),
        ({"token_pattern": r"(\w)(\w+)"}, "2 capturing groups"),
        ({"token_pattern": r"(?:a+)+b"}, "repeat inside a repeat"),
        ({"token_pattern": r"\b(?:ab|a)*\b"}, "alternation inside a repeat"),
        ({"token_pattern": r"(\w)\1"}, "back-reference"),
        ({"token_pattern": 5}, "token_pattern must be a str"),
        ({"encoding": "no-such-codec"}, "encoding='no-such-codec' is not an encoding"),
        ({"encoding": "rot13"}, "not a text encoding"),
        ({"stop_words": [f"w{i}" for i in range(100_001)]}, "at most 100000"),
        ({"stop_words": ["ok", 3]}, "stop_words must be strings"),
        ({"stop_words": "french"}, "stop_words='french'"),
        ({"max_features": 0}, "max_features must be a positive int"),
        ({"min_df": -1}, "min_df must be >= 0"),
        ({"max_df": 1.5}, "a fraction in \\[0, 1\\]"),
        ({"n_features": 0}, "n_features must be an int"),
        ({"analyzer": "words"}, "analyzer='words'"),
        ({"oov_token": 3}, "oov_token must be a str"),
        ({"min_df": 3, "max_df": 2}, r"max_df=2 keeps terms .*fewer than min_df=3 .*lower min_df"),
        ({"min_df": 0.9, "max_df": 0.5}, r"max_df=0\.5 keeps terms .*fewer than min_df=0\.9"),
        (
            {"oov_token": "ok", "vocabulary": ["fine", "ok"]},
            r"oov_token='ok' is also the term 'ok' of the given vocabulary.*choose an oov_token",
        ),
    ],
    ids=str,
)
def test_settings_are_checked_before_any_work(settings, words):
    with pytest.raises(ParameterError, match=words):
        TextVectorizer(**settings).fit(["ok ok", "fine"])
    with pytest.raises(ParameterError, match=words):
        TextVectorizer(**settings).check_params()


def test_a_catastrophic_pattern_is_refused_at_once():
    start = time.perf_counter()
    with pytest.raises(ParameterError):
        TextVectorizer(token_pattern=r"(?:a+)+b").fit(["a" * 40 + "!"])
    assert time.perf_counter() - start < 1


def test_one_capturing_group_is_the_token_as_in_scikit_learn():
    settings = {"token_pattern": r"(?u)\b(\w)\w+\b"}
    ours, theirs = TextVectorizer(**settings), CountVectorizer(**settings)
    texts = TEXTS[:200]
    assert_same_matrix(ours, ours.fit_transform(texts), theirs, theirs.fit_transform(texts))


def test_repeated_vocabulary_terms_are_named():
    with pytest.raises(ParameterError, match="repeated terms: 'win' appears 2 times"):
        TextVectorizer(vocabulary=["free", "win", "cash", "win"]).fit(["ok"])


def test_hashed_output_names_its_columns():
    vec = TextVectorizer(output="hashed", n_features=16).fit(["free money"])
    names = vec.get_feature_names_out()
    assert names.tolist() == [f"hash_{j}" for j in range(16)]
    X = vec.transform(["free money free"])
    by_column = vec.column_terms("free money free")
    assert sorted(by_column) == X.indices.tolist()
    assert sorted(t for terms in by_column.values() for t in terms) == ["free", "money"]


def test_pandas_output_setting_leaves_the_sparse_matrix_alone():
    import sklearn

    with sklearn.config_context(transform_output="pandas"):
        X = TextVectorizer().fit_transform(TEXTS[:50])
        assert sp.issparse(X)
        assert sp.issparse(TextVectorizer(output="tfidf").fit(TEXTS[:50]).transform(TEXTS[:5]))


def test_bad_arguments():
    with pytest.raises(InputTypeError, match="single str"):
        TextVectorizer().fit("just one string")
    with pytest.raises(InputTypeError, match=r"iterable of documents .*got int"):
        TextVectorizer().fit(5)
    with pytest.raises(InputTypeError, match="got NoneType"):
        TextVectorizer().fit(None)
    with pytest.raises(InputTypeError, match="documents must be str or bytes, got int"):
        TextVectorizer().fit(["ok", 3])
    with pytest.raises(ParameterError, match="output='words'"):
        TextVectorizer(output="words").fit(["ok"])
    with pytest.raises(ParameterError, match="ngram_range"):
        TextVectorizer(ngram_range=(2, 1)).fit(["ok"])
    with pytest.raises(ParameterError, match="not a regex"):
        TextVectorizer(token_pattern="(").fit(["ok"])
    with pytest.raises(NotFittedError):
        TextVectorizer().transform(["ok"])


def test_a_setting_changed_after_a_transform_is_checked_again():
    """Transforms check the settings once while they stay the same; any change (a new
    value, set_params, a list changed in place) is checked at the next transform."""
    vec = TextVectorizer(stop_words=["the"]).fit(["the cat sat", "a dog ran"])
    vec.transform(["the cat"])
    vec.norm = "l3"
    with pytest.raises(ParameterError, match="norm"):
        vec.transform(["the cat"])
    vec.set_params(norm=None)
    vec.transform(["the cat"])
    vec.stop_words.append(42)  # not a word: refused although the list is the same object
    with pytest.raises(ParameterError, match="stop_words"):
        vec.transform(["the cat"])
