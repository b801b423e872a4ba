"""The documents as the scanner reads them, and the classes of their characters.

The documents are joined into one byte array: latin-1 when every character fits (one byte a
character; the kernels lowercase it through a 256-entry table made from ``str.lower``, which
maps latin-1 one-to-one into latin-1, asserted here), UTF-8 otherwise (``surrogatepass``;
lowercased by ``str.lower`` itself, document by document, as final sigma and U+0130 depend
on context or grow). A character's class (``\\w``, ``\\s``, may be in a token) comes from
tables built from the running Python's ``re``, so they follow its Unicode version.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _scan_entries as kernels


def _latin1_lower() -> np.ndarray:
    table = [chr(b).lower() for b in range(256)]
    # Both assumptions of the latin-1 route: one character in, one latin-1 character out.
    assert all(len(c) == 1 and ord(c) < 256 for c in table)
    return np.array([ord(c) for c in table], dtype=np.uint8)


def _classes(n: int) -> np.ndarray:
    """The class table of code points ``0 .. n``, from ``re`` itself: the runs of ``\\w`` and
    of ``\\s`` in the string of all of them (a few hundred runs, where asking each character
    took ~0.3 s for the whole of Unicode)."""
    chars = np.arange(n, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")

    def runs(pattern: str) -> np.ndarray:
        edges = np.zeros(n + 1, np.int32)
        for match in re.finditer(pattern, chars):
            edges[match.start()] += 1
            edges[match.end()] -= 1
        return np.cumsum(edges[:-1]).astype(np.uint8)

    word, space = runs(r"\w+"), runs(r"\s+")
    return (word * (kernels.WORD | kernels.TOKEN)) | (space * kernels.SPACE)


@functools.lru_cache(maxsize=8)
def _classes_with(utf8: bool, joiners: str) -> np.ndarray:
    """The class table with ``joiners`` marked as token characters too."""
    table = (unicode_classes() if utf8 else _LATIN1_CLASSES).copy()
    table[[ord(c) for c in joiners]] |= kernels.TOKEN
    return table


_LATIN1_LOWER = _latin1_lower()


_IDENTITY = np.arange(256, dtype=np.uint8)


_LATIN1_CLASSES = _classes(256)


# The word scanner's latin-1 path reads a byte's class before lowercasing it, and classes
# ASCII bytes by their ranges: [0-9A-Za-z_] are its token characters (_word_mask).
assert (_LATIN1_CLASSES[_LATIN1_LOWER] == _LATIN1_CLASSES).all()
# The hash lowercases eight latin-1 bytes at once (_fold8): A-Z and U+00C0-U+00DE but U+00D7
# gain 0x20, and no other byte changes.
assert [b for b in range(256) if _LATIN1_LOWER[b] != b] == [
    b for b in [*range(0x41, 0x5B), *range(0xC0, 0xDF)] if b != 0xD7
]
assert all(_LATIN1_LOWER[b] == b | 0x20 for b in range(256) if _LATIN1_LOWER[b] != b)


assert [chr(b) for b in range(128) if _LATIN1_CLASSES[b] & kernels.TOKEN] == sorted(
    string.digits + string.ascii_letters + "_"
)


@functools.cache
def unicode_classes() -> np.ndarray:
    """``uint8[0x110000]``: bits 1 and 4 for the code points ``re`` counts as ``\\w``
    (``str.isalnum()`` or ``"_"``), bit 2 for ``\\s`` (``str.isspace()``). Built on first
    use (~0.05 s), only for text beyond latin-1."""
    return _classes(0x110000)


#: NUL bytes after the last document, so that kernels may read 8 bytes at any byte of it.
_PAD = 8


@dataclass(frozen=True)
class _Encoded:
    """The documents as bytes: ``text[starts[d]:ends[d]]`` is document ``d`` (lowercased
    already if UTF-8: ``lower`` then is the identity), read through ``lower``; :data:`_PAD`
    NUL bytes follow the last one."""

    text: np.ndarray
    utf8: bool
    starts: np.ndarray
    ends: np.ndarray
    lower: np.ndarray
    classes: np.ndarray

    @property
    def n_bytes(self) -> int:
        return int(self.text.size) - _PAD

    @classmethod
    def of(cls, texts: Sequence[str], lowercase: bool, *, utf8: bool = False) -> _Encoded:
        """The texts in latin-1 when every character fits, else (or when ``utf8``) in
        UTF-8: the scanner counts the same terms either way."""
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
        ends = np.cumsum(lengths)
        try:
            if utf8:
                raise UnicodeEncodeError("latin-1", "", 0, 0, "UTF-8 asked for")
            text = _latin1(texts, ends)
        except UnicodeEncodeError:
            pieces = [
                (t.lower() if lowercase else t).encode("utf-8", "surrogatepass") for t in texts
            ]
            lengths = np.fromiter(map(len, pieces), np.int64, len(pieces))
            ends = np.cumsum(lengths)
            text = np.frombuffer(b"".join(itertools.chain(pieces, (b"\x00" * _PAD,))), np.uint8)
            utf8, lower, classes = True, _IDENTITY, unicode_classes()
        else:
            utf8, classes = False, _LATIN1_CLASSES
            lower = _LATIN1_LOWER if lowercase else _IDENTITY
        return cls(text, utf8, ends - lengths, ends, lower, classes)


#: Bytes of text encoded at a time (:func:`_latin1`).
ENCODE_BYTES = 1 << 21


def _latin1(texts: Sequence[str], ends: np.ndarray) -> np.ndarray:
    """The texts' latin-1 bytes one after another (text ``d`` ends at ``ends[d]`` when each
    character is a byte), then :data:`_PAD` NUL bytes; raises
    UnicodeEncodeError when a character does not fit. Encoded a few megabytes at a time
    into one numpy array: joining and encoding all at once made two fresh text-sized
    buffers, whose first touch (a page fault per 4 KiB) took longer than the copying
    (20 Newsgroups: 14,000 faults, 0.017 s against 0.003 s when the memory was warm);
    numpy's array gets huge pages, and the pieces reuse the same memory."""
    total = int(ends[-1]) if ends.size else 0
    text = np.empty(total + _PAD, np.uint8)
    text[total:] = 0
    cuts = np.searchsorted(ends, np.arange(ENCODE_BYTES, total, ENCODE_BYTES), side="right")
    done = 0
    for a, b in itertools.pairwise([0, *cuts.tolist(), len(texts)]):
        if a == b:
            continue
        piece = "".join(texts[a:b]).encode("latin-1")
        text[done : done + len(piece)] = np.frombuffer(piece, np.uint8)
        done += len(piece)
    return text
