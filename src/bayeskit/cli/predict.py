"""``bayeskit predict``: labels and class probabilities for new rows or documents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from .data import (
    ColumnsOpt,
    FormatOpt,
    Inputs,
    MissingOpt,
    NoHeaderOpt,
    ReadOptions,
    TextOpt,
    read_inputs_table,
    read_text_inputs,
    require_column,
)
from .models import (
    align_columns,
    conform,
    is_email_model,
    is_text_model,
    load_model,
    training_columns,
)
from .output import check_output_path, write_atomic

OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def register(app: typer.Typer) -> None:
    app.command("predict")(predict)


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
        typer.Option("--output", "-o", help="Write here (.csv or .jsonl) instead of stdout."),
    ] = None,
    out_format: Annotated[
        str | None,
        typer.Option("--to", help="Output format: csv or jsonl (default: from -o, else csv)."),
    ] = None,
    text: TextOpt = None,
    id_column: Annotated[
        str | None,
        typer.Option("--id", help="A column of DATA to copy into the output to name rows."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Columns of DATA the model does not use (repeatable)."),
    ] = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    missing: MissingOpt = None,
) -> None:
    """Predict DATA with a trained model: one row per input with the predicted label and the
    probability of each class (CSV or JSON lines)."""
    fmt = _output_format(output, out_format)
    if output is not None:
        check_output_path(output)
    estimator = load_model(model_file)
    options = ReadOptions(format, no_header, columns, missing or [])
    inputs = _inputs(estimator, data, options, text, id_column, ignore or [])
    proba = estimator.predict_proba(inputs.X)
    frame = _prediction_frame(estimator, inputs, proba)
    rendered = frame.write_csv() if fmt == "csv" else frame.write_ndjson()
    if output is None:
        sys.stdout.write(rendered)
        sys.stdout.flush()
    else:
        write_atomic(output, rendered)


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
    id_column: str | None,
    ignore: list[str],
) -> Inputs:
    if is_text_model(estimator):
        return read_text_inputs(data, options, email=is_email_model(estimator), text=text)
    frame = read_inputs_table(data, options)
    source = "<stdin>" if data == "-" else data
    ids: dict[str, list[Any]] = {}
    if id_column is not None:
        require_column(frame, id_column, source, "--id")
        ids[id_column] = frame.get_column(id_column).to_list()
    drop = [*ignore, *([id_column] if id_column else [])]
    aligned = align_columns(frame, training_columns(estimator), source, drop)
    return Inputs(source, conform(aligned, estimator, source), ids)


def _prediction_frame(estimator: Any, inputs: Inputs, proba: np.ndarray) -> Any:
    import polars as pl

    classes = estimator.classes_.tolist()
    columns: dict[str, Any] = {name: values for name, values in inputs.ids.items()}
    columns["label"] = estimator.predict(inputs.X).tolist()
    if hasattr(estimator, "classify"):  # a SpamFilter's three-way verdict
        columns["verdict"] = estimator.classify(inputs.X).tolist()
    for k, label in enumerate(classes):
        columns[f"p_{label}"] = proba[:, k]
    return pl.DataFrame(columns)
