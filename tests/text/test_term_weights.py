"""TextVectorizer's term weights (``ngram_weights``, ``subject_weight``) and analyzer="auto"'s
``subject_in_text``: what they emit, that the compiled and Python paths agree, that the
statistics still add, and the errors for settings that cannot work."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit.errors import ParameterError
from bayeskit.naive_bayes import ComplementNB
from bayeskit.text import TextClassifier, TextVectorizer
from bayeskit.text.vectorize import FAST_MIN_CHARS

WORDS = r"(?u)\b\w+\b"


def mail(subject: str, body: str, sender: str = "ann@example.org") -> str:
    return f"From: {sender}\nSubject: {subject}\n\n{body}\n"


POSTS = [
    mail("Hockey playoffs tonight", "The Leafs won the game in overtime."),
    mail("Re: GPU drivers", "Update the driver and reboot; the screen flickers less."),
    mail("Selling a bike", "Good bike, new tyres, call me.", "bob@shop.example.com"),
    "plain text, no header: the subject is not a thing here",
]


def weighted(**params):
    return TextVectorizer(
        analyzer="auto",
        ngram_range=(1, 2),
        token_pattern=WORDS,
        output="tfidf",
        sublinear_tf=True,
        use_idf=False,
        **params,
    )


def test_subject_in_text_reads_the_subject_line_as_the_first_line_of_the_text():
    plain = TextVectorizer(analyzer="auto", ngram_range=(1, 2), token_pattern=WORDS)
    read = TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), token_pattern=WORDS, subject_in_text=True
    )
    before = set(plain.fit(POSTS).get_feature_names_out().tolist())
    after = set(read.fit(POSTS).get_feature_names_out().tolist())
    # The subject tokens stay; its words, its 2-grams and the 2-gram that joins it to the
    # text's first word are added; a text without a header is read as before.
    assert {"subject:hockey", "subject:playoffs"} <= before & after
    assert after - before == {
        "hockey", "playoffs", "tonight", "hockey playoffs", "playoffs tonight", "tonight the",
        "re", "gpu", "drivers", "re gpu", "gpu drivers", "drivers update",
        "selling", "selling a", "a bike", "bike good",
    }  # fmt: skip
    counts = read.transform(POSTS[:1]).toarray()[0]
    column = read.vocabulary_
    assert counts[column["tonight"]] == 1
    assert counts[column["the"]] == 2  # "The Leafs ... the game": the body's, unchanged
    assert read._analyze(POSTS[3]) == plain._analyze(POSTS[3])


def test_subject_in_text_compiled_and_python_paths_agree():
    """Few short documents are counted in Python, many by the compiled scanner (the bodies)
    plus the header tokens in Python: the same terms and counts either way."""
    many = POSTS * (3 * FAST_MIN_CHARS // sum(map(len, POSTS)) + 1)
    assert sum(map(len, many)) >= FAST_MIN_CHARS
    vec = TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), token_pattern=WORDS, subject_in_text=True
    )
    terms, counts = vec._count(many)
    python_terms, python_counts = vec._count_python(many)
    assert terms.tolist() == python_terms.tolist()
    assert (counts != python_counts).nnz == 0


def test_term_weights_by_ngram_length_and_subject_tokens():
    vec = weighted(ngram_weights=(1.0, 0.6), subject_weight=1.5)
    terms = np.asarray(["gpu", "gpu drivers", "subject:gpu", "from:example.org", "url:x.org"])
    assert vec.term_weights(terms).tolist() == [1.0, 0.6, 1.5, 1.0, 1.0]
    # Under analyzer="word" there are no header tokens: a colon is part of a word.
    words = TextVectorizer(ngram_range=(1, 3), output="tfidf", ngram_weights=(1, 0.5, 0.25))
    assert words.term_weights(np.asarray(["a:b", "a b", "a b c"])).tolist() == [1, 0.5, 0.25]
    assert TextVectorizer().term_weights(np.asarray(["a", "a b"])).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("norm", ["l2", "l1", None])
def test_weighted_output_is_log_tf_times_the_weight_then_normalised(norm):
    vec = weighted(subject_in_text=True, ngram_weights=(1.0, 0.6), subject_weight=1.5, norm=norm)
    X = vec.fit_transform(POSTS)
    counts = TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), token_pattern=WORDS, subject_in_text=True
    ).fit_transform(POSTS)
    expected = counts.astype(np.float64)
    expected.data = (1.0 + np.log(expected.data)) * vec.term_weights(vec.get_feature_names_out())[
        expected.indices
    ]
    dense = expected.toarray()
    if norm == "l2":
        dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    elif norm == "l1":
        dense /= np.abs(dense).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(X.toarray(), dense, rtol=1e-12)
    np.testing.assert_allclose(vec.transform(POSTS).toarray(), dense, rtol=1e-12)
    row = dict(zip(vec.get_feature_names_out(), X.toarray()[0], strict=True))
    if norm is not None:
        assert row["subject:hockey"] == pytest.approx(1.5 * row["hockey"])
        assert row["hockey playoffs"] == pytest.approx(0.6 * row["hockey"])


def test_an_oov_column_weighs_one():
    vec = weighted(ngram_weights=(1.0, 0.5), oov_token="<oov>", norm=None, max_features=3)
    X = vec.fit_transform(POSTS)
    assert vec.get_feature_names_out()[-1] == "<oov>"
    counts = TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), token_pattern=WORDS, oov_token="<oov>",
        max_features=3,
    ).fit_transform(POSTS)  # fmt: skip
    oov = counts[:, -1].toarray().ravel()
    np.testing.assert_allclose(X[:, -1].toarray().ravel(), np.where(oov > 0, 1 + np.log(oov), 0))


def test_weighted_statistics_still_add():
    """Per-document weights: two batches give the model of one fit, and a merge and an
    unlearn are exact."""
    labels = np.asarray(["rec", "comp", "forsale", "misc"])
    params = {
        "vectorizer": weighted(subject_in_text=True, ngram_weights=(1, 0.6), subject_weight=1.5),
        "model": ComplementNB(alpha=0.01, smoothing="corpus", corpus_power=0.5),
    }
    whole = TextClassifier(**params).fit(POSTS, labels)
    halves = TextClassifier(**params).partial_fit(POSTS[:2], labels[:2], classes=labels)
    halves.partial_fit(POSTS[2:], labels[2:])
    probe = [mail("Leafs game", "overtime again"), "new driver for the screen"]
    np.testing.assert_allclose(
        halves.predict_proba(probe), whole.predict_proba(probe), rtol=1e-10, atol=1e-12
    )
    merged = TextClassifier(**params).fit(POSTS[:2], labels[:2]) + TextClassifier(**params).fit(
        POSTS[2:], labels[2:]
    )
    np.testing.assert_allclose(
        merged.predict_proba(probe), whole.predict_proba(probe), rtol=1e-10, atol=1e-12
    )
    fewer = TextClassifier(**params).fit(POSTS, labels).unlearn(POSTS[3:], labels[3:])
    np.testing.assert_allclose(
        fewer.predict_proba(probe),
        TextClassifier(**params).fit(POSTS[:3], labels[:3]).predict_proba(probe),
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"subject_in_text": True, "analyzer": "word"}, "subject_in_text"),
        ({"subject_in_text": "yes", "analyzer": "auto"}, "subject_in_text"),
        ({"ngram_weights": (1.0, 0.5), "ngram_range": (1, 2)}, "output='tfidf'"),
        (
            {"ngram_weights": (1.0,), "ngram_range": (1, 2), "output": "tfidf"},
            r"at least ngram_range\[1\]=2",
        ),
        ({"ngram_weights": (1.0, -1), "ngram_range": (1, 2), "output": "tfidf"}, "positive"),
        ({"ngram_weights": (1.0, np.nan), "ngram_range": (1, 2), "output": "tfidf"}, "positive"),
        ({"ngram_weights": "ab", "ngram_range": (1, 2), "output": "tfidf"}, "positive"),
        ({"ngram_weights": (1, 10**400), "ngram_range": (1, 2), "output": "tfidf"}, "positive"),
        ({"ngram_weights": (1.0,), "output": "tfidf", "analyzer": "char"}, "analyzer"),
        ({"subject_weight": 0.0, "output": "tfidf", "analyzer": "auto"}, "subject_weight"),
        ({"subject_weight": "2", "output": "tfidf", "analyzer": "auto"}, "subject_weight"),
        ({"subject_weight": 10**400, "output": "tfidf", "analyzer": "auto"}, "subject_weight"),
        ({"subject_weight": np.inf, "output": "tfidf", "analyzer": "auto"}, "subject_weight"),
        ({"subject_weight": 2.0, "output": "tfidf", "analyzer": "word"}, "analyzer 'auto'"),
        ({"subject_weight": 2.0, "output": "binary", "analyzer": "auto"}, "output='tfidf'"),
    ],
)
def test_settings_that_cannot_work_are_refused(params, message):
    vec = TextVectorizer(**params)
    with pytest.raises(ParameterError, match=message):
        vec.fit(POSTS)
    with pytest.raises(ParameterError, match=message):
        TextClassifier(vectorizer=vec).check_params()


def test_a_model_file_keeps_the_weights(tmp_path):
    from bayeskit.io.model_file import load, save

    labels = np.asarray(["rec", "comp", "forsale", "misc"])
    vec = weighted(subject_in_text=True, ngram_weights=(1.0, 0.6), subject_weight=1.5)
    clf = TextClassifier(vectorizer=vec).fit(POSTS, labels)
    save(clf, tmp_path / "text.bk")
    again = load(tmp_path / "text.bk")
    probe = [mail("Leafs game", "overtime again"), "new driver for the screen"]
    np.testing.assert_array_equal(again.predict_proba(probe), clf.predict_proba(probe))
    kept = again.get_params()["vectorizer"]
    assert (kept.subject_in_text, tuple(kept.ngram_weights), kept.subject_weight) == (
        True, (1.0, 0.6), 1.5
    )  # fmt: skip
    # Unweighted, the same posts score otherwise: the weights are in use.
    plain = TextClassifier(vectorizer=weighted()).fit(POSTS, labels)
    assert not np.allclose(plain.predict_proba(probe), clf.predict_proba(probe))


def test_the_email_analyzer_takes_the_same_options():
    """A folder of e-mails is read with analyzer="email" (``bayeskit train``): the default
    TextClassifier's options then apply to its tokens."""
    vec = weighted(subject_in_text=True, ngram_weights=(1.0, 0.7), subject_weight=1.5)
    vec.set_params(analyzer="email")
    X = vec.fit_transform(POSTS[:3])
    row = dict(zip(vec.get_feature_names_out(), X.toarray()[0], strict=True))
    assert row["subject:hockey"] == pytest.approx(1.5 * row["hockey"])
    plain = TextVectorizer(analyzer="email").fit(POSTS[:3])
    assert "hockey" not in plain.vocabulary_


def test_weights_of_a_terms_array_are_made_once_for_every_vectorizer_weighing_alike(monkeypatch):
    # A classifier weighs a batch's terms when it fits them and the vocabulary (the same
    # array) at its first transform: made once. Other settings, or another array, are
    # weighed again; the kept weights are read-only and go with the array.
    import gc

    from bayeskit.text import _term_weights

    made: list[int] = []
    real = TextVectorizer.term_weights

    def spy(self, terms):
        made.append(len(terms))
        return real(self, terms)

    monkeypatch.setattr(TextVectorizer, "term_weights", spy)
    terms = np.asarray(["a b", "free", "subject:win", "x y z"], dtype=object)
    one = TextVectorizer(analyzer="auto", output="tfidf", ngram_weights=(1.0, 0.5))
    two = TextVectorizer(analyzer="auto", output="tfidf", ngram_weights=(1.0, 0.5))
    first = one._column_weights(terms)
    assert two._column_weights(terms) is first
    assert made == [4]
    assert first.tolist() == real(one, terms).tolist() == [0.5, 1.0, 1.0, 0.5]
    assert not first.flags.writeable
    other = TextVectorizer(analyzer="auto", output="tfidf", ngram_weights=(1.0, 0.25))
    assert other._column_weights(terms).tolist() == [0.25, 1.0, 1.0, 0.25]
    assert one._column_weights(terms.copy()).tolist() == first.tolist()
    assert made == [4, 4, 4]
    key = id(terms)
    del terms, first
    gc.collect()
    assert key not in _term_weights._KEPT


@pytest.mark.parametrize("ngram_range", [(1, 2), (1, 3)])
def test_weights_read_from_the_scanner_table_equal_those_read_from_the_strings(ngram_range):
    """Terms the compiled scanner counted take their n-gram length from its table, the
    others (e-mail tokens, some holding spaces: ``skip:x 40``) from their strings: the same
    weights as reading every string."""
    from bayeskit.text._scan import counted_orders

    long_word = "x" * 45
    posts = [p.replace("tonight", f"tonight {long_word}") for p in POSTS] * 400
    high = ngram_range[1]
    vec = weighted(ngram_weights=(1.0, 0.7, 0.4)[:high], subject_weight=1.5)
    vec.set_params(ngram_range=ngram_range)
    vec.check_params()
    terms, _ = vec.count(posts)
    orders = counted_orders(terms)
    assert orders is not None
    assert (orders > 0).any()
    assert (orders == 0).any()  # the e-mail tokens
    assert any(" " in t and ":" in t for t in terms[orders == 0])  # skip:x 40
    assert np.array_equal(vec.term_weights(terms), vec.term_weights(terms.copy()))
