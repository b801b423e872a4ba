"""The values of a JSON-lines table, typed as the file wrote them.

JSON says whether a value is a number (``1``) or text (``"1"``); polars, given both under
one key, reads the whole column as text, so ``1`` and ``"1"`` became one class and a column
of numbers with one ``"NA"`` became categories. Here the usual missing markers written as
text are missing (as in a CSV: ``missing_markers``), a key of numbers and markers is
numeric, and a key of numbers and other text is refused, naming a line of each.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ReadError

__all__ = ["check_json_lines", "typed_as_written"]


def check_json_lines(lines: Iterable[str], label: str, first_line: int = 1) -> None:
    """Raise :class:`ReadError` at the first line that is not one JSON object."""
    for number, line in enumerate(lines, start=first_line):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ReadError(
                f"{label}, line {number}: not JSON ({err.msg} at column {err.colno}); each "
                "line must be one JSON object",
                path=label,
                line=number,
            ) from None
        if not isinstance(record, dict):
            raise ReadError(
                f"{label}, line {number}: a JSON {type(record).__name__}, not an object; each "
                'line must be one JSON object such as {"column": value, ...}',
                path=label,
                line=number,
            )


#: For each column, the first line holding a JSON number (True) and text (False), and the value.
Kinds = dict[str, dict[bool, tuple[int, str]]]


def typed_as_written(
    frame: Any,
    text: str,
    label: str,
    missing: Sequence[str],
    first_line: int = 1,
    seen: Kinds | None = None,
) -> Any:
    """``frame`` (``text`` read by ``polars.read_ndjson``) with the text ``missing`` markers
    as missing and each column of JSON numbers and markers as numbers; raises naming the
    key and a line of each when a key holds numbers and other text. ``first_line``: the
    file line ``text`` starts on; ``seen``: what earlier blocks of the file held (updated),
    for a file read in blocks."""
    import polars as pl

    markers = list(missing)
    # a key that is null on every line: text, as a CSV's empty column is
    frame = frame.with_columns(
        pl.col(c).cast(pl.String) for c, dtype in frame.schema.items() if dtype == pl.Null
    )
    texts = [c for c, dtype in frame.schema.items() if dtype == pl.String]
    raw = frame
    frame = frame.with_columns(
        pl.when(pl.col(c).is_in(markers)).then(None).otherwise(pl.col(c)).alias(c) for c in texts
    )
    # only a column with a value that reads as a number can have held JSON numbers
    suspects = [c for c in texts if frame.get_column(c).cast(pl.Float64, strict=False).count()]
    found = _kinds(text, frame, raw, suspects, first_line)
    kinds: Kinds = {} if seen is None else seen
    if seen is not None:
        _note_first_values(frame, text, first_line, suspects, seen)
    numeric = []
    for column in frame.columns:
        numbers, words, whole_numbers = found.get(column, (None, None, True))
        held = kinds.setdefault(column, {})
        for kind, first in ((True, numbers), (False, words)):
            if first is not None:
                held.setdefault(kind, first)
        if len(held) == 2:
            raise _mixed(label, column, held)
        if numbers is None:
            continue
        values = frame.get_column(column)
        whole = values.cast(pl.Int64, strict=False) if whole_numbers else None
        # past 64 bits: kept as the digits they were written with, as a CSV's are
        if whole is not None and whole.null_count() == values.null_count():
            numeric.append(whole)
        elif whole is None:
            numeric.append(values.cast(pl.Float64))
    return frame.with_columns(numeric) if numeric else frame


def _mixed(label: str, column: str, held: dict[bool, tuple[int, str]]) -> ReadError:
    (number, value), (line, word) = held[True], held[False]
    return ReadError(
        f"{label}: key {column!r} holds numbers and text (line {number}: {value}; line "
        f"{line}: {json.dumps(word)}); write its values all as numbers or all as text (null "
        "or a missing marker for a missing value)",
        path=label,
        line=max(number, line),
        column=column,
    )


def _note_first_values(
    frame: Any, text: str, first_line: int, skip: Sequence[str], seen: Kinds
) -> None:
    """Record in ``seen`` the first value of each column not in ``skip`` (numbers or text
    whatever the values look like: polars typed the column from the JSON; nested values are
    refused by name further on)."""
    import polars as pl

    for column, dtype in frame.schema.items():
        if column in skip or dtype == pl.Boolean or dtype.is_nested():
            continue
        values = frame.get_column(column)
        if values.null_count() == len(values):
            continue
        index = int(values.is_not_null().arg_max() or 0)
        kind = dtype != pl.String
        value = values[index]
        seen.setdefault(column, {}).setdefault(
            kind, (_line_of(text, index, first_line), json.dumps(value) if kind else value)
        )


def _kinds(
    text: str, frame: Any, raw: Any, columns: Sequence[str], first_line: int
) -> dict[str, tuple[tuple[int, str] | None, tuple[int, str] | None, bool]]:
    """For each column: the first line holding a JSON number (and its text), the first
    holding text that is not a missing marker (and the text), and whether every number is
    a JSON integer (else the column is read as floats). ``frame``: the values
    with the markers missing; ``raw``: as read (JSON numbers and text both as text). The
    JSON read again with the columns as numbers tells which values were numbers: polars
    reads a number there and leaves text missing."""
    import polars as pl

    if not columns:
        return {}
    data = text.encode("utf-8")
    as_numbers, as_whole = (
        pl.read_ndjson(io.BytesIO(data), schema=dict.fromkeys(columns, kind), ignore_errors=True)
        for kind in (pl.Float64, pl.Int64)  # (an Int64 read leaves 2.5 and 0.0 missing)
    )
    out = {}
    for column in columns:
        number = as_numbers.get_column(column).is_not_null()
        word = frame.get_column(column).is_not_null() & ~number
        written = raw.get_column(column)
        numbers = words = None
        if number.any():
            row = int(number.arg_max() or 0)
            numbers = (_line_of(text, row, first_line), str(written[row]))
        if word.any():
            row = int(word.arg_max() or 0)
            words = (_line_of(text, row, first_line), str(written[row]))
        fits = as_whole.get_column(column).is_not_null()
        # an integer past 64 bits (polars writes it out in digits): kept as its digits below
        wide = number & ~fits & written.str.contains(r"^-?\d{19,}$")
        whole = bool((fits | wide).sum() == number.sum())
        out[column] = (numbers, words, whole)
    return out


def _line_of(text: str, row: int, first_line: int) -> int:
    """The file line of the ``row``-th record of ``text`` (blank lines hold none)."""
    if not re.search(r"^[ \t\r]*$\n", text, re.MULTILINE):  # no blank line: one record a line
        return first_line + row
    records = (n for n, line in enumerate(text.splitlines()) if line.strip())
    return first_line + next(itertools.islice(records, row, None))
