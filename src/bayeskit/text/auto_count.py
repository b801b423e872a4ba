"""Counting analyzer="auto"'s terms with the compiled scanner doing the words.

``auto`` reads a raw e-mail (or news post) as its header and URL tokens followed by the word
n-grams of its decoded body, and any other document as its word n-grams. The word n-grams are
almost all of the terms, and the compiled scanner finds them (:func:`~bayeskit.text._scan.
count_terms`), so only the few tokens of each message's header and URLs are made in Python:
each message is parsed once, its body goes to the scanner with the plain documents' texts, and
the parts' counts are added over the union of their terms. The result is the Python analyzer's,
term for term and count for count (the scanner gives the word analyzer's terms exactly, and the
counts are whole numbers, exact in any order): 20 Newsgroups' 11,314 training posts, 1-2-grams,
about 8 s in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._values import merge_sorted_text

#: counts texts as analyzer="word" does: (sorted distinct terms, CSR counts)
WordCounter = Callable[[list[Any]], tuple[np.ndarray, sp.csr_matrix]]


def count_auto(
    words: WordCounter, documents: list[Any], mail: np.ndarray, subject_in_text: bool = False
) -> tuple[np.ndarray, sp.csr_matrix]:
    """Sorted distinct terms of ``documents`` under analyzer="auto" and their counts (CSR,
    canonical), given ``words`` (what counts texts as the same vectorizer with
    analyzer="word" counts them), which documents are raw e-mails, and whether an e-mail's
    subject line is read as text too."""
    from .analyze import _message, email_text
    from .email import email_tokens

    plain, mailed = np.flatnonzero(~mail), np.flatnonzero(mail)
    messages = [_message(documents[i]) for i in mailed.tolist()]
    # Header and URL tokens (the body's words are left to the scanner: text="").
    heads = [email_tokens(replace(message, text="")) for message in messages]
    parts = [
        (mailed, *count_token_lists(heads)),
        (mailed, *words([email_text(message, subject_in_text) for message in messages])),
    ]
    if len(plain):
        parts.append((plain, *words([documents[i] for i in plain.tolist()])))
    return _add_parts(parts, len(documents))


def count_token_lists(token_lists: Iterable[Iterable[str]]) -> tuple[np.ndarray, sp.csr_matrix]:
    """Sorted distinct tokens of some token lists (one per document) and their counts (CSR,
    canonical: each row's columns sorted)."""
    index: dict[str, int] = {}
    indices: list[int] = []
    indptr = [0]
    for tokens in token_lists:
        indices += [index.setdefault(token, len(index)) for token in tokens]
        indptr.append(len(indices))
    terms = np.empty(len(index), dtype=object)
    terms[:] = list(index)
    order = np.argsort(terms, kind="stable") if len(terms) else np.zeros(0, np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    columns = rank[np.asarray(indices, dtype=np.int64)] if indices else np.zeros(0, np.int64)
    counts = sp.csr_matrix(
        (np.ones(len(columns)), columns, np.asarray(indptr, dtype=np.int64)),
        shape=(len(indptr) - 1, len(terms)),
    )
    counts.sum_duplicates()
    return terms[order], counts


def _add_parts(
    parts: list[tuple[np.ndarray, np.ndarray, sp.csr_matrix]], n_rows: int
) -> tuple[np.ndarray, sp.csr_matrix]:
    """The sum of some count matrices, each over its own sorted terms and for some of the
    rows (``(rows, terms, counts)``), as one canonical matrix over the union of the terms."""
    # Each part's terms' places in the union, kept as the union grows (merging finds them:
    # no search of a million strings among a million more).
    terms = parts[0][1]
    places = [np.arange(len(terms))]
    for _, more, _ in parts[1:]:
        terms, moved, placed = merge_sorted_text(terms, more)
        places = [moved[p] for p in places] + [placed]
    rows, columns, data = [], [], []
    for (where, _, counts), place in zip(parts, places, strict=True):
        counts = counts.tocsr()
        rows.append(np.repeat(where, np.diff(counts.indptr)))
        columns.append(place[counts.indices])
        data.append(counts.data)
    out = sp.csr_matrix(
        (np.concatenate(data), (np.concatenate(rows), np.concatenate(columns))),
        shape=(n_rows, len(terms)),
    )
    out.sum_duplicates()
    return terms, out
