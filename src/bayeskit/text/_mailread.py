"""The e-mail reader's fast path: a raw message's MIME structure read with compiled code.

:func:`parse` finds what :mod:`email`'s feed parser (``compat32``) would make of a message —
the header block, the unfolded header values, the MIME tree, each part's content type,
charset, boundary, disposition and file name, and the transfer-decoded bytes of its text
parts — with a compiled pass over each part's header block (:func:`._mail_kernels.scan_head`;
a process's first megabyte is read by the regular expressions it implements, which stay here
as its specification), ``bytes.find``, :mod:`re` on bytes and :mod:`binascii` (C code) instead
of the parser's line-by-line Python. The parts it returns answer the methods
:class:`bayeskit.text.email` reads a parsed message with, so the rest of the reader (charsets,
HTML, URLs, the text limits) is shared by both paths and the result is the same
:class:`~bayeskit.text.email.Message`.

It reads only messages whose reading is unambiguous, and declines (returns the reason) for the
rest, which go to the feed parser: any structure the parser would record a defect for (a line
that is no header among the headers, a continuation line first, a misplaced envelope line, a
multipart without its boundary or its first boundary line (a missing closing one is read:
the parser's defect is given), base64 of impossible
length or outside its alphabet), bare CR line ends, message/* parts (``message/rfc822``
holds a whole message), multipart/digest, the same Content-* header twice, Content-* values
beyond ASCII, boundaries outside RFC 2046's alphabet or reused by an inner part, MIME parts
nested deeper than :data:`MAX_FAST_DEPTH`, transfer encodings other than 7bit, 8bit, binary,
quoted-printable and base64, and messages larger than ``MAX_PART_BYTES`` (which the reader
skims first). How many messages took each path is counted (:func:`reader_counts`).
"""

from __future__ import annotations

import base64
import binascii
import functools
import itertools
import re
import threading
from collections import Counter

# email.policy.compat32, from the module that defines it: email.policy also imports the
# header registry, which compat32 never uses (a tenth of a one-message filter's start-up)
from email._policybase import compat32
from email.errors import CloseBoundaryNotFoundDefect
from email.message import Message as _Part
from email.utils import unquote

from ._mail_words import use_kernels

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MAX_FAST_DEPTH",
    "FastPart",
    "add_counts",
    "after_fork",
    "first_headers",
    "header_names",
    "parse",
    "raw_counts",
    "reader_counts",
    "reset_reader_counts",
    "take_counts",
]

#: MIME parts nested deeper than this go to the parser.
MAX_FAST_DEPTH = 12

_COUNTS: Counter[str] = Counter()
_LOCK = threading.Lock()


def count(path: str) -> None:
    """Count one message read by ``path`` (``"fast"`` or a fall-back reason)."""
    with _LOCK:
        _COUNTS[path] += 1


def reader_counts() -> dict[str, Any]:
    """How many messages this process read by the fast path and by the parser, and why.

    The e-mail reader (``read_message`` and the ``"email"``/``"auto"`` analyzers) first tries
    its fast path, which reads a message with compiled primitives (``bytes.find``, regular
    expressions on bytes, ``binascii``) and declines what it cannot read exactly as Python's
    ``email`` parser does; the parser then reads it. Both give the same message. Counts are
    per process (each worker of a parallel job keeps its own).

    Returns
    -------
    dict
        ``fast``: messages read by the fast path; ``fallback``: messages handed to the
        ``email`` parser; ``reasons``: the latter by the reason the fast path declined them
        (most frequent first); ``html_fast`` and ``html_parser``: HTML parts turned into text
        by the fast reader (regular expressions and compiled code) and those it declined as a
        whole, read by ``html.parser.HTMLParser`` (all of it, or only what lies between the
        well-formed runs the fast reader takes).

    Examples
    --------
    >>> from bayeskit.text import read_message, reader_counts, reset_reader_counts
    >>> reset_reader_counts()
    >>> read_message(b"Subject: hi\\n\\nHello\\n").text
    'Hello'
    >>> read_message(b"Subject: x\\rbare CR line ends\\r\\rbody").subject
    'x'
    >>> counts = reader_counts()
    >>> counts["fast"], counts["fallback"], counts["reasons"]
    (1, 1, {'bare CR line ends': 1})
    """
    with _LOCK:
        counts = dict(_COUNTS.most_common())
    html = {key: counts.pop(key, 0) for key in ("html: fast", "html: parser")}
    fast = counts.pop("fast", 0)
    return {
        "fast": fast,
        "fallback": sum(counts.values()),
        "reasons": counts,
        "html_fast": html["html: fast"],
        "html_parser": html["html: parser"],
    }


def reset_reader_counts() -> None:
    """Set the counts that ``reader_counts()`` gives to zero."""
    with _LOCK:
        _COUNTS.clear()


def raw_counts() -> dict[str, int]:
    """The counts as kept (by path or reason)."""
    with _LOCK:
        return dict(_COUNTS)


def add_counts(counts: dict[str, int]) -> None:
    """Add counts a forked child kept (:func:`take_counts`) to this process's."""
    with _LOCK:
        _COUNTS.update(counts)


def take_counts() -> dict[str, int]:
    """The counts as kept (:func:`raw_counts`), then set to zero: a forked child sends the
    counts of each block it read with the block, for :func:`add_counts` here."""
    with _LOCK:
        taken = dict(_COUNTS)
        _COUNTS.clear()
        return taken


def after_fork() -> None:
    """In a forked child: counts of its own, from zero, under a lock of its own (another
    thread of the parent may have held the parent's lock when it forked)."""
    global _LOCK
    _LOCK = threading.Lock()
    _COUNTS.clear()


class _DeclineError(Exception):
    """The fast path does not read this message (the reason is the message)."""


class FastPart:
    """One MIME part as the fast path read it, with the methods of
    :class:`email.message.Message` the e-mail reader calls (same answers)."""

    __slots__ = (
        "charset", "children", "cte", "ctype", "defects", "disposition", "filename", "payload",
    )  # fmt: skip

    def __init__(self, ctype: str, charset: str, cte: str | None) -> None:
        self.ctype = ctype
        self.charset = charset
        self.cte = cte
        self.disposition: str | None = None
        self.filename: str | None = None
        self.children: list[FastPart] | None = None
        self.payload = b""
        # The parser's defects for this part: only a missing closing boundary is read here.
        self.defects: tuple[object, ...] = ()

    def get_content_type(self) -> str:
        return self.ctype

    def get_content_charset(self, failobj: str = "") -> str:
        return self.charset or failobj

    def is_multipart(self) -> bool:
        return self.children is not None

    def get_payload(self, decode: bool = False) -> Any:
        return self.children if self.children is not None else self.payload

    def get_content_disposition(self) -> str | None:
        return self.disposition

    def get_filename(self) -> str | None:
        return self.filename

    def get(self, name: str) -> str | None:
        return self.cte if name.lower() == "content-transfer-encoding" else None

    def replace_header(self, name: str, value: str) -> None:
        """Nothing to do: the transfer encoding was normalised when the part was read."""


# --- header blocks ------------------------------------------------------------------------

_BLANK = re.compile(rb"\n\r?\n")
# A line of a header block that the parser would not read as a header or a continuation.
# (Searched for in "\n" + block: a literal first is what the regex engine finds fastest.)
_BAD_LINE = re.compile(rb"\n(?![\x21-\x39\x3b-\x7e]+:|[ \t])")
# Whitespace as str.isspace sees it among ASCII characters, line feeds aside, to blanks.
_BLANKS = bytes.maketrans(b"\t\r\x0b\x0c\x1c\x1d\x1e\x1f", b" " * 8)
_FIELD = re.compile(r"^([^:\n]*): ?([^\n]*)", re.MULTILINE)
_CONTENT = re.compile(
    rb"\n(content-(?:type|transfer-encoding|disposition)):[ \t]*(.*(?:\n[ \t].*)*)",
    re.IGNORECASE,
)
_NEEDS_DECODING = re.compile(r"=\?|[\udc80-\udcff]")


def _head(data: bytes, start: int, end: int) -> tuple[bytes, int]:
    """The header block of the part in ``data[start:end]`` (without the blank line after
    it) and where its body starts."""
    if data.startswith(b"\n", start, end):
        return b"", start + 1
    if data.startswith(b"\r\n", start, end):
        return b"", start + 2
    blank = _BLANK.search(data, start, end)
    if blank is None:
        raise _DeclineError("no blank line after the headers")
    block = data[start : blank.start()]
    if block[:1] in (b" ", b"\t"):
        raise _DeclineError("continuation line first among the headers")
    if _BAD_LINE.search(b"\n" + block):
        raise _DeclineError("a line that is not a header among the headers")
    return block, blank.end()


def header_fields(block: bytes) -> list[tuple[str, str]]:
    """(name, value) of every header of a valid block, unfolded and with white space runs
    collapsed (raw 8-bit bytes as surrogate escapes), as the parser and the reader's first
    step make them."""
    if not block:
        return []
    # A line feed before a blank starts a continuation line: joined, one line a header.
    flat = block.translate(_BLANKS).replace(b"\n ", b" ")
    while b"  " in flat:  # runs of white space to one blank
        flat = flat.replace(b"  ", b" ")
    flat = flat.replace(b" \n", b"\n").removesuffix(b" ")
    return _FIELD.findall(flat.decode("ascii", "surrogateescape"))


def needs_decoding(value: str) -> bool:
    """Whether a header value holds encoded words or raw 8-bit bytes."""
    return _NEEDS_DECODING.search(value) is not None


def _content_headers(block: bytes) -> dict[str, str]:
    """The raw values (as ``compat32`` returns them) of a block's Content-* headers."""
    found: dict[str, str] = {}
    if b"content-" not in block.lower():
        return found
    for name, value in _CONTENT.findall(b"\n" + block):
        key = name.lower().decode("ascii")
        if key in found:
            raise _DeclineError(f"{key} given twice")
        if not value.isascii():
            raise _DeclineError(f"{key} beyond ASCII")
        found[key] = value.decode("ascii").rstrip("\r\n")
    return found


# --- parameters ---------------------------------------------------------------------------

# A Content-Type/-Disposition value whose parameters read the same by any reading: a type,
# then name=token or name="quoted" without semicolons, backslashes or RFC 2231 stars.
_STRICT = re.compile(
    r"[^;\"\\=]*"
    r"(?:;[ \t\r\n]*[A-Za-z0-9!#$%&'+.^_`|~-]+[ \t\r\n]*=[ \t\r\n]*"
    r"(?:\"[^\"\\;]*\"|[^\s;\"\\<>]*)[ \t\r\n]*)*;?[ \t\r\n]*\Z"
)
_PARAM = re.compile(
    r";[ \t\r\n]*([A-Za-z0-9!#$%&'+.^_`|~-]+)[ \t\r\n]*=[ \t\r\n]*(\"[^\"]*\"|[^\s;]*)"
)


def _params(value: str) -> dict[str, str] | None:
    """``get_param(name)`` for each name of a strict value (first occurrence wins), or None
    for a value that is not strict."""
    if _STRICT.match(value) is None:
        return None
    found = {value.partition(";")[0].strip().lower(): ""}
    for name, raw in _PARAM.findall(value):
        found.setdefault(name.lower(), raw[1:-1] if raw[:1] == '"' else raw)
    return found


@functools.lru_cache(maxsize=1024)
def _parsed_fields(
    ctype: str | None, disposition: str | None
) -> tuple[str, str | None, str | None]:
    """(charset, boundary, file name) of a part with these headers, read by :mod:`email`."""
    part = _Part(policy=compat32)
    if ctype is not None:
        part["Content-Type"] = ctype
    if disposition is not None:
        part["Content-Disposition"] = disposition
    try:
        filename = part.get_filename()
    except Exception:
        filename = None
    return part.get_content_charset("") or "", part.get_boundary(), filename


def _fields(ctype: str | None, disposition: str | None) -> tuple[str, str | None, str | None]:
    """(charset, boundary, file name): ``get_content_charset``, ``get_boundary`` and
    ``get_filename`` of a part with these Content-Type and Content-Disposition values."""
    type_params = _params(ctype) if ctype is not None else {}
    disp_params = _params(disposition) if disposition is not None else {}
    if type_params is None or disp_params is None:
        return _parsed_fields(ctype, disposition)
    charset = type_params.get("charset", "").lower()
    boundary = type_params.get("boundary")
    name = disp_params.get("filename", type_params.get("name"))
    return (
        charset,
        None if boundary is None else unquote(boundary).rstrip(),
        None if name is None else unquote(name).strip(),
    )


# --- the MIME tree ------------------------------------------------------------------------

_BOUNDARY_OK = re.compile(r"[0-9A-Za-z'()+_,./:=?-][0-9A-Za-z'()+_,./:=? -]{0,69}")


# What may follow "--" and the boundary on a boundary line (the feed parser's boundaryendRE):
# "--" on the closing one, blanks, the line end.
_BOUNDARY_END = re.compile(rb"(--)?[ \t]*\r?$", re.MULTILINE)


def _boundary_lines(
    data: bytes, start: int, end: int, boundary: str
) -> list[tuple[int, int, bool]]:
    """(start, end before its line break, closing?) of each line of ``data[start:end]`` that
    is a line of this boundary."""
    mark = b"--" + boundary.encode("ascii")
    found = []
    at = data.find(mark, start, end)
    while at >= 0:
        if at == start or data[at - 1] == 10:
            tail = _BOUNDARY_END.match(data, at + len(mark), end)
            if tail is not None:
                found.append((at, tail.end(), tail.group(1) is not None))
        at = data.find(mark, at + len(mark), end)
    return found


class _Heads:
    """Reads the header blocks of one message's parts: by regular expressions
    (:func:`_head`, :func:`_content_headers`, :func:`header_fields`), or by one kernel call a
    block (:func:`._mail_kernels.scan_head`, which finds the same)."""

    __slots__ = ("array", "data", "flat", "kernel")

    def __init__(self, data: bytes, kernel: bool) -> None:
        self.data = data
        self.kernel = _kernel_module() if kernel else None
        if self.kernel is not None:
            self.array = self.kernel.np.frombuffer(data, self.kernel.np.uint8)
            self.flat = _flat_buffer(len(data))

    def read(self, start: int, end: int) -> tuple[bytes, int, dict[str, str], int]:
        """The header block of the part in ``data[start:end]``, where its body starts, the
        raw values of its Content-* headers, and (kernel) the bytes of ``flat`` holding its
        headers unfolded."""
        data = self.data
        kernel = self.kernel
        if kernel is None:
            block, body = _head(data, start, end)
            if b"\nFrom " in block or block.startswith(b"From "):
                raise _DeclineError("an envelope (From ) line among the headers")
            return block, body, _content_headers(block), 0
        # (An envelope line among the headers is no header line: declined as one.)
        status, stop, body, size, *spans = kernel.scan_head(
            self.array, start, end, kernel.CONTENT_TABLE, self.flat
        )
        if status:
            raise _DeclineError(_head_problem(status))
        found = {}
        for name, a, b in zip(kernel.CONTENT_NAMES, spans[0::2], spans[1::2], strict=True):
            if a >= 0:
                found[name] = data[a:b].decode("ascii").rstrip("\r\n")
        return data[start:stop], body, found, size

    def fields(self, block: bytes, size: int) -> list[tuple[str, str]]:
        """:func:`header_fields` of the block :meth:`read` read last (``size`` from it)."""
        if self.kernel is None:
            return header_fields(block)
        if not size:
            return []
        flat = bytes(self.flat[:size]).decode("ascii", "surrogateescape").split("\n")
        return list(zip(flat[0::2], flat[1::2], strict=True))


_KERNELS: Any = None
_BUFFERS = threading.local()


def _kernel_module() -> Any:
    """:mod:`._mail_kernels`, imported on first use (it imports numpy and numba)."""
    global _KERNELS
    if _KERNELS is None:
        from . import _mail_kernels

        _KERNELS = _mail_kernels
    return _KERNELS


def _flat_buffer(size: int) -> Any:
    """A byte array of at least ``size`` bytes for the unfolded headers, this thread's own
    (kept for its next message: a fresh one per message cost more than reading its block)."""
    buffer = getattr(_BUFFERS, "flat", None)
    if buffer is None or buffer.size < size:
        buffer = _BUFFERS.flat = _kernel_module().np.empty(max(size, 1 << 16), "uint8")
    return buffer


def _head_problem(status: int) -> str:
    """Why the fast path declines a block :func:`._mail_kernels.scan_head` read (the
    reasons :func:`_head` and :func:`_content_headers` give)."""
    from ._mail_kernels import BAD_LINE, BEYOND_ASCII, CONTENT_NAMES, NO_BLANK, TWICE

    if status == NO_BLANK:
        return "no blank line after the headers"
    if status < BAD_LINE:
        return "continuation line first among the headers"
    if status == BAD_LINE:
        return "a line that is not a header among the headers"
    if status < BEYOND_ASCII:
        return f"{CONTENT_NAMES[status - TWICE]} given twice"
    return f"{CONTENT_NAMES[status - BEYOND_ASCII]} beyond ASCII"


def _part(
    heads: _Heads,
    start: int,
    end: int,
    depth: int,
    outer: tuple[str, ...],
    head: tuple[bytes, int, dict[str, str], int] | None = None,
) -> FastPart:
    """The part in ``data[start:end]`` (a whole message when ``outer`` is empty), whose
    header block, body start and Content-* headers are ``head`` when already read."""
    data = heads.data
    _, body, content, _ = head or heads.read(start, end)
    raw_type = content.get("content-type")
    ctype = _content_type(raw_type)
    main = ctype.partition("/")[0]
    if main == "message" or ctype == "multipart/digest":
        raise _DeclineError(f"a {ctype} part")
    raw_disposition = content.get("content-disposition")
    charset, boundary, filename = _fields(raw_type, raw_disposition)
    cte = content.get("content-transfer-encoding")
    part = FastPart(ctype, charset, cte)
    if raw_disposition is not None:
        part.disposition = raw_disposition.partition(";")[0].strip().lower()
    part.filename = filename
    if main == "multipart":
        if boundary is None or not _BOUNDARY_OK.fullmatch(boundary) or boundary in outer:
            raise _DeclineError("a multipart boundary missing, unusual or reused")
        if cte is not None and cte.lower() not in ("7bit", "8bit", "binary"):
            raise _DeclineError("a multipart with a transfer encoding")
        if depth >= MAX_FAST_DEPTH:
            raise _DeclineError("MIME parts nested deep")
        part.children, closed = _children(heads, body, end, depth, (*outer, boundary))
        if not closed:  # the last part runs to the end, as the parser reads it
            part.defects = (CloseBoundaryNotFoundDefect(),)
        return part
    if outer and end > body and data[end - 1] == 10:  # the line end before a boundary
        end -= 2 if end - body >= 2 and data[end - 2] == 13 else 1  # belongs to the boundary
    if main == "text":
        part.payload = _decoded(data[body:end], (cte or "").strip().lower())
    return part


def _content_type(raw: str | None) -> str:
    """``get_content_type()`` of a part whose Content-Type header is ``raw``: text/plain
    without one, or for a value that is not one type and subtype."""
    if raw is None:
        return "text/plain"
    ctype = raw.partition(";")[0].strip().lower()
    return ctype if ctype.count("/") == 1 else "text/plain"


def _children(
    heads: _Heads, start: int, end: int, depth: int, outer: tuple[str, ...]
) -> tuple[list[FastPart], bool]:
    """The parts of a multipart whose body is ``data[start:end]``, and whether its closing
    boundary line was found (without it, the last part runs to ``end``)."""
    lines = _boundary_lines(heads.data, start, end, outer[-1])
    if not lines or lines[0][2]:
        raise _DeclineError("the first multipart boundary is missing")
    last = next((i for i, line in enumerate(lines) if line[2]), None)
    bounds = [(line[0], line[1]) for line in lines[: len(lines) if last is None else last + 1]]
    if last is None:
        bounds.append((end, end))
    children = []
    for before, after in itertools.pairwise(bounds):
        begin = before[1] + 1  # after the boundary line's "\n"
        if begin >= after[0]:
            raise _DeclineError("two multipart boundary lines in a row, or one last")
        children.append(_part(heads, begin, after[0], depth + 1, outer))
    return children, last is not None


def _decoded(raw: bytes, cte: str) -> bytes:
    """``get_payload(decode=True)`` of a text part, declining what would be a defect."""
    if cte in ("", "7bit", "8bit", "binary"):
        return raw
    if cte == "quoted-printable":
        return binascii.a2b_qp(raw)
    if cte == "base64":
        joined = b"".join(raw.splitlines())
        if len(joined) % 4:
            raise _DeclineError("base64 of impossible length or without padding")
        try:
            return base64.b64decode(joined, validate=True)
        except binascii.Error:
            raise _DeclineError("characters outside the base64 alphabet") from None
    raise _DeclineError("an unusual Content-Transfer-Encoding")


def parse(
    data: bytes, kernel: bool | None = None
) -> tuple[FastPart, bytes, list[tuple[str, str]]] | str:
    """The MIME tree, header block and header fields (:func:`header_fields`) of a raw
    message, or why the fast path declines it. Header blocks are read by a kernel when
    ``kernel``; by default once the reader turns to its kernels (:func:`.use_kernels`)."""
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return "bare CR line ends"
    start = 0
    if data.startswith(b"From "):  # the mbox envelope line
        start = data.find(b"\n") + 1
        if not start:
            return "only an envelope line"
    heads = _Heads(data, use_kernels(len(data)) if kernel is None else kernel)
    try:
        head = heads.read(start, len(data))
        fields = heads.fields(head[0], head[3])  # before the parts' blocks overwrite them
        root = _part(heads, start, len(data), 0, (), head)
    except _DeclineError as reason:
        return str(reason)
    return root, head[0], fields


# --- a message's headers by name (the reader's Message and its tokens) -------------------
def header_names(headers: list[tuple[str, str]]) -> str:
    """The names of ``headers`` lowercased together, as one string, each between line breaks:
    a message has dozens of headers, and lowercasing them one by one was most of the cost of
    finding one. (A header name holds no line break, and ``str.lower`` of names joined by line
    breaks is that of each name: none is cased or case-ignorable.)"""
    return "\n" + "\n".join([key for key, _ in headers]).lower() + "\n"


def first_headers(
    headers: list[tuple[str, str]], names: tuple[str, ...], joined: str
) -> list[str | None]:
    """The value of the first header called each of ``names`` (lowercase), compared in any
    case, or None; ``joined`` is :func:`header_names` of ``headers``."""
    if not headers:  # (joined is then two line breaks, which an empty name would find)
        return [None] * len(names)
    found: list[str | None] = []
    for name in names:
        at = joined.find(f"\n{name}\n") if "\n" not in name else -1
        found.append(None if at < 0 else headers[joined.count("\n", 0, at)][1])
    return found
