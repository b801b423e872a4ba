"""A vocabulary's terms are made into ``str`` objects when first read, not when fitting: the
same terms and matrices as made at once, made once whichever thread asks, kept through
copies, pickles, sums and selections, and never made by fitting or transforming."""

from __future__ import annotations

import copy
import pickle
import threading
import time

import numpy as np
import pytest
from sklearn.base import clone

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextClassifier, TextVectorizer, _scan, vectorize
from bayeskit.text._scan import count_terms, count_terms_lazily
from bayeskit.text.vocabulary import LazyTerms, VocabularyStats

SMS, _ = load_sms_spam()
#: Messages beyond latin-1 among them: the scanner counts in UTF-8 (and in latin-1 for the
#: ASCII ones alone).
TEXTS = {"utf8": SMS[:3000], "latin1": [t for t in SMS[:3000] if t.isascii()]}


def _eager_like(vec: TextVectorizer, texts: list[str]) -> tuple[np.ndarray, object]:
    """The terms and matrix a vectorizer with the same settings makes at once."""
    analysis = vec._analysis()
    assert analysis is not None
    return count_terms(texts, analysis)


def test_made_once_whichever_thread_asks_first():
    calls = []

    def make():
        calls.append(threading.get_ident())
        time.sleep(0.05)  # the others ask while this one makes them
        return np.array(["a", "b", "c"], dtype=object)

    lazy = LazyTerms(3, make)
    barrier = threading.Barrier(6)
    got: list[np.ndarray] = []

    def ask():
        barrier.wait()
        got.append(lazy.array())

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert all(a is got[0] for a in got)
    assert got[0].tolist() == ["a", "b", "c"]
    assert lazy.made
    assert len(lazy) == 3


def test_a_maker_giving_another_count_is_refused():
    lazy = LazyTerms(2, lambda: np.array(["a"], dtype=object))
    with pytest.raises(AssertionError, match="1 terms made, 2 expected"):
        lazy.array()
    assert not lazy.made


def test_taken_terms_are_made_from_the_whole():
    whole = LazyTerms(4, lambda: np.array(["a", "b", "c", "d"], dtype=object))
    part = whole.take(np.array([1, 3]))
    assert len(part) == 2
    assert not whole.made
    assert part.array().tolist() == ["b", "d"]
    assert whole.made


@pytest.mark.parametrize("encoding", sorted(TEXTS))
@pytest.mark.parametrize("threads", [1, 2])
def test_fitting_and_transforming_make_no_term(monkeypatch, encoding, threads):
    monkeypatch.setattr(_scan, "PARALLEL_MIN_BYTES", 0 if threads == 2 else 1 << 40)
    texts = TEXTS[encoding]
    vec = TextVectorizer()
    X = vec.fit_transform(texts)
    lazy = vec.stats_.given_terms
    assert isinstance(lazy, LazyTerms)
    assert not lazy.made
    assert vec._vocab is lazy  # every term kept: the vocabulary is the counted terms
    terms, counts = _eager_like(vec, texts)
    assert (counts != X).nnz == 0
    assert X.shape == counts.shape
    # Looked up in the table that counted the terms (text in the encoding it counted: for
    # latin-1 terms and text beyond it the table is built from the terms, made then).
    new = [t for t in SMS[3000:4000] if encoding == "utf8" or t.isascii()]
    Y = vec.transform(new)
    assert not lazy.made
    assert vec.get_feature_names_out().tolist() == terms.tolist()
    assert lazy.made
    assert vec.terms_ is lazy.array() is vec.stats_.terms
    assert vec.vocabulary_ == {t: i for i, t in enumerate(terms.tolist())}
    # The same matrix as a vectorizer given the vocabulary, which builds its own table.
    built = TextVectorizer(vocabulary=terms.tolist()).fit_stats(vec.stats_)
    assert (built.transform(new) != Y).nnz == 0


@pytest.mark.parametrize(
    "rules", [{"min_df": 2}, {"max_features": 500}, {"max_df": 0.05, "min_df": 3}], ids=str
)
def test_a_selected_vocabulary_is_made_from_the_counted_terms(rules):
    texts = TEXTS["utf8"]
    vec = TextVectorizer(**rules)
    X = vec.fit_transform(texts)
    assert isinstance(vec._vocab, LazyTerms)
    assert not vec._vocab.made
    assert not vec.stats_.given_terms.made
    terms, counts = _eager_like(vec, texts)
    want = VocabularyStats(terms, vec.stats_.doc_freq, vec.stats_.term_freq, len(texts))
    keep = want.select_index(**rules)
    assert vec.terms_.tolist() == terms[keep].tolist()
    assert (counts[:, keep] != X).nnz == 0
    assert vec.stats_.given_terms.made  # the selection was made from the whole


def test_copies_and_pickles_carry_the_terms_made():
    texts = TEXTS["utf8"]
    vec = TextVectorizer(ngram_range=(1, 2))
    vec.fit_transform(texts)
    terms = _eager_like(vec, texts)[0].tolist()
    for copied in (pickle.loads(pickle.dumps(vec)), copy.deepcopy(vec)):
        assert isinstance(copied._vocab, np.ndarray)
        assert isinstance(copied.stats_.given_terms, np.ndarray)
        assert copied.terms_.tolist() == copied.stats_.terms.tolist() == terms
        assert (copied.transform(SMS[4000:4100]) != vec.transform(SMS[4000:4100])).nnz == 0
    stats = pickle.loads(pickle.dumps(vec.stats_))
    assert stats.terms.tolist() == terms
    assert np.array_equal(stats.doc_freq, vec.stats_.doc_freq)
    assert np.array_equal(stats.term_freq, vec.stats_.term_freq)
    assert stats.n_docs == vec.stats_.n_docs == len(texts)
    assert not hasattr(clone(vec), "terms_")


def test_sums_keep_or_make_the_terms_as_needed():
    vec = TextVectorizer()
    a = vec.summarize(TEXTS["utf8"])
    b = vec.summarize(SMS[3000:4500])
    assert not a.given_terms.made
    assert (a + VocabularyStats.zero()).given_terms is a.given_terms  # nothing to merge
    assert not a.given_terms.made
    total = a + b
    want = TextVectorizer().summarize(TEXTS["utf8"] + SMS[3000:4500])
    assert total.terms.tolist() == want.terms.tolist()
    assert np.array_equal(total.doc_freq, want.doc_freq)
    assert np.array_equal(total.term_freq, want.term_freq)
    assert (total - b).terms.tolist() == a.terms.tolist()


def test_partial_fit_in_batches_is_fit_at_once():
    batches = [SMS[:2000], SMS[2000:4000], SMS[4000:]]
    vec = TextVectorizer(min_df=2)
    for batch in batches:
        vec.partial_fit(batch)
    whole = TextVectorizer(min_df=2).fit(SMS)
    assert vec.terms_.tolist() == whole.terms_.tolist()
    assert (vec.transform(SMS[:500]) != whole.transform(SMS[:500])).nnz == 0


def test_statistics_stay_immutable():
    stats = TextVectorizer().summarize(TEXTS["latin1"])
    for name in ("terms", "given_terms", "doc_freq", "n_docs", "anything"):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(stats, name, None)
    with pytest.raises(AttributeError, match="immutable"):
        del stats.doc_freq
    assert "not made yet" in repr(stats)
    stats.terms  # noqa: B018 (made by reading them)
    assert repr(stats) == f"VocabularyStats({len(stats)} terms, n_docs={len(TEXTS['latin1'])})"


def test_lazily_counted_terms_equal_terms_counted_at_once():
    analysis = TextVectorizer(analyzer="char_wb", ngram_range=(2, 4))._analysis()
    lazy, counts = count_terms_lazily(TEXTS["utf8"], analysis, threads=2)
    terms, want = count_terms(TEXTS["utf8"], analysis, threads=2)
    assert not lazy.made
    assert len(lazy) == len(terms)
    assert lazy.array().tolist() == terms.tolist()
    assert (counts != want).nnz == 0
    empty, none = count_terms_lazily([], analysis)
    assert len(empty) == 0
    assert empty.array().tolist() == []
    assert none.shape == (0, 0)


def test_the_auto_analyzer_leaves_names_of_plain_texts_to_be_made():
    # No e-mail among the texts: they are counted as "word" counts them, names made later;
    # with e-mails, their header tokens (made in Python) are placed among the words without
    # making the words: lazy terms too, the header tokens known.
    texts = TEXTS["utf8"]
    vec = TextVectorizer(analyzer="auto")
    X = vec.fit_transform(texts)
    assert isinstance(vec.stats_.given_terms, LazyTerms)
    assert not vec.stats_.given_terms.made
    words = TextVectorizer().fit(texts)
    assert vec.terms_.tolist() == words.terms_.tolist()
    assert (words.transform(texts) != X).nnz == 0
    mail = "From: a@b.example\nSubject: free lunch\n\nFree money, free!"
    mixed = TextVectorizer(analyzer="auto").fit([mail, *texts])
    lazy = mixed.stats_.given_terms
    assert isinstance(lazy, LazyTerms)
    heads = lazy.known[1].tolist()
    assert "subject:free" in heads
    assert "from:b.example" in heads
    assert lazy.strings_at(lazy.known[0]) == heads
    assert not lazy.made
    assert "subject:free" in mixed.vocabulary_


def _mails(n: int, seed: int) -> tuple[list[str], list[str]]:
    """``n`` e-mails (a header, the SMS texts as bodies, some beyond latin-1) and labels."""
    rng = np.random.default_rng(seed)
    senders = ["a@x.example", "Big Deals <deals@shop.example>", "b@y.example"]
    picked = rng.choice(len(SMS), n, replace=False)
    mails = [
        f"From: {senders[i % 3]}\nTo: c@z.example\nSubject: {SMS[j][:30]}\n\n"
        f"{SMS[j]} see http://www.site{i % 7}.example/x\n"
        for i, j in enumerate(picked.tolist())
    ]
    return mails, [LABELS[j] for j in picked.tolist()]


LABELS = load_sms_spam()[1]


@pytest.mark.parametrize("analyzer", ["auto", "word"])
def test_a_text_model_fits_and_predicts_without_making_terms(monkeypatch, analyzer):
    # The default TextClassifier: terms weighted apart (n-gram and subject weights), the
    # header tokens' columns found among lazy words; texts beyond the table's latin-1 at
    # predict are looked up term by term (binary search among the lazy terms: here for any
    # number of them, where by default a vocabulary 300 times as long as they are is asked).
    monkeypatch.setattr(vectorize, "LAZY_SEARCH_TERMS", 1)
    mails, labels = _mails(2500, 0)
    fit_mails = [m for m in mails if m.isascii()]
    fit_labels = [y for m, y in zip(mails, labels, strict=True) if m.isascii()]
    mail = {"subject_weight": 1.5, "subject_in_text": True} if analyzer == "auto" else {}
    vectorizer = TextVectorizer(
        analyzer=analyzer, ngram_range=(1, 2), ngram_weights=(1.0, 0.7), output="tfidf",
        sublinear_tf=True, use_idf=False, **mail,
    )  # fmt: skip
    model = TextClassifier(vectorizer=vectorizer).fit(fit_mails, fit_labels)
    lazy = model.stats_.blocks[0].keyed.given_terms
    assert isinstance(lazy, LazyTerms)
    test, _ = _mails(600, 1)
    if analyzer == "auto":
        assert any(not _latin1(t) for t in test)
    else:  # (the word analyzer builds a table for text beyond the one it counted: made then)
        test = [t for t in test if _latin1(t)]
    got = model.predict_proba(test)
    assert not lazy.made
    # The same numbers as a model whose terms were made before it scored.
    made = TextClassifier(vectorizer=clone(vectorizer)).fit(fit_mails, fit_labels)
    made.stats_.blocks[0].keyed.terms  # noqa: B018 (made by reading them)
    made.fitted_parts()[0].terms_  # noqa: B018
    np.testing.assert_array_equal(made.predict_proba(test), got)
    assert made.fitted_parts()[0].terms_.tolist() == lazy.array().tolist()
    # Copies and model files carry the terms, made then.
    for copied in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        np.testing.assert_array_equal(copied.predict_proba(test), got)


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _assert_searched_as_among_the_made(lazy: LazyTerms, probes: list[str]) -> None:
    """The binary search among lazy terms makes none of them, and finds what
    ``searchsorted`` and a dict find among the terms made."""
    below = _scan.terms_below(lazy, probes)
    found = _scan.find_lazily(lazy, probes)
    assert not lazy.made
    terms = lazy.array()
    assert below.tolist() == np.searchsorted(terms, np.array(probes, dtype=object)).tolist()
    index = {t: i for i, t in enumerate(terms.tolist())}
    assert found.tolist() == [index.get(p, -1) for p in probes]


def test_terms_are_found_among_lazy_terms_as_among_the_made():
    vec = TextVectorizer(ngram_range=(1, 3))
    vec.fit(TEXTS["utf8"])
    lazy = vec.stats_.given_terms
    probes = ["", "a", "free", "free lunch", "free money now", "zzzz", "é", "ü x", "~"]
    probes += [t + suffix for t in SMS[5000][:40].lower().split() for suffix in ("", " ", "a")]
    _assert_searched_as_among_the_made(lazy, probes)


def test_terms_are_found_among_an_e_mail_unions_lazy_terms():
    # header tokens (known strings) among the scanner's words: both read in the search
    mails, _ = _mails(1500, 3)
    vec = TextVectorizer(analyzer="auto", ngram_range=(1, 2)).fit(mails)
    lazy = vec.stats_.given_terms
    heads = lazy.known[1].tolist()
    probes = [*heads[::7], "subject:", "from:zzz", "url:", "a", "free lunch", "zz", "~"]
    probes += [h + "x" for h in heads[::11]]
    _assert_searched_as_among_the_made(lazy, probes)


@pytest.mark.parametrize("oov", [None, "<oov>"])
def test_feature_names_are_the_callers_own(oov):
    vec = TextVectorizer(oov_token=oov).fit(TEXTS["latin1"])
    names = vec.get_feature_names_out()
    want = vec.terms_.tolist() + ([oov] if oov else [])
    assert names.dtype == object
    assert names.tolist() == want
    names[0] = "changed"
    assert vec.get_feature_names_out().tolist() == want
    assert vec.terms_.tolist() == want[: len(vec.terms_)]


def test_a_model_of_lazy_terms_learns_merges_unlearns_and_saves_as_one_of_made_terms(tmp_path):
    mails, labels = _mails(4000, 2)
    y = np.asarray(labels)

    def history(make_terms: bool) -> tuple[np.ndarray, np.ndarray, list[str]]:
        model = TextClassifier().fit(mails[:2500], y[:2500])
        assert isinstance(model.stats_.blocks[0].keyed.given_terms, LazyTerms)
        if make_terms:
            model.stats_.blocks[0].keyed.terms  # noqa: B018 (made by reading them)
            model.fitted_parts()[0].terms_  # noqa: B018
        model.partial_fit(mails[2500:2900], y[2500:2900])
        merged = bk.merge(model, TextClassifier().fit(mails[2900:3600], y[2900:3600]))
        merged.unlearn(mails[2500:2700], y[2500:2700])
        path = tmp_path / f"model-{make_terms}.bk"
        bk.save(merged, path)
        loaded = bk.load(path)
        test = mails[3600:]
        names = loaded.get_feature_names_out().tolist()
        return merged.predict_proba(test), loaded.predict_proba(test), names

    lazy, made = history(False), history(True)
    np.testing.assert_array_equal(lazy[0], made[0])
    np.testing.assert_array_equal(lazy[1], made[1])
    np.testing.assert_array_equal(lazy[0], lazy[1])
    assert lazy[2] == made[2]
