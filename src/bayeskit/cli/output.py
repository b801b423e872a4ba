"""What the command line writes: results on standard output, notes and progress on standard
error, files written atomically (a temporary file beside the target, then a rename).

An output file is checked before any work is done (:func:`check_output_path`): never one of
the command's inputs, and an existing file only when it is what the command writes (a model
file for ``train``, a report for ``report``...) or with ``--force``.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..io.readers import ReadError
from .errors import record_written

if TYPE_CHECKING:
    from rich.console import Console


def _console_classes() -> tuple[Any, Any]:
    from rich.console import Console

    from .._visible import visible

    class VisibleConsole(Console):
        def print(self, *objects: Any, **options: Any) -> None:
            # names from the data (classes, columns, categories) may hold control characters
            # that reorder or hide what follows them on a terminal: shown as their escapes
            shown = [visible(o) if isinstance(o, str) else o for o in objects]
            super().print(*shown, **options)

    class PipedConsole(VisibleConsole):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; the command line stops quietly instead, as
            # Unix tools do when the reader of their output went away (``| head``)
            self.quiet = True
            raise BrokenPipeError

    return VisibleConsole, PipedConsole


def out_console() -> Console:
    """A console on the current standard output (looked up each time: tests swap it)."""
    console: Console = _console_classes()[1](
        file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True
    )
    return console


def err_console() -> Console:
    """A console on standard error, for a summary when standard output carries the data."""
    console: Console = _console_classes()[0](
        file=sys.stderr, highlight=False, markup=False, emoji=False, soft_wrap=True
    )
    return console


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
    from .progress import Meter  # rich: loaded when a command runs, not for --help

    with Meter(description, unit=unit, total=total) as meter:

        def update(done: int, total: int | None = None) -> None:
            meter.update(done, total)

        yield update


def check_output_path(
    path: str | os.PathLike[str],
    *,
    inputs: Sequence[str | os.PathLike[str] | None] = (),
    force: bool = False,
    replaceable: Callable[[Path], bool] | None = None,
    what: str = "an output of this command",
) -> None:
    """Refuse, before any work is done, an output path that cannot or must not be written: a
    folder, a missing or read-only folder, one of the command's ``inputs`` (a file, or a path
    inside an input folder), or an existing file that is not ``what`` the command writes
    (``replaceable(path)`` says whether it is) unless ``force``."""
    target = Path(path)
    if target.is_dir():
        raise ReadError(f"{target}: is a folder; give a file name", path=str(target))
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ReadError(
            f"{target}: the folder {str(parent)!r} does not exist; create it first",
            path=str(target),
        )
    for source in inputs:
        if source is not None and os.fspath(source) != "-" and _is_within(target, Path(source)):
            inside = "inside the input folder" if Path(source).is_dir() else "the input file"
            named = "" if os.fspath(source) == os.fspath(path) else f" {os.fspath(source)}"
            raise ReadError(
                f"{target}: is {inside}{named}; write the output to another file (this would "
                "replace the data)",
                path=str(target),
            )
    _check_replaceable(target)  # even with --force
    if target.exists() and not force and not (replaceable is not None and replaceable(target)):
        raise ReadError(
            f"{target}: the file exists and is not {what}; pass --force to replace it, or "
            "write to another file",
            path=str(target),
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ReadError(
            f"{target}: cannot write in the folder {str(parent)!r} (permission denied); "
            "write somewhere else",
            path=str(target),
        )
    _check_writable(parent, target)


def _check_replaceable(target: Path) -> None:
    """Refuse an output path holding something other than a regular file (a link followed):
    the rename that finishes the write would put a file in the place of a device node
    (``/dev/null``: run as root, the system's own), a FIFO or a socket, ``--force`` or not."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # nothing there (or a dangling link): a new file is written
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # (a folder: refused by name above)
        raise ReadError(
            f"{target}: is not a regular file (a device, FIFO or socket), and writing the "
            "output would replace it, --force or not; write to a regular file",
            path=str(target),
        )


def _is_within(target: Path, source: Path) -> bool:
    """``target`` is the file ``source`` or lies inside the folder ``source``."""
    try:
        if source.is_dir():
            return target.resolve().is_relative_to(source.resolve())
        return target.exists() and source.exists() and os.path.samefile(target, source)
    except OSError:
        return False


def _check_writable(folder: Path, target: Path) -> None:
    """Create and remove a temporary file in ``folder``: permission bits say nothing about a
    read-only file system, or to the superuser."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ReadError(
            f"{target}: cannot write in the folder {str(folder)!r} ({reason.lower()}); write "
            "somewhere else",
            path=str(target),
        ) from None


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` all at once: a reader, or a failure, never sees a partial
    file, and a failure leaves no temporary file behind."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())

    _replace_via_temporary(target, write)


def save_model(
    model: Any,
    path: str | os.PathLike[str],
    reading: dict[str, Any] | None = None,
    *,
    before_replace: Callable[[str], None] | None = None,
) -> None:
    """Write ``model`` to a model file at ``path`` atomically, and only a file that loads
    back: a model that ``predict`` would refuse is never written. ``reading``: how the
    training data was read (kept in the file for ``predict``). ``before_replace(tmp)`` runs
    on the finished temporary file just before it replaces ``path`` (a failure there leaves
    ``path`` as it was)."""
    from ..errors import ModelFileError
    from ..io.model_file import load, save

    def write(tmp: str) -> None:
        save(model, tmp, reading=reading)
        try:
            load(tmp)
        except ModelFileError as exc:
            problem = " ".join(str(exc).split()).removeprefix(f"cannot load model file {tmp!r}: ")
            raise ReadError(
                f"{path}: not written: the trained model does not load back ({problem})",
                path=os.fspath(path),
            ) from None

    _replace_via_temporary(Path(path), write, before_replace)


def _replace_via_temporary(
    target: Path,
    write: Callable[[str], None],
    before_replace: Callable[[str], None] | None = None,
) -> None:
    """``write(tmp)`` a temporary file beside ``target``, then rename it over ``target``
    (keeping the mode of a file it replaces). Errors name ``target``, never the temporary
    file; the temporary file never outlives a failure (Ctrl-C included)."""
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise ReadError(
            f"{target}: the folder {str(directory)!r} does not exist; create it first",
            path=str(target),
        )
    _check_replaceable(target)
    mode = _mode_for(target)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        os.close(fd)
        write(tmp)
        os.chmod(tmp, mode)
        if before_replace is not None:
            before_replace(tmp)
        _check_replaceable(target)  # (checked before the work; a node made there since)
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
        raise ReadError(f"{target}: cannot be written ({reason})", path=str(target)) from None
    except BaseException:
        _remove(tmp)
        raise
    record_written(target)


def _remove(path: str | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _mode_for(target: Path) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


# ------------------------------------------------------------------ what each command writes
def is_model_file(path: Path) -> bool:
    """A bayeskit model file (its zip comment ends the file with bayeskit's checksum)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 256))
            return b"bayeskit-sha256:" in f.read()
    except OSError:
        return False


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
