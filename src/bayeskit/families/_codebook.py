"""Categorical values -> integer codes, vectorised.

Every (feature, category) pair gets one global code ``offset[j] + v``; a row of codes indexes
straight into the per-class log-probability table, so counting and prediction are a single
``bincount`` / sparse product over all features at once (no Python loop over features).
Integer-valued columns (ints, bools, whole floats — what ordinal encoders produce) go through a
lookup table; other columns are sorted and searched one column at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._jit import SMALL_TABLE
from .._values import unique_sorted
from ..stats import CategoryCounts
from . import _categorical_kernels as kernels

#: code of a missing value (NaN, None, pandas NA, polars null): it drops out of the product.
MISSING = -2
#: code of a value never seen in training.
UNSEEN = -1

_MAX_LUT = 1 << 16


@dataclass
class Table:
    """Categorical input as columns. ``matrix`` keeps a 2-D numeric array whole for speed."""

    columns: list[np.ndarray]
    names: list[str]
    matrix: np.ndarray | None = None
    missing: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_rows(self) -> int:
        if self.matrix is not None:
            return int(self.matrix.shape[0])
        return len(self.columns[0]) if self.columns else 0

    @property
    def n_features(self) -> int:
        return len(self.names)

    def __getitem__(self, rows: Any) -> Table:
        """Some of the rows (a boolean mask or row indices), as an array's ``X[rows]``: how
        prepared input is cut (``PreparedRows.take``, the labelled rows of a part)."""
        return Table(
            [column[rows] for column in self.columns],
            self.names,
            None if self.matrix is None else self.matrix[rows],
            None if self.missing is None else self.missing[rows],
        )


def _is_missing_scalar(v: object) -> bool:
    if v is None:
        return True
    if isinstance(v, float):
        return v != v
    # pandas.NA and pandas.NaT compare oddly; recognise them by type name, without importing.
    return type(v).__name__ in ("NAType", "NaTType")


_missing_ufunc = np.frompyfunc(_is_missing_scalar, 1, 1)


def missing_mask(col: np.ndarray) -> np.ndarray:
    """Boolean mask of missing entries of one column."""
    kind = col.dtype.kind
    if kind == "f":
        return np.isnan(col)
    if kind == "O":
        return np.asarray(_missing_ufunc(col), dtype=bool) if len(col) else np.zeros(0, bool)
    return np.zeros(col.shape, dtype=bool)


def _integral(col: np.ndarray, miss: np.ndarray) -> bool:
    if col.dtype.kind in "biu":
        return True
    if col.dtype.kind != "f":
        return False
    vals = col[~miss]
    return bool(np.all(vals == np.floor(vals))) and (vals.size == 0 or np.abs(vals).max() < 2**53)


def _unique_inverse(vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(vals, return_inverse=True)``. For text (object) columns by a stable sort:
    numpy sorts objects with quicksort, which compares Python strings ~2.5 times as often as
    a merge of the runs real tables hold (nursery's 12,960 rows: 0.30 → 0.12 s)."""
    if vals.dtype.kind != "O":
        return np.unique(vals, return_inverse=True)
    order = np.argsort(vals, kind="stable")
    ordered = vals[order]
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(vals), dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def discover_codes(table: Table) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Categories of every column and each cell's index among them (−1: missing), found in one
    sort per column."""
    missing = _missing_of(table)
    local = np.full((table.n_rows, table.n_features), -1, dtype=np.int64)
    cats: list[np.ndarray] = []
    for j, (col, miss) in enumerate(zip(table.columns, missing, strict=True)):
        vals = col[~miss] if miss.any() else col
        try:
            values, inverse = _unique_inverse(vals)
        except TypeError:  # numbers mixed with text in one object column
            values = unique_sorted(vals)
            where = {_key(v): i for i, v in enumerate(values.tolist())}
            inverse = np.fromiter((where[_key(v)] for v in vals.tolist()), np.int64, len(vals))
        cats.append(values)
        if miss.any():
            local[~miss, j] = inverse
        else:
            local[:, j] = inverse
    return tuple(cats), local


def _missing_of(table: Table) -> list[np.ndarray]:
    if table.missing is None:
        table.missing = (
            np.stack([missing_mask(c) for c in table.columns], axis=1)
            if (table.columns)
            else np.zeros((table.n_rows, 0), dtype=bool)
        )
    return [table.missing[:, j] for j in range(table.n_features)]


@dataclass
class Codebook:
    """Fitted category lists with the lookups that turn values into global codes."""

    categories: tuple[np.ndarray, ...]
    offsets: np.ndarray = field(init=False)
    lut_features: np.ndarray = field(init=False, repr=False)
    lut_lo: np.ndarray = field(init=False, repr=False)
    lut_base: np.ndarray = field(init=False, repr=False)
    lut_span: np.ndarray = field(init=False, repr=False)
    lut: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        sizes = np.array([len(c) for c in self.categories], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        lut_feats, los, spans = [], [], []
        for j, cats in enumerate(self.categories):
            if (
                len(cats)
                and cats.dtype.kind in "biuf"
                and _integral(cats, np.zeros(len(cats), bool))
            ):
                lo, hi = int(cats[0]), int(cats[-1])
                # (whole numbers beyond ±2**53, uint64 hashes, are looked up by search: a
                # table indexed from them would not fit int64)
                small = lo > -(2**53) and hi < 2**53
                if small and hi - lo + 1 <= max(_MAX_LUT, 4 * len(cats)):
                    lut_feats.append(j)
                    los.append(lo)
                    spans.append(hi - lo + 1)
        self.lut_features = np.array(lut_feats, dtype=np.int64)
        self.lut_lo = np.array(los, dtype=np.int64)
        self.lut_span = np.array(spans, dtype=np.int64)
        self.lut_base = np.concatenate([[0], np.cumsum(self.lut_span)]).astype(np.int64)
        lut = np.full(int(self.lut_base[-1]), UNSEEN, dtype=np.int64)
        for k, j in enumerate(lut_feats):
            cats = self.categories[j].astype(np.int64)
            lut[self.lut_base[k] + cats - los[k]] = self.offsets[j] + np.arange(len(cats))
        self.lut = lut

    @property
    def all_lut(self) -> bool:
        """Every feature has whole-number categories reachable through the lookup table."""
        return len(self.lut_features) == len(self.categories)

    @property
    def n_codes(self) -> int:
        return int(self.offsets[-1])

    def encode(self, table: Table) -> np.ndarray:
        """Global codes, shape (n_rows, n_features); UNSEEN and MISSING mark the exceptions."""
        n, d = table.n_rows, table.n_features
        codes = np.empty((n, d), dtype=np.int64)
        done = np.zeros(d, dtype=bool)
        if len(self.lut_features):
            block = self._numeric_block(table, self.lut_features)
            if block is not None:
                values, miss = block
                codes[:, self.lut_features] = self._lut_codes(values, miss)
                done[self.lut_features] = True
        missing = None
        for j in np.flatnonzero(~done):
            if missing is None:
                missing = _missing_of(table)
            codes[:, j] = self._encode_column(int(j), table.columns[j], missing[j])
        return codes

    def _numeric_block(
        self, table: Table, feats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray] | None:
        if table.matrix is not None:
            sub = table.matrix if len(feats) == table.n_features else table.matrix[:, feats]
            if sub.dtype.kind in "biu":
                return sub.astype(np.int64, copy=False), np.zeros(sub.shape, dtype=bool)
            if sub.dtype.kind == "f":
                miss = np.isnan(sub)
                ok = ~miss & (sub == np.floor(np.where(miss, 0.0, sub)))
                if np.all(ok | miss):
                    return np.where(miss, 0, sub).astype(np.int64), miss
                return None
            return None
        cols = [table.columns[j] for j in feats]
        if all(c.dtype.kind in "biu" for c in cols):
            return np.stack(cols, axis=1).astype(np.int64), np.zeros(
                (table.n_rows, len(feats)), bool
            )
        return None

    def _lut_codes(self, values: np.ndarray, miss: np.ndarray) -> np.ndarray:
        rel = values - self.lut_lo
        inside = (rel >= 0) & (rel < self.lut_span) & ~miss
        key = np.where(inside, rel + self.lut_base[:-1], 0)
        out = np.where(inside, self.lut[key], UNSEEN)
        out[miss] = MISSING
        return out

    def _encode_column(self, j: int, col: np.ndarray, miss: np.ndarray) -> np.ndarray:
        cats = self.categories[j]
        out = np.full(len(col), UNSEEN, dtype=np.int64)
        out[miss] = MISSING
        present = ~miss
        vals = col[present]
        if len(cats) == 0 or len(vals) == 0:
            return out
        local = np.full(len(vals), UNSEEN, dtype=np.int64)
        comparable = (
            cats.dtype.kind != "O"
            and vals.dtype.kind != "O"
            and ((cats.dtype.kind in "biuf") == (vals.dtype.kind in "biuf"))
        )
        if comparable:
            idx = np.searchsorted(cats, vals)
            idx_c = np.minimum(idx, len(cats) - 1)
            hit = cats[idx_c] == vals
            local[hit] = idx_c[hit]
        else:
            where = {_key(v): i for i, v in enumerate(cats.tolist())}
            local = np.fromiter(
                (where.get(_key(v), UNSEEN) for v in vals.tolist()), np.int64, len(vals)
            )
        out[present] = np.where(local >= 0, local + self.offsets[j], UNSEEN)
        return out


def _key(value: object) -> tuple[str, object]:
    return ("s", value) if isinstance(value, str) else ("n", value)


def summarize_codes(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int
) -> CategoryCounts | None:
    """Category counts of an integer-valued matrix in one compiled pass; None when the values
    are not whole numbers or span too wide a range (the general path handles those)."""
    values = X.view(np.int8) if X.dtype.kind == "b" else np.ascontiguousarray(X)
    small = values.size <= SMALL_TABLE  # numpy's pass: no numba for a small table
    lo, hi, whole = (kernels.value_range if small else kernels.column_range)(values)
    if not whole:
        return None
    empty = lo > hi  # a column with only missing values
    lo = np.where(empty, 0, lo)
    span = np.where(empty, 0, hi - lo + 1)
    if span.sum() > max(_MAX_LUT, 2 * X.size):
        return None
    base = np.concatenate([[0], np.cumsum(span)])
    counts = kernels.key_counts(values, y, w, lo, base[:-1], n_classes, int(base[-1]))
    seen = counts.sum(axis=0) > 0  # weight 0 means "row absent": its values were not seen
    key = np.flatnonzero(seen)
    feature = np.searchsorted(base, key, side="right") - 1
    values_seen = (key - base[feature] + lo[feature]).astype(X.dtype)
    splits = np.searchsorted(feature, np.arange(1, X.shape[1]))
    return CategoryCounts(tuple(np.split(values_seen, splits)), counts[:, seen])
