"""analyzer="auto": raw e-mails read as e-mails, other texts as word n-grams; and a spam filter
that does not collapse on long e-mails."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.datasets import load_sms_spam
from bayeskit.naive_bayes import MultinomialNB
from bayeskit.text import SpamFilter, TextVectorizer
from bayeskit.text.analyze import is_raw_email

TEXTS, LABELS = load_sms_spam()
MAIL = (
    b"Return-Path: <deals@mail.example.com>\n"
    b"From: Big Deals <deals@mail.example.com>\nTo: a@x.org\nSubject: FREE offer\n"
    b"Content-Type: text/html; charset=us-ascii\n\n"
    b"<html><body><p>Visit <a href='http://shop.example.com/buy'>our shop</a> now</p>"
    b"</body></html>\n"
)


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (MAIL, True),
        (MAIL.decode("ascii"), True),
        ("From: ann@example.org\nSubject: meeting\n\nSee you at noon.", True),
        ("From ann@example.org  Thu Aug 22 12:36:23 2002\nSubject: hi\n\nbody", True),
        ("Note: call me at noon", False),
        ("From here on I will call you\nok?", False),
        ("Subject: just one header line", False),
        ("Dear: friend\nLove: you", False),  # header-like lines, but no mail header
        ("", False),
        (b"\xff\xfe garbage", False),
        # the blank line after the headers with CRLF line ends, or a CRLF line before LF ones
        ("From: a@b\r\nSubject: x\r\n\r\nbody", True),
        ("From: a@b\nSubject: x\n\r\n\nbody", True),
        ("From: a@b\nSubject: x\n\n\r\nbody", True),
        ("From: a@b\n\r\nSubject: x\n\nbody", False),  # one header line before the blank
    ],
)
def test_is_raw_email(doc, expected):
    assert is_raw_email(doc) is expected


def test_plain_texts_get_the_word_analyzers_terms():
    params = {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"}
    words = TextVectorizer(**params).fit(TEXTS[:2000])
    auto = TextVectorizer(analyzer="auto", **params).fit(TEXTS[:2000])
    assert auto.get_feature_names_out().tolist() == words.get_feature_names_out().tolist()
    assert (auto.transform(TEXTS[2000:2100]) != words.transform(TEXTS[2000:2100])).nnz == 0


def test_the_word_counting_follows_changed_parameters():
    """analyzer="auto" counts plain texts by a word vectorizer it keeps while its parameters
    stay the same: set_params and plain assignment both reach it (as a fresh vectorizer with
    the new settings counts)."""
    texts = ["Free Cash NOW now", "lunch at noon, Noon", "the the the cat"]
    vec = TextVectorizer(analyzer="auto").fit(texts)
    before = vec.count(texts)
    assert before[0].tolist() == TextVectorizer(analyzer="word").count(texts)[0].tolist()
    vec.set_params(lowercase=False, ngram_range=(1, 2))
    changed = TextVectorizer(analyzer="word", lowercase=False, ngram_range=(1, 2))
    assert vec.count(texts)[0].tolist() == changed.count(texts)[0].tolist()
    assert "Cash NOW" in vec.count(texts)[0].tolist()
    vec.stop_words = ["the"]
    assert "the" not in vec.count(texts)[0].tolist()
    vec.stop_words.append("cat")  # changed in place, as a new clone would see it
    assert "cat" not in vec.count(texts)[0].tolist()
    vec.stop_words.remove("cat")
    assert "cat" in vec.count(texts)[0].tolist()


def test_emails_get_header_tokens_and_decoded_body_ngrams():
    vec = TextVectorizer(analyzer="auto", ngram_range=(1, 2)).fit([MAIL, "free lunch today"])
    terms = set(vec.get_feature_names_out().tolist())
    assert {"subject:free", "from:mail.example.com", "content-type:text/html"} <= terms
    assert {"url:shop.example.com", "our shop", "visit"} <= terms
    assert not any("<" in t or "html>" in t for t in terms)  # HTML read as text
    assert {"free lunch", "lunch today"} <= terms
    # Bytes and their text give the same terms.
    again = TextVectorizer(analyzer="auto", ngram_range=(1, 2)).fit([MAIL.decode("ascii")])
    assert set(again.get_feature_names_out().tolist()) <= terms


def test_long_emails_do_not_collapse(shared_data):
    """Word n-grams of raw e-mails scored 0.34 on the test e-mails of 20 KB or more (base64
    attachments and HTML read as words); the default filter reads e-mails as e-mails."""
    root = shared_data / "spamassassin-public-corpus"

    def read(group, keep=lambda data: True, n=None):
        files = sorted((root / group).iterdir())
        docs = [d for d in (p.read_bytes() for p in files) if keep(d)]
        return docs[:n] if n else docs

    ham, spam = read("easy_ham", n=500), read("spam", n=500)
    f = SpamFilter().fit(ham + spam, ["ham"] * len(ham) + ["spam"] * len(spam))

    def is_long(data):
        return len(data) >= 20_000

    long_ham = read("easy_ham_2", is_long) + read("hard_ham", is_long)
    long_spam = read("spam_2", is_long)
    assert len(long_ham) > 100
    assert len(long_spam) > 40
    truth = np.asarray(["ham"] * len(long_ham) + ["spam"] * len(long_spam))
    predicted = f.predict(long_ham + long_spam)
    # Trained on 1,000 e-mails (0.8756 on all 3,000, benchmarks/accuracy.md).
    assert (predicted == truth).mean() > 0.7
    assert (predicted[truth == "ham"] == "spam").mean() < 0.4
    assert (predicted[truth == "spam"] == "spam").mean() > 0.85
    # The same data read as words (the former default) collapses: most long ham is "spam".
    words = SpamFilter(
        vectorizer=TextVectorizer(
            ngram_range=(1, 3), token_pattern=r"(?u)\b\w+\b", output="binary"
        ),
        model=MultinomialNB(alpha=0.1),
    ).fit(ham + spam, ["ham"] * len(ham) + ["spam"] * len(spam))
    collapsed = words.predict(long_ham + long_spam)
    assert (collapsed == truth).mean() < 0.5
    assert (collapsed[truth == "ham"] == "spam").mean() > 0.7


def test_the_service_colours_auto_texts_and_emails():
    from bayeskit.serve.colouring import segments

    f = SpamFilter(calibration_folds=None).fit(["win cash now", "lunch at noon"], ["spam", "ham"])
    vec = f.fitted_parts()[0]
    assert segments(vec, "win free cash", {"cash": 1.0, "win": 0.5}) == [
        ["win", 0.5],
        [" free ", None],
        ["cash", 1.0],
    ]
    mail = b"From: a@b.org\nSubject: free cash\n\nwin now"
    shown = segments(vec, mail, {"subject:cash": 0.5, "win": 1.0})
    assert ["cash", 0.5] in shown  # the subject word, scored as subject:cash
    assert ["win", 1.0] in shown  # the body word


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"ngram_range": (1, 2), "output": "binary", "norm": "l1"},
        {"oov_token": "<oov>", "min_df": 2},
        {"lowercase": False, "output": "tfidf"},
        {"vocabulary": ["call", "free", "now", "lunch", "prize", "txt", "ok"]},
        {"stop_words": "english", "max_features": 500},
    ],
)
def test_a_short_message_is_the_same_row_as_in_a_large_batch(settings):
    """One short text (below the compiled scanner's threshold: each word looked up as it
    comes) gives the row the same text gets in a batch the scanner counts."""
    vec = TextVectorizer(analyzer="auto", **settings).fit(TEXTS[:1500])
    batch = [*TEXTS[1500:1700], b"Free entry!! Txt WIN to 80086 \xa3100", "\u00e9t\u00e9 ok lah"]
    whole = vec.transform(batch)
    for i, text in enumerate(batch):
        one = vec.transform([text])
        assert one.dtype == whole.dtype
        assert one.shape == (1, whole.shape[1])
        assert one.has_canonical_format
        assert (one != whole[i]).nnz == 0, text


def _is_raw_email_by_split(doc: str) -> bool:
    """is_raw_email as first written (the blank line found by a regular expression, each of
    the first 20 lines matched on its own): what the faster test must answer."""
    import re

    from bayeskit.text import analyze

    head = doc[: analyze.EMAIL_HEAD_CHARS]
    if analyze._MBOX_FROM_LINE.match(head):
        return True
    if not analyze._HEADER_LINE.match(head):
        return False
    block = re.split(r"\r?\n\r?\n", head, maxsplit=1)[0]
    lines = block.splitlines()
    return (
        len(lines) >= 2
        and all(analyze._HEADER_LINE.match(line) for line in lines[:20])
        and analyze._MAIL_HEADER.search(block) is not None
    )


_PIECES = st.sampled_from(
    ["From: a@b", "Subject: x", "Received: y", "X-Odd: z", "Dear: you", "no colon", "From a@b",
     ":", " ", "\t", "\n", "\r", "\r\n", "\n\n", "\n\r\n", "\r\r", "\v", "\x0c", "\x85",
     "\u2028", "\x1c", "é", "a", "\xff"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40), st.booleans())
def test_is_raw_email_answers_as_the_line_by_line_test(pieces, as_bytes):
    doc = "".join(pieces)
    expected = _is_raw_email_by_split(doc)
    assert is_raw_email(doc) is expected
    if as_bytes:
        assert is_raw_email(doc.encode("latin-1", "replace")) is _is_raw_email_by_split(
            doc.encode("latin-1", "replace").decode("latin-1")
        )


def test_is_raw_email_answers_as_the_line_by_line_test_on_news_posts(shared_data):
    from bayeskit.datasets.shared import load_20newsgroups

    try:
        posts, _ = load_20newsgroups("test", shared_data)
    except FileNotFoundError:
        pytest.skip("20 Newsgroups is not in the shared data")
    found = [is_raw_email(post) for post in posts]
    assert found == [_is_raw_email_by_split(post) for post in posts]
    assert sum(found) > 0.9 * len(posts)


@pytest.mark.parametrize(
    "doc",
    [
        "From: a@b\nFrom: a@b\r\r\n\n",
        "From: a@b\n\u2028From: a@b\r\r\n\n",
        "From: a@b\nX: y\r\r\n\r\n",
    ],
)
def test_a_carriage_return_before_the_blank_line_ends_no_line_of_its_own(doc):
    # splitting at \r?\n\r?\n ends the headers at the blank line's own "\r": the "\r" before
    # it ends the last header line, not an empty one (found by the test above in a full run)
    for form in (doc, doc.encode("latin-1", "replace")):
        text = form if isinstance(form, str) else form.decode("latin-1")
        assert is_raw_email(form) is _is_raw_email_by_split(text)
