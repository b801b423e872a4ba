"""Class-conditional counts of every feature subset up to a size: the statistic of Bayesian
network classifiers.

``N(y, x_S = v)`` for every subset ``S`` of at most ``order`` features: the singles
``N(y, x_i = a)`` (size 1), the pairs ``N(y, x_i = a, x_j = b)`` (size 2) that TAN, AODE and
KDB with ``k = 1`` learn from, the triples KDB with ``k = 2`` needs, and so on. A row adds to a
subset's cell only when every feature of the subset is observed in it, so a missing value drops
out of exactly the counts it touches.

The counts are one flat array per class, subset after subset: all singles, then the pairs
``(i, j)``, ``i < j``, in lexicographic order, then the triples…; subset ``(i, j)`` is a
``V_i × V_j`` block in row-major order. Two statistics add cell by cell after their category
lists are aligned (the union, as for :class:`~bayeskit.stats.CategoryCounts`), so ``fit``,
``partial_fit``, merging, unlearning and distributed training all reduce to ``+`` — and since
structure learning reads only these counts, a new batch can change the learned structure
without the old rows.

Size: a statistic stores ``n_classes × Σ_S Π_{i∈S} V_i`` numbers. 100 features of 20 values
give 1.98 million pair cells per class, 1,000 binary features 2.0 million; at most
:data:`MAX_CELLS` values (1 GiB of float64) are kept, and a table beyond is refused with
:class:`~bayeskit.errors.CountTableTooLargeError` before anything is allocated.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._values import (
    is_sorted_unique,
    values_from_json,
    values_to_json,
)
from ..errors import CountTableTooLargeError, MergeError, ModelFileError
from ..stats._base import Statistic, Tolerance, check_arrays, per_class
from ..stats.category_counts import CategoryCounts, observed_bounds, offsets_of

#: The most numbers (classes × cells) one statistic holds: 2^27 float64 values, 1 GiB.
MAX_CELLS = 1 << 27
#: The largest subset size counted (KDB's k + 1).
MAX_ORDER = 4
#: Layouts of up to this many cells are kept between fits, with their index arrays (about
#: 60 bytes a cell); larger ones are made when needed.
KEPT_CELLS = 1 << 18


def n_cells(sizes: np.ndarray, order: int) -> int:
    """``Σ_S Π_{i∈S} V_i`` over the subsets of 1 … ``order`` features: the elementary
    symmetric polynomials of the value counts, summed (exact integers, no subset listed)."""
    e = [1] + [0] * order  # e[t]: Σ over subsets of size t seen so far
    for v in (int(s) for s in sizes):
        for t in range(order, 0, -1):
            e[t] += e[t - 1] * v
    return int(sum(e[1:]))


def check_size(sizes: np.ndarray, order: int, n_classes: int, names: Any = None) -> None:
    """Refuse a table of more than :data:`MAX_CELLS` numbers, naming its size and the
    features with the most values, before anything is allocated."""
    cells = n_cells(sizes, order)
    if cells * max(n_classes, 1) <= MAX_CELLS:
        return
    widest = np.argsort(-np.asarray(sizes), kind="stable")[:3]
    shown = ", ".join(
        f"{names[j] if names is not None else f'x{j}'!r} ({int(sizes[j])} values)" for j in widest
    )
    raise CountTableTooLargeError(
        f"the counts of every subset of up to {order} of the {len(sizes)} features would hold "
        f"{cells} cells × {n_classes} classes = {cells * n_classes} numbers, beyond the limit "
        f"of {MAX_CELLS} (1 GiB); the features with the most values are {shown}. Use fewer "
        "features, fewer values per feature (coarser intervals, rare values grouped), or a "
        "smaller k"
    )


@dataclass(frozen=True)
class Extent:
    """The sizes of a layout's parts, told from the value counts alone (nothing of the
    cells' size allocated): what a model file's load charges its budget for the layout, its
    pair cells and what the families compute over them, before any of it is made.

    ``subsets`` the feature subsets of up to ``order`` (empty blocks too: features with no
    value still have subsets), ``cells`` their cells, ``pairs`` the pairs of features,
    ``pair_cells`` their cells, ``first`` and ``second`` the margin groups of the pairs'
    first and second features (a pair of a feature with no value has none of its cells but
    all of its margin's groups), ``singles`` the values of every feature (Σ V_i) and
    ``widest`` the most values of a feature."""

    order: int
    subsets: int
    cells: int
    pairs: int
    pair_cells: int
    first: int
    second: int
    singles: int
    widest: int

    @classmethod
    def of(cls, sizes: Any, order: int) -> Extent:
        values = [int(v) for v in sizes]
        d, total = len(values), sum(values)
        # a feature is the first of the pairs with each later one, the second of each earlier
        first = sum(v * (d - 1 - i) for i, v in enumerate(values))
        second = sum(v * j for j, v in enumerate(values))
        paired = order >= 2
        return cls(
            order,
            sum(math.comb(d, t) for t in range(1, min(order, d) + 1)),
            n_cells(np.asarray(values, dtype=np.int64), order),
            math.comb(d, 2) if paired else 0,
            (total * total - sum(v * v for v in values)) // 2 if paired else 0,
            first if paired else 0,
            second if paired else 0,
            total,
            max(values, default=0),
        )

    def layout_size(self) -> int:
        """The float64 words (8 bytes) :func:`layout_of` and :meth:`Layout.pair_layout`
        allocate at their peak: each subset's features and strides with their temporaries
        (and, of three features or more, the Python tuples ``itertools.combinations`` lists:
        measured at 15, 20 and 27 words a subset for orders 2, 3 and 4), each pair cell's
        pair, features, margin groups and their temporaries (measured at 10 words), each
        margin group's pair and each pair's offsets."""
        per_subset = 8 + 5 * self.order + (12 + self.order if self.order >= 3 else 0)
        return (
            per_subset * self.subsets
            + 11 * self.pair_cells
            + 2 * (self.first + self.second)
            + 8 * self.pairs
            + 2 * self.singles
        )


@dataclass(frozen=True)
class Layout:
    """Where each subset's block lies in the flat cell axis.

    ``features`` (n_subsets, order): the subset's features, increasing, padded with −1;
    ``strides`` the same shape: the step of each feature's value in the block (row-major, 0
    for padding); ``offsets`` (n_subsets + 1,) the blocks' starts; ``cat_offsets`` (d + 1,) the
    singles' starts (the first ``d`` subsets are the singles, so these are ``offsets[:d+1]``).
    """

    features: np.ndarray
    strides: np.ndarray
    offsets: np.ndarray
    sizes: np.ndarray

    @property
    def n_cells(self) -> int:
        return int(self.offsets[-1])

    def subset_of_cell(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.features)), np.diff(self.offsets))

    def digits(self) -> np.ndarray:
        """The value index of each cell's features: (n_cells, order), −1 for padding."""
        subset = self.subset_of_cell()
        local = np.arange(self.n_cells, dtype=np.int64) - self.offsets[subset]
        feats = self.features[subset]
        strides = self.strides[subset]
        out = np.full(feats.shape, -1, dtype=np.int64)
        for t in range(feats.shape[1]):  # a few columns: the subset size, not the data
            has = feats[:, t] >= 0
            step = np.where(has, strides[:, t], 1)
            v = local // step
            local = local - v * step
            out[:, t] = np.where(has, v, -1)
        return out

    def pair_index(self, d: int) -> np.ndarray:
        """(d, d) index of the subset of features ``{i, j}`` (``i != j``); −1 elsewhere."""
        out = np.full((d, d), -1, dtype=np.int64)
        pairs = self.pair_layout.pairs
        i, j = self.features[pairs, 0], self.features[pairs, 1]
        out[i, j] = pairs
        out[j, i] = pairs
        return out

    @property
    def pair_layout(self) -> PairLayout:
        """The pair blocks cell by cell (kept with a layout of up to :data:`KEPT_CELLS`
        cells, made again for a larger one)."""
        return self._pair_layout if self.n_cells <= KEPT_CELLS else PairLayout.of(self)

    @cached_property
    def _pair_layout(self) -> PairLayout:
        return PairLayout.of(self)

    @cached_property
    def single_feature(self) -> np.ndarray:
        """The feature of each single's cell, (Σ V_i,)."""
        return np.repeat(np.arange(len(self.sizes)), self.sizes)

    def subset_of(self, members: np.ndarray) -> np.ndarray:
        """The index of the subset of each row of ``members`` (m, order): increasing
        features padded with −1 (every row a subset of the layout)."""
        base = len(self.sizes) + 1
        weights = base ** np.arange(self.features.shape[1] - 1, -1, -1, dtype=np.int64)
        known = (self.features + 1) @ weights
        order = np.argsort(known, kind="stable")
        return order[np.searchsorted(known, (members + 1) @ weights, sorter=order)]


@dataclass(frozen=True)
class PairLayout:
    """The pair blocks of a :class:`Layout`, cell by cell: what the structure's informations
    and AODE's tables index, made once per layout.

    ``pairs`` the subset index of each pair; its cells are ``start … stop − 1``; for each
    cell its pair (0 … n_pairs − 1), its two features, and its margin groups: ``group_a``
    numbers the (pair, value of the first feature), ``group_b`` the (pair, value of the
    second) — the cells a margin ``N(y, x_i = a)`` or ``N(y, x_j = b)`` of the block sums;
    ``pair_a`` and ``pair_b`` the pair of each group.
    """

    pairs: np.ndarray
    start: int
    stop: int
    pair: np.ndarray
    first: np.ndarray
    second: np.ndarray
    group_a: np.ndarray
    group_b: np.ndarray
    n_a: int
    n_b: int
    pair_a: np.ndarray
    pair_b: np.ndarray

    @classmethod
    def of(cls, layout: Layout) -> PairLayout:
        f = layout.features
        if f.shape[1] < 2:
            is_pair = np.zeros(len(f), dtype=bool)
        else:
            is_pair = (f[:, 1] >= 0) & (f[:, 2:] < 0).all(axis=1)
        pairs = np.flatnonzero(is_pair)
        if not len(pairs):
            none = np.zeros(0, dtype=np.int64)
            return cls(pairs, 0, 0, none, none, none, none, none, 0, 0, none, none)
        start, stop = int(layout.offsets[pairs[0]]), int(layout.offsets[pairs[-1] + 1])
        pair = np.repeat(np.arange(len(pairs)), np.diff(layout.offsets)[pairs])
        local = np.arange(stop - start) - (layout.offsets[pairs] - start)[pair]
        first, second = f[pairs, 0], f[pairs, 1]
        size_a, size_b = layout.sizes[first], layout.sizes[second]
        b_size = size_b[pair]
        a, b = local // b_size, local % b_size
        base_a = np.concatenate([[0], np.cumsum(size_a)])
        base_b = np.concatenate([[0], np.cumsum(size_b)])
        return cls(
            pairs, start, stop, pair, first[pair], second[pair], base_a[:-1][pair] + a,
            base_b[:-1][pair] + b, int(base_a[-1]), int(base_b[-1]),
            np.repeat(np.arange(len(pairs)), size_a), np.repeat(np.arange(len(pairs)), size_b),
        )  # fmt: skip


def class_sums(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """``out[c, g] = Σ values[c, group == g]``, (n_classes, n_groups), every class in one
    ``bincount`` (each sum in the order of the cells)."""
    n_classes = values.shape[0]
    keys = group + n_groups * np.arange(n_classes)[:, None]
    out = np.bincount(keys.ravel(), weights=values.ravel(), minlength=n_classes * n_groups)
    return out.reshape(n_classes, n_groups)


def layout_of(sizes: np.ndarray, order: int) -> Layout:
    """Every subset of 1 … ``order`` of ``len(sizes)`` features, by size, then
    lexicographically. Layouts of up to :data:`KEPT_CELLS` cells are kept for the last few
    value counts (cross-validation folds share theirs); their arrays are read-only."""
    key = tuple(int(v) for v in sizes)
    return (
        _layout(key, order)
        if n_cells(sizes, order) <= KEPT_CELLS
        else _layout.__wrapped__(key, order)
    )


@functools.lru_cache(maxsize=16)
def _layout(sizes_tuple: tuple[int, ...], order: int) -> Layout:
    d = len(sizes_tuple)
    sizes = np.array(sizes_tuple, dtype=np.int64)
    groups = []
    for t in range(1, min(order, d) + 1):
        if t == 1:
            combos = np.arange(d, dtype=np.int64)[:, None]
        elif t == 2:
            i, j = np.triu_indices(d, 1)
            combos = np.stack([i, j], axis=1).astype(np.int64)
        else:
            combos = np.array(list(itertools.combinations(range(d), t)), dtype=np.int64)
        pad = np.full((len(combos), order - t), -1, dtype=np.int64)
        groups.append(np.concatenate([combos, pad], axis=1))
    features = np.concatenate(groups) if groups else np.zeros((0, order), dtype=np.int64)
    V = np.where(features >= 0, sizes[np.maximum(features, 0)], 1)
    # row-major strides: the last feature of a subset steps by 1
    strides = np.ones_like(V)
    for t in range(order - 2, -1, -1):
        strides[:, t] = strides[:, t + 1] * V[:, t + 1]
    strides = np.where(features >= 0, strides, 0)
    block = V.prod(axis=1)
    offsets = np.concatenate([[0], np.cumsum(block)]).astype(np.int64)
    for array in (features, strides, offsets, sizes):
        array.flags.writeable = False
    return Layout(features, strides, offsets, sizes)


@dataclass(frozen=True, eq=False)
class SubsetCounts(Statistic):
    """Weighted counts of the values of every subset of up to ``order`` features, per class.

    Parameters
    ----------
    categories : tuple of ndarray
        ``categories[j]`` holds the sorted distinct values of feature ``j``.
    order : int
        The largest subset counted (2: singles and pairs).
    counts : ndarray of shape (n_classes, n_cells)
        Laid out as :func:`layout_of` says.

    Examples
    --------
    >>> import numpy as np
    >>> cats = (np.array(["a", "b"]), np.array([0, 1]))
    >>> s = SubsetCounts(cats, 2, np.array([[2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 0.0, 1.0]]))
    >>> s.pair_counts(0, 1).tolist()  # one class: rows (a, 0), (a, 1), (b, 1)
    [[[1.0, 1.0], [0.0, 1.0]]]
    """

    categories: tuple[np.ndarray, ...]
    order: int
    counts: np.ndarray

    kind = "subset_counts"

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def sizes(self) -> np.ndarray:
        return np.fromiter((len(c) for c in self.categories), np.int64, len(self.categories))

    @cached_property
    def layout(self) -> Layout:
        return layout_of(self.sizes, self.order)

    @property
    def cat_offsets(self) -> np.ndarray:
        return self.layout.offsets[: self.n_features + 1]

    def single_counts(self) -> np.ndarray:
        """``N(y, x_i = a)`` of every feature, flat: (n_classes, Σ V_i)."""
        return self.counts[:, : int(self.cat_offsets[-1])]

    def pair_counts(self, i: int, j: int) -> np.ndarray:
        """``N(y, x_i = a, x_j = b)``, shape (n_classes, V_i, V_j)."""
        if i == j or self.order < 2:
            raise MergeError(f"no pair ({i}, {j}) in counts of order {self.order}")
        lo, hi = min(i, j), max(i, j)
        s = int(self.layout.pair_index(self.n_features)[lo, hi])
        off = self.layout.offsets
        block = self.counts[:, off[s] : off[s + 1]].reshape(
            self.n_classes, len(self.categories[lo]), len(self.categories[hi])
        )
        return block if i < j else block.transpose(0, 2, 1)

    # ------------------------------------------------------------------ adding
    def _add(self, other: SubsetCounts) -> SubsetCounts:
        if other.n_features != self.n_features or other.order != self.order:
            raise MergeError(
                f"cannot add counts of subsets of up to {self.order} of {self.n_features} "
                f"features and of up to {other.order} of {other.n_features}"
            )
        # the values of every feature aligned as CategoryCounts aligns them (the union); the
        # same tuple back means both statistics saw the same values, so the cells line up
        merged = (self.value_counts() + other.value_counts()).categories
        if merged is self.categories:
            return SubsetCounts(self.categories, self.order, self.counts + other.counts)
        check_size(np.array([len(c) for c in merged]), self.order, self.n_classes)
        mine, theirs = (
            part.laid_out(merged, part.value_counts().columns_in(merged)) for part in (self, other)
        )
        return SubsetCounts(merged, self.order, mine.counts + theirs.counts)

    def value_counts(self) -> CategoryCounts:
        """The singles as a :class:`~bayeskit.stats.CategoryCounts` (same values, same
        layout)."""
        return CategoryCounts(self.categories, self.single_counts())

    def laid_out(self, categories: tuple[np.ndarray, ...], where: np.ndarray) -> SubsetCounts:
        """The counts laid out for ``categories``; ``where[cat_offsets[j] + a]`` is the new
        flat index (``new cat_offsets[j]`` + value index) of value ``a`` of feature ``j``
        (−1: dropped, and its cells with it)."""
        old = self.layout
        new = layout_of(np.array([len(c) for c in categories], dtype=np.int64), self.order)
        local = where - np.repeat(new.offsets[: self.n_features], self.sizes)
        flat_where = np.where(where >= 0, local, -1)
        cat_off = old.offsets[: self.n_features + 1]
        digits = old.digits()
        subset = old.subset_of_cell()
        target = new.offsets[subset].copy()
        keep = np.ones(len(subset), dtype=bool)
        for t in range(self.order):
            f = old.features[subset, t]
            has = f >= 0
            at = np.where(has, cat_off[np.maximum(f, 0)] + digits[:, t], 0)
            moved = np.where(has, flat_where[at], 0)
            keep &= moved >= 0
            target += np.where(has, moved, 0) * new.strides[subset, t]
        counts = np.zeros((self.n_classes, new.n_cells))
        counts[:, target[keep]] = self.counts[:, keep]
        return SubsetCounts(categories, self.order, counts)

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        # (the singles' offsets from the value counts: the layout is not made for it)
        return observed_bounds(self.single_counts(), offsets_of(self.categories))

    def weights(self) -> tuple[np.ndarray, ...]:
        return (self.counts,)

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> SubsetCounts:
        (counts,) = arrays
        return SubsetCounts(self.categories, self.order, counts)

    def without_empty(self, tolerance: Tolerance) -> SubsetCounts:
        """Drop values no class has any weight of (as if never seen), with their cells."""
        singles = self.single_counts()
        seen = (np.abs(singles) > per_class(tolerance, singles)).any(axis=0)
        if seen.all():
            return self
        off = self.cat_offsets
        masks = [seen[off[j] : off[j + 1]] for j in range(self.n_features)]
        kept = tuple(c[m] for c, m in zip(self.categories, masks, strict=True))
        where = np.where(seen, np.cumsum(seen) - 1, -1)  # flat: the kept values in order
        return self.laid_out(kept, where)

    # ------------------------------------------------------------------ model files
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        meta = {"categories": [values_to_json(c) for c in self.categories], "order": self.order}
        return {"counts": self.counts}, meta

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> SubsetCounts:
        raw, order = meta.get("categories"), meta.get("order")
        if not isinstance(raw, list) or type(order) is not int or not 1 <= order <= MAX_ORDER:
            raise ModelFileError(
                f"subset counts need a category list and an order from 1 to {MAX_ORDER}"
            )
        categories = tuple(values_from_json(c) for c in raw)
        for j, values in enumerate(categories):
            if not is_sorted_unique(values):
                raise ModelFileError(
                    f"the subset_counts statistic's categories of feature {j} are not sorted "
                    "and distinct"
                )
        counts = check_arrays(cls.kind, {"counts": arrays["counts"]}, ndim={"counts": 2})["counts"]
        sizes = np.array([len(c) for c in categories], dtype=np.int64)
        try:
            check_size(sizes, order, counts.shape[0])
        except CountTableTooLargeError as exc:
            raise ModelFileError(str(exc)) from None
        if counts.shape[1] != n_cells(sizes, order):
            raise ModelFileError("subset counts do not match their category lists")
        return cls(categories, order, counts)
