"""A header line repeated among a CSV/TSV's rows: what ``cat a.csv b.csv > both.csv`` (or a
log appended to by several runs) makes of two files with headers.

Read as a row, the repeated header turns every numeric column into text (``'Ozone'`` among
the numbers) and adds a class named after the target column, one row strong: a different
model without an error, as R's ``read.csv`` and pandas' ``read_csv`` build it. The readers
refuse such a file instead, naming the line.
"""

from __future__ import annotations

import codecs

from ..errors import ReadError


def header_record(data: bytes) -> bytes:
    """The header line of ``data`` (its first non-blank line, byte-order mark and line end
    removed)."""
    data = data.removeprefix(codecs.BOM_UTF8).lstrip(b"\r\n")
    end = data.find(b"\n")
    return (data if end < 0 else data[:end]).rstrip(b"\r")


def check_repeated_header(
    data: bytes,
    header: bytes,
    label: str,
    first_line: int,
    separator: str,
    *,
    skip_first: bool = False,
) -> None:
    """Raises when a line of ``data`` (which starts on file line ``first_line``) is the
    header line ``header`` again (``skip_first``: ``data`` starts with the header itself,
    which is not a repetition).

    A line matches byte for byte, but for its line end and a byte-order mark before it (a
    joined file that had one): a row of values equal to every column's name is no row a
    table holds. A header of one name is not checked: its only column may well hold that
    word as a value."""
    if separator.encode("utf-8") not in header:
        return
    start = 0
    if skip_first:
        body = data.removeprefix(codecs.BOM_UTF8).lstrip(b"\r\n")
        start = len(data) - len(body) + len(header)
    while True:
        at = data.find(header, start)
        if at < 0:
            return
        start = at + 1
        line_start = at
        if data[:at].endswith(codecs.BOM_UTF8):
            line_start -= len(codecs.BOM_UTF8)
        if line_start > 0 and data[line_start - 1 : line_start] != b"\n":
            continue
        if data[at + len(header) : at + len(header) + 1] not in (b"", b"\n", b"\r"):
            continue
        line = first_line + data.count(b"\n", 0, at)
        shown = header.decode("utf-8", errors="replace")
        shown = shown if len(shown) <= 60 else shown[:60] + "…"
        raise ReadError(
            f"{label}, line {line}: repeats the header line ({shown}), as files joined one "
            "after the other (cat a.csv b.csv) do; read as a row, its names would be values "
            "(a column of numbers read as text, a class named after the target): remove that "
            "line",
            path=label,
            line=line,
        )
