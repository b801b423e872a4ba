"""Reading e-mail for spam filtering: raw RFC 822 messages to text, links and tokens.

Standard library only (:mod:`email` with the forgiving ``compat32`` policy, :mod:`html.parser`,
:mod:`mailbox`). Reading never raises for a malformed message: what can be read is read and
the rest is described in :attr:`Message.defects`.

Charset rule
    Every byte string (a text part, a raw 8-bit header, an RFC 2047 encoded word) is decoded
    with its declared charset when Python knows it (after normalising spellings such as
    ``windows-874``, ``x-mac-roman`` or ``iso-8859-8-i``). When no charset is declared, when it
    is unknown (``x-unknown``, ``x-user-defined``), or when the bytes are invalid in it, the
    bytes are read as UTF-8 if they are valid UTF-8, else as cp1252 (latin-1 when a byte cp1252
    leaves undefined occurs), which never fails; except that bytes invalid in a known charset
    other than us-ascii and not UTF-8 either (damaged ``gb2312``, say) are read in that charset
    with U+FFFD for the bad bytes. Each fallback is recorded in ``defects``; undeclared bytes
    that are valid UTF-8 are not a defect. (The helpers live in :mod:`bayeskit.text._mime`.)

Fast path
    A message is first offered to a reader whose work is done by compiled primitives instead
    of the parser's line-by-line Python (:mod:`bayeskit.text._mailread`): each part's header
    block found, checked, unfolded and its Content-* headers picked out by one compiled pass
    (:mod:`bayeskit.text._mail_kernels`), RFC 2047 encoded words and raw 8-bit headers
    decoded by the charset rule above, the MIME structure (single parts and nested
    ``multipart/*``) found with ``bytes.find`` and regular expressions on bytes,
    quoted-printable and base64 decoded by :mod:`binascii`, well-formed HTML turned into text
    by regular expressions and a compiled pass over its tags (:mod:`bayeskit.text._fasthtml`);
    the tokens' words are found by a compiled kernel (:mod:`bayeskit.text._mail_words`). It
    declines what it cannot read exactly as :mod:`email`'s parser does: defects the parser
    would record, bare CR line ends, ``message/*`` parts, repeated Content-* headers, unusual
    boundaries, huge messages, and malformed or unusual HTML, which are then read by the
    parser (and :class:`html.parser.HTMLParser`). Both give the same :class:`Message`.
    :func:`reader_counts` says how many messages this process read by each path and why the
    others were declined.

Limits (memory-safe reading of huge messages, linear time)
    A message larger than ``MAX_PART_BYTES`` (4 MiB) is skimmed before MIME parsing: of the
    bytes between two lines starting with ``--`` (the multipart boundaries) at most
    ``MAX_PART_BYTES`` are kept, and at most ``MAX_MESSAGE_BYTES`` (16 MiB) in all. Text parts
    beyond ``MAX_TEXT_CHARS`` (2,000,000 characters in all) are cut. Binary attachments are
    never decoded. Every cut is recorded in ``defects``. No message of the SpamAssassin corpus
    (largest 300 KB) comes near these limits.

Long because reading a message is one pipeline whose steps share the charset rule: headers,
encoded words, parts, HTML and links. The fast reader of well-formed messages is in
:mod:`._mailread` and :mod:`._fasthtml`; this module reads whatever they decline.
"""

from __future__ import annotations

import base64
import email
import email.feedparser
import email.parser
import functools
import io
import os
import re
from collections.abc import Callable, Iterator
from email import errors as email_errors
from email._policybase import compat32  # email.policy.compat32 (see ._mailread)
from email.message import Message as _Part
from email.parser import BytesParser
from email.utils import getaddresses, parseaddr
from itertools import chain

from bayeskit.errors import DataError, InputTypeError, ParameterError
from bayeskit.text._mail_words import WORD_PATTERN, kernels_in_use, words
from bayeskit.text._mailread import (
    FastPart,
    count,
    first_headers,
    header_names,
    needs_decoding,
    parse,
    reader_counts,
    reset_reader_counts,
)
from bayeskit.text._mime import (
    codec_of,
    decode_bytes,
    decode_header_value,
    find_urls,
    html_to_text,
    url_tokens,
)
from bayeskit.text._plain_batch import plain_parts

# A mail filter reads one message with this module: typing, mailbox and pathlib (for folders
# and mbox files, imported where they are read) are not imported for it.
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ._message import Message

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_PART_BYTES",
    "MAX_TEXT_CHARS",
    "Message",
    "email_tokens",
    "iter_folder",
    "iter_mbox",
    "read_email_folders",
    "read_message",
    "reader_counts",
    "reset_reader_counts",
]

MAX_PART_BYTES = 4 * 2**20
MAX_MESSAGE_BYTES = 16 * 2**20
MAX_TEXT_CHARS = 2_000_000
_MAX_DEPTH = 40

Source = bytes | bytearray | memoryview | str | os.PathLike[str]
#: A parsed MIME part: the parser's, or the fast path's with the same answers.
_AnyPart = _Part | FastPart


#: The fields of a :class:`Message`, in order.
FIELDS = ("headers", "subject", "sender", "to", "text", "urls", "attachments", "parts", "defects")


class MessageFields:
    """What :func:`read_message` read of one e-mail before it is a :class:`Message`: the same
    attributes, in a plain object. The analyzers tokenize it as it is (:func:`tokens_of`):
    the Message dataclass (:mod:`._message`, imported on first use) imports
    :mod:`dataclasses`, and with it :mod:`inspect` and :mod:`ast`, a sixth of a one-message
    mail filter's start-up. ``mailer`` is its first X-Mailer (else User-Agent) header's
    value, found with the fields' headers (:func:`tokens_of` reads it; not a field)."""

    __slots__ = (*FIELDS, "mailer")

    def __init__(
        self,
        headers: list[tuple[str, str]],
        subject: str,
        sender: str,
        to: str,
        text: str,
        urls: list[str],
        attachments: list[tuple[str, str]],
        parts: list[tuple[str, str]],
        defects: list[str],
        mailer: str | None = None,
    ) -> None:
        self.headers, self.subject, self.sender, self.to = headers, subject, sender, to
        self.text, self.urls, self.attachments = text, urls, attachments
        self.parts, self.defects = parts, defects
        self.mailer = mailer

    def __eq__(self, other: object) -> bool:
        if type(other) is not MessageFields:
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in FIELDS)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS)
        return f"MessageFields({shown})"

    def message(self) -> Message:
        """These fields as the :class:`Message` that :func:`read_message` returns."""
        from ._message import Message

        return Message(*(getattr(self, name) for name in FIELDS))


def __getattr__(name: str) -> Any:
    """:class:`Message`, imported on first use (see :class:`MessageFields`)."""
    if name == "Message":
        from ._message import Message

        return Message
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the MIME tree ------------------------------------------------------------------------

_DEFECT_TEXT = {
    "NoBoundaryInMultipartDefect": "multipart without a boundary parameter",
    "StartBoundaryNotFoundDefect": "the multipart boundary never occurs in the body",
    "CloseBoundaryNotFoundDefect": "the closing multipart boundary is missing (truncated?)",
    "MissingHeaderBodySeparatorDefect": "a line that is not a header among the headers "
    "(the blank line before the body is missing, or the headers are garbled)",
    "InvalidBase64PaddingDefect": "base64 with missing or wrong padding (truncated?)",
    "InvalidBase64CharactersDefect": "characters outside the base64 alphabet were ignored",
    "InvalidBase64LengthDefect": "base64 of impossible length (truncated); "
    "the complete 4-character groups were decoded",
}
_KNOWN_CTE = frozenset(
    {"", "7bit", "8bit", "binary", "quoted-printable", "base64", "x-uuencode", "uuencode"}
)
_HTML_TYPES = frozenset({"text/html", "text/enriched", "text/richtext", "text/x-html"})
_CONTROL_BYTES = bytes([*range(9), 11, *range(14, 32), 127])
_GUESS_BOUNDARY = re.compile(rb"^--([!#-~][ !#-~]{0,199}?)(?:--)?[ \t]*\r?$", re.MULTILINE)


def _lenient_b64(data: bytes) -> bytes:
    clean = re.sub(rb"[^A-Za-z0-9+/]", b"", data)
    return base64.b64decode(clean[: len(clean) // 4 * 4])


class _Reader:
    """Walks a parsed MIME tree, gathering text, URLs, attachments, parts and defects."""

    def __init__(self, defects: list[str], fast: bool = True) -> None:
        self.defects = defects
        self.fast = fast  # HTML read by regular expressions when it is well-formed
        self.urls: list[str] = []
        self.attachments: list[tuple[str, str]] = []
        self.parts: list[tuple[str, str]] = []
        self.text_parts = self.empty_parts = self.text_chars = 0

    def _report(self, found: list[Any], where: str) -> None:
        for defect in found:
            name = type(defect).__name__
            doc = (type(defect).__doc__ or name).strip().splitlines()[0].rstrip(".")
            self.defects.append(f"{where}: {_DEFECT_TEXT.get(name, doc[:1].lower() + doc[1:])}")

    def walk(self, part: _AnyPart, depth: int, texts: list[str]) -> None:
        try:
            self._walk(part, depth, texts)
        except Exception as error:  # a safety net: the email package met something unforeseen
            self.defects.append(f"a part could not be read ({type(error).__name__}: {error})")

    def _walk(self, part: _AnyPart, depth: int, texts: list[str]) -> None:
        ctype = part.get_content_type()
        charset = part.get_content_charset("") or ""
        self.parts.append((ctype, charset))
        where = "message" if depth == 0 else f"{ctype} part"
        self._report(list(part.defects), where)
        if depth > _MAX_DEPTH:
            self.defects.append(f"{where}: MIME parts nested over {_MAX_DEPTH} deep were skipped")
            return
        if part.is_multipart():
            children = [c for c in part.get_payload() if isinstance(c, (_Part, FastPart))]
            if ctype == "multipart/alternative" and len(children) > 1:
                self._alternative(children, depth, texts)
            else:
                for child in children:
                    self.walk(child, depth + 1, texts)
            return
        main = ctype.partition("/")[0]
        if main == "multipart":  # no boundary, or the boundary was never found
            if self._reparse(part, ctype, depth, texts):
                return
            self.defects.append(f"{where}: its body was read as plain text")
        filename = self._filename(part)
        if main in ("text", "multipart"):
            if part.get_content_disposition() == "attachment":
                self.attachments.append((filename, ctype))
            self._read_text(part, ctype, charset, where, texts)
        elif main != "message":  # message/* parts hold no text of their own
            self.attachments.append((filename, ctype))

    def _alternative(self, children: list[_AnyPart], depth: int, texts: list[str]) -> None:
        versions = []
        for child in children:
            found: list[str] = []
            self.walk(child, depth + 1, found)
            versions.append((child.get_content_type(), found))
        plain = [found for ctype, found in versions if ctype == "text/plain" and "".join(found)]
        rich = [found for _, found in versions if "".join(found)]
        if plain or rich:
            texts.extend(plain[0] if plain else rich[-1])

    def _reparse(self, part: _AnyPart, ctype: str, depth: int, texts: list[str]) -> bool:
        """Guess the boundary of a broken multipart from its body and read it with it."""
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes):
            return False
        match = _GUESS_BOUNDARY.search(data[:65536])
        if match is None or data.count(b"--" + match.group(1)) < 2:
            return False
        boundary = match.group(1).decode("ascii")
        head = f'Content-Type: {ctype}; boundary="{boundary}"\n\n'.encode()
        try:
            guessed = email.message_from_bytes(head + data, policy=compat32)
        except Exception:  # e.g. RecursionError on absurdly nested parts
            return False
        if not guessed.is_multipart():
            return False
        self.defects.append(f"{ctype} part: read with the boundary {boundary!r} found in its body")
        for child in guessed.get_payload():
            if isinstance(child, _Part):
                self.walk(child, depth + 1, texts)
        return True

    def _filename(self, part: _AnyPart) -> str:
        try:
            name = part.get_filename() or ""
        except Exception:
            return ""
        return decode_header_value(name, "filename", self.defects) if name else ""

    def _payload(self, part: _AnyPart, where: str) -> bytes:
        """The transfer-decoded bytes of a leaf part (``b''`` when there are none)."""
        raw = part.get("content-transfer-encoding")
        cte = str(raw or "").strip().lower()
        if raw is not None and str(raw) != cte:
            part.replace_header("content-transfer-encoding", cte)
        if cte not in _KNOWN_CTE:
            self.defects.append(f"{where}: unknown Content-Transfer-Encoding {cte!r}; used as is")
        before = len(part.defects)
        try:
            data = part.get_payload(decode=True)
        except Exception as error:
            self.defects.append(f"{where}: body could not be decoded ({error})")
            return b""
        if not isinstance(data, bytes):
            return b""
        new = list(part.defects[before:])
        self._report(new, where)
        if any(isinstance(d, email_errors.InvalidBase64LengthDefect) for d in new):
            data = _lenient_b64(data)
        return data

    def _read_text(
        self, part: _AnyPart, ctype: str, charset: str, where: str, texts: list[str]
    ) -> None:
        self.text_parts += 1
        data = self._payload(part, where)
        budget = MAX_TEXT_CHARS - self.text_chars
        if not data or data.isspace():  # (what strip() leaves empty, without a copy)
            self.empty_parts += 1
            return
        if budget <= 0:
            self.defects.append(f"{where}: skipped, the text limit of {MAX_TEXT_CHARS:,} is used")
            return
        final = len(data) <= budget
        if not final:
            self.defects.append(f"{where}: text cut at {budget:,} of {len(data):,} bytes")
            data = data[:budget]
        control = _binary_control_bytes(data, charset)
        if control:
            self.defects.append(
                f"{where}: looks binary ({control} control bytes in the first "
                f"{min(len(data), _SAMPLE_BYTES)}); not read as text"
            )
            return
        text = decode_bytes(data, charset, where, self.defects, final)
        if ctype in _HTML_TYPES:
            text, links, problem = html_to_text(text, fast=self.fast)
            self.urls.extend(links)
            if problem:
                self.defects.append(f"{where}: HTML parser failed ({problem}); tags stripped")
        else:
            text = text.replace("\r\n", "\n").strip()
        self.urls.extend(find_urls(text))
        self.text_chars += len(text)
        if text:
            texts.append(text)


#: A text part's first bytes, where control bytes tell binary data.
_SAMPLE_BYTES = 4096


def _binary_control_bytes(data: bytes, charset: str) -> int:
    """How many control bytes the first :data:`_SAMPLE_BYTES` of a text part hold when they
    make it binary data (over a tenth of them, in a charset other than UTF-16 and UTF-32),
    else 0."""
    sample = data[:_SAMPLE_BYTES]
    control = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    codec = codec_of(charset) if charset else None
    if control > len(sample) // 10 and not (codec or "").startswith(("utf-16", "utf-32")):
        return control
    return 0


# --- reading ------------------------------------------------------------------------------

_DASH_LINE = re.compile(rb"^--", re.MULTILINE)
#: A message declaring more MIME boundaries than this is not given to the parser: it nests
#: multiparts in recursion, two frames a level, and thousands of levels reach Python's
#: recursion limit, where whatever else runs (a finalizer, a gc callback) fails too. Parts
#: nested over ``_MAX_DEPTH`` deep are skipped anyway; real mail declares a handful.
_MAX_BOUNDARIES = 200
_BOUNDARY = re.compile(rb"boundary\s*=", re.IGNORECASE)
#: A longer header block is left to the parser whole (it reads 8,192 characters at a time).
_FAST_HEADER_CHARS = 8000
# The parser's own rules for a header line and for the blank line after the headers
# (undocumented names of email.feedparser; the same patterns should they ever move).
_HEADER_LINE_RE: re.Pattern[str] = getattr(
    email.feedparser, "headerRE", re.compile(r"^(From |[\041-\071\073-\176]*:|[\t ])")
)
_NEWLINE_RE: re.Pattern[str] = getattr(email.feedparser, "NLCRE", re.compile(r"\r\n|\r|\n"))
_NEWLINE_END_RE: re.Pattern[str] = getattr(
    email.feedparser, "NLCRE_eol", re.compile(r"(\r\n|\r|\n)\Z")
)


def _skim(data: bytes, defects: list[str]) -> bytes:
    """Cut each oversized stretch between ``--`` lines (MIME boundaries) of a huge message."""
    if len(data) <= MAX_PART_BYTES:
        return data
    kept: list[bytes] = []
    size = begin = 0
    for end in chain((m.start() for m in _DASH_LINE.finditer(data)), [len(data)]):
        if end <= begin:
            continue
        stop = end
        if end - begin > MAX_PART_BYTES:  # cut after a line if one ends near the limit
            stop = begin + MAX_PART_BYTES
            stop = data.rfind(b"\n", stop - MAX_PART_BYTES // 2, stop) + 1 or stop
        kept += [data[begin:stop], b"\n"] if stop < end else [data[begin:end]]
        size += stop - begin
        begin = end
        if size > MAX_MESSAGE_BYTES:
            break
    if size < len(data):
        defects.append(
            f"message of {len(data):,} bytes: {len(data) - size:,} bytes were skipped unread "
            f"(at most {MAX_PART_BYTES:,} bytes are read per MIME part, "
            f"{MAX_MESSAGE_BYTES:,} in all)"
        )
    return b"".join(kept)


def _parse(data: bytes) -> _Part:
    """``email.message_from_bytes(data, policy=compat32)``, the same message. For one that is
    neither multipart nor message/*, the parser would take everything after the header block
    as the payload, line by line: here the header block, found by the parser's own rules, is
    read as the parser reads headers (:func:`_header_block`) and the rest is set as the
    payload at once (20 Newsgroups posts: a third of the time of reading one)."""
    text = data.decode("ascii", "surrogateescape")
    lines = io.StringIO(text, newline="")  # lines as the parser cuts them (\r\n, \r, \n)
    end = 0
    block: list[str] = []
    while end <= _FAST_HEADER_CHARS:
        line = lines.readline()
        if line and _HEADER_LINE_RE.match(line):
            end += len(line)
            block.append(line)
            continue
        if line and not _NEWLINE_RE.match(line):
            break  # no blank line after the headers: the parser notes the defect
        end += len(line)
        head = _header_block(block)
        if head is None or head.get_content_maintype() in ("multipart", "message"):
            break
        head.set_payload(text[end:])
        return head
    return email.message_from_bytes(data, policy=compat32)


def _header_block(lines: list[str]) -> _Part | None:
    """The message ``email.parser.Parser(policy=compat32).parsestr(..., headersonly=True)``
    makes of a header block (these lines, each matching the parser's header-line pattern,
    then a blank line or the end): the same headers, envelope line and defects, read as
    ``email.feedparser`` reads them. None for a block whose last line is an envelope
    (``From ``) line, which the parser hands back to the body."""
    message = _Part(policy=compat32)
    source: list[str] = []  # the lines of the header being read
    for number, line in enumerate(lines):
        if line[0] in " \t":
            if source:
                source.append(line)
            else:
                message.defects.append(email_errors.FirstHeaderLineIsContinuationDefect(line))
            continue
        if source:
            message.set_raw(*compat32.header_source_parse(source))
            source = []
        if line.startswith("From "):
            if number == 0:
                message.set_unixfrom(_NEWLINE_END_RE.sub("", line, count=1))
            elif number == len(lines) - 1:
                return None
            else:
                message.defects.append(email_errors.MisplacedEnvelopeHeaderDefect(line))
            continue
        if line.startswith(":"):
            message.defects.append(email_errors.InvalidHeaderDefect("Missing header name."))
            continue
        source = [line]
    if source:
        message.set_raw(*compat32.header_source_parse(source))
    return message


def _read_bytes(data: bytes, fast: bool = True) -> MessageFields:
    defects: list[str] = []
    headers: list[tuple[str, str]] = []
    texts: list[str] = []
    reader = _Reader(defects, fast)
    tree: tuple[FastPart, bytes, list[tuple[str, str]]] | str = "the fast path was not asked for"
    if fast:
        try:
            tree = parse(data) if len(data) <= MAX_PART_BYTES else "larger than MAX_PART_BYTES"
        except Exception as error:  # a safety net: the parser reads what the fast path cannot
            tree = f"the fast path failed ({type(error).__name__})"
        count(tree if isinstance(tree, str) else "fast")
    if not isinstance(tree, str):
        root, block, headers = tree
        if not block.isascii() or b"=?" in block:  # encoded words or raw 8-bit bytes
            headers = [
                (
                    name,
                    decode_header_value(value, name, defects) if needs_decoding(value) else value,
                )
                for name, value in headers
            ]
        reader.walk(root, 0, texts)
        return _message(data, headers, texts, reader, defects)
    data = _skim(data, defects)
    try:
        parsed = None
        if len(_BOUNDARY.findall(data)) <= _MAX_BOUNDARIES:
            try:
                parsed = _parse(data)
            except RecursionError:  # nested too deep for what is left of the stack
                parsed = None
        if parsed is None:  # thousands of nested multiparts: read the body as text
            defects.append("message: MIME parts nested too deep to parse; body read as text")
            parsed = BytesParser(policy=compat32).parsebytes(data, headersonly=True)
        for name, value in parsed.raw_items():
            headers.append((name, decode_header_value(value, name, defects)))
        reader.walk(parsed, 0, texts)
    except Exception as error:  # a safety net: the email package met something unforeseen
        defects.append(f"reading stopped early ({type(error).__name__}: {error})")
    return _message(data, headers, texts, reader, defects)


_MESSAGE_HEADERS = ("subject", "from", "to", "x-mailer", "user-agent")


def _named_fields(headers: list[tuple[str, str]]) -> tuple[str, str, str, str]:
    """The subject, sender, recipients and mailer (X-Mailer, else User-Agent) of a message's
    header fields, each its first value ("" for none)."""
    subject, sender, to, mailer, agent = first_headers(
        headers, _MESSAGE_HEADERS, header_names(headers)
    )
    return subject or "", sender or "", to or "", mailer or agent or ""


def _message(
    data: bytes,
    headers: list[tuple[str, str]],
    texts: list[str],
    reader: _Reader,
    defects: list[str],
) -> MessageFields:
    """The :class:`MessageFields` of what either path read."""
    text = "\n\n".join(texts)[:MAX_TEXT_CHARS]
    if not text or text.isspace():  # (what strip() leaves empty, without copying the text)
        if not data or data.isspace():
            reason = "the message is empty"
        elif reader.text_parts == 0:
            kinds = sorted({ctype for _, ctype in reader.attachments})
            reason = "no text part" + (" (only " + ", ".join(kinds) + ")" if kinds else "")
        elif reader.text_parts == reader.empty_parts:
            reason = "the message has no body" if len(reader.parts) == 1 else "empty text parts"
        else:
            reason = "no words in the text parts (HTML of only images and links, or binary data)"
        defects.append(f"no readable text: {reason}")
    subject, sender, to, mailer = _named_fields(headers)
    return MessageFields(
        headers=headers,
        subject=subject,
        sender=sender,
        to=to,
        text=text,
        urls=list(dict.fromkeys(reader.urls)),
        attachments=reader.attachments,
        parts=reader.parts,
        defects=defects,
        mailer=mailer,
    )


def read_message(source: Source) -> Message:
    """Read one raw RFC 822 e-mail; never raises for a malformed message.

    Parameters
    ----------
    source : bytes, str or path-like
        The raw message as bytes (the normal case; a leading mbox ``From`` line is allowed),
        a path (``os.PathLike``, or a ``str`` without line breaks), or the message text as a
        ``str`` with line breaks. Such a ``str`` is turned back into bytes as latin-1 when it
        can be (so text read with ``encoding="latin-1"`` round-trips exactly), else as UTF-8:
        pass bytes when you have them.

    Returns
    -------
    Message
        See :class:`Message`; problems are listed in its ``defects``. Charsets follow the rule
        in this module's docstring.

    Raises
    ------
    InputTypeError
        ``source`` is of another type.
    OSError
        ``source`` is a path that cannot be read.

    Examples
    --------
    >>> raw = (b"Subject: =?iso-8859-1?q?Caf=E9?=\\nContent-Type: text/plain; charset=x-unknown"
    ...        b"\\n\\nNa\\xefve caf\\xe9\\n")
    >>> msg = read_message(raw)
    >>> msg.subject, msg.text
    ('Café', 'Naïve café')
    >>> msg.defects
    ["message: unknown charset 'x-unknown'; decoded as cp1252"]
    """
    return read_fields(source).message()


def read_fields(source: Source) -> MessageFields:
    """:func:`read_message`'s fields, before they are a :class:`Message` (see
    :class:`MessageFields`)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _read_bytes(bytes(source))
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        try:
            return _read_bytes(source.encode("latin-1"))
        except UnicodeEncodeError:
            return _read_bytes(source.encode("utf-8"))
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            return _read_bytes(file.read())
    raise InputTypeError(
        f"read_message got a {type(source).__name__}; it accepts the raw message as bytes, "
        "its text as a str, or a path to a file"
    )


def iter_mbox(path: str | os.PathLike[str]) -> Iterator[Message]:
    """The messages of an mbox file, in order (read with :class:`mailbox.mbox`, not modified).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> box = pathlib.Path(tempfile.mkdtemp()) / "inbox"
    >>> _ = box.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\\nSubject: one\\n\\nHi\\n\\n"
    ...                     b"From c@d Mon Jan  1 00:00:00 2024\\nSubject: two\\n\\nHo\\n")
    >>> [m.subject for m in iter_mbox(box)]
    ['one', 'two']
    """
    import mailbox

    box = mailbox.mbox(os.fspath(path), create=False)
    try:
        for key in box.iterkeys():
            yield _read_bytes(box.get_bytes(key)).message()
    finally:
        box.close()


def iter_folder(
    path: str | os.PathLike[str], recursive: bool = True
) -> Iterator[tuple[Path, Message]]:
    """(path, message) for every file of a folder of ``.eml`` or raw message files.

    Files and folders are visited in name order; hidden ones (name starting with ``.``) and
    files named ``cmds`` (the index file of the SpamAssassin tarballs) are skipped. Symbolic
    links to folders are not followed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "sub").mkdir()
    >>> _ = (root / "a.eml").write_bytes(b"Subject: a\\n\\nx\\n")
    >>> _ = (root / "sub" / "b.eml").write_bytes(b"Subject: b\\n\\ny\\n")
    >>> _ = (root / ".hidden").write_bytes(b"Subject: h\\n\\nz\\n")
    >>> [(p.name, m.subject) for p, m in iter_folder(root)]
    [('a.eml', 'a'), ('b.eml', 'b')]
    """
    from pathlib import Path

    folder = Path(path)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder; iter_folder needs a folder of mail")
    with os.scandir(folder) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "cmds":
            continue
        if entry.is_dir(follow_symlinks=False):
            if recursive:
                yield from iter_folder(entry.path, recursive=True)
        elif entry.is_file():
            yield Path(entry.path), _read_bytes(Path(entry.path).read_bytes()).message()


def read_email_folders(root: str | os.PathLike[str]) -> tuple[list[Message], list[str]]:
    """All messages under ``root``, labelled by the sub-folder they are in.

    ``root`` holds one sub-folder per class (like the SpamAssassin corpus: ``easy_ham/``,
    ``spam/``…); files directly in ``root`` and hidden folders are ignored, and sub-folders are
    read recursively with :func:`iter_folder`.

    Returns
    -------
    messages : list of Message
    labels : list of str
        The class sub-folder's name for each message.

    Raises
    ------
    DataError
        ``root`` has no class sub-folder.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for label in ("ham", "spam"):
    ...     (root / label).mkdir()
    ...     _ = (root / label / "1.eml").write_bytes(b"Subject: " + label.encode() + b"\\n\\nx\\n")
    >>> messages, labels = read_email_folders(root)
    >>> labels, [m.subject for m in messages]
    (['ham', 'spam'], ['ham', 'spam'])
    """
    from pathlib import Path

    folder = Path(root)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder of class sub-folders")
    classes = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not classes:
        raise DataError(
            f"{folder} has no sub-folder: read_email_folders expects one sub-folder per class "
            "(e.g. ham/ and spam/) holding that class's messages"
        )
    messages: list[Message] = []
    labels: list[str] = []
    for sub in classes:
        for _, message in iter_folder(sub):
            messages.append(message)
            labels.append(sub.name)
    return messages, labels


# --- tokens -------------------------------------------------------------------------------

_WORD = WORD_PATTERN
_words = words  # compiled (:mod:`._mail_words`): the same words as _WORD.findall(text.lower())


# A corpus repeats its header fields: senders (20 Newsgroups: 5,835 distinct in 11,314 posts)
# and recipient lists, whose parsing was most of the cost of a message's header tokens, and
# subjects (a thread's replies: 6,575 distinct), mailers, MIME structures and links, whose
# tokens were a third of the Python a plain news post costs. Each is made once and kept
# (:class:`_Kept`) for short fields only, a bounded number of them: a service reads crafted
# mail from anyone.
_CACHED_HEADER_CHARS = 512
#: the fields whose tokens are kept: at most this long, at most this many of each (about
#: 10 MB a cache at worst: 128 characters of three-letter words are 32 tokens)
_KEPT_CHARS = 128
_KEPT_FIELDS = 1 << 12


class _Kept:
    """``make(key, *args)``, its answer kept for the next call alike when ``size(key)`` is at
    most ``chars`` (at most ``count`` answers); ``__wrapped__`` is ``make`` itself, as for
    :func:`functools.lru_cache`."""

    __slots__ = ("__wrapped__", "cached", "chars", "size")

    def __init__(
        self, make: Callable[..., Any], chars: int, count: int, size: Callable[[Any], int]
    ) -> None:
        self.__wrapped__ = make
        self.cached = functools.lru_cache(maxsize=count)(make)
        self.chars = chars
        self.size = size

    def __call__(self, key: Any, *args: Any) -> Any:
        return (self.cached if self.size(key) <= self.chars else self.__wrapped__)(key, *args)

    def cache_info(self) -> Any:
        return self.cached.cache_info()

    def cache_clear(self) -> None:
        self.cached.cache_clear()


def _kept(
    chars: int = _KEPT_CHARS, count: int = _KEPT_FIELDS, size: Callable[[Any], int] = len
) -> Callable[[Callable[..., Any]], _Kept]:
    """A decorator making a function :class:`_Kept`."""
    return lambda make: _Kept(make, chars, count, size)


# The address forms of most mail and news — "user@host", "user@host (Real Name)",
# "Real Name <user@host>", '"Real Name" <user@host>', "<user@host>" — are read by one regular
# expression to what ``parseaddr`` gives them, and a recipient list of such addresses to the
# number ``getaddresses`` finds (tests/text/test_simple_addresses.py compares them): a few
# microseconds where those take tens. Any other form goes to them.
_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-"  # (RFC 5322's atom characters)
_ADDRESS = rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"


def _address_forms(commas: bool) -> str:
    """The pattern of one address in those forms; groups: the address and its comment, the
    quoted name, the unquoted name, the address in angle brackets. ``commas``: whether a
    comment or a quoted name may hold one."""
    comma = "" if commas else ","
    # Each run of blanks is taken by one part of the pattern only (a name absent, the blanks
    # before "<" are the item's leading ones): a list that fails to match at its end is then
    # given up in one pass, where two ways to take each blank made the search exponential in
    # the list's length.
    return (
        rf"[ \t]*(?:({_ADDRESS})[ \t]*(?:\(([^(){comma}\\\"\r\n]*)\)[ \t]*)?"
        rf"|(?:(?:\"([^\"{comma}\\\r\n]*)\"|([{_ATEXT}.]+(?:[ \t]+[{_ATEXT}.]+)*))[ \t]*)?"
        rf"<({_ADDRESS})>[ \t]*)"
    )


_SIMPLE_SENDER = re.compile(_address_forms(commas=True))
_SIMPLE_RECIPIENTS = re.compile(rf"{_address_forms(False)}(?:,{_address_forms(False)})*")


@_kept(_CACHED_HEADER_CHARS, 1 << 14)
def _parse_sender(header: str) -> tuple[str, str]:
    """``email.utils.parseaddr`` of a ``From`` header: (name, address)."""
    simple = _SIMPLE_SENDER.fullmatch(header)
    if simple is None:
        return parseaddr(header)
    address, comment, quoted, phrase, bracketed = simple.groups()
    if address is not None:  # user@host (Real Name)
        return comment or "", address
    # a quoted name as it is; an unquoted one's words joined by one space, as parseaddr does
    return quoted if quoted is not None else " ".join((phrase or "").split()), bracketed


@_kept(_CACHED_HEADER_CHARS, 1 << 14)
def _url_tokens(url: str) -> tuple[str, ...]:
    """``url_tokens(url)``, kept for the next message: spam repeats its links."""
    return tuple(url_tokens(url))


@_kept(_CACHED_HEADER_CHARS, 1 << 14)
def _count_recipients(header: str) -> int:
    """How many addresses (holding an ``@``) a ``To`` header lists."""
    if _SIMPLE_RECIPIENTS.fullmatch(header):  # (no comma but between two addresses)
        return header.count(",") + 1
    return sum("@" in address for _, address in getaddresses([header]))


def _count_bucket(count: int) -> str:
    for top, name in ((0, "none"), (1, "1"), (2, "2"), (5, "3-5"), (20, "6-20")):
        if count <= top:
            return name
    return "21+"


def email_tokens(message: Message | MessageFields, *, max_token_length: int = 40) -> list[str]:
    """SpamBayes-style tokens of a message, for a bag-of-words spam filter.

    In order:

    * ``subject:<word>`` for the subject's words;
    * ``from:<domain>`` of the sender's address (``from:none`` without one) and
      ``from:<word>`` for the words of the sender's name;
    * ``to:<bucket>``: how many addresses the ``To`` header holds (``none``, ``1``, ``2``,
      ``3-5``, ``6-20``, ``21+``). Addresses and domains are not used: the corpus collectors
      rewrote them (``zzzz@...taint.org``), so they would tell the collector, not the content;
    * ``x-mailer:<first word>`` of ``X-Mailer`` or ``User-Agent`` (``x-mailer:none``);
    * ``content-type:<type/subtype>`` for each distinct MIME type of the parts, containers
      included, ``charset:<name>`` for each distinct declared charset, ``attachment:<ext>``
      (lowercased file extension, ``none`` without one) for each attachment;
    * ``url:<host>`` for each distinct URL, plus ``url:<domain>`` for its registered-domain-ish
      part: the last two labels, three for ``xx.co.uk``-style names;
    * the body words (``Message.text``, at most ``MAX_TEXT_CHARS`` characters).

    Words are found as scikit-learn's ``CountVectorizer`` does by default, with the regex
    ``(?u)\\b\\w\\w+\\b`` on lowercased text; a word longer than ``max_token_length`` becomes
    ``skip:<first character> <length rounded down to tens>``, as in SpamBayes.

    No other header is used. This matters on the SpamAssassin corpus, whose headers carry
    label-revealing marks added by the collectors and filters (``X-Spam-Status``,
    ``X-Spam-Level``, ``X-Spam-Flag``, ``X-Spam-Checker-Version`` and other SpamAssassin
    headers, ``Delivered-To``, ``Received``, ``Return-Path``, ``Message-Id``, the mbox
    ``From`` line, ``List-*``/``X-Mailman-*``/``X-Beenthere`` list headers of the collector's
    lists, dates): a classifier must learn from the content, not from these.

    Parameters
    ----------
    message : Message
        A message from :func:`read_message` and friends.
    max_token_length : int, default 40
        Longest word kept as it is (at least 2).

    Returns
    -------
    list of str
        Deterministic for a given message.

    Examples
    --------
    >>> msg = read_message(
    ...     b"From: Big Deals <deals@mail.example.com>\\nTo: a@x.org, b@y.org\\n"
    ...     b"X-Spam-Status: Yes\\nX-Mailer: Outlook Express 6\\nSubject: FREE offer\\n"
    ...     b"Content-Type: text/plain; charset=us-ascii\\n\\n"
    ...     b"Visit http://www.shop.example.co.uk/buy now " + b"a" * 44
    ... )
    >>> email_tokens(msg)  # doctest: +NORMALIZE_WHITESPACE
    ['subject:free', 'subject:offer', 'from:mail.example.com', 'from:big', 'from:deals',
     'to:2', 'x-mailer:outlook', 'content-type:text/plain', 'charset:us-ascii',
     'url:www.shop.example.co.uk', 'url:example.co.uk', 'visit', 'http', 'www', 'shop',
     'example', 'co', 'uk', 'buy', 'now', 'skip:a 40']
    """
    from ._message import Message

    if not isinstance(message, (Message, MessageFields)):
        raise InputTypeError(
            f"email_tokens got a {type(message).__name__}; it needs a Message from read_message"
        )
    if isinstance(max_token_length, bool) or not isinstance(max_token_length, int):
        raise ParameterError(f"max_token_length must be an int >= 2, got {max_token_length!r}")
    if max_token_length < 2:
        raise ParameterError(f"max_token_length must be >= 2, got {max_token_length}")
    return tokens_of(message, max_token_length)


def tokens_of(
    message: Message | MessageFields, max_token_length: int = 40, *, text: str | None = None
) -> list[str]:
    """:func:`email_tokens` of a message this module read (unchecked), the body's words those
    of ``text`` when given (the analyzers count the body's words themselves: ``text=""``)."""
    mailer = message.mailer if type(message) is MessageFields else None
    if mailer is None:  # a Message, or fields made by hand
        found, agent = first_headers(
            message.headers, ("x-mailer", "user-agent"), header_names(message.headers)
        )
        mailer = found or agent or ""
    tokens = _head_tokens(
        (message.subject, message.sender, message.to, mailer),
        message.parts,
        message.attachments,
        message.urls,
        max_token_length,
    )
    tokens += _words(message.text if text is None else text, max_token_length)
    return tokens


def _head_tokens(
    fields: tuple[str, str, str, str],
    parts: list[tuple[str, str]],
    attachments: list[tuple[str, str]],
    urls: list[str],
    limit: int,
) -> list[str]:
    """The header and URL tokens of :func:`email_tokens` (all but the body's words), from
    the subject, sender, recipients and mailer (``fields``), the parts' types and charsets,
    the attachments and the distinct URLs."""
    subject, sender, to, mailer = fields
    tokens = [
        *_subject_tokens(subject, limit),
        *_sender_tokens(sender, limit),
        "to:" + _count_bucket(_count_recipients(to)),
        *_mailer_token(mailer, limit),
        *_part_tokens(tuple([(c, cs) for c, cs in parts]), limit),  # (hand-made: lists)
    ]
    for filename, _ in attachments:
        ext = filename.rpartition(".")[2].lower() if "." in filename else ""
        tokens.append("attachment:" + (ext[:10] if ext.isalnum() else "none"))
    for url in urls:
        tokens += _url_tokens(url)
    return tokens


@_kept()
def _subject_tokens(subject: str, limit: int) -> tuple[str, ...]:
    return tuple("subject:" + word for word in _words(subject, limit))


@_kept()
def _sender_tokens(sender: str, limit: int) -> tuple[str, ...]:
    name, address = _parse_sender(sender)
    domain = address.rpartition("@")[2].strip().lower() if "@" in address else ""
    return ("from:" + (domain[:limit] or "none"), *("from:" + word for word in _words(name, limit)))


@_kept()
def _mailer_token(mailer: str, limit: int) -> tuple[str, ...]:
    first = _WORD.search(mailer.lower()) or re.search(r"\w+", mailer.lower())
    return ("x-mailer:" + (first.group()[:limit] if first else "none"),)


@_kept(size=lambda parts: sum(len(c) + len(cs) + 1 for c, cs in parts))
def _part_tokens(parts: tuple[tuple[str, str], ...], limit: int) -> tuple[str, ...]:
    """The parts' distinct content types and charsets, in order, as tokens."""
    tokens = ["content-type:" + ctype for ctype in dict.fromkeys(c for c, _ in parts)]
    charsets = dict.fromkeys(cs.strip("\"' ")[:limit] for _, cs in parts)
    tokens += ["charset:" + charset for charset in charsets if charset]
    return tuple(tokens)


def plain_tokens(data: bytes, max_token_length: int = 40) -> tuple[list[str], str, str] | None:
    """The header and URL tokens (:func:`tokens_of` with ``text=""``), subject and text of a
    raw message that is one plain-text part (:func:`._plain_batch.plain_parts`), the same as
    reading its :class:`MessageFields` gives, without them; None for any other message
    (and for one whose text the reader would cut)."""
    # (one message is read as a batch's are, once the reader has turned to its kernels: a
    # process reading one message never loads them for it)
    found = plain_parts([data], MAX_PART_BYTES)[0] if kernels_in_use() else None
    return None if found is None else _plain_tokens(*found, max_token_length)


def plain_tokens_of(datas: list[bytes]) -> list[tuple[list[str], str, str] | None]:
    """:func:`plain_tokens` of each raw message (default token length), their header blocks
    read by one kernel call (:func:`._mailread.plain_parts`)."""
    return [
        None if found is None else _plain_tokens(*found, 40)
        for found in plain_parts(datas, MAX_PART_BYTES)
    ]


def _plain_tokens(
    fields: tuple[str, str, str, str], charset: str, payload: bytes, max_token_length: int
) -> tuple[list[str], str, str] | None:
    """:func:`plain_tokens` of a plain message's named fields, charset and decoded body."""
    if len(payload) > MAX_TEXT_CHARS:
        return None
    count("fast")
    text = ""
    if payload and not payload.isspace() and not _binary_control_bytes(payload, charset):
        text = decode_bytes(payload, charset, "message", [], True).replace("\r\n", "\n").strip()
    urls = list(dict.fromkeys(find_urls(text)))
    tokens = _head_tokens(fields, [("text/plain", charset)], [], urls, max_token_length)
    return tokens, fields[0], text
