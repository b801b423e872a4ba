"""Dask collections as lists of aligned partitions: X's partitions, and y's and the sample
weights' split the same way.

X is a dask.array (row blocks; column blocks are joined), a dask.dataframe DataFrame or Series,
or a dask.bag (documents, or ``(document, label)`` pairs when y is None). y and sample_weight
are a dask collection partitioned like X, one with other partitions (re-split like X by
position), an in-memory sequence (split like X), or — for a DataFrame X — the name of one of
its columns. Sizes that dask does not know (a masked array's chunks, a DataFrame's partitions)
are computed when the split needs them, at the cost of one extra pass over the data. A
collection with as many partitions as X whose lengths are not known is paired with X's
partitions as it is; if a pair turns out to differ in length, it is re-split like X by
position (:meth:`Partitions.realign`) and the round runs again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._labels import scalar_weight
from .._merging import shortened
from ..errors import DataError, InputTypeError, ShapeError


class MisalignedError(ShapeError):
    """A partition of y or sample_weight whose length is not that of X's partition it was
    paired with (the lengths were not known when they were paired)."""


def n_rows(part: Any) -> int:
    """Rows of one partition (an array, a sparse matrix, a frame or a list)."""
    shape = getattr(part, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(part)


@dataclass(frozen=True)
class Checks:
    """What each partition task checks and unpacks before summarizing (small: sent with
    every task)."""

    columns: tuple[str, ...] | None = None  # a DataFrame's declared columns (its meta)
    dtypes: tuple[str, ...] | None = None
    target: str | None = None  # y is this column of X
    weights: str | None = None  # sample_weight is this column of X
    pairs: bool = False  # X's elements are (document, label) pairs
    offsets: tuple[int, ...] | None = None  # each partition's first row of X, when known

    def located(
        self, index: int, error: DataError | InputTypeError, X: Any = None
    ) -> DataError | InputTypeError:
        """``error``, raised by a model for partition ``index`` (its rows ``X``), naming it
        (see :func:`located`)."""
        offset = None if self.offsets is None else self.offsets[index]
        return located(error, index, offset, getattr(X, "index", None))

    def apply(self, index: int, X: Any, y: Any, weight: Any) -> tuple[Any, Any, Any]:
        """(X, y, weight) of partition ``index``, checked against X's declared layout."""
        if self.columns is not None:
            self._check_frame(index, X)
        if self.weights is not None:
            weight = X[self.weights]
            X = X.drop(columns=[self.weights])
        if self.target is not None:
            y = X[self.target]
            X = X.drop(columns=[self.target])
        if self.pairs:
            X, y = _unzip(index, X)
        n = n_rows(X)
        for name, values in (("y", y), ("sample_weight", weight)):
            if values is not None and np.ndim(values) and n_rows(values) != n:
                raise MisalignedError(
                    f"{name} is not aligned with X: partition {index} of X has {n} rows but "
                    f"{name} has {n_rows(values)} there; give {name} one value per row of X, "
                    "partitioned like X"
                )
        return X, y, weight

    def _check_frame(self, index: int, X: Any) -> None:
        assert self.columns is not None
        assert self.dtypes is not None
        columns = tuple(str(c) for c in X.columns)
        if columns != self.columns:
            missing = [c for c in self.columns if c not in set(columns)]
            extra = [c for c in columns if c not in set(self.columns)]
            what = "; ".join(
                [f"missing {missing}"] * bool(missing) + [f"unexpected {extra}"] * bool(extra)
            )
            raise DataError(
                f"partition {index} of X does not have the columns the DataFrame declares "
                f"({what or 'in another order'}): every partition needs the columns "
                f"{list(self.columns)}"
            )
        for column, got, declared in zip(
            columns, (str(d) for d in X.dtypes), self.dtypes, strict=True
        ):
            if got != declared:
                raise DataError(
                    f"partition {index} of X: column {column!r} has dtype {got} there but the "
                    f"DataFrame declares {declared}; give the column one dtype in every "
                    f"partition (e.g. .astype({{{column!r}: {declared!r}}}))"
                )


def _unzip(index: int, X: Any) -> tuple[list[Any], np.ndarray]:
    docs, labels = [], []
    for k, item in enumerate(X):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InputTypeError(
                f"element {k} of partition {index} of X is a {type(item).__name__}, not a "
                "(document, label) pair; without y, a bag holds (document, label) pairs"
            )
        docs.append(item[0])
        labels.append(item[1])
    return docs, np.asarray(labels)


@dataclass
class Partitions:
    """X, y and sample weights as aligned lists of dask Delayed partitions (or in-memory
    pieces); y and weights are None when not given."""

    X: list[Any]
    y: list[Any] | None
    weight: list[Any] | None
    checks: Checks
    kind: str  # "array", "frame", "series" or "bag"
    rows: _Rows | None = field(default=None, repr=False)
    given: dict[str, Any] = field(default_factory=dict, repr=False)  # y, weights as given
    realigned: bool = False

    def realign(self) -> bool:
        """Re-split by position, like X, the y and weights given as dask collections (after a
        partition of one turned out not to be as long as X's); False when done already."""
        import dask

        if self.realigned or self.rows is None:
            return False
        self.realigned = True
        for name, values in self.given.items():
            if dask.is_dask_collection(values):
                pieces = _aligned(values, name, self.rows, paired=False)
                if name == "y":
                    self.y = pieces
                else:
                    self.weight = pieces
        return True

    def where(self, key: Any) -> str | None:
        """The partition of X whose data (X's, y's or the weights') the task ``key``
        computes, as ``"partition 7 of X"``; None when no partition's graph holds it."""
        import dask.core

        for pieces in (self.X, self.y, self.weight):
            for index, piece in enumerate(pieces or ()):
                if not hasattr(piece, "__dask_graph__"):
                    continue
                graph = piece.__dask_graph__()
                todo, seen = [piece.key], set()
                while todo:
                    found = todo.pop()
                    if found == key:
                        return f"partition {index} of X"
                    if found not in seen:
                        seen.add(found)
                        todo.extend(dask.core.get_dependencies(graph, found))
        return None


def _kind(X: Any) -> str:
    import dask

    if not dask.is_dask_collection(X):
        raise InputTypeError(
            f"bayeskit.dask takes X as a dask.array, dask.dataframe or dask.bag, not a "
            f"{type(X).__name__}; for data in memory call the estimator's own fit"
        )
    import dask.array as da
    import dask.bag as db

    if isinstance(X, da.Array):
        return "array"
    if isinstance(X, db.Bag):
        return "bag"
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return "frame"
    if isinstance(X, dd.Series):
        return "series"
    raise InputTypeError(
        f"bayeskit.dask takes a dask.array, dask.dataframe or dask.bag, not a {type(X).__name__}"
    )


def located(
    error: DataError | InputTypeError, index: int, offset: int | None, labels: Any = None
) -> DataError | InputTypeError:
    """``error`` (a DataError or an InputTypeError), raised by a model for partition ``index``
    of X, naming the partition, and the row when the model named its row in the partition:
    as a row of X when the partition's first row ``offset`` is known, else by its index
    label in ``labels`` (a DataFrame partition's index). The model counts rows within the
    partition it was given."""
    row = error.row
    where = f"partition {index} of X (its rows counted from 0)"
    if row is not None and offset is not None:
        where = f"partition {index} of X, whose row {row} is row {offset + row} of X"
    elif row is not None and labels is not None and 0 <= row < len(labels):
        label = labels[row]
        label = label.item() if isinstance(label, np.generic) else label
        where = f"partition {index} of X, whose row {row} has the index {label!r}"
    message = f"{where}: {error}"
    if not isinstance(error, DataError):
        try:
            return type(error)(message, row=row)
        except TypeError:  # a subclass made otherwise: the message matters more than the type
            return InputTypeError(message, row=row)
    try:
        return type(error)(message, row=row, detail=error.detail)
    except TypeError:
        return DataError(message, row=row, detail=error.detail)


def split(X: Any, y: Any = None, sample_weight: Any = None, *, labelled: bool = True) -> Partitions:
    """X's partitions and y's and the weights' aligned with them (see the module docstring);
    ``labelled``: the estimator learns from labels (a bag without y holds pairs)."""
    kind = _kind(X)
    checks = Checks()
    if kind == "array" and X.ndim == 2 and X.numblocks[1] > 1:
        X = X.rechunk({1: -1})  # one block across the columns: each task sees whole rows
    if kind == "frame":
        columns = tuple(str(c) for c in X.columns)
        dtypes = tuple(str(d) for d in X.dtypes)
        checks = Checks(columns, dtypes)
        named = {"y": y, "sample_weight": sample_weight}
        for name, value in named.items():
            if isinstance(value, str) and value not in columns:
                raise DataError(
                    f"{name} names the column {value!r}, which X does not have; its columns "
                    f"are {list(columns)}"
                )
        if isinstance(y, str) and y == sample_weight:
            raise DataError(f"y and sample_weight both name the column {y!r}")
        target = y if isinstance(y, str) else None
        weights = sample_weight if isinstance(sample_weight, str) else None
        checks = Checks(columns, dtypes, target=target, weights=weights)
        y = None if target is not None else y
        sample_weight = None if weights is not None else sample_weight
    else:
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if isinstance(value, str):
                raise InputTypeError(
                    f"{name}={value!r}: a column name is only accepted when X is a dask "
                    f"DataFrame; give {name} one value per row"
                )
    if kind == "bag" and y is None and labelled:
        checks = Checks(pairs=True)
    # Unoptimized: optimizing fuses a task that X and y share (a chunk that yields rows and
    # labels) into each of them, and it would run twice.
    parts = list(np.ravel(X.to_delayed(optimize_graph=False)))
    rows = _Rows(X, kind, parts)
    if rows.known is not None:
        checks = dataclasses.replace(
            checks, offsets=tuple(int(n) for n in np.cumsum((0, *rows.known[:-1])))
        )
    given = {name: v for name, v in (("y", y), ("sample_weight", sample_weight)) if v is not None}
    return Partitions(
        parts,
        _aligned(y, "y", rows),
        _aligned(sample_weight, "sample_weight", rows),
        checks,
        kind,
        rows,
        given,
    )


class _Rows:
    """X's partition lengths, computed once when needed."""

    def __init__(self, X: Any, kind: str, parts: list[Any]):
        self.X, self.kind, self.parts = X, kind, parts
        self._lengths: tuple[int, ...] | None = None
        if kind == "array" and not np.isnan(X.chunks[0]).any():
            self._lengths = tuple(int(n) for n in X.chunks[0])

    @property
    def count(self) -> int:
        return len(self.parts)

    @property
    def known(self) -> tuple[int, ...] | None:
        return self._lengths

    def lengths(self) -> tuple[int, ...]:
        if self._lengths is None:
            self._lengths = _computed_lengths(self.parts)
        return self._lengths


def _computed_lengths(parts: list[Any]) -> tuple[int, ...]:
    import dask

    return tuple(int(n) for n in dask.compute(*(dask.delayed(n_rows)(p) for p in parts)))


def _aligned(values: Any, name: str, rows: _Rows, *, paired: bool = True) -> list[Any] | None:
    """``values`` split like X: partition by partition when they have as many partitions as X
    of the same or unknown lengths (``paired``), else re-split by position."""
    if values is None:
        return None
    import dask

    if not dask.is_dask_collection(values):
        return _split_local(values, name, rows)
    import dask.array as da
    import dask.bag as db

    if isinstance(values, da.Array):
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim != 1:
            raise ShapeError(f"{name} must be one-dimensional; got a dask array of {values.ndim}")
        paired = paired and values.numblocks[0] == rows.count
        if paired and _same_known(values.chunks[0], rows.known):
            return list(values.to_delayed(optimize_graph=False).ravel())
        return _resplit(values, name, rows)
    if isinstance(values, db.Bag):
        if paired and values.npartitions == rows.count:
            return list(values.to_delayed(optimize_graph=False))
        pieces = values.to_delayed(optimize_graph=False)
        lengths = _computed_lengths(pieces)
        array = da.concatenate(
            [
                da.from_delayed(dask.delayed(np.asarray)(p), shape=(n,), dtype=object)
                for p, n in zip(pieces, lengths, strict=True)
            ]
        )
        return _resplit(array, name, rows)
    if hasattr(values, "npartitions") and hasattr(values, "to_delayed"):  # dask DataFrame/Series
        if getattr(values, "ndim", 1) == 2:
            if len(values.columns) != 1:
                raise ShapeError(
                    f"{name} must be one column; got a dask DataFrame with columns "
                    f"{list(values.columns)}"
                )
            values = values[values.columns[0]]
        if paired and values.npartitions == rows.count:
            return list(values.to_delayed(optimize_graph=False))
        return _resplit(values.to_dask_array(lengths=True), name, rows)
    raise InputTypeError(f"{name} is a {type(values).__name__}; give a dask collection or array")


def _scalar_weight(values: Any, array: np.ndarray) -> float:
    """A ``sample_weight`` given as one value: a number >= 0 (:func:`scalar_weight`), or
    refused naming what it is and what is accepted."""
    if array.dtype.kind not in "biuf":
        raise InputTypeError(
            f"sample_weight is a {type(values).__name__} ({shortened(values)}); give one "
            "number >= 0 for every row, or one weight per row of X: an array, a dask array or "
            "Series partitioned like X, or the name of a column of a DataFrame X"
        )
    return scalar_weight(array)


def _same_known(chunks: tuple[float, ...], lengths: tuple[int, ...] | None) -> bool:
    """Whether y's blocks can be paired with X's as they are: the same sizes, or sizes
    unknown on either side (each task then checks its lengths)."""
    if lengths is None or np.isnan(chunks).any():
        return True
    return tuple(int(n) for n in chunks) == lengths


def _resplit(values: Any, name: str, rows: _Rows) -> list[Any]:
    """A 1-D dask array re-split by position into X's partition lengths."""
    if np.isnan(values.chunks[0]).any():
        values = values.compute_chunk_sizes()
    lengths = rows.lengths()
    _check_total(int(values.shape[0]), sum(lengths), name)
    return list(values.rechunk((lengths,)).to_delayed(optimize_graph=False).ravel())


def _split_local(values: Any, name: str, rows: _Rows) -> list[Any]:
    to_numpy = getattr(values, "to_numpy", None)
    array = np.asarray(to_numpy() if to_numpy is not None else values)
    if array.ndim == 0:
        if name == "sample_weight":  # one weight for every row: checked here, once
            return [_scalar_weight(values, array)] * rows.count
        raise ShapeError(f"{name} must hold one value per row of X, not a scalar")
    lengths = rows.lengths()
    _check_total(array.shape[0], sum(lengths), name)
    return np.split(array, np.cumsum(lengths)[:-1])


def _check_total(n: int, expected: int, name: str) -> None:
    if n != expected:
        raise ShapeError(
            f"{name} is not aligned with X: it has {n} rows but X has {expected}; give one "
            "value per row of X"
        )
