"""``bayeskit evaluate``: how well a model does on DATA, by cross-validation or on a test set."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .options import (
    AlphaOpt,
    ColumnsOpt,
    FoldsAliasOpt,
    FoldsOpt,
    FormatOpt,
    IdOpt,
    IntegersOpt,
    KeepOpt,
    MergeOpt,
    MissingOpt,
    ModelOpt,
    NoDefaultMissingOpt,
    NoHeaderOpt,
    SchedulerOpt,
    SeedOpt,
    SeparatorOpt,
    SetOpt,
    TargetOpt,
    TextOpt,
    WorkersOpt,
    folds_of,
)

if TYPE_CHECKING:
    from .data import Labelled

_MAX_CONFUSION = 12


def evaluate(
    ctx: typer.Context,
    data: Annotated[str, typer.Argument(metavar="DATA", help="Table or folder of class folders.")],
    target: TargetOpt = None,
    text: TextOpt = None,
    model: Annotated[str, ModelOpt] = "auto",
    alpha: Annotated[float | None, AlphaOpt] = None,
    integers: Annotated[str | None, IntegersOpt] = None,
    settings: SetOpt = None,
    folds: FoldsOpt = 10,
    test: Annotated[
        str | None,
        typer.Option(
            "--test", metavar="DATA", help="Train on DATA and test on this (same layout) instead."
        ),
    ] = None,
    seed: SeedOpt = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
    ids: IdOpt = None,
    keep: KeepOpt = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    separator: SeparatorOpt = None,
    missing: MissingOpt = None,
    no_default_missing: NoDefaultMissingOpt = False,
    merge: MergeOpt = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    cv: FoldsAliasOpt = None,
) -> None:
    """Measure a model: accuracy, macro-F1, log-loss, per-class precision and recall, the
    confusion matrix, ROC-AUC for two classes. Stratified 10-fold cross-validation unless
    --test gives a test set."""
    from .._params import clone
    from .cluster import cluster_client, fold_runner
    from .data import ReadOptions, load_labelled, refuse_standard_input
    from .measure import cross_validate, holdout, metrics
    from .models import build_model, check_model_options, describe, parse_settings

    check_model_options(model, alpha, integers)  # before any data is read
    refuse_standard_input(data)
    if test is not None:
        _refuse_fold_options(ctx, cv)
        refuse_standard_input(test, "--test DATA")
    chosen = parse_settings(settings, alpha, integers)
    options = ReadOptions.of(
        format, no_header, columns, missing, merge, separator, ids, keep,
        no_default_missing=no_default_missing,
    )  # fmt: skip
    train = load_labelled(data, target, text, options)
    estimator = build_model(model, train, alpha, integers, settings=chosen)
    if test is None:
        with cluster_client(workers, scheduler) as client:  # the folds run in parallel there
            result = cross_validate(
                partial(clone, estimator),
                train,
                folds_of(folds, cv),
                seed,
                run_folds=fold_runner(client),
            )
    else:
        # The test file's columns read as the training file's were: a string category
        # such as 0123 stays a string there even where no other value shows it is one.
        texts = _string_columns(train)
        if target is not None and train.y.dtype.kind in "UO":  # labels such as 01 and 02
            texts = (*texts, target)
        test_options = replace(options, ids=train.id_columns, detect_ids=False, text_columns=texts)
        held_out = load_labelled(test, target, train.text_column, test_options)
        result = holdout(estimator, train, held_out, _ready(held_out, train, estimator))
    found = metrics(result)
    found["data"] = data
    found["model"] = describe(estimator)
    found["families"] = _families(estimator, train, result.fitted)
    if as_json:
        print(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        print_metrics(found, train)


def _refuse_fold_options(ctx: typer.Context, cv: int | None) -> None:
    """``--folds`` and ``--seed`` set the cross-validation that ``--test`` replaces: given
    with it, they would change nothing, so they are refused (their defaults are not)."""
    given = [
        option
        for option, name in (("--folds", "folds"), ("--seed", "seed"))
        if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"
    ]
    if cv is not None:
        given.insert(0, "--cv")
    if given:
        raise typer.BadParameter(
            "not used with --test (the model is trained on DATA and tested on the --test "
            f"file once, without folds); leave out {' and '.join(given)}, or leave out --test "
            "to cross-validate",
            param_hint="/".join(given),
        )


def _string_columns(train: Labelled) -> tuple[str, ...]:
    """The training table's columns read as strings (none for documents)."""
    if train.kind != "table":
        return ()
    import polars as pl

    return tuple(c for c, t in train.X.schema.items() if t == pl.String)


def _families(estimator: Any, train: Labelled, fitted: Any = None) -> str | None:
    """The family each column gets (``families_line`` of the model ``train`` would write: the
    estimator fitted on all of DATA, ``fitted`` when the evaluation fitted it already), for a
    table; None for documents."""
    import warnings

    from .._params import clone
    from .train import families_line

    if train.kind != "table":
        return None
    if fitted is not None:  # (a test file: a second fit on DATA would be the same model)
        return families_line(fitted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the folds' fits said what there was to say
        fitted = clone(estimator).fit(train.X, train.y)
    return families_line(fitted)


def _ready(test: Labelled, train: Labelled, estimator: Any) -> Any:
    """The test inputs in the training layout (same columns, same order)."""
    from .models import align_columns, conform, schema_kinds

    if test.kind != train.kind:
        from ..io.readers import ReadError

        raise ReadError(
            f"{test.source}: holds {test.kind} data but {train.source} holds {train.kind}; "
            "test on data of the same kind",
            path=test.source,
        )
    if train.kind != "table":
        return test.X
    aligned = align_columns(test.X, list(train.X.columns), test.source)
    return conform(aligned, estimator, test.source, schema_kinds(train.X))


def print_metrics(found: dict[str, Any], data: Labelled | None = None) -> None:
    from rich.table import Table

    from .output import fmt_num, out_console

    console = out_console()
    if data is not None:
        console.print(f"data: {found['data']} — {data.describe()}")
    console.print(f"model: {found['model']}")
    if found.get("families"):
        console.print(f"families: {found['families']}")
    console.print(f"evaluation: {found['method']}")
    line = (
        f"accuracy {fmt_num(found['accuracy'])}   macro-F1 {fmt_num(found['macro_f1'])}   "
        f"log-loss {fmt_num(found['log_loss'])}"
    )
    if found["roc_auc"] is not None:
        line += f"   ROC-AUC {fmt_num(found['roc_auc'])} (positive class {found['positive_class']})"
    console.print(line)
    console.print(
        f"balanced accuracy {fmt_num(found['balanced_accuracy'])}   Brier {fmt_num(found['brier'])}"
    )
    if found.get("by_fold"):
        from .measure import spread_line

        console.print(spread_line(found["by_fold"]))
    if found.get("log_loss_clipped_rows"):
        from ..report.page import clipped_note

        console.print(f"log-loss: {clipped_note(found['log_loss_clipped_rows'])}")
    from .._visible import visible  # labels from the data: no character hides itself here

    per_class = Table(title=None, box=None, pad_edge=False)
    for name in ("class", "precision", "recall", "F1", "support"):
        # a long name folds onto more lines rather than being cut to a prefix it may share
        per_class.add_column(name, justify="left" if name == "class" else "right", overflow="fold")
    undefined = 0
    for label, row in found["per_class"].items():
        never, absent = row.get("predicted", 1) == 0, row["support"] == 0
        undefined += never or absent
        per_class.add_row(
            visible(str(label)),
            "–" if never else fmt_num(row["precision"]),
            "–" if absent else fmt_num(row["recall"]),
            "–" if never and absent else fmt_num(row["f1"]),
            str(row["support"]),
        )
    console.print(per_class)
    if undefined:
        console.print(
            "–: undefined (0/0): precision of a class never predicted, recall of a class "
            "with no rows; macro-F1 counts such an F1 as 0, as scikit-learn's "
            "zero_division=0 does, and leaves out a class neither true nor predicted"
        )
    # (a table's cells are not the console's str arguments: shown escaped here)
    classes = [visible(str(c)) for c in found["classes"]]
    if len(classes) <= _MAX_CONFUSION:
        matrix = Table(
            title="confusion matrix (rows: true class, columns: predicted)",
            title_justify="left",
            box=None,
            pad_edge=False,
        )
        matrix.add_column("", overflow="fold")
        for label in classes:
            matrix.add_column(label, justify="right", overflow="fold")
        for label, row in zip(classes, found["confusion_matrix"], strict=True):
            matrix.add_row(label, *(str(v) for v in row))
        console.print(matrix)
    else:
        console.print(f"confusion matrix: {len(classes)} classes; --json prints it")
    console.print(f"time: {found['seconds']:.2f} s")
