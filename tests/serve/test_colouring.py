"""The coloured message of ``/check?words=1``: each word or character carries its share of
the terms' contributions to the log-odds, by the rule of :mod:`bayeskit.serve.colouring`,
checked against the model's own ``explain`` (sums) and against a direct count (each unit)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from bayeskit.serve.scoring import Scorer
from bayeskit.text import SpamFilter, TextVectorizer

SPAM = "WINNER!! Claim your FREE prize now: call 09061701461, free entry"
TEXTS = [
    SPAM,
    "see you at lunch tomorrow, I will bring the notes",
    "Free  free\n\n\tFREE   money",  # runs of white space
    "İstanbul ΟΔΟΣ straße",  # lowercase longer than the text, a final sigma
    "x",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def fitted(sms):
    texts, labels = sms
    texts, labels = texts[:1000], labels[:1000]
    vectorizers = {
        "char": TextVectorizer(analyzer="char", ngram_range=(2, 4), min_df=3, oov_token="<oov>"),
        "char_wb": TextVectorizer(analyzer="char_wb", ngram_range=(1, 3)),
        "word_bigrams": TextVectorizer(ngram_range=(1, 2), stop_words="english"),
        "word": TextVectorizer(),
    }
    return {k: SpamFilter(vectorizer=v).fit(texts, labels) for k, v in vectorizers.items()}


def _pieces(model, text):
    return Scorer.of(model).check(text, words=True)["words"]


@pytest.mark.parametrize("kind", ["char", "char_wb", "word_bigrams", "word"])
@pytest.mark.parametrize("text", TEXTS)
def test_the_colours_add_up_to_the_log_odds(fitted, kind, text):
    model = fitted[kind]
    pieces = _pieces(model, text)
    assert "".join(p for p, _ in pieces) == text  # the whole message, in order
    why = model.explain(text, label="spam", versus="ham")
    total = sum(w for _, w in pieces if w is not None)
    assert total == pytest.approx(sum(c.weight for c in why.contributions), rel=1e-9, abs=1e-9)
    bias = why.log_odds - sum(c.weight for c in why.contributions)  # the class priors' part
    assert total + bias == pytest.approx(why.log_odds, rel=1e-9, abs=1e-9)
    assert all(a[1] is not None or b[1] is not None for a, b in itertools.pairwise(pieces))


def _by_hand(text: str, weights: dict[str, float], low: int, high: int, wb: bool) -> list[float]:
    """Each character's colour for one-space ASCII text, counted directly: every occurrence
    of an n-gram gives weight / occurrences / (message characters it covers) to each."""
    text = text.lower()
    spans = []  # (n-gram, first character, end) in the text
    if wb:
        at = 0
        for word in text.split(" "):
            padded = f" {word} "
            for n in range(low, high + 1):
                for j in range(max(len(padded) - n + 1, 1)):
                    inside = [at + k - 1 for k in range(j, j + n) if 1 <= k <= len(word)]
                    inside = inside or list(range(at, at + len(word)))  # the padding alone
                    spans.append((padded[j : j + n], inside[0], inside[-1] + 1))
                if len(padded) <= n:
                    break
            at += len(word) + 1
    else:
        for n in range(low, high + 1):
            spans += [(text[i : i + n], i, i + n) for i in range(len(text) - n + 1)]
    times = Counter(g for g, _, _ in spans)
    colour = [0.0] * len(text)
    for g, start, end in spans:
        for k in range(start, end):
            colour[k] += weights.get(g, 0.0) / times[g] / (end - start)
    return colour


@pytest.mark.parametrize("kind", ["char", "char_wb"])
def test_each_character_by_hand(fitted, kind):
    model = fitted[kind]
    vec = model.vectorizer
    text = "Claim your free prize now at lunch"
    weights = {c.feature: c.weight for c in model.explain(text, label="spam").contributions}
    if vec.oov_token is not None:  # n-grams outside the vocabulary share the oov column
        known = set(model.get_feature_names_out())
        low, high = vec.ngram_range
        unknown = Counter(
            text.lower()[i : i + n]
            for n in range(low, high + 1)
            for i in range(len(text) - n + 1)
            if text.lower()[i : i + n] not in known
        )
        for g, k in unknown.items():
            weights[g] = weights.get(vec.oov_token, 0.0) * k / sum(unknown.values())
    expected = _by_hand(text, weights, *vec.ngram_range, wb=kind == "char_wb")
    pieces = _pieces(model, text)
    shown = [w for t, w in pieces for _ in t] if kind == "char" else None
    if kind == "char_wb":  # the spaces between words carry nothing
        shown = [0.0 if w is None else w for t, w in pieces for _ in t]
        assert all(w is None for t, w in pieces if t == " ")
    np.testing.assert_allclose(shown, expected, rtol=1e-9, atol=1e-12)


def test_char_wb_gives_a_words_edges_to_its_characters(fitted):
    model = fitted["char_wb"]
    weights = {c.feature: c.weight for c in model.explain("x", label="spam").contributions}
    # " x " read as 1- to 3-grams: " ", "x", " " / " x", "x " / " x ": all of them are about x
    assert set(weights) <= {" ", "x", " x", "x ", " x "}
    assert _pieces(model, "x") == [["x", pytest.approx(sum(weights.values()), rel=1e-12)]]


def test_a_word_phrase_is_shared_by_its_words(fitted):
    model = fitted["word_bigrams"]
    text = "free entry free entry"
    weights = {c.feature: c.weight for c in model.explain(text, label="spam").contributions}
    assert "free entry" in weights
    pieces = [(t, w) for t, w in _pieces(model, text) if w is not None]
    assert [t for t, _ in pieces] == ["free", "entry", "free", "entry"]
    # each word: its share of its own term (seen twice: half), and of each phrase it is in
    # ("free entry", seen twice and two words long: a quarter; "entry free", seen once: half)
    phrase, other = weights["free entry"] / 4, weights.get("entry free", 0.0) / 2
    expected = [
        weights["free"] / 2 + phrase,
        weights["entry"] / 2 + phrase + other,
        weights["free"] / 2 + phrase + other,
        weights["entry"] / 2 + phrase,
    ]
    np.testing.assert_allclose([w for _, w in pieces], expected, rtol=1e-12)


def test_white_space_runs_are_one_piece_and_stop_words_carry_nothing(fitted):
    pieces = _pieces(fitted["char"], "Free  free\n\n\tFREE")
    # each run is one piece (the analyzer reads it as one space), coloured as that space
    assert [t for t, _ in pieces] == [*"Free", "  ", *"free", "\n\n\t", *"FREE"]
    assert all(w is not None for _, w in pieces)
    alone = _pieces(fitted["char"], "Free free\tFREE")
    assert pieces[4][1] == pytest.approx(alone[4][1], rel=1e-12)
    stop = _pieces(fitted["word_bigrams"], "the prize of the week")
    assert ["the", None] not in stop
    assert any(t.startswith("the ") and w is None for t, w in stop)


def test_the_service_colours_a_character_model(serve, char_file):
    client = serve(char_file)
    assert client.get("/metadata").json()["analyzer"] == "char_wb"
    got = client.post("/check?words=1", content=SPAM).json()
    assert "".join(p for p, _ in got["words"]) == SPAM
    coloured = [(t, w) for t, w in got["words"] if w is not None]
    assert [t for t, _ in coloured] == list(SPAM.replace(" ", ""))  # every letter, alone
    assert sum(w for _, w in coloured) == pytest.approx(got["log_odds"] - _bias(client), rel=1e-9)


def _bias(client) -> float:
    """The log-odds of an empty message: the priors' part, which no character carries."""
    return client.post("/check", content="").json()["log_odds"]
