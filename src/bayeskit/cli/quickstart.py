"""``bayeskit quickstart`` (also plain ``python -m bayeskit``): train a spam filter on the bundled
SMS Spam Collection, report its cross-validated quality and what to try next (the work is
:mod:`.main_job`'s)."""

from __future__ import annotations

from typing import Annotated

import typer

from .options import FOLDS_HELP, FoldsAliasOpt, folds_of


def quickstart(
    folds: Annotated[int, typer.Option("--folds", metavar="N", help=FOLDS_HELP)] = 10,
    alpha: Annotated[
        float | None, typer.Option("--alpha", metavar="A", help="Additive smoothing (≥ 0).")
    ] = None,
    words: Annotated[
        bool,
        typer.Option(
            "--words",
            help="scikit-learn's pipeline (bag of words + MultinomialNB) instead of the "
            "default spam filter.",
        ),
    ] = False,
    cv: FoldsAliasOpt = None,
) -> None:
    """Train and cross-validate a spam filter on the bundled SMS Spam Collection (Almeida et
    al., 2011; CC BY 4.0) in a few seconds, then say what to try next."""
    from .main_job import run

    folds = folds_of(folds, cv)
    if folds < 2:
        raise typer.BadParameter("--folds must be at least 2")
    if alpha is not None and alpha < 0:
        raise typer.BadParameter("--alpha must be at least 0")
    run(folds, alpha, words)
