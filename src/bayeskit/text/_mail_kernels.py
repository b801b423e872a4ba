"""The e-mail reader's word kernel (:func:`bayeskit.text._mail_words.words` turns to it once
a process reads enough text): each run of two or more characters ``re`` calls ``\\w``
(``str.isalnum()`` or ``"_"``), classed by the scanner's tables built from ``re`` itself
(:mod:`bayeskit.text._encode`), is copied to one buffer followed by a line feed (never a
word character), or its ``skip:`` token when it is long, and Python decodes and splits the
buffer once: one C call makes every word's ``str``, where the regular expression engine steps
through the text a character at a time (8 MB/s on the SpamAssassin corpus's text, against
~300 MB/s here).

Also the fast path's header blocks (:func:`scan_head`): the end of a part's header block, the
check that each of its lines is a header or a continuation, the raw values of its Content-*
headers and its headers unfolded, in one pass, where four regular expressions and a loop of
replaces went over the block (:mod:`bayeskit.text._mailread` keeps them as its
specification; the SpamAssassin corpus's header blocks are a third of its bytes).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ._encode import _IDENTITY, _LATIN1_CLASSES, _LATIN1_LOWER, unicode_classes
from ._scan_entries import WORD

__all__ = ["kernel_words", "word_runs"]

_SKIP = np.frombuffer(b"skip:", np.uint8)
_LOWER = _LATIN1_LOWER


@njit(nogil=True)
def word_runs(
    text: np.ndarray,
    utf8: bool,
    classes: np.ndarray,
    lower: np.ndarray,
    out: np.ndarray,
    longest: int,
) -> tuple[int, int]:  # pragma: no cover
    """Write each run of two or more ``\\w`` characters of ``text`` (latin-1, or UTF-8 when
    ``utf8``) to ``out``, each byte through ``lower``, followed by a line feed: the run
    itself, or, when it has more than
    ``longest`` characters, ``skip:<its first character> <its length in tens>``. ``out`` holds
    at least ``text.size + 1 + 32 * (text.size // (longest + 1) + 1)`` bytes (a skip token
    has at most 31 bytes, and stands for a run of more than ``longest`` bytes).
    Returns (bytes written, runs)."""
    n = text.size
    i = 0
    o = 0
    runs = 0
    while i < n:
        start = i
        chars = 0
        first_width = 1
        while i < n:
            b = np.int64(text[i])
            width = 1
            cp = b
            if utf8 and b >= 0x80:  # valid UTF-8 (surrogatepass): 2, 3 or 4 bytes
                if b < 0xE0:
                    cp = ((b & 0x1F) << 6) | (np.int64(text[i + 1]) & 0x3F)
                    width = 2
                elif b < 0xF0:
                    cp = (
                        ((b & 0x0F) << 12)
                        | ((np.int64(text[i + 1]) & 0x3F) << 6)
                        | (np.int64(text[i + 2]) & 0x3F)
                    )
                    width = 3
                else:
                    cp = (
                        ((b & 0x07) << 18)
                        | ((np.int64(text[i + 1]) & 0x3F) << 12)
                        | ((np.int64(text[i + 2]) & 0x3F) << 6)
                        | (np.int64(text[i + 3]) & 0x3F)
                    )
                    width = 4
            if classes[cp] & WORD == 0:
                if chars == 0:
                    start = i + width
                    i += width
                    continue
                break
            if chars == 0:
                first_width = width
            chars += 1
            i += width
        if chars < 2:
            continue
        runs += 1
        if chars <= longest:
            for k in range(start, i):
                out[o] = lower[text[k]]
                o += 1
        else:
            for k in range(5):
                out[o + k] = _SKIP[k]
            o += 5
            for k in range(start, start + first_width):
                out[o] = lower[text[k]]
                o += 1
            out[o] = 32
            o += 1
            tens = chars // 10 * 10
            digits = 1
            while tens >= 10**digits:
                digits += 1
            for k in range(digits):
                out[o + digits - 1 - k] = 48 + tens % 10
                tens //= 10
            o += digits
        out[o] = 10
        o += 1
    return o, runs


def kernel_words(text: str, max_length: int) -> list[str]:
    """:func:`bayeskit.text._mail_words.words` found by the kernel, whatever the text's
    length."""
    try:  # latin-1 text is lowercased by the kernel (str.lower maps latin-1 into latin-1)
        data, codec, classes, lower = text.encode("latin-1"), "latin-1", _LATIN1_CLASSES, _LOWER
    except UnicodeEncodeError:
        data, codec = text.lower().encode("utf-8", "surrogatepass"), "utf-8"
        classes, lower = unicode_classes(), _IDENTITY
    room = len(data) + 1 + 32 * (len(data) // (max_length + 1) + 1)
    out = np.empty(room, np.uint8)
    size, runs = word_runs(
        np.frombuffer(data, np.uint8), codec == "utf-8", classes, lower, out, max_length
    )
    if not runs:
        return []
    return str(out.data[: size - 1], codec, "surrogatepass").split("\n")


# --- header blocks ------------------------------------------------------------------------

#: What :func:`scan_head` says of a header block: read, or why the fast path declines it
#: (``TWICE + k`` and ``BEYOND_ASCII + k`` for the ``k``-th name of :data:`CONTENT_NAMES`).
HEAD_OK, NO_BLANK, CONTINUATION_FIRST, BAD_LINE, TWICE, BEYOND_ASCII = 0, 1, 2, 3, 10, 20
#: The Content-* headers the reader reads, as the kernel compares them (lowercase ASCII).
CONTENT_NAMES = ("content-type", "content-transfer-encoding", "content-disposition")
#: The fields a message's header tokens read (``.email._named_fields``), in that order.
NAMED_FIELDS = ("subject", "from", "to", "x-mailer", "user-agent")


def _name_table(names: tuple[str, ...]) -> np.ndarray:
    """Each name's bytes in a row, its length in the last column (what :func:`_content_row`
    compares with)."""
    table = np.zeros((len(names), max(map(len, names)) + 1), np.uint8)
    for row, name in enumerate(names):
        table[row, : len(name)] = np.frombuffer(name.encode("ascii"), np.uint8)
        table[row, -1] = len(name)
    return table


CONTENT_TABLE = _name_table(CONTENT_NAMES)
NAMED_TABLE = _name_table(NAMED_FIELDS)
#: The columns of :func:`scan_heads`' rows: :func:`scan_head`'s answer (status, end of the
#: block, start of the body, the Content-* values' spans in ``data``), where the part's
#: unfolded headers start in ``flat`` and their size, whether the block is ASCII without
#: ``=?`` (no encoded word), and the span in ``flat`` of each named field's first value.
HEADS_STATUS, HEADS_STOP, HEADS_BODY, HEADS_CONTENT = 0, 1, 2, 3
HEADS_FLAT, HEADS_SIZE, HEADS_PLAIN, HEADS_NAMED = 9, 10, 11, 12
HEADS_COLUMNS = HEADS_NAMED + 2 * len(NAMED_FIELDS)


@njit(nogil=True, inline="always")
def _folded_blank(c: int) -> bool:  # pragma: no cover
    """White space a header's value collapses (``str.isspace`` among ASCII, line feed aside)."""
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12 or (28 <= c <= 31)


@njit(nogil=True, inline="always")
def _content_row(data: np.ndarray, start: int, stop: int, table: np.ndarray) -> int:
    """The row of ``table`` whose name ``data[start:stop]`` is (ASCII, any case), or −1."""
    for row in range(table.shape[0]):
        size = np.int64(table[row, table.shape[1] - 1])
        if stop - start != size:
            continue
        same = True
        for k in range(size):
            c = np.int64(data[start + k])
            if 65 <= c <= 90:
                c += 32
            if c != table[row, k]:
                same = False
                break
        if same:
            return row
    return -1


@njit(nogil=True, inline="always")
def _result(
    status: int, stop: int, body: int, size: int, content: np.ndarray
) -> tuple[int, int, int, int, int, int, int, int, int, int]:  # pragma: no cover
    return (
        status, stop, body, size, content[0, 0], content[0, 1], content[1, 0], content[1, 1],
        content[2, 0], content[2, 1],
    )  # fmt: skip


@njit(nogil=True)
def scan_head(
    data: np.ndarray,
    start: int,
    end: int,
    table: np.ndarray,
    flat: np.ndarray,
) -> tuple[int, int, int, int, int, int, int, int, int, int]:  # pragma: no cover
    """Read the header block of the part in ``data[start:end]`` as ``_mailread``'s regular
    expressions do, in one pass: the block runs to the first blank line (``\\n\\n`` or
    ``\\n\\r\\n``); each of its lines is a header (``[\\x21-\\x39\\x3b-\\x7e]+:``) or a
    continuation (a blank or tab first; not the first line). Writes the headers unfolded to
    ``flat``: ``name\\nvalue\\nname\\nvalue...``, each value's runs of white space one
    blank, the blank after the colon and the one at its end dropped (``flat`` holds
    ``end - start`` bytes). Returns (status, end of the block, start of the body, bytes
    written to ``flat``), then the (start, end) in ``data`` of the raw value of each Content-*
    header of ``table`` (−1, −1 when absent): a tuple, which costs less than an array."""
    content = np.full((table.shape[0], 2), -1, np.int64)
    if start < end and data[start] == 10:
        return _result(HEAD_OK, start, start + 1, 0, content)
    if start + 1 < end and data[start] == 13 and data[start + 1] == 10:
        return _result(HEAD_OK, start, start + 2, 0, content)
    stop = -1
    body = -1
    i = start
    while i < end:
        if data[i] == 10:
            if i + 1 < end and data[i + 1] == 10:
                stop, body = i, i + 2
                break
            if i + 2 < end and data[i + 1] == 13 and data[i + 2] == 10:
                stop, body = i, i + 3
                break
        i += 1
    if stop < 0:
        return _result(NO_BLANK, -1, -1, 0, content)
    if data[start] == 32 or data[start] == 9:
        return _result(CONTINUATION_FIRST, stop, body, 0, content)
    # Every line a header or a continuation.
    line = start
    while line < stop:
        c = data[line]
        if c != 32 and c != 9:
            k = line
            while k < stop and 0x21 <= data[k] <= 0x7E and data[k] != 58:
                k += 1
            if k == line or k >= stop or data[k] != 58:
                return _result(BAD_LINE, stop, body, 0, content)
        while line < stop and data[line] != 10:
            line += 1
        line += 1
    # The Content-* headers' raw values, and the headers unfolded.
    o = 0
    line = start
    while line < stop:
        colon = line
        while data[colon] != 58:
            colon += 1
        row = _content_row(data, line, colon, table)
        for k in range(line, colon):
            flat[o] = data[k]
            o += 1
        flat[o] = 10
        o += 1
        value = colon + 1
        while value < stop and (data[value] == 32 or data[value] == 9):
            value += 1
        # The header runs to the end of its last continuation line.
        k = colon + 1
        while True:
            while k < stop and data[k] != 10:
                k += 1
            if k + 1 < stop and (data[k + 1] == 32 or data[k + 1] == 9):
                k += 1
                continue
            break
        if row >= 0:
            if content[row, 0] >= 0:
                return _result(TWICE + row, stop, body, 0, content)
            for j in range(value, k):
                if data[j] >= 0x80:
                    return _result(BEYOND_ASCII + row, stop, body, 0, content)
            content[row, 0] = value
            content[row, 1] = k
        blank = False
        written = False
        for j in range(colon + 1, k):
            c = data[j]
            if c == 10 or _folded_blank(c):
                blank = True
                continue
            if blank and written:
                flat[o] = 32
                o += 1
            blank = False
            written = True
            flat[o] = c
            o += 1
        line = k + 1
        if line < stop:
            flat[o] = 10
            o += 1
    return _result(HEAD_OK, stop, body, o, content)


@njit(nogil=True)
def scan_heads(
    data: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    table: np.ndarray,
    named: np.ndarray,
    flat: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    """:func:`scan_head` of the header block of each part ``data[starts[m]:ends[m]]`` (one
    call for a batch of messages, where a call a message cost more than its reading), its
    headers unfolded one after another in ``flat`` (which holds ``(ends - starts).sum()``
    bytes); row ``m`` of ``out`` as :data:`HEADS_COLUMNS` say, −1 for a span not found."""
    o = 0
    for m in range(starts.size):
        row = out[m]
        row[:] = -1
        start, end = starts[m], ends[m]
        status, stop, body, size, a0, b0, a1, b1, a2, b2 = scan_head(
            data, start, end, table, flat[o:]
        )
        row[HEADS_STATUS], row[HEADS_STOP], row[HEADS_BODY] = status, stop, body
        row[HEADS_CONTENT], row[HEADS_CONTENT + 1] = a0, b0
        row[HEADS_CONTENT + 2], row[HEADS_CONTENT + 3] = a1, b1
        row[HEADS_CONTENT + 4], row[HEADS_CONTENT + 5] = a2, b2
        row[HEADS_FLAT], row[HEADS_SIZE] = o, size
        if status != HEAD_OK:
            continue
        plain = 1
        for i in range(start, stop):
            if data[i] >= 0x80 or (data[i] == 61 and i + 1 < stop and data[i + 1] == 63):
                plain = 0
                break
        row[HEADS_PLAIN] = plain
        # flat holds name\nvalue\nname\nvalue...: the first value of each named field.
        i = o
        limit = o + size
        while i < limit:
            colon = i
            while flat[colon] != 10:
                colon += 1
            value = colon + 1
            k = value
            while k < limit and flat[k] != 10:
                k += 1
            found = _content_row(flat, i, colon, named)
            if found >= 0 and row[HEADS_NAMED + 2 * found] < 0:
                row[HEADS_NAMED + 2 * found] = value
                row[HEADS_NAMED + 2 * found + 1] = k
            i = k + 1
        o += size
