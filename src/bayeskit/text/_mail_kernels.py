"""The e-mail reader's word kernel (:func:`bayeskit.text._mail_words.words` turns to it once
a process reads enough text): each run of two or more characters ``re`` calls ``\\w``
(``str.isalnum()`` or ``"_"``), classed by the scanner's tables built from ``re`` itself
(:mod:`bayeskit.text._encode`), is copied to one buffer followed by a line feed (never a
word character), or its ``skip:`` token when it is long, and Python decodes and splits the
buffer once: one C call makes every word's ``str``, where the regular expression engine steps
through the text a character at a time (8 MB/s on the SpamAssassin corpus's text, against
~300 MB/s here).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ._encode import _LATIN1_CLASSES, unicode_classes
from ._scan_entries import WORD

__all__ = ["kernel_words", "word_runs"]

_SKIP = np.frombuffer(b"skip:", np.uint8)


@njit(nogil=True)
def word_runs(
    text: np.ndarray, utf8: bool, classes: np.ndarray, out: np.ndarray, longest: int
) -> tuple[int, int]:  # pragma: no cover
    """Write each run of two or more ``\\w`` characters of ``text`` (latin-1, or UTF-8 when
    ``utf8``) to ``out`` followed by a line feed: the run itself, or, when it has more than
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
                out[o] = text[k]
                o += 1
        else:
            for k in range(5):
                out[o + k] = _SKIP[k]
            o += 5
            for k in range(start, start + first_width):
                out[o] = text[k]
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
    lowered = text.lower()
    try:
        data, codec, classes = lowered.encode("latin-1"), "latin-1", _LATIN1_CLASSES
    except UnicodeEncodeError:
        data, codec = lowered.encode("utf-8", "surrogatepass"), "utf-8"
        classes = unicode_classes()
    room = len(data) + 1 + 32 * (len(data) // (max_length + 1) + 1)
    out = np.empty(room, np.uint8)
    size, runs = word_runs(
        np.frombuffer(data, np.uint8), codec == "utf-8", classes, out, max_length
    )
    if not runs:
        return []
    return out[: size - 1].tobytes().decode(codec, "surrogatepass").split("\n")
