"""Compiled kernels of the word scanner (:mod:`bayeskit.text._scan` drives them).

The text is one byte array: latin-1 (one byte per character, already lowercased when asked)
or UTF-8 (``surrogatepass``). A word character is whatever ``is_word[code point]`` says; a
token is a maximal run of two or more of them, which is what ``(?u)\\b\\w\\w+\\b`` finds.

Terms live in a small open-addressing hash table (FNV-1a over the term's bytes, linear
probing). Two terms are the same only if their bytes are equal, so hash collisions never
merge terms. A term's bytes are copied once, when first seen, into an ``arena``, followed by a
NUL byte (no term holds one); ``term_start`` and ``term_len`` locate them there. The arena
thus lists the terms in order of their ids, and one decode and split on NUL makes them ``str``.
``term_key`` holds a term's first 8 bytes big-endian: most of the work of sorting them.

Every kernel is ``nogil``: the driver runs two of them at once in Python threads on disjoint
outputs (they only read shared inputs). :func:`bayeskit._jit.njit` keeps the compiled code
next to this file where it can (otherwise it compiles in each process). No kernel allocates or
grows arrays in its hot loop: rebinding an array variable inside a numba loop adds reference
counting per token (measured ~10x slower), so the scanner returns when an array is full and
the Python driver grows it and calls again.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@njit(nogil=True)
def map_bytes(buf: np.ndarray, table: np.ndarray) -> np.ndarray:  # pragma: no cover
    """``table[buf]``: lowercase latin-1 text with a 256-entry table."""
    out = np.empty_like(buf)
    for i in range(buf.size):
        out[i] = table[buf[i]]
    return out


@njit(nogil=True)
def _code_point(text: np.ndarray, i: int, utf8: bool) -> tuple[int, int]:  # pragma: no cover
    """The code point starting at byte ``i`` and its length in bytes. The driver made the
    bytes, so they are well-formed (surrogates included, as ``surrogatepass`` writes them)."""
    b = np.int64(text[i])
    if not utf8 or b < 0x80:
        return b, 1
    if b < 0xE0:
        return ((b & 0x1F) << 6) | (np.int64(text[i + 1]) & 0x3F), 2
    if b < 0xF0:
        return (
            ((b & 0x0F) << 12)
            | ((np.int64(text[i + 1]) & 0x3F) << 6)
            | (np.int64(text[i + 2]) & 0x3F)
        ), 3
    return (
        ((b & 0x07) << 18)
        | ((np.int64(text[i + 1]) & 0x3F) << 12)
        | ((np.int64(text[i + 2]) & 0x3F) << 6)
        | (np.int64(text[i + 3]) & 0x3F)
    ), 4


@njit(nogil=True)
def _same(a: np.ndarray, sa: int, b: np.ndarray, sb: int, n: int) -> bool:  # pragma: no cover
    """Whether ``a[sa:sa+n]`` equals ``b[sb:sb+n]``, without making slices."""
    for k in range(n):  # noqa: SIM110 - a plain loop is what numba compiles best
        if a[sa + k] != b[sb + k]:
            return False
    return True


@njit(nogil=True)
def _key8(buf: np.ndarray, start: int, length: int, off: int) -> np.uint64:  # pragma: no cover
    """Bytes ``off .. off+8`` of a term as a big-endian integer, zero-padded: integer order
    is byte order, and a term that ends in the block sorts before its extensions (terms
    hold no NUL byte)."""
    key = np.uint64(0)
    for j in range(8):
        key = key << np.uint64(8)
        if off + j < length:
            key |= np.uint64(buf[start + off + j])
    return key


@njit(nogil=True)
def rehash(term_hash: np.ndarray, n_terms: int, capacity: int) -> np.ndarray:  # pragma: no cover
    """A fresh table of ``capacity`` slots (a power of two) holding terms ``0 .. n_terms``."""
    table = np.full(capacity, -1, np.int32)
    mask = np.uint64(capacity - 1)
    for t in range(n_terms):
        p = term_hash[t] & mask
        while table[p] >= 0:
            p = (p + np.uint64(1)) & mask
        table[p] = t
    return table


@njit(nogil=True)
def scan(
    text: np.ndarray,
    utf8: bool,
    is_word: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    first: int,
    resume: int,
    table: np.ndarray,
    term_hash: np.ndarray,
    term_key: np.ndarray,
    term_start: np.ndarray,
    term_len: np.ndarray,
    arena: np.ndarray,
    n_terms: int,
    used: int,
    last_row: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    nnz: int,
) -> tuple[int, int, int, int, int, int]:  # pragma: no cover
    """Count the tokens of documents ``first, first+1, ...`` (bytes ``starts[d] .. ends[d]``
    of ``text``; document ``first`` from byte ``resume`` if that is >= 0) into CSR rows:
    ``indices`` are term ids in order of first occurrence in the row, ``counts`` their counts,
    ``indptr[d + 1]`` the end of row ``d``.

    Returns ``(document, byte, n_terms, used arena bytes, nnz, need)``. When done, document
    is ``len(starts)``. Otherwise an array is full: ``byte`` is where the token that did not
    fit starts and ``need`` the arena bytes it takes; the driver grows the full array and
    calls again from there (a term already added is then found, not added twice; a count is
    never made twice).
    """
    n_docs = starts.size
    mask = np.uint64(table.size - 1)
    for d in range(first, n_docs):
        i = resume if d == first and resume >= 0 else starts[d]
        end = ends[d]
        row0 = indptr[d]  # set when row d - 1 was finished (or 0)
        while i < end:
            cp, width = _code_point(text, i, utf8)
            if is_word[cp] == 0:
                i += width
                continue
            # A run of word characters: hash its bytes while finding its end.
            s = i
            n_chars = 0
            h = FNV_OFFSET
            while True:
                for k in range(width):
                    h = (h ^ np.uint64(text[i + k])) * FNV_PRIME
                i += width
                n_chars += 1
                if i >= end:
                    break
                cp, width = _code_point(text, i, utf8)
                if is_word[cp] == 0:
                    break
            if n_chars < 2:
                continue
            length = i - s
            # Exact lookup: same hash, same length, same bytes.
            pos = h & mask
            while True:
                t = table[pos]
                if t < 0:
                    break
                if (
                    term_hash[t] == h
                    and term_len[t] == length
                    and _same(arena, term_start[t], text, s, length)
                ):
                    break
                pos = (pos + np.uint64(1)) & mask
            if t < 0:  # a new term: its bytes and sort key are taken while still in cache
                if (
                    n_terms == term_hash.size
                    or 2 * (n_terms + 1) > table.size
                    or used + length + 1 > arena.size
                ):
                    return d, s, n_terms, used, nnz, length + 1
                t = n_terms
                n_terms += 1
                table[pos] = t
                term_hash[t] = h
                term_key[t] = _key8(text, s, length, 0)
                term_start[t] = used
                term_len[t] = length
                for k in range(length):
                    arena[used + k] = text[s + k]
                arena[used + length] = 0
                used += length + 1
                last_row[t] = -1
            # last_row packs (row << 32 | position in the row) of the term's last entry: one
            # memory access tells whether this row has it already, and where.
            seen = last_row[t]
            if (seen >> 32) == d:
                counts[row0 + (seen & 0xFFFFFFFF)] += 1
            else:
                if nnz == indices.size:
                    return d, s, n_terms, used, nnz, 0
                last_row[t] = (np.int64(d) << 32) | (nnz - row0)
                indices[nnz] = t
                counts[nnz] = 1
                nnz += 1
        indptr[d + 1] = nnz
    return n_docs, 0, n_terms, used, nnz, 0


@njit(nogil=True)
def merge_terms(
    table: np.ndarray,
    term_hash: np.ndarray,
    term_key: np.ndarray,
    term_start: np.ndarray,
    term_len: np.ndarray,
    arena: np.ndarray,
    n_terms: int,
    used: int,
    b_hash: np.ndarray,
    b_key: np.ndarray,
    b_start: np.ndarray,
    b_len: np.ndarray,
    b_arena: np.ndarray,
    n_b: int,
    mapping: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover
    """Add another part's terms (``b_*``) to these (the arrays have room): ``mapping[u]`` is
    the id here of the other part's term ``u``. Returns ``(n_terms, used)``."""
    mask = np.uint64(table.size - 1)
    for u in range(n_b):
        h = b_hash[u]
        length = b_len[u]
        pos = h & mask
        while True:
            t = table[pos]
            if t < 0:
                break
            if (
                term_hash[t] == h
                and term_len[t] == length
                and _same(arena, term_start[t], b_arena, b_start[u], length)
            ):
                break
            pos = (pos + np.uint64(1)) & mask
        if t < 0:
            t = n_terms
            n_terms += 1
            table[pos] = t
            term_hash[t] = h
            term_key[t] = b_key[u]
            term_start[t] = used
            term_len[t] = length
            for k in range(length + 1):  # with its NUL
                arena[used + k] = b_arena[b_start[u] + k]
            used += length + 1
        mapping[u] = t
    return n_terms, used


@njit(nogil=True)
def keys_at(
    arena: np.ndarray, term_start: np.ndarray, term_len: np.ndarray, ids: np.ndarray, off: int
) -> np.ndarray:  # pragma: no cover
    """Sort keys of bytes ``off .. off+8`` of terms ``ids``."""
    out = np.empty(ids.size, np.uint64)
    for g in range(ids.size):
        out[g] = _key8(arena, term_start[ids[g]], term_len[ids[g]], off)
    return out


@njit(nogil=True)
def remap(indices: np.ndarray, mapping: np.ndarray) -> np.ndarray:  # pragma: no cover
    """``mapping[indices]`` as int32."""
    out = np.empty(indices.size, np.int32)
    for k in range(indices.size):
        out[k] = mapping[indices[k]]
    return out


@njit(nogil=True)
def to_csc(
    indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """The CSR entries grouped by term id (a counting sort): ``colptr``, rows and counts.
    Within a term, rows come out increasing."""
    nnz = indices.size
    colptr = np.zeros(n_terms + 1, np.int64)
    for k in range(nnz):
        colptr[indices[k] + 1] += 1
    for c in range(n_terms):
        colptr[c + 1] += colptr[c]
    fill = colptr[:-1].copy()
    rows = np.empty(nnz, np.int32)
    values = np.empty(nnz, counts.dtype)
    for r in range(indptr.size - 1):
        for k in range(indptr[r], indptr[r + 1]):
            p = fill[indices[k]]
            fill[indices[k]] = p + 1
            rows[p] = r
            values[p] = counts[k]
    return colptr, rows, values


@njit(nogil=True)
def to_sorted_csr(
    colptr: np.ndarray,
    rows: np.ndarray,
    values: np.ndarray,
    order: np.ndarray,
    indptr: np.ndarray,
    out_indices: np.ndarray,
    out_data: np.ndarray,
    low: bool,
    mid: int,
) -> None:  # pragma: no cover
    """Write the CSR back with column ``j`` = the term ``order[j]``, visiting columns in
    order so that every row's indices come out sorted. ``low``: rows below ``mid``, filled
    front to back; otherwise rows from ``mid`` on, filled back to front. The two calls
    write disjoint rows, so they run at once in two threads."""
    n = order.size
    if low:
        fill = indptr[:-1].copy()
        for j in range(n):
            c = order[j]
            p = colptr[c]
            e = colptr[c + 1]
            while p < e and rows[p] < mid:
                q = fill[rows[p]]
                fill[rows[p]] = q + 1
                out_indices[q] = j
                out_data[q] = values[p]
                p += 1
    else:
        fill = indptr[1:].copy()
        for j in range(n - 1, -1, -1):
            c = order[j]
            p = colptr[c + 1] - 1
            s = colptr[c]
            while p >= s and rows[p] >= mid:
                q = fill[rows[p]] - 1
                fill[rows[p]] = q
                out_indices[q] = j
                out_data[q] = values[p]
                p -= 1


# ---------------------------------------------------------------------------- lookup only


@njit(nogil=True)
def build_lookup(
    arena: np.ndarray, entry_start: np.ndarray, entry_len: np.ndarray, capacity: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """A hash table of fixed entries (bytes ``arena[entry_start[e]:][:entry_len[e]]``,
    distinct): ``(table, hashes)``, ``table`` of ``capacity`` slots (a power of two, more
    than twice the entries) holding entry ids, -1 when empty. Same hash and probing as
    :func:`scan`, so :func:`lookup_scan` finds a token's entry the way :func:`scan` finds
    its term."""
    n = entry_start.size
    hashes = np.empty(n, np.uint64)
    table = np.full(capacity, -1, np.int32)
    mask = np.uint64(capacity - 1)
    for e in range(n):
        h = FNV_OFFSET
        for k in range(entry_start[e], entry_start[e] + entry_len[e]):
            h = (h ^ np.uint64(arena[k])) * FNV_PRIME
        hashes[e] = h
        p = h & mask
        while table[p] >= 0:
            p = (p + np.uint64(1)) & mask
        table[p] = e
    return table, hashes


@njit(nogil=True)
def lookup_scan(
    text: np.ndarray,
    utf8: bool,
    is_word: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    first: int,
    table: np.ndarray,
    entry_hash: np.ndarray,
    entry_start: np.ndarray,
    entry_len: np.ndarray,
    arena: np.ndarray,
    entry_column: np.ndarray,
    oov_column: int,
    last_row: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    nnz: int,
) -> tuple[int, int]:  # pragma: no cover
    """Count the tokens of documents ``first, first+1, ...`` straight into columns of a
    fixed vocabulary: a token found as entry ``e`` counts in column ``entry_column[e]``
    (not at all when that is -1: a stop word), any other token in ``oov_column`` (not at
    all when that is -1). No term is added and no token's bytes are copied.

    Rows are written as in :func:`scan` (columns in order of first occurrence in the row);
    ``last_row`` has one slot per column. A document of ``L`` bytes has at most
    ``(L + 1) // 3`` tokens, so the kernel returns ``(document, nnz)`` before a document
    that might not fit in ``indices``; the driver grows it and calls again from there.
    Returns ``(len(starts), nnz)`` when done.
    """
    n_docs = starts.size
    mask = np.uint64(table.size - 1)
    for d in range(first, n_docs):
        i = starts[d]
        end = ends[d]
        if nnz + (end - i + 1) // 3 > indices.size:
            return d, nnz
        row0 = nnz
        while i < end:
            cp, width = _code_point(text, i, utf8)
            if is_word[cp] == 0:
                i += width
                continue
            # The same word loop as in scan(), written out again on purpose: an inlined
            # helper returning (start, stop, hash, length) measured 30 % slower on 20NG.
            s = i
            n_chars = 0
            h = FNV_OFFSET
            while True:
                for k in range(width):
                    h = (h ^ np.uint64(text[i + k])) * FNV_PRIME
                i += width
                n_chars += 1
                if i >= end:
                    break
                cp, width = _code_point(text, i, utf8)
                if is_word[cp] == 0:
                    break
            if n_chars < 2:
                continue
            length = i - s
            pos = h & mask
            col = oov_column
            while True:
                e = table[pos]
                if e < 0:
                    break
                if (
                    entry_hash[e] == h
                    and entry_len[e] == length
                    and _same(arena, entry_start[e], text, s, length)
                ):
                    col = entry_column[e]
                    break
                pos = (pos + np.uint64(1)) & mask
            if col < 0:
                continue
            seen = last_row[col]
            if (seen >> 32) == d:
                counts[row0 + (seen & 0xFFFFFFFF)] += 1
            else:
                last_row[col] = (np.int64(d) << 32) | (nnz - row0)
                indices[nnz] = col
                counts[nnz] = 1
                nnz += 1
        indptr[d + 1] = nnz
    return n_docs, nnz


@njit(nogil=True)
def remap_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    column: np.ndarray,
    oov_column: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """CSR rows with entry ``k`` moved to column ``column[indices[k]]``, dropped where that
    is -1, and every other entry summed into one ``oov_column`` entry at the end of its row
    (when ``oov_column >= 0``). ``column`` must increase where it is not -1 and
    ``oov_column`` exceed it, so sorted rows stay sorted and distinct."""
    n_rows = indptr.size - 1
    out_indptr = np.zeros(n_rows + 1, np.int64)
    nnz = 0
    for r in range(n_rows):
        oov = False
        for k in range(indptr[r], indptr[r + 1]):
            if column[indices[k]] >= 0:
                nnz += 1
            else:
                oov = True
        if oov and oov_column >= 0:
            nnz += 1
        out_indptr[r + 1] = nnz
    out_indices = np.empty(nnz, np.int32)
    out_data = np.empty(nnz, data.dtype)
    q = 0
    for r in range(n_rows):
        oov = False
        total = 0.0
        for k in range(indptr[r], indptr[r + 1]):
            c = column[indices[k]]
            if c >= 0:
                out_indices[q] = c
                out_data[q] = data[k]
                q += 1
            else:
                oov = True
                total += data[k]
        if oov and oov_column >= 0:
            out_indices[q] = oov_column
            out_data[q] = total
            q += 1
    return out_indptr, out_indices, out_data


@njit(nogil=True)
def column_totals(
    indices: np.ndarray, data: np.ndarray, n_columns: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Entries and summed (whole-number) values per column of a sparse matrix, as int64."""
    entries = np.zeros(n_columns, np.int64)
    totals = np.zeros(n_columns, np.int64)
    for k in range(indices.size):
        entries[indices[k]] += 1
        totals[indices[k]] += np.int64(data[k])
    return entries, totals
