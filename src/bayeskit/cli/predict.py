"""``bayeskit predict``: labels and class probabilities for new rows or documents."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .errors import rows_of
from .options import (
    ColumnsOpt,
    ForceOpt,
    FormatOpt,
    MissingOpt,
    NoDefaultMissingOpt,
    NoHeaderOpt,
    SeparatorOpt,
    TextOpt,
)

if TYPE_CHECKING:
    import numpy as np

    from .data import Inputs, RawInput, ReadOptions

OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def predict(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    data: Annotated[
        str,
        typer.Argument(
            metavar="DATA",
            help="Table, folder or file of documents, or - for standard input (a table, or "
            "one text per line for a text model).",
        ),
    ],
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write here (.csv or .jsonl) instead of stdout (an earlier prediction file is "
            "replaced; another file only with --force).",
        ),
    ] = None,
    out_format: Annotated[
        str | None,
        typer.Option(
            "--to",
            metavar="FORMAT",
            help="Output format: csv or jsonl (default: from -o, else csv).",
        ),
    ] = None,
    text: TextOpt = None,
    id_columns: Annotated[
        list[str] | None,
        typer.Option(
            "--id",
            metavar="COLUMN",
            help="A column of DATA to copy into the output to name the rows (repeatable). "
            "Default: the columns the model was not trained on that look like row IDs (see "
            "train --id).",
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            metavar="COLUMN",
            help="Columns of DATA the model does not use (repeatable).",
        ),
    ] = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    separator: SeparatorOpt = None,
    missing: MissingOpt = None,
    no_default_missing: NoDefaultMissingOpt = False,
    force: ForceOpt = False,
) -> None:
    """Predict DATA with a trained model: one row per input with the predicted label and the
    probability of each class (CSV or JSON lines). DATA is read as the training data was
    (missing markers, separator, header: stored in the model file; an option given here
    wins). A column holding the training target is ignored; a training column DATA lacks is
    read as missing in every row where missing values drop out of the model (the naive
    models, diagonal mixtures), else refused naming it."""
    from .data import ReadOptions
    from .models import load_model, load_reading
    from .output import check_output_path, write_atomic

    fmt = _output_format(output, out_format)
    if output is not None:
        check_output_path(
            output,
            inputs=[model_file, data],
            force=force,
            replaceable=is_predictions,
            what="a bayeskit prediction file",
        )
    estimator = load_model(model_file)
    reading = load_reading(model_file)
    options = ReadOptions.of(
        format,
        no_header,
        columns,
        missing,
        separator=separator,
        no_default_missing=no_default_missing,
    ).with_reading(reading, given_missing=missing is not None)
    target = (reading or {}).get("target")
    ignored = [*(ignore or [])]
    if not isinstance(target, str) or target in ignored:
        target = None  # none stored, or --ignore'd already: nothing to say
    else:
        ignored.append(target)
    inputs = _inputs(estimator, data, options, text, id_columns or [], ignored, target)
    with rows_of("<stdin>" if data == "-" else data):
        proba = estimator.predict_proba(inputs.X)
        rendered = _render(_prediction_columns(estimator, inputs, proba), fmt)
    if output is None:
        sys.stdout.write(rendered)
        sys.stdout.flush()
    else:
        write_atomic(output, rendered)


def is_predictions(path: Path) -> bool:
    """A file ``bayeskit predict`` wrote: its first line names a label column and the
    probability (``p_…``) columns."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline(1 << 16)
    except (OSError, UnicodeDecodeError):
        return False
    try:
        names = list(json.loads(first)) if first.startswith("{") else next(csv.reader([first]))
    except (ValueError, StopIteration, csv.Error):
        return False
    return "label" in names and any(str(n).startswith("p_") for n in names)


def _output_format(output: str | None, out_format: str | None) -> str:
    if out_format is not None:
        if out_format not in ("csv", "jsonl"):
            raise typer.BadParameter(f"{out_format!r}; choose csv or jsonl", param_hint="--to")
        return out_format
    if output is None:
        return "csv"
    suffix = Path(output).suffix.lower()
    if suffix not in OUT_FORMATS:
        raise typer.BadParameter(
            f"{output}: name the file .csv or .jsonl, or give --to", param_hint="--output"
        )
    return OUT_FORMATS[suffix]


def _inputs(
    estimator: Any,
    data: str,
    options: ReadOptions,
    text: str | None,
    id_columns: list[str],
    ignore: list[str],
    target: str | None = None,
) -> Inputs:
    from .data import Inputs, id_reason, read_inputs_table, read_text_inputs, require_column
    from .models import (
        align_columns,
        column_kinds,
        conform,
        fill_absent,
        is_email_model,
        is_text_model,
        training_columns,
    )
    from .output import note

    if is_text_model(estimator):
        email = is_email_model(estimator)
        return read_text_inputs(data, options, email=email, text=text, id_columns=id_columns)
    expected = training_columns(estimator)
    # The model's string categories are read as text whatever they look like (0123 is not
    # the number 123), as the training file's were.
    kinds = column_kinds(estimator)
    options = replace(options, text_columns=tuple(c for c, k in kinds.items() if k == "text"))
    raw = None
    if (options.no_header or options.columns is not None) and expected is not None:
        options, raw = _headerless(data, options, expected, target)
    frame = read_inputs_table(data, options, raw)
    source = "<stdin>" if data == "-" else data
    for column in id_columns:
        require_column(frame, column, source, "--id")
    if not id_columns and expected is not None:  # untrained columns that look like row IDs
        id_columns = [
            c
            for c in frame.columns
            if c not in expected and c not in ignore and id_reason(c, frame.get_column(c))
        ]
    ids = {column: frame.get_column(column).to_list() for column in id_columns}
    if target is not None and target in frame.columns and target not in (expected or []):
        note(f"{source}: column {target!r} is the training target: ignored")
    frame = fill_absent(frame, estimator, expected, source, [*ignore, *id_columns])
    aligned = align_columns(
        frame, expected, source, [*ignore, *id_columns], ignore_option="--ignore"
    )
    return Inputs(source, conform(aligned, estimator, source), ids)


def _headerless(
    data: str, options: ReadOptions, expected: list[str], target: str | None
) -> tuple[ReadOptions, RawInput | None]:
    """How to name the columns of a file without a header row for a model trained on one:
    as the training file's columns were named (``--columns``, else ``column_1``...), but
    without the target's when the file has one column fewer than the training file (the same
    rows without their labels): read by position, every column after the target would be
    taken for the one before it. The input, when it had to be read to count its columns, is
    returned with the options: it is read once (standard input, a pipe or a FIFO cannot be
    read again, and a large file is not read twice)."""
    import re

    from .data import first_record_width, raw_input

    if target is None or target in expected:
        return options, None
    if options.columns is not None:
        names = [c.strip() for c in options.columns.split(",")]
    else:  # column_k by position: the training file had as many as its highest k
        found = [re.fullmatch(r"column_(\d+)", c) for c in [*expected, target]]
        if not all(found):
            return options, None
        width = max(int(m.group(1)) for m in found if m is not None)
        names = [f"column_{k}" for k in range(1, width + 1)]
    if target not in names:
        return options, None
    kept = [c for c in names if c != target]
    unnamed = replace(options, columns=None, no_header=True)
    raw = raw_input(data, unnamed)
    label = "<stdin>" if data == "-" else data
    if first_record_width(raw, label, unnamed) != len(kept):
        return options, raw
    return replace(options, columns=",".join(kept)), raw


def _prediction_columns(estimator: Any, inputs: Inputs, proba: np.ndarray) -> dict[str, list[Any]]:
    classes = estimator.classes_.tolist()
    columns: dict[str, list[Any]] = dict(inputs.ids)
    columns["label"] = estimator.predict(inputs.X).tolist()
    if hasattr(estimator, "classify"):  # a SpamFilter's three-way verdict
        columns["verdict"] = estimator.classify(inputs.X).tolist()
    for k, label in enumerate(classes):
        columns[f"p_{label}"] = proba[:, k].tolist()
    return columns


def _cell(value: Any) -> str:
    """A value as CSV text: missing as empty, booleans as true/false, floats exactly."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _render(columns: dict[str, list[Any]], fmt: str) -> str:
    """CSV with a header, or JSON lines (one object per row)."""
    names = list(columns)
    rows = zip(*columns.values(), strict=True)
    if fmt == "jsonl":
        return "".join(
            json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False, default=str) + "\n"
            for row in rows
        )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([_cell(v) for v in row] for row in rows)
    return buffer.getvalue()
