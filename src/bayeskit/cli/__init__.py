"""The ``bayeskit`` command line (installed as a console script; also ``python -m bayeskit.cli``).

Subcommands: ``quickstart``, ``train``, ``evaluate``, ``predict``, ``explain``, ``inspect`` and
``report``; ``bayeskit COMMAND --help`` describes each. :func:`main` runs it and returns the exit
code (0 done, 2 usage or data error, 1 bug).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    from typer.main import get_command

    from .app import app

    code: int = get_command(app).main(args=argv, prog_name="bayeskit", standalone_mode=False)
    return code
