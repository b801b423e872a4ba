"""Compiled scanners of the text (:mod:`bayeskit.text._scan` drives them): a document's bytes
into tokens, word n-grams and character n-grams, each counted into the document's CSR row.

How entries, rows, blocks and growth work, and the helpers inlined here, are in
:mod:`._scan_entries`. Status of a call: ``DONE``, ``ROWS_FULL`` (the driver grows the rows and
calls again from that document), ``TABLES_FULL`` (the tables or the arena).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit, prefetch
from ._scan_entries import (
    PREFETCH_AHEAD,
    SEED,
    SPACE,
    U32,
    bytes_entry,
    char_width,
    code_point,
    column_of,
    find_bytes,
    finish_hash,
    hash_at,
    latin1_runs,
    next_token,
    pair_entry,
    pair_hash,
    push_byte,
    row_add,
)

DONE, ROWS_FULL, TABLES_FULL = 0, 1, 2


@njit(nogil=True, inline="always", _nrt=False)
def _word_ngrams(
    insert: bool,
    m: int,
    carried: bool,
    low: int,
    high: int,
    grams: np.ndarray,
    pairs: np.ndarray,
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    sizes: np.ndarray,
    column: np.ndarray,
    oov: int,
    last: np.ndarray,
    visit: int,
    row0: int,
    nnz: int,
    indices: np.ndarray,
    counts: np.ndarray,
) -> int:  # pragma: no cover
    """Count the word n-grams ending at the tokens ``grams[0, 1:m]`` of a block (the entries
    of consecutive tokens of one document; ``grams[0, 0]`` is the token before them) in the
    row that starts at ``row0``; ``grams[1]`` and ``grams[2]`` get the bigram and trigram
    entries ending at each token. ``carried``: the block's first token is not the document's
    first (then ``grams[1, 0]`` is the bigram ending at it, and a trigram ends at token 1).

    The new ``nnz``; -1 when ``indices`` is full, -2 when the tables are. Done in passes over
    the block, each asking for the memory it will read :data:`PREFETCH_AHEAD` n-grams ahead:
    the probes of a large table then overlap, where found one at a time between tokens each
    waited for its own (on 20 Newsgroups 1-2-grams, most of the scan's time)."""
    mask = np.uint64(pairs.shape[0] - 1)
    for i in range(1, m):
        ahead = i + PREFETCH_AHEAD
        if ahead < m and grams[0, ahead - 1] >= 0 and grams[0, ahead] >= 0:
            pk = (np.uint64(grams[0, ahead - 1]) << U32) | np.uint64(grams[0, ahead])
            prefetch(pairs, np.int64(pair_hash(pk) & mask))
        b = pair_entry(
            insert, grams[0, i - 1], grams[0, i], 2, pairs, e_hash, e_key, e_start, e_len,
            e_left, e_right, e_order, sizes, last,
        )  # fmt: skip
        if b == -2:
            return -2
        grams[1, i] = b
    first_trigram = 1 if carried else 2
    if high > 2:
        for i in range(first_trigram, m):
            c = pair_entry(
                insert, grams[1, i - 1], grams[0, i], 3, pairs, e_hash, e_key, e_start, e_len,
                e_left, e_right, e_order, sizes, last,
            )  # fmt: skip
            if c == -2:
                return -2
            grams[2, i] = c
    for i in range(1, m):
        ahead = i + PREFETCH_AHEAD
        if ahead < m:
            col = column_of(insert, grams[1, ahead], column, oov)
            if col >= 0:
                prefetch(last, col)
        if low <= 2:
            col = column_of(insert, grams[1, i], column, oov)
            if col >= 0:
                nnz = row_add(col, last, visit, row0, nnz, indices, counts)
                if nnz < 0:
                    return -1
        if high > 2 and i >= first_trigram:
            col = column_of(insert, grams[2, i], column, oov)
            if col >= 0:
                nnz = row_add(col, last, visit, row0, nnz, indices, counts)
                if nnz < 0:
                    return -1
    return nnz


@njit(nogil=True, inline="always", _nrt=False)
def _pend(
    pending: np.ndarray,
    p: int,
    hf: np.uint64,
    key8: np.uint64,
    s: int,
    nb: int,
    tokens: np.ndarray,
    token_mask: np.uint64,
) -> None:  # pragma: no cover
    """Hold a hashed token in ``pending[:, p]`` (hash, key, start, length) and ask for its
    ``tokens`` slot, which the scanner reads a block of tokens later."""
    prefetch(tokens, np.int64(hf & token_mask))
    pending[0, p] = hf
    pending[1, p] = key8
    pending[2, p] = np.uint64(s)
    pending[3, p] = np.uint64(nb)


@njit(nogil=True, _nrt=False)
def scan_words(
    text: np.ndarray,
    utf8: bool,
    lower: np.ndarray,
    classes: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    first: int,
    min_chars: int,
    joined: bool,
    low: int,
    high: int,
    stop_tokens: np.ndarray,
    stop_start: np.ndarray,
    stop_arena: np.ndarray,
    insert: bool,
    tokens: np.ndarray,
    pairs: np.ndarray,
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    arena: np.ndarray,
    sizes: np.ndarray,
    column: np.ndarray,
    oov: int,
    last: np.ndarray,
    visit: int,
    grams: np.ndarray,
    pending: np.ndarray,
    bounds: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
) -> tuple[int, int, int, int]:  # pragma: no cover
    """Rows of documents ``first, first + 1, ...`` (bytes ``starts[d]:ends[d]`` of ``text``)
    under the word analyzer: tokens are maximal runs of at least ``min_chars`` word characters
    (``\\b\\w\\w+\\b`` or ``\\b\\w+\\b``; ``joined``: runs of token characters trimmed to
    word characters at both ends), tokens found in the stop table are dropped, and the
    terms are the ``low``..``high``-grams (``high`` <= 3) of the tokens left.

    ``insert``: new entries are added and rows hold entry ids. Otherwise the tables are a
    fixed vocabulary and rows hold ``column`` / ``oov`` columns. Returns
    ``(document, status, need, visit)``; see the module docstring."""
    n_docs = starts.size
    check_stop = stop_tokens.shape[0] > 1
    latin1 = not utf8 and not joined
    fold = lower[0x41] != 0x41  # latin-1 lowercasing, or the identity
    token_mask = np.uint64(tokens.shape[0] - 1)
    for d in range(first, n_docs):
        i = starts[d]
        end = ends[d]
        visit += 1
        row0 = indptr[d]
        nnz = row0
        m = 0  # tokens waiting in grams[0] for their n-grams
        carried = False  # whether grams[:, 0] is the last token of an earlier block
        while True:
            # A block of tokens hashed, each one's table slot asked for as soon as it is known
            # (pending[:, :p]: hash, key, start, length).
            p = 0
            if latin1:
                # The common case, one byte per character and no joiners: a byte's class is
                # that of its lowercase (checked by the driver). Token edges found without a
                # branch per byte, then each token hashed eight bytes at a time.
                i, n_runs = latin1_runs(text, classes, i, end, bounds)
                for k in range(n_runs):
                    s = bounds[0, k]
                    nb = bounds[1, k] - s
                    hf, key8 = hash_at(text, s, nb, fold)
                    _pend(pending, p, hf, key8, s, nb, tokens, token_mask)
                    p += np.int64(nb >= min_chars)  # runs too short are overwritten
            else:
                while p < pending.shape[1] and i < end:
                    s, i, h, acc, nb, key = next_token(
                        text, utf8, lower, classes, i, end, min_chars, joined
                    )
                    if s >= 0:
                        hf, key8 = finish_hash(h, acc, nb, key)
                        _pend(pending, p, hf, key8, s, nb, tokens, token_mask)
                        p += 1
            if p > 0:
                # Their entries, found or added now that their slots were asked for; stop
                # words dropped; unigrams counted, and the tokens gathered for their n-grams.
                for k in range(p):
                    hf = pending[0, k]
                    key8 = pending[1, k]
                    s = np.int64(pending[2, k])
                    nb = np.int64(pending[3, k])
                    if check_stop:
                        _, stop = find_bytes(
                            stop_tokens, hf, key8, nb, stop_arena, stop_start, text, lower, s
                        )
                        if stop >= 0:
                            continue
                    t = bytes_entry(
                        insert, hf, key8, nb, text, lower, s, tokens, e_hash, e_key, e_start,
                        e_len, e_left, e_right, e_order, arena, sizes, last,
                    )  # fmt: skip
                    if t == -2:
                        return d, TABLES_FULL, nb + 1, visit
                    if low == 1:
                        col = column_of(insert, t, column, oov)
                        if col >= 0:
                            nnz = row_add(col, last, visit, row0, nnz, indices, counts)
                            if nnz < 0:
                                return d, ROWS_FULL, 0, visit
                    if high > 1:
                        if m == grams.shape[1]:
                            nnz = _word_ngrams(
                                insert, m, carried, low, high, grams, pairs, e_hash, e_key,
                                e_start, e_len, e_left, e_right, e_order, sizes, column, oov,
                                last, visit, row0, nnz, indices, counts,
                            )  # fmt: skip
                            if nnz < 0:
                                return d, ROWS_FULL if nnz == -1 else TABLES_FULL, 0, visit
                            for q in range(3):  # the n-grams of the next block go on from it
                                grams[q, 0] = grams[q, m - 1]
                            m = 1
                            carried = True
                        grams[0, m] = t
                        m += 1
            if i >= end:
                break
        if m > 1:
            nnz = _word_ngrams(
                insert, m, carried, low, high, grams, pairs, e_hash, e_key, e_start, e_len,
                e_left, e_right, e_order, sizes, column, oov, last, visit, row0, nnz, indices,
                counts,
            )  # fmt: skip
            if nnz < 0:
                return d, ROWS_FULL if nnz == -1 else TABLES_FULL, 0, visit
        indptr[d + 1] = nnz
    return n_docs, DONE, 0, visit


@njit(nogil=True, _nrt=False)
def _normalize(
    text: np.ndarray,
    s: int,
    e: int,
    utf8: bool,
    lower: np.ndarray,
    classes: np.ndarray,
    out: np.ndarray,
    wb: bool,
) -> int:  # pragma: no cover
    """Write the lowered document ``text[s:e]`` to ``out`` with scikit-learn's whitespace
    rule for character n-grams; return its length in bytes.

    ``char``: a run of two or more whitespace characters becomes one space (``\\s\\s+``), a
    single one stays. ``char_wb``: every run becomes one space, and a space is put before the
    first word and after the last, so each word is found with its padding around it."""
    n = 0
    run = 0  # whitespace characters in the current run
    run_at = 0  # where the run's first character was written
    if wb:
        out[0] = 0x20
        n = 1
    i = s
    while i < e:
        cp, width = code_point(text, lower, i, utf8)
        if classes[cp] & SPACE:
            if wb:
                if out[n - 1] != 0x20:
                    out[n] = 0x20
                    n += 1
            else:
                if run == 0:
                    run_at = n
                    for k in range(width):
                        out[n + k] = lower[text[i + k]]
                    n += width
                elif run == 1:
                    out[run_at] = 0x20
                    n = run_at + 1
                run += 1
        else:
            run = 0
            for k in range(width):
                out[n + k] = lower[text[i + k]]
            n += width
        i += width
    if wb and out[n - 1] != 0x20:
        out[n] = 0x20
        n += 1
    return n


@njit(nogil=True, _nrt=False)
def scan_chars(
    text: np.ndarray,
    utf8: bool,
    lower: np.ndarray,
    classes: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    first: int,
    low: int,
    high: int,
    wb: bool,
    scratch: np.ndarray,
    identity: np.ndarray,
    insert: bool,
    tokens: np.ndarray,
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    arena: np.ndarray,
    sizes: np.ndarray,
    column: np.ndarray,
    oov: int,
    last: np.ndarray,
    visit: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
) -> tuple[int, int, int, int]:  # pragma: no cover
    """Rows of documents ``first, ...`` under the ``char`` analyzer (every ``low``..``high``
    characters of the normalized document) or, with ``wb``, ``char_wb`` (n-grams of each word
    padded with a space on both sides; a padded word of at most ``high`` characters also
    counts once as a whole, as scikit-learn does). ``scratch`` holds the longest document
    normalized (see :func:`_normalize`). Otherwise as :func:`scan_words`."""
    n_docs = starts.size
    for d in range(first, n_docs):
        visit += 1
        row0 = indptr[d]
        nnz = row0
        n = _normalize(text, starts[d], ends[d], utf8, lower, classes, scratch, wb)
        a, b = 0, n  # the span whose n-grams are counted: the document, or one padded word
        while a < b:
            if wb:
                # The next word: a run of non-spaces, with the spaces around it.
                w = a
                while w < n and scratch[w] == 0x20:
                    w += 1
                if w >= n:
                    break
                z = w
                while scratch[z] != 0x20:
                    z += 1
                a, b = w - 1, z + 1
            size = b - a  # characters in the span
            if utf8:
                size = 0
                for k in range(a, b):
                    if scratch[k] & 0xC0 != 0x80:
                        size += 1
            o = a
            index = 0  # character index of o in the span
            while o < b:
                h, acc, nb, key = SEED, np.uint64(0), 0, np.uint64(0)
                p = o
                for m in range(1, min(high, size - index) + 1):
                    width = char_width(scratch[p]) if utf8 else 1
                    for k in range(width):
                        h, acc, nb, key = push_byte(h, acc, nb, key, scratch[p + k])
                    p += width
                    if (m >= low and (not wb or m < size)) or (wb and index == 0 and m == size):
                        hf, key8 = finish_hash(h, acc, nb, key)
                        e = bytes_entry(
                            insert, hf, key8, nb, scratch, identity, o, tokens, e_hash, e_key,
                            e_start, e_len, e_left, e_right, e_order, arena, sizes, last,
                        )  # fmt: skip
                        if e == -2:
                            return d, TABLES_FULL, nb + 1, visit
                        col = column_of(insert, e, column, oov)
                        if col >= 0:
                            nnz = row_add(col, last, visit, row0, nnz, indices, counts)
                            if nnz < 0:
                                return d, ROWS_FULL, 0, visit
                o += char_width(scratch[o]) if utf8 else 1
                index += 1
            if not wb:
                break
            a = b - 1  # the closing space opens the next padded word
        indptr[d + 1] = nnz
    return n_docs, DONE, 0, visit
