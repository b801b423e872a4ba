"""Fast exact counting of terms: the word, ``char`` and ``char_wb`` analyzers, compiled.

:func:`count_terms` returns what ``TextVectorizer._count_python`` returns for the same
settings: the sorted distinct terms and a CSR matrix of their counts, equal entry for entry,
for every ``str`` (any code point, lone surrogates included). :func:`count_known` counts over a
fitted vocabulary instead, :func:`count_hashed` into hashed columns. An :class:`Analysis` says
which analyzer: word n-grams up to 3 with the token patterns ``\\b\\w\\w+\\b`` or ``\\b\\w+\\b``
(with or without ``(?u)``) and stop words removed before joining; character n-grams of any
range within or across words.

Why the result is the same as scikit-learn's (and the Python path's) analyzers:

- **Tokens.** The patterns find the maximal runs of two (one) or more word characters, and
  CPython's ``re`` calls a character ``\\w`` when ``str.isalnum()`` is true or it is ``"_"``,
  and ``\\s`` when ``str.isspace()`` is. The class tables are built from the running Python,
  so they follow its Unicode version.
- **Lowercasing.** Text with a character beyond U+00FF is lowercased by ``str.lower`` itself,
  document by document (final sigma and U+0130 depend on context or grow). Latin-1 text is
  lowercased byte by byte through a 256-entry table made from ``str.lower``, which maps
  latin-1 one-to-one into latin-1 (asserted below).
- **Order.** Python compares strings by code point; latin-1 bytes and UTF-8 bytes (with
  ``surrogatepass``) compare in the same order, so sorting the terms' bytes sorts the terms.

How: the documents are joined into one byte array (latin-1 when every character fits, a plain
copy; UTF-8 otherwise) and cut into chunks of about equal bytes. Threads (one per usable CPU;
the kernels release the GIL) take chunks in turn; each thread counts into its own term table
(:mod:`._scan_kernels`). The tables are then merged, the terms sorted, and every chunk's rows
rewritten over the sorted term order (again in parallel), so the result is the same, bit for
bit, whatever the number of threads or chunks and whichever thread took which chunk.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import itertools
import re
import string
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._identity import KeptBeside
from .._threads import in_parallel as _in_parallel
from .._threads import usable_cpus as _usable_cpus
from . import _scan_kernels as kernels
from .analyze import ADDRESS_TOKEN_PATTERN

#: Below this many bytes of text, one thread and one chunk: more save nothing.
PARALLEL_MIN_BYTES = 1 << 19
#: Chunks per thread: more than one, so a thread slowed by other work on the machine leaves
#: its share to the others.
CHUNKS_PER_THREAD = 4
#: Token patterns the compiled word scanner implements: the fewest characters a token has,
#: and the *joiners*, characters other than word characters a token may hold inside.
COMPILED_TOKEN_PATTERNS = {
    r"(?u)\b\w\w+\b": (2, ""),
    r"\b\w\w+\b": (2, ""),
    r"(?u)\b\w+\b": (1, ""),
    r"\b\w+\b": (1, ""),
    ADDRESS_TOKEN_PATTERN: (1, ".@-"),
}
#: Tokens the word scanner gathers before it finds their n-grams, a block at a time.
GRAM_BLOCK = 1024
#: Tokens the word scanner hashes (and asks the memory of their table slots for) before it
#: finds their entries, a block at a time.
TOKEN_BLOCK = 128
#: The longest word n-grams the compiled scanner forms (character n-grams: any length).
MAX_WORD_N = 3
#: Word n-grams are sorted by keys of their tokens' ranks when the keys fit so many bits,
#: otherwise by their bytes.
RANK_KEY_BITS = 63


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
assert [chr(b) for b in range(128) if _LATIN1_CLASSES[b] & kernels.TOKEN] == sorted(
    string.digits + string.ascii_letters + "_"
)


@functools.cache
def unicode_classes() -> np.ndarray:
    """``uint8[0x110000]``: bits 1 and 4 for the code points ``re`` counts as ``\\w``
    (``str.isalnum()`` or ``"_"``), bit 2 for ``\\s`` (``str.isspace()``). Built on first
    use (~0.05 s), only for text beyond latin-1."""
    return _classes(0x110000)


@dataclass(frozen=True)
class Analysis:
    """What the scanner counts: ``kind`` "word" (tokens of at least ``min_chars`` word
    characters, ``stop_words`` removed, ``low``..``high``-grams joined by a space), "char"
    or "char_wb" (character ``low``..``high``-grams), after lowercasing when ``lowercase``."""

    kind: str
    low: int = 1
    high: int = 1
    min_chars: int = 2
    lowercase: bool = True
    stop_words: frozenset[str] = field(default_factory=frozenset)
    joiners: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("word", "char", "char_wb"):
            raise ValueError(f"kind must be 'word', 'char' or 'char_wb', not {self.kind!r}")
        if not 1 <= self.low <= self.high or (self.kind == "word" and self.high > MAX_WORD_N):
            raise ValueError(f"n-gram range ({self.low}, {self.high}) is not compiled")

    @classmethod
    def of(
        cls,
        analyzer: Any,
        token_pattern: str,
        ngram_range: tuple[int, int],
        lowercase: bool,
        stop_words: frozenset[str],
    ) -> Analysis | None:
        """The analysis of a vectorizer's settings, or None when the compiled scanner does not
        implement them (a callable or "email" analyzer, another token pattern, word n-grams
        longer than :data:`MAX_WORD_N`)."""
        if not isinstance(analyzer, str):
            return None
        low, high = ngram_range
        if analyzer == "word":
            rule = COMPILED_TOKEN_PATTERNS.get(token_pattern)
            if rule is None or high > MAX_WORD_N:
                return None
            min_chars, joiners = rule
            return cls(
                "word", low, high, min_chars, bool(lowercase), frozenset(stop_words), joiners
            )
        if analyzer in ("char", "char_wb"):
            return cls(analyzer, low, high, 2, bool(lowercase))
        return None

    @property
    def orders(self) -> tuple[int, int]:
        """The orders of the entries that are terms (character n-grams are all of order 1)."""
        return (self.low, self.high) if self.kind == "word" else (1, 1)

    def stops(self, utf8: bool) -> Lookup:
        """The stop words as a lookup table for latin-1 or UTF-8 text."""
        return _stop_table(self.stop_words, utf8)


@functools.lru_cache(maxsize=16)
def _stop_table(words: frozenset[str], utf8: bool) -> Lookup:
    return Lookup.build(sorted(words), np.full(len(words), -1, np.int64), utf8=utf8)


# ---------------------------------------------------------------------------- public


def count_terms(
    texts: Sequence[str], analysis: Analysis, *, threads: int | None = None
) -> tuple[np.ndarray, sp.csr_matrix]:
    """Sorted distinct terms of ``texts`` and their count matrix over them.

    Parameters
    ----------
    texts : sequence of str
    analysis : Analysis
    threads : int, optional
        Threads to count with; by default one per usable CPU when the text is at least
        ``PARALLEL_MIN_BYTES`` long. The result does not depend on it.

    Returns
    -------
    terms : ndarray of str (object dtype), sorted, distinct
    counts : csr_matrix of shape (len(texts), len(terms)), float64 counts, sorted indices

    Examples
    --------
    >>> terms, counts = count_terms(["Free money, free!", "Lunch at noon?"], Analysis("word"))
    >>> terms.tolist()
    ['at', 'free', 'lunch', 'money', 'noon']
    >>> counts.toarray()
    array([[0., 2., 0., 1., 0.],
           [1., 0., 1., 0., 1.]])
    >>> count_terms(["free money"], Analysis("word", 2, 2))[0].tolist()
    ['free money']
    """
    if len(texts) == 0:
        return np.zeros(0, object), _csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1), 0, 0)
    phase = _clock()
    doc = _Encoded.of(texts, analysis.lowercase)
    n_threads, chunks = _plan(doc, threads)
    phase("encode")
    parts, scanned, buffer = _scan_all(analysis, doc, n_threads, chunks)
    phase("scan")
    # One table: the others' entries merged into thread 0's (sized for them all).
    table = parts[0]
    mappings = [table.merge(parts[w]) for w in range(1, n_threads)]
    phase("merge")
    ids, spell = table.sorted_terms(*analysis.orders)  # the entry of term j, its bytes
    n_terms = ids.size
    # Each thread's entries' columns, one after another in one array.
    column_at = np.cumsum([0, int(table.sizes[0]), *(m.size for m in mappings)])
    column = np.full(max(int(column_at[-1]), 1), -1, np.int32)
    of_entry = column[: column_at[1]]  # thread 0's table: every term's entry
    of_entry[ids] = np.arange(n_terms, dtype=np.int32)
    for w, mapping in enumerate(mappings, 1):
        np.take(of_entry, mapping, out=column[column_at[w] : column_at[w + 1]])
    phase("sort")

    # The rows are rewritten, and each column's entries and total summed (what the
    # vocabulary statistics need), by compiled kernels in the background while this thread
    # spells the terms (a kernel, without the GIL) and makes their str objects (with it).
    overlap = n_threads > 1
    rows = _rows_and_totals(scanned, buffer, column, column_at, n_terms, overlap)
    phase("rows, spelling and names" if overlap else "rows")
    spelled = spell()
    phase("rows, spelling and names" if overlap else "spelling")
    names = spelled.names(doc.utf8)
    indptr, indices, data, doc_freq, term_freq = rows()
    _COUNTED.put(names, _Counted(doc.utf8, analysis, table, ids))
    counts = _csr(data, indices, indptr, len(texts), n_terms)
    _TOTALS.put(counts, (doc_freq, term_freq))
    phase("rows, spelling and names" if overlap else "names")
    return names, counts


def _rows_and_totals(
    scanned: list[_Rows],
    buffer: _RowBuffer,
    column: np.ndarray,
    column_at: np.ndarray,
    n_columns: int,
    threaded: bool,
) -> Callable[[], tuple[np.ndarray, ...]]:
    """A function waiting for the CSR ``(indptr, indices, data)`` of the scanned rows over
    ``n_columns`` (thread ``w``'s entry ``e`` in column ``column[column_at[w] + e]``) and
    ``(entries, total)`` per column, computed on another thread when ``threaded``.

    When every chunk's rows are in the shared buffer, all that is one kernel call, its
    arguments made here: the thread making the terms' ``str`` objects meanwhile holds the
    GIL for milliseconds at a time, and a thread wanting it back between two kernels (with
    a call per chunk) waited that long each time. Otherwise (a chunk's rows outgrew their
    room), a call per chunk."""
    if any(rows.at < 0 for rows in scanned):

        def per_chunk() -> tuple[np.ndarray, ...]:
            indptr, indices, data = _assemble(
                scanned,
                lambda rows: column[column_at[rows.worker] : column_at[rows.worker + 1]],
                1,
                n_columns,
            )
            return indptr, indices, data, *kernels.column_totals(indices, data, n_columns)

        return _in_background(threaded, per_chunk)
    offsets = np.cumsum([0, *(rows.n_entries for rows in scanned)])
    chunks = np.array(
        [
            (rows.indptr_at, rows.indptr_at + rows.n_docs + 1, rows.at,
             column_at[rows.worker], rows.first, at)
            for rows, at in zip(scanned, offsets[:-1].tolist(), strict=True)
        ],
        np.int64,
    ).reshape(-1, 6)  # fmt: skip
    n_entries = int(offsets[-1])
    indptr = np.empty(sum(rows.n_docs for rows in scanned) + 1, np.int64)
    indptr[-1] = n_entries
    indices, data = np.empty(n_entries, np.int32), np.empty(n_entries, np.float64)

    def rewrite(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return kernels.sorted_rows_of_chunks(
            buffer.indptr, buffer.indices, buffer.counts, part, column, indptr, indices, data,
            n_columns,
        )  # fmt: skip

    if not threaded:
        totals = rewrite(chunks)
        return lambda: (indptr, indices, data, *totals)
    share = (NAME_COST * n_columns + n_entries) / (2 * max(n_entries, 1))
    behind, ahead = _split_rows(chunks, buffer.indptr, int(n_entries * min(share, 1.0)))
    wait = _in_background(True, lambda: rewrite(behind))

    def rows() -> tuple[np.ndarray, ...]:
        mine = rewrite(ahead) if ahead.size else None
        entries, total = wait()
        if mine is not None:
            entries, total = entries + mine[0], total + mine[1]
        return indptr, indices, data, entries, total

    return rows


#: How many row entries rewriting costs about as much as making one term's name (measured
#: on 20 Newsgroups: ~35 ns a name, ~5 ns an entry). With it, the rewrite is split so that
#: the background thread and this one, which makes the names first, end together.
NAME_COST = 8


def _split_rows(
    chunks: np.ndarray, indptr: np.ndarray, entries: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~._scan_kernels.sorted_rows_of_chunks`'s table of chunks cut in two at the
    row boundary nearest ``entries`` output entries: the rows before it, the rows after
    (possibly none). A chunk cut in two keeps its entries' place; its second part starts
    at the cut's row and output entry."""
    at = chunks[:, 5]
    if entries >= int(at[-1]) + _chunk_entries(chunks[-1], indptr):
        return chunks, chunks[:0]
    i = int(np.searchsorted(at, entries, side="right")) - 1
    if i < 0:
        return chunks[:0], chunks
    p, q, e, c, d, o = chunks[i].tolist()
    row_ends = indptr[p:q] - indptr[p]
    r = int(np.searchsorted(row_ends, entries - o))  # rows before the cut
    if r == 0:
        return chunks[:i], chunks[i:]
    if r >= q - p - 1:
        return chunks[: i + 1], chunks[i + 1 :]
    first = np.array([(p, p + r + 1, e, c, d, o)], np.int64)
    second = np.array([(p + r, q, e, c, d + r, o + int(row_ends[r]))], np.int64)
    return np.concatenate([chunks[:i], first]), np.concatenate([second, chunks[i + 1 :]])


def _chunk_entries(chunk: np.ndarray, indptr: np.ndarray) -> int:
    p, q = int(chunk[0]), int(chunk[1])
    return int(indptr[q - 1] - indptr[p])


#: (entries per column, total per column) of the matrices :func:`count_terms` returned, until
#: :func:`take_column_totals` takes them.
_TOTALS: KeptBeside[tuple[np.ndarray, np.ndarray]] = KeptBeside()


def take_column_totals(counts: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray] | None:
    """``(entries, total)`` per column (int64) of a count matrix :func:`count_terms` just
    returned, summed while it made the terms' names; None for any other matrix, or when
    taken already (once: what a caller does with the matrix afterwards is not tracked)."""
    return _TOTALS.pop(counts)


#: When a dict, :func:`count_terms` adds the seconds of each of its phases to it, as
#: :data:`PHASE_CLOCK` tells them (``benchmarks/profile_scan.py`` reads them).
PHASES: dict[str, float] | None = None
PHASE_CLOCK: Callable[[], float] = time.perf_counter


def _clock() -> Callable[[str], None]:
    """A function recording, under a phase's name, the time since it was last called (or
    since this call): a no-op unless :data:`PHASES` is a dict."""
    phases = PHASES
    if phases is None:
        return lambda name: None
    clock = PHASE_CLOCK
    last = [clock()]

    def mark(name: str) -> None:
        now = clock()
        phases[name] = phases.get(name, 0.0) + now - last[0]
        last[0] = now

    return mark


@dataclass(frozen=True)
class _Counted:
    """The table :func:`count_terms` counted some terms with, and each term's entry in it."""

    utf8: bool
    analysis: Analysis
    entries: _Entries
    entry: np.ndarray  # int64: the entry of term j


#: How the terms arrays :func:`count_terms` returned were counted, while they live.
_COUNTED: KeptBeside[_Counted] = KeptBeside()


def counted_lookup(
    terms: np.ndarray, selected: np.ndarray, analysis: Analysis, utf8: bool
) -> Lookup | None:
    """The lookup table of the vocabulary ``terms[selected]`` (in columns ``0, 1, ...``) for
    text in ``utf8`` or latin-1, made from the table :func:`count_terms` counted ``terms``
    with: no term is spelled, joined, encoded and hashed again, as :meth:`Lookup.build` does.
    None when ``terms`` is not an array ``count_terms`` returned under ``analysis`` for text
    in that encoding (then build one). The table is the same as a built one for every
    document: the same entries (tokens, and n-grams as pairs of entries) reached by the same
    scan, with ``-1`` columns for the entries that are not vocabulary terms."""
    counted = _COUNTED.get(terms)
    if counted is None or counted.utf8 != utf8 or counted.analysis != analysis:
        return None
    column = np.full(max(int(counted.entries.sizes[0]), 1), -1, np.int64)
    column[counted.entry[selected]] = np.arange(len(selected), dtype=np.int64)
    return Lookup(utf8, counted.entries, column)


def count_known(
    texts: Sequence[str],
    analysis: Analysis,
    lookup: Callable[[bool], Lookup],
    n_columns: int,
    oov_column: int = -1,
    *,
    threads: int | None = None,
) -> sp.csr_matrix:
    """Counts of the terms of ``texts`` over a fixed vocabulary: a term that is an entry of
    the table ``lookup(utf8)`` (for latin-1 or UTF-8 text) with a column counts there, any
    other term in ``oov_column``, or not at all when that is -1.

    What counting the terms (:func:`count_terms`) and then moving each term's counts to its
    column in the vocabulary gives, entry for entry: float64 counts, sorted indices, shape
    ``(len(texts), n_columns)``. ``threads`` as in :func:`count_terms`.
    """
    if len(texts) == 0:
        return _csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1), 0, n_columns)
    doc = _Encoded.of(texts, analysis.lowercase)
    table = lookup(doc.utf8)
    if table.utf8 != doc.utf8:
        raise ValueError("the lookup table is for the other encoding")
    n_threads, chunks = _plan(doc, threads)
    states = [_Known(table, n_columns, oov_column) for _ in range(n_threads)]
    buffer = _RowBuffer.of(analysis, doc, chunks)
    scanned = _in_parallel(
        len(chunks),
        n_threads,
        lambda w, c: _scan_chunk(analysis, doc, buffer, c, chunks[c], w, None, states[w]),
    )
    identity = np.arange(max(n_columns, 1), dtype=np.int32)
    indptr, indices, data = _assemble(scanned, lambda rows: identity, n_threads, n_columns)
    return _csr(data, indices, indptr, len(texts), n_columns)


def count_hashed(
    texts: Sequence[str], analysis: Analysis, width: int, *, threads: int | None = None
) -> sp.csr_matrix:
    """Counts of the terms of ``texts`` in ``width`` columns: a term counts in column
    ``zlib.crc32(term.encode("utf-8", "surrogatepass")) % width``, as the Python path of
    ``TextVectorizer(output="hashed")`` does. No vocabulary is built: each thread's terms are
    hashed once, when its chunks are done."""
    if len(texts) == 0:
        return _csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1), 0, width)
    doc = _Encoded.of(texts, analysis.lowercase)
    n_threads, chunks = _plan(doc, threads)
    parts, scanned, _ = _scan_all(analysis, doc, n_threads, chunks)
    columns = []
    for part in parts:
        terms = part.terms(*analysis.orders)
        hashed = kernels.crc_columns(
            terms.arena, terms.start, terms.length, doc.utf8, width, kernels.CRC_TABLE
        )
        columns.append(terms.of_entries(hashed))
    indptr, indices, data = _assemble(
        scanned, lambda rows: columns[rows.worker], n_threads, width, merge=True
    )
    return _csr(data, indices, indptr, len(texts), width)


# ---------------------------------------------------------------------------- tables


@dataclass
class _Entries:
    """A vocabulary table: the ``tokens`` and ``pairs`` hash tables and, per entry, its hash,
    key, bytes in the arena (strings), parts (pairs) and order (see :mod:`._scan_kernels`)."""

    tokens: np.ndarray  # (slots, 2) uint64, at most half full
    pairs: np.ndarray  # (slots, 2) uint64, at most half full
    hash: np.ndarray  # uint64
    key: np.ndarray  # uint64
    start: np.ndarray  # int64
    length: np.ndarray  # int64
    left: np.ndarray  # int64
    right: np.ndarray  # int64
    order: np.ndarray  # int64
    arena: np.ndarray  # uint8, the strings' bytes, each followed by a NUL byte
    last: np.ndarray  # int64, a row's latest use of each entry
    sizes: np.ndarray  # int64: entries, arena bytes used, strings, pairs

    @classmethod
    def empty(cls, n_strings: int, n_pairs: int, n_bytes: int) -> _Entries:
        """Room for so many strings, pairs and bytes of strings (each grows when needed)."""
        capacity = n_strings + n_pairs
        return cls(
            tokens=_empty_table(_slots(n_strings)),
            pairs=_empty_table(_slots(n_pairs) if n_pairs else 1),
            hash=np.empty(capacity, np.uint64),
            key=np.empty(capacity, np.uint64),
            start=np.empty(capacity, np.int64),
            length=np.empty(capacity, np.int64),
            left=np.empty(capacity, np.int64),
            right=np.empty(capacity, np.int64),
            order=np.empty(capacity, np.int64),
            arena=np.empty(max(n_bytes, 16), np.uint8),
            last=np.empty(capacity, np.int64),
            sizes=np.zeros(4, np.int64),
        )

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The kernels' entry arguments, from ``hash`` to ``arena``."""
        return (
            self.hash, self.key, self.start, self.length, self.left, self.right, self.order,
            self.arena,
        )  # fmt: skip

    def reserve(self, n_entries: int, n_strings: int, n_pairs: int, n_bytes: int) -> None:
        """Make room for so many entries, strings, pairs and arena bytes in all."""
        n = int(self.sizes[0])
        if n_entries > self.hash.size:
            size = max(2 * self.hash.size, n_entries)
            for name in ("hash", "key", "start", "length", "left", "right", "order", "last"):
                setattr(self, name, _grown(getattr(self, name), size))
        for name, wanted in (("tokens", n_strings), ("pairs", n_pairs)):
            if 2 * wanted > getattr(self, name).shape[0]:
                table = kernels.rehash(
                    self.hash, self.key, self.length, self.order, n, _slots(wanted),
                    name == "pairs",
                )  # fmt: skip
                setattr(self, name, table)
        if n_bytes > self.arena.size:
            self.arena = _grown(self.arena, max(2 * self.arena.size, n_bytes))

    def merge(self, other: _Entries) -> np.ndarray:
        """Add ``other``'s entries; returns the id here of each of them."""
        n_other = int(other.sizes[0])
        self.reserve(
            int(self.sizes[0]) + n_other, int(self.sizes[2] + other.sizes[2]),
            int(self.sizes[3] + other.sizes[3]), int(self.sizes[1] + other.sizes[1]),
        )  # fmt: skip
        mapping = np.empty(n_other, np.int64)
        kernels.merge_entries(
            self.tokens, self.pairs, *self.arrays(), self.sizes, self.last,
            *other.arrays()[:-1], other.arena, n_other, mapping, _IDENTITY,
        )  # fmt: skip
        return mapping

    def terms(self, low: int, high: int) -> _Terms:
        """The entries of orders ``low``..``high``: the terms, spelled out."""
        n = int(self.sizes[0])
        if low == 1 and (high == 1 or not self.sizes[3]):  # every entry is a string and a term
            ids = np.arange(n)
            arena = self.arena[: int(self.sizes[1])]
            return _Terms(n, ids, n, self.key[:n], self.start[:n], self.length[:n], arena)
        order = self.order[:n]
        return self._spelled(np.flatnonzero((order >= low) & (order <= high)))

    def sorted_terms(self, low: int, high: int) -> tuple[np.ndarray, Callable[[], _Spelled]]:
        """The terms (entries of orders ``low``..``high``) in byte order, which is their
        order as ``str``: their entries, and a function writing out their bytes in that
        order (so their names come out sorted; the caller may do other work first). Word
        n-grams are ordered by the ranks of their tokens
        (:func:`~._scan_kernels.rank_tuples`) when the keys fit :data:`RANK_KEY_BITS`:
        sorting the tokens and then integers is much faster than sorting the n-grams' bytes,
        and the sorted keys spell the n-grams from the tokens' bytes alone."""
        n = int(self.sizes[0])
        is_token = self.order[:n] == 1
        bits = max(1, int(np.count_nonzero(is_token)).bit_length())
        if self.sizes[3] and bits * high <= RANK_KEY_BITS:
            tokens = np.flatnonzero(is_token)
            by_bytes = tokens[
                _term_order(
                    self.key[tokens], self.start[tokens], self.length[tokens], self.arena
                )
            ]  # fmt: skip
            token_rank = np.empty(n, np.int64)
            token_rank[by_bytes] = np.arange(tokens.size)
            order = self.order[:n]
            wanted = np.flatnonzero((order >= low) & (order <= high))
            keys = kernels.rank_tuples(
                wanted, self.left, self.right, self.order, token_rank, bits, high
            )
            ids, keys = _sort_distinct(keys, bits * high, wanted)

            def spell_tuples() -> _Spelled:
                return _Spelled(
                    *kernels.spell_tuples(
                        keys, bits, high, self.start[by_bytes], self.length[by_bytes],
                        self.arena,
                    )
                )  # fmt: skip

            return ids, spell_tuples
        terms = self.terms(low, high)  # strings, or (rarely) n-grams spelled in entry order
        index = _term_order(terms.key[: terms.n], terms.start, terms.length, terms.arena)

        def gather() -> _Spelled:
            length = terms.length[index]
            start, arena = kernels.gather(terms.start[index], length, terms.arena)
            return _Spelled(start, length, arena)

        return terms.ids[index], gather

    def _spelled(self, ids: np.ndarray) -> _Terms:
        """The entries ``ids`` (increasing) as terms, written out in that order."""
        start, length, arena, key = kernels.spell(
            self.start, self.length, self.left, self.right, self.order, self.arena, ids
        )
        return _Terms(len(ids), ids, int(self.sizes[0]), key, start, length, arena)


def _term_order(
    key: np.ndarray, start: np.ndarray, length: np.ndarray, arena: np.ndarray
) -> np.ndarray:
    """:func:`~._scan_kernels.term_order` of strings with these keys, bytes and lengths."""
    return kernels.term_order(np.argsort(key), key, start, length, arena)


def _sort_distinct(
    keys: np.ndarray, key_bits: int, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[np.argsort(keys)], np.sort(keys))`` of distinct non-negative keys below
    ``2**key_bits`` and non-negative int64 ``values``: each value packed into its key's low
    bits when both fit 63 bits, as numpy sorts plain integers (vectorised) 2-3x faster than
    it argsorts them, and taking the values in the sorted order costs a random gather (about
    5 ms for a million 1-2-grams)."""
    value_bits = max(1, int(values.max(initial=0)).bit_length())
    if key_bits + value_bits > 63:
        index = np.argsort(keys)
        return values[index], keys[index]
    packed = np.sort((keys << value_bits) | values)
    return packed & ((1 << value_bits) - 1), packed >> value_bits


@dataclass(frozen=True)
class _Spelled:
    """Strings one after another in ``arena``, each followed by a NUL byte: string ``j`` is
    ``arena[start[j]:][:length[j]]``."""

    start: np.ndarray
    length: np.ndarray
    arena: np.ndarray

    def names(self, utf8: bool) -> np.ndarray:
        """The strings as ``str`` (object array)."""
        n = self.start.size
        # Decoded from the array's own memory (no bytes copy), split at the NULs, the empty
        # string after the last one popped (not sliced off: that copies the list), and the
        # list read into the object array (np.fromiter: ~0.01 s less than a slice assignment
        # for a million terms).
        if utf8:
            text = codecs.utf_8_decode(self.arena.data, "surrogatepass", True)[0]
        else:
            text = codecs.latin_1_decode(self.arena.data)[0]
        names = text.split("\x00")
        names.pop()
        if len(names) != n:  # a term holds a NUL (character n-grams): cut by offsets
            encoding = "utf-8" if utf8 else "latin-1"
            raw = self.arena.tobytes()
            names = [
                raw[a : a + k].decode(encoding, "surrogatepass")
                for a, k in zip(self.start.tolist(), self.length.tolist(), strict=True)
            ]
        return np.fromiter(names, object, n)


@dataclass(frozen=True)
class _Terms:
    """``n`` terms: the entries ``ids`` (of ``n_entries``) and their bytes."""

    n: int
    ids: np.ndarray
    n_entries: int
    key: np.ndarray
    start: np.ndarray
    length: np.ndarray
    arena: np.ndarray

    def of_entries(self, values: np.ndarray) -> np.ndarray:
        """``values[j]`` for the entry of term ``j``, -1 for the other entries (int32)."""
        return _per_entry(self.ids, self.n_entries, values)


def _per_entry(ids: np.ndarray, n_entries: int, values: np.ndarray) -> np.ndarray:
    """``values[j]`` at entry ``ids[j]`` of ``n_entries``, -1 at the others (int32)."""
    out = np.full(max(n_entries, 1), -1, np.int32)
    out[ids] = values
    return out


def _empty_table(slots: int) -> np.ndarray:
    return np.zeros((slots, 2), np.uint64)  # zero marks a free slot


def _slots(n: int) -> int:
    """A power of two at least ``2 (n + 1)``: a table of ``n`` entries at most half full."""
    slots = 16
    while slots < 2 * (n + 1):
        slots *= 2
    return slots


def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size, a.dtype)
    out[: a.size] = a
    return out


@dataclass(frozen=True)
class Lookup:
    """A fixed vocabulary as tables over its terms' bytes in one encoding (the text's:
    latin-1 or UTF-8), for :func:`count_known` (and, without columns, for stop words).

    ``column[e]`` is where entry ``e`` counts; -1 for the entries that are only parts of word
    n-gram terms (those count as out of vocabulary when they occur as terms themselves).
    """

    utf8: bool
    entries: _Entries
    column: np.ndarray  # int64, per entry

    @classmethod
    def build(
        cls,
        terms: Sequence[str],
        columns: np.ndarray,
        *,
        utf8: bool,
        words: bool = False,
        high: int = 1,
    ) -> Lookup:
        """The table of ``terms`` (distinct) counting in ``columns``. ``words``: the terms are
        word n-grams of up to ``high`` tokens, split at single spaces; otherwise strings. For
        latin-1 text, terms with a character beyond U+00FF are left out: no term of the text
        can equal them."""
        columns = np.asarray(columns, np.int64)
        encoding = "utf-8" if utf8 else "latin-1"
        joined = "\x00".join(terms) + "\x00"
        blob = None
        with contextlib.suppress(UnicodeEncodeError):  # a term beyond latin-1
            blob = joined.encode(encoding, "surrogatepass")
        if blob is not None and joined.count("\x00") == len(terms):
            arena = np.frombuffer(blob, np.uint8)
            ends = np.flatnonzero(arena == 0)
            start = np.zeros(len(terms), np.int64)
            start[1:] = ends[:-1] + 1
            length = (ends - start).astype(np.int64)
        else:  # rare: terms holding a NUL, or beyond latin-1
            pieces: list[bytes] = []
            keep = np.ones(len(terms), bool)
            for i, term in enumerate(terms):
                try:
                    pieces.append(term.encode(encoding, "surrogatepass"))
                except UnicodeEncodeError:
                    keep[i] = False
            columns = columns[keep]
            length = np.fromiter(map(len, pieces), np.int64, len(pieces))
            start = np.zeros(len(pieces), np.int64)
            np.cumsum(length[:-1] + 1, out=start[1:])
            arena = np.frombuffer(b"".join(p + b"\x00" for p in pieces), np.uint8)
        split = words and high > 1
        n = len(length)
        # Word n-grams share their tokens: start small and grow (the arena never needs more
        # than the terms' bytes: no growing and calling again for it).
        entries = _Entries.empty(
            n // 16 + 16 if split else n + 1, n + 1 if split else 0, max(arena.size, 1 << 12)
        )
        entry = np.full(n, -1, np.int64)
        done = 0
        while done < n:
            done = kernels.build_vocabulary(
                arena, start, length, split, high, done, entry, entries.tokens, entries.pairs,
                *entries.arrays(), entries.sizes, entries.last, _IDENTITY,
            )  # fmt: skip
            if done < n:
                sizes = entries.sizes
                entries.reserve(
                    int(sizes[0]) + high, int(sizes[2]) + high, int(sizes[3]) + high,
                    int(sizes[1] + length[done] + 1),
                )  # fmt: skip
        column = np.full(max(int(entries.sizes[0]), 1), -1, np.int64)
        found = entry >= 0
        column[entry[found]] = columns[found]
        return cls(utf8, entries, column)


# ---------------------------------------------------------------------------- input


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
    def of(cls, texts: Sequence[str], lowercase: bool) -> _Encoded:
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
        ends = np.cumsum(lengths)
        try:
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


def _plan(doc: _Encoded, threads: int | None) -> tuple[int, list[tuple[int, int]]]:
    """(threads, chunks of documents ``(a, b)``)."""
    if threads is None:
        threads = _usable_cpus() if doc.n_bytes >= PARALLEL_MIN_BYTES else 1
    elif isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive int, not {threads!r}")
    threads = int(threads)
    wanted = 1 if threads == 1 else threads * CHUNKS_PER_THREAD
    return threads, list(itertools.pairwise(_cuts(doc.ends - doc.starts, wanted)))


def _cuts(sizes: np.ndarray, parts: int) -> list[int]:
    """Document boundaries splitting ``sizes`` into ``parts`` runs of about equal bytes."""
    total = np.cumsum(sizes)
    inner = [int(np.searchsorted(total, total[-1] * k / parts)) for k in range(1, parts)]
    return sorted({0, *inner, len(sizes)})  # fewer parts if one document is most of the text


def _in_background(threaded: bool, task: Callable[[], Any]) -> Callable[[], Any]:
    """Start ``task`` on another thread (when ``threaded``; otherwise run it now); returns
    a function that waits for its result (its exception is raised there)."""
    if not threaded:
        result = task()
        return lambda: result
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, task()))
        except BaseException as exc:  # re-raised in the waiting thread
            outcome.append((False, exc))

    thread = threading.Thread(target=run)
    thread.start()

    def wait() -> Any:
        thread.join()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    return wait


# ---------------------------------------------------------------------------- scanning


@dataclass
class _Known:
    """One thread's state when counting over a fixed vocabulary."""

    lookup: Lookup
    n_columns: int
    oov: int
    last: np.ndarray = field(init=False)
    visit: int = 0

    def __post_init__(self) -> None:
        self.last = np.full(max(self.n_columns, 1), -1, np.int64)


@dataclass
class _Part:
    """One thread's growing vocabulary."""

    entries: _Entries
    visit: int = 0


@dataclass
class _Rows:
    """The CSR rows of one chunk of documents, columns in the worker's own numbering."""

    worker: int
    first: int  # the chunk's first document
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    indptr_at: int = -1  # where ``indptr`` is in the scan's :class:`_RowBuffer`
    at: int = -1  # and ``indices`` and ``counts``; -1: they outgrew their room there

    @property
    def n_docs(self) -> int:
        return self.indptr.size - 1

    @property
    def n_entries(self) -> int:
        return int(self.indptr[-1])


@dataclass(frozen=True)
class _RowBuffer:
    """Room for the rows of every chunk of a scan in one set of arrays, chunk ``c``'s row
    pointers from ``indptr[first document + c]``, its entries from ``at[c]`` (to
    ``at[c + 1]``), so that one kernel call can read them all."""

    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    at: np.ndarray

    @classmethod
    def of(cls, analysis: Analysis, doc: _Encoded, chunks: list[tuple[int, int]]) -> _RowBuffer:
        # Room from the amount of text, so the arrays rarely grow (growing copies them and
        # scans a document again): on 20 Newsgroups a distinct word of a post per ~12
        # bytes, a distinct word 1-2-gram per ~5, a character 2-4-gram per ~1.1.
        # (np.empty: pages never written are never touched.)
        per_bytes = 6 if analysis.kind == "word" else 3
        orders = analysis.high - analysis.low + 1
        room = [
            max(1 << 10, int(doc.ends[b - 1] - doc.starts[a]) * orders // per_bytes)
            for a, b in chunks
        ]
        at = np.cumsum([0, *room])
        n_docs = chunks[-1][1] if chunks else 0
        return cls(
            np.zeros(n_docs + len(chunks), np.int64),
            np.empty(int(at[-1]), np.int32),
            np.empty(int(at[-1]), np.int32),
            at,
        )

    def room(self, c: int, chunk: tuple[int, int]) -> tuple[np.ndarray, ...]:
        """Chunk ``c``'s (documents ``chunk``) row pointers, indices and counts."""
        a, b = chunk
        lo, hi = int(self.at[c]), int(self.at[c + 1])
        return self.indptr[a + c : b + c + 1], self.indices[lo:hi], self.counts[lo:hi]


_NO_STOPS: Lookup | None = None


def _no_stops() -> Lookup:
    global _NO_STOPS
    if _NO_STOPS is None:
        _NO_STOPS = Lookup.build([], np.zeros(0, np.int64), utf8=False)
    return _NO_STOPS


def _scan_all(
    analysis: Analysis, doc: _Encoded, n_threads: int, chunks: list[tuple[int, int]]
) -> tuple[list[_Entries], list[_Rows], _RowBuffer]:
    """Every chunk counted into its thread's own growing vocabulary."""
    pairs = analysis.kind == "word" and analysis.high > 1

    def entries(n_bytes: int) -> _Entries:
        # Starting sizes from the amount of text: on 20 Newsgroups a distinct word per ~170
        # bytes, a distinct word pair per ~20, a distinct character 2-4-gram per ~30.
        n_strings = n_bytes // (128 if analysis.kind == "word" else 16)
        n_pairs = n_bytes // 16 if pairs else 0
        return _Entries.empty(max(n_strings, 1 << 10), n_pairs, max(1 << 12, n_bytes // 16))

    # Thread 0's table is sized for the whole text: the others' entries are merged into it
    # without growing its arrays or rehashing it (rehashing a million pairs, one thread
    # working, took longer than the merge itself on 20 Newsgroups 1-2-grams; growing the
    # arrays for words, fresh memory, was most of the merge of unigrams).
    per_thread = doc.n_bytes // n_threads
    parts = [_Part(entries(doc.n_bytes if w == 0 else per_thread)) for w in range(n_threads)]
    buffer = _RowBuffer.of(analysis, doc, chunks)
    scanned = _in_parallel(
        len(chunks),
        n_threads,
        lambda w, c: _scan_chunk(analysis, doc, buffer, c, chunks[c], w, parts[w], None),
    )
    return [part.entries for part in parts], scanned, buffer


def _scan_chunk(
    analysis: Analysis,
    doc: _Encoded,
    buffer: _RowBuffer,
    c: int,
    chunk: tuple[int, int],
    worker: int,
    part: _Part | None,
    known: _Known | None,
) -> _Rows:
    """The rows of documents ``chunk`` (chunk ``c``, written in its room in ``buffer`` while
    they fit): new terms added to ``part``, or counted over the fixed vocabulary of
    ``known``."""
    a, b = chunk
    starts, ends = doc.starts[a:b], doc.ends[a:b]
    indptr, indices, counts = buffer.room(c, chunk)
    at = int(buffer.at[c])
    word = analysis.kind == "word"
    classes = _classes_with(doc.utf8, analysis.joiners) if analysis.joiners else doc.classes
    if word:
        stops = analysis.stops(doc.utf8) if analysis.stop_words else _no_stops()
        stop_args = (stops.entries.tokens, stops.entries.start, stops.entries.arena)
        grams = np.empty((3, GRAM_BLOCK), np.int64)  # a block of tokens and their n-grams
        pending = np.empty((4, TOKEN_BLOCK), np.uint64)  # tokens hashed, entries not found
        bounds = np.empty((2, TOKEN_BLOCK + 1), np.int64)  # their starts and ends
    else:
        scratch = np.empty(int((ends - starts).max()) + 2, np.uint8)
    done = 0
    while True:
        if part is not None:
            e = part.entries
            table: tuple[Any, ...] = (
                True, e.tokens, e.pairs, *e.arrays(), e.sizes, _NO_COLUMNS, -1, e.last,
                part.visit,
            )  # fmt: skip
        else:
            assert known is not None
            e = known.lookup.entries
            table = (
                False, e.tokens, e.pairs, *e.arrays(), e.sizes, known.lookup.column,
                known.oov, known.last, known.visit,
            )  # fmt: skip
        if word:
            done, status, need, visit = kernels.scan_words(
                doc.text, doc.utf8, doc.lower, classes, starts, ends, done, analysis.min_chars,
                bool(analysis.joiners), analysis.low, analysis.high, *stop_args, *table, grams,
                pending, bounds, indptr, indices, counts,
            )  # fmt: skip
        else:
            done, status, need, visit = kernels.scan_chars(
                doc.text, doc.utf8, doc.lower, doc.classes, starts, ends, done, analysis.low,
                analysis.high, analysis.kind == "char_wb", scratch, _IDENTITY, table[0],
                *table[1:2], *table[3:], indptr, indices, counts,
            )  # fmt: skip
        if part is not None:
            part.visit = visit
        else:
            known.visit = visit  # type: ignore[union-attr]
        if status == kernels.DONE:
            return _Rows(worker, a, indptr, indices, counts, a + c, at)
        if status == kernels.ROWS_FULL:
            indices, counts = _grown(indices, 2 * indices.size), _grown(counts, 2 * counts.size)
            at = -1
        else:
            assert part is not None
            sizes = part.entries.sizes
            part.entries.reserve(
                int(sizes[0]) + 1, int(sizes[2]) + 1, int(sizes[3]) + 1, int(sizes[1]) + need
            )


_NO_COLUMNS = np.zeros(0, np.int64)


# ---------------------------------------------------------------------------- output


def _assemble(
    scanned: list[_Rows],
    columns_of: Callable[[_Rows], np.ndarray],
    n_threads: int,
    n_columns: int,
    *,
    merge: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One CSR (indptr, indices, data) from the chunks' rows, each row's entries moved to
    ``columns_of(rows)[entry]`` and sorted (``merge``: entries landing in one column summed);
    chunks are rewritten in parallel."""
    offsets = np.concatenate(([0], np.cumsum([int(rows.indptr[-1]) for rows in scanned])))
    n_docs = sum(rows.indptr.size - 1 for rows in scanned)
    total = int(offsets[-1])
    indptr = np.empty(n_docs + 1, np.int64)
    indices = np.empty(total, np.int32)
    data = np.empty(total, np.float64)

    def rewrite(worker: int, c: int) -> int:
        rows = scanned[c]
        n = rows.indptr.size - 1
        return int(
            kernels.sorted_rows(
                rows.indptr,
                rows.indices,
                rows.counts,
                columns_of(rows),
                indptr[rows.first : rows.first + n],
                indices,
                data,
                int(offsets[c]),
                merge,
                n_columns,
            )
        )

    ends = _in_parallel(len(scanned), n_threads, rewrite)
    if not merge:
        indptr[-1] = total
        return indptr, indices, data
    # Merged entries leave a gap at the end of each chunk's share: close the gaps.
    keep = np.zeros(total, bool)
    for c, end in enumerate(ends):
        keep[offsets[c] : end] = True
    gaps = np.concatenate(([0], np.cumsum(~keep)))
    indptr[:-1] -= gaps[indptr[:-1]]
    indptr[-1] = int(keep.sum())
    return indptr, indices[keep], data[keep]


def _csr(
    data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, n_docs: int, n_columns: int
) -> sp.csr_matrix:
    # The same constructor call as the Python path, so scipy picks the same index dtype.
    counts = sp.csr_matrix((data, indices, np.asarray(indptr, np.int64)), shape=(n_docs, n_columns))
    counts.has_canonical_format = True  # sorted indices, no duplicates: true by construction
    return counts
