"""Vocabulary statistics that add: document and term frequencies of every term seen.

A vectorizer learns its vocabulary the way a model learns its parameters: ``summarize`` counts
terms in a batch of documents, statistics of different batches add (``+``: a union of terms,
frequencies summed), and ``select`` turns the total into a vocabulary — only then are
``min_df``, ``max_df``, ``max_features`` and stop words applied, so fitting in batches, on many
machines or all at once gives the same vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import all_text, find_sorted, merge_sorted_text
from ..errors import DataError, ParameterError


@dataclass(frozen=True, eq=False)
class VocabularyStats:
    """Per-term document frequency and total count over ``n_docs`` documents.

    Parameters
    ----------
    terms : ndarray of str (object dtype), sorted, distinct
    doc_freq : ndarray of int64, documents containing each term
    term_freq : ndarray of int64, occurrences of each term
    n_docs : int

    Examples
    --------
    >>> import numpy as np
    >>> a = VocabularyStats.from_counts(["free", "win"], [2, 1], [3, 1], n_docs=2)
    >>> b = VocabularyStats.from_counts(["lunch", "win"], [1, 1], [1, 2], n_docs=1)
    >>> s = a + b
    >>> s.terms.tolist(), s.doc_freq.tolist(), s.n_docs
    (['free', 'lunch', 'win'], [2, 1, 2], 3)
    """

    terms: np.ndarray
    doc_freq: np.ndarray
    term_freq: np.ndarray
    n_docs: int

    @classmethod
    def from_counts(
        cls, terms: Iterable[str], doc_freq: Iterable[int], term_freq: Iterable[int], n_docs: int
    ) -> VocabularyStats:
        """Build from parallel lists (sorted here)."""
        t = np.asarray(list(terms), dtype=object)
        order = np.argsort(t, kind="stable") if len(t) else np.zeros(0, dtype=np.int64)
        return cls(
            t[order],
            np.asarray(list(doc_freq), dtype=np.int64)[order],
            np.asarray(list(term_freq), dtype=np.int64)[order],
            int(n_docs),
        )

    @classmethod
    def zero(cls) -> VocabularyStats:
        empty = np.zeros(0, dtype=np.int64)
        return cls(np.zeros(0, dtype=object), empty, empty.copy(), 0)

    def __len__(self) -> int:
        return len(self.terms)

    def __add__(self, other: object) -> VocabularyStats:
        if not isinstance(other, VocabularyStats):
            return NotImplemented
        if len(other) == 0:
            return VocabularyStats(
                self.terms, self.doc_freq, self.term_freq, self.n_docs + other.n_docs
            )
        if len(self) == 0:
            return VocabularyStats(
                other.terms, other.doc_freq, other.term_freq, self.n_docs + other.n_docs
            )
        if all_text(self.terms) and all_text(other.terms):
            # a few new terms into a large vocabulary: merge, without sorting both again
            terms, mine, theirs = merge_sorted_text(self.terms, other.terms)
        else:
            terms = np.union1d(self.terms, other.terms)
            mine, theirs = np.searchsorted(terms, self.terms), np.searchsorted(terms, other.terms)
        df = np.zeros(len(terms), dtype=np.int64)
        tf = np.zeros(len(terms), dtype=np.int64)
        for part, where in ((self, mine), (other, theirs)):
            df[where] += part.doc_freq
            tf[where] += part.term_freq
        return VocabularyStats(terms, df, tf, self.n_docs + other.n_docs)

    def __radd__(self, other: object) -> VocabularyStats:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented

    def __sub__(self, other: object) -> VocabularyStats:
        """Remove ``other``'s documents (for unlearning); terms left with none disappear."""
        if not isinstance(other, VocabularyStats):
            return NotImplemented
        where, found = find_sorted(self.terms, other.terms)
        if not found.all():
            raise DataError("cannot remove documents with terms the vocabulary never counted")
        df, tf = self.doc_freq.copy(), self.term_freq.copy()
        np.subtract.at(df, where, other.doc_freq)
        np.subtract.at(tf, where, other.term_freq)
        if np.any(df < 0) or np.any(tf < 0) or other.n_docs > self.n_docs:
            raise DataError("cannot remove more documents than the vocabulary counted")
        keep = df > 0
        return VocabularyStats(self.terms[keep], df[keep], tf[keep], self.n_docs - other.n_docs)

    def select(
        self,
        *,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        stop_words: frozenset[str] = frozenset(),
    ) -> np.ndarray:
        """The vocabulary these statistics give under the selection rules, sorted.

        ``min_df`` / ``max_df``: an int is a number of documents, a float in [0, 1] a fraction
        of them (as in scikit-learn). ``max_features`` keeps the most frequent terms (by total
        count). Raises :class:`~bayeskit.errors.DataError` naming the setting when nothing is
        left.
        """
        index = self.select_index(
            min_df=min_df, max_df=max_df, max_features=max_features, stop_words=stop_words
        )
        return self.terms[index]

    def select_index(
        self,
        *,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        stop_words: frozenset[str] = frozenset(),
    ) -> np.ndarray:
        """Where the terms :meth:`select` keeps are in ``terms`` (increasing int64)."""
        low = _as_count(min_df, self.n_docs, "min_df")
        high = _as_count(max_df, self.n_docs, "max_df")
        keep = (self.doc_freq >= low) & (self.doc_freq <= high)
        if stop_words:
            keep &= np.fromiter((t not in stop_words for t in self.terms), bool, len(self))
        index = np.flatnonzero(keep)
        if max_features is not None:
            if not isinstance(max_features, (int, np.integer)) or max_features < 1:
                raise ParameterError(f"max_features must be a positive int; got {max_features!r}")
            if len(index) > max_features:
                # numpy's default sort on the alphabetical order, as scikit-learn does, so
                # ties at the cut fall the same way.
                order = np.argsort(-self.term_freq[index])[:max_features]
                index = np.sort(index[order])
        if len(index) == 0:
            raise DataError(
                f"the vocabulary is empty after min_df={min_df!r}, max_df={max_df!r}"
                f"{', stop words' if stop_words else ''}"
                f"{f', max_features={max_features}' if max_features else ''} "
                f"({len(self)} distinct terms in {self.n_docs} documents); lower min_df or "
                "raise max_df"
            )
        return index


def check_frequency(value: Any, name: str) -> None:
    """``min_df`` / ``max_df``: an int >= 0 (documents) or a float in [0, 1] (a fraction)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ParameterError(
            f"{name} must be an int (documents) or a float in [0, 1]; got {value!r}"
        )
    if isinstance(value, (float, np.floating)):
        if not 0.0 <= value <= 1.0:
            raise ParameterError(f"{name}={value!r}: a float {name} is a fraction in [0, 1]")
    elif value < 0:
        raise ParameterError(f"{name} must be >= 0; got {value!r}")


def _as_count(value: float, n_docs: int, name: str) -> float:
    check_frequency(value, name)
    if isinstance(value, (float, np.floating)):
        return value * n_docs
    return float(value)
