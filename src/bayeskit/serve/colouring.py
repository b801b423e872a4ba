"""The message of ``/check?words=1`` cut into ``[text, weight or null]`` pieces for the page.

A term's contribution to the log-odds (``x_j (W_a,j - W_c,j)``, the linear form of the
count models, McCallum & Nigam 1998) is shared out over the text it was read from, so that
the pieces' weights add up to the contributions of the terms found in the shown text (the
tests check the sums):

- each occurrence of a term carries an equal share of the term's contribution (a word seen
  three times carries a third each);
- an occurrence is spread equally over the units it covers: a word n-gram over its n words,
  a character n-gram over its characters (a word or character inside several n-grams adds
  up its shares). Words are the units of the word and e-mail analyzers, characters those of
  ``char`` and ``char_wb``.

For ``char_wb`` the spaces padding each word are not characters of the message: an n-gram's
share goes to the word's characters it covers (``" f"``, "a word that starts with f",
colours the ``f``), and the lone padding ``" "`` to the whole word. A run of white space,
read by the character analyzers as one space, is one unit. Terms outside the vocabulary
share the ``oov_token`` column when the vectorizer has one. A callable analyzer cannot be
traced back to the text: its message is shown uncoloured.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..text import TextVectorizer
from ..text.analyze import check_ngram_range, is_raw_email, stop_word_set

__all__ = ["MAX_SHOWN_CHARS", "segments", "shown_units"]

MAX_SHOWN_CHARS = 200_000
_EMAIL_WORD = re.compile(r"(?u)\b\w\w+\b")
_WHITE_SPACES = re.compile(r"\s\s+")  # as bayeskit.text.analyze reads character n-grams
_WORD = re.compile(r"\S+")  # str.split()'s words


def shown_units(vec: TextVectorizer) -> str | None:
    """What :func:`segments` colours for this vectorizer: ``"words"`` (the word, e-mail and
    auto analyzers), ``"characters"`` (character n-grams), or None (a callable analyzer,
    whose terms cannot be traced back to the text). The page words its legend from this."""
    if vec.analyzer in ("word", "email", "auto"):
        return "words"
    if vec.analyzer in ("char", "char_wb"):
        return "characters"
    return None


def segments(vec: TextVectorizer, doc: str | bytes, by_term: dict[str, float]) -> list[list[Any]]:
    """The shown message in pieces; ``by_term`` maps each term of the message (a column the
    model scores) to its contribution."""
    oov = vec.oov_token if vec.oov_token in by_term else None
    if vec.analyzer == "email" or (vec.analyzer == "auto" and is_raw_email(doc)):
        from ..text.email import read_message

        message = read_message(doc if isinstance(doc, bytes) else doc.encode("utf-8"))
        pieces = [("Subject: ", None), (message.subject, "subject:"), ("\n\n", None)]
        return _words([*pieces, (message.text, "")], _EMAIL_WORD, True, by_term, (1, 1))
    text = doc if isinstance(doc, str) else doc.decode("utf-8", "replace")
    ngrams = check_ngram_range(vec.ngram_range)
    if vec.analyzer in ("word", "auto"):  # "auto" reads a text that is no e-mail as words
        stop = stop_word_set(vec.stop_words)
        pattern = re.compile(vec.token_pattern)
        return _words([(text, "")], pattern, bool(vec.lowercase), by_term, ngrams, stop, oov)
    if vec.analyzer in ("char", "char_wb"):
        wb = vec.analyzer == "char_wb"
        return _characters(text[:MAX_SHOWN_CHARS], bool(vec.lowercase), wb, ngrams, by_term, oov)
    return [[text[:MAX_SHOWN_CHARS], None]]  # a callable analyzer


def _spread(
    n_units: int,
    occurrences: list[tuple[str, int, int]],
    by_term: dict[str, float],
    oov: str | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(weight, scored) of each unit from ``(term, first unit, end unit)`` occurrences."""
    found = []
    for term, start, end in occurrences:
        if term not in by_term:
            if oov is None:
                continue
            term = oov
        found.append((term, start, end))
    times: dict[str, int] = {}
    for term, _, _ in found:
        times[term] = times.get(term, 0) + 1
    first = np.fromiter((o[1] for o in found), np.int64, len(found))
    width = np.fromiter((o[2] - o[1] for o in found), np.int64, len(found))
    share = np.fromiter((by_term[o[0]] / times[o[0]] for o in found), np.float64, len(found))
    # Every unit an occurrence covers gets share / width (bincount adds them up per unit).
    at = np.repeat(first - np.cumsum(width) + width, width) + np.arange(width.sum())
    weight = np.bincount(at, np.repeat(share / width, width), n_units)
    return weight, np.bincount(at, minlength=n_units) > 0


def _words(
    pieces: list[tuple[str, str | None]],
    pattern: re.Pattern[str],
    lowercase: bool,
    by_term: dict[str, float],
    ngrams: tuple[int, int],
    stop: frozenset[str] = frozenset(),
    oov: str | None = None,
) -> list[list[Any]]:
    """Cut each ``(text, term prefix)`` piece at the words ``pattern`` finds (pieces whose
    prefix is None are shown as they are); words are the units."""
    texts: list[str] = []
    spans: list[tuple[int, int, int]] = []  # (piece, start, end) of each word
    keys: list[str] = []
    occurrences: list[tuple[str, int, int]] = []
    budget = MAX_SHOWN_CHARS
    low, high = ngrams
    for i, (text, prefix) in enumerate(pieces):
        text = text[: max(budget, 0)]
        budget -= len(text)
        texts.append(text)
        if prefix is None:
            continue
        first = len(spans)
        for m in pattern.finditer(text):
            word = m.group().lower() if lowercase else m.group()
            if word in stop:  # dropped before n-grams are formed, as the analyzer does
                continue
            spans.append((i, m.start(), m.end()))
            keys.append(prefix + word)
        for n in range(low, high + 1):
            occurrences.extend(
                (" ".join(keys[k : k + n]), k, k + n) for k in range(first, len(keys) - n + 1)
            )
    weight, scored = _spread(len(spans), occurrences, by_term, oov)
    out: list[list[Any]] = []
    unit = 0
    for i, text in enumerate(texts):
        at = 0
        while unit < len(spans) and spans[unit][0] == i:
            _, start, end = spans[unit]
            if scored[unit]:
                if start > at:
                    out.append([text[at:start], None])
                out.append([text[start:end], float(weight[unit])])
                at = end
            unit += 1
        if at < len(text):
            out.append([text[at:], None])
    return out


def _characters(
    text: str,
    lowercase: bool,
    wb: bool,
    ngrams: tuple[int, int],
    by_term: dict[str, float],
    oov: str | None,
) -> list[list[Any]]:
    """Characters are the units: the text read as the character analyzers read it
    (lowercased, runs of white space as one space), each of its characters mapped back to
    the span of the shown text it came from."""
    lowered = text.lower() if lowercase else text
    if len(lowered) == len(text):
        origin = list(range(len(text)))
    else:  # a character whose lowercase is longer ("İ"): its pieces map back to it
        parts = [c.lower() for c in text]
        lowered = "".join(parts)
        origin = [i for i, part in enumerate(parts) for _ in part]
    read: list[str] = []
    spans: list[tuple[int, int]] = []  # the shown text each character read stands for
    at = 0
    for m in [*_WHITE_SPACES.finditer(lowered), None]:
        stop = len(lowered) if m is None else m.start()
        read.append(lowered[at:stop])
        spans.extend((origin[k], origin[k] + 1) for k in range(at, stop))
        if m is not None:
            read.append(" ")
            spans.append((origin[m.start()], origin[m.end() - 1] + 1))
            at = m.end()
    norm = "".join(read)
    low, high = ngrams
    occurrences: list[tuple[str, int, int]] = []
    if wb:
        for m in _WORD.finditer(norm):
            start, word = m.start(), m.group()
            padded = f" {word} "
            for n in range(low, high + 1):
                for j in range(max(len(padded) - n + 1, 1)):
                    lo, hi = max(j, 1), min(j + n, len(word) + 1)
                    if lo >= hi:  # padding alone: the word's boundary
                        lo, hi = 1, len(word) + 1
                    occurrences.append((padded[j : j + n], start + lo - 1, start + hi - 1))
                if len(padded) <= n:  # a short word counts once, as a whole
                    break
    else:
        for n in range(low, high + 1):
            occurrences.extend((norm[k : k + n], k, k + n) for k in range(len(norm) - n + 1))
    weight, scored = _spread(len(norm), occurrences, by_term, oov)
    out: list[list[Any]] = []
    shown = 0
    k = 0
    while k < len(spans):
        start, end = spans[k]
        w, scores = float(weight[k]), bool(scored[k])
        k += 1
        while k < len(spans) and spans[k] == (start, end):  # the pieces of one character
            w, scores = w + float(weight[k]), scores or bool(scored[k])
            k += 1
        piece = text[shown:end]  # with anything before it that was not read (none is)
        if scores:
            if start > shown:
                out.append([text[shown:start], None])
            out.append([text[start:end], w])
        elif out and out[-1][1] is None:
            out[-1][0] += piece
        else:
            out.append([piece, None])
        shown = end
    if shown < len(text):
        out.append([text[shown:], None])
    return out
