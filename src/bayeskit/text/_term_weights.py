"""Each terms array's weights under a vectorizer's weighting, kept while the array lives, and
passed on to the terms array a merge makes of it.

A text model's vocabulary weighs its terms apart (``subject_weight``, ``ngram_weights``):
finding each weight reads the term's string, about 0.3 s for the 1.17 million terms of 20
Newsgroups. A learned document merges the model's terms with its own into a new array
(:class:`~bayeskit.text.DocumentStats`), which would be weighed again term by term; a merge
records instead where the old terms went (:func:`inherit`), and the new array's weights are
the old ones moved there, only its new terms weighed (:func:`inherited`).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from .._identity import KeptBeside

#: (the weighting, the weights) of a terms array, while it lives.
_KEPT: KeptBeside[tuple[tuple[Any, ...], np.ndarray]] = KeptBeside()
#: (the weighting, the weights of the terms array it came from, where they went).
_PASSED_ON: KeptBeside[tuple[tuple[Any, ...], np.ndarray, np.ndarray]] = KeptBeside()


def kept(terms: Any, weighting: tuple[Any, ...]) -> np.ndarray | None:
    """The weights kept beside ``terms`` under ``weighting``, or None."""
    found = _KEPT.get(terms)
    return found[1] if found is not None and found[0] == weighting else None


def keep(terms: Any, weighting: tuple[Any, ...], weights: np.ndarray) -> None:
    """Keep ``weights`` (read-only) beside ``terms`` while it lives."""
    _KEPT.put(terms, (weighting, weights))


def holds(terms: Any) -> bool:
    """Whether weights are kept beside ``terms``."""
    return _KEPT.get(terms) is not None


def inherit(parent: Any, child: Any, moved: np.ndarray) -> None:
    """Record that ``child`` holds every term of ``parent``, column ``c`` of ``parent`` at
    column ``moved[c]`` of ``child`` (where ``parent`` has weights kept)."""
    found = _KEPT.get(parent)
    if found is not None and child is not parent:
        _PASSED_ON.put(child, (found[0], found[1][: len(moved)], np.asarray(moved)))


def inherited(child: Any, weighting: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(weights, their columns in ``child``) passed on to ``child`` under ``weighting``, or
    None; given once (``child``'s own weights are kept then)."""
    found = _PASSED_ON.get(child)
    if found is None or found[0] != weighting:
        return None
    _PASSED_ON.pop(child)
    return found[1], found[2]


#: Fewer terms than this are read by str methods (below it the numpy steps cost more).
MARKED_MIN_TERMS = 1 << 12
_SUBJECT = np.frombuffer(b"subject:", np.uint8)


def term_marks(terms: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of ``terms``: how many spaces it holds (``str.count(" ")``), whether it holds
    a colon and whether it starts with ``subject:`` — the same answers as those str methods,
    for a long list read as one byte array (:func:`_joined`), where mapping the methods over
    a million terms took ~0.25 s."""
    n = len(terms)
    joined = _joined(terms)
    if joined is None:
        return (
            np.fromiter(map(str.count, terms, repeat(" ")), np.int64, count=n),
            holds_colon(terms),
            np.fromiter(map(str.startswith, terms, repeat("subject:")), bool, count=n),
        )
    data, ends = joined
    spaces = _per_term(data == 32, ends, n)
    colon = _per_term(data == 58, ends, n) > 0
    # "subject:" holds a colon: only the terms that do (the header tokens, a few) are read
    starts = np.empty(n, np.int64)
    starts[0] = 0
    starts[1:] = ends + 1
    stops = np.append(ends, data.size)
    subject = np.zeros(n, bool)
    long = np.flatnonzero(colon & (stops - starts >= _SUBJECT.size))
    subject[long] = (data[starts[long, None] + np.arange(_SUBJECT.size)] == _SUBJECT).all(axis=1)
    return spaces, colon, subject


def holds_colon(terms: list[str]) -> np.ndarray:
    """``[":" in term for term in terms]`` (as :func:`term_marks` reads it)."""
    joined = _joined(terms)
    if joined is None:
        return np.fromiter(map(str.__contains__, terms, repeat(":")), bool, count=len(terms))
    data, ends = joined
    return _per_term(data == 58, ends, len(terms)) > 0


def _joined(terms: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """The terms' UTF-8 bytes, one NUL between two, and where each NUL is; None for fewer
    than :data:`MARKED_MIN_TERMS` terms or a term holding a NUL. (A space, a colon and ASCII
    letters are the same bytes in UTF-8, and no byte of a longer character is one of them.)"""
    if len(terms) < MARKED_MIN_TERMS:
        return None
    joined = "\x00".join(terms)
    if joined.count("\x00") != len(terms) - 1:
        return None
    data = np.frombuffer(joined.encode("utf-8", "surrogatepass"), np.uint8)
    return data, np.flatnonzero(data == 0)


def _per_term(found: np.ndarray, ends: np.ndarray, n: int) -> np.ndarray:
    """How many of the bytes ``found`` each of the ``n`` terms holds (the term of a byte at
    ``p``: the NULs before ``p``; a search a byte found, and they are few)."""
    return np.bincount(np.searchsorted(ends, np.flatnonzero(found)), minlength=n).astype(
        np.int64, copy=False
    )
