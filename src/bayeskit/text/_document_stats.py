"""The statistic of a text model: a count statistic kept per term, and the vocabulary
statistics of the same documents, on one terms array.

A text classifier learns two things from documents: the count model's statistic of every
term it saw (:class:`~bayeskit.stats.TermKeyed`, with a class axis) and how many documents
contain each term (:class:`~bayeskit.text.VocabularyStats`, without one: ``min_df``,
``max_df`` and ``max_features`` read it). Both are sums over documents, so one statistic holds
them and adds, subtracts and embeds into a longer class list as every statistic does
(:mod:`bayeskit.stats`): the template's ``partial_fit``, merging and ``unlearn`` are its
arithmetic. Operations on the class axis touch the term-keyed part only; the vocabulary
statistics are subtracted with the documents they count, so they stay consistent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import (
    all_text,
    insert_sorted_text,
    is_sorted_unique,
    merge_sorted_text,
    spread,
    values_from_json,
    values_to_json,
)
from ..errors import MergeError, ModelFileError
from ..stats import SparseCounts, Statistic, TermKeyed
from ..stats._base import Tolerance, check_arrays, kept_tolerance
from . import _term_lookup as term_lookup
from . import _term_weights as term_weights
from .vocabulary import VocabularyStats

__all__ = ["DocumentStats"]

#: ``a + b`` inserts ``b``'s terms into ``a``'s arrays (see ``DocumentStats._insert``) when
#: ``b`` holds fewer than 1/_INSERT_RATIO as many terms and at most _INSERTED_AT_MOST of them
#: are new (one slice copy per new term): a learned message into a model's statistics.
_INSERT_RATIO = 16
_INSERTED_AT_MOST = 64
#: ... and at most this many when the counts are kept as their cells (``SparseCounts``): no
#: cell moves, so the new terms cost a slice copy each of the terms, their frequencies and
#: the pointer, where the merge gathers every cell (a 20 Newsgroups post brings a few hundred
#: new 1-2-grams to a model of a million)
_INSERTED_INTO_CELLS_AT_MOST = 1024


@dataclass(frozen=True, eq=False)
class DocumentStats(Statistic):
    """The count model's statistic of each term (``keyed``) and the vocabulary statistics of
    the same documents (``vocabulary``): what a text classifier is fitted from.

    ``a + b`` merges the two sorted term lists once for both parts when each holds one terms
    array (as a batch's statistics do), so the sum holds one terms array too and a model
    selects its vocabulary by position; ``-`` (through :class:`~bayeskit.stats.Summary`)
    drops the terms that no class and no document has any data of left.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.stats import Counts, TermKeyed
    >>> from bayeskit.text import DocumentStats, VocabularyStats
    >>> def part(terms, total, df):
    ...     terms = np.array(terms, dtype=object)
    ...     keyed = TermKeyed(terms, Counts(np.array([1.0]), np.array([total], dtype=float)))
    ...     return DocumentStats(keyed, VocabularyStats(terms, np.array(df), np.array(df), 1))
    >>> s = part(["cash", "now"], [2, 1], [1, 1]) + part(["lunch", "now"], [1, 1], [1, 1])
    >>> s.terms.tolist(), s.keyed.block.total.tolist(), s.vocabulary.doc_freq.tolist()
    (['cash', 'lunch', 'now'], [[2.0, 1.0, 2.0]], [1, 1, 2])
    """

    keyed: TermKeyed
    vocabulary: VocabularyStats

    kind = "documents"

    @property
    def terms(self) -> np.ndarray:
        """The terms of the count statistic (sorted, distinct)."""
        return self.keyed.terms

    @property
    def n_features(self) -> int:
        return self.keyed.n_features

    def shares_terms(self) -> bool:
        """Whether both parts are known to be over one terms array (so a column of the
        count statistic is the term of the same position in the vocabulary statistics)."""
        return self.keyed.given_terms is self.vocabulary.given_terms

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.keyed.class_weight_bounds()

    def weights(self) -> tuple[np.ndarray, ...]:
        return self.keyed.weights()

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> DocumentStats:
        return DocumentStats(self.keyed.with_weights(arrays), self.vocabulary)

    def __neg__(self) -> DocumentStats:
        v = self.vocabulary
        negated = VocabularyStats(v.given_terms, -v.doc_freq, -v.term_freq, -v.n_docs)
        return DocumentStats(-self.keyed, negated)

    # The class axis is the count statistic's (see TermKeyed): its own operations on it.
    @property
    def n_classes(self) -> int:
        return self.keyed.n_classes

    def min_weights(self) -> np.ndarray:
        return self.keyed.min_weights()

    def max_weights(self) -> np.ndarray:
        return self.keyed.max_weights()

    def embed_classes(self, index: np.ndarray, n_classes: int) -> DocumentStats:
        return DocumentStats(self.keyed.embed_classes(index, n_classes), self.vocabulary)

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> DocumentStats:
        # (the terms dropped once, below, by both parts' data: not by the count statistic's)
        keyed = TermKeyed(self.keyed.given_terms, self.keyed.block.cleaned(keep, tolerance))
        return DocumentStats(keyed, self.vocabulary).without_empty(kept_tolerance(tolerance, keep))

    def _add(self, other: DocumentStats) -> DocumentStats:
        va, vb = self.vocabulary, other.vocabulary
        if not (
            self.shares_terms()
            and other.shares_terms()
            and all_text(va.terms)
            and all_text(vb.terms)
        ):  # not known to be over one terms array each: each part adds its own
            return DocumentStats(self.keyed + other.keyed, va + vb)
        if len(vb.terms) < len(va.terms) // _INSERT_RATIO:
            inserted = self._insert(other)
            if inserted is not None:
                return inserted
        # one merge of the sorted terms for both sums (each ``+`` would merge them again: on
        # a long stream, binary searches among the terms are most of adding a batch)
        terms, mine, theirs = merge_sorted_text(va.terms, vb.terms)
        for vocab, where in ((va, mine), (vb, theirs)):
            term_lookup.inherit(vocab.terms, terms, where)
        # (as the vocabulary holds its terms, lazy or not: what its weights are kept beside)
        term_weights.inherit(va.given_terms, terms, mine)
        doc_freq = np.zeros(len(terms), dtype=np.int64)
        term_freq = np.zeros(len(terms), dtype=np.int64)
        for vocab, where in ((va, mine), (vb, theirs)):
            doc_freq[where] += vocab.doc_freq
            term_freq[where] += vocab.term_freq
        block = self.keyed.block.merge_columns(mine, other.keyed.block, theirs, len(terms))
        return DocumentStats(
            TermKeyed(terms, block),
            VocabularyStats(terms, doc_freq, term_freq, va.n_docs + vb.n_docs),
        )

    def _insert(self, other: DocumentStats) -> DocumentStats | None:
        """``self + other`` for a few documents ``other`` (a learned message) added to many:
        the arrays copied once each with the few new terms inserted and ``other``'s counts
        added at their places (the same sums as the merge's, where placing every column
        of both by position is most of a one-message learn; counts kept as their cells,
        :meth:`~bayeskit.stats.SparseCounts.insert_columns`); ``None`` when ``other``
        brings too many new terms for that to pay."""
        va, vb = self.vocabulary, other.vocabulary
        block, added = self.keyed.block, other.keyed.block
        # a large model's cells with counts: moved, not spread (that makes the full array)
        cells = block if isinstance(block, SparseCounts) else None
        if cells is not None:
            if not cells.inserts(added):
                return None
        else:
            mine, theirs = block.weights(), added.weights()
            if len(mine) != len(theirs):
                return None
        most = _INSERTED_AT_MOST if cells is None else _INSERTED_INTO_CELLS_AT_MOST
        found = insert_sorted_text(va.terms, vb.terms, most)
        if found is None:
            return None
        terms, where, at = found
        if len(where) and (
            term_lookup.registered(va.terms) is not None or term_weights.holds(va.given_terms)
        ):
            # a served model's next vocabulary: its lookup and its terms' weights follow from
            # this one's (a column moves right by the number of new terms inserted at or
            # before it: one repeat per run between two places, where a cumulative sum of a
            # count per column took five times as long); the new terms' columns are known
            runs = np.diff(where, prepend=0, append=len(va.terms))
            moved = np.arange(len(va.terms)) + np.repeat(np.arange(len(where) + 1), runs)
            term_lookup.inherit(va.terms, terms, moved, fresh=where + np.arange(len(where)))
            term_weights.inherit(va.given_terms, terms, moved)
        elif len(where):  # at most a count of searches to carry on: no column moves needed
            term_lookup.carry_count(va.terms, terms)
        freqs = []
        for a, b in ((va.doc_freq, vb.doc_freq), (va.term_freq, vb.term_freq)):
            out = spread(a, where, axis=0)
            out[at] += b
            freqs.append(out)
        if cells is not None:
            summed: Any = cells.insert_columns(where, added, at)
        else:
            arrays = []
            for w, v in zip(mine, theirs, strict=True):
                if w.ndim == 1:  # the class weights
                    arrays.append(w + v)
                    continue
                out = spread(np.asarray(w, dtype=np.float64), where, axis=1)
                out[:, at] += v  # the places of distinct terms: distinct
                arrays.append(out)
            summed = block.with_weights(tuple(arrays))
        return DocumentStats(
            TermKeyed(terms, summed),
            VocabularyStats(terms, freqs[0], freqs[1], va.n_docs + vb.n_docs),
        )

    def without_empty(self, tolerance: Tolerance) -> DocumentStats:
        """Drop the terms no class and no document has anything of (as if never seen);
        refuse vocabulary statistics turned negative (documents removed that were never
        counted)."""
        v = self.vocabulary
        if v.n_docs < 0 or (len(v) and (v.doc_freq.min() < 0 or v.term_freq.min() < 0)):
            raise MergeError(
                "cannot remove documents the model was not trained on: a term would be "
                "found in fewer than no documents"
            )
        if not self.shares_terms() and not (
            len(v) == len(self.keyed.terms) and np.array_equal(v.terms, self.keyed.terms)
        ):
            keep = v.doc_freq > 0
            vocab = (
                v
                if keep.all()
                else VocabularyStats(v.terms[keep], v.doc_freq[keep], v.term_freq[keep], v.n_docs)
            )
            return DocumentStats(self.keyed.without_empty(tolerance), vocab)
        seen = self.keyed.block.seen_columns(tolerance) | (v.doc_freq > 0)
        block = self.keyed.block.without_empty(tolerance)
        if seen.all():
            return DocumentStats(TermKeyed(self.keyed.given_terms, block), v)
        keep_at = np.flatnonzero(seen)
        terms = self.keyed.terms[keep_at]
        return DocumentStats(
            TermKeyed(terms, block.take_columns(keep_at)),
            VocabularyStats(terms, v.doc_freq[keep_at], v.term_freq[keep_at], v.n_docs),
        )

    def overflow(self) -> tuple[str, tuple[int, ...], float] | None:
        # the count statistic's own arrays: the terms and the integer frequencies cannot
        # overflow, and encoding a million terms for this check would cost more than a fit
        found = self.keyed.block.overflow()
        return None if found is None else (f"keyed.block.{found[0]}", found[1], found[2])

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays, meta = self.keyed.to_arrays()
        v = self.vocabulary
        same = self.shares_terms() or (
            len(v) == len(self.keyed.terms) and np.array_equal(v.terms, self.keyed.terms)
        )
        return (
            {
                **{f"keyed.{name}": array for name, array in arrays.items()},
                "doc_freq": v.doc_freq.astype(np.float64),
                "term_freq": v.term_freq.astype(np.float64),
            },
            {
                "keyed": meta,
                "n_docs": int(v.n_docs),
                "vocabulary_terms": "same" if same else values_to_json(v.terms),
            },
        )

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> DocumentStats:
        keyed_meta, n_docs = meta.get("keyed"), meta.get("n_docs")
        if not isinstance(keyed_meta, dict):
            raise ModelFileError("a documents statistic without its term-keyed statistic")
        if isinstance(n_docs, bool) or not isinstance(n_docs, int) or n_docs < 0:
            raise ModelFileError(f"a documents statistic's n_docs must be an int >= 0: {n_docs!r}")
        prefix = "keyed."
        keyed = TermKeyed.from_arrays(
            {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}, keyed_meta
        )
        raw = meta.get("vocabulary_terms")
        terms = keyed.terms if raw == "same" else values_from_json(raw)
        if not is_sorted_unique(terms):
            raise ModelFileError("a documents statistic's terms are not sorted and distinct")
        freq = check_arrays(
            cls.kind,
            {"doc_freq": arrays.get("doc_freq"), "term_freq": arrays.get("term_freq")},
            ndim={"doc_freq": 1, "term_freq": 1},
        )
        if len(freq) != 2 or any(len(a) != len(terms) for a in freq.values()):
            raise ModelFileError("a documents statistic's frequencies do not match its terms")
        doc_freq, term_freq = (freq[k].astype(np.int64) for k in ("doc_freq", "term_freq"))
        if doc_freq.max(initial=0) > n_docs:
            raise ModelFileError("a documents statistic counts a term in more than n_docs")
        return cls(keyed, VocabularyStats(terms, doc_freq, term_freq, n_docs))
