"""A review of the text pipeline as a scikit-learn user would use it: a refused fit leaves
the vectorizer as it was, every analyzer reads a bytes document in the vectorizer's
``encoding``, a UTF-16 text with its byte-order mark is read as UTF-16, and settings that
would silently mean something else (a str vocabulary, a str for a True/False setting, a 0-d
array of documents) are refused naming them."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError, InputTypeError, ParameterError
from bayeskit.text import TextClassifier, TextVectorizer

FIRST = ["apple banana", "banana cherry", "cherry apple"]
MORE = ["cherry date", "date apple"]


# ---------------------------------------------------------------- a refused fit changes nothing
@pytest.mark.parametrize(
    "refused",
    [
        ["kiwi lemon", "mango nectarine"],  # min_df=2 prunes every term: DataError
        ["kiwi lemon", 5],  # a document that is not text: InputTypeError
    ],
)
@pytest.mark.parametrize("output", ["counts", "tfidf"])
def test_refused_fit_leaves_the_vectorizer_as_it_was(refused, output):
    vec = TextVectorizer(min_df=2, output=output).fit(FIRST)
    names, row = vec.get_feature_names_out(), vec.transform(["apple cherry"]).toarray()
    with pytest.raises(BayeskitError):
        vec.fit(refused)
    assert vec.stats_.n_docs == len(FIRST)
    np.testing.assert_array_equal(vec.get_feature_names_out(), names)
    np.testing.assert_array_equal(vec.transform(["apple cherry"]).toarray(), row)
    # learning on goes on from the first fit, not from the refused documents
    vec.partial_fit(MORE)
    whole = TextVectorizer(min_df=2, output=output).fit(FIRST + MORE)
    np.testing.assert_array_equal(vec.get_feature_names_out(), whole.get_feature_names_out())
    np.testing.assert_array_equal(vec.transform(FIRST).toarray(), whole.transform(FIRST).toarray())


def test_refused_fit_stats_leaves_the_vectorizer_as_it_was():
    vec = TextVectorizer(min_df=2).fit(FIRST)
    stats = vec.stats_
    empty = TextVectorizer().summarize(["kiwi lemon"])
    with pytest.raises(DataError, match="min_df=2"):
        vec.fit_stats(empty)
    assert vec.stats_ is stats
    assert vec.get_feature_names_out().tolist() == ["apple", "banana", "cherry"]


# ---------------------------------------------------------------- bytes in the given encoding
CYRILLIC = ["привет мир дом", "мир труд май чай"]  # ч is 0xF7 in cp1251: ÷ in latin-1


@pytest.mark.parametrize("analyzer", ["word", "auto", "char_wb"])
def test_build_analyzer_reads_bytes_in_the_encoding(analyzer):
    """scikit-learn's ``build_analyzer()`` decodes a bytes document; ours gave a TypeError
    (word, char) or read it as latin-1 whatever ``encoding`` said (auto)."""
    raw = CYRILLIC[1].encode("cp1251")
    ours = TextVectorizer(analyzer=analyzer, encoding="cp1251").build_analyzer()(raw)
    theirs_analyzer = "word" if analyzer == "auto" else analyzer
    theirs = CountVectorizer(analyzer=theirs_analyzer, encoding="cp1251").build_analyzer()
    assert ours == theirs(raw)


def test_auto_hashed_reads_bytes_in_the_encoding():
    """analyzer="auto" with hashed output counted a text's bytes as latin-1, whatever
    ``encoding`` said: the columns of other words than the text's ("÷àé" for "чай")."""
    raw = [doc.encode("cp1251") for doc in CYRILLIC]
    auto = TextVectorizer(analyzer="auto", output="hashed", n_features=2**16, encoding="cp1251")
    word = TextVectorizer(output="hashed", n_features=2**16)
    expected = word.fit_transform(CYRILLIC).toarray()
    np.testing.assert_array_equal(auto.fit_transform(raw).toarray(), expected)
    columns = auto.column_terms(raw[1])
    assert sorted(t for terms in columns.values() for t in terms) == ["май", "мир", "труд", "чай"]
    assert columns[zlib.crc32("чай".encode()) % 2**16] == ["чай"]


def test_explain_of_hashed_auto_model_names_the_words():
    raw = [doc.encode("cp1251") for doc in CYRILLIC]
    vec = TextVectorizer(analyzer="auto", output="hashed", n_features=2**10, encoding="cp1251")
    model = TextClassifier(vectorizer=vec, model=bk.MultinomialNB()).fit(raw, ["a", "b"])
    assert "привет" in str(model.explain(raw[0]))


def test_utf16_with_byte_order_mark_is_read_as_utf16():
    """A text saved as "Unicode" (UTF-16 with its mark) was read as latin-1: "ÿþc" and
    letters apart, so the document lost every word."""
    docs = ["Café au lait", "naïve café"]
    for codec in ("utf-16", "utf-16-be", "utf-32"):
        raw = [(("\ufeff" + d) if codec.endswith("be") else d).encode(codec) for d in docs]
        vec = TextVectorizer()
        got = vec.fit_transform(raw)
        expected = CountVectorizer().fit(docs)
        assert vec.get_feature_names_out().tolist() == expected.get_feature_names_out().tolist()
        np.testing.assert_array_equal(got.toarray(), expected.transform(docs).toarray())


def test_invalid_bytes_still_fall_back_to_latin1():
    vec = TextVectorizer().fit([b"caf\xe9 ol\xe9", b"\xff\xfe\x00"])  # odd length: no UTF-16
    assert "café" in vec.get_feature_names_out().tolist()


# ---------------------------------------------------------------- settings read another way
@pytest.mark.parametrize("vocabulary", ["free money", b"free money"])
def test_vocabulary_given_as_one_str_is_refused(vocabulary):
    """A str vocabulary was read as its characters: 'free money' gave the columns ' ', 'e',
    'f', 'm', ..., and every word a zero row."""
    with pytest.raises(ParameterError, match=r"single .* characters"):
        TextVectorizer(vocabulary=vocabulary).fit(["free money"])


@pytest.mark.parametrize("vocabulary", [5, [None, "free"], ["free", 1]])
def test_vocabulary_of_other_than_str_is_refused(vocabulary):
    with pytest.raises(ParameterError, match="vocabulary"):
        TextVectorizer(vocabulary=vocabulary).fit(["free money"])


@pytest.mark.parametrize("name", ["lowercase", "sublinear_tf", "use_idf", "smooth_idf"])
@pytest.mark.parametrize("value", ["False", "no", None, 0])
def test_true_false_settings_refuse_other_values(name, value):
    """``lowercase="False"`` (a setting read from a file or a command line) lowercased: any
    non-empty str is true."""
    vec = TextVectorizer(output="tfidf", **{name: value})
    with pytest.raises(ParameterError, match=f"{name} must be True or False"):
        vec.fit(["Free money"])
    assert not hasattr(vec, "stats_")


def test_numpy_bool_settings_are_taken():
    vec = TextVectorizer(lowercase=np.bool_(False)).fit(["Free free"])
    assert vec.get_feature_names_out().tolist() == ["Free", "free"]


def test_zero_dimensional_array_is_refused_as_one_document():
    vec = TextVectorizer().fit(["free money"])
    for call in (vec.transform, TextVectorizer().fit):
        with pytest.raises(InputTypeError, match="0-d array"):
            call(np.array("free money"))


def test_token_store_reads_a_text_in_the_filter_encoding():
    """The spam filter's token store counted a text's bytes as latin-1 under analyzer="auto",
    whatever the vectorizer's ``encoding``: terms the model never saw, so its score was not
    the model's."""
    from bayeskit.text import token_store

    settings = {
        "analyzer": "auto",
        "lowercase": True,
        "token_pattern": r"(?u)\b\w\w+\b",
        "ngram_range": [1, 2],
        "stop_words": [],
        "subject_in_text": False,
        "encoding": "cp1251",
        "binary": False,
    }
    raw = CYRILLIC[1].encode("cp1251")
    found = token_store.count_terms(token_store._analyzer(settings), settings, raw)
    vec = TextVectorizer(analyzer="auto", ngram_range=(1, 2), encoding="cp1251").fit([raw])
    assert found == dict.fromkeys(vec.get_feature_names_out().tolist(), 1.0)


@pytest.mark.parametrize("returned", [None, 5, "free money"])
def test_callable_analyzer_returning_no_list_is_refused(returned):
    """A callable analyzer that returned None or a number gave Python's TypeError from inside
    the vectorizer; one that returned a str was read as its characters."""
    vec = TextVectorizer(analyzer=lambda doc: returned)
    with pytest.raises(ParameterError, match="callable analyzer returns a list"):
        vec.fit(["free money"])
    assert not hasattr(vec, "stats_")


def test_vocabulary_given_as_an_iterator_is_refused():
    """An iterator was read by the first fit; the vocabulary chosen again after a
    partial_fit found it empty ("vocabulary is empty; give at least one term")."""
    with pytest.raises(ParameterError, match="iterator"):
        TextVectorizer(vocabulary=iter(["free", "money"])).fit(["free money"])
    vec = TextVectorizer(vocabulary=("free", "money")).fit(["free money"]).partial_fit(["free"])
    np.testing.assert_array_equal(vec.transform(["free free"]).toarray(), [[2, 0]])


@pytest.mark.parametrize("maker", ["sklearn_defaults", "twcnb"])
def test_a_setting_of_the_words_given_to_a_pipeline_maker_is_named(maker):
    """``TextClassifier.sklearn_defaults(min_df=2)`` passed min_df to the class, and Python
    said only "unexpected keyword argument"; the refusal says where the setting goes."""
    from bayeskit.text import SpamFilter

    with pytest.raises(ParameterError, match=r"TextVectorizer\(stop_words='english'\)"):
        getattr(TextClassifier, maker)(stop_words="english")
    with pytest.raises(ParameterError, match=r"not one of its settings.*spam_cutoff"):
        getattr(SpamFilter, maker)(spam_cuttof=0.9)
    assert getattr(SpamFilter, maker)(spam_cutoff=0.9).spam_cutoff == 0.9


@pytest.mark.parametrize("given", [["free lunch"], ("free lunch",), np.array(["free lunch"])])
def test_explain_given_a_list_asks_for_one_document(given):
    """explain([text]) was answered "pass an iterable of texts, not a single string", the
    opposite of what it takes."""
    model = TextClassifier().fit(["free cash now", "lunch at noon", "cash prize", "notes"],
                                 ["s", "h", "s", "h"])  # fmt: skip
    with pytest.raises(InputTypeError, match=r"explain takes one document .* of 1; call it once"):
        model.explain(given)
    assert model.explain("free lunch").top(1)


@pytest.mark.parametrize(("low", "high"), [(3, 2), (0.9, 0.5)])
def test_min_df_above_max_df_is_named_as_the_contradiction(low, high):
    """min_df above max_df was "the vocabulary is empty after ..." (as if the data were at
    fault); scikit-learn names the contradiction, and so does this refusal."""
    docs = ["aa bb", "aa cc", "bb cc", "aa", "bb dd", "cc dd"]
    vectorizer = TextVectorizer().fit(docs)
    before = vectorizer.get_feature_names_out().tolist()
    with pytest.raises(ParameterError, match=f"max_df={high}.* fewer than min_df={low}"):
        vectorizer.set_params(min_df=low, max_df=high).fit(docs)
    assert vectorizer.set_params(min_df=1, max_df=1.0).get_feature_names_out().tolist() == before


def test_a_callable_analyzer_receives_text_as_scikit_learns_does():
    """A callable analyzer was given bytes documents undecoded (``str.split`` then raised
    Python's TypeError, a lambda using ``.lower()`` split bytes); scikit-learn's vectorizers
    decode first, so the same callable gives the same vocabulary on both sides."""
    docs = ["Café au lait", "caf\xe9 x".encode("latin-1"), "naïve bytes".encode()]
    seen: list[type] = []

    def analyzer(doc):
        seen.append(type(doc))
        return doc.lower().split()

    ours = TextVectorizer(analyzer=analyzer, encoding="latin-1").fit(docs[:2])
    theirs = CountVectorizer(analyzer=analyzer, encoding="latin-1").fit(docs[:2])
    assert set(seen) == {str}
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    utf8 = TextVectorizer(analyzer=str.split).fit(docs[2:])
    assert list(utf8.get_feature_names_out()) == ["bytes", "naïve"]
    assert TextVectorizer(analyzer=str.split).build_analyzer()(b"a b") == ["a", "b"]
