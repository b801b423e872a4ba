"""``bayeskit train``: fit a model on DATA and write it to a safe model file."""

from __future__ import annotations

import os
import time
from typing import Annotated, Any

import typer

from ..io.readers import list_names
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
    load_labelled,
)
from .models import AlphaOpt, IntegersOpt, ModelOpt, build_model, describe, is_text_model
from .output import (
    check_output_path,
    human_size,
    is_model_file,
    out_console,
    progress,
    save_model,
)


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
) -> None:
    """Train a model on DATA and write it to a model file (a zip of JSON and arrays that never
    runs code when loaded)."""
    check_output_path(
        output,
        inputs=[data],
        force=force,
        replaceable=is_model_file,
        what="a bayeskit model file",
    )
    options = ReadOptions.of(format, no_header, columns, missing, merge, separator, ids, keep)
    labelled = load_labelled(data, target, text, options)
    estimator = build_model(model, labelled, alpha, integers)
    start = time.perf_counter()
    with progress("training", None):
        estimator.fit(labelled.X, labelled.y)
    save_model(estimator, output)
    seconds = time.perf_counter() - start
    console = out_console()
    console.print(f"data: {data} — {labelled.describe()}")
    console.print(f"model: {describe(estimator)}")
    families = families_line(estimator)
    if families:
        console.print(f"families: {families}")
    size = human_size(os.path.getsize(output))
    console.print(f"wrote {output} ({size}) in {seconds:.2f} s")
    console.print(f"next: bayeskit inspect {output}; bayeskit predict {output} NEW_DATA")
