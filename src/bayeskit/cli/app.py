"""The ``bayeskit`` command: a typer app whose subcommands load only when they run.

Each subcommand is a typer-annotated function in its own module of this package, registered
below with one line: ``command(NAME, "module:function", ONE_LINE_HELP)``. ``bayeskit --help``
lists the commands from these lines and ``bayeskit --version`` answers without importing any
command, so neither pays for numpy, scikit-learn, polars or numba; ``bayeskit NAME ...``
imports the one module it needs. The one-line help is the first sentence of the function's
docstring (a test keeps them equal). Outcomes become exit codes in :mod:`bayeskit.cli.errors`.
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from .._version import __version__
from .errors import USAGE_OR_DATA, ReaderGone, UsageError, run_guarded, warnings_as_lines

HELP = """Bayesian (Naive Bayes) classification from the command line: a data file in; a model,
its measured quality and its predictions out.

DATA is a table (.csv, .tsv, .jsonl, .parquet) with a --target column, or a folder with one
sub-folder per class holding text files or e-mails (.eml, raw messages, mbox files).

Exit codes: 0 done; 2 a usage or data error (one line says what and how to fix it); 1 a bug;
130 interrupted (Ctrl-C; nothing is left half-written). --debug anywhere on the command line
shows the traceback of an error."""

#: Help pages in click's plain text, not typer's rich panels: those import rich's Markdown
#: renderer (markdown-it, pygments) and its tracebacks whatever the page holds, about 0.25 s
#: of CPU where ``bayeskit COMMAND --help`` has 0.3 s in all. The plain page says the same:
#: usage, text, arguments and options with their metavars, defaults and ranges.
_MARKUP = None
_CONTEXT = {"help_option_names": ["-h", "--help"]}
_LISTING = "bayeskit.listing"  # ctx.meta key: help is listing the commands, not running one


@dataclass(frozen=True)
class LazyCommand:
    """Where a subcommand's function lives ("module:function" in this package) and its
    one-line help."""

    target: str
    summary: str
    hidden: bool = False
    #: a command a mail delivery agent runs on one message (``bayeskit filter``): a mistake in
    #: its options passes the message through with the filter's error status
    mail_filter: bool = False

    def function(self) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)


COMMANDS: dict[str, LazyCommand] = {}


def command(
    name: str, target: str, summary: str, *, hidden: bool = False, mail_filter: bool = False
) -> None:
    """Register the subcommand ``name``: run by ``target`` ("module:function")."""
    COMMANDS[name] = LazyCommand(target, summary, hidden, mail_filter)


# ------------------------------------------------------------------ the subcommands
command(
    "quickstart",
    "quickstart:quickstart",
    "Train and cross-validate a spam filter on the bundled SMS Spam Collection (Almeida et "
    "al., 2011; CC BY 4.0) in a few seconds, then say what to try next.",
)
command(
    "example",
    "example:example",
    "Write an example dataset to try the commands on: the bundled SMS Spam Collection or one "
    "of scikit-learn's tables, as CSV.",
)
command(
    "train",
    "train:train",
    "Train a model on DATA and write it to a model file (a zip of JSON and arrays that never "
    "runs code when loaded).",
)
command(
    "evaluate",
    "evaluate:evaluate",
    "Measure a model: accuracy, macro-F1, log-loss, per-class precision and recall, the "
    "confusion matrix, ROC-AUC for two classes.",
)
command(
    "predict",
    "predict:predict",
    "Predict DATA with a trained model: one row per input with the predicted label and the "
    "probability of each class (CSV or JSON lines).",
)
command(
    "explain",
    "inspect_cmd:explain",
    "The contributions behind one decision: the log-odds of the predicted class against the "
    "runner-up, split exactly into the prior and one term per feature.",
)
command(
    "inspect",
    "inspect_cmd:inspect",
    "What a model file holds: the model, its classes and priors, the family of each column "
    "and why it has it, a Bayesian network's structure (each feature's parents) and the "
    "features that most favour each class.",
)
command(
    "serve",
    "serve:serve",
    "Serve MODEL over HTTP: MLflow's /invocations, /check and /learn for text models, and a "
    "web page at /.",
)
command(
    "filter",
    "filter_cmd:filter_mail",
    "Classify one e-mail from standard input into standard output with X-Bayeskit-Spam and "
    "X-Bayeskit-Score headers added.",
    mail_filter=True,
)
command(
    "merge",
    "merge:merge",
    "Merge model files trained on different data into the model of all of it (e.g. models "
    "trained on separate machines or months).",
)
command(
    "report",
    "report:report",
    "Cross-validate a model on DATA and write one self-contained HTML page: confusion "
    "matrix, ROC and precision-recall curves, calibration, the class-conditional densities "
    "of the most useful numeric features and the top words per class.",
)


# ------------------------------------------------------------------ help that reads well
def _tidy(command: Any, ctx: Any) -> None:
    """No type in the help for a flag (typer prints ``--json <bool>``, as if it took a value)
    or for an argument already named by its metavar (``DATA``, not ``DATA <str>``)."""
    for param in command.get_params(ctx):
        if getattr(param, "is_flag", False):
            param.metavar = ""
        elif getattr(param, "param_type_name", "") == "argument" and param.metavar:
            setattr(param, "display_type_rich", lambda ctx: None)  # noqa: B010 - an instance


def _plain_usage(pieces: list[str]) -> list[str]:
    """``DATA`` and ``[DATA]`` in the usage line, not typer's ``{DATA}``."""
    return [re.sub(r"^\{(.+)\}(\.\.\.)?$", r"\1\2", piece) for piece in pieces]


def guarded(function: Any) -> Any:
    """``function`` (a command) refusing, before it starts, a float option given as ``nan``,
    ``inf`` or ``-inf`` (which Python's ``float`` reads, and typer passes on): no command runs
    with a timeout, an interval or a smoothing that is not a number. A reader of its output
    that went away ends it as :class:`~.errors.ReaderGone` (click would exit with status 1)."""
    flags = _option_flags(function)

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        for name, value in kwargs.items():
            if isinstance(value, float) and not math.isfinite(value):
                raise typer.BadParameter(
                    f"{value!r} is not a finite number", param_hint=flags.get(name, name)
                )
        try:
            return function(*args, **kwargs)
        except BrokenPipeError:
            raise ReaderGone from None

    return checked


def _option_flags(function: Any) -> dict[str, str]:
    """Each parameter's first option name (``--timeout``), from its typer annotation."""
    import inspect
    import typing

    flags = {}
    hints = typing.get_type_hints(function, include_extras=True)
    for name, param in inspect.signature(function).parameters.items():
        infos = [*getattr(hints.get(name), "__metadata__", ()), param.default]
        for info in infos:
            # in an Annotated option, typer reads a first argument "--name" as a name
            first = getattr(info, "default", None)
            named = [first, *(getattr(info, "param_decls", None) or ())]
            decls = [d for d in named if isinstance(d, str) and d.startswith("--")]
            if decls:
                flags[name] = decls[0]
                break
    return flags


class BayeskitCommand(TyperCommand):
    """A subcommand whose help shows flags without a type and arguments without braces."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _plain_usage(super().collect_usage_pieces(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _tidy(self, ctx)
        super().format_help(ctx, formatter)


class MailFilterCommand(BayeskitCommand):
    """A command a mail delivery agent runs once per message: a mistake in its command line
    must not eat the mail, nor read as a verdict (exit status 2 is "unsure" to a filter). The
    message on standard input goes out unchanged, the mistake is said on one line and the
    status is the filter's error status, 3 (bogofilter's convention)."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except UsageError as exc:
            from .errors import usage_line
            from .mail_headers import ERROR, pass_on_input

            pass_on_input()
            where = f"{parent.command_path if parent is not None else 'bayeskit'} {info_name}"
            if getattr(exc, "option_name", None) is not None:  # (click's NoSuchOption)
                # the options it takes, not click's guess of one or two close to the mistake
                mistake: Any = exc
                mistake.possibilities = None
                mistake.message = f"{mistake.message}; it takes {self._accepted(mistake.ctx)}"
            print(usage_line(exc, where), file=sys.stderr)
            raise typer.Exit(ERROR) from None

    def _accepted(self, ctx: Any) -> str:
        """The options the command takes, as its help names them: ``--learn spam|ham, ...``."""
        names = []
        for param in self.get_params(ctx) if ctx is not None else self.params:
            if param.param_type_name == "option" and not getattr(param, "hidden", False):
                metavar = param.metavar or (param.name or "value").upper()
                value = "" if getattr(param, "is_flag", False) else f" {metavar}"
                names.append("/".join(sorted(param.opts, key=len)) + value)
        return ", ".join(names)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None and option.callback is not _help_or_pass_on:
            option.callback = _help_or_pass_on
        return option


def _help_or_pass_on(ctx: Any, param: Any, value: bool) -> None:
    """``-h``/``--help`` of a mail filter. At a terminal, the help on standard output, status
    0. With standard input not a terminal — a filter recipe's command line, where standard
    output replaces the message — the help goes to standard error and the message through
    unchanged, with the status of any mistake in the command line, 3."""
    if not value or ctx.resilient_parsing:
        return
    from .mail_headers import ERROR, at_a_terminal, fail, pass_on_input

    if at_a_terminal():
        typer.echo(ctx.get_help(), color=ctx.color)
        raise typer.Exit(0)
    print(ctx.get_help(), file=sys.stderr)
    pass_on_input()
    fail(
        "-h/--help with standard input not a terminal (a filter recipe): the help is on "
        "standard error, the message passed through unchanged"
    )
    raise typer.Exit(ERROR)


class BayeskitGroup(TyperGroup):
    """The ``bayeskit`` group: loads a subcommand when it runs, lists them from
    :data:`COMMANDS` for the help, and runs with click's own error printing off so that every
    error is one line and ``--debug`` (accepted anywhere) shows the traceback."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*self.commands, *(name for name in COMMANDS if name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = self.commands.get(cmd_name)
        if found is not None:
            return found
        lazy = COMMANDS.get(cmd_name)
        if lazy is None:
            return None
        if ctx.meta.get(_LISTING):  # the group's help: name and summary, nothing imported
            return TyperCommand(
                cmd_name,
                help=lazy.summary,
                short_help=lazy.summary,  # whole, as written: click would cut it to a line
                hidden=lazy.hidden,
                rich_markup_mode=_MARKUP,
            )
        sub = typer.Typer(rich_markup_mode=_MARKUP, context_settings=_CONTEXT, add_completion=False)
        command = guarded(lazy.function())
        kind = MailFilterCommand if lazy.mail_filter else BayeskitCommand
        sub.command(cmd_name, cls=kind, hidden=lazy.hidden)(command)
        loaded = typer.main.get_command(sub)
        self.commands[cmd_name] = loaded
        return loaded

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            # No command: the help on standard output and the usage status, 2 (click would
            # raise it as a usage error whose message is the whole page).
            typer.echo(ctx.get_help())
            raise typer.Exit(USAGE_OR_DATA)
        rest: list[str] = super().parse_args(ctx, args)
        return rest

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            # Not given, the flag is False, not None: typer checks a value that is not yet a
            # bool through a pydantic adapter, and importing pydantic for the group's
            # unused --help (``bayeskit train --help``) costs more than the rest of the page.
            option.default = False
        return option

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as exc:
            # typer suggests close names among the loaded commands only: offer them all
            close = get_close_matches(args[0], list(COMMANDS)) if args else []
            message = str(getattr(exc, "message", ""))
            if close and "Did you mean" not in message:
                names = ", ".join(repr(c) for c in close)
                exc.message = f"{message.rstrip('.')}. Did you mean {names}?"  # type: ignore[attr-defined]
            raise

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _tidy(self, ctx)
        ctx.meta[_LISTING] = True
        try:
            super().format_help(ctx, formatter)
        finally:
            ctx.meta.pop(_LISTING, None)

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
        from .._jit import announce_compiling

        announce_compiling()  # a first run after installing says why it is slow
        with warnings_as_lines():
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
    rich_markup_mode=_MARKUP,
    context_settings=_CONTEXT,
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
