"""Progress of long steps, on standard error.

On a terminal: a rich bar with the count done (rows, files, folds), the megabytes read, the
rate (MB/s, or items per second) and, when the size is known, the time left; removed when the
step ends. Elsewhere (a log file, a pipe, CI): one plain line every ``BAYESKIT_PROGRESS_SECONDS``
seconds (default 10) — nothing for a step shorter than that — such as::

    training: 2,300,000 rows, 231.5 MB, 23.1 MB/s, 10 s, about 35 s left
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.progress import Progress

_DEFAULT_SECONDS = 10.0


def _interval() -> float:
    try:
        return float(os.environ.get("BAYESKIT_PROGRESS_SECONDS", _DEFAULT_SECONDS))
    except ValueError:
        return _DEFAULT_SECONDS


def _maybe_terminal() -> bool:
    """Whether standard error may be a terminal by rich's rules (a tty, or the environment
    saying so): only then is rich (a tenth of a second) imported to draw a bar and decide."""
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE", "") == "1":
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced, or closed
        return False


def _count(n: float) -> str:
    return f"{int(n):,}"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Meter:
    """The progress of one step (a context manager).

    Parameters
    ----------
    description : what the step does ("training", "reading files")
    unit : what is counted ("rows", "files", "folds")
    total : how many there are, when known
    total_bytes : how many bytes the step reads, when known (then the rate is in MB/s and
        the time left follows the bytes)
    """

    def __init__(
        self,
        description: str,
        *,
        unit: str = "rows",
        total: int | None = None,
        total_bytes: int | None = None,
    ):
        self.description, self.unit = description, unit
        self.total, self.total_bytes = total, total_bytes
        self.done = 0
        self.nbytes = 0
        self._console: Any = None
        self._terminal = _maybe_terminal() and self._rich_console().is_terminal
        self._interval = _interval()
        self._start = self._last = time.perf_counter()
        self._bar: Progress | None = None
        self._task: Any = None

    def _rich_console(self) -> Any:
        from rich.console import Console

        self._console = Console(file=sys.stderr)
        return self._console

    def __enter__(self) -> Meter:
        if self._terminal:
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self._console,
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(self.description, total=None, counts="")
            self._show()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, value, traceback)

    def advance(self, count: int = 0, nbytes: int = 0) -> None:
        """``count`` more items done, having read ``nbytes`` more bytes."""
        self.update(self.done + count, nbytes=self.nbytes + nbytes)

    def update(self, done: int, total: int | None = None, *, nbytes: int | None = None) -> None:
        """``done`` items done in all (of ``total``, when it becomes known)."""
        self.done = done
        if total is not None:
            self.total = total
        if nbytes is not None:
            self.nbytes = nbytes
        self._show()

    # ------------------------------------------------------------------ rendering
    def _fraction(self) -> float | None:
        if self.total_bytes:
            return min(self.nbytes / self.total_bytes, 1.0)
        if self.total:
            return min(self.done / self.total, 1.0)
        return None

    def counts(self) -> str:
        """``2,300,000 rows, 231.5 MB, 23.1 MB/s`` (items, megabytes, rate)."""
        elapsed = max(time.perf_counter() - self._start, 1e-9)
        done = _count(self.done) + (f"/{_count(self.total)}" if self.total else "")
        parts = [f"{done} {self.unit}"]
        if self.nbytes:
            parts.append(f"{self.nbytes / 1e6:,.1f} MB")
            parts.append(f"{self.nbytes / 1e6 / elapsed:,.1f} MB/s")
        elif self.done:
            parts.append(f"{self.done / elapsed:,.0f} {self.unit}/s")
        return ", ".join(parts)

    def line(self) -> str:
        """The plain progress line."""
        elapsed = time.perf_counter() - self._start
        text = f"{self.description}: {self.counts()}, {_duration(elapsed)}"
        fraction = self._fraction()
        if fraction:
            text += f", about {_duration(elapsed * (1 - fraction) / fraction)} left"
        return text

    def _show(self) -> None:
        if self._bar is not None:
            fraction = self._fraction()
            total, completed = (None, 0.0) if fraction is None else (1.0, fraction)
            self._bar.update(self._task, total=total, completed=completed, counts=self.counts())
            return
        now = time.perf_counter()
        if now - self._last >= self._interval:
            self._last = now
            print(self.line(), file=sys.stderr, flush=True)
