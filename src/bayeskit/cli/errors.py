"""One line for every mistake a user can make, exit code 2; a traceback only with ``--debug``.

Usage errors (an unknown option, a missing argument) and data errors (a missing file, a
ragged CSV row, an unknown column, a file that is not a model) end the command with exit code
2 and one line on standard error naming the file, line or column and the fix. Anything else is
a bug in bayeskit: one line saying so, exit code 1. Ctrl-C, at any moment (starting up, reading,
fitting, saving), ends with exit code 130 and one line saying what was written (nothing, unless
an output file was complete by then). ``--debug`` (anywhere on the command line) or
``BAYESKIT_DEBUG=1`` prints the traceback as well.

Imports stay light: ``bayeskit --version`` goes through here, and so does the main job
(``python -m bayeskit``), which imports no typer; typer's exceptions are looked up only when
typer is loaded (nothing else raises them).
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn


def _base(name: str) -> type[Exception]:
    # typer >= 0.29 vendors click; older releases use click itself. Both are reached through
    # typer's public BadParameter.
    import typer

    return next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)


def __getattr__(name: str) -> type[Exception]:
    """``UsageError`` and ``ClickException``: typer's (click's) classes, imported on first use."""
    if name in ("UsageError", "ClickException"):
        return _base(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


USAGE_OR_DATA = 2
BUG = 1
INTERRUPTED = 130

_written: list[str] = []


class ReaderGone(Exception):  # noqa: N818 (an event, not an error of the user's)
    """The reader of standard output went away (``bayeskit … | head -1``). A command raises
    this for the BrokenPipeError it met: click would turn that into exit status 1."""


def record_written(path: str | os.PathLike[str]) -> None:
    """Note an output file the command has completed (Ctrl-C afterwards says so)."""
    _written.append(os.fspath(path))


def interrupted(prog: str = "bayeskit") -> int:
    """Say that Ctrl-C stopped the command, and what it had written; the exit code 130."""
    done = f"wrote {', '.join(_written)} before that" if _written else "nothing written"
    _flush_stdout()
    print(f"{prog}: interrupted; {done}", file=sys.stderr)
    return INTERRUPTED


def leave(code: int) -> NoReturn:
    """End the process with exit code ``code`` (``sys.exit``), 130 too when run as ``python -m
    bayeskit``. There CPython ends the process by SIGINT after it finalizes when a
    KeyboardInterrupt ever ended a string ``exec`` or ``eval`` — dataclasses and named tuples
    build their methods so, while a command imports its libraries — even one the command
    caught: 130 is then the status of a process left before that check, its output flushed
    (what the command opened was closed as the interrupt unwound it)."""
    if code != INTERRUPTED:
        sys.exit(code)
    with contextlib.suppress(BaseException):  # (a second Ctrl-C, a closed output)
        _flush_stdout()
        sys.stderr.flush()
    os._exit(code)


def _is_bayeskit_error(exc: BaseException) -> bool:
    # bayeskit.errors imports scikit-learn: look it up only if something imported it (no
    # BayeskitError can have been raised otherwise)
    errors = sys.modules.get("bayeskit.errors")
    return errors is not None and isinstance(exc, errors.BayeskitError)


def one_line(text: str) -> str:
    """The message on one line (library messages sometimes list items on several)."""
    return " ".join(str(text).split())


def usage_line(exc: Any, where: str | None = None) -> str:
    """A usage error on one line, with where to look for help (``where``: the command, when
    not the one the error names)."""
    ctx = getattr(exc, "ctx", None)
    if where is None:
        where = ctx.command_path if ctx is not None else "bayeskit"
    return f"{where}: error: {one_line(exc.format_message())} (see '{where} --help')"


def run_guarded(call: Callable[[], Any], *, debug: bool, prog: str = "bayeskit") -> int:
    """Run ``call`` (the command line) and turn its outcome into an exit code."""
    _written.clear()
    try:
        result = call()
    except KeyboardInterrupt:
        if debug:
            traceback.print_exc()
        return interrupted(prog)
    except (BrokenPipeError, ReaderGone):
        # The reader of our output went away (``| head``): stop quietly, as Unix tools do.
        _silence_stdout()
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception as exc:
        return _outcome(exc, prog, debug)
    if result == INTERRUPTED:  # typer turned a KeyboardInterrupt into Exit(130)
        return interrupted(prog)
    # What is still buffered goes out now: a reader gone by then (``| head -1``) is a quiet
    # end here, not an "Exception ignored" at the interpreter's exit.
    _flush_stdout()
    return result if isinstance(result, int) else 0


def _outcome(exc: Exception, prog: str, debug: bool) -> int:
    """The exit code of a command that raised ``exc`` (said on one line)."""
    typer = sys.modules.get("typer")  # not loaded: none of its errors can have been raised
    if typer is not None:
        if isinstance(exc, _base("UsageError")):
            return _fail(usage_line(exc), USAGE_OR_DATA, debug)
        if isinstance(exc, typer.Abort):
            if debug:
                traceback.print_exc()
            return interrupted(prog)
        if isinstance(exc, _base("ClickException")):
            message = one_line(exc.format_message())  # type: ignore[attr-defined]
            return _fail(f"{prog}: error: {message}", getattr(exc, "exit_code", 1), debug)
    if isinstance(exc, OSError):
        if _is_bayeskit_error(exc):  # also an OSError: a Dask scheduler that cannot be reached
            return _fail(f"{prog}: error: {one_line(str(exc))}", USAGE_OR_DATA, debug)
        if exc.filename is not None:
            what = exc.strerror or type(exc).__name__
            return _fail(f"{prog}: error: {exc.filename}: {what}", USAGE_OR_DATA, debug)
        return _bug(exc, prog, debug)
    if _is_bayeskit_error(exc):
        return _fail(f"{prog}: error: {one_line(str(exc))}{_hint(exc)}", USAGE_OR_DATA, debug)
    return _bug(exc, prog, debug)


def _hint(exc: Exception) -> str:
    """How the command line sets what the library's message names (a singular covariance:
    ``reg_param``, ``gamma``, ``lam``, ``shrinkage``, ``solver``: ``--set``), and what else
    it can do."""
    from ..errors import SingularCovarianceError

    if isinstance(exc, SingularCovarianceError):
        return (
            " (on the command line: --set NAME=VALUE, such as --set reg_param=0.1; or "
            "--model lda, which works in the span of collinear columns, or a naive Bayes "
            "model, which needs no covariance)"
        )
    return ""


def _fail(line: str, code: int, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    _flush_stdout()
    from .._visible import visible  # names from the data: no character hides itself here

    print(visible(line), file=sys.stderr)
    return code


def _bug(exc: BaseException, prog: str, debug: bool) -> int:
    hint = "" if debug else "; run again with --debug for the traceback"
    return _fail(
        f"{prog}: internal error: {type(exc).__name__}: {one_line(str(exc))} — this is a bug in "
        f"bayeskit, please report it{hint}",
        BUG,
        debug,
    )


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except AttributeError:  # a closed standard output (``>&-``) is None: nothing to flush
        pass
    except (OSError, ValueError):
        _silence_stdout()


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class rows_of:  # noqa: N801 (used as a ``with`` statement, as contextlib's helpers are)
    """A :class:`~bayeskit.errors.DataError` a model raises about one row of a file's rows
    names the file and the row, counted from 1 as a reader counts data rows.

    ``rows``: where the model's rows are in the file — the first one's place (a batch's
    rows read after ``rows`` others), or each one's (a fold's rows, 0-based).
    """

    def __init__(self, source: str, rows: int | Any = 0):
        self.source = source
        self.rows = rows

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        from ..errors import DataError

        if not isinstance(exc, DataError) or exc.row is None or exc.detail is None:
            return
        try:
            at = exc.row + self.rows if isinstance(self.rows, int) else int(self.rows[exc.row])
        except (IndexError, TypeError):  # not a row of these: leave the message as it was
            return
        located = type(exc)(f"{self.source}, row {at + 1}: {exc.detail}")
        raise located.with_traceback(tb) from None


class warnings_as_lines:  # noqa: N801 (a ``with`` statement, as contextlib's helpers are)
    """While a command runs, each warning is one line on standard error, ``warning: …``,
    said once however many times it is given (a model warns at every fit of a cross-validation
    and again when saved): Python's own form printed the source line and the file of the
    code that warned, which a user of the command line has nothing to do with."""

    def __enter__(self) -> None:
        import warnings

        seen: set[str] = set()

        def show(
            message: Any,
            category: Any,
            filename: Any,
            lineno: Any,
            file: Any = None,
            line: Any = None,
        ) -> None:
            text = " ".join(str(message).split())
            if text not in seen:
                seen.add(text)
                print(f"warning: {text}", file=sys.stderr)

        self._previous = warnings.showwarning
        warnings.showwarning = show

    def __exit__(self, *exc: Any) -> None:
        import warnings

        warnings.showwarning = self._previous
