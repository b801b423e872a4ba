"""Term -> column lookups of sorted vocabularies, carried along a stream of learns.

Looking terms up in a large vocabulary goes through a dict, built once per vocabulary
(~60 ns a term: 3 ms for the 48,000 terms and pairs of a spam filter trained on SMS). A
service that learns while it answers gets a new vocabulary at every learn, the old one with
a few terms inserted, and reads only a few dozen messages with each: rebuilding the dict
every time, or searching the sorted terms until a dict would pay, was most of what a check
cost between two learns.

So the dict maps each term to an *id* that never changes once given, and each vocabulary
keeps a small int array from id to its own column (-1 for a term it does not hold). A
vocabulary made by inserting terms into one that has a lookup derives its own with a few
vectorised passes over that array, sharing the dict, which only grows (copy-on-write of
what changes). A vocabulary with no such parent counts the terms searched in it, and
inherits that count from its parent, so that a stream of learns still builds the dict once
the searches would have paid for it.

The registry is keyed by the terms array itself (an entry goes when the array does): two
vectorizers over one terms array share its lookup, and nothing is kept in a model file.
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

__all__ = [
    "TermLookup",
    "build",
    "carry_count",
    "inherit",
    "registered",
    "search_instead",
]

_LOCK = threading.Lock()
#: id(terms array) -> its lookup, or the number of terms searched in it (and its parents)
_REGISTRY: dict[int, TermLookup | int] = {}


class TermLookup:
    """Term -> column of one sorted vocabulary: ``ids`` (term -> id, shared along a stream
    of learns) and ``column`` (id -> column, -1 where the vocabulary lacks the term; one
    more entry, -1, for every id given after it was made)."""

    __slots__ = ("column", "ids")

    def __init__(self, ids: dict[str, int], column: np.ndarray) -> None:
        self.ids, self.column = ids, column

    def columns_of(self, terms: list[str]) -> np.ndarray:
        """The column of each of ``terms`` (int64, -1 outside the vocabulary)."""
        beyond = len(self.column) - 1  # the -1 entry: unknown terms and younger ids
        # (map calls dict.get from C: a generator's frame per term cost a fifth more)
        n = len(terms)
        found = np.fromiter(map(self.ids.get, terms, itertools.repeat(beyond, n)), np.int64, n)
        np.minimum(found, beyond, out=found)
        return self.column[found]

    def derived(
        self, moved: np.ndarray, child: np.ndarray, fresh: np.ndarray | None = None
    ) -> TermLookup:
        """The lookup of ``child``, a vocabulary holding all of this one's terms: ``moved``
        gives the column in ``child`` of each of this vocabulary's columns, ``fresh`` (when
        the caller knows them) the columns of ``child``'s other terms, sorted."""
        if fresh is None:
            unmoved = np.ones(len(child), dtype=bool)
            unmoved[moved] = False
            fresh = np.flatnonzero(unmoved)
        new_terms = child[fresh].tolist()
        with _LOCK:  # ids are given one at a time, whichever thread asks
            ids = self.ids
            for term in new_terms:
                ids.setdefault(term, len(ids))
            new_ids = np.fromiter((ids[t] for t in new_terms), np.int64, len(new_terms))
            size = len(ids)
        old = self.column[:-1]
        column = np.full(size + 1, -1, np.int64)
        # (an id of a term this vocabulary lacks reads moved[-1], then marked -1 again: one
        # gather and one masked write, where np.where made two more temporaries)
        if len(moved):  # (else every id is a term this vocabulary lacks: -1 already)
            kept = column[: len(old)]
            np.take(moved, old, out=kept)
            np.putmask(kept, old < 0, -1)
        column[new_ids] = fresh
        return TermLookup(ids, column)


def registered(terms: np.ndarray) -> TermLookup | None:
    """The lookup of ``terms``, if one was built or derived."""
    entry = _REGISTRY.get(id(terms))
    return entry if isinstance(entry, TermLookup) else None


def build(terms: np.ndarray) -> TermLookup:
    """The lookup of ``terms`` (sorted, distinct), built now and kept while they live."""
    listed: list[str] = terms.tolist()
    n = len(listed)
    lookup = TermLookup(dict(zip(listed, range(n), strict=True)), np.append(np.arange(n), -1))
    _register(terms, lookup)
    return lookup


def search_instead(terms: np.ndarray, n: int, budget: float) -> bool:
    """Whether ``n`` more terms should be searched for in ``terms`` rather than a lookup
    built: True while the terms searched in it and in the vocabularies it was made from
    stay within ``budget`` (a hint: threads that race on it only move the moment the
    lookup is built)."""
    entry = _REGISTRY.get(id(terms), 0)
    total = n + (entry if isinstance(entry, int) else 0)
    if total > budget:
        return False
    _register(terms, total)
    return True


def inherit(
    parent: np.ndarray, child: np.ndarray, moved: np.ndarray, fresh: np.ndarray | None = None
) -> None:
    """Record that ``child`` holds every term of ``parent``, column ``c`` of ``parent`` at
    column ``moved[c]`` of ``child`` (``fresh``: the columns of its other terms, when
    known): ``child`` derives its lookup from ``parent``'s, or carries on its count of
    searches."""
    entry = _REGISTRY.get(id(parent))
    if entry is None or child is parent:
        return
    lookup = entry.derived(moved, child, fresh) if isinstance(entry, TermLookup) else entry
    _register(child, lookup)


def carry_count(parent: np.ndarray, child: np.ndarray) -> None:
    """:func:`inherit` where ``parent`` has no lookup (at most a count of searches, passed
    on): no column moves to compute. A lookup built meanwhile by another thread is not
    passed on (``child`` then counts its searches afresh: slower, never wrong)."""
    entry = _REGISTRY.get(id(parent))
    if isinstance(entry, int) and child is not parent:
        _register(child, entry)


def _register(terms: np.ndarray, entry: TermLookup | int) -> None:
    key = id(terms)
    with _LOCK:
        fresh = key not in _REGISTRY
        _REGISTRY[key] = entry
    if fresh:  # the entry goes with the array (before its id can be given to another)
        weakref.finalize(terms, _REGISTRY.pop, key, None)
