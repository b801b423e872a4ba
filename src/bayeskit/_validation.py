"""Input checks shared by every estimator: each error names the row, column and value at fault
and what is accepted."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from ._lazy import sparse as sp
from .errors import DataError, InputTypeError, ParameterError, ShapeError


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


def column_named(names: Sequence[str] | None, j: int) -> str:
    """Column ``j`` as a file's reader knows it: by its name, else by its place from 1."""
    if names is not None and j < len(names):
        return f"column {names[j]!r}"
    return f"column {position(names, j) + 1}"


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


def within(vals: np.ndarray, largest: float) -> bool:
    """Whether every value is a number of magnitude at most ``largest`` (False for NaN or
    ±inf), with no temporary array: the fast path of the checks below, which look for the
    offending cell only when there may be one. The smallest and largest values settle it
    (NaN makes both NaN): two vectorised passes, faster than one sum of squares (16 against
    27 µs for 115,000 values) and never called off by an overflow, and no BLAS call (a BLAS
    dot wakes BLAS's threads: 28 ms instead of 5 µs for 15,000 values on a busy 2-core
    machine)."""
    flat = vals.ravel(order="K")
    if flat.size == 0:
        return True
    low, high = flat.min(), flat.max()
    return bool(np.isfinite(low) and np.isfinite(high) and -largest <= low and high <= largest)


def check_not_infinite(
    X: Any,
    names: Sequence[str] | None,
    what: str,
    largest: float = np.inf,
) -> None:
    """Refuse ±inf and values beyond ``largest`` in magnitude, naming the first one (NaN is a
    missing value, which every naive family takes)."""
    vals = _values(X)
    if vals.dtype.kind == "f" and within(
        vals, largest if largest < np.inf else np.finfo(vals.dtype).max
    ):
        return
    with np.errstate(invalid="ignore"):
        mask = np.isinf(vals) if largest == np.inf else np.abs(vals) > largest
    if not mask.any():
        return
    row, col = first_bad(X, mask)
    value = float(vals[mask][0] if sp.issparse(X) else vals[row, col])
    if np.isinf(value):
        accepted = f"{what} takes finite numbers (NaN marks a missing value)"
        raise DataError(
            f"X contains {value} at row {row}, {column_label(names, col)}; {accepted}",
            row=row,
            detail=f"{column_named(names, col)} holds {value}; {accepted}",
        )
    accepted = (
        f"{what} takes values up to {largest:g} in magnitude (squares and products of larger "
        "ones overflow float64): rescale that column"
    )
    raise DataError(
        f"X contains {value:g} at row {row}, {column_label(names, col)}; {accepted}",
        row=row,
        detail=f"{column_named(names, col)} holds {value:g}; {accepted}",
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
        f"({column_label(names, col)}); it takes non-negative counts or frequencies",
        row=row,
        detail=f"{column_named(names, col)} holds {float(value)!r}; {what} takes non-negative "
        "counts or frequencies",
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
        f"({column_label(names, col)}); pass binarize=<threshold> to turn values into presence",
        row=row,
        detail=f"{column_named(names, col)} holds {float(value)!r}; {what} with binarize=None "
        "takes 0/1 features",
    )


def column_index(columns: Any, width: int) -> np.ndarray:
    """``columns``, an array of column numbers in ``0 … width − 1``, as an index array;
    anything else refused by name."""
    index = np.asarray(columns)
    if index.size == 0:
        return np.zeros(0, dtype=np.intp)
    if index.ndim != 1 or index.dtype.kind not in "iu":
        raise InputTypeError(
            "columns must be a one-dimensional list or array of column numbers (integers); "
            f"got {type(columns).__name__} of {index.dtype} with shape {index.shape}"
        )
    low, high = int(index.min()), int(index.max())
    if low < 0 or high >= width:
        bad = low if low < 0 else high
        raise ParameterError(
            f"columns must lie in 0 to {width - 1} (the model's {width} columns); got {bad}"
        )
    return index.astype(np.intp, copy=False)


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


def as_float_array(X: Any, what: str, names: Sequence[str] | None = None) -> Any:
    """Dense float64 array or CSR float64 matrix, refusing text and complex numbers (naming
    the first cell that is no number, with its column's name from ``names``)."""
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
            raise _not_a_number(arr, names, what, exc) from None
    return arr.astype(np.float64, copy=False)


def _not_a_number(
    arr: np.ndarray, names: Sequence[str] | None, what: str, exc: Exception
) -> InputTypeError:
    """The refusal of the first cell (by row, then column) that ``float`` cannot read: its
    row and column, the column's name and the value, so that a table of many columns says
    which one holds text. Looked for only once the conversion has failed, a column at a time
    (a whole column converts at numpy's speed when it holds numbers)."""
    found: tuple[int, int] | None = None
    reason = ""
    if arr.ndim == 2:
        for j in range(arr.shape[1]):
            column = arr[:, j] if found is None else arr[: found[0], j]
            try:
                column.astype(np.float64)
                continue
            except (TypeError, ValueError):
                pass
            for i, value in enumerate(column):
                if is_missing(value):  # numpy reads None as NaN: never the cell at fault
                    continue
                try:
                    float(value)
                except (TypeError, ValueError) as err:
                    # Python's own words stay in the message (scikit-learn's checks match
                    # "argument must be a string or a real number")
                    found, reason = (i, j), str(err)
                    break
    if found is None:  # not a table of cells (numpy's own words are all there is to give)
        return InputTypeError(
            f"{what} takes numbers, but X holds values of type {arr.dtype} ({exc}); encode "
            "text columns as numbers (one-hot) or use MixedNB, which takes text columns"
        )
    row, col = found
    value = arr[row, col]
    shown = repr(value if not isinstance(value, np.generic) else value.item())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InputTypeError(
        f"X[{row}, {position(names, col)}] = {shown} ({column_label(names, col)}) is not a "
        f"number ({reason}); {what} takes numbers only: encode that column as numbers (one "
        "0/1 column per category: pandas.get_dummies or sklearn.preprocessing.OneHotEncoder) "
        "or use MixedNB, which takes text columns as categories",
        row=row,
    )


def is_missing(value: Any) -> bool:
    """Whether a single value is a missing marker: None, a float NaN, pandas NA or NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(value != value)
    return type(value).__name__ in ("NAType", "NaTType")


#: dtype kinds no model takes, with what they are called in messages.
_REFUSED_KINDS = {
    "c": "complex numbers",
    "M": "dates (datetime64)",
    "m": "durations (timedelta64)",
    "V": "raw bytes (void records)",
}


def prepare_input(X: Any, what: str) -> Any:
    """The checks every estimator makes on ``X`` before its own: ``X`` given, rows of one
    length, and a numpy dtype the compiled code reads. Masked entries of a masked array become
    missing values; float16, longdouble and non-native byte orders become native float64 or
    integers; complex numbers, dates and durations are refused naming the dtype."""
    if X is None:
        raise DataError(
            f"{what} needs X, a 2-D table with one row per sample and one column per feature; "
            "got None"
        )
    if isinstance(X, (str, bytes, int, float, complex, np.generic)):
        raise ShapeError(f"{what} takes a 2-D table {_TABLE}; got the single value {X!r}")
    if isinstance(X, np.matrix):
        # Always 2-D: the plain array of the same rows (its subclass's indexing keeps rows
        # 2-D, which code written for arrays does not expect).
        X = np.asarray(X)
    # (numpy.ma is imported by whoever made a masked array: asking before costs an import)
    masked = sys.modules.get("numpy.ma")
    if masked is not None and isinstance(X, masked.MaskedArray):
        X = _unmask(X)
    elif isinstance(X, (list, tuple)):
        _check_not_ragged(X, what)
        _check_no_bytes(X, what)
    if not isinstance(X, np.ndarray):
        return X
    if X.ndim != 2:
        raise ShapeError(
            f"{what} takes a 2-D table {_TABLE}; got an array of shape {X.shape}. "
            "Reshape your data with X.reshape(-1, 1) if it holds one feature, or "
            "X.reshape(1, -1) if it is one sample"
        )
    refused = _REFUSED_KINDS.get(X.dtype.kind)
    if refused is not None:
        # Complex numbers are a ValueError with scikit-learn's words (its checks look for them).
        error = DataError if X.dtype.kind == "c" else InputTypeError
        raise error(_refusal(what, refused, X.dtype))
    if X.dtype.kind in "biuf" and not X.dtype.isnative:
        X = X.astype(X.dtype.newbyteorder("="))
    if X.dtype.kind == "f" and X.dtype.itemsize != 8 and X.dtype.itemsize != 4:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            wide = X.astype(np.float64)
            # Rounding to the nearest float64 is fine; overflow to inf or underflow to 0 is not.
            lost = np.abs(wide - X) > np.finfo(np.float64).eps * np.abs(X)
        if lost.any():
            row, col = (int(v) for v in np.argwhere(lost)[0])
            raise DataError(
                f"X[{row}, {col}] = {X[row, col]!r} ({X.dtype}) is beyond the range of float64, "
                "which bayeskit computes in: rescale the value"
            )
        X = wide
    return X


def _refusal(what: str, refused: str, dtype: Any) -> str:
    if np.dtype(dtype).kind == "c":
        return (
            f"Complex data not supported: {what} takes real numbers (X has dtype {dtype}); "
            "pass X.real or np.abs(X)"
        )
    return (
        f"{what} cannot use {refused} (X has dtype {dtype}); give numbers, or strings and bools "
        "for categorical features"
    )


def complex_refusal(what: str) -> str:
    """The message for complex input found after conversion (lists of complex numbers)."""
    return _refusal(what, _REFUSED_KINDS["c"], np.complex128)


def _unmask(X: np.ma.MaskedArray) -> np.ndarray:
    """A masked array with its masked entries as missing values (NaN, or None for text)."""
    mask = np.ma.getmaskarray(X)
    if X.dtype.kind in "biuf":
        return np.where(mask, np.nan, np.ma.getdata(X).astype(np.float64))
    out = np.ma.getdata(X).astype(object)
    out[mask] = None
    return np.asarray(out)


_TABLE = "(n_samples, n_features): one row per sample, one column per feature"


def _check_not_ragged(rows: list[Any] | tuple[Any, ...], what: str) -> None:
    """Refuse a flat list and a list of rows of different lengths, naming the first row that
    differs."""
    if not rows:
        raise ShapeError(f"{what} takes a 2-D table {_TABLE}; got an empty list (no rows)")
    first = None
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise ShapeError(
                f"{what} takes a 2-D table {_TABLE}; got a flat list (item {i} is {row!r}, "
                "not a row). Reshape your data as [[v] for v in X] if it holds one feature, or "
                "[X] if it is one sample"
            )
        if first is None:
            first = len(row)
        elif len(row) != first:
            raise ShapeError(
                f"X is ragged: row {i} has {len(row)} values but row 0 has {first}; every row "
                "needs one value for each feature (None or NaN marks a missing value)"
            )


def _check_no_bytes(rows: list[Any] | tuple[Any, ...], what: str) -> None:
    """Refuse a bytes cell in a list of rows, naming it (numpy would decode it as ASCII, or
    fail to, beside text): no model takes bytes; text is decoded first."""
    for i, row in enumerate(rows):
        if isinstance(row, np.ndarray) and row.dtype.kind != "O" and row.dtype.kind != "S":
            continue
        for j, value in enumerate(row):
            if isinstance(value, (bytes, bytearray, np.bytes_)):
                raise InputTypeError(
                    f"X[{i}, {j}] is bytes ({bytes(value)[:40]!r}); {what} takes numbers, "
                    "strings or bools: decode text first (value.decode('utf-8'))"
                )


def as_real(value: Any) -> float:
    """``float(value)`` of a number, with an int past the largest float as ±inf (which every
    check of a setting refuses by name as not finite) instead of Python's OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def check_positive_int(value: Any, name: str, what: str = "") -> int:
    """``value`` as an int if it is a positive integer (an ``int`` or numpy integer, not a
    bool), else :class:`~bayeskit.errors.ParameterError` naming ``name`` and what is accepted
    (``what``: what the number counts, for the message)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        counts = f" ({what})" if what else ""
        raise ParameterError(f"{name} must be a positive int{counts}; got {value!r:.60}")
    return int(value)


def float_values(value: Any, error: type[Exception], message: str) -> np.ndarray:
    """``value`` as a float64 array, or ``error(message)`` when it holds something that is no
    number (text, None, nested lists of different lengths)."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise error(message) from None


def is_data_frame(X: Any) -> bool:
    """Whether ``X`` is a pandas or polars DataFrame (by its type's module: no import)."""
    kind = type(X)
    return kind.__name__ == "DataFrame" and kind.__module__.split(".")[0] in ("pandas", "polars")


def frame_names(X: Any) -> np.ndarray | None:
    """A data frame's feature names as scikit-learn reads them (``_get_feature_names``): the
    column names when all are ``str``, None when none is (or there are no columns), and
    scikit-learn's TypeError when some are."""
    names = np.asarray(list(X.columns), dtype=object)
    if len(names) == 0:
        return None
    types = sorted(t.__qualname__ for t in {type(v) for v in names})
    if len(types) > 1 and "str" in types:
        raise TypeError(
            "Feature names are only supported if all input features have string names, "
            f"but your input has {types} as feature name / column name types. "
            "If you want feature names to be stored and validated, you must convert "
            "them all to strings, by using X.columns = X.columns.astype(str) for "
            "example. Otherwise you can remove feature / column names from your input "
            "data, or convert them all to a non-string data type."
        )
    return names if types == ["str"] else None


def frame_values(X: Any) -> np.ndarray | None:
    """The float64 values of a non-empty pandas or polars DataFrame whose columns all hold
    plain numbers (numpy int, uint or float dtypes; polars' integer and float types, nulls
    read as NaN), else None (scikit-learn's check reads the others)."""
    if not is_data_frame(X) or 0 in X.shape:
        return None
    if type(X).__module__.startswith("pandas"):
        if not all(isinstance(d, np.dtype) and d.kind in "iuf" for d in X.dtypes):
            return None
        return np.asarray(X.to_numpy(dtype=np.float64))
    if not all(d.is_integer() or d.is_float() for d in X.dtypes):
        return None
    return np.asarray(X.to_numpy(), dtype=np.float64)


def _same_names(estimator: Any, names: np.ndarray | None, *, reset: bool) -> None:
    """scikit-learn's ``_check_feature_names`` for names already read: record them
    (``reset``) or compare them with ``feature_names_in_`` (the same warnings and message)."""
    what = type(estimator).__name__
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
        else:
            estimator.__dict__.pop("feature_names_in_", None)
        return
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None or names is None:
        if names is not None:
            warnings.warn(
                f"X has feature names, but {what} was fitted without feature names",
                UserWarning,
                stacklevel=4,
            )
        elif fitted is not None:
            warnings.warn(
                f"X does not have valid feature names, but {what} was fitted with feature names",
                UserWarning,
                stacklevel=4,
            )
        return
    if len(fitted) == len(names) and not np.any(fitted != names):
        return
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    message = "The feature names should match those that were passed during fit.\n"
    for heading, listed in (
        ("Feature names unseen at fit time:\n", unseen),
        ("Feature names seen at fit time, yet now missing:\n", missing),
    ):
        if listed:
            message += heading + "".join(f"- {name}\n" for name in listed[:5])
            message += "- ...\n" if len(listed) > 5 else ""
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def check_features(estimator: Any, X: Any, *, reset: bool) -> None:
    """Record (``reset``) or check the input's feature names and number of columns, as
    scikit-learn's ``validate_data(estimator, X, skip_check_array=True, reset=reset)`` does
    (``feature_names_in_``, ``n_features_in_``; the same warnings and errors), without
    importing scikit-learn for an array (which has no names) or a pandas or polars
    DataFrame (whose names are read as scikit-learn reads them). Other containers go to
    scikit-learn's check."""
    if is_data_frame(X):
        _same_names(estimator, frame_names(X), reset=reset)
        _same_count(estimator, int(X.shape[1]), reset=reset)
        return
    if not (isinstance(X, np.ndarray) or sp.issparse(X)):
        from sklearn.utils.validation import validate_data

        validate_data(estimator, X, skip_check_array=True, reset=reset)
        return
    _same_names(estimator, None, reset=reset)
    if X.ndim < 2:
        if not reset and hasattr(estimator, "n_features_in_"):
            raise ValueError(
                f"X does not contain any features, but {type(estimator).__name__} is expecting "
                f"{estimator.n_features_in_} features"
            )
        return
    _same_count(estimator, int(X.shape[1]), reset=reset)


def _same_count(estimator: Any, n_features: int, *, reset: bool) -> None:
    """Record (``reset``) or check ``n_features_in_``, as scikit-learn does."""
    if reset:
        estimator.n_features_in_ = n_features
    elif hasattr(estimator, "n_features_in_") and n_features != estimator.n_features_in_:
        raise ValueError(
            f"X has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )


def check_random_state(seed: Any) -> np.random.RandomState:
    """scikit-learn's ``check_random_state``: numpy's global RandomState for None, a new one
    seeded with an integer, or the RandomState given."""
    if seed is None or seed is np.random:
        # the RandomState np.random's functions are bound to (numpy's global one)
        return np.random.random_sample.__self__  # type: ignore[attr-defined]
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        if not 0 <= int(seed) < 2**32:
            raise ParameterError(
                f"random_state={seed!r:.60} is not accepted; an integer seed is from 0 to "
                "2**32 - 1 (or pass None or a numpy RandomState)"
            )
        return np.random.RandomState(int(seed))
    if isinstance(seed, np.random.RandomState):
        return seed
    raise ParameterError(
        f"random_state={seed!r:.60} cannot seed a numpy RandomState; pass None, an integer "
        "from 0 to 2**32 - 1 or a RandomState"
    )
