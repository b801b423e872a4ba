"""A count statistic whose columns are named by terms: what a text model keeps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import (
    all_text,
    find_sorted,
    is_sorted_unique,
    merge_sorted_text,
    union_sorted,
    values_from_json,
    values_to_json,
)
from ..errors import ModelFileError
from ._base import STATISTIC_KINDS, ColumnStatistic, Statistic, Tolerance, kept_tolerance


@dataclass(frozen=True, eq=False)
class TermKeyed(Statistic):
    """A per-column statistic (``block``, any :class:`ColumnStatistic`: the count family's
    own) with one column per term, the columns named by ``terms`` (sorted, distinct).

    Two add over the union of their terms: a term one of them never saw is a column of zeros
    there (no event in any of its rows), which is the zero statistic, so batches with
    different vocabularies, and models learned from different documents, add exactly.
    Removing data (``-``) drops the terms no class has anything left of.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.stats import Counts
    >>> words = lambda *w: np.array(w, dtype=object)
    >>> a = TermKeyed(words("cash", "now"), Counts(np.array([2.0]), np.array([[3.0, 1.0]])))
    >>> b = TermKeyed(words("lunch", "now"), Counts(np.array([1.0]), np.array([[1.0, 2.0]])))
    >>> s = a + b
    >>> s.terms.tolist(), s.block.total.tolist(), s.block.weight.tolist()
    (['cash', 'lunch', 'now'], [[3.0, 1.0, 3.0]], [3.0])
    >>> s.columns_of(words("now", "zebra")).total.tolist()
    [[3.0, 0.0]]

    The terms may also be given as lazy terms (an object with ``len`` and an ``array()``
    method that makes them, as the compiled scanner's are): ``given_terms`` keeps what was
    given, and :attr:`terms` reads them as an array, made then. A fitted model that never
    reads them (a fit then predictions in one process) never makes their ``str`` objects.
    """

    given_terms: Any  # ndarray of str, sorted, distinct; or lazy terms
    block: ColumnStatistic

    kind = "term_keyed"

    @property
    def terms(self) -> np.ndarray:
        """The terms, sorted and distinct (object array of str; lazy terms made now)."""
        terms = self.given_terms
        return terms if isinstance(terms, np.ndarray) else terms.array()

    @property
    def n_features(self) -> int:
        return len(self.given_terms)

    def __reduce__(self) -> tuple[Any, ...]:
        # Lazy terms are made for a copy or a pickle: what makes them stays in this process.
        return (TermKeyed, (self.terms, self.block))

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.block.class_weight_bounds()

    def weights(self) -> tuple[np.ndarray, ...]:
        return self.block.weights()

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> TermKeyed:
        return TermKeyed(self.given_terms, self.block.with_weights(arrays))

    # The class axis is the block's: each operation on it is the block's own (a block kept as
    # its cells keeps them; the arrays of weights() would be the full array).
    @property
    def n_classes(self) -> int:
        return self.block.n_classes

    def __neg__(self) -> TermKeyed:
        return TermKeyed(self.given_terms, -self.block)

    def min_weights(self) -> np.ndarray:
        return self.block.min_weights()

    def max_weights(self) -> np.ndarray:
        return self.block.max_weights()

    def embed_classes(self, index: np.ndarray, n_classes: int) -> TermKeyed:
        return TermKeyed(self.given_terms, self.block.embed_classes(index, n_classes))

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> TermKeyed:
        cleaned = TermKeyed(self.given_terms, self.block.cleaned(keep, tolerance))
        return cleaned.without_empty(kept_tolerance(tolerance, keep))

    def _add(self, other: TermKeyed) -> TermKeyed:
        if self.given_terms is other.given_terms:  # (lazy terms stay lazy)
            return TermKeyed(self.given_terms, self.block + other.block)
        mine, theirs = self.terms, other.terms
        if mine is theirs or (len(mine) == len(theirs) and np.array_equal(mine, theirs)):
            return TermKeyed(mine, self.block + other.block)
        if all_text(mine) and all_text(theirs):
            # a few new terms into a large vocabulary: merge without sorting both again
            union, at_mine, at_theirs = merge_sorted_text(mine, theirs)
        else:
            union = union_sorted(mine, theirs)
            at_mine, at_theirs = np.searchsorted(union, mine), np.searchsorted(union, theirs)
        merged = self.block.merge_columns(at_mine, other.block, at_theirs, len(union))
        return TermKeyed(union, merged)

    def without_empty(self, tolerance: Tolerance) -> TermKeyed:
        """Drop the terms no class has any data of (as if never seen)."""
        seen = self.block.seen_columns(tolerance)
        block = self.block.without_empty(tolerance)
        if seen.all():
            return TermKeyed(self.given_terms, block)
        keep = np.flatnonzero(seen)
        return TermKeyed(self.terms[keep], block.take_columns(keep))

    def columns_of(self, terms: np.ndarray) -> ColumnStatistic:
        """The block's statistic of ``terms`` (sorted or not), in their order: a term it has
        no column for is a column of zeros."""
        pos, found = find_sorted(self.terms, terms)
        return self.block.take_columns(pos, found)

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays, meta = self.block.to_arrays()
        return (
            {f"block.{name}": array for name, array in arrays.items()},
            {"terms": values_to_json(self.terms), "block": {"kind": self.block.kind, **meta}},
        )

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> TermKeyed:
        inner = meta.get("block")
        if not isinstance(inner, dict):
            raise ModelFileError("a term-keyed statistic without its block")
        kind = inner.get("kind")
        block_cls = STATISTIC_KINDS.get(kind) if isinstance(kind, str) else None
        if block_cls is None or not issubclass(block_cls, ColumnStatistic):
            raise ModelFileError(
                f"a term-keyed statistic of a block that is not kept per column: {kind!r}"
            )
        terms = values_from_json(meta.get("terms"))
        if not is_sorted_unique(terms):
            raise ModelFileError("the term-keyed statistic's terms are not sorted and distinct")
        block_meta = {k: v for k, v in inner.items() if k != "kind"}
        prefix = "block."
        block = block_cls.from_arrays(
            {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}, block_meta
        )
        if block.n_features != len(terms):
            raise ModelFileError("the term-keyed statistic's block does not match its terms")
        return cls(terms, block)
