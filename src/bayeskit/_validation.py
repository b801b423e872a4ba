"""Input checks shared by every estimator: each error names the row, column and value at fault
and what is accepted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import scipy.sparse as sp

from .errors import DataError, InputTypeError, ShapeError


class FeatureNames(Sequence[str]):
    """Column names for messages, made only when a message needs one: ``x0``, ``x1``, … unless
    the data had names (building 10⁵ strings per call would cost more than the model)."""

    def __init__(self, n_features: int, names: Sequence[Any] | None = None):
        self._n = n_features
        self._names = names

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> Sequence[str]: ...
    def __getitem__(self, j: int | slice) -> str | Sequence[str]:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(self._n))]
        if not -self._n <= j < self._n:
            raise IndexError(j)
        j %= self._n
        return str(self._names[j]) if self._names is not None else f"x{j}"


class BlockNames(Sequence[str]):
    """The names of some of a table's columns, remembering where each sits in the table, so a
    message about column ``j`` of a block names the table's column (MixedNB's blocks)."""

    def __init__(self, names: Sequence[str], positions: Sequence[int]):
        self._names = [names[p] for p in positions]
        self.positions = list(positions)

    def __len__(self) -> int:
        return len(self._names)

    @overload
    def __getitem__(self, j: int) -> str: ...
    @overload
    def __getitem__(self, j: slice) -> Sequence[str]: ...
    def __getitem__(self, j: int | slice) -> str | Sequence[str]:
        return self._names[j]


def position(names: Sequence[str] | None, j: int) -> int:
    """Column ``j`` of a block as a column of the whole table."""
    positions = getattr(names, "positions", None)
    return int(positions[j]) if positions is not None and j < len(positions) else j


def column_label(names: Sequence[str] | None, j: int) -> str:
    if names is not None and j < len(names):
        return f"column {position(names, j)} ({names[j]!r})"
    return f"column {j}"


def first_bad(X: Any, bad_data: np.ndarray) -> tuple[int, int]:
    """Row and column of the first True entry of a mask over ``X`` (dense) or ``X.data``."""
    if sp.issparse(X):
        k = int(np.flatnonzero(bad_data)[0])
        Xc = X.tocsr()
        row = int(np.searchsorted(Xc.indptr, k, side="right") - 1)
        return row, int(Xc.indices[k])
    r, c = np.argwhere(bad_data)[0]
    return int(r), int(c)


def _values(X: Any) -> np.ndarray:
    return X.data if sp.issparse(X) else np.asarray(X)


#: The largest magnitude a family that computes with values (squares, products, logs of
#: sums) accepts: squares of larger numbers overflow float64 (1.8e308), so their
#: log-likelihoods could not be told apart. Categories and 0/1 presence are not bounded.
LARGEST_VALUE = 1e150


def check_not_infinite(
    X: Any, names: Sequence[str] | None, what: str, largest: float = np.inf
) -> None:
    """Refuse ±inf and values beyond ``largest`` in magnitude, naming the first one (NaN is a
    missing value, which every family takes)."""
    vals = _values(X)
    with np.errstate(invalid="ignore"):
        mask = np.isinf(vals) if largest == np.inf else np.abs(vals) > largest
    if not mask.any():
        return
    row, col = first_bad(X, mask)
    value = float(vals[mask][0] if sp.issparse(X) else vals[row, col])
    if np.isinf(value):
        raise DataError(
            f"X contains {value} at row {row}, {column_label(names, col)}; {what} takes "
            "finite numbers (NaN marks a missing value)"
        )
    raise DataError(
        f"X contains {value:g} at row {row}, {column_label(names, col)}; {what} takes values "
        f"up to {largest:g} in magnitude (squares and products of larger ones overflow "
        "float64): rescale that column"
    )


def check_non_negative(X: Any, names: Sequence[str] | None, what: str) -> None:
    """Refuse negative entries (counts), naming the first one."""
    vals = _values(X)
    neg = vals < 0
    if not neg.any():
        return
    row, col = first_bad(X, neg)
    value = vals[neg][0] if sp.issparse(X) else vals[row, col]
    raise DataError(
        f"Negative values in data passed to {what}: X[{row}, {position(names, col)}] = "
        f"{float(value)!r} "
        f"({column_label(names, col)}); it takes non-negative counts or frequencies"
    )


def check_binary(X: Any, names: Sequence[str] | None, what: str) -> None:
    """Refuse values other than 0 and 1 (used when Bernoulli input is not binarized)."""
    vals = _values(X)
    bad = (vals != 0) & (vals != 1) & ~np.isnan(vals)
    if not bad.any():
        return
    row, col = first_bad(X, bad)
    value = vals[bad][0] if sp.issparse(X) else vals[row, col]
    raise DataError(
        f"{what} with binarize=None needs 0/1 features, but X[{row}, {position(names, col)}] = "
        f"{float(value)!r} "
        f"({column_label(names, col)}); pass binarize=<threshold> to turn values into presence"
    )


def check_lengths(n_rows: int, other: Any, what: str) -> None:
    n_other = _length(other)
    if n_other is not None and n_other != n_rows:
        raise ShapeError(
            f"X has {n_rows} rows but {what} has {n_other} entries; they must have the same length"
        )


def _length(obj: Any) -> int | None:
    if obj is None:
        return None
    shape = getattr(obj, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    try:
        return len(obj)
    except TypeError:
        return None


def feature_names_of(X: Any) -> list[str] | None:
    """Column names of a pandas or polars DataFrame (duck-typed, no import), else None."""
    cols = getattr(X, "columns", None)
    if cols is None or sp.issparse(X) or isinstance(X, np.ndarray):
        return None
    return [str(c) for c in list(cols)]


def as_float_array(X: Any, what: str) -> Any:
    """Dense float64 array or CSR float64 matrix, refusing text and complex numbers."""
    if sp.issparse(X):
        if np.iscomplexobj(X.data):
            raise InputTypeError(f"Complex data not supported; {what} takes real numbers")
        X = X.tocsr()
        if X.dtype == np.float64:
            return X
        # Same structure with float values; scipy's astype would sort the indices first.
        return sp.csr_matrix(
            (X.data.astype(np.float64), X.indices, X.indptr), shape=X.shape, copy=False
        )
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise DataError(f"Complex data not supported; {what} takes real numbers")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise InputTypeError(
                f"{what} takes numbers, but X holds values of type {arr.dtype} "
                f"({exc}); encode text columns first or use CategoricalNB"
            ) from None
    return arr.astype(np.float64, copy=False)
