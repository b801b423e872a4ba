"""The target and feature columns of a table read (:func:`~bayeskit.io.readers.read_table`):
the labels split off, each row's label checked, and columns no model can use refused."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._labels import fractional_labels
from ..errors import ReadError
from .readers import list_names

__all__ = ["check_feature_columns", "labels_of", "split_target"]


def split_target(frame: Any, target: str, *, source: str) -> tuple[Any, np.ndarray]:
    """Split a DataFrame into its feature columns and the target labels.

    Raises :class:`ReadError` when ``target`` is not a column (listing the columns), when a
    row has no label (naming the row), when the table has no other column, and when the
    target has only one class.
    """
    if target not in frame.columns:
        raise ReadError(
            f"{source}: no column {target!r}; the target must be one of the columns: "
            f"{list_names(frame.columns)}",
            path=source,
            column=target,
        )
    y = labels_of(frame, target, source=source)
    classes = np.unique(y)
    if len(classes) < 2:
        raise ReadError(
            f"{source}: the target column {target!r} has one class ({classes.tolist()[0]!r} in all "
            f"{len(y)} rows); a classifier needs examples of at least two classes",
            path=source,
            column=target,
        )
    features = frame.drop(target)
    if features.width == 0:
        raise ReadError(
            f"{source}: the table has no column besides the target {target!r}; add feature columns",
            path=source,
        )
    return features, y


def labels_of(frame: Any, target: str, *, source: str, first_row: int = 0) -> np.ndarray:
    """The labels in column ``target`` of ``frame`` (text stripped of surrounding spaces;
    booleans as the text ``true`` and ``false``).

    Raises :class:`ReadError` naming the first row without one (``first_row``: the number of
    rows before ``frame`` in the file, when it is one batch of a larger table).
    """
    import polars as pl

    labels = frame.get_column(target)
    nulls = labels.is_null()
    if labels.dtype in (pl.String, pl.Categorical) or isinstance(labels.dtype, pl.Enum):
        labels = labels.cast(pl.String).str.strip_chars()
        nulls = nulls | (labels == "").fill_null(True)
    if isinstance(labels.dtype, (pl.Float32, pl.Float64)):
        nulls = nulls | labels.is_nan()
    if nulls.any():
        row = first_row + int(nulls.arg_max() or 0)
        count = int(nulls.sum())
        raise ReadError(
            f"{source}: row {row + 1} has no value in the target column {target!r} "
            f"({count} {'row has' if count == 1 else 'rows have'} none); label every row or "
            "remove the unlabelled ones",
            path=source,
            column=target,
        )
    if labels.dtype == pl.Boolean:  # JSON's true and false, as the file writes them
        labels = labels.cast(pl.String)
    y = np.asarray(labels.to_list())
    if y.dtype.kind == "f":
        distinct = np.unique(y)
        if (distinct != np.trunc(distinct)).any():
            raise ReadError(
                f"{source}: the target column {target!r} {fractional_labels(distinct)}; "
                "name another column with --target, or bin these numbers into classes first",
                path=source,
                column=target,
            )
    return y


def check_feature_columns(frame: Any, source: str) -> None:
    """Refuse columns no model can use (lists, structs, binary), naming them."""
    import polars as pl

    for column, dtype in frame.schema.items():
        if dtype.is_nested() or dtype in (pl.Binary, pl.Object):
            raise ReadError(
                f"{source}: column {column!r} holds {dtype} values; bayeskit takes numbers, "
                "booleans and text in columns (flatten or drop this one)",
                path=source,
                column=column,
            )
