"""Lines of a CSV as pandas' ``read_csv`` reads them where polars reads them otherwise: a line
of nothing but spaces or tabs is a blank line (R's ``read.csv`` skips it too; polars read a row
whose first field is the spaces, so a numeric first column became text, and the row was
ragged), and a carriage return alone ends a line in a file whose lines end in ``\n`` (polars
read it inside a field, and refused the file with its own message). Also where the records
of a block of lines end (a newline inside a quoted CSV field ends none), for the reading in
blocks."""

from __future__ import annotations

import csv
import io
import re
import sys
from typing import Any

import numpy as np

__all__ = [
    "blank_lines_end",
    "csv_reader",
    "lone_returns_ended",
    "record_end",
    "white_lines_blanked",
]

_WHITE_LINE = re.compile(rb"^[ \t\f\v]+\r?$", re.MULTILINE)


def white_lines_blanked(data: bytes, fmt: str, separator: str) -> bytes:
    """``data`` with each record that is one line of spaces or tabs made an empty line; a
    line of spaces inside a quoted field is text and stays. A tab-separated file's line of
    tabs is a row of empty fields (missing values), and stays too.

    >>> white_lines_blanked(b"a,b\\n1,2\\n  \\t\\n3,4\\n", "csv", ",")
    b'a,b\\n1,2\\n\\n3,4\\n'
    >>> white_lines_blanked(b'a,b\\n"x\\n  \\ny",2\\n', "csv", ",")
    b'a,b\\n"x\\n  \\ny",2\\n'
    """
    if _WHITE_LINE.search(data) is None:  # the common case: one scan, no copy
        return data
    text = data.decode("utf-8", errors="replace")  # a bad byte is named by the reader later
    stream = io.StringIO(text, newline="")
    if fmt == "tsv":
        reader = csv.reader(stream, delimiter=separator, quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(stream, delimiter=separator)
    white: list[int] = []
    before = 0  # the lines before the record read
    try:
        for row in reader:
            one_line = reader.line_num == before + 1
            if one_line and len(row) == 1 and row[0] and not row[0].strip(" \t\f\v"):
                white.append(before)
            before = reader.line_num
    except csv.Error:  # the reader names the fault, with its line
        return data
    if not white:
        return data
    lines = data.split(b"\n")
    for i in white:
        lines[i] = b"\r" if lines[i].endswith(b"\r") else b""
    return b"\n".join(lines)


def lone_returns_ended(data: bytes, fmt: str) -> bytes:
    """``data`` with each carriage return that is not before a ``\\n`` made a ``\\n``
    (a line pasted from a classic Mac OS file into one written elsewhere), except inside a
    quoted field, where it is text. (A file with no ``\\n`` at all is
    :func:`~bayeskit.io.readers.unix_lines`' case.)

    >>> lone_returns_ended(b'a,b\\r\\n1,2\\r3,4\\n"x\\ry",5\\n', "csv")
    b'a,b\\r\\n1,2\\n3,4\\n"x\\ry",5\\n'
    """
    if data.count(b"\r") == data.count(b"\r\n"):  # (every CRLF file: two scans, no copy)
        return data
    raw = np.frombuffer(data, np.uint8)
    after = np.append(raw[1:], np.uint8(0))  # the byte after each one
    lone = np.flatnonzero((raw == 13) & (after != 10))
    if fmt == "csv" and len(lone):
        # inside a quoted field after an odd number of quotes (a doubled quote counts two)
        quotes = np.flatnonzero(raw == 34)
        lone = lone[np.searchsorted(quotes, lone) % 2 == 0]
    if not len(lone):
        return data
    ended = raw.copy()
    ended[lone] = 10
    return ended.tobytes()


def blank_lines_end(data: bytes) -> int:
    """Where the blank lines ``data`` starts with end (0: none): after the last newline
    among its first line ends."""
    ends = len(data) - len(data.lstrip(b"\r\n"))
    return data.rfind(b"\n", 0, ends) + 1


def record_end(buffer: bytes, quoted: bool, *, first_only: bool = False) -> int:
    """The index just past the last (``first_only``: the first) newline of ``buffer`` that
    ends a record; 0 when none does. In CSV a newline inside quotes does not: a newline ends
    a record when the number of quotes before it is even (RFC 4180 doubles a quote inside a
    quoted field, so quotes pair up)."""
    if not quoted:
        end = buffer.find(b"\n") if first_only else buffer.rfind(b"\n")
        return end + 1
    data = np.frombuffer(buffer, dtype=np.uint8)
    newlines = np.flatnonzero(data == ord("\n"))
    quotes = np.flatnonzero(data == ord('"'))
    if len(quotes):
        newlines = newlines[np.searchsorted(quotes, newlines) % 2 == 0]
    if not len(newlines):
        return 0
    return int(newlines[0 if first_only else -1]) + 1


def csv_reader(text: str, fmt: str, separator: str = ",") -> Any:
    """Python's CSV reader of ``text`` as the readers read a CSV (``separator``) or a TSV (no
    quoting)."""
    if csv.field_size_limit() < 2**31 - 1:
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # long text fields (whole emails)
    if fmt == "tsv":
        return csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    return csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
