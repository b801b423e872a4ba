"""A stray double quote that swallows rows.

A CSV field that starts with a double quote runs to the next quote that ends a field, across
line ends (RFC 4180: a quoted field may hold line breaks). When the quote was meant as text
(``"Hi there`` in a message) and another stray quote closes it lines further down, polars and
Python's ``csv`` module alike read the lines between as part of one field: the file reads
without an error, with those rows gone. Legitimate multi-line fields (e-mail bodies in a text
column) read the same way, so what tells the two apart is what the lines inside the field look
like: rows of this table (the right number of fields, each a value its column holds) or text.

The check costs nothing on a file whose records are one line each (its line count is its row
count), and otherwise one vectorised pass over the quotes and line ends, then a look at the
first lines of each field that spans lines.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ReadError

__all__ = ["check_swallowed_rows"]

#: Lines looked at in each field that spans lines: a stray quote's field holds rows from its
#: first line on, so a few tell, whatever its length.
_LOOKED_AT = 3
#: A text column is taken for a column of categories (whose values a row must hold) when it
#: has at most this many distinct values, each seen twice on average.
_CATEGORIES = 1000
_SHOWN = 60


def check_swallowed_rows(
    data: bytes,
    frame: Any,
    label: str,
    separator: str,
    *,
    header: bool,
    missing: Sequence[str] = (),
    first_line: int = 1,
) -> None:
    """Raise when a quoted field of CSV ``data`` (read as ``frame``) runs over lines that look
    like rows of ``frame``, naming the line and column of its opening quote and the fix.

    ``first_line``: the file's line number of ``data``'s first line (a block of a file read in
    blocks); ``header``: whether that first line is the header."""
    records = frame.height + (1 if header else 0)
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if n_lines <= records or not data.count(b'"'):
        return  # every record is one line (or fewer: blank lines), or nothing is quoted
    raw = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(raw == ord('"'))
    newlines = np.flatnonzero(raw == ord("\n"))
    # a line end with an odd number of quotes before it is inside a quoted field
    inside = np.flatnonzero(np.searchsorted(quotes, newlines) % 2 == 1)
    if not len(inside):
        return
    # runs of consecutive line ends inside quotes: one field each, opened on the line the
    # run's first line end ends and closed on the line after its last (lines from 0)
    cut = np.flatnonzero(np.diff(inside) != 1) + 1
    opening = inside[np.concatenate(([0], cut))]
    closing = inside[np.concatenate((cut - 1, [len(inside) - 1]))] + 1
    starts = np.concatenate(([0], newlines + 1))
    ends = np.concatenate((newlines, [len(data)]))
    # A line read alone is a row only with one field per column: as many separators as
    # columns less one, unless quotes hide some; a field whose first lines mostly cannot be
    # rows is passed over here, without reading its lines one by one.
    width = frame.width
    separators = np.flatnonzero(raw == ord(separator)) if len(separator) == 1 else quotes[:0]

    def count(positions: np.ndarray, lines: np.ndarray) -> np.ndarray:
        return np.searchsorted(positions, ends[lines]) - np.searchsorted(positions, starts[lines])

    possible = np.zeros(len(opening), dtype=np.intp)
    looked = np.minimum(closing - opening, _LOOKED_AT)
    for step in range(1, _LOOKED_AT + 1):
        lines = np.minimum(opening + step, closing)
        fits = (count(separators, lines) == width - 1) | (count(quotes, lines) > 0)
        possible += fits & (step <= looked)
    rows: _RowShape | None = None
    for run in np.flatnonzero(2 * possible > looked):
        rows = _RowShape(frame, separator, missing) if rows is None else rows
        first, last = int(opening[run]), int(closing[run])
        quote = _opening_quote(data, quotes, int(starts[first]), int(ends[first]), separator)
        # A field that holds line breaks splits its row between the line it opens on and the
        # line it closes on, so at most one of the two is a whole row read alone; a stray
        # quote leaves both whole (its own row and the last row taken, each read with the
        # quote left out). The lines between then tell, if any: a value of a column of
        # categories that the table lacks does not count against them (the rows taken may
        # hold every row of a category).
        opened = data[int(starts[first]) : quote] + data[quote + 1 : int(ends[first])]
        if not rows.fits(opened.decode("utf-8", errors="replace").rstrip("\r"), whole=True):
            continue
        close = _closing_quote(quotes, int(starts[last]), int(ends[last]))
        closed = data[int(starts[last]) : close] + data[close + 1 : int(ends[last])]
        if not rows.fits(closed.decode("utf-8", errors="replace").rstrip("\r"), whole=True):
            continue
        checked = range(first + 1, min(first + int(looked[run]) + 1, last))
        shaped = [k for k in checked if rows.fits(_line(data, starts, ends, k), loose=True)]
        if not checked or 2 * len(shaped) > len(checked):
            before = data[int(starts[first]) : quote].decode("utf-8", errors="replace")
            column = len(before) + 1  # in characters, as an editor counts them
            text = data[quote + 1 : int(ends[first])].decode("utf-8", errors="replace")
            shown = shaped[0] if shaped else last
            row = (first_line + shown, _line(data, starts, ends, shown))
            line = first_line + first
            raise _swallowed(label, line, first_line + last, column, text.rstrip("\r"), row)


def _closing_quote(quotes: np.ndarray, start: int, end: int) -> int:
    """The position of the quote that closes the field a line starts inside: its first quote
    that is not one of a doubled pair ("")."""
    on_line = quotes[np.searchsorted(quotes, start) : np.searchsorted(quotes, end)]
    k = 0
    while k + 1 < len(on_line) and on_line[k + 1] == on_line[k] + 1:
        k += 2
    return int(on_line[min(k, len(on_line) - 1)])


def _opening_quote(data: bytes, quotes: np.ndarray, start: int, end: int, separator: str) -> int:
    """The position of the quote that opens the field a line leaves open: the last of the
    line's quotes that opens a field (odd in the count from the line's start, which is outside
    quotes, and at a field's start), so that a doubled quote ("") inside the field is not
    taken for it."""
    on_line = quotes[np.searchsorted(quotes, start) : np.searchsorted(quotes, end)]
    sep = separator.encode("utf-8")
    for position in (int(q) for q in on_line[::2][::-1]):
        if position == start or data[position - len(sep) : position] == sep:
            return position
    return int(on_line[-1])


def _line(data: bytes, starts: np.ndarray, ends: np.ndarray, k: int) -> str:
    return data[int(starts[k]) : int(ends[k])].decode("utf-8", errors="replace").rstrip("\r")


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _swallowed(
    label: str, line: int, last: int, column: int, text: str, row: tuple[int, str]
) -> ReadError:
    if last == line + 1:
        taken = f"line {last} would be read into that one field, yet it looks like a row"
    else:
        taken = (
            f"lines {line + 1}-{last} would be read into that one field, yet they look like rows"
        )
    return ReadError(
        f"{label}, line {line}: the double quote at column {column} opens a field that ends "
        f"only on line {last}, so {taken} of the table (line {row[0]}: {_shown(row[1])}); "
        f"close the quote on line {line}, or, if it is part of the text, quote the whole "
        f'field with that quote doubled ("""{_shown(text)}")',
        path=label,
        line=line,
    )


class _RowShape:
    """Whether a line, read on its own, is a row of a table: one field per column, and each
    field a value its column could hold (a number in a column of numbers, one of the values
    of a column of categories), at least one of them telling (not free text, not missing)."""

    def __init__(self, frame: Any, separator: str, missing: Sequence[str]):
        import polars as pl

        self.separator = separator
        self.missing = {m.strip() for m in missing} | {""}
        self.kinds: list[tuple[str, frozenset[str]]] = []
        for name, dtype in frame.schema.items():
            values = frame.get_column(name)
            if dtype.is_numeric():
                self.kinds.append(("number", frozenset()))
            elif dtype == pl.Boolean:
                self.kinds.append(("bool", frozenset()))
            elif (
                dtype == pl.String
                and 0 < (n := values.n_unique()) <= _CATEGORIES
                and (2 * n <= values.len())
            ):
                found = values.drop_nulls().str.strip_chars().unique().to_list()
                self.kinds.append(("category", frozenset(found)))
            else:
                self.kinds.append(("any", frozenset()))

    def fits(self, line: str, *, loose: bool = False, whole: bool = False) -> bool:
        """Whether ``line`` is a row; ``loose``: a category the table lacks tells nothing,
        rather than that the line is no row; ``whole``: with a value in every column of
        numbers, booleans or categories (a line that ends or starts a text with a separator
        reads as a row with a value missing)."""
        if '"' not in line:
            fields = line.split(self.separator)
        else:
            try:
                fields = next(csv.reader([line], delimiter=self.separator), [])
            except csv.Error:
                return False
        if len(fields) != len(self.kinds):
            return False
        telling = 0
        for value, (kind, known) in zip(fields, self.kinds, strict=True):
            value = value.strip()
            if kind == "any":
                continue
            if value in self.missing:
                if whole:
                    return False
                continue
            if loose and kind == "category" and value not in known:
                continue
            if not _holds(kind, known, value):
                return False
            telling += 1
        return telling > 0


def _holds(kind: str, known: frozenset[str], value: str) -> bool:
    if kind == "category":
        return value in known
    if kind == "bool":
        return value.lower() in ("true", "false")
    for written in (value, value.replace(",", ".")):  # a decimal comma (a ";" file)
        try:
            float(written)
        except ValueError:
            continue
        return True
    return False
