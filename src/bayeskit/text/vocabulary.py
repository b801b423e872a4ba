"""Vocabulary statistics that add: document and term frequencies of every term seen.

A vectorizer learns its vocabulary the way a model learns its parameters: ``summarize`` counts
terms in a batch of documents, statistics of different batches add (``+``: a union of terms,
frequencies summed), and ``select`` turns the total into a vocabulary — only then are
``min_df``, ``max_df``, ``max_features`` and stop words applied, so fitting in batches, on many
machines or all at once gives the same vocabulary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._validation import as_real, check_positive_int
from .._values import all_text, find_sorted, merge_sorted_text
from ..errors import DataError, ParameterError


class LazyTerms:
    """Sorted distinct terms whose ``str`` objects are made when first read.

    The compiled scanner knows a vocabulary's terms as bytes; making a ``str`` of each takes
    most of what is left of a fit once the counts are done (~50 ns a term: 0.07 s of the
    1.2 million 1-2-grams of 20 Newsgroups), and a vectorizer feeding a classifier never reads
    them. :class:`VocabularyStats` and ``TextVectorizer`` hold them like this until something
    asks for the terms as strings; :meth:`array` makes them, once (any thread).

    ``origin`` is what made them (the scanner keeps there how it counted them); ``known``,
    some of them made already: ``(positions, strings)``, the positions increasing (the header
    tokens of e-mails among the words the scanner counted), read by :meth:`strings_at`.

    Examples
    --------
    >>> lazy = LazyTerms(2, lambda: np.array(["free", "win"], dtype=object))
    >>> len(lazy), lazy.made
    (2, False)
    >>> lazy.array().tolist(), lazy.made
    (['free', 'win'], True)
    >>> lazy.array() is lazy.array()
    True
    """

    __slots__ = ("__weakref__", "_lock", "_made", "_make", "_n", "known", "origin")

    def __init__(
        self,
        n: int,
        make: Callable[[], np.ndarray],
        origin: Any = None,
        known: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self._n = int(n)
        self._make: Callable[[], np.ndarray] | None = make
        self._made: np.ndarray | None = None
        self._lock = threading.Lock()
        self.origin = origin
        self.known = known

    def __len__(self) -> int:
        return self._n

    @property
    def made(self) -> bool:
        """Whether the ``str`` objects exist yet."""
        return self._made is not None

    def array(self) -> np.ndarray:
        """The terms (object array of str), made on the first call."""
        made = self._made
        if made is None:
            with self._lock:
                if self._made is None:
                    assert self._make is not None
                    terms = self._make()
                    if len(terms) != self._n:
                        raise AssertionError(f"{len(terms)} terms made, {self._n} expected")
                    self._made, self._make = terms, None
                made = self._made
        return made

    def strings_at(self, index: np.ndarray) -> list[str]:
        """The terms at ``index`` (a list of str): none made for an empty ``index``, only
        those ``known`` holds when it holds them all, else all made (:meth:`array`)."""
        if len(index) == 0:
            return []
        if self.made or self.known is None:
            return self.array()[index].tolist()
        at, strings = self.known
        where = np.searchsorted(at, index)
        inside = where < len(at)
        if not inside.all() or not np.array_equal(at[where], index):
            return self.array()[index].tolist()
        return strings[where].tolist()

    def take(self, index: np.ndarray) -> LazyTerms:
        """The terms at ``index``, made when first read (from all of these)."""
        return LazyTerms(len(index), lambda: self.array()[index])

    def __repr__(self) -> str:
        return f"LazyTerms({self._n} terms{'' if self.made else ', not made yet'})"


def as_terms(terms: np.ndarray | LazyTerms) -> np.ndarray:
    """``terms`` as an object array of str (made now if they are :class:`LazyTerms`)."""
    return terms if isinstance(terms, np.ndarray) else terms.array()


def strings_at(terms: np.ndarray | LazyTerms, index: np.ndarray) -> list[str]:
    """The terms at ``index`` as a list of str: lazy terms are made only if ``index`` asks
    for some of them (:meth:`LazyTerms.strings_at`)."""
    if isinstance(terms, LazyTerms):
        return terms.strings_at(index)
    return terms[index].tolist()


class VocabularyStats:
    """Per-term document frequency and total count over ``n_docs`` documents.

    Parameters
    ----------
    terms : ndarray of str (object dtype), sorted, distinct; or a ``LazyTerms`` (made on first read)
    doc_freq : ndarray of int64, documents containing each term
    term_freq : ndarray of int64, occurrences of each term
    n_docs : int

    ``terms`` reads always as an array (lazy terms are made then); :attr:`given_terms` is what
    was given. Immutable.

    Examples
    --------
    >>> import numpy as np
    >>> a = VocabularyStats.from_counts(["free", "win"], [2, 1], [3, 1], n_docs=2)
    >>> b = VocabularyStats.from_counts(["lunch", "win"], [1, 1], [1, 2], n_docs=1)
    >>> s = a + b
    >>> s.terms.tolist(), s.doc_freq.tolist(), s.n_docs
    (['free', 'lunch', 'win'], [2, 1, 2], 3)
    """

    __slots__ = ("doc_freq", "given_terms", "n_docs", "term_freq")
    given_terms: np.ndarray | LazyTerms
    doc_freq: np.ndarray
    term_freq: np.ndarray
    n_docs: int

    def __init__(
        self,
        terms: np.ndarray | LazyTerms,
        doc_freq: np.ndarray,
        term_freq: np.ndarray,
        n_docs: int,
    ) -> None:
        for name, value in (
            ("given_terms", terms), ("doc_freq", doc_freq), ("term_freq", term_freq),
            ("n_docs", n_docs),
        ):  # fmt: skip
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"VocabularyStats is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"VocabularyStats is immutable: cannot delete {name!r}")

    @property
    def terms(self) -> np.ndarray:
        """The terms, sorted and distinct (object array of str)."""
        return as_terms(self.given_terms)

    def __reduce__(self) -> tuple[Any, ...]:
        # Lazy terms are made for a copy or a pickle: what makes them stays in this process.
        return (VocabularyStats, (self.terms, self.doc_freq, self.term_freq, self.n_docs))

    def __repr__(self) -> str:
        lazy = isinstance(self.given_terms, LazyTerms) and not self.given_terms.made
        later = ", terms not made yet" if lazy else ""
        return f"VocabularyStats({len(self)} terms, n_docs={self.n_docs}{later})"

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
        return len(self.given_terms)

    def __add__(self, other: object) -> VocabularyStats:
        if not isinstance(other, VocabularyStats):
            return NotImplemented
        if len(other) == 0:
            return VocabularyStats(
                self.given_terms, self.doc_freq, self.term_freq, self.n_docs + other.n_docs
            )
        if len(self) == 0:
            return VocabularyStats(
                other.given_terms, other.doc_freq, other.term_freq, self.n_docs + other.n_docs
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
        allow_empty: bool = False,
    ) -> np.ndarray:
        """Where the terms :meth:`select` keeps are in ``terms`` (increasing int64).
        ``allow_empty``: no term kept is an empty index, not an error (statistics grown by
        ``partial_fit`` that no term meets the rules in yet)."""
        low = _as_count(min_df, self.n_docs, "min_df")
        high = _as_count(max_df, self.n_docs, "max_df")
        fractions = [isinstance(v, (float, np.floating)) for v in (min_df, max_df)]
        if high < low and fractions[0] == fractions[1]:
            # the settings contradict each other, whatever the documents (min_df=5 above
            # max_df=1.0 of 2 documents is the corpus's size, said below)
            raise ParameterError(
                _contradiction(min_df, max_df, f"{high:g} of the {self.n_docs}", f"{low:g}")
            )
        freq = self.doc_freq
        if not stop_words and len(freq) and freq.min() >= low and freq.max() <= high:
            # every term kept (the default rules; a served model selects at every learn):
            # two reductions instead of the comparisons, their mask and the search of it
            index = np.arange(len(freq))
        else:
            keep = (freq >= low) & (freq <= high)
            if stop_words:
                keep &= np.fromiter((t not in stop_words for t in self.terms), bool, len(self))
            index = np.flatnonzero(keep)
        if max_features is not None:
            check_positive_int(max_features, "max_features")
            if len(index) > max_features:
                # numpy's default sort on the alphabetical order, as scikit-learn does, so
                # ties at the cut fall the same way.
                order = np.argsort(-self.term_freq[index])[:max_features]
                index = np.sort(index[order])
        if len(index) == 0 and not allow_empty:
            raise DataError(
                f"the vocabulary is empty after "
                f"{self.rules(min_df, max_df, max_features, stop_words)}; "
                "lower min_df or raise max_df"
            )
        return index

    def rules(
        self,
        min_df: float,
        max_df: float,
        max_features: int | None = None,
        stop_words: frozenset[str] = frozenset(),
    ) -> str:
        """The selection rules and what they were applied to, for a message."""
        return (
            f"min_df={min_df!r}, max_df={max_df!r}"
            f"{', stop words' if stop_words else ''}"
            f"{f', max_features={max_features}' if max_features else ''} "
            f"({len(self)} distinct terms in {self.n_docs} documents)"
        )


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


def check_frequencies(min_df: Any, max_df: Any) -> None:
    """``min_df`` and ``max_df`` each (:func:`check_frequency`) and together: both counts of
    documents, or both fractions, with ``min_df`` above ``max_df`` keep no term whatever the
    documents, and are refused as :meth:`VocabularyStats.select_index` refuses them (an int
    and a float are compared only once the number of documents is known)."""
    check_frequency(min_df, "min_df")
    check_frequency(max_df, "max_df")
    fraction = isinstance(min_df, (float, np.floating))
    if fraction != isinstance(max_df, (float, np.floating)):
        return
    if max_df < min_df:  # (ints compared exactly, however large)
        if fraction:
            raise ParameterError(
                _contradiction(min_df, max_df, f"{max_df:.4g} of the", f"{min_df:.4g} of them")
            )
        raise ParameterError(_contradiction(min_df, max_df, str(max_df), str(min_df)))


def _contradiction(min_df: Any, max_df: Any, at_most: str, asked: str) -> str:
    """The refusal of ``min_df`` above ``max_df``: ``max_df`` keeps terms in at most
    ``at_most`` documents, fewer than ``min_df`` asks for (``asked``)."""
    return (
        f"max_df={max_df!r} keeps terms in at most {at_most} documents, fewer than "
        f"min_df={min_df!r} asks for ({asked}): no term can be kept; lower min_df or raise "
        "max_df"
    )


def _as_count(value: float, n_docs: int, name: str) -> float:
    check_frequency(value, name)
    if isinstance(value, (float, np.floating)):
        return value * n_docs
    return as_real(value)  # a count past the largest float: more than any corpus, inf
