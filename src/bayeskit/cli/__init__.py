"""The ``bayeskit`` command line (installed as a console script; also ``python -m bayeskit.cli``).

Subcommands: ``quickstart``, ``example``, ``train``, ``evaluate``, ``predict``, ``explain``,
``inspect``, ``serve``, ``merge`` and ``report`` (registered in :mod:`bayeskit.cli.app`);
``bayeskit COMMAND --help`` describes each. :func:`main` runs it and returns the exit code
(0 done, 2 usage or data error, 1 bug, 130 interrupted).
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: "Sequence[str] | None" = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    put_back = None
    if args[:1] == ["filter"]:  # one message, as a mail delivery agent runs it: no typer
        from .filter_fast import main as filter_one

        status = filter_one(args[1:])
        if status is not None:
            return status
        from .mail_headers import said_when_terminated

        put_back = said_when_terminated(args)  # a learner: its start takes seconds
    elif args[:1] == ["serve"]:  # loading the model and replaying its journal take seconds
        from .serve import said_when_stopped_while_starting

        put_back = said_when_stopped_while_starting()
    try:
        return _run(args)
    finally:
        if put_back is not None:
            put_back()


def _run(args: "list[str]") -> int:
    try:
        from typer.main import get_command

        from .app import app

        code: int = get_command(app).main(args=args, prog_name="bayeskit", standalone_mode=False)
    except KeyboardInterrupt:  # Ctrl-C while starting up, before the command's own guard
        from .errors import interrupted

        return interrupted()
    return code
