"""Reading documents as analyzer="auto" does, on two processes for a large batch.

An e-mail is read in Python (the reader's fast path, :mod:`._mailread`, and its fall-back, the
``email`` package), about 0.1 ms a news post, so for a corpus this reading is most of what
the default text models spend after the compiled scanner's work was made fast; threads do not
overlap it (it holds the GIL). A batch of at least :data:`PARALLEL_MIN_MAILS` e-mails is
therefore split in blocks that this process and a forked child take one at a time, each the
next one left when it is done with its last (the two rarely read at the same speed: the child
pays for copying the pages it touches, and a corpus kept in folders has its costly HTML
together); the child writes each block as soon as it has read it (header tokens and texts:
lists of ``str``, by :mod:`marshal`) to a file in memory private to the two, and closes a pipe
when it is done. The result is the same, in the same order, as reading every document here;
a child that fails or dies only means that the blocks it did not write whole are read here
after all. Forking is used where it is the platform's own way (Linux); the child runs no
thread pool, BLAS or lock of this process's other threads (the ones this library starts are
joined before it returns), and leaves by ``os._exit``.
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._threads import usable_cpus
from . import _mailread

#: Fewer e-mails than this are read on one process: a fork (~10-50 ms for a process holding a
#: corpus) and sending half the texts back cost more than reading them.
PARALLEL_MIN_MAILS = 2000
#: Documents read together (their plain messages' header blocks by one kernel call): their
#: bytes are copied side by side for it, so a batch is bounded, not a corpus.
READ_BATCH = 256
#: Blocks of documents per process: the two processes end at most a block apart.
BLOCKS_PER_PROCESS = 32
#: A child that has not sent its run this many seconds, plus this many times what this
#: process took for its own run, after this process finished is stopped, and its run read here.
CHILD_GRACE = 10.0
CHILD_SLOWER = 4.0


@dataclass(frozen=True)
class Read:
    """Documents as analyzer="auto" reads them: ``heads``, the header and URL tokens of each
    e-mail (in the order of ``mailed``, the rows that are e-mails), and ``texts``, the text
    of every document whose words are counted (an e-mail's decoded body, after its subject
    line when ``subject_in_text``; any other document decoded)."""

    mailed: np.ndarray
    heads: list[list[str]]
    texts: list[str]


def read_auto(
    documents: list[Any],
    mail: np.ndarray,
    subject_in_text: bool,
    encoding: str,
    *,
    processes: int | None = None,
) -> Read:
    """Read ``documents`` as analyzer="auto" does (``mail``: which are raw e-mails), on
    ``processes`` processes (1 or 2; by default 2 for a batch of at least
    :data:`PARALLEL_MIN_MAILS` e-mails where two CPUs are usable and processes fork)."""
    n = len(documents)
    if processes is None:
        processes = 2 if int(mail.sum()) >= PARALLEL_MIN_MAILS and _can_fork() else 1
    args = (documents, mail.tolist(), subject_in_text, encoding)
    if processes == 1 or n < 2:
        heads, texts = _read_run(*args, 0, n)
    else:
        cuts = np.linspace(0, n, min(n, 2 * BLOCKS_PER_PROCESS) + 1).astype(np.int64).tolist()
        heads, texts = _read_forked(args, list(itertools.pairwise(cuts)))
    return Read(np.flatnonzero(mail), heads, texts)


def _read_run(
    documents: list[Any], mail: list[bool], subject_in_text: bool, encoding: str, a: int, b: int
) -> tuple[list[list[str]], list[str]]:
    """The header tokens of the e-mails and the texts of all documents ``a:b``."""
    from .analyze import decode, email_text, raw_email
    from .email import plain_tokens_of, read_fields, tokens_of

    heads: list[list[str]] = []
    texts: list[str] = []
    for at in range(a, b, READ_BATCH):
        docs, mailed = documents[at : min(at + READ_BATCH, b)], mail[at : min(at + READ_BATCH, b)]
        raws = [raw_email(d) if is_mail else None for d, is_mail in zip(docs, mailed, strict=True)]
        # The plain ones (most posts) read to their tokens together: one kernel call for all
        # their header blocks.
        plains = iter(plain_tokens_of([raw for raw in raws if raw is not None]))
        for doc, is_mail, raw in zip(docs, mailed, raws, strict=True):
            if is_mail:
                plain = None if raw is None else next(plains)
                if plain is not None:  # one plain-text part (most posts): no Message made
                    tokens, subject, text = plain
                    heads.append(tokens)
                    texts.append(f"{subject}\n{text}" if subject_in_text else text)
                    continue
                message = doc if raw is None else read_fields(raw)
                # Header and URL tokens (the body's words are left to the scanner: text="").
                heads.append(tokens_of(message, text=""))
                texts.append(email_text(message, subject_in_text))
            else:
                texts.append(doc if type(doc) is str else decode(doc, encoding=encoding))
    return heads, texts


def _read_forked(
    args: tuple[list[Any], list[bool], bool, str], blocks: list[tuple[int, int]]
) -> tuple[list[list[str]], list[str]]:
    """``blocks`` read by this process and a forked child, each taking the next block still
    unread when it is done with one (their numbers wait in a pipe both read a byte at a time;
    a read of one byte cannot be shared), so neither waits long for the other however their
    speeds differ; the result in order.

    The child writes each block as soon as it has read it (a frame, see :func:`_frames`) to
    a file in memory (``memfd_create``), which it never waits on, and closes a pipe when it is
    done: when both processes are done only its last block is still to be written, where
    sending the whole run down the pipe at the end took ~0.03 s more of the ~0.25 s of 20
    Newsgroups' training posts (the child's ``marshal.dumps`` of ten megabytes of text, then
    the pipe's 64 KiB at a time)."""
    tasks_r, tasks_w = os.pipe()
    os.write(tasks_w, bytes(range(len(blocks))))  # (at most 255 blocks: one byte each)
    os.close(tasks_w)  # drained, the pipe then reads as closed in both processes
    try:
        sent = os.memfd_create("bayeskit-read", os.MFD_CLOEXEC)
    except OSError:  # (a sandbox may forbid it) all read here
        os.close(tasks_r)
        return _read_run(*args, 0, len(args[0]))
    r, w = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns that a multi-threaded process forks (BLAS keeps idle threads):
        # the child touches none of their state (see the module's docstring).
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it): read, send, leave
        status = 1
        try:
            os.close(r)
            _mailread.after_fork()
            with open(sent, "wb", closefd=False) as out:
                _send_blocks(tasks_r, args, blocks, out)
            os.close(w)  # done: what it wrote is whole
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    done: dict[int, tuple[list[list[str]], list[str]]] | None = None
    try:
        began = time.perf_counter()
        done = _take_blocks(tasks_r, args, blocks)
        finished = _closed_in_time(r, CHILD_GRACE + CHILD_SLOWER * (time.perf_counter() - began))
    except Exception:  # read in order here, so the first document that fails raises
        done, finished = None, False
    try:
        if not finished:  # this process's reading failed, or the child is late: stop it
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _reap(pid)
        if done is None:
            done = {}
        else:  # the blocks the child wrote whole (all of them, unless it was stopped)
            for number, read, counts in _frames(_received(sent)):
                done[number] = read
                _mailread.add_counts(counts)
        if finished:  # (its exit went on meanwhile)
            _reap(pid)
    finally:
        for fd in (tasks_r, r, sent):
            os.close(fd)
    heads: list[list[str]] = []
    texts: list[str] = []
    for i, (a, b) in enumerate(blocks):
        # A block neither process read (the child failed, or this process did): here, in
        # order, so the first document that cannot be read raises as on one process.
        block_heads, block_texts = done[i] if i in done else _read_run(*args, a, b)
        heads += block_heads
        texts += block_texts
    return heads, texts


def _take_blocks(
    tasks: int, args: tuple[list[Any], list[bool], bool, str], blocks: list[tuple[int, int]]
) -> dict[int, tuple[list[list[str]], list[str]]]:
    """The blocks whose numbers this process read from the pipe ``tasks``, until it is
    drained, each read by :func:`_read_run`."""
    done = {}
    while taken := os.read(tasks, 1):
        a, b = blocks[taken[0]]
        done[taken[0]] = _read_run(*args, a, b)
    return done


def _send_blocks(
    tasks: int, args: tuple[list[Any], list[bool], bool, str], blocks: list[tuple[int, int]],
    out: Any,
) -> None:  # fmt: skip
    """The child's part: each block whose number it read from ``tasks``, read and written to
    ``out`` at once as one frame (see :func:`_frames`), with the reader's counts of it."""
    while taken := os.read(tasks, 1):
        a, b = blocks[taken[0]]
        read = _read_run(*args, a, b)
        frame = marshal.dumps((taken[0], read, _mailread.take_counts()))
        out.write(len(frame).to_bytes(8, "little") + frame)
        out.flush()


def _reap(pid: int) -> None:
    """Wait for the child ``pid`` to end (the application's own SIGCHLD handler may have
    reaped it already)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _closed_in_time(fd: int, seconds: float) -> bool:
    """Whether the child closes its end of the pipe ``fd`` (it writes nothing there: it is
    done, or dead) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return False
        if not os.read(fd, 1 << 16):
            return True


def _received(fd: int) -> bytes:
    """What the child wrote to the file ``fd`` (from its start: the child's writes moved the
    offset the two processes share to its end)."""
    with open(fd, "rb", closefd=False) as file:
        file.seek(0)
        return file.read()


def _frames(data: bytes) -> Iterator[tuple[int, Any, dict[str, int]]]:
    """The whole frames in ``data`` (a frame: its length as 8 bytes, little-endian, then
    ``marshal.dumps((block number, (heads, texts), reader counts))``), up to the first that
    is cut short or does not load: a child stopped while writing wrote every block before it
    whole, and its other blocks are read here."""
    view, at = memoryview(data), 0
    while at + 8 <= len(data):
        size = int.from_bytes(view[at : at + 8], "little")
        if at + 8 + size > len(data):
            return
        try:
            number, read, counts = marshal.loads(view[at + 8 : at + 8 + size])
        except (EOFError, ValueError, TypeError):
            return
        yield number, read, counts
        at += 8 + size


def _can_fork() -> bool:
    return (
        sys.platform == "linux"
        and hasattr(os, "fork")
        and hasattr(os, "memfd_create")
        and usable_cpus() >= 2
    )
