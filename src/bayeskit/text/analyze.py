"""From a document to its terms: decoding, lowercasing, tokens, stop words, n-grams.

The default rule is scikit-learn's ``CountVectorizer``: lowercase, then every run of two or
more Unicode word characters (``(?u)\\b\\w\\w+\\b``), so vocabularies and counts can be
compared one to one. Character n-grams serve text without spaces.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import InputTypeError, ParameterError

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
_WHITE_SPACES = re.compile(r"\s\s+")

# A compact English stop-word list (function words only): pronouns, articles, auxiliaries,
# prepositions and conjunctions. Selecting features by usefulness (seed 002) is the
# data-driven alternative; see bayeskit.inspection.feature_usefulness.
ENGLISH_STOP_WORDS = frozenset(
    # A word list reads best as text; the split runs once at import.
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905
)


def decode(doc: Any, *, encoding: str = "utf-8", fallback: str = "latin-1") -> str:
    """A document as text: ``str`` as is; ``bytes`` decoded with ``encoding``, and bytes that
    are not valid in it decoded with ``fallback`` (latin-1 maps every byte, so this never
    fails)."""
    if isinstance(doc, str):
        return doc
    if isinstance(doc, (bytes, bytearray, memoryview)):
        raw = bytes(doc)
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            return raw.decode(fallback, errors="replace")
    if doc is None:
        return ""
    raise InputTypeError(
        f"documents must be str or bytes, got {type(doc).__name__} ({doc!r:.60}); pass an "
        "iterable of texts, not a single string or a matrix"
    )


def stop_word_set(stop_words: Any) -> frozenset[str]:
    if stop_words is None:
        return frozenset()
    if stop_words == "english":
        return ENGLISH_STOP_WORDS
    if isinstance(stop_words, str):
        raise ParameterError(
            f"stop_words={stop_words!r}; accepted: None, 'english' or a list of words"
        )
    return frozenset(str(w) for w in stop_words)


def check_ngram_range(ngram_range: Any) -> tuple[int, int]:
    try:
        low, high = (int(v) for v in ngram_range)
    except (TypeError, ValueError):
        raise ParameterError(
            f"ngram_range must be a pair (min_n, max_n); got {ngram_range!r}"
        ) from None
    if not 1 <= low <= high:
        raise ParameterError(f"ngram_range={ngram_range!r} needs 1 <= min_n <= max_n")
    return low, high


def make_analyzer(
    *,
    analyzer: str | Callable[[str], Iterable[str]] = "word",
    lowercase: bool = True,
    token_pattern: str = DEFAULT_TOKEN_PATTERN,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: frozenset[str] = frozenset(),
) -> Callable[[str], list[str]]:
    """A function from decoded text to its list of terms."""
    low, high = check_ngram_range(ngram_range)
    if callable(analyzer):
        user = analyzer

        def custom(text: str) -> list[str]:
            return [str(t) for t in user(text)]

        return custom
    if analyzer == "word":
        try:
            find = re.compile(token_pattern).findall
        except re.error as exc:
            raise ParameterError(f"token_pattern {token_pattern!r} is not a regex: {exc}") from None

        def words(text: str) -> list[str]:
            tokens = find(text.lower() if lowercase else text)
            if stop_words:
                tokens = [t for t in tokens if t not in stop_words]
            if high == 1:
                return tokens
            return _word_ngrams(tokens, low, high)

        return words
    if analyzer == "email":
        return email_analyzer
    if analyzer in ("char", "char_wb"):
        wb = analyzer == "char_wb"

        def chars(text: str) -> list[str]:
            text = _WHITE_SPACES.sub(" ", text.lower() if lowercase else text)
            if wb:
                return _char_wb_ngrams(text, low, high)
            return [text[i : i + n] for n in range(low, high + 1) for i in range(len(text) - n + 1)]

        return chars
    raise ParameterError(
        f"analyzer={analyzer!r}; accepted: 'word', 'char', 'char_wb', 'email' or a callable"
    )


def email_analyzer(doc: Any) -> list[str]:
    """Tokens of a raw email (bytes, text or a parsed ``Message``): SpamBayes-style header
    tokens, URL hosts and body words (see :func:`bayeskit.text.email.email_tokens`)."""
    from .email import Message, email_tokens, read_message

    if not isinstance(doc, Message):
        if isinstance(doc, str):
            try:
                doc = doc.encode("latin-1")
            except UnicodeEncodeError:
                doc = doc.encode("utf-8", "surrogatepass")
        elif not isinstance(doc, (bytes, bytearray, memoryview)):
            raise InputTypeError(
                f"an email must be bytes, text or a bayeskit Message, not {type(doc).__name__}"
            )
        doc = read_message(bytes(doc))
    return email_tokens(doc)


def _word_ngrams(tokens: list[str], low: int, high: int) -> list[str]:
    out = list(tokens) if low == 1 else []
    for n in range(max(low, 2), high + 1):
        out.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return out


def _char_wb_ngrams(text: str, low: int, high: int) -> list[str]:
    out: list[str] = []
    for word in text.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            out.extend(padded[i : i + n] for i in range(max(len(padded) - n + 1, 1)))
            if len(padded) <= n:  # a short word counts once, as a whole
                break
    return out
