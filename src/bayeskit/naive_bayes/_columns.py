"""Column types of a table, and the conversions a family's block needs.

``MixedNB(families="auto")`` reads each column's type once, at fit time: pandas and polars
dtypes where the table has them, the values themselves for a numpy object array or a list of
rows. The types are

``"float"``     real numbers (NaN / null = missing);
``"integer"``   whole numbers (an integer dtype, nullable or not; also a pandas float64 column
                holding whole numbers and missing values: pandas turns an integer column
                with a missing value into float64, NaN for the missing ones);
``"bool"``      True/False (nullable or not);
``"category"``  strings, pandas categoricals, polars Categorical/Enum, or a mix of values.

Anything else (dates, durations, lists, structs, bytes, complex numbers) has no family and is
refused with the column's name and dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import column_label, column_named
from ..errors import DataError, InputTypeError
from ..families._codebook import Table, missing_mask

COLUMN_TYPES = ("float", "integer", "bool", "category")


def _pandas_type(col: Any) -> tuple[str | None, str]:
    import pandas as pd

    dtype = col.dtype
    api = pd.api.types
    if api.is_bool_dtype(dtype):
        return "bool", str(dtype)
    if api.is_integer_dtype(dtype):
        return "integer", str(dtype)
    if api.is_float_dtype(dtype):
        return "float", str(dtype)
    if isinstance(dtype, pd.CategoricalDtype) or api.is_string_dtype(dtype):
        return ("category" if not api.is_object_dtype(dtype) else None), str(dtype)
    if api.is_object_dtype(dtype):
        return None, str(dtype)
    return "unsupported", str(dtype)


def _polars_type(dtype: Any) -> tuple[str | None, str]:
    import polars as pl

    if dtype == pl.Boolean:
        return "bool", str(dtype)
    if dtype.is_integer():
        return "integer", str(dtype)
    if dtype.is_float():
        return "float", str(dtype)
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "category", str(dtype)
    if dtype == pl.Null:
        return None, str(dtype)
    return "unsupported", str(dtype)


def _numpy_type(col: np.ndarray) -> tuple[str | None, str]:
    kind = col.dtype.kind
    if kind == "b":
        return "bool", str(col.dtype)
    if kind in "iu":
        return "integer", str(col.dtype)
    if kind == "f":
        return "float", str(col.dtype)
    if kind in "US":
        return "category", str(col.dtype)
    if kind == "O":
        return None, "object"
    return "unsupported", str(col.dtype)


def _type_of_values(col: np.ndarray) -> str:
    """The type of an object column, from its non-missing values."""
    values = col[~missing_mask(col)].tolist()
    if not values:
        return "float"  # nothing observed: a real column that is missing everywhere
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "bool"
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return "integer"
    if all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
        for v in values
    ):
        return "float"
    return "category"


def _integers_with_nan(col: np.ndarray) -> bool:
    """Whether a float column holds whole numbers and some missing values (NaN): an integer
    column pandas turned into float64 to hold NaN, read as the integers it was."""
    if col.dtype.kind != "f":
        return False
    missing = np.isnan(col)
    if not missing.any() or missing.all():
        return False
    values = col[~missing]
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def column_types(X: Any, table: Table) -> list[str]:
    """The type of each column of ``X`` (already converted to ``table``)."""
    if hasattr(X, "iloc"):
        found = [_pandas_type(X.iloc[:, j]) for j in range(X.shape[1])]
        found = [
            ("integer", dtype)
            if dtype == "float64" and _integers_with_nan(table.columns[j])
            else (kind, dtype)
            for j, (kind, dtype) in enumerate(found)
        ]
    elif hasattr(X, "schema") and hasattr(X, "get_column"):
        found = [_polars_type(dtype) for dtype in X.schema.values()]
    else:
        found = [_numpy_type(col) for col in table.columns]
    types = []
    for j, (kind, dtype) in enumerate(found):
        if kind == "unsupported":
            raise InputTypeError(
                f"{column_label(table.names, j)} has dtype {dtype}, which no family takes; "
                "convert it to numbers, strings or bools (or drop it)"
            )
        types.append(kind if kind is not None else _type_of_values(table.columns[j]))
    return types


_is_number = np.frompyfunc(
    lambda v: isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)), 1, 1
)


def real_columns(
    table: Table, index: Sequence[int], family: str, names: Sequence[str]
) -> np.ndarray:
    """Columns ``index`` of ``table`` as one float64 (n, len(index)) block, NaN = missing."""
    if table.matrix is not None and table.matrix.dtype.kind in "biuf":
        return np.asarray(table.matrix[:, list(index)], dtype=np.float64)
    columns = [table.columns[j] for j in index]
    if all(col.dtype.kind in "biuf" for col in columns):
        return np.column_stack(columns).astype(np.float64, copy=False)
    out = np.empty((table.n_rows, len(index)))
    for k, j in enumerate(index):
        col = table.columns[j]
        if col.dtype.kind in "biuf":
            out[:, k] = col
            continue
        missing = missing_mask(col)
        numeric = np.asarray(_is_number(col), dtype=bool) | missing
        if not numeric.all():
            row = int(np.flatnonzero(~numeric)[0])
            # "auto" is no family a user named: the column was numbers in training
            accepted = (
                "the column held numbers in training and takes numbers"
                if family == "auto"
                else f"the {family} family takes numbers"
            )
            raise DataError(
                f"{column_label(names, j)} holds {col[row]!r} at row {row}; {accepted} (an "
                "empty cell, None or NaN is a missing value)",
                row=row,
                detail=f"{column_named(names, j)} holds {col[row]!r}; {accepted}",
            )
        out[:, k] = np.where(missing, np.nan, col).astype(np.float64)
    return out


def check_booleans(block: np.ndarray, index: Sequence[int], names: Sequence[str]) -> None:
    """Refuse a value other than 0/1 (True/False) or missing in a block of boolean columns
    (``index`` their positions in the table), naming the column, the row and the value: a
    Bernoulli column thresholded at 0 would read 2, 0.5 and -1 as True, True and False."""
    bad = (block != 0) & (block != 1) & ~np.isnan(block)
    if not bad.any():
        return
    row, k = (int(v) for v in np.argwhere(bad)[0])
    j = int(index[k])
    value = float(block[row, k])
    accepted = (
        "a boolean column (the Bernoulli family) takes True/False or 1/0, and None or NaN as "
        "missing; to count a number as True above a threshold, pass "
        "options={'bernoulli': {'binarize': threshold}}"
    )
    raise DataError(
        f"{column_label(names, j)} holds {value:g} at row {row}; {accepted}",
        row=row,
        detail=f"{column_named(names, j)} holds {value:g}; {accepted}",
    )


def category_columns(table: Table, index: Sequence[int]) -> Table:
    """Columns ``index`` of ``table`` as a table of their own."""
    return Table([table.columns[j] for j in index], [table.names[j] for j in index])
