"""Columns a CSV/TSV header leaves without a name, as common writers leave them.

* The first one: the row names R's ``write.csv`` writes by default (``row.names = TRUE``:
  ``"","mpg",…`` over ``"Mazda RX4",21,…``) and the index pandas' ``to_csv`` writes
  (``,a,b`` over ``0,…``). R's ``read.csv`` names it ``X``, pandas ``Unnamed: 0``; the
  readers name it :data:`ROW_NAMES`, and the command line leaves it out of a model as a row
  ID (predict copies it into its output).
* The last one, when no row holds a value there: the empty column a separator at the end
  of every line makes (spreadsheet exports, ``paste -d,``). It is dropped; pandas would read
  an all-missing ``Unnamed: N`` column, R an all-``NA`` ``X.N``. If some row holds a value,
  the column is refused, naming it.

Any other column without a name is refused by :func:`check_header`.

A TSV has no quoting (IANA's definition), but R's ``write.table(x, sep = "\t")`` quotes
every name and every text value (``"Species"``, ``"setosa"``): a TSV whose header names are
all quoted so is read with CSV's quoting (:func:`quoted_tsv`), as R's ``read.delim`` and
pandas read it, rather than with the quotes in the names and the classes.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any

from ..errors import ReadError
from ._lines import blank_lines_end, csv_reader

#: the name the readers give the unnamed first column of a header (R's and pandas' row names)
ROW_NAMES = "row_names"
#: the name a nameless last column is read under until it is found empty and dropped
_TRAILING = "(the unnamed last column)"


def named_header(first: Sequence[str]) -> list[str]:
    """``first`` (a header's fields) with a nameless first column named :data:`ROW_NAMES`
    (unless a column has that name) and a nameless last one named for the reading."""
    names = list(first)
    if len(names) < 2:
        return names
    if not names[0].strip() and ROW_NAMES not in (n.strip() for n in names):
        names[0] = ROW_NAMES
    if not names[-1].strip():
        names[-1] = _TRAILING
    return names


def has_trailing(names: Sequence[str]) -> bool:
    """Whether ``names`` (from :func:`named_header`) end with a nameless column."""
    return bool(names) and names[-1] == _TRAILING


def trailing_dropped(frame: Any, label: str) -> Any:
    """``frame`` without its nameless last column, which must hold no value; refused naming
    a row that holds one otherwise."""
    if _TRAILING not in frame.columns:
        return frame
    if (column := frame.get_column(_TRAILING)).null_count() < len(column):
        row = int(column.is_not_null().arg_max() or 0)
        refuse_trailing(label, len(frame.columns), f" (data row {row + 1} holds {column[row]!r})")
    return frame.drop(_TRAILING)


def refuse_trailing(label: str, n_columns: int, where: str = "") -> None:
    """Refuses a nameless last column (of ``n_columns``) that holds values (``where``: a row
    that does, when known)."""
    raise ReadError(
        f"{label}, line 1: the last column ({n_columns}) has no name in the header but holds "
        f"values{where}; name every column (a column without a name is taken only when it is "
        "empty in every row, as a separator at the end of each line leaves it)",
        path=label,
        line=1,
    )


def check_header(names: Sequence[str], label: str) -> None:
    """Refuses a header line naming a column twice, or leaving one without a name."""
    seen: set[str] = set()
    for j, column in enumerate(names):
        if not column.strip():
            raise ReadError(
                f"{label}, line 1: column {j + 1} has no name in the header; name every column",
                path=label,
                line=1,
            )
        column = column.strip()  # the spaces around a name are not part of it ("a, b")
        if column in seen:
            raise ReadError(
                f"{label}, line 1: the header names column {column!r} twice; give each column "
                "its own name",
                path=label,
                line=1,
                column=column,
            )
        seen.add(column)


def quoted_tsv(data: bytes) -> bool:
    """Whether the first line of the TSV ``data`` names every column in double quotes."""
    from ._repeated_header import header_record

    names = header_record(data[: 1 << 16]).split(b"\t")
    return all(len(n) >= 2 and n.startswith(b'"') and n.endswith(b'"') for n in names)


#: The records R's read.table looks at to tell a header of row names (its first five lines).
_R_LAYOUT_RECORDS = 5
#: How much of a file is parsed for them (long quoted fields, e-mails, fit in it).
_R_LAYOUT_BYTES = 1 << 20


def r_row_names_layout(data: bytes | str, fmt: str, separator: str = ",") -> bool:
    """Whether CSV/TSV ``data`` is laid out as R's ``write.table`` writes row names: a header
    of one field fewer than each of the records after it (among the first five, at least
    two), its first name not empty, and in those records a first field (the row names: not
    empty, no two alike, as R's are) and a last field that is not empty in all of them (a
    separator ending every row is a trailing column, not row names). R's
    ``read.table(header = TRUE)`` takes the first column for row names then (R Core Team,
    ``?read.table``, argument ``header``); the readers do the same, by giving the header the
    unnamed first column R's ``write.csv`` and pandas' ``to_csv`` write
    (:func:`named_header`). ``data``: the file's bytes, or a request body's text (its head
    read as it is, not the whole body encoded to look at its first rows)."""
    # (a head of exactly that size may end inside a record: a reader's head, a file's start)
    cut = len(data) >= _R_LAYOUT_BYTES
    head = data[:_R_LAYOUT_BYTES]
    if isinstance(head, bytes):
        head = head.decode("utf-8", errors="replace")
    rows: list[list[str]] = []
    whole = True  # every record read ends before the head does
    try:
        for row in csv_reader(head, fmt, separator):
            if row:
                rows.append(row)
            if len(rows) > _R_LAYOUT_RECORDS + 1:
                break
        else:
            whole = not cut
    except csv.Error:  # a record that does not parse (a quote cut at the head's end): left out
        pass
    if not whole:
        rows = rows[:-1]  # the last record read may be cut where the head was
    header, records = (rows[0], rows[1 : _R_LAYOUT_RECORDS + 1]) if rows else ([], [])
    if len(records) < 2 or not header[0].strip():
        return False  # (one row with a field too many is more likely a mistake than R's)
    if any(len(record) != len(header) + 1 for record in records):
        return False
    names = [record[0].strip() for record in records]
    return all(names) and len(set(names)) == len(names) and any(r[-1].strip() for r in records)


def with_row_names_named(data: bytes, separator: str) -> bytes:
    """``data`` (R's ``write.table`` layout, :func:`r_row_names_layout`) with an empty name
    before the header's first, as R's ``write.csv`` writes it."""
    start = blank_lines_end(data)
    return data[:start] + separator.encode() + data[start:]
