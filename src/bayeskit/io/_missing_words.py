"""Which usual missing markers written as words (``NA``, ``null``, ``N/A``…) a CSV/TSV reading
took for missing values in its columns of text: what the note on a column of categories names
(R's ``read.csv`` reads only ``NA`` as missing, so the word may be one of the categories).

Found from the bytes the reading parsed, in the few columns asked for, while they are in
memory: the file is not read a second time. A second reading of a wide table, every column as
text (thousands of numeric columns with ``NA`` among them), cost more time and memory than the
note is worth.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Sequence
from typing import Any

from ._lines import lone_returns_ended, white_lines_blanked
from .readers import DEFAULT_MISSING, choose_separator, missing_markers, unix_lines

__all__ = ["marker_text", "words_found", "words_in_file"]

#: The usual markers that are words (the empty field is missing whatever the options).
_WORDS = [m for m in DEFAULT_MISSING if m.strip()]


def marker_text(
    data: bytes,
    *,
    fmt: str,
    separator: str,
    header: bool,
    positions: Sequence[int],
    names: Sequence[str],
    missing: Sequence[str],
) -> Any:
    """The fields of the columns at ``positions`` (named ``names``) of CSV/TSV text ``data``,
    prepared as the reading parsed it (lines ended by ``\\n``, no byte-order mark, white lines
    blanked), as written: text, with only ``missing`` (the empty field and the markers given
    with ``--missing``) missing. Its rows are polars' rows of ``data``: a blank line is a row
    of nulls, as in the reading before its blank lines were dropped."""
    import polars as pl

    order = sorted(range(len(positions)), key=lambda k: positions[k])
    frame = pl.read_csv(
        io.BytesIO(data),
        separator=separator,
        quote_char=None if fmt == "tsv" else '"',
        has_header=header,
        columns=[int(positions[k]) for k in order],
        infer_schema=False,
        null_values=list(missing) or None,
    )
    return frame.rename(dict(zip(frame.columns, [names[k] for k in order], strict=True)))


def words_found(text: Any) -> dict[str, list[str]]:
    """The usual markers written as words in each column of ``text`` (:func:`marker_text`),
    sorted; columns without one are left out."""
    found: dict[str, list[str]] = {}
    for name in text.columns:
        column = text.get_column(name)
        words = column.filter(column.is_in(_WORDS)).unique().sort().to_list()
        if words:
            found[name] = [str(w) for w in words]
    return found


def words_in_file(
    raw: bytes | None,
    label: str,
    frame: Any,
    names: Sequence[str],
    *,
    format: str,
    separator: str | None,
    header: bool,
    columns: Sequence[str] | None,
    missing: Sequence[str],
    **_: Any,
) -> dict[str, list[str]]:
    """:func:`words_found` in the columns ``names`` of ``frame``, the table
    :func:`~bayeskit.io.readers.read_table` read from the CSV/TSV bytes ``raw`` (``label``)
    with these options: those columns parsed again from the bytes in memory, as written."""
    assert raw is not None  # (asked of a CSV/TSV only)
    # the bytes prepared as read_table prepares them
    data = lone_returns_ended(unix_lines(raw), format).removeprefix(codecs.BOM_UTF8)
    separator = choose_separator(data, label, format, separator)
    names = [n for n in names if n in frame.columns]
    text = marker_text(
        white_lines_blanked(data, format, separator),
        fmt=format,
        separator=separator,
        header=header and columns is None,
        positions=[frame.columns.index(n) for n in names],
        names=names,
        missing=missing_markers(missing, default_missing=False),
    )
    return words_found(text)
