"""The values of a request's table, column by column, as the model reads them.

Each column is checked value by value against what the model's column holds (numbers,
integer or boolean categories, text), so that a value of the wrong type is refused by its
column and row instead of being coerced along with the other rows (polars reads a column
holding ``0`` and ``"0"`` as text, which would change the answer for every row of it).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..io.columns import column_kinds, training_columns
from .refusal import RequestError

__all__ = ["column_series", "value_kinds"]

#: What each kind accepts, as the error says it.
_ACCEPTED = {
    "number": "finite numbers (or null)",
    "integer": "whole numbers, the model's categories (or null)",
    "boolean": "true or false (or null)",
    "binary": "true, false or numbers (or null)",
    "text": "strings or numbers (or null)",
    "scalar": "numbers, strings, booleans or null",
}


def _categories(model: Any, names: list[str]) -> dict[str, Any]:
    """The categories the model knows, by column (its categorical columns only)."""
    categories = getattr(model, "categories_", None)
    if isinstance(categories, dict):  # MixedNB: its categorical columns only
        return {str(c): v for c, v in categories.items()}
    if categories is not None:  # CategoricalNB: one array per column, in order
        return dict(zip(names, categories, strict=True))
    return {}


def values_of_columns(
    model: Any, names: list[str], fields: list[str], markers: Sequence[str]
) -> list[bool | None]:
    """Whether each CSV field (``fields[j]`` under ``names[j]``) is a value its column
    holds: a number in a column of numbers, a category the model knows, a missing-value
    marker (True), or not (False); None where the column cannot tell (text of any kind)."""
    kinds = value_kinds(model, names)
    known = _categories(model, names)
    missing = set(markers)
    out: list[bool | None] = []
    for name, field in zip(names, fields, strict=True):
        kind = kinds[name]
        if field in missing:
            out.append(True)
        elif name in known and kind in ("text", "integer"):
            shown = {str(v) for v in np.asarray(known[name]).tolist()}
            out.append(field in shown)
        elif kind in ("number", "integer"):
            out.append(_number(field) is not _REFUSED)
        elif kind in ("binary", "boolean"):
            truth = field.lower() in ("true", "false")
            out.append(truth or (kind == "binary" and _number(field) is not _REFUSED))
        else:
            out.append(None)
    return out


def value_kinds(model: Any, names: list[str]) -> dict[str, str]:
    """What each of the model's columns (``names``, in order) accepts: a key of
    :data:`_ACCEPTED`."""
    kinds = {c: k or "scalar" for c, k in _named_kinds(model, names).items()}
    families = getattr(model, "feature_families_", None)
    by_name = _categories(model, names)
    for column, values in by_name.items():
        dtype = np.asarray(values).dtype
        if dtype.kind in "iu":
            kinds[column] = "integer"
        elif dtype.kind == "b":
            kinds[column] = "boolean"
        elif dtype.kind == "f":
            kinds[column] = "number"
        elif dtype.kind == "U" or (
            dtype.kind == "O" and all(isinstance(v, str) for v in np.asarray(values).tolist())
        ):
            kinds[column] = "text"  # a number sent for a text category is its text: 1 → "1"
    if families is not None:
        for column, family in families.items():
            if family == "bernoulli":
                kinds[str(column)] = "binary"
    return kinds


def _named_kinds(model: Any, names: list[str]) -> dict[str, str]:
    if training_columns(model) is None:  # fitted on a bare matrix: x0, x1, …
        categorical = getattr(model, "categories_", None) is not None
        return dict.fromkeys(names, "" if categorical else "number")
    kinds = column_kinds(model)
    return {c: kinds.get(c, "") for c in names}


def column_series(name: str, values: Any, kind: str) -> Any:
    """The column ``name`` as a polars Series of the type its ``kind`` reads; ``values`` is a
    list of JSON values or a polars Series (a CSV body's column). A value it does not accept
    is refused naming the column, the row (from 1) and the value."""
    import polars as pl

    if isinstance(values, pl.Series):
        if kind == "number" and (values.dtype.is_numeric() or values.dtype == pl.Null):
            return values.cast(pl.Float64).alias(name)
        if kind == "integer" and (values.dtype.is_integer() or values.dtype == pl.Null):
            with contextlib.suppress(pl.exceptions.InvalidOperationError):
                return values.cast(pl.Int64).alias(name)
            # a code beyond int64 (polars read the column as Int128): refused by its row below
        text = values.dtype == pl.String
        values = values.to_list()
        if text and kind == "integer":  # a CSV column of codes beside a value that is not one
            values = [_parsed_integer(v) for v in values]
        elif text and kind in ("boolean", "binary"):  # true/false beside one that is not
            values = [_parsed_truth(v, kind) for v in values]
    convert = _CONVERT[kind]
    out: list[Any] = []
    for row, value in enumerate(values, start=1):
        if value is None:
            out.append(None)
            continue
        converted = convert(value) if not isinstance(value, (list, dict)) else _REFUSED
        if converted is _REFUSED:
            shown = _shown(value)
            raise RequestError(
                f"column {name!r} holds {shown} in row {row}; the model reads "
                f"{_ACCEPTED[kind]} there"
            )
        out.append(converted)
    dtype = {
        "number": pl.Float64,
        "integer": pl.Int64,
        "boolean": pl.Boolean,
        "binary": pl.Float64,
        "text": pl.String,
    }.get(kind)
    try:
        return pl.Series(name, out, dtype=dtype, strict=True)
    except TypeError:  # strings, numbers and booleans mixed in a column of any values
        raise RequestError(
            f"column {name!r} mixes values of different types; give it one type: {_ACCEPTED[kind]}"
        ) from None


_REFUSED = object()


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return _REFUSED
    if isinstance(value, (int, float)):
        try:
            return _finite(float(value))
        except OverflowError:  # a whole number of hundreds of digits
            return _REFUSED
    if isinstance(value, str):  # as a CSV's field: a number written as text
        # in ASCII digits, as bayeskit predict reads a field: Python's float() also reads
        # "1_000" (1000.0) and other scripts' digits ("١٢", "３０"), which the CLI refuses
        if not value.isascii() or "_" in value:
            return _REFUSED
        try:
            # and finite: "NaN" would be read as a missing value where "NA" is refused; in
            # JSON a missing value is null (a CSV's markers are read as missing before this)
            return _finite(float(value))
        except ValueError:
            return _REFUSED
    return _REFUSED


def _finite(number: float) -> Any:
    return number if math.isfinite(number) else _REFUSED


#: the integer categories a model holds (numpy's int64)
_INT64 = (-(2**63), 2**63 - 1)


def _integer(value: Any) -> Any:
    if isinstance(value, bool):
        return _REFUSED
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else _REFUSED
    if isinstance(value, float) and value.is_integer():
        return _integer(int(value))  # 1e200 is a whole number, beyond int64 as 10**200 is
    return _REFUSED


def _parsed_integer(field: str | None) -> Any:
    try:
        return int(field) if field is not None else None
    except ValueError:
        return field


def _parsed_truth(field: str | None, kind: str) -> Any:
    """A CSV field of a column of truth values as polars reads a column of them (true and
    false in any case; a binary column's numbers too), else the field itself (refused by
    its row)."""
    if field is None:
        return None
    if field.strip().lower() in ("true", "false"):
        return field.strip().lower() == "true"
    if kind == "binary":
        number = _number(field.strip())
        if number is not _REFUSED:
            return number
    return field


def _boolean(value: Any) -> Any:
    return value if isinstance(value, bool) else _REFUSED


def _binary(value: Any) -> Any:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return _REFUSED


def _text(value: Any) -> Any:
    if isinstance(value, bool):
        return _REFUSED
    if isinstance(value, (str, int, float)):
        return str(value)
    return _REFUSED


def _scalar(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)  # 1 and 1.5 alike: one column of numbers
    return value if isinstance(value, (str, bool)) else _REFUSED


_CONVERT = {
    "number": _number,
    "integer": _integer,
    "boolean": _boolean,
    "binary": _binary,
    "text": _text,
    "scalar": _scalar,
}


def _shown(value: Any) -> str:
    import json

    # a string as Python writes it ('lots', as the command line names a value); the rest as
    # the JSON that was sent (true, [1, 2])
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"
