"""Data for the commands: labelled data for train/evaluate/report, inputs for predict."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..io.documents import Documents, read_class_folders, read_documents
from ..io.readers import (
    TABLE_EXTENSIONS,
    TABLE_FORMATS,
    ReadError,
    check_feature_columns,
    list_names,
    read_table,
    split_target,
)
from .output import note, progress

FORMATS = (*TABLE_FORMATS, "folders")
_LISTED_CLASSES = 8

# ------------------------------------------------------------------ options shared by commands
TargetOpt = Annotated[
    str | None,
    typer.Option(
        "--target", "-t", help="Column holding the class labels (tables; folders need none)."
    ),
]
TextOpt = Annotated[
    str | None,
    typer.Option(
        "--text",
        help="Column of free text: classify with the text pipeline on it (other columns are "
        "ignored). Default: a table whose only feature column is free text uses it.",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", "-f", help=f"Format of DATA: {', '.join(FORMATS)}. Default: from the name."
    ),
]
NoHeaderOpt = Annotated[
    bool,
    typer.Option("--no-header", help="CSV/TSV without a header row: columns column_1, column_2, …"),
]
ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        "--columns",
        help="Comma-separated names for the columns of a CSV/TSV without a header row.",
    ),
]
MissingOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--missing",
        help="A field value meaning 'missing' (repeatable), e.g. --missing '?'. Empty fields "
        "are always missing.",
    ),
]
MergeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--merge",
        help="NEW=OLD1,OLD2: train on class NEW for the labels (or class folders) OLD1 and "
        "OLD2 (repeatable), e.g. --merge ham=easy_ham,hard_ham --merge spam=spam,spam_2.",
    ),
]


@dataclass
class ReadOptions:
    """How to read a table (the shared options)."""

    format: str | None = None
    no_header: bool = False
    columns: str | None = None
    missing: list[str] = field(default_factory=list)
    merge: list[str] = field(default_factory=list)

    def table_kwargs(self) -> dict[str, Any]:
        if self.format is not None and self.format not in FORMATS:
            raise typer.BadParameter(
                f"{self.format!r}; choose one of: {', '.join(FORMATS)}", param_hint="--format"
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
    return labelled


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


def _load_labelled(
    data: str, target: str | None, text: str | None, options: ReadOptions
) -> Labelled:
    if _is_folder(data, options):
        if target is not None:
            note(f"{data} is a folder: the classes are its sub-folders; --target is not used")
        with progress("reading files", None, "files") as update:
            docs = read_class_folders(data, progress=update)
        assert docs.labels is not None
        return Labelled(data, docs.kind, docs.docs, docs.labels, names=docs.names)
    frame = read_table(data, **options.table_kwargs())
    if target is None:
        raise ReadError(
            f"{data}: name the column holding the class labels with --target; the columns "
            f"are: {list_names(frame.columns)}",
            path=data,
        )
    if target not in frame.columns and not options.no_header and options.columns is None:
        raise ReadError(
            f"{data}: no column {target!r}; the columns are: {list_names(frame.columns)} (if "
            "the first line holds data, not names, pass --no-header or --columns)",
            path=data,
            column=target,
        )
    features, y = split_target(frame, target, source=data)
    if text is not None:
        require_column(features, text, data, "--text")
        others = [c for c in features.columns if c != text]
        if others:
            note(f"--text {text}: the other columns are not used ({list_names(others, 10)})")
        return Labelled(data, "text", text_of(features.get_column(text)), y, text_column=text)
    if features.width == 1 and looks_like_text(features.to_series(0)):
        column = features.columns[0]
        return Labelled(data, "text", text_of(features.get_column(column)), y, column)
    check_feature_columns(features, data)
    wordy = [c for c in features.columns if looks_like_text(features.get_column(c))]
    if wordy:
        note(
            f"column {wordy[0]!r} looks like free text but is used as a category; pass "
            f"--text {wordy[0]} to classify on its words"
        )
    return Labelled(data, "table", features, y)


@dataclass
class Inputs:
    """Rows or documents to classify, and what identifies each in the output."""

    source: str
    X: Any  # polars DataFrame or list of documents
    ids: dict[str, list[Any]]  # output columns copied in front of the predictions
    labels: np.ndarray | None = None  # the true labels, when the input has them


def _stdin_bytes() -> bytes:
    return sys.stdin.buffer.read()


def read_inputs_table(data: str, options: ReadOptions) -> Any:
    """A table from a file or, for ``-``, standard input (CSV unless ``--format``, or JSON
    lines when the first character is ``{``)."""
    if data != "-":
        return read_table(data, **options.table_kwargs())
    raw = _stdin_bytes()
    kwargs = options.table_kwargs()
    if kwargs["format"] is None:
        kwargs["format"] = "jsonl" if raw.lstrip()[:1] == b"{" else "csv"
    return read_table(raw, name="<stdin>", **kwargs)


def read_text_inputs(data: str, options: ReadOptions, *, email: bool, text: str | None) -> Inputs:
    """Documents for a text model: a table's text column, a folder or file of documents, or
    standard input (one document per line, or the whole input for an e-mail model)."""
    kind = "email" if email else "text"
    if data == "-" and options.format is None:
        raw = _stdin_bytes()
        if email:
            from ..text.email import read_message

            return Inputs("<stdin>", [read_message(raw)], {"document": ["<stdin>"]})
        lines = raw.decode("utf-8", errors="replace").splitlines()
        if not lines:
            raise ReadError("<stdin>: no text to classify; give one text per line")
        return Inputs("<stdin>", lines, {"line": list(range(1, len(lines) + 1))})
    is_table = data == "-" or (options.format in TABLE_FORMATS) or _has_table_suffix(data)
    if is_table:
        frame = read_inputs_table(data, options)
        column = pick_text_column(frame, text, data)
        return Inputs(data, text_of(frame.get_column(column)), {})
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
