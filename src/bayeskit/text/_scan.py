"""Fast exact word counting: the default word analyzer of :class:`TextVectorizer`, compiled.

:func:`count_words` returns what ``TextVectorizer._count`` returns with ``analyzer="word"``,
``token_pattern=DEFAULT_TOKEN_PATTERN`` (``(?u)\\b\\w\\w+\\b``), ``ngram_range=(1, 1)`` and no
stop words: the sorted distinct terms and a CSR matrix of their counts, equal entry for entry.
It handles every ``str`` (any code point, lone surrogates included), so it needs no fallback.

Why the result is the same as ``re.findall`` on ``text.lower()`` (on ``text`` with
``lowercase=False``):

- **Tokens.** The pattern finds the maximal runs of two or more word characters, and CPython's
  ``re`` calls a character ``\\w`` when ``str.isalnum()`` is true or it is ``"_"``. The tables
  here are built from ``str.isalnum`` of the running Python, so they follow its Unicode version.
- **Lowercasing.** Text with a character beyond U+00FF is lowercased by ``str.lower`` itself,
  document by document (final sigma and U+0130 depend on context or grow). Latin-1 text is
  lowercased with a 256-entry table made from ``str.lower``, which maps latin-1 one-to-one into
  latin-1 (asserted below).
- **Order.** Python compares strings by code point; latin-1 bytes and UTF-8 bytes (with
  ``surrogatepass``) compare in the same order, so sorting the terms' bytes sorts the terms.

How: the documents are joined into one byte array (latin-1 when every character fits, a plain
copy; UTF-8 otherwise). The compiled scanner (:mod:`._scan_kernels`) finds tokens, looks them up
in a hash table and builds each document's CSR row in one pass. With two CPUs and enough text,
two threads scan halves of the documents (the kernels release the GIL) and the second half's
terms are merged into the first's. The terms are then sorted by 8-byte prefix keys and the rows
rewritten over the sorted term order, so every row's column indices come out sorted.

:func:`count_known` is the lookup-only variant for a fitted vocabulary: a :class:`Lookup`
(a hash table of the vocabulary's terms, built once) maps each token straight to its column,
so tokens never become ``str`` and no new term is stored.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _scan_kernels as kernels

#: Below this many bytes of text, one thread: a second one saves nothing (measured: even at
#: ~450 kB; 1.6x faster on the 22 MB of 20 Newsgroups).
PARALLEL_MIN_BYTES = 1 << 19


def _latin1_lower() -> np.ndarray:
    table = [chr(b).lower() for b in range(256)]
    # Both assumptions of the latin-1 route: one character in, one latin-1 character out.
    assert all(len(c) == 1 and ord(c) < 256 for c in table)
    return np.array([ord(c) for c in table], dtype=np.uint8)


_LATIN1_LOWER = _latin1_lower()
_LATIN1_WORD = np.array([chr(b).isalnum() or b == 0x5F for b in range(256)], dtype=np.uint8)


@functools.cache
def unicode_word_table() -> np.ndarray:
    """``uint8[0x110000]``: 1 for the code points ``re`` counts as ``\\w`` (``str.isalnum()``
    or ``"_"``). Built on first use (~70 ms), only for text beyond latin-1."""
    table = np.frombuffer(bytes(chr(c).isalnum() for c in range(0x110000)), np.uint8).copy()
    table[0x5F] = 1
    return table


def count_words(
    texts: Sequence[str], *, lowercase: bool = True, threads: int | None = None
) -> tuple[np.ndarray, sp.csr_matrix]:
    """Sorted distinct terms of ``texts`` and their count matrix over them.

    Parameters
    ----------
    texts : sequence of str
    lowercase : bool, default=True
        Lowercase (``str.lower``) each document before finding its tokens.
    threads : {1, 2}, optional
        Threads to count with; by default 2 when the machine has two CPUs and the text is at
        least ``PARALLEL_MIN_BYTES`` long. The result does not depend on it.

    Returns
    -------
    terms : ndarray of str (object dtype), sorted, distinct
    counts : csr_matrix of shape (len(texts), len(terms)), float64 counts, sorted indices

    Examples
    --------
    >>> terms, counts = count_words(["Free money, free!", "Lunch at noon?"])
    >>> terms.tolist()
    ['at', 'free', 'lunch', 'money', 'noon']
    >>> counts.toarray()
    array([[0., 2., 0., 1., 0.],
           [1., 0., 1., 0., 1.]])
    """
    if threads not in (None, 1, 2):
        raise ValueError(f"threads must be 1 or 2, not {threads!r}")
    n_docs = len(texts)
    if n_docs == 0:
        none = np.zeros(0, np.int64)
        return _result(np.zeros(0, object), np.zeros(0), none, np.zeros(1, np.int64), 0)
    text, utf8, starts, ends = _encode(texts, lowercase)
    is_word = unicode_word_table() if utf8 else _LATIN1_WORD
    two = (_n_threads(text.size) if threads is None else threads) == 2
    parts = _run(
        [
            functools.partial(_scan_part, text, utf8, is_word, starts[a:b], ends[a:b])
            for a, b in itertools.pairwise(_cuts(ends - starts, 2 if two else 1))
        ],
        two,
    )
    terms, indptr, indices, counts = _combine(parts)
    n_terms = terms.n

    # Sort the terms and make them str while grouping the entries by term; then write the
    # rows in sorted order.
    (colptr, rows, values), (order, names) = _run(
        [
            lambda: kernels.to_csc(indptr, indices, counts, n_terms),
            lambda: (_term_order(terms), _names(terms, utf8)),
        ],
        two,
    )
    out_indices, out_data = _rows_in_order(colptr, rows, values, order, indptr, two)
    return _result(names[order], out_data, out_indices, indptr, n_docs)


def _rows_in_order(
    colptr: np.ndarray,
    rows: np.ndarray,
    values: np.ndarray,
    order: np.ndarray,
    indptr: np.ndarray,
    two: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """CSR indices and data of entries grouped by column (``colptr``, ``rows``, ``values``),
    every row's columns visited in ``order`` so they come out sorted; with ``two``, each of
    two threads writes half of the rows."""
    nnz = rows.size
    out_indices = np.empty(nnz, np.int32)
    out_data = np.empty(nnz, np.float64)
    args = (colptr, rows, values, order, indptr, out_indices, out_data)
    mid = int(np.searchsorted(indptr, nnz // 2)) if two else indptr.size - 1  # first call's rows
    _run(
        [
            lambda: kernels.to_sorted_csr(*args, True, mid),
            lambda: kernels.to_sorted_csr(*args, False, mid),
        ],
        two,
    )
    return out_indices, out_data


def _names(terms: _Terms, utf8: bool) -> np.ndarray:
    """The terms as ``str`` (object array), in order of their ids. The arena holds them
    NUL-terminated in that order."""
    blob = terms.arena[: terms.used].tobytes().decode("utf-8" if utf8 else "latin-1")
    return np.array(blob.split("\x00")[:-1], dtype=object)


def _result(
    terms: np.ndarray, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, n_docs: int
) -> tuple[np.ndarray, sp.csr_matrix]:
    # The same constructor call as the Python path, so scipy picks the same index dtype.
    counts = sp.csr_matrix((data, indices, indptr), shape=(n_docs, len(terms)))
    counts.has_canonical_format = True  # sorted indices, no duplicates: true by construction
    return terms, counts


# ---------------------------------------------------------------------------- lookup only


@dataclass(frozen=True)
class Lookup:
    """A fixed vocabulary as a hash table over its terms' bytes in one encoding (the text's:
    latin-1 or UTF-8), for :func:`count_known`.

    Entry ``e`` (bytes ``arena[start[e]:start[e] + length[e]]``) counts in column
    ``column[e]``, or is dropped when that is -1 (a stop word: neither counted nor
    out-of-vocabulary).
    """

    utf8: bool
    table: np.ndarray  # int32 entry id per slot, -1 empty; a power of two, under half full
    hash: np.ndarray  # uint64 FNV-1a of each entry
    start: np.ndarray  # int64
    length: np.ndarray  # int64
    arena: np.ndarray  # uint8, the entries' bytes (each followed by a NUL byte)
    column: np.ndarray  # int64

    @classmethod
    def build(cls, terms: Sequence[str], columns: np.ndarray, *, utf8: bool) -> Lookup:
        """The table of ``terms`` (distinct) counting in ``columns``. Terms that no token can
        equal are left out: those holding a NUL (not a word character), and for latin-1 text
        those with a character beyond U+00FF."""
        columns = np.asarray(columns, np.int64)
        encoding = "utf-8" if utf8 else "latin-1"
        joined = "\x00".join(terms) + "\x00"
        blob = None
        if joined.count("\x00") == len(terms):  # no term holds a NUL
            with contextlib.suppress(UnicodeEncodeError):  # a term beyond latin-1
                blob = joined.encode(encoding, "surrogatepass")
        if blob is None:  # rare: leave out the terms no token can equal
            keep = np.fromiter(
                ("\x00" not in t and (utf8 or not t or max(t) <= "\xff") for t in terms),
                bool,
                len(terms),
            )
            terms = [t for t, k in zip(terms, keep, strict=True) if k]
            columns = columns[keep]
            blob = "".join(t + "\x00" for t in terms).encode(encoding, "surrogatepass")
        arena = np.frombuffer(blob, np.uint8)
        ends = np.flatnonzero(arena == 0)
        start = np.zeros(ends.size, np.int64)
        start[1:] = ends[:-1] + 1
        length = (ends - start).astype(np.int64)
        capacity = 16
        while capacity < 2 * (len(terms) + 1):
            capacity *= 2
        table, hashes = kernels.build_lookup(arena, start, length, capacity)
        return cls(utf8, table, hashes, start, length, arena, columns)


def count_known(
    texts: Sequence[str],
    lookup: Callable[[bool], Lookup],
    n_columns: int,
    oov_column: int = -1,
    *,
    lowercase: bool = True,
    threads: int | None = None,
) -> sp.csr_matrix:
    """Counts of the tokens of ``texts`` over a fixed vocabulary: a token that is an entry
    of the table ``lookup(utf8)`` (for latin-1 or UTF-8 text) counts in its column (or not at
    all: a stop word), any other token in ``oov_column``, or not at all when that is -1.

    What counting the terms (:func:`count_words`) and then moving each term's counts to its
    column in the vocabulary gives, entry for entry: float64 counts, sorted indices, shape
    ``(len(texts), n_columns)``. ``lowercase`` and ``threads`` as in :func:`count_words`.
    """
    if threads not in (None, 1, 2):
        raise ValueError(f"threads must be 1 or 2, not {threads!r}")
    n_docs = len(texts)
    if n_docs == 0:
        counts = sp.csr_matrix(
            (np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64)), shape=(0, n_columns)
        )
        counts.has_canonical_format = True
        return counts
    text, utf8, starts, ends = _encode(texts, lowercase)
    table = lookup(utf8)
    if table.utf8 != utf8:
        raise ValueError("the lookup table is for the other encoding")
    two = (_n_threads(text.size) if threads is None else threads) == 2
    is_word = unicode_word_table() if utf8 else _LATIN1_WORD
    parts = _run(
        [
            functools.partial(
                _lookup_part, text, table, is_word, starts[a:b], ends[a:b], n_columns, oov_column
            )
            for a, b in itertools.pairwise(_cuts(ends - starts, 2 if two else 1))
        ],
        two,
    )
    indptrs, indices = [parts[0][0]], [parts[0][1]]
    for part_indptr, part_indices, _ in parts[1:]:
        indptrs.append(part_indptr[1:] + indptrs[-1][-1])
        indices.append(part_indices)
    indptr = np.concatenate(indptrs) if len(parts) > 1 else indptrs[0]
    flat = np.concatenate(indices) if len(parts) > 1 else indices[0]
    values = np.concatenate([part[2] for part in parts]) if len(parts) > 1 else parts[0][2]

    # Sort every row's columns: group the entries by column, then write the rows back
    # visiting the columns in order.
    colptr, rows, grouped = kernels.to_csc(indptr, flat, values, n_columns)
    order = np.arange(n_columns)
    out_indices, out_data = _rows_in_order(colptr, rows, grouped, order, indptr, two)
    counts = sp.csr_matrix((out_data, out_indices, indptr), shape=(n_docs, n_columns))
    counts.has_canonical_format = True
    return counts


def _lookup_part(
    text: np.ndarray,
    lookup: Lookup,
    is_word: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    n_columns: int,
    oov_column: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR rows (columns unsorted) of consecutive documents over the fixed vocabulary."""
    n_docs = starts.size
    last_row = np.full(max(n_columns, 1), -1, np.int64)
    indptr = np.zeros(n_docs + 1, np.int64)
    size = max(1 << 10, int(ends[-1] - starts[0]) // 8)
    indices, counts = np.empty(size, np.int32), np.empty(size, np.int32)
    done = nnz = 0
    while True:
        done, nnz = kernels.lookup_scan(
            text, lookup.utf8, is_word, starts, ends, done, lookup.table, lookup.hash,
            lookup.start, lookup.length, lookup.arena, lookup.column, oov_column, last_row,
            indptr, indices, counts, nnz,
        )  # fmt: skip
        if done == n_docs:
            return indptr, indices[:nnz], counts[:nnz]
        need = nnz + int(ends[done] - starts[done] + 1) // 3
        size = max(2 * indices.size, need)
        indices, counts = _grown(indices, size), _grown(counts, size)


# ---------------------------------------------------------------------------- input


def _encode(texts: Sequence[str], lowercase: bool) -> tuple[np.ndarray, bool, Any, Any]:
    """(text bytes, whether UTF-8, byte offset where each document starts, where it ends).
    The bytes are read-only either way, so the kernels compile for one array type."""
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    try:
        raw = "".join(texts).encode("latin-1")  # a copy when every character fits
    except UnicodeEncodeError:
        pieces = [(t.lower() if lowercase else t).encode("utf-8", "surrogatepass") for t in texts]
        lengths = np.fromiter(map(len, pieces), np.int64, len(pieces))
        text = np.frombuffer(b"".join(pieces), np.uint8)
        utf8 = True
    else:
        text = np.frombuffer(raw, np.uint8)
        if lowercase:
            text = kernels.map_bytes(text, _LATIN1_LOWER)
            text.flags.writeable = False
        utf8 = False
    ends = np.cumsum(lengths)
    return text, utf8, ends - lengths, ends


def _n_threads(n_bytes: int) -> int:
    if n_bytes < PARALLEL_MIN_BYTES:
        return 1
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 if (cpus or 1) >= 2 else 1


def _cuts(sizes: np.ndarray, parts: int) -> list[int]:
    """Document boundaries splitting ``sizes`` into ``parts`` runs of about equal bytes."""
    total = np.cumsum(sizes)
    inner = [int(np.searchsorted(total, total[-1] * k / parts)) for k in range(1, parts)]
    return sorted({0, *inner, len(sizes)})  # fewer parts if one document is most of the text


def _run(calls: list[Callable[[], Any]], parallel: bool) -> list[Any]:
    """The results of ``calls``, in order. ``parallel``: run them at once, the first in this
    thread (only the compiled kernels, ``nogil``, actually overlap); exceptions propagate."""
    if not parallel:
        return [call() for call in calls]
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = calls[i]()
        except BaseException as exc:  # re-raised below, in the caller's thread
            errors.append(exc)

    others = [threading.Thread(target=run, args=(i,)) for i in range(1, len(calls))]
    for thread in others:
        thread.start()
    run(0)
    for thread in others:
        thread.join()
    if errors:
        raise errors[0]
    return results


# ---------------------------------------------------------------------------- terms


def _grown(a: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size, a.dtype)
    out[: a.size] = a
    return out


@dataclass
class _Terms:
    """The distinct terms of a part: hash table, per-term hash / sort key / bytes, arena."""

    table: np.ndarray  # int32 term id per slot, -1 empty; a power of two, at most half full
    hash: np.ndarray  # uint64
    key: np.ndarray  # uint64, bytes 0..8 big-endian
    start: np.ndarray  # int64, where the term's bytes start in the arena
    length: np.ndarray  # int64
    arena: np.ndarray  # uint8, the terms' bytes, each followed by a NUL byte
    n: int = 0  # terms
    used: int = 0  # arena bytes

    @classmethod
    def for_text(cls, n_bytes: int) -> _Terms:
        # Starting sizes from the amount of text (~1 term per 100 bytes on 20 Newsgroups);
        # reserve() doubles them when needed.
        capacity = 1 << max(10, min(20, (n_bytes // 64).bit_length()))
        return cls(
            table=np.full(2 * capacity, -1, np.int32),
            hash=np.empty(capacity, np.uint64),
            key=np.empty(capacity, np.uint64),
            start=np.empty(capacity, np.int64),
            length=np.empty(capacity, np.int64),
            arena=np.empty(max(1 << 12, n_bytes // 8), np.uint8),
        )

    def reserve(self, n_terms: int, n_bytes: int) -> None:
        """Make room for ``n_terms`` terms with ``n_bytes`` bytes in all."""
        if n_terms > self.hash.size:
            size = max(2 * self.hash.size, n_terms)
            for name in ("hash", "key", "start", "length"):
                setattr(self, name, _grown(getattr(self, name), size))
        if 2 * n_terms > self.table.size:
            slots = self.table.size
            while 2 * n_terms > slots:
                slots *= 2
            self.table = kernels.rehash(self.hash, self.n, slots)
        if n_bytes > self.arena.size:
            self.arena = _grown(self.arena, max(2 * self.arena.size, n_bytes))

    def merge(self, other: _Terms) -> np.ndarray:
        """Add ``other``'s terms; returns the id here of each of them."""
        self.reserve(self.n + other.n, self.used + other.used)
        mapping = np.empty(other.n, np.int32)
        self.n, self.used = kernels.merge_terms(
            self.table, self.hash, self.key, self.start, self.length, self.arena, self.n,
            self.used, other.hash, other.key, other.start, other.length, other.arena, other.n,
            mapping,
        )  # fmt: skip
        return mapping


@dataclass
class _Part:
    """CSR rows of consecutive documents over the part's own term ids."""

    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    terms: _Terms


def _scan_part(
    text: np.ndarray, utf8: bool, is_word: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> _Part:
    n_docs = starts.size
    n_bytes = int(ends[-1] - starts[0])
    terms = _Terms.for_text(n_bytes)
    last_row = np.empty(terms.hash.size, np.int64)
    indptr = np.zeros(n_docs + 1, np.int64)
    size = max(1 << 10, n_bytes // 8)  # entries: ~1 per 12 bytes on 20 Newsgroups
    indices, counts = np.empty(size, np.int32), np.empty(size, np.int32)
    nnz = done = 0
    resume = -1
    while True:
        done, resume, terms.n, terms.used, nnz, need = kernels.scan(
            text, utf8, is_word, starts, ends, done, resume, terms.table, terms.hash,
            terms.key, terms.start, terms.length, terms.arena, terms.n, terms.used, last_row,
            indptr, indices, counts, nnz,
        )  # fmt: skip
        if done == n_docs:
            return _Part(indptr, indices[:nnz], counts[:nnz], terms)
        # An array is full (a few times per call at most: each growth doubles).
        if nnz == indices.size:
            indices, counts = _grown(indices, 2 * nnz), _grown(counts, 2 * nnz)
        terms.reserve(terms.n + 1, terms.used + need)
        if last_row.size < terms.hash.size:
            last_row = _grown(last_row, terms.hash.size)


def _combine(parts: list[_Part]) -> tuple[_Terms, np.ndarray, np.ndarray, np.ndarray]:
    """One vocabulary and one CSR (over its term ids) from consecutive parts."""
    first = parts[0]
    if len(parts) == 1:
        return first.terms, first.indptr, first.indices, first.counts
    terms = first.terms
    indptrs, indices = [first.indptr], [first.indices]
    for part in parts[1:]:
        mapping = terms.merge(part.terms)
        indptrs.append(part.indptr[1:] + indptrs[-1][-1])
        indices.append(kernels.remap(part.indices, mapping))
    counts = np.concatenate([part.counts for part in parts])
    return terms, np.concatenate(indptrs), np.concatenate(indices), counts


def _term_order(terms: _Terms) -> np.ndarray:
    """Term ids in byte order of the terms (= Python's str order of the decoded terms).

    An argsort of the 8-byte prefix keys orders nearly everything. Runs of equal keys are then
    refined 8 bytes at a time, only for the terms still tied, with the length as last key: of
    two terms equal on a zero-padded block, the one ending inside it is a prefix of the other
    and sorts first (terms hold no NUL byte). Terms stay tied only while both go on.
    """
    n = terms.n
    keys = terms.key[:n]
    order = np.argsort(keys)
    ranked = keys[order]
    tied = ranked[1:] == ranked[:-1]  # tied[j]: order[j] and order[j + 1] tie
    where = np.arange(n)  # the positions in `order` being refined
    off = 0  # the block compared this round; round one redoes block 0 to apply lengths
    while tied.any():
        involved = np.zeros(where.size, bool)
        involved[1:] |= tied
        involved[:-1] |= tied
        starts_group = np.ones(where.size, bool)
        starts_group[1:] = ~tied
        group = np.cumsum(starts_group)[involved]
        where = where[involved]
        ids = order[where]
        block = kernels.keys_at(terms.arena, terms.start, terms.length, ids, off)
        length = terms.length[ids]
        perm = np.lexsort((length, block, group))
        order[where] = ids[perm]
        block, group, length = block[perm], group[perm], length[perm]
        off += 8
        longer = length > off
        tied = (block[1:] == block[:-1]) & (group[1:] == group[:-1]) & longer[1:] & longer[:-1]
    return order
