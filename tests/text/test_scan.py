"""The compiled scanner gives exactly the Python path's terms and counts: words, word n-grams
with stop words, character n-grams; new terms, a fixed vocabulary and hashed columns; on any
number of threads."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from bayeskit._jit import njit
from bayeskit.datasets import load_sms_spam
from bayeskit.datasets.shared import load_20newsgroups
from bayeskit.text import TextVectorizer, _encode, _rows, _scan, _tables, vectorize
from bayeskit.text._scan import count_hashed, count_known, count_terms, unicode_classes
from bayeskit.text._scan_entries import SEED as _SEED
from bayeskit.text._scan_entries import finish_hash as _final
from bayeskit.text._scan_entries import latin1_runs as _latin1_runs
from bayeskit.text._scan_entries import push_byte as _push
from bayeskit.text.analyze import ADDRESS_TOKEN_PATTERN
from bayeskit.text.vocabulary import VocabularyStats

SMS, _ = load_sms_spam()

#: Vectorizer settings of every kind of analysis the scanner compiles.
ANALYSES = [
    {},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 3)},
    {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"},
    {"ngram_range": (1, 2), "stop_words": ["ab", "the", "to", "σς", "x_1"]},
    {"ngram_range": (1, 2), "token_pattern": ADDRESS_TOKEN_PATTERN, "stop_words": ["a.b"]},
    {"analyzer": "char", "ngram_range": (1, 3)},
    {"analyzer": "char", "ngram_range": (3, 5)},
    {"analyzer": "char_wb", "ngram_range": (2, 4)},
    {"analyzer": "char_wb", "ngram_range": (1, 1)},
    {"analyzer": "char_wb", "ngram_range": (4, 6)},
]


def analysis_of(settings, lowercase=True):
    vec = TextVectorizer(lowercase=lowercase, **settings)
    vec._check_params()
    return vec._analysis()


def count_words(texts, lowercase=True, threads=None, settings=None):
    return count_terms(texts, analysis_of(settings or {}, lowercase), threads=threads)


def python_count(texts, lowercase=True, settings=None):
    return TextVectorizer(lowercase=lowercase, **(settings or {}))._count_python(texts)


def assert_same(fast, slow):
    """Equal terms (object arrays of str) and equal CSR: arrays, dtypes, shape, flags."""
    (terms, counts), (want_terms, want) = fast, slow
    assert terms.dtype == want_terms.dtype == object
    assert terms.shape == want_terms.shape
    assert terms.tolist() == want_terms.tolist()
    assert all(type(t) is str for t in terms.tolist())
    assert isinstance(counts, sp.csr_matrix)
    assert counts.shape == want.shape
    for name in ("indptr", "indices", "data"):
        got, expected = getattr(counts, name), getattr(want, name)
        assert got.dtype == expected.dtype, name
        np.testing.assert_array_equal(got, expected, err_msg=name)
    assert counts.has_canonical_format
    assert want.has_canonical_format
    # The flag is not just set: within each row the indices really increase.
    row_start = np.zeros(counts.nnz, bool)
    row_start[counts.indptr[:-1][counts.indptr[:-1] < counts.nnz]] = True
    assert np.all(np.diff(counts.indices)[~row_start[1:]] > 0)


# --- real corpora -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def newsgroups(shared_data):
    try:
        train, _ = load_20newsgroups("train", shared_data)
    except FileNotFoundError as exc:
        pytest.skip(f"20 Newsgroups not in the shared data folder: {exc}")
    return train, python_count(train)


def test_20newsgroups_train_equals_the_python_path(newsgroups):
    train, slow = newsgroups
    assert len(train) == 11_314
    one, two = count_words(train, threads=1), count_words(train, threads=2)
    assert_same(two, slow)
    assert_same(one, slow)  # the thread count does not change the result
    assert_same(count_words(train, threads=3), slow)


@pytest.mark.parametrize(
    "settings",
    [
        {"ngram_range": (1, 2)},
        {"ngram_range": (1, 2), "token_pattern": ADDRESS_TOKEN_PATTERN},
        # 2,500 posts in character n-grams: ~35 s; the char_wb grid above runs by default
        pytest.param(
            {"analyzer": "char_wb", "ngram_range": (2, 4)}, marks=pytest.mark.slow, id="char_wb"
        ),
    ],
    ids=str,
)
def test_20newsgroups_ngrams_equal_count_vectorizer(newsgroups, settings):
    train, _ = newsgroups
    texts = train[:2500]
    ours, theirs = TextVectorizer(**settings), CountVectorizer(**settings)
    X, Y = ours.fit_transform(texts), theirs.fit_transform(texts)
    assert ours.get_feature_names_out().tolist() == theirs.get_feature_names_out().tolist()
    Y.sort_indices()
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(X, name), getattr(Y, name), err_msg=name)
    # One thread or two, bit for bit.
    analysis = ours._analysis()
    assert_same(count_terms(texts, analysis, threads=1), count_terms(texts, analysis, threads=2))


def test_20newsgroups_equals_count_vectorizer(newsgroups):
    train, _ = newsgroups
    ours, theirs = TextVectorizer(), CountVectorizer()
    X, Y = ours.fit_transform(train), theirs.fit_transform(train)
    assert ours.get_feature_names_out().tolist() == theirs.get_feature_names_out().tolist()
    Y.sort_indices()
    np.testing.assert_array_equal(X.indptr, Y.indptr)
    np.testing.assert_array_equal(X.indices, Y.indices)
    np.testing.assert_array_equal(X.data, Y.data)


@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
def test_sms_collection_equals_the_python_path(lowercase, threads):
    fast = count_words(SMS, lowercase=lowercase, threads=threads)
    assert_same(fast, python_count(SMS, lowercase))


@pytest.mark.parametrize("settings", ANALYSES[1:], ids=str)
@pytest.mark.parametrize("threads", [1, 3])
def test_sms_collection_ngrams_equal_the_python_path(settings, threads):
    texts = SMS[:1500]
    fast = count_words(texts, threads=threads, settings=settings)
    assert_same(fast, python_count(texts, settings=settings))


# --- tricky text ----------------------------------------------------------------------------

TRICKY = [
    *"aZ09_ ",  # ASCII word characters and a space
    *"ΣσςΑαΩ",  # Greek, final sigma: str.lower() depends on the letters around Σ
    *"İıIiKkẞßﬁǅǄ",  # U+0130 lowercases to two characters; Kelvin sign; ligature; titlecase
    *"ЖжЯя",  # Cyrillic
    *"東京語한국",  # CJK and Hangul (Lo)
    *"عربي",  # Arabic letters
    *"हिन्दी",  # Devanagari: vowel signs (Mc) and virama (Mn) are not \w in Python's re
    *"\u0301\u0308\u20dd",  # combining marks (Mn, Me): not word characters
    *"٣٤۵०๓①²½Ⅻ¹",  # digits and numbers of other scripts (Nd, No, Nl): word characters
    *"ªºµÿŸÀÞ×÷",  # latin-1 letters (Ÿ lowercases into latin-1 from beyond it), signs
    *"\u200d\u200c‿⁀",  # ZWJ, ZWNJ, connector punctuation other than "_"
    *"𝐀𝐳𐐀𐐨𝟘𝟡😀🏽",  # astral: math letters, Deseret (cased), math digits, emoji
    *"\x00\x01\x1f\x7f\x85\x9f",  # NUL and control characters
    *"\t\n\r\x0b\x0c\xa0\u2028\u3000",  # whitespace
    *".,-'!?@",
    *["a.b", "-x-", "@@", "joe@ex.com.", ".a.", "a..b", "é-ü"],
]
WORDS = ["ab", "ΣΑΣ", "İİ", "x_1", "σς", "naïve", "東京", "٣٤", "𝐀𝐁", "a\u0301b", "ßẞ"]

tricky_text = st.lists(
    st.sampled_from(TRICKY) | st.sampled_from(WORDS) | st.characters(exclude_categories=["Cs"]),
    max_size=30,
).map("".join)
latin1_text = st.text(st.characters(max_codepoint=0xFF), max_size=30)
documents = st.lists(tricky_text | latin1_text, max_size=8)


@settings(max_examples=200)  # each example takes about a millisecond
@given(documents, st.booleans(), st.sampled_from([1, 2]), st.sampled_from(ANALYSES))
@example(["", " ", "\t\n", "a", "a b c"], True, 1, {})  # no tokens at all
@example([], True, 2, {})
@example(["\x00", "ab\x00cd", "x" * 300], False, 2, {})
@example(["ΟΔΥΣΣΕΥΣ ΣΑΣ Σ ΑΣ.", "İSTANBUL İ İİ", "ǅungla ǈ ǋ Ǆ"], True, 1, {})
@example(["café cafe\u0301 na\u0303o", "a\u200db ‿x x‿y _a a_ __"], True, 2, {})
@example(["\x00\x00 a\x00", "a  \t b\x85\xa0c \u3000\u2028d", "  "], True, 2, ANALYSES[6])
@example(["ab ab ab", "the ab to x_1 σς ab"], True, 2, ANALYSES[4])
@example(["a", " ab ", "abcdef ghi", "\U0001d400\U0001d401"], False, 1, ANALYSES[10])
def test_tricky_text_equals_the_python_path(texts, lowercase, threads, analysis):
    fast = count_words(texts, lowercase=lowercase, threads=threads, settings=analysis)
    assert_same(fast, python_count(texts, lowercase, analysis))


@settings(max_examples=100)
@given(st.lists(latin1_text, min_size=1, max_size=8), st.booleans(), st.sampled_from(ANALYSES))
def test_latin1_text_equals_the_python_path(texts, lowercase, analysis):
    fast = count_words(texts, lowercase=lowercase, settings=analysis)
    assert_same(fast, python_count(texts, lowercase, analysis))


@pytest.mark.parametrize("settings", ANALYSES, ids=str)
def test_lone_surrogates_are_characters_but_not_word_characters(settings):
    texts = ["ab\udc80cd \ud800\udc00 x\udfffy", "ab cd", "\ud83d\ude00 smile"]
    assert_same(count_words(texts, settings=settings), python_count(texts, settings=settings))


def test_long_shared_prefixes_sort_like_python():
    # Terms tied on their first 8 or 16 bytes are ordered by the following bytes, and a term
    # that is a prefix of another (ending exactly at a block boundary) comes first.
    texts = [
        " ".join("a" * k for k in range(2, 60)),
        " ".join("abcdefgh" * 3 + x for x in ("", "a", "b", "ab", "ba", "é", "_", "zz")),
        " ".join(f"abcdefghijklmnop{i}" for i in range(300)),
        " ".join(f"ŝabcdefgh{i}" for i in range(40)),
    ]
    assert_same(count_words(texts), python_count(texts))
    assert_same(count_words(texts[:3]), python_count(texts[:3]))  # latin-1 only


@pytest.mark.parametrize("settings", ANALYSES[1:4], ids=str)
def test_ngrams_too_many_for_rank_keys_are_sorted_by_their_bytes(monkeypatch, settings):
    # Word n-grams are ordered by keys made of their tokens' ranks, unless the vocabulary is
    # too large for the keys (over 2**21 tokens with trigrams): then by their bytes.
    monkeypatch.setattr(_tables, "RANK_KEY_BITS", 1)
    texts = SMS[:800]
    assert_same(
        count_words(texts, threads=2, settings=settings), python_count(texts, settings=settings)
    )


@pytest.mark.parametrize("settings", [{}, {"ngram_range": (1, 3)}, ANALYSES[7]], ids=str)
def test_arrays_grow_when_the_first_guess_is_small(settings):
    # 120,000 distinct words in 60 documents: the tables, the arena and the entries all
    # outgrow the sizes guessed from the amount of text.
    texts = [" ".join(f"w{d}x{i}" for i in range(2000)) for d in range(60)]
    texts[7] = "w1x1 " * 5000 + texts[7]
    want = python_count(texts, settings=settings)
    for threads in (2, 1):
        terms, counts = count_words(texts, threads=threads, settings=settings)
        assert_same((terms, counts), want)
        # Each row is tallied once it is whole: a document scanned again after the arrays
        # grew is not counted twice in the column totals.
        df, tf = _scan.take_column_totals(counts)
        np.testing.assert_array_equal(df, np.bincount(counts.indices, minlength=len(terms)))
        np.testing.assert_array_equal(tf, np.asarray(counts.sum(axis=0)).ravel())


def test_class_tables_are_what_re_calls_word_and_space_characters():
    everything = "".join(map(chr, range(0x110000)))
    table = np.zeros(0x110000, np.uint8)
    table[[m.start() for m in re.finditer(r"(?u)\w", everything)]] |= 1 | 4  # a token char too
    table[[m.start() for m in re.finditer(r"(?u)\s", everything)]] |= 2
    np.testing.assert_array_equal(unicode_classes(), table)


def test_threads_must_be_a_positive_int():
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            count_words(["ab"], threads=bad)


@pytest.mark.parametrize("settings", ANALYSES, ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_hashed_columns_equal_the_python_path(settings, threads):
    texts = [*SMS[:400], "", "\x00 ab\x00", "ΣΑΣ über straße ab ab"]
    vec = TextVectorizer(output="hashed", n_features=97, **settings)
    vec._check_params()
    fast = count_hashed(texts, vec._analysis(), 97, threads=threads)
    analysis = vec._analysis
    try:
        vec._analysis = lambda: None  # the same vectorizer, its Python path
        want = vec._hashed(texts)
    finally:
        vec._analysis = analysis
    assert_same_matrix(fast, want)


# --- routing in TextVectorizer ---------------------------------------------------------------


@pytest.fixture
def calls(monkeypatch):
    """Every call of the compiled scanner from TextVectorizer, whatever the input size."""
    seen: list[int] = []

    def spy(texts, analysis, **kwargs):
        seen.append(len(texts))
        return count_terms(texts, analysis, **kwargs)

    monkeypatch.setattr(vectorize, "count_terms", spy)
    monkeypatch.setattr(vectorize, "FAST_MIN_CHARS", 0)
    return seen


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"lowercase": False},
        {"stop_words": "english"},
        {"stop_words": ["ok", "call", "u", "ur", "zzzz"]},  # whole rows disappear, too
        {"output": "tfidf", "min_df": 2},
        *ANALYSES[1:],
    ],
    ids=str,
)
def test_compiled_analyzers_count_with_the_scanner(calls, settings):
    texts = [*SMS[:300], "ok u ur", "", "call ok"]
    vec = TextVectorizer(**settings)
    assert_same(vec._count(texts), vec._count_python(texts))
    assert calls == [len(texts)]


@pytest.mark.parametrize(
    "settings",
    [
        {"ngram_range": (1, 4)},
        {"token_pattern": r"(?u)\b\w[\w.@]*\w\b"},
        {"token_pattern": r"(?u)\b\w\w\w+\b"},
        {"analyzer": str.split},
        {"analyzer": "email"},
    ],
    ids=str,
)
def test_other_settings_keep_the_python_path(calls, settings):
    TextVectorizer(**settings).fit(SMS[:50])
    assert calls == []


def test_bytes_are_decoded_then_scanned(calls):
    docs = [b"caf\xe9 ol\xe9", "café Σας".encode(), b"\xff\xfe\x00garbage", None, "plain"]
    vec = TextVectorizer()
    assert_same(vec._count(docs), vec._count_python(vec._documents(docs)))
    assert calls == [len(docs)]


def test_small_inputs_stay_in_python(monkeypatch):
    seen: list[int] = []
    monkeypatch.setattr(vectorize, "count_terms", lambda texts, *a, **kw: seen.append(1))
    TextVectorizer().fit(["free money", "lunch at noon"])
    assert seen == []


# --- columns of a fitted vocabulary -----------------------------------------------------------


def reindex_by_search(vec, terms, counts):
    """``TextVectorizer._reindex`` as it was before its fast paths (a binary search of the
    terms, then a rebuild from COO), then ``_weigh`` for counts: the reference."""
    vocab = vec.terms_
    pos = np.searchsorted(vocab, terms) if len(vocab) else np.zeros(len(terms), np.int64)
    pos_c = np.minimum(pos, len(vocab) - 1)
    known = vocab[pos_c] == terms if len(terms) else np.zeros(0, bool)
    n_cols = len(vocab) + (vec.oov_token is not None)
    target = np.where(known, pos_c, len(vocab) if vec.oov_token is not None else -1)
    cols = target[counts.indices] if len(target) else counts.indices
    keep = cols >= 0
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    out = sp.csr_matrix(
        (counts.data[keep], (rows[keep], cols[keep])), shape=(counts.shape[0], n_cols)
    )
    out.sum_duplicates()
    return out.astype(np.float64)


def assert_same_matrix(got, want):
    assert isinstance(got, sp.csr_matrix)
    assert got.shape == want.shape
    for name in ("indptr", "indices", "data"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert got.has_sorted_indices
    got.has_canonical_format = False  # recheck: sorted, and no column twice in a row
    got.sum_duplicates()
    assert got.nnz == want.nnz


def without_columns(terms, counts, drop):
    keep = np.array([t not in drop for t in terms.tolist()], dtype=bool)
    return terms[keep], counts[:, np.flatnonzero(keep)].tocsr()


def selected(terms, counts, **rules):
    """The vocabulary the Python path's counts give under the selection rules."""
    df = np.diff(counts.tocsc().indptr).astype(np.int64)
    tf = np.asarray(counts.sum(axis=0)).ravel().astype(np.int64)
    return VocabularyStats(terms, df, tf, counts.shape[0]).select(**rules).tolist()


@pytest.fixture(scope="module")
def newsgroups_test(shared_data):
    try:
        test, _ = load_20newsgroups("test", shared_data)
    except FileNotFoundError as exc:
        pytest.skip(f"20 Newsgroups not in the shared data folder: {exc}")
    return test, python_count(test)


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"min_df": 2},
        {"max_features": 5000},
        {"oov_token": "<oov>"},
        {"min_df": 2, "oov_token": "<oov>"},
        {"stop_words": "english"},
        {"stop_words": "english", "max_features": 5000, "oov_token": "<oov>"},
    ],
    ids=str,
)
def test_20newsgroups_train_to_test_equals_the_python_path(newsgroups, newsgroups_test, settings):
    (train, (terms, counts)), (test, (test_terms, test_counts)) = newsgroups, newsgroups_test
    if "stop_words" in settings:
        drop = vectorize.stop_word_set(settings["stop_words"])
        terms, counts = without_columns(terms, counts, drop)
        test_terms, test_counts = without_columns(test_terms, test_counts, drop)
    vec = TextVectorizer(**settings)
    X = vec.fit_transform(train)
    rules = {k: v for k, v in settings.items() if k in ("min_df", "max_features")}
    assert vec.terms_.tolist() == selected(terms, counts, **rules)
    assert_same_matrix(X, reindex_by_search(vec, terms, counts))
    assert_same_matrix(vec.transform(test), reindex_by_search(vec, test_terms, test_counts))
    # The slow route to the same columns, from the scanner's terms.
    assert_same_matrix(
        vec._reindex(*vec._count(test)), reindex_by_search(vec, test_terms, test_counts)
    )


@pytest.mark.parametrize("settings", [{}, {"min_df": 2, "oov_token": "<oov>"}], ids=str)
def test_20newsgroups_without_lowercasing_equals_the_python_path(newsgroups, settings):
    train, _ = newsgroups
    fit, new = train[:2500], train[2500:4500]
    vec = TextVectorizer(lowercase=False, **settings)
    X = vec.fit_transform(fit)
    assert_same_matrix(X, reindex_by_search(vec, *vec._count_python(fit)))
    assert_same_matrix(vec.transform(new), reindex_by_search(vec, *vec._count_python(new)))


VOCABULARY = [*WORDS, "ab", "σας", "ii", "i̇i̇", "naïve", "zz", "a\x00b", "", "x", "ÿ", "東京語"]
# Word n-grams, some that no scan can produce (empty tokens, four tokens), character n-grams.
VOCABULARY += ["ab zz", "zz ab", "ab  zz", " ab", "ab ", "ab zz x_1", "ab zz x_1 cd", " a", "b "]
vocabularies = st.lists(st.sampled_from(VOCABULARY) | tricky_text, min_size=1, max_size=12)


@settings(max_examples=100)
@given(
    documents,
    vocabularies,
    st.booleans(),
    st.sampled_from([None, "<oov>"]),
    st.sampled_from([None, ["ab", "σας", "zz", "東京"]]),
    st.sampled_from([1, 2]),
    st.sampled_from(ANALYSES),
)
@example(["ab ab zz cd", "", "zz x_1 ab"], ["ab", "zz"], True, "<oov>", None, 2, {})
@example(["ab zz x_1 cd ab zz"], ["ab zz", "ab zz x_1"], True, "<oov>", ["cd"], 1, ANALYSES[2])
def test_lookup_and_reindex_equal_the_python_path(
    texts, vocabulary, lowercase, oov_token, stop_words, threads, analysis
):
    vec = TextVectorizer(
        vocabulary=list(dict.fromkeys(vocabulary)),
        lowercase=lowercase,
        oov_token=oov_token,
        **{"stop_words": stop_words, **analysis},
    ).fit_stats(VocabularyStats.zero())
    want = reindex_by_search(vec, *vec._count_python(texts))
    n_vocab = len(vec.terms_)
    oov = -1 if oov_token is None else n_vocab
    known = count_known(
        texts, vec._analysis(), vec._lookup, n_vocab + (oov >= 0), oov, threads=threads
    )
    assert_same_matrix(known, want)
    assert_same_matrix(vec._reindex(*vec._count_python(texts)), want)


@pytest.mark.parametrize(
    "settings",
    [
        {"ngram_range": (1, 2), "min_df": 2, "oov_token": "<oov>"},
        {"ngram_range": (2, 3), "max_features": 20_000, "stop_words": "english"},
        pytest.param(
            {"analyzer": "char_wb", "ngram_range": (2, 4), "min_df": 3, "oov_token": "<oov>"},
            marks=pytest.mark.slow,  # ~35 s
            id="char_wb",
        ),
    ],
    ids=str,
)
def test_20newsgroups_ngrams_train_to_test_equal_the_python_path(newsgroups, settings):
    train, _ = newsgroups
    fit, new = train[:2000], train[2000:3000]
    vec = TextVectorizer(**settings)
    X = vec.fit_transform(fit)
    assert_same_matrix(X, reindex_by_search(vec, *vec._count_python(fit)))
    assert_same_matrix(vec.transform(new), reindex_by_search(vec, *vec._count_python(new)))


def test_lookup_arrays_grow_when_the_first_guess_is_small():
    # Nearly every token is a distinct vocabulary term: more entries than the first guess.
    texts = [" ".join(f"w{d}x{i}" for i in range(2000)) for d in range(30)]
    vocabulary = [f"w{d}x{i}" for d in range(0, 30, 2) for i in range(2000)]
    for threads in (1, 2):
        vec = TextVectorizer(vocabulary=vocabulary, oov_token="<oov>").fit_stats(
            VocabularyStats.zero()
        )
        known = count_known(
            texts,
            vec._analysis(),
            vec._lookup,
            len(vocabulary) + 1,
            len(vocabulary),
            threads=threads,
        )
        assert_same_matrix(known, reindex_by_search(vec, *vec._count_python(texts)))


def test_transform_looks_tokens_up_in_a_table_built_once(monkeypatch):
    seen: list[int] = []

    def spy(texts, *args, **kwargs):
        seen.append(len(texts))
        return count_known(texts, *args, **kwargs)

    monkeypatch.setattr(vectorize, "count_known", spy)
    monkeypatch.setattr(vectorize, "FAST_MIN_CHARS", 0)
    vec = TextVectorizer(min_df=2, oov_token="<oov>")
    vec.fit_transform(SMS[:500])
    assert seen == []  # fitting counts the terms themselves
    X = vec.transform(SMS[500:900])
    assert seen == [400]
    table = vec._lookup(False)
    assert vec._lookup(False) is table
    assert_same_matrix(X, reindex_by_search(vec, *vec._count_python(SMS[500:900])))
    # Not saved with the vectorizer, and rebuilt for a new vocabulary.
    state = vec.__getstate__()
    assert "_lookup_cache" not in state
    assert "_columns_cache" not in state
    copy = TextVectorizer(min_df=2, oov_token="<oov>")
    copy.__setstate__(state)
    assert_same_matrix(copy.transform(SMS[500:900]), X)
    vec.partial_fit(SMS[900:1500])
    Y = vec.transform(SMS[500:900])
    assert vec._lookup(False) is not table
    assert_same_matrix(Y, reindex_by_search(vec, *vec._count_python(SMS[500:900])))
    vec.set_params(stop_words=["call", "ok"])
    Z = vec.transform(SMS[500:900])
    assert_same_matrix(Z, reindex_by_search(vec, *vec._count_python(SMS[500:900])))


@pytest.mark.parametrize("settings", ANALYSES, ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_transform_reuses_the_table_that_counted_the_vocabulary(monkeypatch, settings, threads):
    # A vocabulary chosen among counted terms is looked up in the table that counted them
    # (no term spelled and hashed again): the same matrix as a table built from the terms.
    from bayeskit.text import _scan

    monkeypatch.setattr(_scan, "PARALLEL_MIN_BYTES", 0 if threads == 2 else 1 << 40)
    fit, new = SMS[:3000], SMS[3000:]  # the new messages include text beyond latin-1
    vec = TextVectorizer(min_df=2, oov_token="<oov>", **settings)
    vec.fit_transform(fit)
    built = TextVectorizer(vocabulary=vec.terms_.tolist(), oov_token="<oov>", **settings)
    built.fit_stats(vec.stats_)
    for texts in (new, [t for t in new if t.isascii()]):
        X = vec.transform(texts)
        assert_same_matrix(X, built.transform(texts))
        assert_same_matrix(X, reindex_by_search(vec, *vec._count_python(texts)))
    utf8 = max(map(ord, "".join(fit))) > 0xFF  # the encoding the scanner counted in
    assert vec._lookup(utf8).entries is _scan._COUNTED.get(vec.stats_.terms).entries


@pytest.mark.parametrize("threads", [1, 2])
def test_row_arrays_grow_when_the_first_guess_is_small(monkeypatch, threads):
    # One-character tokens, nearly every 1-3-gram distinct: more row entries per byte of
    # text than the guess (a trigram per two bytes), so the row arrays must grow.
    from bayeskit.text import _scan

    grown: list[np.dtype] = []
    real = _scan._grown

    def spy(a, size):
        grown.append(a.dtype)
        return real(a, size)

    monkeypatch.setattr(_scan, "_grown", spy)
    rng = np.random.default_rng(0)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789"))
    texts = [" ".join(rng.choice(letters, 3000)) for _ in range(40)]
    settings = {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"}
    assert_same(
        count_words(texts, threads=threads, settings=settings),
        python_count(texts, settings=settings),
    )
    assert np.dtype(np.int32) in grown  # the rows' indices and counts


@given(
    st.lists(st.integers(0, 2**40 - 1), unique=True, max_size=60),
    st.sampled_from([40, 62]),
    st.integers(0, 2**30),
)
@example(keys=[2**40 - 1, 0, 7], key_bits=40, top=2**30)  # 40 + 31 bits: not packed
@example(keys=[2**40 - 1, 0, 7], key_bits=40, top=2**22)  # 40 + 23 bits: packed
def test_distinct_keys_sort_their_values_packed_or_not(keys, key_bits, top):
    # key_bits 40: each value fits beside its key (one np.sort); 62: it does not (argsort).
    keys = np.asarray(keys, np.int64)
    values = (np.arange(keys.size, dtype=np.int64) * 7919 + top) % (top + 1)
    got_values, got_keys = _tables._sort_distinct(keys, key_bits, values)
    order = np.argsort(keys)
    np.testing.assert_array_equal(got_keys, keys[order])
    np.testing.assert_array_equal(got_values, values[order])


@pytest.mark.parametrize("big", [False, True])
def test_column_totals_exact_in_32_bits_and_beyond(big):
    # Sums below 2**31 are tallied in int32 pairs, larger ones in int64: the same totals.
    from bayeskit.text import _row_kernels

    rng = np.random.default_rng(3)
    indices = rng.integers(0, 50, 5000).astype(np.int32)
    data = rng.integers(1, 9, 5000).astype(np.float64)
    if big:
        data[::7] = 2.0**30  # each of those columns sums past 2**31
    entries, totals = _row_kernels.column_totals(indices, data, 60)
    assert entries.dtype == totals.dtype == np.int64
    np.testing.assert_array_equal(entries, np.bincount(indices, minlength=60))
    want = np.zeros(60, np.int64)
    np.add.at(want, indices, data.astype(np.int64))
    np.testing.assert_array_equal(totals, want)
    assert bool(totals.max() >= 2**31) == big


def test_one_chunk_outgrowing_its_room_among_others_that_fit(monkeypatch):
    # Dense one-character n-grams in the last documents only: that chunk's rows leave the
    # shared buffer, the others' stay in it, and the matrix and the column totals are
    # still those of the Python path (the rows then written a chunk at a time).
    assembled: list[int] = []
    real = _rows._assemble

    def spy(scanned, *args, **kwargs):
        assembled.append(sum(rows.at < 0 for rows in scanned))
        return real(scanned, *args, **kwargs)

    monkeypatch.setattr(_rows, "_assemble", spy)
    monkeypatch.setattr(_scan, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(1)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789"))
    plain = [f"extraordinarily unremarkable documentation number{i}" for i in range(2000)]
    dense = [" ".join(rng.choice(letters, 3000)) for _ in range(4)]
    texts = plain + dense
    settings = {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"}
    terms, counts = count_terms(texts, TextVectorizer(**settings)._analysis(), threads=2)
    assert_same((terms, counts), python_count(texts, settings=settings))
    assert len(assembled) == 1
    assert 0 < assembled[0] < 2 * _scan.CHUNKS_PER_THREAD  # some chunks grew, not all
    entries, total = _scan.take_column_totals(counts)
    assert np.array_equal(entries, np.diff(counts.tocsc().indptr))
    assert np.array_equal(total, np.asarray(counts.sum(axis=0)).ravel().astype(np.int64))


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("name_cost", [0, _rows.NAME_COST, 1e12])
def test_column_totals_come_with_the_rows_written_in_one_call_a_thread(
    monkeypatch, name_cost, lazy
):
    # The rows are rewritten by one kernel call in the background and one on this thread
    # after it made the names, the rows cut between them by their cost (a name against an
    # entry, NAME_COST); each call sums the columns of the entries it wrote. With lazy terms
    # no name is made: the rows are cut in half.
    calls: list[np.ndarray] = []
    real = _rows.kernels.sorted_rows_of_chunks

    def spy(indptr, indices, counts, chunks, *args):
        calls.append(chunks.copy())
        return real(indptr, indices, counts, chunks, *args)

    monkeypatch.setattr(_rows.kernels, "sorted_rows_of_chunks", spy)
    monkeypatch.setattr(_rows, "NAME_COST", name_cost)
    # Long words: every chunk's rows fit their room.
    texts = ["Wonderful afternoon, wonderful!", "Lunchtime tomorrow?", "wonderful lunch"] * 18000
    analysis = TextVectorizer()._analysis()
    if lazy:
        made, counts = _scan.count_terms_lazily(texts, analysis, threads=2)
        assert not made.made
        terms = made.array()
    else:
        terms, counts = count_terms(texts, analysis, threads=2)
    n_chunks = 2 * _scan.CHUNKS_PER_THREAD
    if name_cost == 1e12 and not lazy:  # the names cost most: all rows in the background
        assert [len(c) for c in calls] == [n_chunks]
    else:  # half the entries or more in the background, the rest here
        assert len(calls) == 2
        assert n_chunks <= len(calls[0]) + len(calls[1]) <= n_chunks + 1
        assert calls[0][-1, 5] < calls[1][0, 5]  # outputs one after the other
        if lazy or name_cost == 0:  # cut at the row nearest half the entries (rows of 2-3)
            assert abs(int(calls[1][0, 5]) - counts.nnz // 2) <= 3
    assert_same((terms, counts), python_count(texts))
    entries, total = _scan.take_column_totals(counts)
    assert np.array_equal(entries, np.diff(counts.tocsc().indptr))
    assert np.array_equal(total, np.asarray(counts.sum(axis=0)).ravel().astype(np.int64))


def test_rows_cut_anywhere_cover_every_row_once():
    # _split_rows cuts the table of chunks at the row boundary nearest any number of
    # entries: the rows before it and after it are every row once, in order, their output
    # places those of the uncut table.
    rng = np.random.default_rng(3)
    lengths = [rng.integers(0, 5, size=n) for n in (3, 1, 4, 2)]  # entries per row, per chunk
    indptr_parts, chunks, p, o, d = [], [], 0, 0, 0
    for c, rows in enumerate(lengths):
        ptr = np.concatenate([[0], np.cumsum(rows)])
        indptr_parts.append(ptr)
        chunks.append((p, p + ptr.size, 100 * c, 7 * c, d, o))
        p, o, d = p + ptr.size, o + int(ptr[-1]), d + rows.size
    indptr = np.concatenate(indptr_parts)
    table = np.array(chunks, np.int64)

    def rows_of(part):  # (output row, its first output entry, its entries) of each row
        out = []
        for pp, q, e, c, dd, oo in part.tolist():
            ends = indptr[pp:q] - indptr[pp]
            out += [
                (dd + r, oo + int(ends[r]), int(ends[r + 1] - ends[r]), e, c)
                for r in range(q - pp - 1)
            ]
        return out

    want = rows_of(table)
    longest = max(int(rows.max()) for rows in lengths)
    for entries in range(-1, o + 2):
        before, after = _rows._split_rows(table, indptr, entries)
        assert rows_of(before) + rows_of(after) == want
        written = sum(n for _, _, n, _, _ in rows_of(before))  # before the cut
        target = min(max(entries, 0), o)
        assert target <= written < target + max(longest, 1)  # the next row boundary


@pytest.mark.parametrize("block", [2, 3, 5])
@pytest.mark.parametrize("settings", ANALYSES[:6], ids=str)
def test_words_and_ngrams_continue_across_token_blocks(monkeypatch, block, settings):
    # The word scanner hashes a block of tokens before it finds their entries, and finds a
    # document's n-grams a block of tokens at a time, the last token of a block carried into
    # the next: tiny blocks put many tokens and n-grams across their edges, in new terms and
    # in a fixed vocabulary (with out-of-vocabulary n-grams of unknown tokens).
    monkeypatch.setattr(_scan, "GRAM_BLOCK", block)
    monkeypatch.setattr(_scan, "TOKEN_BLOCK", block - 1)
    monkeypatch.setattr(vectorize, "FAST_MIN_CHARS", 0)
    texts = [*SMS[:400], "ab", "ab cd", "ab cd ef", "the to ab the to", "a.b x_1 ab σς zz"]
    assert_same(
        count_words(texts, threads=2, settings=settings), python_count(texts, settings=settings)
    )
    vec = TextVectorizer(min_df=2, oov_token="<oov>", **settings).fit(texts[:200])
    new = texts[200:]
    assert_same_matrix(vec.transform(new), reindex_by_search(vec, *vec._count_python(new)))


@pytest.mark.parametrize("block", [2, 3, 33])
@pytest.mark.parametrize("settings", [{}, ANALYSES[1], ANALYSES[3], ANALYSES[4]], ids=str)
def test_latin1_runs_continue_across_blocks(monkeypatch, block, settings):
    # Latin-1 text is cut into runs without a branch per byte, at most a block of runs at a
    # time, runs too short for the pattern dropped afterwards: runs of one and two letters,
    # long words, upper case of both halves of latin-1, and documents ending inside a run.
    monkeypatch.setattr(_scan, "TOKEN_BLOCK", block - 1)
    words = ["a", "ab", "I", "x1", "Über", "ÉTÉ", "naïve", "ÀÖØÞ×", "Straße", "thé", "ZZ", "_"]
    words += ["abcdefgh", "abcdefghi", "ABCDEFGHIJKLMNOPQ", "0123456789abcdef", "µÿ"]
    rng = np.random.default_rng(0)
    texts = [
        "".join(
            w + rng.choice([" ", ", ", ".\n", "-", "\t", "!?"])
            for w in rng.choice(words, size=int(rng.integers(0, 80)))
        ).rstrip(" ,.\n\t-!?" if k % 2 else "")
        for k in range(300)
    ]
    assert max(map(ord, "".join(texts))) < 256  # latin-1
    for lowercase in (True, False):
        assert_same(
            count_words(texts, lowercase, threads=2, settings=settings),
            python_count(texts, lowercase, settings=settings),
        )


@pytest.mark.parametrize("settings", [{}, ANALYSES[1], ANALYSES[3], ANALYSES[6]], ids=str)
def test_terms_holding_nuls_counted_on_several_threads(settings):
    # The sorted terms' names read from their written-out bytes: the same terms in the same
    # order on 2 and 3 threads, NULs inside character n-grams included.
    texts = [*SMS[:300], "a\x00b c\x00\x00d", "\x00"]
    want = python_count(texts, settings=settings)
    for threads in (2, 3):
        assert_same(count_words(texts, threads=threads, settings=settings), want)


def test_eight_bytes_fold_as_str_lower_does():
    # The hash reads a token eight bytes at a time and lowercases them together: every
    # latin-1 byte, in every one of the eight places, lowercases as str.lower does.
    from bayeskit.text import _scan_entries as kernels

    lower = np.frombuffer(bytes(range(256)).decode("latin-1").lower().encode("latin-1"), np.uint8)
    for place in range(8):
        for byte in range(256):
            word = np.uint64(byte << (8 * place) | 0x4142004344C0D7FF & ~(0xFF << (8 * place)))
            folded = int(kernels._fold8(word))
            want = bytes(lower[b] for b in int(word).to_bytes(8, "big"))
            assert folded.to_bytes(8, "big") == want, (place, byte)


@settings(max_examples=200)
@given(st.binary(max_size=40), st.integers(0, 7), st.booleans())
def test_hash_of_eight_bytes_at_a_time_equals_a_byte_at_a_time(raw, offset, fold):
    # The latin-1 scanner hashes a token from 8-byte reads; the other scanners and every
    # table built from strings push one byte at a time: the hashes and keys must be equal.
    from bayeskit.text import _scan_entries as kernels

    text = np.frombuffer(bytes(offset) + raw + bytes(8), np.uint8)
    lower = _encode._LATIN1_LOWER if fold else _encode._IDENTITY
    want = _pushed(text, offset, len(raw), lower)
    got = kernels.hash_at(text, offset, len(raw), fold)
    assert (int(got[0]), int(got[1])) == (int(want[0]), int(want[1]))


@njit()
def _pushed(text, s, n, lower):
    h, acc, nb, key = _SEED, np.uint64(0), 0, np.uint64(0)
    for k in range(n):
        h, acc, nb, key = _push(h, acc, nb, key, lower[text[s + k]])
    return _final(h, acc, nb, key)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("settings", [{}, ANALYSES[2], ANALYSES[8]], ids=str)
def test_column_totals_come_with_the_counts_once(threads, settings):
    # count_terms sums each column's entries and counts while it makes the names; the
    # vocabulary statistics take them (once), and equal those summed from the matrix.
    terms, counts = count_words(SMS[:2000], threads=threads, settings=settings)
    df, tf = _scan.take_column_totals(counts)
    np.testing.assert_array_equal(df, np.bincount(counts.indices, minlength=len(terms)))
    np.testing.assert_array_equal(tf, np.asarray(counts.sum(axis=0)).ravel().astype(np.int64))
    assert df.dtype == tf.dtype == np.int64
    assert _scan.take_column_totals(counts) is None  # taken
    assert _scan.take_column_totals(counts.copy()) is None  # not a matrix it returned
    _, again = count_words(SMS[:2000], threads=threads, settings=settings)
    stats = vectorize.stats_of(terms, again)
    np.testing.assert_array_equal(stats.doc_freq, df)
    np.testing.assert_array_equal(stats.term_freq, tf)
    assert _scan.take_column_totals(again) is None
    _, dropped = count_words(SMS[:50], threads=threads, settings=settings)
    key = id(dropped)
    del dropped  # a matrix nobody took its totals from leaves nothing behind
    assert key not in _scan._TOTALS


@njit()
def _runs_of(text, end, classes, room):
    """Every run ``_latin1_runs`` finds in ``text[:end]``, called as the word scanner calls
    it: from where the last call said to go on, ``room`` runs at a time at most."""
    bounds = np.empty((2, room + 1), np.int64)
    out = np.empty((2, end + 1), np.int64)
    per_call = np.zeros(end + 1, np.int64)
    n = 0
    calls = 0
    i = 0
    while i < end and calls <= end:
        i, k = _latin1_runs(text, classes, i, end, bounds)
        out[:, n : n + k] = bounds[:, :k]
        n += k
        per_call[calls] = k
        calls += 1
    return out[:, :n], per_call[:calls]


latin1_bytes = st.lists(
    st.sampled_from([b"a", b"Z", b"0", b"_", b" ", b"\xe9", b"\xd7", b"\x00", b"-", b"\xff"])
    | st.sampled_from([b"abcdefgh", b"abcdefghi", b"\xc9t\xe9 ", b"x" * 23, b" " * 9])
    | st.binary(max_size=12),
    max_size=40,
).map(b"".join)


@settings(max_examples=300)
@given(latin1_bytes, st.sampled_from([1, 2, 3, 4, 5, 7, 8, 9, 128]), st.integers(0, 9))
@example(b"a " * 64, 4, 0)  # runs and gaps of one byte: four runs start in each word
@example(b"a b " * 40, 5, 0)
@example(b"x" * 70 + b" y", 8, 3)  # a run over many words, one at a document's end
@example(bytes(range(256)) * 2, 128, 0)  # every byte's class, ASCII by range, the rest by table
# the eight-byte loop uses the room up, then a run starts in the last bytes (read one by one):
# its first byte was read and lost before the call returned
@example(b"aaaa" + bytes(10) + b"\xc9t\xe9 a\x000\x00A\x00abcdefgh", 4, 1)
def test_latin1_runs_are_the_runs_re_finds(raw, room, cut):
    # The word scanner's run finder reads eight bytes at a time, classes ASCII bytes by
    # their ranges and the rest from the class table, and stops when its room for runs is
    # used (a run open then is given back, and found whole by the next call): the same runs
    # as \w+ over the latin-1 text, ending at the document's end, not at the array's.
    end = max(len(raw) - cut, 0)
    text = np.frombuffer(raw + bytes(8), np.uint8)
    got, per_call = _runs_of(text, end, _encode._LATIN1_CLASSES, room)
    want = [m.span() for m in re.finditer(r"\w+", raw[:end].decode("latin-1"))]
    assert list(zip(got[0].tolist(), got[1].tolist(), strict=True)) == want
    assert per_call.max(initial=0) <= room
    assert (per_call[:-1] > 0).all()  # every call but the last finds a run
