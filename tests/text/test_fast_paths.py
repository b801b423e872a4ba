"""The faster paths after counting give the slower paths' numbers exactly: analyzer="auto"
with the compiled scanner on e-mail bodies, the header-only e-mail parse, the URL search, the
L2 norms, the parallel sparse product, the per-class extremes, and the quick start's and
``partial_fit``'s counting once."""

from __future__ import annotations

import email
from email.policy import compat32

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from bayeskit.datasets import load_sms_spam
from bayeskit.datasets.shared import load_20newsgroups
from bayeskit.families import _sparse_dot
from bayeskit.families._base import class_weight_totals, safe_dot
from bayeskit.stats._base import per_class_extreme
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer, vectorize
from bayeskit.text import email as email_module
from bayeskit.text._count_matrices import mail_mask, row_sums_of_squares
from bayeskit.text._mime import find_urls
from bayeskit.text.auto_count import read_auto
from bayeskit.text.email import _parse, _read_bytes

TEXTS, LABELS = load_sms_spam()
POST = (
    "From: ann@cs.example.edu (Ann Lee)\nSubject: Re: Why not a faster bus?\n"
    "Organization: Example University\nLines: 4\n\n"
    "In article <1993Apr5.1@x.edu> bob@x.edu writes:\n> the bus is slow\n"
    "It is. See WWW.Example.com or HTTP://ftp.example.org/pub for the plans, {n}.\n"
)
MAILS = [POST.format(n=i) * (1 + i % 3) for i in range(40)]
MAILS.append(
    "Return-Path: <x@y.org>\nFrom: Deals <d@mail.example.com>\nSubject: FREE\n"
    "Content-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\n"
    "free cash now\n--b\nContent-Type: text/html\n\n<p>free <a href='http://s.example.com'>"
    "cash</a></p>\n--b--\n"
)


def _same_counts(a, b):
    (ta, ca), (tb, cb) = a, b
    assert ta.tolist() == tb.tolist()
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(ca, name), getattr(cb, name)), name


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
@pytest.mark.parametrize("kind", ["mails", "mixed", "bytes"])
def test_auto_counts_equal_the_python_analyzer(kind, ngram_range):
    docs = {
        "mails": MAILS,
        "mixed": TEXTS[:300] + MAILS + TEXTS[300:400],
        "bytes": [d.encode("latin-1") for d in MAILS] + [t.encode() for t in TEXTS[:50]],
    }[kind]
    vec = TextVectorizer(analyzer="auto", ngram_range=ngram_range, stop_words="english")
    vec.check_params()
    _same_counts(vec._count(docs), vec._count_python(docs))


def test_auto_transform_of_plain_texts_takes_the_word_lookup():
    fitted = TextVectorizer(analyzer="auto", ngram_range=(1, 2)).fit(TEXTS[:3000])
    X = fitted.transform(TEXTS[3000:])  # no e-mail: the compiled lookup
    expected = fitted._reindex(*fitted._count(TEXTS[3000:]))
    assert fitted._count_known_words(TEXTS[3000:]) is not None
    assert (expected != X).nnz == 0
    assert np.array_equal(X.indices, expected.indices)
    # A vocabulary that holds e-mail tokens beside the words the scanner counted: its words
    # are still looked up in the scanner's table (the e-mail tokens have no entry there).
    mixed = TextVectorizer(analyzer="auto").fit(MAILS + TEXTS[:500])
    assert mixed._count_known_words(TEXTS[500:1500]) is not None
    assert (
        mixed.transform(TEXTS[500:1500]) != mixed._reindex(*mixed._count(TEXTS[500:1500]))
    ).nnz == 0
    # A vocabulary given by the user was not counted by the scanner: its words are looked up
    # in a table of them (its e-mail tokens, which hold a colon, are not words).
    given = TextVectorizer(analyzer="auto", vocabulary=["free", "subject:free"]).fit(MAILS)
    known = given._count_known_words(TEXTS[500:1500])
    assert known is not None
    assert known.nnz > 0
    assert (known != given._reindex(*given._count(TEXTS[500:1500]))).nnz == 0


WIDE_MAIL = (
    "From: Zoe <z@example.org>\nSubject: \u00fcber \u0394elta\nContent-Type: text/plain; "
    "charset=utf-8\n\n\u0394\u03b5\u03bb\u03c4\u03b1 free cash \u00fcber alles\n"
)


def _same_matrix(X, Y):
    assert X.shape == Y.shape
    assert X.has_canonical_format
    assert Y.has_canonical_format
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(X, name), getattr(Y, name)), name


@pytest.mark.parametrize("wide_fit", [False, True])
@pytest.mark.parametrize(
    "settings",
    [
        {"ngram_range": (1, 2)},
        {"ngram_range": (1, 2), "oov_token": "<oov>", "subject_in_text": True},
        {"min_df": 2, "output": "binary"},
        {"ngram_range": (1, 2), "output": "tfidf", "sublinear_tf": True, "use_idf": False,
         "subject_in_text": True, "ngram_weights": (1.0, 0.7), "subject_weight": 1.5},
    ],
)  # fmt: skip
def test_auto_transform_of_mails_takes_the_scanner_lookup(settings, wide_fit):
    """E-mails read over a fitted "auto" vocabulary: their words looked up in the scanner's
    table (latin-1 or UTF-8, a body wider than the table's latin-1 counted apart), their
    header tokens by a dict, the same matrix as counting their terms and moving them."""
    plain = [t for t in TEXTS[:600] if t.isascii()][:400]
    train = MAILS + plain + ([WIDE_MAIL] if wide_fit else [])  # a UTF-8 or a latin-1 table
    vec = TextVectorizer(analyzer="auto", **settings).fit(train)
    new = [WIDE_MAIL, *MAILS[::3], *TEXTS[1000:1300], POST.format(n="unseen sender x9")]
    new.append(new[1].replace("Ann Lee", "Ann Other").replace("ftp.example.org", "a.b.example"))
    new.append(new[2].encode("latin-1"))
    narrow = [d for d in new[1:] if isinstance(d, bytes) or d.isascii()]
    for docs in (new, new[1:], narrow):  # with and without text beyond latin-1
        mail = mail_mask(docs)
        assert mail.any()
        read = read_auto(docs, mail, bool(vec.subject_in_text), vec.encoding)
        fast = vec._count_known_mail(read, len(docs))
        assert fast is not None
        _same_matrix(fast, vec._reindex(*vec._count(docs)))
        _same_matrix(vec.transform(docs), vec._weigh(vec._reindex(*vec._count(docs))))


def test_one_short_mail_at_a_time_takes_the_scanner_lookup():
    """A model service checks one message at a time, most far shorter than the compiled
    scanner's break-even for counting: over a vocabulary the scanner counted, each is still
    looked up in its table (no term made a str), with the matrix of counting and moving."""
    vec = TextVectorizer(analyzer="auto", ngram_range=(1, 2), subject_in_text=True).fit(MAILS)
    for doc in [*MAILS, WIDE_MAIL, "Subject: hi\n\nfree cash", b"Subject: x\n\n\xe9t\xe9"]:
        read = read_auto([doc], mail_mask([doc]), True, vec.encoding)
        assert sum(map(len, read.texts)) < vectorize.FAST_MIN_CHARS
        fast = vec._count_known_mail(read, 1)
        assert fast is not None
        _same_matrix(fast, vec._reindex(*vec._count([doc])))
        _same_matrix(vec.transform([doc]), vec._weigh(vec._reindex(*vec._count([doc]))))


@pytest.mark.parametrize(
    "raw",
    [
        *(m.encode("latin-1") for m in MAILS),
        b"Subject: x\r\n\r\nbody\r\nline\r",
        b"Subject: headers only",
        b"Subject: x\nnot a header line\nmore",
        b"From a@b  Thu Aug 22 12:36:23 2002\nSubject: y\n\nhi",
        b"",
        b"\n\nbody",
        b"Subject: a\r\r\rbody",
        b"Content-Type: message/rfc822\n\nSubject: in\n\nbody",
        b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        b"aGVsbG8gd29ybGQ=\n",
        b"X-Long: " + b"y" * 9000 + b"\n\nbody",
        b"Subject: caf\xe9\n\n\xff\xfe binary \x00 bytes",
    ],
)
def test_the_header_only_parse_reads_the_same_message(raw, monkeypatch):
    fast, full = _parse(raw), email.message_from_bytes(raw, policy=compat32)
    assert fast.items() == full.items()
    assert fast.get_unixfrom() == full.get_unixfrom()
    assert [type(d) for d in fast.defects] == [type(d) for d in full.defects]
    if not full.is_multipart():
        assert fast.get_payload() == full.get_payload()
    assert fast.as_string() == full.as_string()
    read = _read_bytes(raw)
    monkeypatch.setattr(
        email_module, "_parse", lambda data: email.message_from_bytes(data, policy=compat32)
    )
    assert _read_bytes(raw) == read


def _same_message(raw: bytes, *, flatten: bool = True) -> None:
    fast, full = _parse(raw), email.message_from_bytes(raw, policy=compat32)
    assert fast.items() == full.items()
    assert fast.get_unixfrom() == full.get_unixfrom()
    assert [(type(d), str(d)) for d in fast.defects] == [(type(d), str(d)) for d in full.defects]
    assert fast.is_multipart() == full.is_multipart()
    if not full.is_multipart():
        assert fast.get_payload() == full.get_payload()
    if flatten:  # (the generator cannot write some real messages back: bytes beyond ASCII)
        assert fast.as_string() == full.as_string()


_ENVELOPE = "From a@b  Thu Aug 22 12:36:23 2002"
_HEADER_LINES = st.sampled_from(
    [
        "Subject: free lunch", "X-A:b", "From: Ann <a@b.example>", " folded on", "\tand tabbed",
        _ENVELOPE, ":no name", "Content-Type: text/plain",
        "Content-Type: multipart/mixed; boundary=z", "To:", "X-Empty: ", "Subject: caf\xe9",
    ]
)  # fmt: skip


@given(
    st.lists(st.tuples(_HEADER_LINES, st.sampled_from(["\n", "\r\n", "\r"])), max_size=8),
    st.sampled_from(["\n", "\r\n", "\r", "", "not a header\n"]),
    st.sampled_from(["", "body\n", "From the body\nmore\r\n", "--z\n\nx\n--z--\n"]),
)
@example(  # a tab continuation, an envelope line inside, a CRLF line
    [("Subject: a", "\n"), ("\tand tabbed", "\n"), (_ENVELOPE, "\n"), ("X-A:b", "\r\n")],
    "\n",
    "body\n",
)
@example(  # a continuation first, an envelope line first, a line without a name, CR ends
    [(" folded on", "\r"), (_ENVELOPE, "\r"), (":no name", "\r"), ("To:", "\r")], "\r", ""
)
@example(  # an envelope line last (the parser hands it back to the body)
    [(_ENVELOPE, "\n"), ("Subject: x", "\n"), (_ENVELOPE, "\n")], "\n", "From the body\n"
)
@example([("Content-Type: multipart/mixed; boundary=z", "\n")], "\n", "--z\n\nx\n--z--\n")
def test_header_blocks_read_as_the_parser_reads_them(lines, separator, body):
    # Continuations first or anywhere, envelope lines first, inside and last, lines without
    # a name, mixed line ends, a blank line or none after the headers.
    raw = "".join(line + end for line, end in lines) + separator + body
    _same_message(raw.encode("latin-1"))


def test_20newsgroups_posts_read_as_the_parser_reads_them(shared_data):
    try:
        train, _ = load_20newsgroups("train", shared_data)
    except FileNotFoundError as exc:
        pytest.skip(f"20 Newsgroups not in the shared data folder: {exc}")
    for post in train:
        _same_message(post.encode("utf-8", "surrogateescape"))


def test_spamassassin_messages_read_as_the_parser_reads_them(shared_data):
    root = shared_data / "spamassassin-public-corpus"
    if not root.is_dir():
        pytest.skip("the SpamAssassin corpus is not in the shared data folder")
    paths = [p for p in sorted(root.glob("*/*")) if p.is_file() and p.name != "cmds"]
    assert len(paths) > 6000
    for path in paths:
        _same_message(path.read_bytes(), flatten=False)


@pytest.mark.parametrize(
    "text", ["no link here", "Visit WWW.Example.COM.", "HTTP://x.org/a, ftp://h/p", "w ww. www"]
)
def test_url_search_skips_only_texts_without_links(text):
    from bayeskit.text import _mime

    expected = [
        m.group().rstrip(_mime._TRAILING_PUNCT)
        for m in _mime._URL_RE.finditer(text)
        if len(m.group().rstrip(_mime._TRAILING_PUNCT)) > 7
    ]
    assert find_urls(text) == expected


def test_l2_norms_are_the_product_matrix_sums():
    X = TextVectorizer(output="tfidf", sublinear_tf=True).fit_transform(TEXTS[:2000])
    X.data *= np.linspace(0.5, 3.0, X.nnz)
    expected = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    assert np.array_equal(row_sums_of_squares(X), expected)
    X.data[:5] = 0.0  # stored zeros: the product drops them, so it is used
    assert np.array_equal(row_sums_of_squares(X), np.asarray(X.multiply(X).sum(axis=1)).ravel())


def test_the_parallel_sparse_product_is_scipys(monkeypatch):
    rng = np.random.default_rng(0)
    X = sp.random(300, 2000, density=0.02, format="csr", random_state=1) * 7
    W = np.asfortranarray(rng.normal(size=(5, 2000)))
    monkeypatch.setattr(_sparse_dot, "MIN_WORK", 0)
    assert np.array_equal(safe_dot(X, W), X @ W.T)
    assert _sparse_dot.csr_dot_t(X, np.ascontiguousarray(W)) is None  # scipy's layout
    W[2, 7] = -np.inf  # impossible events still score -inf
    out = safe_dot(X, W)
    assert np.array_equal(np.isneginf(out[:, 2]), X[:, 7].toarray().ravel() > 0)


@given(
    n_features=st.integers(1, 300),
    n_classes=st.integers(1, 6),
    density=st.floats(0.0, 1.0),
    scale=st.sampled_from([1e-300, 1.0, 1e150]),
    seed=st.integers(0, 2**32 - 1),
)
@example(n_features=5, n_classes=2, density=1.0, scale=1.0, seed=0).via("signed zeros")
def test_one_row_product_is_scipys_bit_for_bit(n_features, n_classes, density, scale, seed):
    """A message scored alone (the service, a learn): the gathered product gives scipy's
    numbers, its -0.0 sums included, for a weight matrix whose transpose scipy would copy."""
    rng = np.random.default_rng(seed)
    X = sp.random(1, n_features, density=density, format="csr", random_state=seed)
    X.data = np.round(X.data * 9) - 3.0  # counts, with zeros and negatives kept
    W = np.ascontiguousarray(rng.normal(size=(n_classes, n_features)) * scale)
    if seed % 3 == 0:
        W[:, ::2] = -0.0
    out = _sparse_dot.one_row_dot_t(X, W)
    expected = X @ W.T
    assert out.shape == expected.shape
    assert np.array_equal(out, expected, equal_nan=True)
    assert np.array_equal(np.signbit(out), np.signbit(expected))
    assert np.array_equal(safe_dot(X, W), expected)
    assert _sparse_dot.one_row_dot_t(sp.vstack([X, X], format="csr"), W) is None


@given(
    n_rows=st.integers(1, 80),
    n_classes=st.integers(1, 6),
    density=st.floats(0.0, 1.0),
    exponent=st.integers(-300, 300),
    seed=st.integers(0, 2**32 - 1),
)
def test_class_weight_totals_are_scipys_column_sums(n_rows, n_classes, density, exponent, seed):
    R = sp.random(n_rows, n_classes, density=density, format="csr", random_state=seed)
    R.data = R.data * 10.0**exponent
    if seed % 3 == 0:
        R.data[::2] = -0.0
    expected = np.asarray(R.sum(axis=0), dtype=np.float64).ravel()
    out = class_weight_totals(R)
    assert np.array_equal(out, expected)
    assert np.array_equal(np.signbit(out), np.signbit(expected))


def test_one_row_product_sums_from_zero_as_scipy_does():
    X = sp.csr_matrix(np.array([[2.0, 0.0, 1.0]]))
    W = np.full((2, 3), -0.0)  # every product -0.0: scipy's running sum from 0.0 gives 0.0
    out = _sparse_dot.one_row_dot_t(X, W)
    assert np.array_equal(np.signbit(out), np.signbit(X @ W.T))
    assert not np.signbit(out).any()


@pytest.mark.parametrize("shape", [(2, 6000), (3, 130), (20, 64), (2, 63), (1, 100), (4, 1)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_per_class_extremes(shape, order):
    w = np.asarray(np.random.default_rng(2).normal(size=shape), order=order)
    for ufunc, reduce in ((np.minimum, np.min), (np.maximum, np.max)):
        assert np.array_equal(per_class_extreme(w, ufunc), reduce(w, axis=1, initial=0.0))
    w[0, -1] = np.nan
    assert np.isnan(per_class_extreme(w, np.minimum)[0])


@pytest.mark.parametrize("words", [False, True])
def test_the_quick_starts_counting_once_is_fitting_on_texts(words):
    texts, labels = TEXTS[:1500], LABELS[:1500]
    make = SpamFilter.sklearn_defaults if words else SpamFilter
    vectorizer = make().prototypes()[0]
    terms, counts = clone(vectorizer).count(texts)
    docs = np.asarray(texts, dtype=object)
    split = StratifiedKFold(3, shuffle=True, random_state=0).split(docs, labels)
    for train, test in split:
        rows = counts[train]
        used = np.flatnonzero(rows.getnnz(axis=0))
        counted = make().fit_counted(terms[used], rows[:, used], labels[train])
        fitted = make().fit(docs[train].tolist(), labels[train])
        assert np.array_equal(counted.score_counts_, fitted.score_counts_)
        assert counted.calibration_ == fitted.calibration_
        p = counted.spam_probability_counted(terms[used], counts[test][:, used])
        assert np.array_equal(p, fitted.spam_probability(docs[test].tolist()))


def test_partial_fit_counts_each_message_once_with_the_same_result():
    first, more = slice(0, 2000), slice(2000, 2600)
    counted = SpamFilter().fit(TEXTS[first], LABELS[first])
    twice = clone(counted).fit(TEXTS[first], LABELS[first])
    counted.partial_fit(TEXTS[more], LABELS[more])
    # The former way: score the texts, then learn them from the texts again.
    added = twice._new_scores(TEXTS[more], LABELS[more])
    TextClassifier.partial_fit(twice, TEXTS[more], LABELS[more])
    twice.set_score_counts(twice.score_counts() + added)
    assert np.array_equal(counted.score_counts_, twice.score_counts_)
    assert np.array_equal(
        counted.spam_probability(TEXTS[3000:]), twice.spam_probability(TEXTS[3000:])
    )
