"""Reading analyzer="auto"'s documents on two processes gives what one process reads: the same
header tokens and texts in the same order, the same reader counts, the same error for a
document that cannot be read; and a child that dies or is late is replaced by reading here."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import InputTypeError
from bayeskit.text import _auto_read
from bayeskit.text._auto_read import read_auto
from bayeskit.text._count_matrices import mail_mask
from bayeskit.text.email import reader_counts, reset_reader_counts

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or not hasattr(os, "fork"), reason="forks only on Linux"
)

TEXTS, _ = load_sms_spam()
MAILS = [
    (
        f"From: Ann {i} <ann{i % 7}@example.org>\nTo: b@x.org, c@y.org\nSubject: Offer {i}\n"
        "Content-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\n"
        f"free cash {i} now\n--b\nContent-Type: text/html; charset=utf-8\n\n"
        f"<p>caf\u00e9 \u0394 <a href='http://s{i % 5}.example.com/x'>cash</a></p>\n--b--\n"
    )
    for i in range(300)
]
FORWARD = "From: a@b.org\nContent-Type: message/rfc822\n\nSubject: in\n\nbody\n"
DOCS = [*MAILS[:100], *TEXTS[:200], *(m.encode("utf-8") for m in MAILS[100:]), FORWARD]


def _read(docs, processes):
    reset_reader_counts()
    read = read_auto(docs, mail_mask(docs), True, "utf-8", processes=processes)
    return read, reader_counts()


def _read_as_one_process(monkeypatch, target, name, replacement):
    """Two processes read DOCS with ``target.name`` replaced; one process then reads them
    with it restored: the same header tokens, texts and reader counts."""
    real = getattr(target, name)
    monkeypatch.setattr(target, name, replacement)
    two, counts_two = _read(DOCS, 2)
    monkeypatch.setattr(target, name, real)
    one, counts_one = _read(DOCS, 1)
    assert one.heads == two.heads
    assert one.texts == two.texts
    return counts_one, counts_two


def test_two_processes_read_what_one_reads():
    (one, counts_one), (two, counts_two) = _read(DOCS, 1), _read(DOCS, 2)
    assert np.array_equal(one.mailed, two.mailed)
    assert one.heads == two.heads
    assert one.texts == two.texts
    assert counts_one == counts_two
    assert counts_one["fast"] > 0
    assert counts_one["fallback"] == 1  # the forwarded message, read by the child


@pytest.mark.parametrize(
    ("bad", "first"),
    [
        ({2: object()}, "object"),  # in the child's block: it fails, its blocks read here
        ({5: object()}, "object"),  # in this process's block
        ({2: object(), 5: 1.5}, "object"),  # both fail: the first in order raises
        ({1: 1.5, 6: object()}, "float"),
    ],
)
def test_an_unreadable_document_raises_as_on_one_process(bad, first):
    docs = MAILS[:128]  # 64 blocks of 2 documents, taken by both processes in turn
    assert _auto_read.BLOCKS_PER_PROCESS == 32
    mail = mail_mask(docs)
    for i, doc in bad.items():
        docs = [*docs[:i], doc, *docs[i + 1 :]]
        mail[i] = False
    for processes in (1, 2):
        with pytest.raises(InputTypeError, match=f"got {first}"):
            read_auto(docs, mail, False, "utf-8", processes=processes)


def test_a_late_child_is_stopped_and_its_run_read_here(monkeypatch):
    real = _auto_read._read_run

    def slow_child(*args):
        if args[-2] > 0 and os.getpid() != parent:  # the child's run
            import time

            time.sleep(60)
        return real(*args)

    parent = os.getpid()
    monkeypatch.setattr(_auto_read, "CHILD_GRACE", 0.5)
    monkeypatch.setattr(_auto_read, "CHILD_SLOWER", 0.0)
    _read_as_one_process(monkeypatch, _auto_read, "_read_run", slow_child)


def test_small_batches_are_read_on_one_process(monkeypatch):
    def no_fork(*args):
        raise AssertionError("forked for a small batch")

    monkeypatch.setattr(_auto_read, "_read_forked", no_fork)
    small = MAILS[: _auto_read.PARALLEL_MIN_MAILS // 10]
    read = read_auto(small, mail_mask(small), False, "utf-8")
    assert len(read.texts) == len(small)


def test_fitting_and_classifying_read_on_two_processes(monkeypatch):
    """A large batch is read by this process and a forked child whether it is being fitted or
    classified (``transform``: a large predict uses both cores too); the rows are those of
    reading every batch on one process."""
    from bayeskit.text import TextVectorizer

    real, calls = _auto_read._read_forked, []

    def counted(*args):
        calls.append(len(args[1]))
        return real(*args)

    monkeypatch.setattr(_auto_read, "PARALLEL_MIN_MAILS", 50)
    monkeypatch.setattr(_auto_read, "_read_forked", counted)
    vec = TextVectorizer(analyzer="auto", output="binary").fit(DOCS)
    assert calls  # fitting forked
    calls.clear()
    rows = vec.transform(DOCS[::-1])
    assert calls  # classifying forked too
    monkeypatch.setattr(_auto_read, "PARALLEL_MIN_MAILS", 10**9)
    alone = TextVectorizer(analyzer="auto", output="binary").fit(DOCS)
    assert np.array_equal(alone.get_feature_names_out(), vec.get_feature_names_out())
    assert (rows != alone.transform(DOCS[::-1])).nnz == 0


@pytest.mark.parametrize("cut", ["nothing", "garbage", "a length only", "a frame cut short"])
def test_what_a_child_cut_short_sent_is_read_here(monkeypatch, cut):
    """A child that closed its pipe early (killed, out of memory) or sent bytes that do not
    load: the whole frames before the cut are its blocks, the others are read here, in
    order; the reader counts are those of one process either way."""
    real, kept = _auto_read._received, []

    def cut_short(fd):
        data = real(fd)
        first = 8 + int.from_bytes(data[:8], "little")  # the child's first frame
        sent = {
            "nothing": b"",
            "garbage": b"\x00not marshal",
            "a length only": data[:8],
            "a frame cut short": data[: first + 8 + 10],
        }[cut]
        kept.append(len(list(_auto_read._frames(sent))))
        return sent

    counts_one, counts_two = _read_as_one_process(monkeypatch, _auto_read, "_received", cut_short)
    assert counts_one == counts_two
    assert kept == [1 if cut == "a frame cut short" else 0]


def test_the_child_sends_each_block_as_it_reads_it(monkeypatch):
    """Every block the child read arrives as a frame of its own, with the reader's counts of
    that block alone (their sum is the child's share of the counts)."""
    real, frames = _auto_read._received, []

    def kept(fd):
        data = real(fd)
        frames.extend(_auto_read._frames(data))
        return data

    monkeypatch.setattr(_auto_read, "_received", kept)
    _read(DOCS, 2)
    numbers = [number for number, _, _ in frames]
    assert 0 < len(numbers) < 2 * _auto_read.BLOCKS_PER_PROCESS
    assert len(set(numbers)) == len(numbers)
    cuts = np.linspace(0, len(DOCS), 2 * _auto_read.BLOCKS_PER_PROCESS + 1).astype(int)
    for number, (heads, texts), counts in frames:
        a, b = cuts[number], cuts[number + 1]
        reset_reader_counts()
        assert _auto_read._read_run(DOCS, mail_mask(DOCS).tolist(), True, "utf-8", a, b) == (
            heads,
            texts,
        )
        assert reader_counts()["fast"] == counts.get("fast", 0)


def test_a_child_reaped_elsewhere_is_not_an_error(monkeypatch):
    real_waitpid = os.waitpid

    def reaped(pid, options):
        real_waitpid(pid, options)  # the application's SIGCHLD handler got there first
        raise ChildProcessError(10, "No child processes")

    _read_as_one_process(monkeypatch, _auto_read.os, "waitpid", reaped)


def test_the_faster_process_takes_more_blocks(monkeypatch):
    """The blocks are shared out as the two processes finish them: a child slowed down leaves
    most of them to this process, and the result is still that of one process."""
    real, mine = _auto_read._read_run, []
    parent = os.getpid()

    def slow_child(*args):
        import time

        if os.getpid() != parent:
            time.sleep(0.1)
        else:
            time.sleep(0.01)  # (time for the child to start and take its first block)
            mine.append(args[-2])
        return real(*args)

    counts_one, counts_two = _read_as_one_process(monkeypatch, _auto_read, "_read_run", slow_child)
    assert counts_one == counts_two
    blocks = 2 * _auto_read.BLOCKS_PER_PROCESS
    assert blocks * 3 // 4 < len(mine) < blocks  # the child read some, this process most


def test_without_a_file_in_memory_everything_is_read_here(monkeypatch):
    def forbidden(*args):
        raise PermissionError(1, "Operation not permitted")  # (a sandbox's seccomp filter)

    counts_one, counts_two = _read_as_one_process(
        monkeypatch, _auto_read.os, "memfd_create", forbidden
    )
    assert counts_one == counts_two
