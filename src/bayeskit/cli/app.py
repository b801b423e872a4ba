"""The ``bayeskit`` command: a typer app whose group turns every outcome into an exit code
(see :mod:`bayeskit.cli.errors`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .._version import __version__
from .errors import run_guarded

HELP = """Bayesian (Naive Bayes) classification from the command line: a data file in; a model,
its measured quality and its predictions out.

DATA is a table (.csv, .tsv, .jsonl, .parquet) with a --target column, or a folder with one
sub-folder per class holding text files or e-mails (.eml, raw messages, mbox files).

Exit codes: 0 done; 2 a usage or data error (one line says what and how to fix it); 1 a bug.
--debug anywhere on the command line shows the traceback of an error."""


class BayeskitGroup(TyperGroup):
    """Runs the command with click's own error printing off, so that every error is one line
    and ``--debug`` (accepted anywhere) shows the traceback."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv or os.environ.get("BAYESKIT_DEBUG", "") not in ("", "0")
        argv = [a for a in argv if a != "--debug"]
        code = run_guarded(
            lambda: super(BayeskitGroup, self).main(
                args=argv,
                prog_name=prog_name or "bayeskit",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            ),
            debug=debug,
        )
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    name="bayeskit",
    cls=BayeskitGroup,
    help=HELP,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"bayeskit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Bayesian (Naive Bayes) classification from the command line."""


def _register() -> None:
    from . import evaluate, inspect_cmd, merge, predict, quickstart, report, train

    for module in (quickstart, train, evaluate, predict, inspect_cmd, report, merge):
        module.register(app)


_register()
