"""``bayeskit train DATA --unlabeled SOURCE``: semi-supervised EM over documents.

SOURCE is read as documents are where DATA has them: a folder (every file under it one
document, an mbox file one per message, as the class folders of DATA are read), a table's
text column (as a table's is), an mbox or e-mail file, or any other text file one document per
line (as ``predict`` reads lines from standard input). :class:`Unlabelled` decides which from
the file before reading it.

With a folder of class folders for DATA, EM runs by rounds
(:mod:`bayeskit.semi_supervised._rounds`): a pass over the labelled and the unlabelled
documents, read again a batch at a time, per EM iteration; the batches are summarized here or
on a cluster (``--workers``/``--scheduler``) and added in batch order, so both write the same
model file."""

from __future__ import annotations

import codecs
import csv
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..io.documents import (
    decode_text,
    is_email,
    is_mbox,
    list_files,
    mbox_texts,
    read_documents,
)
from ..io.formats import TABLE_EXTENSIONS
from ..io.readers import ReadError, list_names, read_table, sniff_separator
from ..io.stream import Batch, FileBatch
from .data import describe_counts, describe_data, looks_like_text, text_of
from .output import note, progress
from .streaming import TrainingData, settle_text_model, train_rounds

#: What --unlabeled reads (its help says it too, and the guide).
ACCEPTED = (
    "a folder of documents (one per file; an mbox file, one per message), a table (.csv, "
    ".tsv, .jsonl, .parquet) with a column of text, an mbox or e-mail file, or a text file "
    "with one document per line"
)

#: Bytes copied from standard input at a time.
_COPY_BLOCK = 1 << 20


@contextmanager
def unlabelled_input(source: str | None, data: str) -> Iterator[str | None]:
    """``--unlabeled`` SOURCE as a path to read: standard input (``-``) copied first to a file
    in a private temporary folder (removed after), since EM reads the documents again at
    every iteration and a pipe is read once; its documents are read as a file's of the same
    bytes (no name: an mbox, an e-mail, a CSV whose header names DATA's text column, else one
    document a line)."""
    if source != "-":
        yield source
        return
    if data == "-":
        raise ReadError(
            "standard input (-) can be DATA or --unlabeled, not both: give one of them as a "
            "file or folder",
            path=source,
        )
    with tempfile.TemporaryDirectory(prefix="bayeskit-unlabeled-") as folder:
        path = Path(folder) / "standard-input"
        with open(path, "wb") as copy:
            shutil.copyfileobj(sys.stdin.buffer, copy, _COPY_BLOCK)
        if _blank(path):
            what = "empty" if path.stat().st_size == 0 else "blank (nothing but white space)"
            raise ReadError(
                f"standard input (--unlabeled -) is {what}; it takes {ACCEPTED}", path=source
            )
        yield str(path)


#: Files of --unlabeled looked at for binary content, and how much of each: enough to tell
#: a folder of documents from a folder of images or archives without reading it all.
_SAMPLED_FILES = 64
_SAMPLED_BYTES = 8192


#: Control bytes (not tab, newlines, form feed or escape) that text holds next to none of.
_CONTROL = bytes([*range(0, 8), *range(14, 27), *range(28, 32), 127])


def looks_binary(sample: bytes) -> bool:
    """Whether the start of a file is binary data rather than text or an e-mail: a NUL byte
    (as git and grep tell binary files), or — text that is not UTF-8 — more than 1 byte in
    20 a control byte (random bytes hold about 1 in 9; latin-1 text, none)."""
    if b"\0" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 4:  # not just a character cut at the sample's end
            controls = len(sample) - len(sample.translate(None, _CONTROL))
            return controls > len(sample) / 20
    return False


def check_unlabelled(source: str, data: str) -> None:
    """Refuse an ``--unlabeled`` SOURCE that cannot be unlabelled documents for DATA: missing,
    DATA itself (or a folder holding it, or inside it: its documents are labelled), an empty
    folder, file or folder of empty files, or binary files only (:func:`looks_binary` in their
    first 8 KiB); a note names binary files among text ones. Called before any data is read."""
    path = Path(source)
    if not path.exists():
        raise ReadError(f"{source}: no such file or folder; check the path", path=source)
    unlabelled, labelled = path.resolve(), Path(data).resolve()
    if unlabelled == labelled or labelled in unlabelled.parents:
        where = "DATA itself" if unlabelled == labelled else "inside DATA"
        raise ReadError(
            f"{source}: --unlabeled is {where} ({data}): its documents are labelled ones; "
            "give a file or folder of documents without labels",
            path=source,
        )
    if unlabelled in labelled.parents:
        raise ReadError(
            f"{source}: --unlabeled holds DATA ({data}): its labelled documents would be read "
            "again as unlabelled ones; give a file or folder of documents without labels",
            path=source,
        )
    files = list_files(path) if path.is_dir() else [path]
    if not files:
        raise ReadError(
            f"{source}: the folder holds no file; --unlabeled takes {ACCEPTED}", path=source
        )
    if path.is_dir() and all(_blank(file) for file in files):  # (stops at the first not)
        empty = all(file.stat().st_size == 0 for file in files)
        what = "empty" if empty else "empty or blank (nothing but white space)"
        raise ReadError(
            f"{source}: every file in the folder is {what}; --unlabeled takes {ACCEPTED}",
            path=source,
        )
    if not path.is_dir() and _blank(path):
        what = "empty" if path.stat().st_size == 0 else "blank (nothing but white space)"
        raise ReadError(f"{source}: the file is {what}; --unlabeled takes {ACCEPTED}", path=source)
    if path.suffix.lower() in TABLE_EXTENSIONS and not path.is_dir():
        return  # a table, Parquet's binary columns included: read_table checks it
    sampled = files[:: max(len(files) // _SAMPLED_FILES, 1)][:_SAMPLED_FILES]
    binary = []
    for file in sampled:
        with open(file, "rb") as f:
            if looks_binary(f.read(_SAMPLED_BYTES)):
                binary.append(file)
    if binary and len(binary) == len(sampled):
        where = str(binary[0]) if path.is_dir() else source
        raise ReadError(
            f"{where}: --unlabeled reads text or e-mail documents; this holds binary data (a "
            f"NUL byte, or control bytes in text that is not UTF-8, in its first "
            f"{_SAMPLED_BYTES} bytes"
            + (f", as in all {len(sampled)} files looked at" if path.is_dir() else "")
            + ")",
            path=source,
        )
    if binary:
        note(
            f"{source}: {len(binary)} of the {len(sampled)} files looked at hold binary data "
            f"(e.g. {binary[0]}); they are read as text"
        )


#: Bytes read at a time from a file of lines, and looked at to tell what a file holds.
_BLOCK = 1 << 20


def _blank(path: Path) -> bool:
    """Whether a file holds nothing but white space (read until it holds something else)."""
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            if block.strip():
                return False
    return True


@dataclass
class Unlabelled:
    """How the documents of ``--unlabeled`` SOURCE are read, decided from its name and first
    bytes (:meth:`of`), before any is read.

    ``form``: ``files`` (a folder, an e-mail, an mbox of e-mails for e-mail DATA: read as the
    files of DATA's class folders are), ``mbox`` (an mbox for text DATA: each message's text),
    ``table`` (a table's text column) or ``lines`` (any other file: one document a line)."""

    source: str
    form: str
    kind: str  # DATA's: "text" or "email"
    format: str | None = None  # a table's
    column: str | None = None  # a table's text column: DATA's, when DATA is a table
    target: str | None = None  # DATA's target, not read from the table
    _texts: list[str] | None = field(default=None, repr=False)

    @classmethod
    def of(
        cls, source: str, kind: str, column: str | None = None, target: str | None = None
    ) -> Unlabelled:
        path = Path(source)
        if path.is_dir():
            return cls(source, "files", kind)
        suffix = path.suffix.lower()
        if suffix in TABLE_EXTENSIONS:
            return cls(source, "table", kind, TABLE_EXTENSIONS[suffix], column, target)
        with open(path, "rb") as f:
            head = f.read(1 << 24)  # as much as is_mbox looks at
        if is_mbox(path, head):
            return cls(source, "files" if kind == "email" else "mbox", kind)
        if is_email(path, head[:4096]):
            return cls(source, "files", kind)  # one message, read as DATA reads one
        if column is not None and _header_names(head, column):
            # a CSV whose first line names DATA's text column, without a table's extension
            return cls(source, "table", kind, "csv", column, target)
        return cls(source, "lines", kind)

    def batches(self, batch_size: int) -> Iterator[Batch | FileBatch]:
        """The documents, about ``batch_size`` a batch, each marked unlabelled (None): the
        files of a folder unread (read where the batch is learnt from), the others read here;
        refuses a source without any."""
        if self.form == "files":
            yield from _file_batches(self.source, self.kind, batch_size)
            return
        batch: list[Any] = []
        nbytes, found = 0, False
        for doc in self._documents():
            batch.append(doc)
            nbytes += len(doc)
            if len(batch) == batch_size:
                yield _unlabelled_batch(batch, nbytes)
                batch, nbytes, found = [], 0, True
        if batch:
            yield _unlabelled_batch(batch, nbytes)
        elif not found:
            raise self._nothing()

    def read(self) -> list[Any]:
        """Every document, in memory (the labelled ones are too, from a table)."""
        if self.form == "files":
            with progress("reading unlabelled files", None) as update:
                return list(read_documents(self.source, kind=self.kind, progress=update).docs)
        docs = list(self._documents())
        if not docs:
            raise self._nothing()
        return docs

    def describe(self, n: int) -> str:
        """``30 documents, one per line`` (or texts of a column, messages, documents)."""
        if self.form == "table":
            return f"{_counted(n, 'text')} (column {self.column!r})"
        if self.form == "lines":
            return f"{_counted(n, 'document')}, one per line"
        if self.form == "mbox":
            return _counted(n, "message")
        return _counted(n, "e-mail" if self.kind == "email" else "document")

    def _nothing(self) -> ReadError:
        if self.form == "table":
            why = f"its column {self.column!r} holds no text"
        elif self.form == "mbox":
            why = "the mbox holds no message"
        else:
            why = "every line is blank"
        return ReadError(f"{self.source}: no document to learn from: {why}", path=self.source)

    def _documents(self) -> Iterator[Any]:
        if self.form == "lines":
            for line in _lines(Path(self.source)):
                if line.strip():
                    yield decode_text(line)
        elif self.form == "mbox":
            yield from mbox_texts(self.source)
        else:
            if self._texts is None:  # read once, then kept for every EM iteration
                self._texts = self._table_texts()
            yield from self._texts

    def _table_texts(self) -> list[str]:
        text_columns = () if self.column is None else (self.column,)
        frame = read_table(self.source, format=self.format, text_columns=text_columns)
        column = self._text_column(frame)
        if self.target is not None and self.target in frame.columns and self.target != column:
            note(
                f"{self.source}: column {self.target!r} (DATA's labels) is not read: its rows "
                "are learnt from as unlabelled"
            )
        self.column = column
        return [text for text in text_of(frame.get_column(column)) if text.strip()]

    def _text_column(self, frame: Any) -> str:
        """DATA's text column, else the only column or the one of free text."""
        if self.column is not None and self.column in frame.columns:
            return self.column
        if frame.width == 1:
            return str(frame.columns[0])
        wordy = [c for c in frame.columns if looks_like_text(frame.get_column(c))]
        if len(wordy) == 1:
            return str(wordy[0])
        named = "" if self.column is None else f"name it {self.column!r}, as in DATA, or "
        found = (
            f"{len(wordy)} columns hold free text ({list_names(wordy)})"
            if wordy
            else "none of its columns holds free text"
        )
        raise ReadError(
            f"{self.source}: which column holds the unlabelled texts? {found}; {named}keep "
            f"only that one (the columns are: {list_names(frame.columns)})",
            path=self.source,
        )


def _counted(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _unlabelled_batch(docs: list[Any], nbytes: int) -> Batch:
    return Batch(docs, np.full(len(docs), None, dtype=object), len(docs), nbytes)


def _header_names(head: bytes, column: str) -> bool:
    """Whether the first line of a file is a CSV header naming ``column``."""
    line = head.removeprefix(codecs.BOM_UTF8).split(b"\n", 1)[0]
    text = decode_text(line).rstrip("\r")
    try:
        fields = next(csv.reader([text], delimiter=sniff_separator(head)), [])
    except csv.Error:
        return False
    return column in (f.strip() for f in fields)


def _lines(path: Path) -> Iterator[bytes]:
    """The lines of a file (ended by a line feed, a carriage return and line feed, or a lone
    carriage return, as classic Mac OS writes them), read a block at a time."""
    rest = b""
    with open(path, "rb") as f:
        first = True
        while block := f.read(_BLOCK):
            if first:
                block, first = block.removeprefix(codecs.BOM_UTF8), False
            lines = (rest + block).splitlines(keepends=True)
            # the last line may go on in the next block (a "\r" there may be half of "\r\n")
            rest = lines.pop() if lines and not lines[-1].endswith(b"\n") else b""
            for line in lines:
                yield line.rstrip(b"\r\n")
    if rest:
        yield rest.rstrip(b"\r\n")


def _file_batches(source: str, kind: str, batch_size: int) -> Iterator[FileBatch]:
    """The files of a folder (every file under it) or one file, unread, about ``batch_size``
    files a batch."""
    path = Path(source)
    files, root = (list_files(path), path) if path.is_dir() else ([path], path.parent)
    for start in range(0, len(files), batch_size):
        chunk = files[start : start + batch_size]
        unlabelled: list[Any] = [None] * len(chunk)
        yield FileBatch(root, chunk, unlabelled, kind, sum(p.stat().st_size for p in chunk))


def train_semi_supervised(
    reopen: Callable[[], TrainingData],
    unlabeled: str,
    batch_size: int,
    choice: str,
    alpha: float | None,
    integers: str | None,
    merges: list[str],
    runner: Any,
) -> tuple[Any, str, str]:
    """(the fitted text model, the labelled data described, the unlabelled documents
    described)."""
    from ..errors import ConvergenceWarning

    kind = reopen().kind
    source = Unlabelled.of(unlabeled, kind)
    next(source.batches(batch_size))  # its checks, before any work
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        trained = train_rounds(
            reopen, choice, alpha, integers, merges, runner=runner,
            unlabelled=lambda: source.batches(batch_size),
        )  # fmt: skip
    for warning in caught:
        note(str(warning.message))
    semi = trained.model
    labelled = trained.rows
    classes, counts = np.unique(semi.transduction_[:labelled], return_counts=True)
    described = describe_data(kind, labelled, None, None, describe_counts(classes, counts))
    extra = source.describe(len(semi.transduction_) - labelled)
    return settle_text_model(semi.estimator_), described, extra
