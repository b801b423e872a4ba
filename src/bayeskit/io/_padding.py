"""Columns of numbers padded with spaces (``a, b`` files) read as numbers, as R's
``read.csv`` reads them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["padding_removed"]

_WHOLE = r"[+-]?\d+"
# (and the spellings of infinity and NaN polars reads among numbers, unpadded)
_DECIMAL_POINT = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?inf|NaN"


def padding_removed(
    frame: Any,
    missing: Sequence[str],
    *,
    decimal_comma: bool = False,
    text_columns: Sequence[str] = (),
    types: dict[str, Any] | None = None,
) -> Any:
    """``frame`` with its columns of numbers padded with spaces (``a, b`` files) read as
    numbers, as R's ``read.csv`` reads `` 2`` as the number 2: a column whose fields, their
    spaces removed, are all numbers or ``missing`` markers is numeric (whole numbers as
    integers), as it would have been read unpadded. Text keeps its spaces, as R keeps them;
    so do ``text_columns``. ``types`` (a later block of a file read in blocks) gives each
    column's type instead of inferring it.
    """
    import polars as pl

    number = _DECIMAL_POINT.replace("\\.", ",") if decimal_comma else _DECIMAL_POINT
    changed = []
    for name, dtype in frame.schema.items():
        if dtype != pl.String or name in text_columns:
            continue
        values = frame.get_column(name)
        typed = types is not None and types.get(name, pl.String) != pl.String
        if not typed and (
            types is not None
            or not any(
                (values.str.starts_with(pad) | values.str.ends_with(pad)).any() for pad in " \t"
            )
        ):
            continue
        stripped = values.str.strip_chars(" \t")
        cleaned = (
            pl.select(pl.when(stripped.is_in(list(missing))).then(None).otherwise(stripped))
            .to_series()
            .alias(name)
        )
        if typed:
            changed.append(_as_numbers(cleaned, decimal_comma).cast(types[name]))  # type: ignore[index]
            continue
        present = cleaned.drop_nulls()
        if present.is_empty():
            changed.append(cleaned)  # nothing but missing markers: missing, as unpadded
        elif present.str.contains(f"^(?:{number})$").all():
            changed.append(_numbers_of(cleaned, present, decimal_comma))
    return frame.with_columns(changed) if changed else frame


def _numbers_of(values: Any, present: Any, decimal_comma: bool) -> Any:
    import polars as pl

    if present.str.contains(f"^(?:{_WHOLE})$").all():
        whole = values.cast(pl.Int64, strict=False)
        # beyond 64 bits: codes kept as the digits they were written with
        return whole if whole.null_count() == values.null_count() else values
    return _as_numbers(values, decimal_comma)


def _as_numbers(values: Any, decimal_comma: bool) -> Any:
    import polars as pl

    if decimal_comma:
        values = values.str.replace(",", ".", literal=True)
    return values.cast(pl.Float64)
