"""The e-mail tokens' words, found by compiled code: what ``re.findall(r"(?u)\\b\\w\\w+\\b",
text.lower())`` finds, in order.

The pattern finds the maximal runs of two or more characters ``re`` calls ``\\w``
(``str.isalnum()`` or ``"_"``). :func:`words` lowercases the text with ``str.lower`` (so
final sigma and U+0130 are Python's), encodes it (latin-1 when every character fits, else
UTF-8 with ``surrogatepass``), and a kernel copies each run, classed by the scanner's tables
built from ``re`` itself (:mod:`bayeskit.text._encode`), followed by a line feed (never a
word character), into one buffer that Python decodes and splits once: one C call makes every
word's ``str``, where the regular expression engine steps through the text a character at a
time (8 MB/s on the SpamAssassin corpus's text, against ~300 MB/s here). Short texts (a
subject, a sender's name) are left to the regular expression: a kernel call costs more there;
so is a process's first megabyte of text (:func:`use_kernels`), unless numba is loaded.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from .._jit import njit
from ._encode import _LATIN1_CLASSES, unicode_classes
from ._scan_entries import WORD

__all__ = ["WARM_UP_CHARS", "WORD_PATTERN", "kernel_words", "use_kernels", "words"]

#: The words' pattern, as scikit-learn's ``CountVectorizer`` has it by default.
WORD_PATTERN = re.compile(r"(?u)\b\w\w+\b")
#: Texts shorter than this many characters are read by :data:`WORD_PATTERN` itself.
KERNEL_MIN_CHARS = 64
_SKIP = np.frombuffer(b"skip:", np.uint8)
#: Characters a process reads by regular expressions before the reader turns to its kernels,
#: unless numba is loaded already: reading one message (a mail filter's run) costs less so
#: than importing numba and loading the kernels (~0.3-0.5 s); a corpus is past it at once.
WARM_UP_CHARS = 1 << 20
_warm_up = 0


def _numba_loaded() -> bool:
    return "numba" in sys.modules


def use_kernels(n_chars: int) -> bool:
    """Whether the reader reads ``n_chars`` characters more by its kernels (else by the
    regular expressions they implement: the same result either way): once numba is loaded,
    or once this process has read :data:`WARM_UP_CHARS` characters."""
    global _warm_up
    if _warm_up >= WARM_UP_CHARS or _numba_loaded():
        return True
    _warm_up += n_chars  # a race between threads only moves the switch a little
    return False


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


def _skip(word: str, max_length: int) -> str:
    """A word as a token: itself, or ``skip:<first character> <length in tens>`` when longer
    than ``max_length`` (as SpamBayes does)."""
    return word if len(word) <= max_length else f"skip:{word[0]} {len(word) // 10 * 10}"


def words(text: str, max_length: int) -> list[str]:
    """The words of ``text``, lowercased, in order, each longer than ``max_length``
    characters replaced by ``skip:<first character> <length in tens>``.

    Examples
    --------
    >>> words("Grüße from CAFÉ a1 " + "x" * 45 + ", again and again", 40)
    ['grüße', 'from', 'café', 'a1', 'skip:x 40', 'again', 'and', 'again']
    """
    if len(text) >= KERNEL_MIN_CHARS and use_kernels(len(text)):
        return kernel_words(text, max_length)
    found = WORD_PATTERN.findall(text.lower())
    if found and max(map(len, found)) > max_length:
        return [_skip(word, max_length) for word in found]
    return found


def kernel_words(text: str, max_length: int) -> list[str]:
    """:func:`words` found by the kernel, whatever the text's length."""
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
