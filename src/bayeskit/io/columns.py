"""How a table model reads the columns of a table: its training columns in order, the kind of
each (text, number or anything) and a table conformed to them, every difference named. Shared
by the command line (``bayeskit predict``, ``evaluate``, …) and the model service, below both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .readers import ReadError, list_names


def training_columns(model: Any) -> list[str] | None:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(n) for n in names]


def align_columns(
    frame: Any,
    expected: list[str] | None,
    source: str,
    ignore: list[str] | None = None,
    *,
    ignore_option: str | None = None,
) -> Any:
    """``frame``'s columns in the training order ``expected``; a missing or unexpected
    column is an error naming it (``ignore`` lists columns to drop first, such as labels).

    The message suits every door (the command line, the service, Python); a command with an
    option that leaves columns out names it as ``ignore_option`` (``--ignore``) and the
    message suggests it."""
    if ignore:
        frame = frame.drop([c for c in ignore if c in frame.columns])
    if expected is None:
        return frame
    check_column_names(frame.columns, expected, source, ignore_option=ignore_option)
    return frame.select(expected)


def check_column_names(
    names: Sequence[str], expected: list[str], source: str, *, ignore_option: str | None = None
) -> None:
    """Refuses ``names`` (a table's columns) unless they are the columns ``expected``, in any
    order, naming each one missing or unexpected (see :func:`align_columns`). Reads names
    alone: a request of 200,000 columns is refused without a frame of them."""
    present, wanted = set(names), set(expected)
    missing = [c for c in expected if c not in present]
    extra = [c for c in names if c not in wanted]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {list_names([repr(c) for c in missing], 10)}")
        if extra:
            parts.append(f"not in training {list_names([repr(c) for c in extra], 10)}")
        fix = "give the columns the model was trained on"
        if extra and not missing:
            fix = "leave them out"
            if ignore_option is not None:
                fix += f" (pass {ignore_option} {','.join(extra)})"
        fix += _unicode_forms(missing, extra)
        raise ReadError(
            f"{source}: the columns differ from the model's: {'; '.join(parts)}; {fix}",
            path=source,
            column=(missing or extra)[0],
        )


def _unicode_forms(missing: list[str], extra: list[str]) -> str:
    """A hint for names that look alike and differ in their code points: the same text in
    another Unicode normalization form (UAX #15: "ü" as one code point, NFC, or as "u" and a
    combining diaeresis, NFD), or with invisible format characters (a right-to-left mark)."""
    if not missing or not extra:
        return ""
    import unicodedata

    def key(name: str) -> str:
        visible = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
        return unicodedata.normalize("NFC", visible)

    wanted = {key(c): c for c in missing[:1000]}
    for name in extra[:1000]:
        if key(name) in wanted:
            return (
                f" ({name!r}, code points {_code_points(name)}, is written otherwise than the "
                f"model's {wanted[key(name)]!r}, {_code_points(wanted[key(name)])}: another "
                "Unicode normalization form (NFC/NFD, UAX #15) or an invisible format "
                "character; send the model's spelling)"
            )
    return ""


def _code_points(name: str) -> str:
    shown = " ".join(f"U+{ord(ch):04X}" for ch in name[:40])
    return shown + (" …" if len(name) > 40 else "")


def missing_drops_out(model: Any) -> bool:
    """Whether a missing value simply drops out of ``model``'s likelihood (what it declares:
    scikit-learn's ``allow_nan`` input tag — the naive models and the diagonal mixtures, whose
    features are independent given the class or component), so a column absent from the data
    is as good as a column of missing values."""
    try:
        return bool(model.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


def column_kinds(model: Any) -> dict[str, str]:
    """How a table model reads each training column: ``"text"`` (categories that are
    strings), ``"number"`` or ``""`` (anything: booleans, integer categories)."""
    columns = training_columns(model) or []
    families = getattr(model, "feature_families_", None)
    if families is not None:  # MixedNB
        kinds = {str(c): "number" if f in _REAL_FAMILIES else "" for c, f in families.items()}
        for column, values in model.categories_.items():
            kinds[column] = "text" if values.dtype.kind in "OUS" else ""
        return kinds
    categories = getattr(model, "categories_", None)
    if categories is not None and columns:  # CategoricalNB: one array of values per column
        # (a model fitted on an unnamed array reads its columns by position: no kinds by name)
        return {
            c: "text" if np.asarray(v).dtype.kind in "OUS" else ""
            for c, v in zip(columns, categories, strict=True)
        }
    return dict.fromkeys(columns, "number")  # a numeric model


_REAL_FAMILIES = {"gaussian", "kernel", "poisson", "binomial", "discretized"}


def schema_kinds(frame: Any) -> dict[str, str]:
    """:func:`column_kinds` of the data a model was trained on."""
    import polars as pl

    return {
        c: "text" if t == pl.String else "number" if t.is_numeric() else ""
        for c, t in frame.schema.items()
    }


def conform(frame: Any, model: Any, source: str, kinds: dict[str, str] | None = None) -> Any:
    """``frame`` with each column read as the model reads it (``kinds``, default
    :func:`column_kinds`): numbers as floats, string categories as strings (a column of codes
    such as ``1``, ``2`` is parsed as numbers when the file holds no other value). A value
    that is not a number where one is needed is an error naming the column."""
    import polars as pl

    kinds = column_kinds(model) if kinds is None else kinds
    casts = []
    for column, dtype in frame.schema.items():
        kind = kinds.get(column, "")
        if kind == "text" and dtype != pl.String:
            casts.append(pl.col(column).cast(pl.String))
        elif kind == "number" and dtype in (pl.Null, pl.Boolean):  # (true/false: 1 and 0)
            casts.append(pl.col(column).cast(pl.Float64))
        elif kind == "number" and not dtype.is_numeric():
            values = frame.get_column(column).cast(pl.String)
            numbers = values.cast(pl.Float64, strict=False)
            bad = numbers.is_null() & values.is_not_null()
            if bad.any():
                row = int(bad.arg_max() or 0)
                raise ReadError(
                    f"{source}: column {column!r} holds {values[row]!r} in row {row + 1}; the "
                    "model reads numbers there",
                    path=source,
                    column=column,
                )
            casts.append(numbers.alias(column))
    return frame.with_columns(casts) if casts else frame
