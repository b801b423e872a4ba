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
            help="A column of DATA to copy into the output to name the rows (repeatable; a "
            "column the model uses is copied and still used). Default: the row-ID columns "
            "training left out (train --id, or found), and the columns the model was not "
            "trained on that look like row IDs. A copied column named as an output column "
            "(label, verdict, p_CLASS) is copied as data_NAME.",
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            metavar="COLUMN",
            help="A column of DATA to leave out (repeatable): one the model was not trained "
            "on; a column DATA lacks is refused.",
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
    stored = (reading or {}).get("ids")
    trained_ids = [c for c in stored if isinstance(c, str)] if isinstance(stored, list) else []
    inputs = _inputs(estimator, data, options, text, id_columns or [], ignored, target, trained_ids)
    with rows_of("<stdin>" if data == "-" else data):
        proba = estimator.predict_proba(inputs.X)
        rendered = _render(_prediction_columns(estimator, inputs, proba), fmt)
    if output is None:
        sys.stdout.write(rendered)
        sys.stdout.flush()
    else:
        write_atomic(output, rendered)


def is_predictions(path: Path) -> bool:
    """A file ``bayeskit predict`` wrote, as it writes them: a header (CSV) or first object
    (JSON lines) of the copied columns, then ``label``, ``verdict`` for a spam filter, and
    one ``p_CLASS`` column per class, nothing after them; and, in its first row, a label that
    is one of those classes and probabilities between 0 and 1 that add up to 1. A file that
    merely has such names (``gene,p_value,label``) is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline(1 << 16)
            second = f.readline(1 << 16)
    except (OSError, UnicodeDecodeError):
        return False
    try:
        if first.startswith("{"):
            row = json.loads(first)
            if not isinstance(row, dict):
                return False
            names = [str(n) for n in row]
            values = [_cell(v) for v in row.values()]
        else:
            names = next(csv.reader([first]))
            values = next(csv.reader([second])) if second.strip() else []
    except (ValueError, StopIteration, csv.Error):
        return False
    return _written_by_predict(names, values)


def _written_by_predict(names: list[str], values: list[str]) -> bool:
    """``names`` (and ``values``, the first row as text; none: a header alone) laid out as
    :func:`_prediction_columns` lays them out."""
    if "label" not in names:
        return False
    at = len(names) - 1 - names[::-1].index("label")
    after = names[at + 1 :]
    if after[:1] == ["verdict"]:
        after = after[1:]
    if not after or not all(n.startswith("p_") for n in after) or len(set(after)) < len(after):
        return False
    if not values:
        return True
    if len(values) != len(names):
        return False
    if values[at] not in {n[2:] for n in after}:
        return False
    try:
        proba = [float(v) for v in values[len(values) - len(after) :]]
    except ValueError:
        return False
    if not all(0.0 <= p <= 1.0 for p in proba):
        return False
    return len(proba) == 1 or abs(sum(proba) - 1.0) < 1e-6


def _output_format(output: str | None, out_format: str | None) -> str:
    suffix = None if output is None else Path(output).suffix.lower()
    if out_format is not None:
        if out_format not in ("csv", "jsonl"):
            raise typer.BadParameter(f"{out_format!r}; choose csv or jsonl", param_hint="--to")
        if suffix in OUT_FORMATS and OUT_FORMATS[suffix] != out_format:
            named = "CSV" if OUT_FORMATS[suffix] == "csv" else "JSON lines"
            raise typer.BadParameter(
                f"{out_format!r} contradicts -o {output} (a {named} file name); give one of "
                f"them, or name the file .{out_format}",
                param_hint="--to",
            )
        return out_format
    if output is None:
        return "csv"
    assert suffix is not None
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
    trained_ids: list[str] | None = None,
) -> Inputs:
    """DATA as the model reads it, with the columns copied into the output: ``id_columns``
    (``--id``), else the row IDs training left out (``trained_ids``) and the untrained
    columns that look like row IDs. ``ignore`` (``--ignore``) must name columns of DATA;
    ``target``, the training target, is left out when DATA has it."""
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

    trained_ids = trained_ids or []
    if is_text_model(estimator):
        email = is_email_model(estimator)
        return read_text_inputs(
            data, options, email=email, text=text, id_columns=id_columns, ignore=ignore,
            trained_ids=trained_ids,
        )  # fmt: skip
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
    for column in ignore:
        require_column(frame, column, source, "--ignore")
    used = set(expected or [])
    # the row IDs training left out: never features here, copied unless --id says otherwise
    left_out = [c for c in trained_ids if c in frame.columns and c not in used]
    if not id_columns:
        id_columns = [*left_out]
        if expected is not None:  # untrained columns that look like row IDs
            id_columns += [
                c
                for c in frame.columns
                if c not in used
                and c not in ignore
                and c not in left_out
                and c != target
                and id_reason(c, frame.get_column(c))
            ]
    ids = {column: frame.get_column(column).to_list() for column in id_columns}
    if target is not None and target in frame.columns and target not in {*used, *ids}:
        note(f"{source}: column {target!r} is the training target: ignored")
    dropped = [*ignore, *(c for c in [*id_columns, *left_out] if c not in used)]
    if target is not None:
        dropped.append(target)
    frame = fill_absent(frame, estimator, expected, source, dropped)
    aligned = align_columns(frame, expected, source, dropped, ignore_option="--ignore")
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
    """The output: the copied columns, then ``label``, a spam filter's ``verdict`` and
    ``p_CLASS`` for each class (the class written as the ``label`` column writes it). A
    copied column named as one of those is copied as ``data_NAME``, with a note."""
    from .output import note

    classes = estimator.classes_.tolist()
    predicted: dict[str, list[Any]] = {"label": estimator.predict(inputs.X).tolist()}
    if hasattr(estimator, "classify"):  # a SpamFilter's three-way verdict
        predicted["verdict"] = estimator.classify(inputs.X).tolist()
    for k, label in enumerate(classes):
        predicted[f"p_{_cell(label)}"] = proba[:, k].tolist()
    columns: dict[str, list[Any]] = {}
    for name, values in inputs.ids.items():
        copied = name
        while copied in predicted or copied in columns or (copied in inputs.ids and copied != name):
            copied = f"data_{copied}"
        if copied != name:
            note(
                f"{inputs.source}: column {name!r} is copied as {copied!r} (the output's "
                f"{name!r} column is the prediction's)"
            )
        columns[copied] = values
    columns.update(predicted)
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
