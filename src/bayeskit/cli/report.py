"""``bayeskit report``: cross-validate, fit on all the data, write one self-contained HTML page."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .options import (
    AlphaOpt,
    ColumnsOpt,
    FoldsAliasOpt,
    FoldsOpt,
    ForceOpt,
    FormatOpt,
    IdOpt,
    IntegersOpt,
    KeepOpt,
    MergeOpt,
    MissingOpt,
    ModelOpt,
    NoDefaultMissingOpt,
    NoHeaderOpt,
    SeedOpt,
    SeparatorOpt,
    SetOpt,
    TargetOpt,
    TextOpt,
    folds_of,
)

if TYPE_CHECKING:
    from .data import Labelled


def is_report(path: Path) -> bool:
    """An HTML page written by ``bayeskit report`` (it names bayeskit as its generator).

    Only a regular file is read: opening a pipe (``/dev/stdout`` piped to ``head``) or a FIFO
    to peek at it would block for ever, and would take bytes meant for its reader."""
    from ..report.page import GENERATOR

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return GENERATOR.encode() in f.read(4096)
    except OSError:
        return False


def is_stream(output: str) -> bool:
    """``output`` is written as a stream, in place, not replaced by a finished file: ``-``
    (standard output), anything under /dev or /proc (``/dev/stdout``, ``/dev/null``: a
    temporary file beside them would replace the device's name), and an existing file that
    is not a regular file or a folder (a FIFO, a terminal, a socket). A folder is not a
    stream: ``check_output_path`` refuses it before the cross-validation runs."""
    if output == "-" or output.startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(output).st_mode
        return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
    except OSError:  # absent (a new file), or a dangling link: check_output_path says
        return False


def _is_stdout(output: str) -> bool:
    """``output`` is this process's standard output (``-``, ``/dev/stdout``, ``/dev/fd/1``)."""
    if output == "-":
        return True
    try:
        return os.path.samestat(os.stat(output), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no file behind sys.stdout (a test's)
        return False


def _write_stream(output: str, page: str) -> None:
    """The finished page in one write to standard output (``-``) or to the stream
    ``output``; a reader that went away (``| head``) ends the command quietly."""
    from ..errors import ReadError

    data = page.encode("utf-8")
    if output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        with open(output, "wb") as f:
            f.write(data)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise ReadError(
            f"{output}: cannot write the report ({exc.strerror})", path=output
        ) from None


def _training_inputs(data: Labelled) -> Any:
    """What the report shows of the data: the table, or the texts (an e-mail's subject and
    body)."""
    if data.kind == "email":
        return [f"{m.subject}\n{m.text}" for m in data.X]
    return data.X


def report(
    data: Annotated[str, typer.Argument(metavar="DATA", help="Table or folder of class folders.")],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="HTML file to write (an earlier report is replaced; another file only with "
            "--force); - writes the page to standard output (the summary then goes to standard "
            "error).",
        ),
    ],
    target: TargetOpt = None,
    text: TextOpt = None,
    model: Annotated[str, ModelOpt] = "auto",
    alpha: Annotated[float | None, AlphaOpt] = None,
    integers: Annotated[str | None, IntegersOpt] = None,
    settings: SetOpt = None,
    folds: FoldsOpt = 10,
    seed: SeedOpt = 0,
    title: Annotated[
        str | None, typer.Option("--title", metavar="TEXT", help="Title of the page.")
    ] = None,
    ids: IdOpt = None,
    keep: KeepOpt = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    separator: SeparatorOpt = None,
    missing: MissingOpt = None,
    no_default_missing: NoDefaultMissingOpt = False,
    merge: MergeOpt = None,
    force: ForceOpt = False,
    cv: FoldsAliasOpt = None,
) -> None:
    """Cross-validate a model on DATA and write one self-contained HTML page: confusion
    matrix, ROC and precision-recall curves, calibration, the class-conditional densities of
    the most useful numeric features and the top words per class."""
    from .._params import clone
    from ..errors import ReadError
    from ..report import build_report
    from .data import ReadOptions, load_labelled
    from .measure import cross_validate, metrics, spread_line
    from .models import build_model, check_model_options, describe, is_text_model, parse_settings
    from .output import (
        check_output_path,
        err_console,
        fmt_num,
        human_size,
        out_console,
        progress,
        write_atomic,
    )

    stream = is_stream(output)
    if not stream:
        check_output_path(
            output, inputs=[data], force=force, replaceable=is_report, what="a bayeskit report"
        )
    elif output != "-" and not os.path.exists(output):
        raise ReadError(f"{output}: does not exist; give a file name, or - for standard output")
    check_model_options(model, alpha, integers)  # before any data is read
    chosen = parse_settings(settings, alpha, integers)
    options = ReadOptions.of(
        format, no_header, columns, missing, merge, separator, ids, keep,
        no_default_missing=no_default_missing,
    )  # fmt: skip
    labelled = load_labelled(data, target, text, options)
    estimator = build_model(model, labelled, alpha, integers, settings=chosen)
    start = time.perf_counter()
    result = cross_validate(lambda: clone(estimator), labelled, folds_of(folds, cv), seed)
    with progress("training on all the data", None):
        fitted = clone(estimator).fit(labelled.X, labelled.y)
    found = metrics(result)
    notes = {"data": f"{data} — {labelled.describe()}", "evaluation": result.method}
    if found["by_fold"]:
        notes["spread"] = spread_line(found["by_fold"])
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
            predicted=result.predicted,
        )
    if stream:
        _write_stream(output, page)
    else:
        write_atomic(output, page)
    # with the page on standard output, the summary goes to standard error
    console = err_console() if _is_stdout(output) else out_console()
    console.print(f"data: {data} — {labelled.describe()}")
    console.print(f"model: {describe(estimator)}; {result.method}")
    console.print(
        f"accuracy {fmt_num(found['accuracy'])}   macro-F1 {fmt_num(found['macro_f1'])}   "
        f"log-loss {fmt_num(found['log_loss'])}"
    )
    if found["by_fold"]:
        console.print(notes["spread"])
    if found["log_loss_clipped_rows"]:
        from ..report.page import clipped_note

        console.print(f"log-loss: {clipped_note(found['log_loss_clipped_rows'])}")
    seconds = time.perf_counter() - start
    size = human_size(len(page.encode("utf-8")))
    where = "standard output" if output == "-" else output
    console.print(f"wrote {where} ({size}) in {seconds:.2f} s; open it in a browser")
