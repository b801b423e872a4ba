"""``python -m bayeskit``: the README's main job, ``bayeskit quickstart`` — train a spam filter on
the bundled SMS Spam Collection and report its 10-fold cross-validated quality and how long that
took. With a subcommand (``python -m bayeskit train …``) it is the ``bayeskit`` command."""

from __future__ import annotations

import sys

from .cli import main as cli_main

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # the main job: no command line to parse, so no typer
        from .cli.main_job import main as main_job

        return main_job()
    if args[:1] == ["filter"]:  # a mail filter starts once per message: no command table
        return cli_main(args)
    try:
        from .cli.app import COMMANDS
    except KeyboardInterrupt:  # Ctrl-C while starting up
        from .cli.errors import interrupted

        return interrupted()
    first = next((a for a in args if a != "--debug"), None)
    if first not in COMMANDS and first not in ("-h", "--help", "--version"):
        args = ["quickstart", *args]
    return cli_main(args)


if __name__ == "__main__":
    code = main()
    if code == 130:  # interrupted: see cli.errors.leave (which imports typing, which the
        # mail filter's start-up does not pay for)
        from .cli.errors import leave

        leave(code)
    sys.exit(code)
