"""``bayeskit train``: fit a model on DATA and write it to a safe model file."""

from __future__ import annotations

import os
import time
from typing import Annotated, Any

import typer

from .options import (
    DEFAULT_TEXT_MODELS,
    DOCUMENT_BATCH,
    MAX_TERMS,
    AlphaOpt,
    BatchSizeOpt,
    ColumnsOpt,
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
    SchedulerOpt,
    SeparatorOpt,
    SetOpt,
    TargetOpt,
    TextOpt,
    WorkersOpt,
)

#: models fitted by their own rounds (EM: one pass over DATA, read again in batches, per
#: iteration), not batch by batch
ROUND_MODELS = ("gmm",)


#: ``--alpha`` under ``--unlabeled`` unless given. With a few labelled documents per class and
#: many unlabelled ones, α = 1 lets EM's first E-step, from 20 labelled posts a class, drift
#: to topics the classes do not mean: five 20 Newsgroups groups, 20 labelled posts each and
#: 2,816 unlabelled, scored 0.5729 supervised and 0.4003 semi-supervised at α = 1, 0.7779 and
#: 0.8882 at α = 0.1 (Nigam et al. smooth lightly too; benchmarks/accuracy_em.py uses 0.1).
SEMI_SUPERVISED_ALPHA = 0.1


def unlabelled_for(source: str, labelled: Any, target: str | None) -> Any:
    """How ``--unlabeled`` is read when DATA is a table with a text column
    (:class:`~bayeskit.cli.semi_supervised.Unlabelled`: a table's column of the same name,
    lines, an mbox, an e-mail or a folder of documents); refused beside a table of features."""
    from ..io.readers import ReadError
    from .semi_supervised import Unlabelled

    if labelled.kind not in ("text", "email"):
        raise ReadError(
            f"{source}: --unlabeled reads documents for the text pipeline; {labelled.source} "
            "is a table of features (semi-supervised tables: bayeskit.SemiSupervisedNB in "
            "Python)",
            path=source,
        )
    return Unlabelled.of(source, labelled.kind, labelled.text_column, target)


def fit_semi_supervised(estimator: Any, labelled: Any, extra: list[Any]) -> Any:
    """The text model fitted by EM on the labelled and the unlabelled documents (Nigam et
    al.'s semi-supervised Naive Bayes); the fitted text model itself is what is saved, so
    every command reads it as any other."""
    import warnings

    import numpy as np

    from .._values import unique_sorted
    from ..errors import ConvergenceWarning
    from ..semi_supervised import SemiSupervisedNB
    from .output import note

    given = np.asarray(labelled.y, dtype=object)
    y = np.concatenate([given, np.full(len(extra), None)])
    # DATA's labels are all classes, -1 among them (labels -1 and 1): declared, so that only
    # the unlabelled documents' None marks a row (-1 was taken for the marker, and its
    # documents learnt from as unlabelled ones)
    classes = unique_sorted(given)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        semi = SemiSupervisedNB(estimator).fit(list(labelled.X) + extra, y, classes=classes)
    for warning in caught:
        note(str(warning.message))
    return semi.estimator_


def column_families(model: Any) -> dict[str, str] | None:
    """The family of each column by name (None for a text model or one without column
    names): what ``families_line`` shows and ``bayeskit inspect --json`` gives."""
    from .models import is_text_model

    families = getattr(model, "feature_families_", None)
    if families is None:
        names = getattr(model, "feature_names_in_", None)
        if names is None or is_text_model(model):
            return None
        families = {str(n): _family_name(model) for n in names}
    return {str(c): str(f) for c, f in families.items()}


def families_line(model: Any) -> str | None:
    """``categorical: a, b; gaussian: c`` — each family and its columns."""
    from ..io.readers import list_names

    families = column_families(model)
    if families is None:
        return None
    by_family: dict[str, list[str]] = {}
    for column, family in families.items():
        by_family.setdefault(str(family), []).append(str(column))
    return "; ".join(f"{f} ({len(c)}): {list_names(c, 8)}" for f, c in by_family.items())


def _family_name(model: Any) -> str:
    families = getattr(model, "families_", None)
    if families is not None and len(families) == 1:
        return str(families[0].name)  # mvnormal for discriminant analysis, gaussian_mixture, ...
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
    settings: SetOpt = None,
    ids: IdOpt = None,
    keep: KeepOpt = None,
    format: FormatOpt = None,
    no_header: NoHeaderOpt = False,
    columns: ColumnsOpt = None,
    separator: SeparatorOpt = None,
    missing: MissingOpt = None,
    no_default_missing: NoDefaultMissingOpt = False,
    merge: MergeOpt = None,
    unlabeled: Annotated[
        str | None,
        typer.Option(
            "--unlabeled",
            metavar="FOLDER_OR_FILE",
            help="Unlabelled documents to learn from as well, by EM (semi-supervised Naive "
            "Bayes; text data only), read as DATA's are: a folder, one document per file (an "
            "mbox file: one per message); a table (.csv, .tsv, .jsonl, .parquet), one per row "
            "of its text column (named as DATA's, else its only or only free-text column); an "
            "mbox or e-mail file; any other text file, one document per line; - for standard "
            "input, read as such a file is. Blank documents are skipped; an empty file is "
            "refused.",
        ),
    ] = None,
    force: ForceOpt = False,
    batch_size: BatchSizeOpt = None,
    max_terms: Annotated[
        int,
        typer.Option(
            "--max-terms",
            min=1,
            metavar="N",
            help="Text: the most distinct terms (words, 2-grams) the model keeps while it "
            "learns DATA in batches, which bounds memory on long streams. After a batch that "
            "leaves more, the N found in the most documents so far are kept (ties: alphabetical "
            "order); a dropped term's counts are lost, and it counts from zero if it comes "
            "back. Data with at most N distinct terms is learned exactly.",
        ),
    ] = MAX_TERMS,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Train a model on DATA and write it to a model file (a zip of JSON and arrays that never
    runs code when loaded). DATA is read and learned a batch at a time, so memory stays flat
    however large it is; --workers or --scheduler spread the work over a Dask cluster. EM
    (--model gmm, and --unlabeled with a folder of class folders) reads DATA again, a batch at
    a time, at every iteration; --unlabeled with a table's text column for DATA reads both
    whole. A spam filter learned in more than one batch fits its probability scale on
    held-out scores of at most 10,000 messages spread evenly over DATA (read a second time); a
    text model keeps at most --max-terms terms. A Bayesian network (tan, aode, kdb) on a table
    of numbers learned in more than one batch chooses its cut points from at most 100,000 rows
    spread evenly over DATA (read once more, first): from every row, as a fit on all of them
    does, when DATA has no more."""
    from ..contract import contract_of
    from ..io.model_file import check_model_file_name
    from . import streaming
    from .cluster import batch_runner
    from .data import (
        ReadOptions,
        _is_folder,
        load_labelled,
        note_quantity_as_target,
        refuse_standard_input,
    )
    from .models import build_model, check_model_options, describe, parse_settings
    from .output import (
        check_output_path,
        human_size,
        is_model_file,
        out_console,
        progress,
        save_model,
    )
    from .semi_supervised import check_unlabelled, unlabelled_input
    from .streaming import open_data

    # Every option that no data could make right is refused before DATA is read.
    check_model_file_name(output)
    check_output_path(
        output,
        inputs=[data],
        force=force,
        replaceable=is_model_file,
        what="a bayeskit model file",
    )
    refuse_standard_input(data)
    check_model_options(model, alpha, integers)
    chosen = parse_settings(settings, alpha, integers)
    if chosen and unlabeled is not None:
        raise typer.BadParameter(
            "--unlabeled learns word counts + MultinomialNB by EM, whose settings --set does "
            "not reach (its smoothing: --alpha)",
            param_hint="--set",
        )
    # (standard input is copied to a private file first: EM reads the documents again)
    with unlabelled_input(unlabeled, data) as unlabelled_path:
        if unlabelled_path is not None:
            check_unlabelled(unlabelled_path, data)
        options = ReadOptions.of(
            format, no_header, columns, missing, merge, separator, ids, keep,
            no_default_missing=no_default_missing,
        )  # fmt: skip
        start = time.perf_counter()
        # --unlabeled learns text by EM: its own default smoothing (text only: a table is refused)
        semi_alpha = SEMI_SUPERVISED_ALPHA if alpha is None else alpha
        if unlabelled_path is not None and _is_folder(data, options):
            # Semi-supervised EM over folders of documents: by rounds, here or on a cluster.
            from .semi_supervised import train_semi_supervised

            left_out: list[str] = []
            with batch_runner(workers, scheduler) as runner:
                estimator, described, extra = train_semi_supervised(
                    lambda: open_data(data, target, text, options, batch_size),
                    unlabelled_path, batch_size or DOCUMENT_BATCH,
                    model, semi_alpha, integers, options.merge, runner,
                )  # fmt: skip
        elif unlabelled_path is not None:
            # Semi-supervised EM over a table's text column reads the documents whole, here.
            if workers is not None or scheduler is not None:
                raise typer.BadParameter(
                    "--workers/--scheduler run semi-supervised EM over a folder of class folders; "
                    "--unlabeled with a table's text column reads the documents whole on this "
                    "machine",
                    param_hint="--workers/--scheduler",
                )
            labelled = load_labelled(data, target, text, options)
            source = unlabelled_for(unlabelled_path, labelled, target)
            docs = source.read()
            estimator = build_model(model, labelled, semi_alpha, integers, semi_supervised=True)
            start = time.perf_counter()
            with progress("training", None):
                estimator = fit_semi_supervised(estimator, labelled, docs)
            described = labelled.describe()
            extra = source.describe(len(docs))
            left_out = labelled.id_columns
        else:
            extra = None
            with batch_runner(workers, scheduler) as runner:
                if model in ROUND_MODELS:
                    trained = streaming.train_rounds(
                        lambda: open_data(data, target, text, options, batch_size),
                        model, alpha, integers, options.merge, runner=runner, settings=chosen,
                    )  # fmt: skip
                else:
                    source = open_data(data, target, text, options, batch_size)
                    trained = streaming.train(
                        source, model, alpha, integers, options.merge, runner=runner,
                        max_terms=max_terms,
                        reopen=lambda: open_data(data, target, text, options, batch_size),
                        settings=chosen,
                    )  # fmt: skip
            estimator = trained.model
            left_out = list(trained.data.id_columns)
            if (
                model in DEFAULT_TEXT_MODELS
                and contract_of(estimator).decision == "spam"
                and estimator.calibration_folds is None  # more than one batch: not yet calibrated
            ):
                # SpamFilter()'s calibrated probabilities: held-out scores of a sample of DATA
                estimator = streaming.calibrate(
                    estimator,
                    lambda: open_data(data, target, text, options, batch_size),
                    trained.rows,
                )
            described = trained.describe()
            if target is not None and not _is_folder(data, options):
                note_quantity_as_target(estimator.classes_, trained.rows, target, data)
        save_model(estimator, output, reading=options.reading(target, left_out))
        seconds = time.perf_counter() - start
        console = out_console()
        console.print(f"data: {data} — {described}")
        console.print(f"model: {describe(estimator)}")
        families = families_line(estimator)
        if families:
            console.print(f"families: {families}")
        if extra is not None:
            shown = "standard input" if unlabeled == "-" else unlabeled
            console.print(f"unlabelled: {shown} — {extra}, learnt from by EM")
        size = human_size(os.path.getsize(output))
        console.print(f"wrote {output} ({size}) in {seconds:.2f} s")
        console.print(f"next: bayeskit inspect {output}; bayeskit predict {output} NEW_DATA")
