"""``bayeskit filter``: a spam filter as a mail delivery agent runs one, as bogofilter's
passthrough mode does.

One RFC 822 message comes in on standard input and goes out on standard output unchanged,
but for two headers added at the end of its header block: ``X-Bayeskit-Spam: Yes|No|Unsure``
and ``X-Bayeskit-Score: P(spam)`` (any such headers it came with are dropped, so a sender
cannot forge the verdict). The exit status is the verdict, as bogofilter's: 0 spam, 1 ham,
2 unsure, 3 error. A filter must never eat mail: whatever goes wrong (no model, binary
garbage, an empty or truncated message, a bug), the message is written out exactly as it came
in and the status is 3, with the reason on standard error — but with ``--exit-zero`` a
message that cannot be scored (empty, no header lines) goes on with ``X-Bayeskit-Spam:
Unsure`` and an ``X-Bayeskit-Reason`` before it and status 0, since an error would have
maildrop defer it for ever.

``--learn spam|ham`` adds the message (or, with ``--from PATH``, every message of a Maildir,
a Maildir folder such as ``.Junk``, an mbox file or a folder of message or mbox files) to the model,
``--unlearn`` removes it, ``--train-on-error`` learns only what the filter gets wrong or is
unsure about (messages from ``--from`` in the order of their ``Date:`` headers). Learning
holds an exclusive lock on ``MODEL.lock`` while it reads, changes and atomically replaces the
model file, so learners running at once never lose a message nor leave a broken file (a
learner killed half way leaves the model as it was).
"""

from __future__ import annotations

import copy
import itertools
import os
import shlex
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from ..text import token_store
from .filter_full import load_filter
from .mail_headers import (
    ERROR,
    SCORED_BYTES,
    content_problem,
    deliver,
    fail,
    failed,
    model_file,
    pass_on_input,
    read_input,
)
from .mail_sources import iter_named_messages, messages_in, named_messages

__all__ = ["filter_mail", "iter_named_messages", "messages_in", "named_messages"]


def filter_mail(
    model: Annotated[str, typer.Argument(metavar="MODEL", help="The spam filter's model file.")],
    learn: Annotated[
        str | None,
        typer.Option("--learn", metavar="spam|ham", help="Learn the message(s) as spam or ham."),
    ] = None,
    unlearn: Annotated[
        str | None,
        typer.Option("--unlearn", metavar="spam|ham", help="Remove message(s) learned as this."),
    ] = None,
    train_on_error: Annotated[
        bool,
        typer.Option(
            "--train-on-error",
            help="With --learn: only what the filter gets wrong or is unsure of.",
        ),
    ] = False,
    exit_zero: Annotated[
        bool,
        typer.Option(
            "--exit-zero",
            help="Exit 0 for spam, ham and unsure alike, 3 on error only (bogofilter's -e: "
            "what procmail's 'w' flag and maildrop's xfilter expect of a filter); a message "
            "that cannot be scored (empty, no header lines) goes on as Unsure, with status 0.",
        ),
    ] = False,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="Ask a running 'bayeskit serve' (POST /verdict) instead; MODEL answers when "
            "it cannot.",
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="Say on standard error whether the token store or the full model scored.",
        ),
    ] = False,
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="PATH",
            help="With --learn/--unlearn: the messages of a Maildir (cur/ and new/), a Maildir "
            "folder, an mbox file or a folder of files instead of standard input.",
        ),
    ] = None,
) -> None:
    """Classify one e-mail from standard input into standard output with X-Bayeskit-Spam and
    X-Bayeskit-Score headers added; exit status 0 spam, 1 ham, 2 unsure, 3 error (the message
    is passed through unchanged whatever happens)."""
    if learn is not None or unlearn is not None:
        raise typer.Exit(_learning(model, learn, unlearn, train_on_error, source))
    if source is not None or train_on_error:
        pass_on_input()
        fail("--from and --train-on-error go with --learn (see bayeskit filter --help)")
        raise typer.Exit(ERROR)
    from .filter_fast import pass_through

    raise typer.Exit(pass_through(model, server, exit_zero, verbose))


# ------------------------------------------------------------------ learning
class _Terminated(BaseException):
    """SIGTERM arrived (an MDA's time limit, a shutdown): raised where the learner was, so
    that the save's own clean-up runs (no temporary model file is left behind)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _Progress:
    """How far a learner got, for what it says when SIGTERM stops it."""

    def __init__(self) -> None:
        self.raw: bytes | None = None  # the message from standard input, once read
        self.locked = False  # the model's lock held: only this learner changes the file
        self.stamp: str | None = None  # the model file's when the lock was taken
        self.delivering = False
        self.delivered = False  # the message is all out: learning comes after


def _stamp_of(path: str) -> str | None:
    try:
        return token_store.model_stamp(path)
    except OSError:
        return None


def _learning(
    model_path: str, learn: str | None, unlearn: str | None, on_error: bool, source: str | None
) -> int:
    """Learn or unlearn messages under the model's lock; 0 when done, 3 on error, 143 when
    SIGTERM stopped it before the model was saved (standard input is passed through
    unchanged, even then)."""
    model_path = model_file(model_path)
    progress = _Progress()
    try:
        with _terminated_as_exit():
            return _learn(model_path, learn, unlearn, on_error, source, progress)
    except _Terminated as stop:
        return _stopped(model_path, source, progress, stop.signum)


def _stopped(model_path: str, source: str | None, progress: _Progress, signum: int) -> int:
    """Say what a learner stopped by SIGTERM had done, pass the message on when it had read
    it and not begun to, and return 128 + the signal's number, as a shell reports it; 0 when
    the model was saved already. The learn is done then, and a mail system that retries
    a failed command would learn the message(s) twice."""
    import signal

    changed = progress.locked and _stamp_of(model_path) != progress.stamp
    done = (
        f"after {model_path} was saved: the message(s) were learned"
        if changed
        else f"before {model_path} was changed: nothing was learned, the model is unchanged"
    )
    passing = (
        source is None
        and progress.raw is not None
        and not (progress.delivering or progress.delivered)
    )
    if source is None:
        done += (
            "; the message is passed through"
            if passing
            else "; the message was passed on"
            if progress.delivered
            else "; writing the message out was cut short"
            if progress.delivering
            else "; the message was not read, so it is not passed through"
        )
    fail(f"stopped by SIGTERM {done}")
    if passing:
        assert progress.raw is not None
        previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends it
        try:
            deliver(progress.raw, more_input=True)
        finally:
            signal.signal(signal.SIGTERM, previous)
    return 0 if changed else 128 + signum


#: A learner reads and learns the messages of ``--from`` in batches of about this many bytes
#: (each message at most :data:`SCORED_BYTES`), or this many messages, never all at once.
LEARN_BATCH_BYTES = 2 * SCORED_BYTES
LEARN_BATCH_MESSAGES = 1000


def _learn(
    model_path: str,
    learn: str | None,
    unlearn: str | None,
    on_error: bool,
    source: str | None,
    progress: _Progress,
) -> int:
    """Learn or unlearn, then say how many on standard error. A message from standard input
    is read as far as the scorer reads it (:data:`SCORED_BYTES`), and passed on whole before
    it is learned: a run that could not write it out (status 3: the mail system keeps it and
    tries again) has learned nothing, so the retry does not learn it twice."""
    try:
        raw = read_input(SCORED_BYTES) if source is None else b""
    except OSError as exc:
        failed(exc)
        return ERROR
    progress.raw = raw
    if source is None:
        progress.delivering = True
        if not deliver(raw, more_input=True):
            fail(f"nothing was learned, {model_path} is unchanged")
            return ERROR
        progress.delivered, progress.delivering = True, False
    unreadable: list[str] = []  # files of --from that could not be read: named, not learned
    refused: list[str] = []  # files of --from that are no message: named, not learned
    try:
        if learn is not None and unlearn is not None:
            raise ValueError("give --learn or --unlearn, not both")
        label = learn if learn is not None else unlearn
        if label not in ("spam", "ham"):
            raise ValueError(f"--learn/--unlearn take spam or ham, not {label!r}")
        if on_error and learn is None:
            raise ValueError("--train-on-error goes with --learn")
        if source is None:
            problem = content_problem(raw)
            if problem is not None:  # the scorer refuses it too
                raise ValueError(f"<stdin>: {problem}; nothing learned")
            named: Iterator[tuple[str, bytes]] = iter([("<stdin>", raw)])
        else:
            named = iter_named_messages(Path(source), by_date=on_error, unreadable=unreadable)
        _check_folder(model_path, learn is not None)
        counted = _Counted(named, refused)
        with locked(model_path):
            progress.stamp, progress.locked = _stamp_of(model_path), True
            _remove_leftovers(model_path)
            changed = _change(model_path, counted, label, learn is not None, on_error)
        print(
            f"{changed} of {counted.seen + len(unreadable)} messages "
            f"{'learned' if learn else 'unlearned'}"
            + _refusals(refused)
            + _refusals(unreadable, why="files that cannot be read"),
            file=sys.stderr,
        )
        return 0
    except Exception as exc:  # reported; the mail was passed on
        failed(exc)
        return ERROR


def _check_folder(model_path: str, learn: bool) -> None:
    """Refuse, before its lock is opened, a model whose folder does not exist (a new user's
    ``~/.bayeskit``): named, not its lock file."""
    folder = os.path.dirname(model_path) or "."
    if not os.path.isdir(folder):
        if not learn:
            raise ValueError(
                f"{model_path}: no such model file (the folder {folder!r} does not exist); "
                "nothing to unlearn from"
            )
        raise ValueError(
            f"{model_path}: the folder {folder!r} does not exist; create it first "
            f"(mkdir -p {shlex.quote(folder)}); nothing was learned"
        )


class _Counted:
    """The messages of ``named`` that are messages, counting every one seen (``seen``) and
    naming in ``refused`` those that are not (empty, binary, no header lines: what the scorer
    would not score)."""

    def __init__(self, named: Iterator[tuple[str, bytes]], refused: list[str]) -> None:
        self.named, self.refused, self.seen = named, refused, 0

    def __iter__(self) -> Iterator[bytes]:
        for name, message in self.named:
            self.seen += 1
            if content_problem(message) is None:
                yield message
            else:
                self.refused.append(name)


def _batches(messages: Iterable[bytes]) -> Iterator[list[bytes]]:
    """``messages`` in lists of about :data:`LEARN_BATCH_BYTES` (or
    :data:`LEARN_BATCH_MESSAGES`), read as they are learned."""
    batch: list[bytes] = []
    size = 0
    for message in messages:
        batch.append(message)
        size += len(message)
        if size >= LEARN_BATCH_BYTES or len(batch) >= LEARN_BATCH_MESSAGES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _refusals(
    names: list[str],
    shown: int = 10,
    why: str = "no messages (empty, or no header lines)",
) -> str:
    """What :func:`_learn`'s count line says of the files refused (as no messages, or as
    ``why``)."""
    if not names:
        return ""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"; {len(names)} refused, {why}: " + ", ".join(names[:shown]) + more


def _change(path: str, messages: Iterable[bytes], label: str, learn: bool, on_error: bool) -> int:
    """Learn (or unlearn) ``messages`` into the model file ``path`` in batches
    (:func:`_batches`), saved once at the end: the model of learning them all at once (its
    statistics and its calibration's counts), and the model file as it was when any batch
    is refused."""
    from ..serve.journal import open_beside
    from ..text import SpamFilter

    batches = _batches(messages)
    first = next(batches, None)
    if first is None:
        return 0
    previous = None
    beside = None
    if os.path.exists(path):
        beside = open_beside(path)  # a server's journal: it must hold nothing unsaved
        model = load_filter(path)
        previous = token_store.snapshot(model)
    elif learn:
        model = SpamFilter()
    else:
        raise ValueError(f"{path}: no such model file; nothing to unlearn from")
    # --learn spam means the model's own spam label (a model trained from folders "Spam"
    # and "Ham" spells them so).
    label = model.spam_label if label == "spam" else model.ham_label
    kind = "spam" if label == model.spam_label else "ham"
    second = next(batches, None)
    # Each message learned adds its score by the model before it to the calibration's counts
    # (SpamFilter.partial_fit): by the model before the first batch, as at once, not before
    # its own batch. One batch (a message from standard input) needs no copy.
    before = (
        copy.deepcopy(model)
        if learn and not on_error and second is not None and previous is not None
        else None
    )
    added = None
    changed = 0
    rest = itertools.chain([] if second is None else [second], batches)
    for batch in itertools.chain([first], rest):
        labels = [label] * len(batch)
        if not learn:
            _unlearn(model, batch, labels, kind, changed, rest)
            changed += len(batch)
        elif on_error:
            changed += sum(model.train_on_error([m], [label]) for m in batch)  # in order
        else:
            if before is not None:
                scores = before.new_score_counts(batch, labels)
                added = scores if added is None else added + scores
            model.partial_fit(batch, labels)
            changed += len(batch)
    if before is not None and added is not None:
        model.set_score_counts(before.score_counts() + added)
    _save_with_store(model, path, previous, beside)
    if beside is not None:
        beside.done()
    return changed


def _unlearn(
    model: Any,
    messages: list[bytes],
    labels: list[Any],
    kind: str,
    before: int = 0,
    after: Iterator[list[bytes]] | None = None,
) -> None:
    """``model.unlearn``, its refusal said in the mail user's words: the library names the
    count that would turn negative, where the cause is that the message was never learned so
    (or unlearned already); nothing is changed then. ``before``: the messages of the batches
    unlearned before these; ``after``: the batches still to come (counted for the refusal)."""
    from ..errors import MergeError

    try:
        model.unlearn(messages, labels)
    except MergeError:
        total = before + len(messages) + sum(len(batch) for batch in after or ())
        which = "this message was" if total == 1 else f"not every one of these {total} messages was"
        raise ValueError(
            f"{which} not learned as {kind}: some of its words are in no {kind} message the "
            "model learned (never learned, or unlearned already); nothing was unlearned, the "
            "model is unchanged"
        ) from None


def _save_with_store(model: Any, path: str, previous: Any, beside: Any = None) -> None:
    """Save ``model`` to ``path`` with its token store in step. The store's rows are written in
    one transaction committed once the new model file is in place: killed in between, the
    store keeps the old model's stamp (stale, rebuilt). The store is only a copy of the model
    for quick lookups, so it never costs a learn: a store that cannot be opened or written
    (another program's file, a corrupt one: thrown away) leaves the model saved alone, and one
    whose commit fails after the model was saved (a full disk) stays stale; either way the
    full model scores the next message and writes the store again. A store that cannot be
    read (another layout, settings that are no JSON object: :class:`BrokenStoreError`) fails
    on opening, before the model is saved: it is thrown away, and the model saved alone."""
    from .output import save_model

    saved = False
    problem: BaseException | None = None
    try:
        with token_store.updating(path) as store:
            save_model(
                model,
                path,
                before_replace=lambda tmp: _before_replace(store, model, tmp, previous, beside),
            )
            saved = True
    except _StoreFailedError as failure:  # (the model was not replaced)
        problem = failure.__cause__ or failure
    except (sqlite3.Error, token_store.BrokenStoreError) as exc:  # not opened, or not committed
        problem = exc
    if problem is None:
        return
    thrown = token_store.broken(problem)
    if thrown:
        token_store.discard(path)
    if not saved:  # the server's journal names this file too, as the first try would have
        save_model(model, path, before_replace=None if beside is None else beside.before_replace)
    fail(
        f"{token_store.store_path(path)}: the token store was not updated "
        f"({problem or type(problem).__name__}){'; it was thrown away' if thrown else ''}; "
        "the model was saved, and the store is written again from it when the next message "
        "is scored"
    )


class _StoreFailedError(Exception):
    """Writing the token store's rows failed (the cause), before the model was replaced."""


def _before_replace(store: Any, model: Any, tmp: str, previous: Any, beside: Any) -> None:
    """The token store's rows, then the server's journal's checkpoint naming the new file."""
    _write_store(store, model, tmp, previous)
    if beside is not None:
        beside.before_replace(tmp)


def _write_store(store: Any, model: Any, tmp: str, previous: Any) -> None:
    try:
        store.write(model, token_store.model_stamp(tmp), previous)
    except Exception as exc:
        raise _StoreFailedError(str(exc)) from exc


def _running(pid: str) -> bool:
    """Whether process ``pid`` exists (a server killed by SIGKILL leaves its mark behind; the
    lock is then held by another learner or a scorer writing the token store)."""
    if not pid.isdigit():
        return True  # a damaged mark: refusing says so, where waiting might never end
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


#: a temporary model file older than this (seconds) was left by a learner that was killed
LEFTOVER_AGE = 60.0


def _remove_leftovers(model_path: str) -> None:
    """Remove the temporary files of saves a killed learner left (``.MODEL.*.tmp``, SIGKILL
    leaves no chance to): under the lock no learner is saving, and a file still being written
    (another program's save of the same name) is younger than :data:`LEFTOVER_AGE`."""
    import fnmatch
    import time

    folder, name = os.path.split(os.path.abspath(model_path))
    try:
        names = fnmatch.filter(os.listdir(folder), f".{name}.*.tmp")
    except OSError:
        return
    now = time.time()
    for leftover in names:
        path = os.path.join(folder, leftover)
        try:
            if now - os.stat(path).st_mtime > LEFTOVER_AGE:
                os.unlink(path)
        except OSError:
            pass


@contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM (an MDA's timeout, a shutdown) raises :class:`_Terminated` where the learner
    is, so the save's own clean-up runs and the learner says what it had done."""
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise _Terminated(signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (a test runner's): nothing to install
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def locked(model_path: str) -> Iterator[None]:
    """Hold an exclusive lock on ``MODEL.lock`` (released when the process ends, however):
    waiting for another learner's, refusing at once when a learning server holds it (it holds
    it as long as it runs; it writes its mark in the file)."""
    import fcntl

    from ..serve.journal import SERVER_MARK

    fd = os.open(f"{model_path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0)
            pid = holder[len(SERVER_MARK) :].strip().decode("ascii", "replace")
            if holder.startswith(SERVER_MARK) and _running(pid):
                raise ValueError(
                    f"{model_path} is being learned by a running bayeskit serve (process "
                    f"{pid}); learn through it (POST /learn/spam or /learn/ham with its "
                    "token), or stop it first"
                ) from None
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)  # a server's mark left by one that stopped is no longer true
        yield
    finally:
        os.close(fd)
