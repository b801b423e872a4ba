"""Per-class counts of each value of each categorical feature."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import (
    all_text,
    is_sorted_unique,
    merge_sorted_text,
    union_sorted,
    values_from_json,
    values_to_json,
)
from ..errors import MergeError, ModelFileError
from ._base import Statistic, Tolerance, check_arrays, per_class


def offsets_of(categories: tuple[np.ndarray, ...]) -> np.ndarray:
    """Start column of each feature in the flat (feature, category) axis; length n_features+1."""
    sizes = np.fromiter((len(c) for c in categories), dtype=np.int64, count=len(categories))
    return np.concatenate([[0], np.cumsum(sizes)])


def observed_bounds(counts: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`~bayeskit.stats.Statistic.class_weight_bounds` of counts of each feature's
    values (columns ``offsets[j]:offsets[j + 1]`` of feature ``j``): each feature's counts add
    up to the weight of the rows in which it is observed, at most all of them."""
    k = counts.shape[0]
    starts = np.asarray(offsets[:-1], dtype=np.intp)
    valued = starts[np.asarray(offsets[1:]) > starts]
    least = np.zeros(k)
    if len(valued):  # (a feature without values has no column: left out of the sums)
        least = np.add.reduceat(counts, valued, axis=1).max(axis=1)
    return least, np.full(k, np.inf)


@dataclass(frozen=True, eq=False)
class CategoryCounts(Statistic):
    """Weighted counts of every (feature, category) pair in every class.

    Parameters
    ----------
    categories : tuple of ndarray
        ``categories[j]`` holds the sorted distinct values of feature ``j``.
    counts : ndarray of shape (n_classes, n_total_categories)
        Column ``offsets[j] + v`` counts value ``categories[j][v]`` of feature ``j``.

    Adding two statistics takes the union of each feature's categories, so batches that saw
    different values (or models fitted on different data) merge exactly.

    Examples
    --------
    >>> import numpy as np
    >>> a = CategoryCounts((np.array(["x", "y"]),), np.array([[2.0, 1.0]]))
    >>> b = CategoryCounts((np.array(["y", "z"]),), np.array([[1.0, 5.0]]))
    >>> s = a + b
    >>> s.categories[0].tolist(), s.counts.tolist()
    (['x', 'y', 'z'], [[2.0, 2.0, 5.0]])
    """

    categories: tuple[np.ndarray, ...]
    counts: np.ndarray

    kind = "category_counts"

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def offsets(self) -> np.ndarray:
        return offsets_of(self.categories)

    def feature_counts(self, j: int) -> np.ndarray:
        """Counts of feature ``j``, shape (n_classes, n_categories_j)."""
        off = self.offsets
        return self.counts[:, off[j] : off[j + 1]]

    def _add(self, other: CategoryCounts) -> CategoryCounts:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add category counts over {self.n_features} and {other.n_features} features"
            )
        same = all(
            len(a) == len(b) and a.dtype == b.dtype and bool(np.all(a == b))
            for a, b in zip(self.categories, other.categories, strict=True)
        )
        if same:
            return CategoryCounts(self.categories, self.counts + other.counts)
        if self.n_features == 1 and all_text(self.categories[0]) and all_text(other.categories[0]):
            # One feature of text categories: merge the sorted lists, without sorting both.
            union, mine, theirs = merge_sorted_text(self.categories[0], other.categories[0])
            counts = np.zeros((self.n_classes, len(union)))
            counts[:, mine] += self.counts
            counts[:, theirs] += other.counts
            return CategoryCounts((union,), counts)
        merged = tuple(
            union_sorted(a, b) for a, b in zip(self.categories, other.categories, strict=True)
        )
        counts = np.zeros((self.n_classes, int(offsets_of(merged)[-1])))
        for part in (self, other):
            counts[:, part.columns_in(merged)] += part.counts
        return CategoryCounts(merged, counts)

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observed_bounds(self.counts, self.offsets)

    def spelled_twice(self) -> tuple[int, Any, Any] | None:
        for j, cats in enumerate(self.categories):
            # (numbers sort before text: a column of one kind has it at both ends)
            if (
                cats.dtype.kind == "O"
                and len(cats) > 1
                and not all_text(cats)
                and (isinstance(cats[-1], str))
            ):
                found = _spelled_twice(cats.tolist())
                if found is not None:
                    return (j, *found)
        return None

    def columns_in(self, merged: tuple[np.ndarray, ...]) -> np.ndarray:
        """Where each of this statistic's columns lands in the merged category space."""
        new_offsets = offsets_of(merged)
        cols = []
        for j, (mine, union) in enumerate(zip(self.categories, merged, strict=True)):
            if (union.dtype.kind == "O" or mine.dtype.kind == "O") and not (
                all_text(union) and all_text(mine)
            ):
                position = {_key(v): i for i, v in enumerate(union.tolist())}
                idx = np.fromiter((position[_key(v)] for v in mine.tolist()), np.int64, len(mine))
            else:
                idx = np.searchsorted(union, mine)
            cols.append(new_offsets[j] + idx)
        return np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)

    def weights(self) -> tuple[np.ndarray, ...]:
        return (self.counts,)

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> CategoryCounts:
        (counts,) = arrays
        return CategoryCounts(self.categories, counts)

    def without_empty(self, tolerance: Tolerance) -> CategoryCounts:
        """Drop categories no class has any weight of (as if never seen)."""
        seen = (np.abs(self.counts) > per_class(tolerance, self.counts)).any(axis=0)
        if seen.all():
            return self
        off = self.offsets
        kept = tuple(c[seen[off[j] : off[j + 1]]] for j, c in enumerate(self.categories))
        return CategoryCounts(kept, self.counts[:, seen])

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        meta = {"categories": [values_to_json(c) for c in self.categories]}
        return {"counts": self.counts}, meta

    def written_layout(self) -> tuple[set[str], dict[str, Any]]:
        # (without to_arrays's JSON of every category: a load compares layouts within budget)
        return {"counts"}, {"categories": None}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> CategoryCounts:
        raw = meta.get("categories")
        if not isinstance(raw, list):
            raise ModelFileError("category counts without a category list")
        categories = tuple(values_from_json(c) for c in raw)
        for j, values in enumerate(categories):
            if not is_sorted_unique(values):
                raise ModelFileError(
                    f"the category_counts statistic's categories of feature {j} are not sorted "
                    "and distinct"
                )
        counts = check_arrays(cls.kind, {"counts": arrays["counts"]}, ndim={"counts": 2})["counts"]
        if counts.shape[1] != offsets_of(categories)[-1]:
            raise ModelFileError("category counts do not match their category lists")
        return cls(categories, counts)


def _spelled_twice(values: list[Any]) -> tuple[Any, Any] | None:
    """(number, text) of a number among ``values`` whose text is among them too (``3`` and
    ``"3"``, ``3.0`` and ``"3"``; bools are labels, not numbers), or None."""
    texts = {v for v in values if isinstance(v, str)}
    if not texts:
        return None
    for value in values:
        if isinstance(value, (bool, np.bool_, str)) or not isinstance(
            value, (int, float, np.number)
        ):
            continue
        spelled = [str(value)]
        if float(value).is_integer():
            spelled.append(str(int(value)))
        found = next((t for t in spelled if t in texts), None)
        if found is not None:
            return (value.item() if isinstance(value, np.generic) else value), found
    return None


def _key(value: Any) -> tuple[str, Any]:
    # 1 and True and 1.0 are equal in Python; within one feature they are one category.
    return ("s", value) if isinstance(value, str) else ("n", value)
