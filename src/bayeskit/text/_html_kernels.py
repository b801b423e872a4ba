"""The tags of well-formed HTML replaced by markers, and the links of their attributes, in one
compiled pass.

:func:`marked` does what three regular expressions of :mod:`bayeskit.text._fasthtml` did
(they stay there as the specification the tests hold this to): ``_TAG.sub(_mark, markup)``,
each start or end tag replaced by its marker (a line break marker for a block tag, a space
marker for ``<img>`` and ``<input>``, an empty one otherwise), and
``_ATTR_LINK.findall(" ".join(_START_ANY.findall(markup)))``, the values of the link
attributes (``href``, ``src``...) of the start tags, in document order. Those expressions'
matches are unambiguous: every repetition in them is followed by a character it cannot
take, so a match is the one the greedy reading gives without backtracking, and a tag holds
no ``<`` but its first, so tags never overlap. The kernel reads each ``<`` the same way:

- an end tag is ``</``, a name (``[a-zA-Z][-a-zA-Z0-9:_.]*`` followed by a blank, ``/`` or
  ``>``), blanks (`` \\t\\n\\r\\f``) and ``>``;
- a start tag is ``<``, a name, attributes, blanks, ``/``? and ``>``; an attribute starts
  after blanks or right after a quote, its name is a run of characters other than ``re``'s
  ``\\s``, quotes, ``<>/=`` and the markers ``\\x00-\\x02``, and a ``=`` after it (blanks
  around) must be followed by a value: quoted (without ``<`` or a marker), or plain (not
  starting with a quote or ``=``, up to ``\\s``, ``<``, ``>`` or a marker, and then followed
  by a blank or ``>``), else the tag is no tag;
- a link attribute's name is, whole, one of :data:`~bayeskit.text._fasthtml.URL_ATTRS` in
  any case as ``str.lower`` reads it, the way html.parser lower-cases attribute names
  (``SRC``, and ``background`` with U+212A KELVIN SIGN for its k, are; ``ſrc``, with
  a long s, which ``re.IGNORECASE`` would take for ``src``, is not, nor ``href2``: the
  table of such characters is made from ``str.lower`` itself).

The markup goes in and out as latin-1 bytes when every character fits, else as UTF-32 code
points: one C call each way.
"""

from __future__ import annotations

import functools

import numpy as np

from .._jit import njit
from ._encode import unicode_classes
from ._scan_entries import SPACE

__all__ = ["marked", "tidied"]

_BLOCK_MARK, _IMAGE_MARK, _NO_MARK = 1, 2, 0
#: Code points below this are looked up in the case table (str.lower maps none beyond it to
#: a letter of the link attributes' names: tests check all of Unicode).
FOLD_SIZE = 0x2200


@njit(nogil=True, inline="always")
def _blank(c: int) -> bool:  # pragma: no cover
    return c == 32 or c == 9 or c == 10 or c == 13 or c == 12


@njit(nogil=True, inline="always")
def _name_char(c: int) -> bool:  # pragma: no cover
    """A character of a tag name after its first letter: ``[-a-zA-Z0-9:_.]``."""
    return (
        (97 <= c <= 122)
        or (65 <= c <= 90)
        or (48 <= c <= 58)  # digits and ":"
        or c == 45
        or c == 95
        or c == 46
    )


@njit(nogil=True, inline="always")
def _tag_name_end(text: np.ndarray, j: int, n: int) -> int:  # pragma: no cover
    """The end of the tag name starting at ``j``, or -1 when none starts there."""
    if j >= n:
        return -1
    c = text[j]
    if not ((97 <= c <= 122) or (65 <= c <= 90)):
        return -1
    j += 1
    while j < n and _name_char(text[j]):
        j += 1
    if j >= n:
        return -1
    c = text[j]
    if _blank(c) or c == 47 or c == 62:  # followed by a blank, "/" or ">"
        return j
    return -1


@njit(nogil=True, inline="always")
def _attr_char(c: int, classes: np.ndarray) -> bool:  # pragma: no cover
    """A character of an attribute name: ``[^\\s"'<>/=\\x00-\\x02]``."""
    if c <= 2 or c == 34 or c == 39 or c == 60 or c == 62 or c == 47 or c == 61:
        return False
    return classes[c] & SPACE == 0


@njit(nogil=True, inline="always")
def _value_end(text: np.ndarray, k: int, n: int, classes: np.ndarray) -> int:  # pragma: no cover
    """The end of the attribute value starting at ``k``, or -1 when none starts there."""
    if k >= n:
        return -1
    c = text[k]
    if c == 34 or c == 39:  # quoted: up to the same quote, no "<" and no marker inside
        k += 1
        while k < n and text[k] != c:
            if text[k] == 60 or text[k] <= 2:
                return -1
            k += 1
        return k + 1 if k < n else -1
    if c <= 2 or c == 60 or c == 62 or c == 61 or classes[c] & SPACE:
        return -1
    k += 1
    while k < n:
        c = text[k]
        if c <= 2 or c == 60 or c == 62 or classes[c] & SPACE:
            break
        k += 1
    if k < n and (_blank(text[k]) or text[k] == 62):
        return k
    return -1


@njit(nogil=True, inline="always")
def _row_of(
    text: np.ndarray, start: int, end: int, table: np.ndarray, width: int, fold: np.ndarray
) -> int:  # pragma: no cover
    """The row of ``table`` (lowercase names, NUL-padded, in its first ``width`` columns)
    that the name ``text[start:end]`` equals, each character compared through ``fold``;
    −1 for none. The whole name must match: a character of it against the padding of a
    shorter row is a mismatch, even one ``fold`` maps to 0 (``href2`` is not ``href``)."""
    if end - start > width:
        return -1
    for row in range(table.shape[0]):
        same = True
        for k in range(width):
            want = table[row, k]
            if start + k < end:
                c = text[start + k]
                if want == 0 or c >= fold.size or fold[c] != want:
                    same = False
                    break
            elif want != 0:
                same = False
                break
        if same:
            return row
    return -1


@njit(nogil=True, inline="always")
def _kind(
    text: np.ndarray, start: int, end: int, names: np.ndarray, lower: np.ndarray
) -> int:  # pragma: no cover
    """The marker of the tag name ``text[start:end]`` (ASCII, either case): the kind (the
    last column of ``names``) of the row it equals."""
    width = names.shape[1] - 1
    row = _row_of(text, start, end, names, width, lower)
    return _NO_MARK if row < 0 else names[row, width]


@njit(nogil=True)
def mark_tags(
    text: np.ndarray,
    classes: np.ndarray,
    names: np.ndarray,
    lower: np.ndarray,
    fold: np.ndarray,
    links: np.ndarray,
    out: np.ndarray,
    values: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover
    """Copy ``text`` (code points) to ``out`` with each tag replaced by its marker, and write
    the (start, end) of each link attribute's value, in ``text``, to ``values`` (one row per
    ``=`` of the text is enough). Returns (code points written, values written)."""
    n = text.size
    o = 0
    found = 0
    i = 0
    while i < n:
        c = text[i]
        if c != 60:
            out[o] = c
            o += 1
            i += 1
            continue
        end = -1
        mark = _NO_MARK
        kept = found
        if i + 1 < n and text[i + 1] == 47:  # an end tag
            j = _tag_name_end(text, i + 2, n)
            if j >= 0:
                mark = _kind(text, i + 2, j, names, lower)
                mark = _NO_MARK if mark == _IMAGE_MARK else mark
                while j < n and _blank(text[j]):
                    j += 1
                if j < n and text[j] == 62:
                    end = j + 1
        else:
            p = _tag_name_end(text, i + 1, n)
            if p >= 0:
                mark = _kind(text, i + 1, p, names, lower)
                failed = False
                while True:
                    q = p
                    while q < n and _blank(text[q]):
                        q += 1
                    after_quote = text[p - 1] == 34 or text[p - 1] == 39
                    if q < n and (q > p or after_quote) and _attr_char(text[q], classes):
                        r = q + 1
                        while r < n and _attr_char(text[r], classes):
                            r += 1
                        s = r
                        while s < n and _blank(text[s]):
                            s += 1
                        if s < n and text[s] == 61:  # "=": a value must follow
                            s += 1
                            while s < n and _blank(text[s]):
                                s += 1
                            v = _value_end(text, s, n, classes)
                            if v < 0:
                                failed = True
                                break
                            if _row_of(text, q, r, links, links.shape[1], fold) >= 0:
                                values[kept, 0] = s
                                values[kept, 1] = v
                                kept += 1
                            p = v
                        else:
                            p = r
                        continue
                    if not failed:
                        if q < n and text[q] == 47:
                            q += 1
                        if q < n and text[q] == 62:
                            end = q + 1
                    break
        if end < 0:
            out[o] = c
            o += 1
            i += 1
            continue
        out[o] = mark
        o += 1
        found = kept
        i = end
    return o, found


def _names(block: frozenset[str]) -> np.ndarray:
    rows = [(name, _BLOCK_MARK) for name in sorted(block)]
    rows += [("img", _IMAGE_MARK), ("input", _IMAGE_MARK)]
    width = max(len(name) for name, _ in rows)
    table = np.zeros((len(rows), width + 1), np.uint32)
    for row, (name, kind) in enumerate(rows):
        table[row, : len(name)] = [ord(c) for c in name]
        table[row, width] = kind
    return table


@functools.cache
def _tables(block: frozenset[str], link_names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """The tag names' markers, the ASCII case table they are read through, the link
    attributes' case table and their names."""
    names = _names(block)
    lower = np.arange(128, dtype=np.uint32)
    lower[65:91] += 32  # A-Z read as a-z; tag names are ASCII, so nothing beyond 127 matches
    letters = set("".join(link_names))
    fold = np.zeros(FOLD_SIZE, np.uint32)
    for code in range(FOLD_SIZE):  # as html.parser reads names: through str.lower
        lowered = chr(code).lower()
        if lowered in letters:
            fold[code] = ord(lowered)
    width = max(map(len, link_names))
    links = np.zeros((len(link_names), width), np.uint32)
    for row, name in enumerate(link_names):
        links[row, : len(name)] = [ord(c) for c in name]
    return names, lower, fold, links


def marked(
    markup: str, block: frozenset[str], link_names: tuple[str, ...]
) -> tuple[str, list[str]]:
    """``markup`` with each tag replaced by its marker (``"\\x01"`` for a tag of ``block``,
    start or end, ``"\\x02"`` for a start tag ``img`` or ``input``, ``"\\x00"`` otherwise),
    and the values (quotes kept) of the attributes named in ``link_names`` (lowercase) of its
    start tags, in order."""
    try:  # one byte a character when every one fits (most markup), else UTF-32
        text = np.frombuffer(markup.encode("latin-1"), np.uint8)
        codec = "latin-1"
    except UnicodeEncodeError:
        text = np.frombuffer(markup.encode("utf-32-le", "surrogatepass"), np.uint32)
        codec = "utf-32-le"
    names, lower, fold, links = _tables(block, link_names)
    out = np.empty(text.size, text.dtype)
    values = np.empty((markup.count("=") + 1, 2), np.int64)
    size, found = mark_tags(text, unicode_classes(), names, lower, fold, links, out, values)
    flat = out[:size].tobytes().decode(codec, "surrogatepass")
    return flat, [markup[start:end] for start, end in values[:found].tolist()]


@njit(nogil=True)
def tidy_marked(text: np.ndarray, classes: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover
    """Copy ``text`` (code points) to ``out`` with its markers replaced (``\\x00`` by nothing,
    ``\\x01`` by a line feed, ``\\x02`` by a blank) and each run of white space (``\\s``)
    then made one line feed if it holds one, else one blank, none at either end. Returns the
    code points written."""
    o = 0
    pending = 0  # white space seen since the last character written: 1 blanks, 2 a line feed
    for i in range(text.size):
        c = text[i]
        if c == 0:
            continue
        if c == 1 or c == 10:
            pending = 2
            continue
        if c == 2 or classes[c] & SPACE:
            if pending == 0:
                pending = 1
            continue
        if pending and o > 0:
            out[o] = 10 if pending == 2 else 32
            o += 1
        pending = 0
        out[o] = c
        o += 1
    return o


def tidied(text: str) -> str:
    """``_mime._tidy(text.replace("\\x00", "").replace("\\x01", "\\n").replace("\\x02", " "))``
    in one compiled pass."""
    try:
        data = np.frombuffer(text.encode("latin-1"), np.uint8)
        codec = "latin-1"
    except UnicodeEncodeError:
        data = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        codec = "utf-32-le"
    out = np.empty(data.size, data.dtype)
    size = tidy_marked(data, unicode_classes(), out)
    return out[:size].tobytes().decode(codec, "surrogatepass")
