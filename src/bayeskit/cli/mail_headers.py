"""The verdict headers ``bayeskit filter`` adds to a message, and its exit statuses: standard
library only, below both the fast path (:mod:`.filter_fast`) and the full model's
(:mod:`.filter_full`). Read with bytes methods, not regular expressions: asking a running
service (``bayeskit filter --server``) imports nothing else, and :mod:`re` (with enum) would
be a third of that client's start-up."""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

__all__ = [
    "ERROR",
    "HAM",
    "REASON_HEADER",
    "SCORED_BYTES",
    "SCORE_HEADER",
    "SPAM",
    "UNSURE",
    "VERDICT_HEADER",
    "at_a_terminal",
    "content_problem",
    "deliver",
    "fail",
    "failed",
    "header_end",
    "mda_header_end",
    "message_head",
    "model_file",
    "pass_on_input",
    "read_input",
    "said_when_terminated",
    "stamped",
    "unsure",
    "unsure_of_content",
    "with_headers",
]

#: Exit statuses, as bogofilter's.
SPAM, HAM, UNSURE, ERROR = 0, 1, 2, 3
VERDICT_HEADER, SCORE_HEADER = b"X-Bayeskit-Spam", b"X-Bayeskit-Score"
#: Why the verdict is Unsure without a score (a message that cannot be scored, a filter that
#: knows one class only).
REASON_HEADER = b"X-Bayeskit-Reason"
#: Only this much of a message is read for its verdict (all of it is passed through).
SCORED_BYTES = 4 << 20
#: The bytes a header field's name may hold (RFC 5322: printable ASCII but the colon).
_NAME_BYTES = bytes(b for b in range(0x21, 0x7F) if b != 0x3A)
_OURS = (b"x-bayeskit-spam", b"x-bayeskit-score", b"x-bayeskit-reason")
_STATUS = {"spam": (b"Yes", SPAM), "ham": (b"No", HAM)}


def header_end(raw: bytes) -> int | None:
    """Where the header block of ``raw`` ends: the start of its first line that is neither a
    header field nor a continuation line (RFC 5322: the empty line after the headers, or a
    body line of a message that has none before its body, which procmail's formail takes as
    the body's start too), or the end of the message when it is all headers; None when its
    first line is no header line (an mbox ``From `` envelope line is taken as one). Lines end
    in LF or CRLF; in a message whose lines end in a bare CR (old Macintosh mail; after the
    mbox envelope line an MDA may add) a bare CR ends a line too, as the e-mail reader that
    scores the message reads it."""
    bare_cr = _bare_cr(raw)
    end, start = _line_at(raw, 0, bare_cr)
    if not (raw.startswith(b"From ") or _field_name(raw[:end]) is not None):
        return None
    size = len(raw)
    while start < size:
        end, after = _line_at(raw, start, bare_cr)
        line = raw[start:end]
        if not (line[:1] in (b" ", b"\t") or _field_name(line) is not None):
            return start  # an empty line, or a body line
        start = after
    return size


def _bare_cr(raw: bytes) -> bool:
    """Whether the lines of ``raw`` end in a bare CR (a CR not before an LF): its first line
    does, or, after an mbox envelope line (which the MDA adds, ended by LF), its second."""
    start = raw.find(b"\n") + 1 if raw.startswith(b"From ") else 0
    lf = raw.find(b"\n", start)
    cr = raw.find(b"\r", start, len(raw) if lf < 0 else lf)
    return cr >= 0 and cr + 1 != lf


def _line_at(raw: bytes, start: int, bare_cr: bool) -> tuple[int, int]:
    """``(end, after)`` of the line of ``raw`` that starts at ``start``: where its text ends
    (before its line ending) and where the next line starts. Lines end in LF or CRLF; with
    ``bare_cr``, in a bare CR too."""
    lf = raw.find(b"\n", start)
    if bare_cr:
        cr = raw.find(b"\r", start, len(raw) if lf < 0 else lf)
        if cr >= 0:
            return cr, cr + (2 if cr + 1 == lf else 1)
    if lf < 0:
        return len(raw), len(raw)
    return (lf - 1 if lf > start and raw[lf - 1] == 13 else lf), lf + 1


def _lines(block: bytes, bare_cr: bool) -> list[bytes]:
    """The lines of ``block``, each with its line ending (as :func:`_line_at` ends them)."""
    out = []
    start = 0
    while start < len(block):
        after = _line_at(block, start, bare_cr)[1]
        out.append(block[start:after])
        start = after
    return out


def _field_name(line: bytes) -> bytes | None:
    """The name of the header field ``line`` starts with (``Name:``, blanks allowed before
    the colon), or None when it starts with none."""
    colon = line.find(b":")
    if colon < 0:
        return None
    name = line[:colon].rstrip(b" \t")
    if not name or name.translate(None, _NAME_BYTES):
        return None
    return name


def content_problem(raw: bytes) -> str | None:
    """What makes ``raw`` no message to score (empty, or no header block first), or None.
    A problem of the message itself, not of the model: with ``--exit-zero`` the message is
    delivered (see :func:`unsure_of_content`), where an error would have the mail system
    defer it and retry, for a message that would fail the same way every time."""
    if not raw.strip():
        return "an empty message"
    if raw.startswith((b"\n", b"\r\n")):
        return "not an RFC 822 message (it starts with a blank line: no header lines)"
    if header_end(raw) is None:
        return "not an RFC 822 message (no header lines)"
    return None


def message_head(raw: bytes) -> int | None:
    """:func:`header_end` of a message to be scored, or None (the reason said on standard
    error) when it is empty or not an RFC 822 message: it is passed through unchanged."""
    problem = content_problem(raw)
    if problem is not None:
        fail(f"<stdin>: {problem}; passed through unchanged")
        return None
    return header_end(raw)


def model_file(path: str) -> str:
    """The model file ``path`` names: the file a symbolic link points to (a model kept
    elsewhere and linked as ``~/.bayeskit/spam.bk``). Its lock, its token store and the
    file a learner renames over it are beside that file, so a learn reaches the model every
    path to it reads, where renaming over the link would replace the link with a copy."""
    import os

    return os.path.realpath(path) if os.path.islink(path) else path


def unsure(raw: bytes, head: int, reason: str) -> bytes:
    """``raw`` with the verdict Unsure and ``reason`` (ASCII, one line) as its headers, and no
    score: there is none to give."""
    return with_headers(
        raw, head, [(VERDICT_HEADER, b"Unsure"), (REASON_HEADER, reason.encode("ascii"))]
    )


def unsure_of_content(raw: bytes, problem: str) -> bytes:
    """``raw``, which :func:`content_problem` says is no message to score, with the headers
    Unsure and the problem put before it as a header block of their own: every byte of
    ``raw`` follows, as the body (a blank line ends the new header block, unless ``raw``
    starts with one), so that the mail system's header rules see a verdict."""
    first = raw.find(b"\n")  # the message's own line ending: that of its first line
    newline = b"\r\n" if first > 0 and raw[first - 1 : first] == b"\r" else b"\n"
    blank = b"" if raw.startswith((b"\n", b"\r\n")) else newline
    reason = problem.split(" (")[0]  # the header says what, standard error the details
    added = b"".join(
        name + b": " + value + newline
        for name, value in ((VERDICT_HEADER, b"Unsure"), (REASON_HEADER, reason.encode()))
    )
    return added + blank + raw


def with_headers(raw: bytes, head: int, headers: list[tuple[bytes, bytes]]) -> bytes:
    """``raw`` with ``headers`` added at the end of its header block (``raw[:head]``, as
    :func:`header_end` ends it), in the message's own line ending, and every X-Bayeskit-Spam,
    -Score or -Reason header it came with dropped wherever a mail delivery agent or a mail
    reader takes it for a header (:func:`_forged`). Every other byte is kept, in order."""
    bare_cr = _bare_cr(raw)
    block = raw[:head]
    newline = (
        b"\r"
        if bare_cr
        else b"\r\n"
        if block.rstrip(b"\n").endswith(b"\r") or b"\r\n" in block
        else b"\n"
    )
    before: list[bytes] = []  # the header block's lines kept, then the rest of the message
    after: list[bytes] = []
    at = 0
    for start, end in [*_forged(raw, head, bare_cr), (len(raw), len(raw))]:
        if at < head <= start:  # the added headers go at ``head``: no dropped line spans it
            before.append(raw[at:head])
            at = head
        (before if start <= head else after).append(raw[at:start])
        at = end
    kept = b"".join(before)
    if kept and not kept.endswith((b"\n", b"\r") if bare_cr else b"\n"):
        kept += newline  # a message of header lines only, its last line unended
    added = [name + b": " + value + newline for name, value in headers]
    return kept + b"".join(added) + b"".join(after)


def mda_header_end(raw: bytes) -> int:
    """Where a mail delivery agent ends the header block of ``raw``: the start of its first
    empty line, the lines ended by LF (a CR before it is part of the ending, as maildrop and
    mail readers take it), or the end of the message when it has none. Procmail and maildrop
    read every line before it as header, a line that is no header field (``Received-Via
    relay 1``, ``Foo Bar: x``) and a message's body without an empty line before it included,
    so a recipe's ``^X-Bayeskit-Spam:`` matches a line anywhere in there."""
    if raw.startswith((b"\n", b"\r\n")):
        return 0
    ends = [found + 1 for found in (raw.find(b"\n\n"), raw.find(b"\n\r\n")) if found >= 0]
    return min(ends, default=len(raw))


def _forged(raw: bytes, head: int, bare_cr: bool) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each line of ``raw`` (with its line ending) to drop: a header
    field named X-Bayeskit-Spam, -Score or -Reason (any case, blanks before the colon), and
    the continuation lines that follow it, wherever one is read as a header — in the header
    block as mail delivery agents end it (:func:`mda_header_end`), past ``head`` too. In a
    message whose lines end in a bare CR, the e-mail reader splits lines at CRs and ends its
    header block at the first empty one, while mail delivery agents read lines by LF only:
    a line is a header to one or the other when it starts before the reader's empty line or
    right after an LF (a body line of such a message is neither, and is kept)."""
    end = mda_header_end(raw)
    if b"x-bayeskit-" not in raw[:end].lower():  # (no line to drop: the usual message)
        return []
    spans: list[tuple[int, int]] = []
    reader_end = end if not bare_cr else None
    dropping = False
    start = 0
    while start < end:
        line_end, after = _line_at(raw, start, bare_cr)
        line = raw[start:line_end]
        if reader_end is None and start >= head and not line:
            reader_end = start  # the e-mail reader's empty line (of a bare-CR message)
        if line[:1] not in (b" ", b"\t"):  # (a continuation line goes with its header)
            seen = reader_end is None or start < reader_end or raw[start - 1 : start] == b"\n"
            dropping = seen and (_field_name(line) or b"").lower() in _OURS
        if dropping:
            spans.append((start, min(after, end)))
        start = after
    return spans


def stamped(raw: bytes, head: int, p_spam: float, verdict: str) -> tuple[int, bytes]:
    """(exit status, ``raw`` with the verdict headers) for a verdict and ``P(spam|x)``."""
    word, status = _STATUS.get(verdict, (b"Unsure", UNSURE))
    return status, with_headers(
        raw, head, [(VERDICT_HEADER, word), (SCORE_HEADER, b"%.6f" % p_spam)]
    )


#: The pieces in which :func:`deliver` copies the rest of standard input to standard output.
_PIECE = 1 << 16


def read_input(limit: int = -1) -> bytes:
    """Standard input's bytes, the message (an ``OSError`` naming it when there is none to
    read: closed, or not readable); with ``limit`` >= 0, its first ``limit`` bytes only, the
    rest left to be read (a learner reads what the scorer reads, :data:`SCORED_BYTES`, and
    passes the rest on with ``deliver(..., more_input=True)``)."""
    try:
        return sys.stdin.buffer.read(limit)
    except (AttributeError, OSError, ValueError) as exc:  # (a closed stdin is None)
        raise OSError(f"<stdin>: no message to read ({exc or type(exc).__name__})") from None


def deliver(message: bytes, *, more_input: bool = False) -> bool:
    """Write ``message`` to standard output, the filter's one output, and flush it; False
    (said on standard error) when it cannot be written — the caller's status is then an
    error (3), never a verdict, since the mail did not go on. ``more_input``: ``message`` is
    the start of standard input, whose rest follows it, copied in pieces of 64 KiB (never
    held whole)."""
    try:
        out = sys.stdout.buffer
        _write_all(out, message)
        while more_input:
            try:
                piece = sys.stdin.buffer.read(_PIECE)
            except (AttributeError, OSError, ValueError) as exc:
                fail(
                    "<stdin>: the rest of the message could not be read "
                    f"({exc or type(exc).__name__}); what went out of it is cut short"
                )
                return False
            if not piece:
                break
            _write_all(out, piece)
        out.flush()
    except (AttributeError, OSError, ValueError) as exc:  # (a closed stdout is None)
        fail(f"<stdout>: the message could not be written ({exc or type(exc).__name__})")
        _drop_output()
        return False
    return True


def _write_all(out: "BinaryIO", data: bytes) -> None:
    """Write all of ``data`` to ``out``. A write may take part of the bytes and return their
    count (a pipe whose reader went away takes what fits before the error shows): the rest
    is written until all of it is out or the error is raised, so a cut-off message is never
    a verdict."""
    left = memoryview(data)
    while left:
        written = out.write(left)
        if not written:  # (None: a non-blocking output that takes nothing now)
            raise OSError("the output took no more bytes")
        left = left[written:]


def _drop_output() -> None:
    """Point standard output at the null device, so that what is left in its buffer is not
    written again at exit (a second failure, with a traceback)."""
    import os

    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass


def at_a_terminal() -> bool:
    """Whether standard input is a terminal: a person at the keyboard, not a message."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, OSError, ValueError):  # (a closed stdin)
        return False


def pass_on_input() -> None:
    """Deliver standard input unchanged: a filter that cannot do what it was asked never eats
    the mail (a terminal has no message to pass on, and is not read)."""
    if sys.stdin is not None and not at_a_terminal():
        try:
            deliver(read_input(_PIECE), more_input=True)  # in pieces, never held whole
        except OSError as exc:
            failed(exc)


def fail(message: str) -> None:
    """Say ``message`` on standard error, on one line, as the filter's every complaint."""
    print(f"bayeskit filter: {' '.join(message.split())}", file=sys.stderr)


def failed(exc: BaseException) -> None:
    """Say what went wrong (:func:`fail`): a file that cannot be read by its name and the
    system's reason ("m.bk: No such file or directory"), anything else by its message."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        fail(f"{exc.filename}: {exc.strerror}")
    else:
        fail(str(exc) or type(exc).__name__)


def said_when_terminated(args: "list[str]") -> "Callable[[], object] | None":
    """For a learner (``args`` hold ``--learn``/``--unlearn``): SIGTERM while it starts, before
    it has read the message and installed its own handler, says so on standard error and
    ends it with 143 (as the signal would); nothing was learned then. Returns what puts the
    handler it replaced back (None when it installed none)."""
    import signal

    if not any(a.split("=")[0] in ("--learn", "--unlearn") for a in args):
        return None

    def stop(signum: int, frame: object) -> None:
        fail(
            "stopped by SIGTERM while starting: nothing was learned, the model is unchanged; "
            "the message was not read, so it is not passed through"
        )
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        return None
    return lambda: signal.signal(signal.SIGTERM, previous)
