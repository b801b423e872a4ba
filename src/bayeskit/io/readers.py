"""Reading tables: CSV, TSV, JSONL and Parquet into a polars DataFrame, with errors that name the
file, the line and the fix.

The format comes from the file name's extension (``.csv``; ``.tsv``/``.tab``; ``.jsonl``/
``.ndjson``; ``.parquet``/``.pq``) unless given. CSV follows RFC 4180 (``"`` quotes fields);
TSV has no quoting at all (a ``"`` is an ordinary character), as in the IANA definition, so
text with quotes reads as written, unless every name of its header is quoted, as R's
``write.table`` writes it (then it is read with CSV's quoting). A CSV's field separator is
sniffed from its first lines (``,`` unless every line splits alike on ``;``, a tab or ``|`` —
a ``;`` file may write decimal commas, ``2,5``) unless given. Text files must be UTF-8 (a
leading byte-order mark is dropped). Every row must have as many fields as the header: a
ragged row is an error naming its line, never silently padded. Blank lines are skipped.
Empty fields, the usual missing markers (:data:`DEFAULT_MISSING`: ``NA``, ``N/A``, ``NaN``,
``null``…, pandas' default ``na_values`` but ``None``, a category in many tables) and any
``missing`` markers given (such as ``?``) are missing values (null); ``default_missing=False``
reads the usual markers as values.

Examples
--------
>>> import os, tempfile
>>> from bayeskit.io.target import split_target
>>> from bayeskit.io.readers import read_table
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "weather.csv")
>>> with open(path, "w") as f:
...     _ = f.write("outlook,windy,play\\nsunny,false,no\\nrain,,yes\\novercast,true,yes\\n")
>>> frame = read_table(path)
>>> frame.shape, frame.columns
((3, 3), ['outlook', 'windy', 'play'])
>>> X, y = split_target(frame, "play", source=path)
>>> X.columns, y.tolist()
(['outlook', 'windy'], ['no', 'yes', 'yes'])
>>> split_target(frame, "Play", source="weather.csv")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bayeskit.errors.ReadError: weather.csv: no column 'Play'; ...: outlook, windy, play
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import dataclasses
import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ReadError
from ._empty_columns import empty_as_numbers
from ._header_names import check_header as check_header
from ._header_names import (
    has_trailing,
    named_header,
    quoted_tsv,
    r_row_names_layout,
    trailing_dropped,
    with_row_names_named,
)
from ._json_lines import check_json_lines, typed_as_written
from ._leading_zeros import leading_zero_columns
from ._lines import csv_reader as _csv_reader
from ._lines import lone_returns_ended, white_lines_blanked
from ._padding import padding_removed
from ._quotes import check_swallowed_rows
from ._repeated_header import check_repeated_header, header_record
from .formats import TABLE_EXTENSIONS as TABLE_EXTENSIONS
from .formats import TABLE_FORMATS as TABLE_FORMATS

__all__ = [
    "TABLE_EXTENSIONS",
    "TABLE_FORMATS",
    "ReadError",
    "check_header",
    "check_rows",
    "first_record",
    "list_names",
    "read_bytes",
    "read_table",
    "sniff_separator",
    "table_format",
]

_SHOWN_NAMES = 40


def list_names(names: Sequence[Any], limit: int = _SHOWN_NAMES) -> str:
    """``a, b, c`` — at most ``limit`` names, then how many more (all of them when one more
    would be hidden: its name is shorter than saying so)."""
    if len(names) <= limit + 1:
        return ", ".join(str(n) for n in names)
    shown = ", ".join(str(n) for n in names[:limit])
    return f"{shown}, … ({len(names) - limit} more)"


def table_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The table format of ``path``: ``format`` when given, else from the extension."""
    name = os.fspath(path)
    if format is not None:
        if format not in TABLE_FORMATS:
            raise ReadError(
                f"{name}: unknown format {format!r}; accepted: {', '.join(TABLE_FORMATS)}",
                path=name,
            )
        return format
    suffix = Path(name).suffix.lower()
    if suffix in TABLE_EXTENSIONS:
        return TABLE_EXTENSIONS[suffix]
    known = ", ".join(TABLE_EXTENSIONS)
    what = f"extension {suffix!r}" if suffix else "no extension"
    raise ReadError(
        f"{name}: unknown format ({what}); bayeskit reads tables named {known}, or a folder "
        "with one sub-folder per class; rename the file or name its format "
        "(csv, tsv, jsonl or parquet)",
        path=name,
    )


def is_blank(data: bytes) -> bool:
    """Nothing but white space (after a UTF-8 byte-order mark: a spreadsheet's empty sheet
    saved as "CSV UTF-8" is that mark alone)."""
    return not data.removeprefix(codecs.BOM_UTF8).strip()


#: Field values read as missing by default: pandas' default ``na_values`` (``read_csv``), so
#: a CSV written by R (``NA``) or pandas (empty, ``NaN``) reads as it does there — except
#: ``None``, which pandas reads as missing but R's ``read.csv`` does not: it is a category in
#: many tables (MASS's ``Cars93``, airbags "None", "Driver only", "Driver & Passenger"), and
#: no common writer spells a missing value so (pandas and Python's csv write an empty field).
DEFAULT_MISSING = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null",
)  # fmt: skip


def missing_markers(missing: Sequence[str] = (), default_missing: bool = True) -> list[str]:
    """The field values a CSV/TSV reader reads as missing: ``missing`` and, unless
    ``default_missing`` is False, :data:`DEFAULT_MISSING` (the empty field always)."""
    markers = [*DEFAULT_MISSING] if default_missing else [""]
    return markers + [m for m in missing if m not in markers]


def read_table(
    source: str | os.PathLike[str] | bytes,
    *,
    format: str | None = None,
    header: bool = True,
    columns: Sequence[str] | None = None,
    missing: Sequence[str] = (),
    name: str | None = None,
    separator: str | None = None,
    default_missing: bool = True,
    text_columns: Sequence[str] = (),
) -> Any:
    """Read a table file (or its bytes) into a polars DataFrame.

    Parameters
    ----------
    source : path, or the file's bytes (standard input; then ``format`` is needed)
    format : {"csv", "tsv", "jsonl", "parquet"}, optional
        Default: from the extension.
    header : bool, default True
        CSV/TSV: the first row names the columns. Without it the columns are ``column_1``,
        ``column_2``, … unless ``columns`` names them.
    columns : list of str, optional
        CSV/TSV: names for a file without a header row (implies ``header=False``).
    missing : list of str
        Field values read as missing, besides the empty field and (unless
        ``default_missing=False``) :data:`DEFAULT_MISSING`; in JSON lines, these markers
        written as text (``"NA"``), JSON's ``null`` always.
    name : str, optional
        What to call the source in messages (default: the path, or ``<stdin>``).
    separator : str, optional
        CSV: the one character between fields. Default: :func:`sniff_separator`.
    default_missing : bool, default True
        Read the usual missing markers (:data:`DEFAULT_MISSING`: ``NA``, ``N/A``, ``NaN``,
        ``null``…, as pandas' ``read_csv`` does, but not ``None``) as missing; False: as values
        (only the empty field and ``missing`` are missing).
    text_columns : list of str
        CSV/TSV: columns read as text whatever their values look like (a model's string
        categories: ``0123`` stays ``"0123"``, not the number 123).

    Returns
    -------
    polars.DataFrame with at least one row and one column. A header's unnamed first column
    (R's row names, pandas' index) is named ``row_names``; an unnamed last column with no
    value (a separator ending every line) is dropped; a CSV/TSV column with no value in any
    row is Float64, as pandas reads it.

    Raises
    ------
    ReadError
        Missing file, unknown format, empty file, ragged row (with its line), the header
        repeated among the rows (files joined with ``cat``), a line that is not JSON, a JSON
        key holding numbers and text (``1`` and ``"1"``), text that is not UTF-8, a file that
        is not Parquet.
    """

    if isinstance(source, (bytes, bytearray)):
        label = name or "<stdin>"
        if format is None:
            raise ReadError(f"{label}: name the format of the data (csv, tsv, jsonl or parquet)")
        fmt = table_format(label, format)
        data = bytes(source)
    else:
        label = name or os.fspath(source)
        fmt = table_format(label if format is None else os.fspath(source), format)
        data = read_bytes(Path(source), label)
    if is_blank(data):
        raise ReadError(f"{label}: the file is empty; it needs a header and rows", path=label)
    if columns is not None:
        header = False
    if fmt in ("csv", "tsv"):
        data = lone_returns_ended(unix_lines(data), fmt)
    if fmt == "tsv" and quoted_tsv(data):  # R's write.table(sep="\t"): CSV's quoting
        fmt, separator = "csv", "\t"
    markers = missing_markers(missing, default_missing)
    if fmt == "parquet":
        frame = _read_parquet(data, label)
    elif fmt == "jsonl":
        frame = empty_as_numbers(_read_jsonl(data, label, markers), text_columns)
    else:
        frame = _read_delimited(
            data, label, fmt, header, columns, markers, separator, tuple(text_columns)
        )
        zeros, text = leading_zero_columns(
            frame,
            data,
            lambda cols: _read_delimited(
                data, label, fmt, header, columns, markers, separator, (*text_columns, *cols)
            ),
        )
        frame = frame.with_columns(text.select(zeros)) if zeros else frame
        frame = empty_as_numbers(frame, text_columns)
    frame = wide_integers_as_text(frame)
    if frame.height == 0:
        raise ReadError(f"{label}: the file has a header but no rows", path=label)
    if frame.width == 0:
        raise ReadError(f"{label}: the file has no columns", path=label)
    return frame


def unix_lines(data: bytes) -> bytes:
    """``data`` with its lines ended by ``\\n``: a file whose lines end in a lone ``\\r``
    (classic Mac OS, and Excel for Mac's "CSV (Macintosh)") has no ``\\n`` at all."""
    return data.replace(b"\r", b"\n") if b"\r" in data and b"\n" not in data else data


def read_bytes(path: Path, label: str) -> bytes:
    """The bytes of a table file, refusing a missing file or a folder (``label`` names it)."""
    if not path.exists():
        raise ReadError(f"{label}: no such file or folder; check the path", path=label)
    if path.is_dir():
        raise ReadError(
            f"{label}: is a folder; a table is one file (.csv, .tsv, .jsonl or .parquet)",
            path=label,
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ReadError(f"{label}: cannot be read ({exc.strerror})", path=label) from None


def _decode(data: bytes, label: str, line_offset: int = 0) -> str:
    """``data`` as UTF-8 text; raises naming the line and column of a byte that is not
    (``line_offset``: lines of the file before ``data``)."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1 + line_offset
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ReadError(
            f"{label}, line {line}: byte 0x{data[exc.start]:02x} at column {column} is not "
            "UTF-8 text; save the file as UTF-8",
            path=label,
            line=line,
        ) from None


_SEPARATORS = (";", "\t", "|")


def sniff_separator(data: bytes, lines: int = 20) -> str:
    """The field separator of CSV ``data``: ``;``, a tab or ``|`` when each of the first
    ``lines`` lines (outside quotes) holds it as often as the first and ``,`` does not split
    them more consistently; else ``,``.

    >>> sniff_separator(b"a;b;label\\n1,5;2;x\\n3;4,25;y\\n")
    ';'
    >>> sniff_separator(b"a,b,label\\n1,2,x\\n")
    ','
    """
    head = data[: 1 << 16].decode("utf-8", errors="replace")
    rows = [line for line in head.splitlines()[:lines] if line.strip()]
    if len(rows) > 1 and len(head) == 1 << 16:
        rows = rows[:-1]  # the last line may be cut
    if not rows:
        return ","

    def consistent(sep: str) -> bool:
        counts = {_unquoted(row).count(sep) for row in rows}
        return len(counts) == 1 and counts.pop() > 0

    if consistent(";"):  # a comma inside is a decimal comma
        return ";"
    if consistent(","):
        return ","
    return next((sep for sep in _SEPARATORS[1:] if consistent(sep)), ",")


def choose_separator(data: bytes, label: str, fmt: str, separator: str | None) -> str:
    """The field separator of a CSV/TSV whose first bytes are ``data``: a tab for TSV, else
    ``separator`` (checked) when given, else :func:`sniff_separator`."""
    if fmt == "tsv":
        return "\t"
    if separator is None:
        return sniff_separator(data)
    if len(separator) != 1 or separator in ('"', "\n", "\r"):
        raise ReadError(
            f"{label}: the separator must be one character other than a quote or a line end, "
            f"not {separator!r}",
            path=label,
        )
    return separator


def header_hint(columns: Sequence[str]) -> str:
    """What to try when a column is not among a CSV's columns as read from its header."""
    joined = "".join(columns)
    separator = next((sep for sep in _SEPARATORS if sep in joined), None)
    if separator is not None:
        shown = "\\t" if separator == "\t" else separator
        return f"the header looks separated by '{shown}': pass --separator '{shown}'"
    return "if the first line holds data, not names, pass --no-header or --columns"


def _unquoted(line: str) -> str:
    """``line`` without its double-quoted parts."""
    return re.sub(r'"[^"]*"', "", line)


def _decimal_comma(data: bytes, separator: str) -> bool:
    """Numbers written ``2,5`` in a file whose fields are not separated by commas: a field
    anywhere in ``data`` that is such a number (the first lines alone missed a column whose
    first decimals come later, which then became text)."""
    if separator == ",":
        return False
    sep = re.escape(separator.encode("utf-8"))
    field = rb"(?:^|" + sep + rb")[ \t]*-?[0-9]+,[0-9]+[ \t]*(?=" + sep + rb"|\r?$)"
    return re.search(field, data, re.MULTILINE) is not None


def check_rows(
    text: str,
    label: str,
    fmt: str,
    header: bool,
    separator: str = ",",
    line_offset: int = 0,
    quotes: bool = False,
) -> tuple[list[str], BlankLines]:
    """(header fields or the first row, the blank lines seen); raises on a ragged row, naming its
    line (``line_offset``: lines of the file before ``text``'s second line, when ``text`` is
    the first row followed by a block from further down the file), and with ``quotes`` on a
    double quote inside a field not quoted (``5'11"``), which polars cannot read."""
    reader = _csv_reader(text, fmt, separator)
    lines = io.StringIO(text, newline="").readlines() if quotes and fmt == "csv" else None
    first: list[str] | None = None
    first_line = 0
    blank = BlankLines()
    after = 0  # the records after the first one
    start = 0  # the lines before the record read
    try:
        for row in reader:
            if lines is not None:
                line = start + 1 + (line_offset if start else 0)
                _check_quotes(row, "".join(lines[start : reader.line_num]), line, label)
                start = reader.line_num
            if first is not None:
                after += 1
            if not row:
                if first is None:
                    blank.leading += 1
                else:
                    blank.after.append(after - 1)
                continue
            if first is None:
                first, first_line = row, reader.line_num
                continue
            if len(row) != len(first):
                what = "the header has" if header else f"line {first_line} has"
                line = reader.line_num + line_offset
                raise ReadError(
                    f"{label}, line {line}: {len(row)} field{'s' * (len(row) != 1)} where {what} "
                    f"{len(first)}; give every row one value per column (an empty field is "
                    f"a missing value)"
                    f"{_quote_hint(fmt, row, len(first), separator, header and after == 1)}",
                    path=label,
                    line=line,
                )
    except csv.Error as exc:
        line = reader.line_num + line_offset
        raise ReadError(
            f"{label}, line {line}: malformed CSV ({exc}); close the quote or double "
            'a " inside a quoted field',
            path=label,
            line=line,
        ) from None
    assert first is not None  # the caller checked that the text is not blank
    blank.records = after
    return first, blank


@dataclasses.dataclass
class BlankLines:
    """The blank lines of a CSV/TSV text, which polars reads as rows of nulls (all but those
    before a header): ``leading`` before its first record, ``after`` by their place among the
    ``records`` after it (blank or not)."""

    leading: int = 0
    after: list[int] = dataclasses.field(default_factory=list)
    records: int = 0

    def __bool__(self) -> bool:
        return bool(self.leading or self.after)

    def dropped(self, frame: Any, *, header: bool) -> Any:
        """``frame`` (polars' reading of the text; without a header, its first record is the
        first row) without the rows of the blank lines — and only those: a row whose every
        field is a missing marker (``NA``) is a row of nulls too, and stays."""
        import polars as pl

        rows = list(self.after)
        if not header:  # every record is a row: the blank ones before and the first one too
            rows = list(range(self.leading)) + [r + self.leading + 1 for r in rows]
        expected = self.records + (0 if header else self.leading + 1)
        index = pl.Series(rows, dtype=pl.UInt32)
        blank = frame.select(pl.all_horizontal(pl.all().is_null()).gather(index)).to_series()
        # polars makes a row of nulls of every blank line it reads as a row: a reading of other
        # rows would lose the wrong ones
        assert frame.height == expected, "a blank line is a row"
        assert bool(blank.all()), "a blank line is a row of nulls"
        keep = np.ones(frame.height, dtype=bool)
        keep[rows] = False
        return frame.filter(pl.Series(keep))


def _check_quotes(row: list[str], record: str, line: int, label: str) -> None:
    """Raises at a field of ``row`` (written as ``record``, from line ``line``) that holds a
    double quote but was not written quoted."""
    for field in row:
        if '"' in field and field[:1] in (" ", "\t") and field.lstrip(" \t").startswith('"'):
            raise ReadError(
                f"{label}, line {line}: the field {field.strip()} has spaces before its opening "
                "quote, so it is not read as quoted (a comma inside it splits it); start a "
                'quoted field right after the separator: a,"b, c" rather than a, "b, c"',
                path=label,
                line=line,
            )
        if '"' in field and '"' + field.replace('"', '""') + '"' not in record:
            raise ReadError(
                f"{label}, line {line}: the field {field} holds a double quote but is not "
                "in double quotes; write it quoted with its quote doubled "
                f'("{field.replace(chr(34), chr(34) * 2)}")',
                path=label,
                line=line,
            )


def _quote_hint(fmt: str, row: list[str], expected: int, separator: str, first: bool) -> str:
    if first and len(row) == expected + 1:  # not R's write.table layout (r_row_names_layout)
        return (
            "; a header one name short of the rows is read as R's write.table writes row "
            "names only when each of the first rows (two at least) has the extra field, and "
            "a name in it: give every row the same fields, or name the first column"
        )
    if fmt == "csv" and len(row) > expected and separator == ",":
        return '; put a field that contains commas in double quotes ("a, b")'
    return ""


def wide_integers_as_text(frame: Any) -> Any:
    """``frame`` with its columns of integers beyond 64 bits (account, card and SIM numbers
    of 20 digits and more, which polars reads as 128-bit integers and numpy cannot hold) as
    text: codes, not quantities, read as the digits they were written with."""
    import polars as pl

    wide = [c for c, t in frame.schema.items() if str(t) in ("Int128", "UInt128")]
    return frame.with_columns(pl.col(wide).cast(pl.String)) if wide else frame


def _read_delimited(
    data: bytes,
    label: str,
    fmt: str,
    header: bool,
    columns: Sequence[str] | None,
    missing: Sequence[str],
    separator: str | None = None,
    text_columns: tuple[str, ...] = (),
) -> Any:
    import polars as pl

    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    separator = choose_separator(data, label, fmt, separator)
    data = white_lines_blanked(data, fmt, separator)
    if header and r_row_names_layout(data, fmt, separator):
        data = with_row_names_named(data, separator)
    first = first_record(data, label, fmt, separator)
    if header:
        first = named_header(first)
        check_header(first, label)
        check_repeated_header(data, header_record(data), label, 1, separator, skip_first=True)
    elif columns is None:
        columns = [f"column_{j + 1}" for j in range(len(first))]
    else:
        if len(columns) != len(first):
            raise ReadError(
                f"{label}: {len(columns)} column names given for {len(first)} columns "
                f"(line 1 has {len(first)} fields); name every column",
                path=label,
            )
        check_header(columns, label)
    raw = list(first if header else columns or ())
    text = {name for name in raw if name.strip() in text_columns}
    try:
        frame = pl.read_csv(
            io.BytesIO(data),
            separator=separator,
            quote_char=None if fmt == "tsv" else '"',
            has_header=header,
            # the header as _first_record read it (Python's csv, as training reads it),
            # not polars' reading, which keeps a quoted name's doubled quotes
            new_columns=list(columns) if columns is not None else list(first),
            null_values=list(missing) or None,
            infer_schema_length=None,
            decimal_comma=_decimal_comma(data, separator),
            schema_overrides=dict.fromkeys(text, pl.String) or None,
        )
    except pl.exceptions.PolarsError as exc:
        # Find the row at fault (a long row, bad UTF-8) with its line number; polars' own
        # message is the fallback.
        check_rows(_decode(data, label), label, fmt, header, separator, quotes=True)
        raise ReadError(f"{label}: cannot be read as {fmt.upper()} ({_first_line(exc)})") from None
    if fmt == "csv":  # read without an error, a stray quote may still have swallowed rows
        check_swallowed_rows(data, frame, label, separator, header=header, missing=missing)
    # polars pads a short row with nulls (and reads a blank line as a row of nulls): only a
    # null in the last column can hide one, so only then are the rows counted one by one.
    if frame.width and frame.height and frame.get_column(frame.columns[-1]).null_count():
        _, blank = check_rows(_decode(data, label), label, fmt, header, separator)
        if blank:
            frame = blank.dropped(frame, header=header)
    frame = trailing_dropped(frame, label) if header and has_trailing(first) else frame
    frame = frame.rename({c: c.strip() for c in frame.columns if c != c.strip()})
    return padding_removed(
        frame, missing, decimal_comma=_decimal_comma(data, separator), text_columns=text_columns
    )


def first_record(data: bytes, label: str, fmt: str, separator: str = ",") -> list[str]:
    """The first non-blank record (the header, when there is one)."""
    head = data[: 1 << 20].decode("utf-8", errors="replace")
    with contextlib.suppress(csv.Error):  # a record cut at 1 MiB: read it all below
        for row in _csv_reader(head, fmt, separator):
            if row:
                if any("\ufffd" in name for name in row):  # a byte that is not UTF-8?
                    whole = data[: data.rfind(b"\n", 0, 1 << 20) + 1] or data[: 1 << 20]
                    _decode(whole, label)  # raises naming its line (Latin-1 "café": 1)
                return row
    return check_rows(_decode(data, label), label, fmt, False, separator)[0]


def _read_jsonl(data: bytes, label: str, missing: Sequence[str]) -> Any:
    import polars as pl

    text = _decode(data, label)
    try:
        frame = pl.read_ndjson(io.BytesIO(text.encode("utf-8")), infer_schema_length=None)
    except pl.exceptions.PolarsError as exc:
        problem = _first_line(exc)
    else:
        return typed_as_written(frame, text, label, missing)
    check_json_lines(text.splitlines(), label)
    raise ReadError(
        f"{label}: cannot be read as JSON lines ({problem}); give each key values of one type",
        path=label,
    )


def _read_parquet(data: bytes, label: str) -> Any:
    import polars as pl

    try:
        return pl.read_parquet(io.BytesIO(data))
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise ReadError(
            f"{label}: not a Parquet file ({_first_line(exc)}); check the file or its extension",
            path=label,
        ) from None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
