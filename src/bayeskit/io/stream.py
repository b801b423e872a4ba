"""Reading training data in batches, so that training takes memory flat in the input's size.

:class:`TableStream` reads a CSV, TSV, JSON-lines or Parquet table with polars' lazy scans
(``scan_csv`` / ``scan_ndjson`` / ``scan_parquet`` and ``collect_batches``), parsed as
:func:`~bayeskit.io.readers.read_table` parses a whole file: the same options, column types
inferred from every row, the same checks (a ragged row, a blank line, a row without a label)
with the same messages. :class:`DocumentStream` reads a folder with one sub-folder per class
(text files, e-mails, mbox files) a batch of documents at a time; a batch can also be handed
out unread (:meth:`DocumentStream.file_batches`), to be read where it is trained on.

Examples
--------
>>> import os, tempfile
>>> from bayeskit.io.stream import TableStream
>>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
>>> with open(path, "w") as f:
...     _ = f.write("x,label\\n1.5,a\\n2.5,b\\n0.5,a\\n")
>>> stream = TableStream(path, target="label", batch_size=2)
>>> [(batch.X.height, batch.y.tolist()) for batch in stream]
[(2, ['a', 'b']), (1, ['a'])]
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ReadError
from ._header_names import (
    has_trailing,
    named_header,
    quoted_tsv,
    r_row_names_layout,
    refuse_trailing,
    with_row_names_named,
)
from ._json_lines import Kinds, check_json_lines, typed_as_written
from ._label_text import label_texts, labels_kept_as_text
from ._leading_zeros import leading_zero_columns
from ._lines import blank_lines_end, lone_returns_ended, record_end, white_lines_blanked
from ._missing_words import marker_text, words_found
from ._padding import padding_removed
from ._quotes import check_swallowed_rows
from ._repeated_header import check_repeated_header, header_record
from .documents import _detect_kind, _read_file, class_folders, list_files
from .readers import (
    BlankLines,
    _decimal_comma,
    _decode,
    _first_line,
    check_header,
    check_rows,
    choose_separator,
    first_record,
    header_hint,
    is_blank,
    list_names,
    missing_markers,
    table_format,
    unix_lines,
    wide_integers_as_text,
)
from .target import check_feature_columns, labels_of

__all__ = ["Batch", "DocumentStream", "FileBatch", "TableStream"]

_HEAD_BYTES = 1 << 20
#: Bytes read at a time (at least; a batch of rows is read in one block when larger).
_BLOCK_BYTES = 8 << 20


@dataclass
class Batch:
    """Some rows of the input: features (a polars DataFrame, or a list of documents), labels,
    and how much of the input they are (rows, bytes; bytes are estimated for text tables)."""

    X: Any
    y: np.ndarray
    rows: int
    nbytes: int
    #: the rows of the input before these (a model's error about one of them names its row)
    first_row: int = 0


class TableStream:
    """A table file read ``batch_size`` rows at a time (see the module docstring).

    CSV, TSV and JSON lines are read in blocks of whole records (a newline inside a quoted
    CSV field does not end one), each parsed by polars with the options and the column types
    :func:`~bayeskit.io.readers.read_table` would use for the whole file. Those types are
    inferred from every row, so reading such a file takes two passes: one to infer them,
    block by block, one to train. Parquet records its types, and is read one batch of rows
    at a time.

    Parameters
    ----------
    path : path of a .csv, .tsv, .jsonl or .parquet file
    target : the column of class labels (None: only look at the columns, do not read rows)
    format, header, columns, missing, separator, default_missing : as for
        :func:`~bayeskit.io.readers.read_table` (a CSV's separator is sniffed from its first
        lines unless given; a ``;`` file may write decimal commas)
    batch_size : rows per batch
    words_rows : rows at the start whose :attr:`missing_words` are kept (0: none)

    Attributes
    ----------
    schema : dict of column name to polars dtype, the target excluded
    size : the file's size in bytes
    n_rows : the number of rows when the format records it (Parquet), else None
    missing_words : dict of column name to the usual markers written as words (``NA``…) read
        as missing in that text column of the first ``words_rows`` rows, once read (CSV/TSV)
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        target: str | None,
        format: str | None = None,
        header: bool = True,
        columns: Sequence[str] | None = None,
        missing: Sequence[str] = (),
        separator: str | None = None,
        batch_size: int = 100_000,
        default_missing: bool = True,
        words_rows: int = 0,
    ):
        self.label = os.fspath(path)
        self.path = Path(path)
        self.format = table_format(self.label, format)
        self.target = target
        self.batch_size = _check_batch_size(batch_size)
        self.header = header and columns is None
        self.missing = tuple(missing_markers(missing, default_missing))
        #: the usual markers written as words read as missing in each text column of the first
        #: ``words_rows`` rows (CSV/TSV), filled in as they are read (see _missing_words)
        self.missing_words: dict[str, set[str]] = {}
        self._words_left = words_rows if default_missing else 0
        self._given_missing = tuple(missing_markers(missing, default_missing=False))
        head = self._head()
        # lines ended by a lone "\r" (classic Mac OS): read with "\n", byte for byte
        self._mac = self.format in ("csv", "tsv") and unix_lines(head) is not head
        head = unix_lines(head) if self._mac else head
        if self.format == "tsv" and quoted_tsv(head):  # R's write.table(sep="\t")
            self.format, separator = "csv", "\t"
        self.separator = ","
        self._decimal_comma = False
        if self.format in ("csv", "tsv"):
            start = head.removeprefix(codecs.BOM_UTF8)
            self.separator = choose_separator(start, self.label, self.format, separator)
            self._decimal_comma = _decimal_comma(start, self.separator)
        self.size = self.path.stat().st_size
        self._bytes_per_row = len(head) / max(head.count(b"\n"), 1)
        self._first = b""  # the first record of a CSV/TSV (header or first row), as bytes
        self._checked_first = b""  # the header the rows are checked against, when not _first
        self._blank_head = 0  # the bytes of the blank lines before it
        self._padded: set[str] = (
            set()
        )  # columns read as text, then typed: padded fields, JSON markers
        self._empty: set[str] | None = None  # columns of nothing but missing values
        self.columns = self._column_names(head, columns)
        full = self._parquet_schema() if self.format == "parquet" else self._inferred_schema()
        self._file_schema = full  # the columns polars parses: a nameless last one too
        self._trailing = self.header and has_trailing(self.columns or [])
        if self._trailing:  # a separator at the end of every line: dropped when it is empty
            last = list(full)[-1]
            if last not in (self._empty or set()):
                refuse_trailing(self.label, len(full))
            full = {c: t for c, t in full.items() if c != last}
        self._full_schema = full
        self._check_target(full)
        self.schema = {c: t for c, t in full.items() if c != target}
        import polars as pl

        check_feature_columns(pl.DataFrame(schema=self.schema), self.label)

    # ------------------------------------------------------------------ set-up
    def _head(self) -> bytes:
        if not self.path.exists():
            raise ReadError(
                f"{self.label}: no such file or folder; check the path", path=self.label
            )
        if self.path.is_dir():
            raise ReadError(
                f"{self.label}: is a folder; a table is one file (.csv, .tsv, .jsonl or .parquet)",
                path=self.label,
            )
        with open(self.path, "rb") as f:
            head = f.read(_HEAD_BYTES)
            while head and is_blank(head):  # all blank so far: look further
                more = f.read(_HEAD_BYTES)
                if not more:
                    break
                head = more
        if is_blank(head):
            raise ReadError(
                f"{self.label}: the file is empty; it needs a header and rows", path=self.label
            )
        return head

    def _column_names(self, head: bytes, columns: Sequence[str] | None) -> list[str] | None:
        """The names of a CSV/TSV's columns (checked, from its header or given)."""
        if self.format not in ("csv", "tsv"):
            return None
        head = head.removeprefix(codecs.BOM_UTF8)
        first = first_record(head, self.label, self.format, self.separator)
        # the blank lines before the first record go with it: the rows start after it
        self._blank_head = blank = blank_lines_end(head)
        end = record_end(head[blank:], self.format == "csv", first_only=True)
        self._first = head[: blank + end] if end else head
        if self.header:
            blanked = white_lines_blanked(head, self.format, self.separator)  # (as read_table)
            if r_row_names_layout(blanked, self.format, self.separator):  # R's write.table
                first = ["", *first]  # (the rows' first field: their names)
                # the rows are checked against the header as write.csv writes it
                self._checked_first = with_row_names_named(self._first, self.separator)
            first = named_header(first)
            check_header(first, self.label)
            return [name.strip() for name in first]
        if columns is None:
            return [f"column_{j + 1}" for j in range(len(first))]
        if len(columns) != len(first):
            raise ReadError(
                f"{self.label}: {len(columns)} column names given for {len(first)} columns "
                f"(line 1 has {len(first)} fields); name every column",
                path=self.label,
            )
        check_header(columns, self.label)
        return list(columns)

    def _parquet_schema(self) -> dict[str, Any]:
        import polars as pl

        try:
            lazy = pl.scan_parquet(self.path)
            schema = dict(lazy.collect_schema())
            self.n_rows: int | None = int(lazy.select(pl.len()).collect().item())
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise ReadError(
                f"{self.label}: not a Parquet file ({_first_line(exc)}); check the file or its "
                "extension",
                path=self.label,
            ) from None
        self._bytes_per_row = self.size / max(self.n_rows, 1)
        return schema

    def _inferred_schema(self) -> dict[str, Any]:
        """Column types from every row: each block's, widened to agree (a column of whole
        numbers in one block and decimals in another is Float64, as polars infers it from
        the whole file)."""
        import polars as pl

        self.n_rows = None
        found: dict[str, Any] = {}
        kinds: Kinds = {}  # JSON lines: each key's first number and text, across blocks
        zeros: set[str] = set()  # integer columns written with leading zeros: codes, as text
        labels: set[str] = set()  # the target's fields as written (CSV/TSV; see _label_text)
        for block, line in self._blocks():
            raw = self._parse(block, line, schema=None)
            frame = self._typed(raw, block, line, kinds=kinds)
            target = self.target if self.target in frame.columns else None
            if target is not None and self.format != "jsonl":
                dtype = frame.schema[target]
                if dtype == pl.Boolean or dtype.is_numeric():
                    text = self._as_text(block, line, raw.columns)(())
                    labels |= label_texts(text.get_column(target))
            if self.format != "jsonl":
                zeros |= set(
                    leading_zero_columns(frame, block, self._as_text(block, line, raw.columns))[0]
                )
            self._padded |= {
                c
                for c in frame.columns
                if not raw.get_column(c).equals(
                    frame.get_column(c), check_dtypes=True, null_equal=True
                )
            }
            empty = {c for c in frame.columns if frame.get_column(c).null_count() == frame.height}
            self._empty = empty if self._empty is None else self._empty & empty
            for column in frame.columns:
                values = frame.get_column(column)
                seen = values.null_count() < len(values)
                found[column] = _widen(found.get(column), values.dtype if seen else None)
        if not found and self.columns is not None:
            found = dict.fromkeys(self.columns)
        typed = found.get(self.target) if self.target is not None else None
        if typed is not None and labels and labels_kept_as_text(typed, labels):
            zeros.add(str(self.target))  # (read as text, as such codes are)
        # a column of no value in any row: numbers, as pandas reads it (see _empty_columns)
        return {
            c: pl.String if c in zeros else pl.Float64 if t is None else t for c, t in found.items()
        }

    def _check_target(self, schema: dict[str, Any]) -> None:
        names = list(schema)
        if self.target is None:
            return
        if self.target not in schema:
            hint = ""
            if self.format in ("csv", "tsv") and self.header:
                hint = f" ({header_hint(names)})"
            raise ReadError(
                f"{self.label}: no column {self.target!r}; the columns are: "
                f"{list_names(names)}{hint}",
                path=self.label,
                column=self.target,
            )
        if len(names) == 1:
            raise ReadError(
                f"{self.label}: the table has no column besides the target {self.target!r}; add "
                "feature columns",
                path=self.label,
            )

    @property
    def estimated_rows(self) -> int:
        """The number of rows: exact for Parquet, else estimated from the first lines."""
        return self.n_rows if self.n_rows is not None else int(self.size / self._bytes_per_row)

    # ------------------------------------------------------------------ reading
    def __iter__(self) -> Iterator[Batch]:
        if self.target is None:
            raise ReadError(f"{self.label}: name the column holding the class labels")
        done = 0
        for read in self._frames():
            frame = wide_integers_as_text(read)
            for start in range(0, frame.height, self.batch_size):
                part = frame.slice(start, self.batch_size)
                y = labels_of(part, self.target, source=self.label, first_row=done)
                nbytes = int(part.height * self._bytes_per_row)
                yield Batch(part.drop(self.target), y, part.height, nbytes, first_row=done)
                done += part.height
        if done == 0:
            raise ReadError(f"{self.label}: the file has a header but no rows", path=self.label)

    def _frames(self) -> Iterator[Any]:
        import polars as pl

        if self.format == "parquet":
            lazy = pl.scan_parquet(self.path)
            for start in range(0, self.n_rows or 0, self.batch_size):
                yield lazy.slice(start, self.batch_size).collect()
            return
        # a column of padded numbers (" 2") reads as text, its spaces removed, then its type
        schema = {c: pl.String if c in self._padded else t for c, t in self._file_schema.items()}
        for block, line in self._blocks():
            frame = self._parse(block, line, schema=schema)
            frame = frame.drop(frame.columns[-1]) if self._trailing else frame
            frame = self._typed(frame, block, line, typed=True)
            if self._words_left > 0 and self.format != "jsonl":
                self._note_words(block, line, frame)
            # padded missing markers (" NA") in a column of nothing else: missing
            empty = self._padded & (self._empty or set()) & set(self._full_schema)
            yield frame.with_columns(pl.lit(None, self._full_schema[c]).alias(c) for c in empty)

    def _note_words(self, block: bytes, line: int, frame: Any) -> None:
        """:attr:`missing_words` of the rows of ``frame`` (``block`` parsed) among the first
        ``words_rows``: its text columns with missing values read again from ``block``."""
        import polars as pl

        rows = min(self._words_left, frame.height)
        self._words_left -= rows
        types = list(self._full_schema.items())
        at = [j for j, (c, t) in enumerate(types) if t == pl.String and frame[c][:rows].has_nulls()]
        if not at:
            return
        names = [types[j][0] for j in at]
        text = marker_text(
            block, fmt=self.format, separator=self.separator, header=False, positions=at,
            names=names, missing=self._given_missing,
        )  # fmt: skip
        if text.height != frame.height:  # the block's blank lines, dropped from frame
            text = self._check_block(block, line).dropped(text, header=True)
        for name, words in words_found(text.head(rows)).items():
            self.missing_words.setdefault(name, set()).update(words)

    def _as_text(
        self, block: bytes, line: int, names: Sequence[str]
    ) -> Callable[[Sequence[str]], Any]:
        """Parses ``block`` (from file line ``line``) with every column (``names``) as text."""
        import polars as pl

        def parse(columns: Sequence[str]) -> Any:
            return self._parse(block, line, schema=dict.fromkeys(names, pl.String))

        return parse

    def _typed(
        self, raw: Any, block: bytes, line: int, typed: bool = False, kinds: Kinds | None = None
    ) -> Any:
        """A parsed block's values as read_table types them: padded numbers (CSV/TSV), JSON's
        missing markers written as text; ``typed``: in the file's column types; ``kinds``:
        what the blocks before held (JSON lines)."""
        if self.format != "jsonl":
            types = self._full_schema if typed else None
            return padding_removed(
                raw, self.missing, decimal_comma=self._decimal_comma, types=types
            )
        import polars as pl

        text = _decode(block, self.label, line - 1)
        frame = typed_as_written(raw, text, self.label, self.missing, line, kinds)
        if not typed:
            return frame
        return frame.with_columns(pl.col(c).cast(self._full_schema[c]) for c in self._padded)

    def _blocks(self) -> Iterator[tuple[bytes, int]]:
        """(block of whole records, the file line it starts on) after any header, without the
        blank lines it starts with (polars takes a first line that is blank for a row of one
        column, and refuses the block: a blank line after the header refused the file)."""
        # a header line repeated among the rows (files joined with cat) is refused, naming it
        header = header_record(self._first) if self.header and self.format != "jsonl" else b""
        for block, line in self._raw_blocks():
            if self.format != "jsonl":  # (a block is whole records: no quote open at its start)
                block = white_lines_blanked(block, self.format, self.separator)
            blank = blank_lines_end(block)
            if block[blank:]:
                start = line + block.count(b"\n", 0, blank)
                if header:
                    check_repeated_header(block[blank:], header, self.label, start, self.separator)
                yield block[blank:], start

    def _raw_blocks(self) -> Iterator[tuple[bytes, int]]:
        """(block of whole records, the file line it starts on) after any header."""
        # (never more than the file holds: a batch size beyond its rows is one batch, not a
        # buffer of batch_size rows allocated ahead of the read)
        size = max(_BLOCK_BYTES, min(int(self.batch_size * self._bytes_per_row), self.size))
        quoted = self.format == "csv"
        with open(self.path, "rb") as f:
            skip = len(codecs.BOM_UTF8) if f.read(3) == codecs.BOM_UTF8 else 0
            f.seek(skip)
            line = 1
            # the header, or without one the blank lines before the first row (which polars
            # would take for a row of one column)
            first = f.read(len(self._first) if self.header else self._blank_head)
            line += first.count(b"\r" if self._mac else b"\n")
            rest = b""
            while True:
                chunk = f.read(size)
                if self._mac:
                    chunk = chunk.replace(b"\r", b"\n")
                if not chunk:
                    if rest.strip():
                        yield self._lines_ended(rest), line
                    return
                buffer = rest + chunk
                end = record_end(buffer, quoted)
                if end == 0:  # one record longer than a block: read on
                    rest = buffer
                    continue
                block, rest = buffer[:end], buffer[end:]
                block = self._lines_ended(block)  # (it ends after a "\n": no CRLF split)
                yield block, line
                line += block.count(b"\n")

    def _lines_ended(self, block: bytes) -> bytes:
        """A CSV/TSV block with its lone carriage returns ending lines, as read whole."""
        if self._mac or self.format == "jsonl":
            return block
        return lone_returns_ended(block, self.format)

    def _parse(self, block: bytes, line: int, schema: dict[str, Any] | None) -> Any:
        """A block as a DataFrame, checked as read_table checks a whole file."""
        import polars as pl

        try:
            if self.format == "jsonl":
                return pl.read_ndjson(io.BytesIO(block), schema=schema, infer_schema_length=None)
            frame = pl.read_csv(
                io.BytesIO(block),
                separator=self.separator,
                quote_char=None if self.format == "tsv" else '"',
                has_header=False,
                new_columns=None if schema is not None else self.columns,
                schema=schema,
                null_values=list(self.missing) or None,
                infer_schema_length=None,
                decimal_comma=self._decimal_comma,
            )
        except pl.exceptions.PolarsError as exc:
            raise self._diagnose(block, line, exc) from None
        if schema is None and self.format == "csv":
            # every block is parsed once without a schema (the pass that infers the types)
            check_swallowed_rows(
                block, frame, self.label, self.separator, header=False, missing=self.missing,
                first_line=line,
            )  # fmt: skip
        # A short row reads as nulls at its end, and a blank line as a row of nulls (polars
        # pads them): when the last column has nulls the block's rows are checked one by one.
        last_nulls = frame.width and frame.get_column(frame.columns[-1]).null_count()
        if last_nulls:
            blank = self._check_block(block, line)
            if blank:  # (the block's rows are the records after the file's first one)
                frame = blank.dropped(frame, header=True)
        return frame

    def _check_block(self, block: bytes, line: int, quotes: bool = False) -> BlankLines:
        """Blank lines in a CSV/TSV block; raises at a ragged row, naming its line (and with
        ``quotes`` at a quote inside a field not quoted)."""
        if self.format not in ("csv", "tsv"):
            return BlankLines()
        first = self._checked_first or self._first
        text = _decode(first, self.label) + _decode(block, self.label, line - 1)
        return check_rows(
            text,
            self.label,
            self.format,
            self.header,
            self.separator,
            line_offset=line - 1 - first.count(b"\n"),  # (a header's line is 1 + blanks)
            quotes=quotes,
        )[1]

    def _diagnose(self, block: bytes, line: int, exc: BaseException) -> ReadError:
        """The ReadError for a block polars refused: the line at fault when one is."""
        if self.format in ("csv", "tsv"):
            # raises at bad UTF-8, a ragged or malformed row, a stray quote
            self._check_block(block, line, quotes=True)
        else:
            text = _decode(block, self.label, line - 1)
            check_json_lines(text.splitlines(), self.label, first_line=line)
            return ReadError(
                f"{self.label}: cannot be read as JSON lines ({_first_line(exc)}); give each "
                "key values of one type",
                path=self.label,
            )
        return ReadError(
            f"{self.label}: cannot be read as {self.format.upper()} ({_first_line(exc)})",
            path=self.label,
        )


def _widen(known: Any, found: Any) -> Any:
    """The type of a column seen as ``known`` in earlier blocks and ``found`` in this one
    (None: no value yet), as polars infers it from all the values at once."""
    if known is None or found is None or known == found:
        return found if known is None else known
    import polars as pl

    if {known, found} <= {pl.Int64, pl.Float64}:
        return pl.Float64
    return pl.String


class DocumentStream:
    """The documents of a folder with one sub-folder per class, ``batch_size`` at a time.

    Checks the folder as :func:`~bayeskit.io.documents.read_class_folders` does (it exists,
    has at least two class folders, none empty); ``kind`` ("text" or "email") is decided from
    a sample of the files unless given.

    Attributes
    ----------
    classes : the class folder names
    kind : "text" or "email"
    size : total bytes of the files
    n_files : number of files
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        batch_size: int = 10_000,
        kind: str | None = None,
    ):
        self.label = os.fspath(root)
        self.root = Path(root)
        self.batch_size = _check_batch_size(batch_size)
        if not self.root.exists():
            raise ReadError(
                f"{self.label}: no such file or folder; check the path", path=self.label
            )
        if not self.root.is_dir():
            raise ReadError(f"{self.label}: not a folder", path=self.label)
        folders = class_folders(self.root)
        if not folders:
            raise ReadError(
                f"{self.label}: no sub-folder; training on a folder needs one sub-folder per "
                "class (e.g. ham/ and spam/) holding that class's documents",
                path=self.label,
            )
        self.files: list[tuple[Path, str]] = []
        for sub in folders:
            found = list_files(sub)
            if not found:
                raise ReadError(
                    f"{self.label}: the class folder {sub.name!r} holds no file; put its "
                    "documents there or remove it",
                    path=self.label,
                )
            self.files += [(path, sub.name) for path in found]
        if len(folders) < 2:
            raise ReadError(
                f"{self.label}: one class folder ({folders[0].name!r}); a classifier needs "
                "examples of at least two classes, one sub-folder each",
                path=self.label,
            )
        self.classes = [sub.name for sub in folders]
        self.kind = _detect_kind([path for path, _ in self.files]) if kind is None else kind
        self.n_files = len(self.files)
        self.size = sum(path.stat().st_size for path, _ in self.files)

    def __iter__(self) -> Iterator[Batch]:
        for files in self.file_batches():
            yield files.read()

    def file_batches(self) -> Iterator[FileBatch]:
        """The batches unread: about ``batch_size`` documents' files each (an mbox file is
        counted as one document here and read whole into its batch)."""
        for start in range(0, len(self.files), self.batch_size):
            chunk = self.files[start : start + self.batch_size]
            yield FileBatch(
                self.root,
                [p for p, _ in chunk],
                [c for _, c in chunk],
                self.kind,
                sum(p.stat().st_size for p, _ in chunk),
            )


@dataclass
class FileBatch:
    """Files to read as one batch (small to send to another process: paths, not text)."""

    root: Path
    paths: list[Path]
    labels: list[str]
    kind: str
    nbytes: int

    def read(self) -> Batch:
        docs: list[Any] = []
        labels: list[str] = []
        for path, label in zip(self.paths, self.labels, strict=True):
            for _, doc in _read_file(path, self.kind, path.relative_to(self.root).as_posix()):
                docs.append(doc)
                labels.append(label)
        return Batch(docs, np.asarray(labels), len(docs), self.nbytes)


def _check_batch_size(batch_size: int) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise ReadError(f"the batch size must be a whole number of rows; got {batch_size!r}")
    if batch_size < 1:
        raise ReadError(f"the batch size must be at least 1; got {batch_size}")
    return int(batch_size)
