"""Data for the commands: labelled data for train/evaluate/report, inputs for predict.

Longer than most modules on purpose: train, evaluate, report and predict read files through
the same column rules (target, id, text and ignored columns, missing markers, the reading
options a model file keeps), and one module keeps the four commands from drifting apart.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import typer

from ..io._header_names import ROW_NAMES
from ..io._missing_words import words_in_file
from ..io.documents import Documents, read_class_folders, read_documents
from ..io.readers import (
    TABLE_EXTENSIONS,
    TABLE_FORMATS,
    ReadError,
    header_hint,
    list_names,
    read_bytes,
    read_table,
    table_format,
)
from ..io.target import check_feature_columns, split_target
from .options import FORMATS
from .output import note, progress

_LISTED_CLASSES = 8


@dataclass
class ReadOptions:
    """How to read a table (the shared options)."""

    format: str | None = None
    no_header: bool = False
    columns: str | None = None
    missing: list[str] = field(default_factory=list)
    merge: list[str] = field(default_factory=list)
    separator: str | None = None
    ids: list[str] = field(default_factory=list)  # --id
    keep: list[str] = field(default_factory=list)  # --keep
    detect_ids: bool = True  # False: drop the ``ids`` present, detect none (a test set)
    default_missing: bool = True  # False: --no-default-missing
    #: columns read as text whatever their values look like: a model's string categories
    text_columns: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        format: str | None,
        no_header: bool,
        columns: str | None,
        missing: list[str] | None = None,
        merge: list[str] | None = None,
        separator: str | None = None,
        ids: list[str] | None = None,
        keep: list[str] | None = None,
        *,
        no_default_missing: bool = False,
    ) -> ReadOptions:
        """The options as a command receives them (typer gives None for an absent
        repeatable option)."""
        return cls(
            format,
            no_header,
            columns,
            missing or [],
            merge or [],
            separator,
            ids or [],
            keep or [],
            default_missing=not no_default_missing,
        )

    def reading(self, target: str | None = None, ids: Sequence[str] = ()) -> dict[str, Any]:
        """How the training data was read, for the model file: what ``predict`` needs to
        read new data of the same layout alike (the target column, which it ignores, and the
        row-ID columns left out of the model, ``ids``, which it copies)."""
        return {
            "target": target,
            "ids": [str(c) for c in ids],
            "missing": list(self.missing),
            "default_missing": self.default_missing,
            "separator": self.separator,
            "no_header": self.no_header,
            "columns": self.columns,
        }

    def with_reading(self, stored: dict[str, Any] | None, given_missing: bool) -> ReadOptions:
        """These options completed by those a model file stored (:meth:`reading`): an option
        given on the command line wins; ``--missing`` given replaces the stored markers."""
        if not stored:
            return self
        missing = self.missing if given_missing else list(stored.get("missing") or [])
        return replace(
            self,
            missing=missing,
            default_missing=self.default_missing and bool(stored.get("default_missing", True)),
            separator=self.separator if self.separator is not None else stored.get("separator"),
            no_header=self.no_header or bool(stored.get("no_header", False)),
            columns=self.columns if self.columns is not None else stored.get("columns"),
        )

    def table_kwargs(self) -> dict[str, Any]:
        if self.format is not None and self.format not in FORMATS:
            raise typer.BadParameter(
                f"{self.format!r}; choose one of: {', '.join(FORMATS)}", param_hint="--format"
            )
        separator = {"\\t": "\t", "tab": "\t"}.get(self.separator or "", self.separator)
        if separator is not None and len(separator.encode("utf-8")) != 1:
            raise typer.BadParameter(
                f"{self.separator!r}; the separator must be one character, an ASCII one (one "
                "byte), e.g. ',' ';' '|' or tab",
                param_hint="--separator",
            )
        names = None
        if self.columns is not None:
            names = [c.strip() for c in self.columns.split(",")]
        fmt = None if self.format in (None, "folders") else self.format
        return {
            "format": fmt,
            "header": not self.no_header,
            "columns": names,
            "missing": tuple(self.missing),
            "separator": separator,
            "default_missing": self.default_missing,
            "text_columns": self.text_columns,
        }


@dataclass
class Labelled:
    """Training data: a feature table, or documents, with their labels."""

    source: str
    kind: str  # "table", "text" or "email"
    X: Any  # polars DataFrame (table) or list of documents
    y: np.ndarray
    text_column: str | None = None
    names: list[str] | None = None  # documents: where each came from
    id_columns: list[str] = field(default_factory=list)  # row IDs left out of X

    @property
    def n_rows(self) -> int:
        return len(self.y)

    def subset(self, rows: np.ndarray) -> Any:
        """The rows ``rows`` of X."""
        if self.kind == "table":
            return self.X[rows]
        return [self.X[i] for i in rows]

    def describe(self) -> str:
        width = self.X.width if self.kind == "table" else None
        return describe_data(
            self.kind, self.n_rows, width, self.text_column, describe_classes(self.y)
        )


def describe_data(
    kind: str, n_rows: int, width: int | None, text_column: str | None, per_class: str
) -> str:
    """``8124 rows × 22 columns; classes: e 4208, p 3916`` (or texts, documents, e-mails)."""
    if kind == "table":
        what = f"{n_rows} rows × {width} columns"
    elif text_column is not None:
        what = f"{n_rows} texts (column {text_column!r})"
    else:
        what = f"{n_rows} {'e-mails' if kind == 'email' else 'documents'}"
    return f"{what}; {per_class}"


def describe_classes(y: np.ndarray) -> str:
    """``classes: ham 4827, spam 747``; for many classes, how many and their sizes."""
    return describe_counts(*np.unique(y, return_counts=True))


def describe_counts(classes: np.ndarray, counts: np.ndarray) -> str:
    """:func:`describe_classes` from the classes and their numbers of rows."""
    if len(classes) > _LISTED_CLASSES:
        return f"{len(classes)} classes ({counts.min()} to {counts.max()} each)"
    pairs = zip(classes.tolist(), counts.tolist(), strict=True)
    return "classes: " + ", ".join(f"{c} {n}" for c, n in pairs)


def _is_folder(path: str, options: ReadOptions) -> bool:
    if options.format == "folders":
        return True
    return options.format is None and Path(path).is_dir()


def looks_like_text(column: Any) -> bool:
    """A string column of free text: values of three or more words on average, mostly
    distinct (not a categorical column such as a colour or a yes/no)."""
    import polars as pl

    if column.dtype != pl.String:
        return False
    values = column.drop_nulls()
    if len(values) == 0:
        return False
    words = values.str.count_matches(r"\s+").mean() + 1
    return bool(words >= 3 and values.n_unique() >= 0.5 * len(values))


def text_of(column: Any) -> list[str]:
    """The texts of a column, missing ones as empty text."""
    import polars as pl

    return list(column.cast(pl.String).fill_null("").to_list())


def load_labelled(
    data: str, target: str | None, text: str | None, options: ReadOptions
) -> Labelled:
    """Read DATA for training: a table with ``target`` or a folder of class folders."""
    labelled = _load_labelled(data, target, text, options)
    if options.merge:
        labelled.y = merge_classes(labelled.y, options.merge, data)
    if target is not None:
        classes = np.unique(labelled.y)
        note_quantity_as_target(classes, labelled.n_rows, target, data)
    return labelled


def note_quantity_as_target(classes: np.ndarray, n_rows: int, target: str, source: str) -> None:
    """A note when most rows have a class of their own: a target of distinct numbers (a
    price, an ID) taken for class labels, which a classifier learns nothing from."""
    n_classes = len(classes)
    if n_rows < 20 or n_classes < max(n_rows // 2, 3):
        return
    numbers = " (numbers)" if classes.dtype.kind in "iuf" else ""
    note(
        f"{source}: the target column {target!r} holds {n_classes:,} different values"
        f"{numbers} for {n_rows:,} rows; each is a class, learned from "
        f"{n_rows / n_classes:.1f} rows on average. If it "
        "is a quantity to predict, that is regression, which bayeskit does not do; if its "
        "values group into classes, merge them with --merge or bin them first"
    )


def merge_classes(y: np.ndarray, merges: list[str], source: str) -> np.ndarray:
    """The labels with each ``NEW=OLD1,OLD2`` applied."""
    known = {str(c): c for c in np.unique(y).tolist()}
    mapping: dict[str, str] = {}
    for spec in merges:
        new, names = parse_merge(spec)
        absent = [old for old in names if old not in known]
        if len(absent) == len(names):
            raise ReadError(
                f"{source}: --merge {spec}: no class {absent[0]!r}; the classes are: "
                f"{list_names(list(known))}",
                path=source,
            )
        if absent:  # a test set may lack some of the training classes
            note(f"{source} has no class {list_names([repr(a) for a in absent])} (--merge)")
        mapping.update(dict.fromkeys(names, new))
    out = np.asarray([mapping.get(str(label), str(label)) for label in y.tolist()])
    if len(np.unique(out)) < 2:
        raise ReadError(
            f"{source}: after --merge every row has the class {out.tolist()[0]!r}; a "
            "classifier needs at least two classes",
            path=source,
        )
    return out


def parse_merge(spec: str) -> tuple[str, list[str]]:
    """``NEW=OLD1,OLD2`` as (NEW, [OLD1, OLD2]); a usage error when it is not that."""
    new, sep, olds = spec.partition("=")
    names = [o.strip() for o in olds.split(",") if o.strip()]
    if not sep or not new.strip() or not names:
        raise typer.BadParameter(
            f"{spec!r}; write NEW=OLD1,OLD2 (e.g. ham=easy_ham,hard_ham)", param_hint="--merge"
        )
    return new.strip(), names


def refuse_standard_input(data: str, option: str = "DATA") -> None:
    """``-`` names standard input for ``predict``, ``explain`` and ``--unlabeled``; the data a
    model is trained or tested on is a file or folder (it is read more than once)."""
    if data == "-":
        raise ReadError(
            f"-: {option} is read from a file or folder, not from standard input (it is read "
            "more than once); save it to a file first (… > data.csv) and name that file",
            path=data,
        )


def _load_labelled(
    data: str, target: str | None, text: str | None, options: ReadOptions
) -> Labelled:
    refuse_standard_input(data)
    if _is_folder(data, options):
        if target is not None:
            note(f"{data} is a folder: the classes are its sub-folders; --target is not used")
        with progress("reading files", None, "files") as update:
            docs = read_class_folders(data, progress=update)
        assert docs.labels is not None
        return Labelled(data, docs.kind, docs.docs, docs.labels, names=docs.names)
    kwargs = options.table_kwargs()
    fmt = table_format(data, kwargs["format"])
    delimited = fmt in ("csv", "tsv")
    # a CSV/TSV's bytes are kept for the note on markers read as missing (note_missing_words)
    raw = read_bytes(Path(data), data) if delimited else None
    frame = read_table(data if raw is None else raw, name=data, **kwargs | {"format": fmt})
    if target is None:
        raise missing_target(data, list(frame.columns))
    if raw is not None and target in frame.columns:
        frame = _labels_as_written(frame, target, raw, data, kwargs | {"format": fmt})
    if target not in frame.columns and not options.no_header and options.columns is None:
        raise ReadError(
            f"{data}: no column {target!r}; the columns are: {list_names(frame.columns)} "
            f"({header_hint(frame.columns)})",
            path=data,
            column=target,
        )
    features, y = split_target(frame, target, source=data)
    features, ids, column = choose_columns(features, text, options, data)
    if column is not None:
        labelled = Labelled(data, "text", text_of(features.get_column(column)), y, column)
    else:
        labelled = Labelled(data, "table", features, y)
        found = lambda names: words_in_file(raw, data, frame, names, **kwargs)  # noqa: E731
        note_missing_words(delimited, features, options, found)
    labelled.id_columns = ids
    return labelled


def _labels_as_written(frame: Any, target: str, raw: bytes, data: str, kwargs: Any) -> Any:
    """``frame`` with its target of booleans or numbers read as the text of its fields when
    reading them as values would merge or rewrite labels (:mod:`bayeskit.io._label_text`)."""
    import polars as pl

    from ..io._label_text import label_texts, labels_kept_as_text

    dtype = frame.schema[target]
    if not (dtype == pl.Boolean or dtype.is_numeric()):
        return frame
    texts = kwargs | {"text_columns": (*kwargs["text_columns"], target)}
    written = read_table(raw, name=data, **texts).get_column(target)
    if not labels_kept_as_text(dtype, label_texts(written)):
        return frame
    return frame.with_columns(written)


#: Column names that usually hold the class labels (compared in lower case).
_LABEL_NAMES = ("class", "label", "labels", "target", "y", "category", "outcome")


def missing_target(source: str, columns: list[str]) -> ReadError:
    """The error for a table given without ``--target``: it suggests the likely label column
    (one named like labels, else the last column, where most datasets keep it)."""
    import shlex

    lowered = {str(c).strip().lower(): str(c) for c in columns}
    named = next((lowered[n] for n in _LABEL_NAMES if n in lowered), None)
    likely = named if named is not None else str(columns[-1])
    why = "named like class labels" if named is not None else "the last column"
    return ReadError(
        f"{source}: name the column holding the class labels with --target, for example "
        f"--target {shlex.quote(likely)} ({why}; the table has {len(columns)} columns)",
        path=source,
    )


def choose_columns(
    features: Any, text: str | None, options: ReadOptions, source: str
) -> tuple[Any, list[str], str | None]:
    """What a model learns from the feature columns of a training table (the whole table,
    or its first batch when it is read in batches): ``(features without the row-ID columns,
    those ID columns, the text column or None for a table of features)``, with a note for
    each choice made for the user."""
    # with --text every other column is left out anyway: only --id ones are named as IDs
    ids = _id_columns(features, replace(options, detect_ids=False) if text else options, source)
    if ids:
        features = features.drop(ids)
        if features.width == 0:
            raise ReadError(
                f"{source}: no column is left besides the target and the row IDs "
                f"({list_names(ids)}); pass --keep COLUMN to use one as a feature",
                path=source,
            )
    if text is not None:
        require_column(features, text, source, "--text")
        others = [c for c in features.columns if c != text]
        if others:
            note(f"--text {text}: the other columns are not used ({list_names(others, 10)})")
        return features, ids, text
    if features.width == 1 and looks_like_text(features.to_series(0)):
        return features, ids, str(features.columns[0])
    check_feature_columns(features, source)
    wordy = [c for c in features.columns if looks_like_text(features.get_column(c))]
    if wordy:
        note(
            f"column {wordy[0]!r} looks like free text but is used as a category; pass "
            f"--text {wordy[0]} to classify on its words"
        )
    for name in features.columns:
        written = written_numbers(features.get_column(name))
        if written is not None:
            fix = "write them as plain numbers to use them as such"
            if written[0] == "numbers with decimal commas":
                fix = "write decimal points, or separate the fields with ';' (as R's write.csv2)"
            note(
                f"column {name!r} holds {written[0]} written as text ({written[1]}): each value "
                f"is a category, not a number; {fix}"
            )
        stray = stray_markers(features.get_column(name))
        if stray is not None:
            markers, rows, first = stray
            said = list_names([repr(m) for m in markers])
            option = " ".join(f"--missing {shlex.quote(m)}" for m in markers)
            note(
                f"column {name!r} holds numbers and {said} ({rows} row{'s' * (rows > 1)}, the "
                f"first data row {first}): read as text, each value a category, not a number; "
                f"if {said} marks a missing value, pass {option}"
            )
    return features, ids, None


_NUMBER = r"^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$"
#: At most this many distinct words among the numbers of a column to name them as markers.
_MARKERS = 3


def stray_markers(column: Any) -> tuple[list[str], int, int] | None:
    """(the few words, their rows, the first one's data row counted from 1) when a text
    column holds numbers but for a few distinct words in fewer rows — a missing-value marker
    not named, such as Weka's ``?`` — which make every value a category; else None."""
    import polars as pl

    if column.dtype != pl.String:
        return None
    numeric = column.str.contains(_NUMBER)
    words = column.filter(numeric.not_() & column.is_not_null())
    distinct = words.unique(maintain_order=True).to_list()
    if not len(words) or len(distinct) > _MARKERS or len(words) >= int(numeric.sum() or 0):
        return None
    first = int(numeric.fill_null(True).not_().arg_true()[0]) + 1
    return [str(w) for w in distinct], len(words), first


def note_missing_words(delimited: bool, features: Any, options: ReadOptions, words: Any) -> None:
    """A note naming the columns of text categories of a CSV/TSV file (``delimited``) in which a
    usual missing marker written as a word (``NA``, ``null``, ``N/A``…) was read as missing:
    it may be one of the categories (R's ``read.csv`` reads only ``NA`` as missing).
    ``words``: the markers written as words that the reading took for missing values, by
    column (a mapping), or a function of the columns asked about that finds them (called only
    when a column of text has missing values); either comes from the reading itself, which
    does not read the file again. (JSON lines and Parquet have typed nulls.)"""
    import polars as pl

    if not (delimited and options.default_missing):
        return
    columns = [
        str(c) for c, t in features.schema.items() if t == pl.String and features[c].null_count()
    ]
    if not columns:
        return
    found = words(columns) if callable(words) else words
    # one note per spelling: an R file's NA in six columns is one fact, not six
    named: dict[str, list[str]] = {}
    for name in columns:
        written = sorted(found.get(name, ()))
        if written:
            named.setdefault(list_names([repr(w) for w in written]), []).append(name)
    for spelled, names in named.items():
        where = (
            f"column {names[0]!r}, which holds categories"
            if len(names) == 1
            else f"{len(names)} columns of categories ({list_names([repr(n) for n in names])})"
        )
        note(
            f"fields written {spelled} were read as missing in {where} (a usual missing "
            "marker); if that is one of the categories, pass --no-default-missing (only empty "
            "fields and --missing values are then missing)"
        )


def written_numbers(column: Any) -> tuple[str, str] | None:
    """(what, an example) when every value of a text column is a number written for people
    to read — a percentage (12%), a number with thousands separators (1,234) or a decimal
    comma (5,1) — which is read as text, so each value becomes a category, or a whole number
    with leading zeros (02134, a code the reader keeps as text); else None."""
    import polars as pl

    if column.dtype != pl.String:
        return None
    values = column.drop_nulls()
    if len(values) == 0:
        return None
    example = str(values[0])
    if bool(values.str.contains(r"^\s*[-+]?\d+(?:\.\d+)?\s*%\s*$").all()):
        return "percentages", example
    zeros = values.str.contains(r"^\s*[-+]?0\d")
    if bool(values.str.contains(r"^\s*[-+]?\d+\s*$").all()) and bool(zeros.any()):
        return "whole numbers with leading zeros", str(values.filter(zeros)[0])
    separated = values.str.contains(r"^\s*[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*$")
    plain = values.str.contains(r"^\s*[-+]?\d+(?:\.\d+)?\s*$")
    if bool((separated | plain).all()) and bool(separated.any()):
        return "numbers with thousands separators", str(values.filter(separated)[0])
    # a spreadsheet's decimal commas in a comma-separated file ("5,1" quoted): read as a ';'
    # file's only (there the separator leaves no doubt which comma is the decimal one)
    decimal = values.str.contains(r"^\s*[-+]?\d*,\d+\s*$")
    whole = values.str.contains(r"^\s*[-+]?\d+\s*$")
    if bool((decimal | whole).all()) and bool(decimal.any()):
        return "numbers with decimal commas", str(values.filter(decimal)[0])
    return None


# ------------------------------------------------------------------ row IDs
_ID_NAMES = {"id", "uuid", "guid", "rowid", "row_id", "index"}
_ID_SUFFIX = re.compile(r"[_\-\s.][iI][dD]$|[a-z0-9](?:Id|ID)$")
_MIN_ROWS_FOR_UNIQUE_ID = 20


def id_reason(name: str, column: Any) -> str | None:
    """Why ``column`` looks like a row ID rather than a feature, or None: its name (``id``,
    ``customer_id``, ``PassengerId``), or — from 20 rows — a different word in every row, or
    whole numbers increasing down the file."""
    import polars as pl

    if name == ROW_NAMES:
        return "the header's unnamed first column: row names, as R and pandas write them"
    if name.strip().lower() in _ID_NAMES or _ID_SUFFIX.search(name.strip()):
        return "named like an ID"
    n = len(column)
    if n < _MIN_ROWS_FOR_UNIQUE_ID or column.null_count() or column.n_unique() != n:
        return None
    if column.dtype == pl.String and not looks_like_text(column):
        # numbers but for a marker (a '?' not named missing), or written for people (5,1;
        # 12%), are a measurement, not an ID
        if stray_markers(column) is None and written_numbers(column) is None:
            return "a different value in every row"
        return None
    if column.dtype.is_integer() and bool((column.diff().drop_nulls() > 0).all()):
        return "whole numbers increasing down the file"
    return None


def _id_columns(features: Any, options: ReadOptions, source: str) -> list[str]:
    """The row-ID columns of a training table: ``--id`` ones, and detected ones (with a note)
    unless ``--keep`` keeps them."""
    if not options.detect_ids:
        return [c for c in options.ids if c in features.columns]
    for column in [*options.ids, *options.keep]:
        require_column(features, column, source, "--id" if column in options.ids else "--keep")
    found = list(options.ids)
    for name in features.columns:
        if name in found or name in options.keep:
            continue
        reason = id_reason(name, features.get_column(name))
        if reason is not None:
            found.append(name)
            note(
                f"column {name!r} looks like a row ID ({reason}): left out of the model "
                f"(--keep {name} uses it as a feature; predict copies it into its output)"
            )
    return found


@dataclass
class Inputs:
    """Rows or documents to classify, and what identifies each in the output."""

    source: str
    X: Any  # polars DataFrame or list of documents
    ids: dict[str, list[Any]]  # output columns copied in front of the predictions
    labels: np.ndarray | None = None  # the true labels, when the input has them


def _stdin_bytes() -> bytes:
    return sys.stdin.buffer.read()


@dataclass(frozen=True)
class RawInput:
    """A table input's bytes, read once, and its format: what :func:`read_inputs_table`
    parses when ``predict`` has looked at its first record before (standard input, a pipe
    or a FIFO cannot be read a second time)."""

    data: bytes
    format: str


def raw_input(data: str, options: ReadOptions) -> RawInput:
    """The bytes of a table input, a file or ``-`` for standard input (CSV unless
    ``--format``, or JSON lines when the first character is ``{``), and its format."""
    kwargs = options.table_kwargs()
    if data == "-":
        raw = _stdin_bytes()
        return RawInput(raw, kwargs["format"] or ("jsonl" if raw.lstrip()[:1] == b"{" else "csv"))
    fmt = table_format(data, kwargs["format"])  # refused before the file is read, as read_table
    return RawInput(read_bytes(Path(data), data), fmt)


def read_inputs_table(data: str, options: ReadOptions, raw: RawInput | None = None) -> Any:
    """A table from a file or, for ``-``, standard input (:func:`raw_input`); from ``raw``
    when the input was read already."""
    if data != "-" and raw is None:
        return read_table(data, **options.table_kwargs())
    raw = raw_input(data, options) if raw is None else raw
    kwargs = options.table_kwargs() | {"format": raw.format}
    return read_table(raw.data, name="<stdin>" if data == "-" else data, **kwargs)


def first_record_width(raw: RawInput, label: str, options: ReadOptions) -> int | None:
    """How many fields the first record of a CSV/TSV input holds (the columns
    :func:`read_table` reads from it without a header), found without parsing the rest; None
    for another format, whose header options change nothing, or blank input (which
    :func:`read_table` refuses)."""
    import codecs

    from ..io.readers import choose_separator, first_record, unix_lines

    head = unix_lines(raw.data).removeprefix(codecs.BOM_UTF8)
    if raw.format not in ("csv", "tsv") or not head.strip():
        return None
    separator = choose_separator(head, label, raw.format, options.table_kwargs()["separator"])
    return len(first_record(head, label, raw.format, separator))


def read_text_inputs(
    data: str,
    options: ReadOptions,
    *,
    email: bool,
    text: str | None,
    id_columns: list[str] | None = None,
    ignore: list[str] | None = None,
    trained_ids: list[str] | None = None,
) -> Inputs:
    """Documents for a text model: a table's text column, a folder or file of documents, or
    standard input (one document per line, or the whole input for an e-mail model). From a
    table, the ``id_columns`` (default: the row IDs training left out, ``trained_ids``, and
    the other columns that look like row IDs) name the rows; ``ignore`` must name columns."""
    kind = "email" if email else "text"
    if data == "-" and options.format is None:
        raw = _stdin_bytes()
        if email:
            from ..text.email import read_message

            return Inputs("<stdin>", [read_message(raw)], {"document": ["<stdin>"]})
        from ..text.analyze import is_raw_email

        if is_raw_email(raw):  # one raw e-mail, as an "auto" model reads it (not its lines)
            return Inputs("<stdin>", [raw], {"document": ["<stdin>"]})
        lines = raw.decode("utf-8", errors="replace").splitlines()
        if not lines:
            raise ReadError("<stdin>: no text to classify; give one text per line")
        return Inputs("<stdin>", lines, {"line": list(range(1, len(lines) + 1))})
    is_table = data == "-" or (options.format in TABLE_FORMATS) or _has_table_suffix(data)
    if is_table:
        frame = read_inputs_table(data, options)
        for option, names in (("--id", id_columns), ("--ignore", ignore)):
            for name in names or []:
                require_column(frame, name, data, option)
        column = pick_text_column(frame, text, data)
        if not id_columns:
            kept = [c for c in trained_ids or [] if c in frame.columns and c != column]
            others = [c for c in frame.columns if c not in (column, *kept, *(ignore or []))]
            id_columns = kept + [c for c in others if id_reason(c, frame.get_column(c))]
        ids = {c: frame.get_column(c).to_list() for c in id_columns}
        return Inputs(data, text_of(frame.get_column(column)), ids)
    with progress("reading files", None, "files") as update:
        docs = read_documents(data, kind=kind, progress=update)
    return _inputs_of(docs, data)


def _inputs_of(docs: Documents, source: str) -> Inputs:
    return Inputs(source, docs.docs, {"document": docs.names}, docs.labels)


def _has_table_suffix(path: str) -> bool:
    return Path(path).suffix.lower() in TABLE_EXTENSIONS and not os.path.isdir(path)


def require_column(frame: Any, column: str, source: str, option: str) -> None:
    """Refuse an ``option`` naming a column ``frame`` lacks, listing the columns it has."""
    if column not in frame.columns:
        raise ReadError(
            f"{source}: no column {column!r} for {option}; the columns are: "
            f"{list_names(frame.columns)}",
            path=source,
            column=column,
        )


def pick_text_column(frame: Any, text: str | None, source: str) -> str:
    """The column a text model reads: ``--text``, the only column, or the one free-text
    column."""
    if text is not None:
        require_column(frame, text, source, "--text")
        return text
    if frame.width == 1:
        return str(frame.columns[0])
    wordy = [c for c in frame.columns if looks_like_text(frame.get_column(c))]
    if len(wordy) == 1:
        return str(wordy[0])
    raise ReadError(
        f"{source}: the model classifies text; name the column holding it with --text (the "
        f"columns are: {list_names(frame.columns)})",
        path=source,
    )
