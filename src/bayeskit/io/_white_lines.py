"""Lines of nothing but spaces or tabs in a CSV, read as the blank lines they look like:
pandas' ``read_csv`` and R's ``read.csv`` skip them, where polars reads a row whose first
field is the spaces (a numeric first column then becomes text, and the row is ragged)."""

from __future__ import annotations

import csv
import io
import re

__all__ = ["white_lines_blanked"]

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
    quoting = csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, quoting=quoting)
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
