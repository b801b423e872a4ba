"""``bayeskit train``: fit a model on DATA and write it to a safe model file."""

from __future__ import annotations

import os
import time
from typing import Annotated, Any

import typer

from ..io.readers import list_names
from . import streaming
from .cluster import BatchSizeOpt, SchedulerOpt, WorkersOpt, batch_runner
from .data import (
    ColumnsOpt,
    ForceOpt,
    FormatOpt,
    IdOpt,
    KeepOpt,
    MergeOpt,
    MissingOpt,
    NoHeaderOpt,
    ReadOptions,
    SeparatorOpt,
    TargetOpt,
    TextOpt,
)
from .models import AlphaOpt, IntegersOpt, ModelOpt, describe, is_text_model
from .output import check_output_path, human_size, is_model_file, out_console, save_model
from .streaming import open_data


def families_line(model: Any) -> str | None:
    """``categorical: a, b; gaussian: c`` — each family and its columns."""
    families = getattr(model, "feature_families_", None)
    if families is None:
        names = getattr(model, "feature_names_in_", None)
        if names is None or is_text_model(model):
            return None
        families = {str(n): _family_name(model) for n in names}
    by_family: dict[str, list[str]] = {}
    for column, family in families.items():
        by_family.setdefault(str(family), []).append(str(column))
    return "; ".join(f"{f} ({len(c)}): {list_names(c, 8)}" for f, c in by_family.items())


def _family_name(model: Any) -> str:
    families = getattr(model, "families_", None)
    if families is not None and len(families) == 1:
        return str(families[0].name)  # mvnormal for discriminant analysis
    return type(model).__name__.removesuffix("NB").lower()


def train(
    data: Annotated[str, typer.Argument(metavar="DATA", help="Table or folder of class folders.")],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Model file to write (an existing model file is replaced; another file only "
            "with --force, and never the data).",
        ),
    ],
    target: TargetOpt = None,
    text: TextOpt = None,
    model: Annotated[str, ModelOpt] = "auto",
    alpha: Annotated[float | None, AlphaOpt] = None,
    integers: Annotated[str | None, IntegersOpt] = None,
    ids: IdOpt = None,
    keep: KeepOpt = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    separator: SeparatorOpt = None,
    missing: MissingOpt = None,
    merge: MergeOpt = None,
    force: ForceOpt = False,
    batch_size: BatchSizeOpt = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Train a model on DATA and write it to a model file (a zip of JSON and arrays that never
    runs code when loaded). DATA is read and learned a batch at a time, so memory stays flat
    however large it is; --workers or --scheduler spread the work over a Dask cluster."""
    check_output_path(
        output,
        inputs=[data],
        force=force,
        replaceable=is_model_file,
        what="a bayeskit model file",
    )
    options = ReadOptions.of(format, no_header, columns, missing, merge, separator, ids, keep)
    start = time.perf_counter()
    with batch_runner(workers, scheduler) as runner:
        source = open_data(data, target, text, options, batch_size)
        trained = streaming.train(source, model, alpha, integers, options.merge, runner=runner)
    estimator = trained.model
    save_model(estimator, output)
    seconds = time.perf_counter() - start
    console = out_console()
    console.print(f"data: {data} — {trained.describe()}")
    console.print(f"model: {describe(estimator)}")
    families = families_line(estimator)
    if families:
        console.print(f"families: {families}")
    size = human_size(os.path.getsize(output))
    console.print(f"wrote {output} ({size}) in {seconds:.2f} s")
    console.print(f"next: bayeskit inspect {output}; bayeskit predict {output} NEW_DATA")
