"""Turn any 2-D table (numpy, list of rows, pandas or polars DataFrame) into columns of values,
without coercing them: strings stay strings, ints stay ints, and every missing marker (NaN, None,
pandas NA, polars null) becomes a missing value."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import complex_refusal, feature_names_of, is_missing
from ..errors import DataError, InputTypeError, ShapeError
from ..families._codebook import Table

_SCALARS = (str, bool, int, float, np.generic)
#: numpy scalars that are no category a model file can hold.
_NOT_CATEGORIES = (np.datetime64, np.timedelta64, np.complexfloating, np.void, bytes)


#: Integers of larger magnitude have no exact float64 (2**53 + 1 reads as 2**53).
_EXACT_IN_FLOAT = 2**53


def _pandas_column(col: Any) -> np.ndarray:
    dtype = col.dtype
    if isinstance(dtype, np.dtype):
        return col.to_numpy()
    kind = getattr(dtype, "kind", "O")
    if kind in "iu" and col.notna().any() and not _exact_in_float(col.min(), col.max()):
        return col.astype(object).to_numpy(dtype=object, na_value=None)
    if kind in "iuf":
        return col.to_numpy(dtype="float64", na_value=np.nan)
    return col.astype(object).to_numpy(dtype=object, na_value=None)


def _polars_column(col: Any) -> np.ndarray:
    # nulls become None (strings) or NaN (numbers)
    if col.dtype.is_integer() and col.null_count() and not _exact_in_float(col.min(), col.max()):
        return np.asarray(col.to_list(), dtype=object)
    return np.asarray(col.to_numpy())


def _exact_in_float(low: Any, high: Any) -> bool:
    """Whether integers from ``low`` to ``high`` all have an exact float64: a nullable integer
    column becomes float64 (NaN = missing) only then; otherwise its values stay Python ints
    (an identifier 2**53 + 1 would merge with 2**53)."""
    return low is None or (int(low) >= -_EXACT_IN_FLOAT and int(high) <= _EXACT_IN_FLOAT)


def _columns_of_frame(X: Any) -> list[np.ndarray]:
    if hasattr(X, "iloc"):  # pandas
        return [_pandas_column(X.iloc[:, j]) for j in range(X.shape[1])]
    return [_polars_column(X.get_column(name)) for name in X.columns]


def to_table(X: Any, what: str) -> tuple[Table, Any]:
    """(Table of columns, an array-like with ``.shape`` for scikit-learn's feature checks)."""
    if sp.issparse(X):
        raise InputTypeError(
            f"{what} takes a dense table of category values, not a sparse matrix; "
            "convert it with .toarray() or use MultinomialNB/BernoulliNB for sparse counts"
        )
    names = feature_names_of(X)
    if names is not None and hasattr(X, "shape"):
        columns = _columns_of_frame(X)
        n = int(X.shape[0])
        _check_shape(n, len(columns), len(columns))
        for j, col in enumerate(columns):
            _check_column(col, j, names)
        return Table(columns, names), X
    arr = X if isinstance(X, np.ndarray) else _array_of_rows(X)
    if arr.dtype.kind == "c":
        raise DataError(complex_refusal(what))
    if arr.ndim != 2:
        raise ShapeError(
            f"Expected 2D array, got {arr.ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if "
            "it contains a single sample."
        )
    _check_shape(arr.shape[0], arr.shape[1], arr.shape[1])
    columns = list(arr.T)
    matrix = arr if arr.dtype.kind in "biuf" else None
    default_names = [f"x{j}" for j in range(arr.shape[1])]
    if matrix is None:
        for j, col in enumerate(columns):
            _check_column(col, j, default_names)
    return Table(columns, default_names, matrix), arr


def _array_of_rows(X: Any) -> np.ndarray:
    """A list of rows as an array; numbers mixed with text keep their types (numpy alone
    would turn ``[["a", 1]]`` into the strings ``"a"`` and ``"1"``)."""
    try:
        arr = np.asarray(X)
    except UnicodeDecodeError:  # bytes beside text: numpy decodes them as ASCII
        arr = np.empty((len(X), len(X[0]) if len(X) else 0), dtype=object)
        arr[...] = [list(row) for row in X]
        return arr  # each cell as given: the column check names the bytes
    if arr.dtype.kind in "US" and arr.ndim == 2:
        flat = [v for row in X for v in row]
        if not all(isinstance(v, str) for v in flat):
            arr = np.empty(arr.shape, dtype=object)
            arr[...] = [list(row) for row in X]
    return arr


def _check_shape(n_rows: int, n_cols: int, shown: int) -> None:
    if n_cols == 0:
        raise ShapeError(
            f"Found array with 0 feature(s) (shape=({n_rows}, 0)) while a minimum of 1 is required."
        )
    if n_rows == 0:
        raise ShapeError(
            f"Found array with 0 sample(s) (shape=(0, {shown})) while a minimum of 1 is required."
        )


def refuse_dates(table: Table, what: str) -> None:
    """Refuse date, duration and raw-byte columns (no category a model file can hold), naming
    the column and its dtype."""
    for j, col in enumerate(table.columns):
        if col.dtype.kind in "mMV":
            raise InputTypeError(
                f"column {j} ({table.names[j]!r}) has dtype {col.dtype}; {what} takes strings, "
                "numbers or bools as category values (convert dates to text or numbers)"
            )


def _check_column(col: np.ndarray, j: int, names: list[str]) -> None:
    if col.dtype.kind == "c":
        raise DataError(complex_refusal(f"column {j} ({names[j]!r})"))
    if col.dtype.kind != "O":
        return
    cells = col.tolist()
    # One pass in C over the cells' types (None is missing); the rows are read only to name
    # a bad one.
    kinds = set(map(type, cells)) - {type(None)}
    if all(issubclass(t, _SCALARS) and not issubclass(t, _NOT_CATEGORIES) for t in kinds):
        return
    for row, v in enumerate(cells):
        if not is_missing(v) and (not isinstance(v, _SCALARS) or isinstance(v, _NOT_CATEGORIES)):
            raise InputTypeError(
                f"column {j} ({names[j]!r}) holds a {type(v).__name__} at row {row} ({v!r}); "
                "the argument must be a string, a number or a bool (None/NaN = missing)"
            )
