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
  latin-1 one-to-one into latin-1 (asserted in :mod:`._encode`).
- **Order.** Python compares strings by code point; latin-1 bytes and UTF-8 bytes (with
  ``surrogatepass``) compare in the same order, so sorting the terms' bytes sorts the terms.

How: the documents are joined into one byte array (latin-1 when every character fits, a plain
copy; UTF-8 otherwise) and cut into chunks of about equal bytes. Threads (one per usable CPU;
the kernels release the GIL) take chunks in turn; each thread counts into its own term table
(:mod:`._scan_kernels`, inlining :mod:`._scan_entries`). The tables are then merged, the terms
sorted, and every chunk's rows rewritten over the sorted term order (again in parallel), so the
result is the same, bit for bit, whatever the number of threads or chunks and whichever thread
took which chunk.

This module drives the scan; :mod:`._encode` makes the byte array and the character classes,
:mod:`._tables` holds the term tables and sorts and spells their terms, :mod:`._rows` rewrites
the rows into the matrix; the compiled code is in :mod:`._scan_kernels`, :mod:`._table_kernels`
and :mod:`._row_kernels`.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._identity import KeptBeside
from .._threads import in_parallel as _in_parallel
from .._threads import usable_cpus as _usable_cpus
from .._values import one_of
from . import _row_kernels
from . import _scan_kernels as kernels
from ._encode import _IDENTITY, _classes_with, _Encoded, unicode_classes
from ._rows import _assemble, _csr, _RowBuffer, _Rows, _rows_and_totals
from ._tables import Lookup, _Entries, _grown
from .analyze import ADDRESS_TOKEN_PATTERN
from .vocabulary import LazyTerms, as_terms

__all__ = [
    "Analysis",
    "Lookup",
    "count_hashed",
    "count_known",
    "count_terms",
    "count_terms_lazily",
    "counted_analysis",
    "counted_entries",
    "counted_lookup",
    "counted_orders",
    "counted_union",
    "counted_within",
    "find_lazily",
    "take_column_totals",
    "terms_below",
    "unicode_classes",
]

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
        if not one_of(self.kind, ("word", "char", "char_wb")):
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
    terms, counts = _count(texts, analysis, threads, lazy=False)
    return as_terms(terms), counts


def count_terms_lazily(
    texts: Sequence[str], analysis: Analysis, *, threads: int | None = None
) -> tuple[LazyTerms, sp.csr_matrix]:
    """:func:`count_terms` with the terms' ``str`` objects made when first read
    (:class:`~bayeskit.text.vocabulary.LazyTerms`): the counts are done sooner, the rows
    rewritten on every thread, and a caller that never reads the terms never pays for them.

    >>> terms, counts = count_terms_lazily(["Free money, free!"], Analysis("word"))
    >>> len(terms), terms.made, counts.toarray().tolist()
    (2, False, [[2.0, 1.0]])
    >>> terms.array().tolist()
    ['free', 'money']
    """
    terms, counts = _count(texts, analysis, threads, lazy=True)
    assert isinstance(terms, LazyTerms)
    return terms, counts


def _count(
    texts: Sequence[str], analysis: Analysis, threads: int | None, *, lazy: bool
) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]:
    if len(texts) == 0:
        empty = _csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1), 0, 0)
        return (LazyTerms(0, lambda: np.zeros(0, object)) if lazy else np.zeros(0, object)), empty
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
    counted = _Counted(doc.utf8, analysis, table, ids)
    utf8 = doc.utf8

    def names() -> np.ndarray:
        made = spell().names(utf8)
        _COUNTED.put(made, counted)
        return made

    # The rows are rewritten, and each column's entries and total summed (what the
    # vocabulary statistics need), by compiled kernels: with lazy terms on every thread,
    # otherwise in the background while this thread spells the terms (a kernel, without the
    # GIL) and makes their str objects (with it).
    overlap = n_threads > 1
    rows = _rows_and_totals(
        scanned, buffer, column, column_at, n_terms, overlap, names_here=not lazy
    )
    terms: np.ndarray | LazyTerms = LazyTerms(n_terms, names, counted) if lazy else names()
    indptr, indices, data, doc_freq, term_freq = rows()
    counts = _csr(data, indices, indptr, len(texts), n_terms)
    _TOTALS.put(counts, (doc_freq, term_freq))
    phase("rows" if lazy else "rows, spelling and names")
    return terms, counts


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


#: How the terms arrays :func:`count_terms` returned (or lazy terms made) were counted,
#: while they live.
_COUNTED: KeptBeside[_Counted] = KeptBeside()


def counted_lookup(
    terms: np.ndarray | LazyTerms, selected: np.ndarray, analysis: Analysis, utf8: bool
) -> Lookup | None:
    """The lookup table of the vocabulary ``terms[selected]`` (in columns ``0, 1, ...``) for
    text in ``utf8`` or latin-1, made from the table :func:`count_terms` counted ``terms``
    with: no term is spelled, joined, encoded and hashed again, as :meth:`Lookup.build` does.
    None when ``terms`` are not terms :func:`count_terms` (or :func:`count_terms_lazily`)
    returned under ``analysis`` for text in that encoding (then build one). The table is the
    same as a built one for every document: the same entries (tokens, and n-grams as pairs of
    entries) reached by the same scan, with ``-1`` columns for the entries that are not
    vocabulary terms."""
    counted = _counted(terms)
    if counted is None or (counted.utf8, counted.analysis) != (utf8, analysis):
        return None
    column = np.full(max(int(counted.entries.sizes[0]), 1), -1, np.int64)
    entry = counted.entry[selected]
    known = entry >= 0  # (terms the table did not count: :func:`counted_within`)
    column[entry[known]] = np.flatnonzero(known)
    return Lookup(utf8, counted.entries, column)


def counted_within(terms: np.ndarray, part: np.ndarray | LazyTerms, places: np.ndarray) -> None:
    """Keep beside ``terms`` (sorted, distinct) the table :func:`count_terms` counted
    ``part`` with, if it did: ``part``'s terms are ``terms[places]``, and the other terms of
    ``terms`` have no entry in the table (:func:`counted_entries` says -1). Analyzer="auto"
    counts an e-mail's words with the scanner and its header tokens in Python: the union of
    the two is then looked up by the scanner's table for the words
    (:func:`counted_lookup`)."""
    counted = _counted(part)
    if counted is None:
        return
    entry = np.full(len(terms), -1, np.int64)
    entry[places] = counted.entry
    _COUNTED.put(terms, replace(counted, entry=entry))


def counted_union(
    part: LazyTerms,
    places: np.ndarray,
    others: np.ndarray,
    at: np.ndarray,
) -> LazyTerms | None:
    """The union of lazy terms the compiled scanner counted (``part``) and some other terms
    (``others``, str, sorted), as lazy terms: ``part``'s terms at ``places``, the others at
    ``at`` (both increasing, together every position once), the others known already
    (:meth:`LazyTerms.strings_at` reads them without making the rest), and the scanner's
    table kept beside them as :func:`counted_within` keeps it. None when the scanner did not
    count ``part``."""
    counted = _counted(part)
    if counted is None:
        return None
    n = len(places) + len(at)
    entry = np.full(n, -1, np.int64)
    entry[places] = counted.entry

    def make() -> np.ndarray:
        out = np.empty(n, dtype=object)
        out[places] = part.array()
        out[at] = others
        return out

    return LazyTerms(n, make, replace(counted, entry=entry), known=(at, others))


def _term_reader(terms: LazyTerms) -> Callable[[int], str] | None:
    """A function giving term ``j`` of lazy terms the compiled scanner counted, spelled out
    from its table (or read from the terms ``known``), without making the others; None for
    terms the scanner did not count."""
    counted = _counted(terms)
    if counted is None:
        return None
    entry = counted.entry
    at, strings = terms.known if terms.known is not None else (np.zeros(0, np.int64), None)
    if (entry < 0).any() and strings is None:  # terms it did not count, and not known
        return None
    table = counted.entries
    start, length, left, right = table.start, table.length, table.left, table.right
    order, arena = table.order, table.arena
    codec = "utf-8" if counted.utf8 else "latin-1"

    def token(e: int) -> bytes:
        return arena[start[e] : start[e] + length[e]].tobytes()

    def spelled(e: int) -> bytes:
        if order[e] == 1:
            return token(e)
        # a word n-gram: its first n - 1 tokens, a space, its last token
        return spelled(int(left[e])) + b" " + token(int(right[e]))

    def term(j: int) -> str:
        e = int(entry[j])
        if e < 0:  # a term the table did not count (a header token): among the known
            return str(strings[int(np.searchsorted(at, j))])  # type: ignore[index]
        return spelled(e).decode(codec, "surrogatepass")

    return term


def terms_below(terms: LazyTerms, probes: Sequence[str]) -> np.ndarray | None:
    """How many of ``terms`` (sorted; lazy terms the compiled scanner counted) are less than
    each of ``probes``, found by binary search among the terms, each compared spelled out
    from the scanner's table on its own (about ``log2(len(terms))`` of them a probe; the
    others never become str); None for terms the scanner did not count."""
    term = _term_reader(terms)
    return None if term is None else _below(term, len(terms), probes)


def _below(term: Callable[[int], str], n: int, probes: Sequence[str]) -> np.ndarray:
    """:func:`terms_below` by the reader ``term`` of ``n`` sorted terms."""
    out = np.empty(len(probes), np.int64)
    for k, probe in enumerate(probes):
        low, high = 0, n
        while low < high:
            mid = (low + high) // 2
            if term(mid) < probe:
                low = mid + 1
            else:
                high = mid
        out[k] = low
    return out


def find_lazily(terms: LazyTerms, probes: Sequence[str]) -> np.ndarray | None:
    """The position of each of ``probes`` among ``terms`` (lazy terms the compiled scanner
    counted, sorted), -1 for one not among them, by :func:`terms_below`'s binary search; None
    for terms the scanner did not count."""
    term = _term_reader(terms)
    if term is None:
        return None
    n = len(terms)
    pairs = zip(_below(term, n, probes).tolist(), probes, strict=True)
    return np.fromiter(
        (j if j < n and term(j) == probe else -1 for j, probe in pairs), np.int64, len(probes)
    )


def counted_analysis(terms: np.ndarray | LazyTerms) -> Analysis | None:
    """The analysis the compiled scanner counted ``terms`` under, or None when it did not
    count them."""
    counted = _counted(terms)
    return None if counted is None else counted.analysis


def counted_entries(terms: np.ndarray | LazyTerms) -> tuple[bool, np.ndarray] | None:
    """Whether the table :func:`count_terms` counted ``terms`` with is of UTF-8 text (else
    latin-1), and the entry of each term in it (int64, -1 for a term it did not count,
    :func:`counted_within`); None when no such table is kept beside ``terms``."""
    counted = _counted(terms)
    return None if counted is None else (counted.utf8, counted.entry)


def counted_orders(terms: np.ndarray | LazyTerms) -> np.ndarray | None:
    """The number of tokens of each of ``terms`` that the word scanner counted (``n`` of a
    word n-gram, which holds ``n - 1`` spaces), read from its table, and 0 for a term it did
    not count (:func:`counted_within`); None when ``terms`` were not counted by the word
    scanner."""
    counted = _counted(terms)
    if counted is None or counted.analysis.kind != "word":
        return None
    known = counted.entry >= 0
    orders = np.zeros(len(counted.entry), np.int64)
    orders[known] = counted.entries.order[counted.entry[known]]
    return orders


def _counted(terms: np.ndarray | LazyTerms) -> _Counted | None:
    counted = terms.origin if isinstance(terms, LazyTerms) else _COUNTED.get(terms)
    return counted if isinstance(counted, _Counted) else None


def count_known(
    texts: Sequence[str],
    analysis: Analysis,
    lookup: Callable[[bool], Lookup],
    n_columns: int,
    oov_column: int = -1,
    *,
    threads: int | None = None,
    utf8: bool = False,
) -> sp.csr_matrix:
    """Counts of the terms of ``texts`` over a fixed vocabulary: a term that is an entry of
    the table ``lookup(utf8)`` (for latin-1 or UTF-8 text) with a column counts there, any
    other term in ``oov_column``, or not at all when that is -1.

    What counting the terms (:func:`count_terms`) and then moving each term's counts to its
    column in the vocabulary gives, entry for entry: float64 counts, sorted indices, shape
    ``(len(texts), n_columns)``. ``threads`` as in :func:`count_terms`; ``utf8``: read the
    texts as UTF-8 even when latin-1 would hold them (for a table of UTF-8 text).
    """
    if len(texts) == 0:
        return _csr(np.zeros(0), np.zeros(0, np.int32), np.zeros(1), 0, n_columns)
    doc = _Encoded.of(texts, analysis.lowercase, utf8=utf8)
    table = lookup(doc.utf8)
    if table.utf8 != doc.utf8:
        raise ValueError("the lookup table is for the other encoding")
    n_threads, chunks = _plan(doc, threads)
    states = [_Known(table, n_columns, oov_column) for _ in range(n_threads)]
    buffer = _RowBuffer.of(_rooms(analysis, doc, chunks), chunks)
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
        hashed = _row_kernels.crc_columns(
            terms.arena, terms.start, terms.length, doc.utf8, width, _row_kernels.CRC_TABLE
        )
        columns.append(terms.of_entries(hashed))
    indptr, indices, data = _assemble(
        scanned, lambda rows: columns[rows.worker], n_threads, width, merge=True
    )
    return _csr(data, indices, indptr, len(texts), width)


# ---------------------------------------------------------------------------- input


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


_NO_STOPS: Lookup | None = None


def _no_stops() -> Lookup:
    global _NO_STOPS
    if _NO_STOPS is None:
        _NO_STOPS = Lookup.build([], np.zeros(0, np.int64), utf8=False)
    return _NO_STOPS


def _rooms(analysis: Analysis, doc: _Encoded, chunks: list[tuple[int, int]]) -> list[int]:
    """Row entries to make room for, per chunk, from the amount of text, so the arrays rarely
    grow (growing copies them and scans a document again): on 20 Newsgroups a distinct word
    of a post per ~12 bytes, a distinct word 1-2-gram per ~5, a character 2-4-gram per ~1.1.
    (The arrays are np.empty: pages never written are never touched.)"""
    per_bytes = 6 if analysis.kind == "word" else 3
    orders = analysis.high - analysis.low + 1
    return [
        max(1 << 10, int(doc.ends[b - 1] - doc.starts[a]) * orders // per_bytes) for a, b in chunks
    ]


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
    buffer = _RowBuffer.of(_rooms(analysis, doc, chunks), chunks)
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
