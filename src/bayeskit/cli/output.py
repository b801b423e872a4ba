"""What the command line writes: results on standard output, notes and progress on standard
error, files written atomically (a temporary file beside the target, then a rename)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

from ..io.readers import ReadError
from .progress import Meter


def out_console() -> Console:
    """A console on the current standard output (looked up each time: tests swap it)."""
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


def note(message: str) -> None:
    """One line on standard error for the user (a choice made for them, a warning)."""
    print(f"note: {message}", file=sys.stderr)


@contextlib.contextmanager
def progress(
    description: str, total: int | None, unit: str = "done"
) -> Iterator[Callable[..., None]]:
    """Progress on standard error while the block runs (:class:`~bayeskit.cli.progress.Meter`:
    a bar on a terminal, a plain periodic line elsewhere); yields ``update(done, total=None)``
    (``total`` when it becomes known)."""
    with Meter(description, unit=unit, total=total) as meter:

        def update(done: int, total: int | None = None) -> None:
            meter.update(done, total)

        yield update


def check_output_path(path: str | os.PathLike[str]) -> None:
    """Refuse an output path that cannot be written before any work is done."""
    target = Path(path)
    if target.is_dir():
        raise ReadError(f"{target}: is a folder; give a file name", path=str(target))
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ReadError(
            f"{target}: the folder {str(parent)!r} does not exist; create it first",
            path=str(target),
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ReadError(
            f"{target}: cannot write in the folder {str(parent)!r} (permission denied); "
            "write somewhere else",
            path=str(target),
        )


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` all at once: a reader, or a failure, never sees a partial
    file, and a failure leaves no temporary file behind."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise ReadError(
            f"{target}: the folder {str(directory)!r} does not exist; create it first",
            path=str(target),
        )
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def human_size(n_bytes: int) -> str:
    """``512 B``, ``12.3 KB``, ``4.5 MB``."""
    size = float(n_bytes)
    for unit in ("B", "KB", "MB"):
        if size < 1000 or unit == "MB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"  # pragma: no cover


def fmt_num(value: Any, digits: int = 4) -> str:
    """A metric for people: ``0.9921``; ``n/a`` for None."""
    return "n/a" if value is None else f"{value:.{digits}f}"
