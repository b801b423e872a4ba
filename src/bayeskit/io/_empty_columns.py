"""A CSV/TSV column (a JSON lines key) with no value in any row: every field empty or a
missing marker (every value ``null``).

polars types such a column as text (or as its Null type); pandas' ``read_csv`` and
``read_json`` and R's ``read.csv`` as numbers (float64 NaN, logical NA). Typed as text,
``MixedNB(families="auto")`` gave it the categorical family where the same file read by
pandas gave it a numeric one: the command line and Python built different models from one
file. Read as numbers (Float64 nulls), the command line's model is the one
``MixedNB().fit(pandas.read_csv(path))`` builds. The column carries no evidence either way:
every value drops out of the likelihood.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def empty_as_numbers(frame: Any, text_columns: Collection[str] = ()) -> Any:
    """``frame`` with its text columns of nothing but nulls as Float64, as pandas reads them
    (``text_columns``, a model's string categories, stay text)."""
    import polars as pl

    empty = [
        c
        for c, t in frame.schema.items()
        if t in (pl.String, pl.Null)
        and c not in text_columns
        and frame.height
        and frame.get_column(c).null_count() == frame.height
    ]
    return frame.with_columns(pl.col(empty).cast(pl.Float64)) if empty else frame
