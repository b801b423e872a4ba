"""``bayeskit report``: cross-validate, fit on all the data, write one self-contained HTML page."""

from __future__ import annotations

import os
import time
from typing import Annotated, Any

import typer
from sklearn.base import clone

from .data import (
    ColumnsOpt,
    FormatOpt,
    Labelled,
    MergeOpt,
    MissingOpt,
    NoHeaderOpt,
    ReadOptions,
    TargetOpt,
    TextOpt,
    load_labelled,
)
from .measure import cross_validate, metrics
from .models import AlphaOpt, IntegersOpt, ModelOpt, build_model, describe, is_text_model
from .output import (
    check_output_path,
    fmt_num,
    human_size,
    out_console,
    progress,
    write_atomic,
)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def _training_inputs(data: Labelled) -> Any:
    """What the report shows of the data: the table, or the texts (an e-mail's subject and
    body)."""
    if data.kind == "email":
        return [f"{m.subject}\n{m.text}" for m in data.X]
    return data.X


def report(
    data: Annotated[str, typer.Argument(metavar="DATA", help="Table or folder of class folders.")],
    output: Annotated[str, typer.Option("--output", "-o", help="HTML file to write.")],
    target: TargetOpt = None,
    text: TextOpt = None,
    model: Annotated[str, ModelOpt] = "auto",
    alpha: Annotated[float | None, AlphaOpt] = None,
    integers: Annotated[str | None, IntegersOpt] = None,
    cv: Annotated[int, typer.Option("--cv", help="Number of cross-validation folds.")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the fold shuffle.")] = 0,
    title: Annotated[str | None, typer.Option("--title", help="Title of the page.")] = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    missing: MissingOpt = None,
    merge: MergeOpt = None,
) -> None:
    """Cross-validate a model on DATA and write one self-contained HTML page: confusion
    matrix, ROC and precision-recall curves, calibration, the class-conditional densities of
    the most useful numeric features and the top words per class."""
    from ..report import build_report

    check_output_path(output)
    options = ReadOptions(format, no_header, columns, missing or [], merge or [])
    labelled = load_labelled(data, target, text, options)
    estimator = build_model(model, labelled, alpha, integers)
    start = time.perf_counter()
    result = cross_validate(lambda: clone(estimator), labelled, cv, seed)
    with progress("training on all the data", None):
        fitted = clone(estimator).fit(labelled.X, labelled.y)
    found = metrics(result)
    notes = {"data": f"{data} — {labelled.describe()}", "evaluation": result.method}
    if is_text_model(estimator):
        notes["pipeline"] = describe(estimator)
    with progress("drawing the report", None):
        page = build_report(
            title=title or f"bayeskit report: {os.path.basename(os.path.normpath(data))}",
            classes=result.classes,
            y_true=result.y_true,
            proba=result.proba,
            model=fitted,
            X=_training_inputs(labelled),
            y=labelled.y,
            notes=notes,
            log_proba=result.log_proba,
        )
    write_atomic(output, page)
    console = out_console()
    console.print(f"data: {data} — {labelled.describe()}")
    console.print(f"model: {describe(estimator)}; {result.method}")
    console.print(
        f"accuracy {fmt_num(found['accuracy'])}   macro-F1 {fmt_num(found['macro_f1'])}   "
        f"log-loss {fmt_num(found['log_loss'])}"
    )
    seconds = time.perf_counter() - start
    size = human_size(os.path.getsize(output))
    console.print(f"wrote {output} ({size}) in {seconds:.2f} s; open it in a browser")
