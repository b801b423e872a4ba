"""TextVectorizer.one_row: transform's row of one short message as columns and values,
without a matrix (what the model service scores), or None where transform must count it."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import NotFittedError, ParameterError
from bayeskit.text import TextVectorizer

TEXTS = load_sms_spam()[0][:600]
MESSAGES = [
    "Free entry in 2 a wkly comp to win FA Cup final tkts",
    "free free FREE prize, call call now",
    "see you at lunch tomorrow",
    b"caf\xc3\xa9 au lait, free prize",  # UTF-8 bytes
    b"caf\xe9 au lait",  # not UTF-8: decoded as the vectorizer decodes it
    "zzzz qqqq words it never saw",
    "",
]


@pytest.mark.parametrize(
    "settings",
    [
        {"analyzer": "auto"},  # (counts)
        {},  # analyzer="word"
        {"output": "binary", "ngram_range": (1, 2)},
        {"analyzer": "word", "ngram_range": (1, 2)},
        {"analyzer": "word", "oov_token": "<unk>", "min_df": 3},  # unknown words summed
        {"analyzer": "char_wb", "ngram_range": (2, 3), "output": "binary"},
        {"analyzer": "word", "token_pattern": r"[a-z]+", "stop_words": ["the", "a"]},
    ],
)
def test_one_row_is_the_row_transform_gives(settings):
    vec = TextVectorizer(**settings).fit(TEXTS)
    for message in MESSAGES:
        row = vec.one_row(message)
        assert row is not None, (settings, message)
        expected = vec.transform([message])
        assert row[0] == expected.indices.tolist(), (settings, message)
        assert row[1] == expected.data.tolist(), (settings, message)
        assert all(type(v) is float for v in row[1])


def test_one_row_leaves_to_transform_what_it_does_not_count():
    vec = TextVectorizer(analyzer="auto").fit(TEXTS)
    assert vec.one_row("From: a@b.example\nSubject: free\n\nfree cash") is None  # an e-mail
    assert vec.one_row("free prize " * 1000) is None  # the compiled scanner's length
    assert TextVectorizer(output="tfidf").fit(TEXTS).one_row("free prize") is None
    assert TextVectorizer(output="hashed").fit(TEXTS).one_row("free prize") is None
    assert TextVectorizer(analyzer=str.split).fit(TEXTS).one_row("free prize") is None


def test_one_row_refuses_what_transform_refuses():
    with pytest.raises(NotFittedError, match="not fitted"):
        TextVectorizer().one_row("free prize")
    vec = TextVectorizer().fit(TEXTS)
    vec.set_params(ngram_range=(2, 1))
    with pytest.raises(ParameterError, match="ngram_range") as one_row:
        vec.one_row("free prize")
    with pytest.raises(ParameterError, match="ngram_range") as transform:
        vec.transform(["free prize"])
    assert str(one_row.value) == str(transform.value)


def test_many_distinct_terms_keep_their_order_and_counts():
    vec = TextVectorizer(analyzer="word").fit(TEXTS)
    message = " ".join(TEXTS[:40])[:3000]
    columns, values = vec.one_row(message)
    assert columns == sorted(set(columns))
    expected = vec.transform([message]).toarray()[0]
    assert np.array_equal(expected[columns], values)
    assert expected.sum() == sum(values)
