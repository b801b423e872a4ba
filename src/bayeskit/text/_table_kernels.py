"""Compiled kernels of the vocabulary tables (:mod:`bayeskit.text._tables` drives them): growing
and merging the scanners' tables, building a fitted vocabulary, spelling entries back into
bytes, and ordering terms (:mod:`._scan_entries` says what an entry is).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit, prefetch
from ._scan_entries import (
    EMPTY,
    ONE,
    PREFETCH_AHEAD,
    SEED,
    U8,
    U32,
    bytes_entry,
    finish_hash,
    pair_entry,
    pair_hash,
    push_byte,
)


@njit(nogil=True)
def rehash(
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_len: np.ndarray,
    e_order: np.ndarray,
    n: int,
    slots: int,
    of_pairs: bool,
) -> np.ndarray:  # pragma: no cover
    """A fresh ``tokens`` (or, with ``of_pairs``, ``pairs``) table of ``slots`` (a power of
    two) holding those of entries ``0 .. n``."""
    table = np.zeros((slots, 2), np.uint64)
    mask = np.uint64(slots - 1)
    for e in range(n):
        if (e_order[e] > 1) != of_pairs:
            continue
        p = e_hash[e] & mask
        while table[p, 1] != EMPTY:
            p = (p + ONE) & mask
        table[p, 0] = e_key[e]
        if of_pairs:
            table[p, 1] = np.uint64(e + 1)
        else:
            table[p, 1] = (np.uint64(e_len[e]) << U32) | np.uint64(e)
    return table


@njit(nogil=True, _nrt=False)
def merge_entries(
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
    last: np.ndarray,
    b_hash: np.ndarray,
    b_key: np.ndarray,
    b_start: np.ndarray,
    b_len: np.ndarray,
    b_left: np.ndarray,
    b_right: np.ndarray,
    b_order: np.ndarray,
    b_arena: np.ndarray,
    n_b: int,
    mapping: np.ndarray,
    identity: np.ndarray,
) -> None:  # pragma: no cover
    """Add another part's entries (``b_*``) to these (the arrays have room): ``mapping[u]``
    is the id here of the other part's entry ``u``. Entries are visited in order of creation,
    so the parts of a pair are mapped before it. ``identity``: ``arange(256)`` as uint8 (an
    argument, so that the kernel allocates nothing and runs without numba's runtime).
    Each entry's slot is asked for :data:`PREFETCH_AHEAD` entries ahead (a pair's when its
    parts are mapped by then), so the probes of a large table overlap."""
    token_mask = np.uint64(tokens.shape[0] - 1)
    pair_mask = np.uint64(pairs.shape[0] - 1)
    for u in range(n_b):
        ahead = u + PREFETCH_AHEAD
        if ahead < n_b:
            if b_order[ahead] == 1:
                prefetch(tokens, np.int64(b_hash[ahead] & token_mask))
            elif b_left[ahead] < u and b_right[ahead] < u:
                pk = (np.uint64(mapping[b_left[ahead]]) << U32) | np.uint64(mapping[b_right[ahead]])
                prefetch(pairs, np.int64(pair_hash(pk) & pair_mask))
        if b_order[u] == 1:
            mapping[u] = bytes_entry(
                True, b_hash[u], b_key[u], b_len[u], b_arena, identity, b_start[u], tokens,
                e_hash, e_key, e_start, e_len, e_left, e_right, e_order, arena, sizes, last,
            )  # fmt: skip
        else:
            mapping[u] = pair_entry(
                True, mapping[b_left[u]], mapping[b_right[u]], b_order[u], pairs, e_hash,
                e_key, e_start, e_len, e_left, e_right, e_order, sizes, last,
            )  # fmt: skip


@njit(nogil=True, _nrt=False)
def build_vocabulary(
    arena: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    split: bool,
    high: int,
    first: int,
    out: np.ndarray,
    tokens: np.ndarray,
    pairs: np.ndarray,
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    v_arena: np.ndarray,
    sizes: np.ndarray,
    last: np.ndarray,
    identity: np.ndarray,
) -> int:  # pragma: no cover
    """Add the entries of fixed, distinct terms ``first, first + 1, ...`` (bytes
    ``arena[start[t]:][:length[t]]``) to the tables: ``out[t]`` is the entry of term ``t``, or
    -1 for a term no scan can produce. ``split``: a term is a word n-gram, its tokens separated
    by single spaces (at most ``high`` of them, none empty); otherwise a byte string.

    Returns the number of terms, or the term that did not fit (its entries are added again,
    found, when the driver calls again with more room). ``identity`` as for
    :func:`merge_entries`."""
    for t in range(first, start.size):
        a, n = start[t], length[t]
        e = -1
        order = 0
        k = a
        while True:  # one token (the whole term unless split) per round
            z = k
            if split:
                while z < a + n and arena[z] != 0x20:
                    z += 1
            else:
                z = a + n
            if z == k or order == high:  # an empty token, or too many
                e = -1
                break
            h, acc, nb, key = SEED, np.uint64(0), 0, np.uint64(0)
            for q in range(k, z):
                h, acc, nb, key = push_byte(h, acc, nb, key, arena[q])
            hf, key8 = finish_hash(h, acc, nb, key)
            tok = bytes_entry(
                True, hf, key8, nb, arena, identity, k, tokens, e_hash, e_key, e_start, e_len,
                e_left, e_right, e_order, v_arena, sizes, last,
            )  # fmt: skip
            if tok == -2:
                return t
            order += 1
            if order == 1:
                e = tok
            else:
                e = pair_entry(
                    True, e, tok, order, pairs, e_hash, e_key, e_start, e_len, e_left,
                    e_right, e_order, sizes, last,
                )  # fmt: skip
                if e == -2:
                    return t
            if z >= a + n:
                break
            k = z + 1
        out[t] = e
    return start.size


@njit(nogil=True)
def spell(
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    arena: np.ndarray,
    ids: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """The entries ``ids`` (increasing) written out in that order: ``(start, length, arena,
    key)``; a word n-gram is its tokens joined by single spaces, each term followed by a NUL
    byte in the new arena."""
    n = ids[-1] + 1 if ids.size else 0
    size = np.empty(n, np.int64)
    for e in range(n):  # a pair's parts were made before it
        if e_order[e] == 1:
            size[e] = e_len[e]
        else:
            size[e] = size[e_left[e]] + 1 + e_len[e_right[e]]
    m = ids.size
    total = 0
    for e in ids:
        total += size[e] + 1
    start = np.empty(m, np.int64)
    length = np.empty(m, np.int64)
    out = np.empty(total, np.uint8)
    key = np.empty(m, np.uint64)
    chain = np.empty(3, np.int64)
    used = 0
    for j in range(m):
        e = ids[j]
        start[j] = used
        length[j] = size[e]
        c = 0
        x = e
        while e_order[x] > 1:
            chain[c] = e_right[x]
            c += 1
            x = e_left[x]
        chain[c] = x
        for q in range(c, -1, -1):
            tok = chain[q]
            for k in range(e_start[tok], e_start[tok] + e_len[tok]):
                out[used] = arena[k]
                used += 1
            if q > 0:
                out[used] = 0x20
                used += 1
        out[used] = 0
        used += 1
        key[j] = _block(out, start[j], length[j], 0)
    return start, length, out, key


@njit(nogil=True)
def gather(
    start: np.ndarray, length: np.ndarray, arena: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """The strings ``arena[start[j]:][:length[j]]`` one after another, each followed by a
    NUL byte: ``(their new starts, the new arena)``."""
    total = 0
    for j in range(start.size):
        total += length[j] + 1
    out = np.empty(total, np.uint8)
    at = np.empty(start.size, np.int64)
    used = 0
    for j in range(start.size):
        at[j] = used
        a = start[j]
        for k in range(length[j]):
            out[used + k] = arena[a + k]
        used += length[j]
        out[used] = 0
        used += 1
    return at, out


@njit(nogil=True)
def spell_tuples(
    keys: np.ndarray,
    bits: int,
    high: int,
    tok_start: np.ndarray,
    tok_len: np.ndarray,
    arena: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """Word n-grams written out from their :func:`rank_tuples` keys (token ``r`` of the
    sorted tokens is ``arena[tok_start[r]:][:tok_len[r]]``): ``(start, length, arena)``, each
    followed by a NUL byte. Only the tokens' bytes are read, so keys in sorted order spell
    in sorted order without visiting the entries at random."""
    m = keys.size
    mask = (np.int64(1) << bits) - 1
    start = np.empty(m, np.int64)
    length = np.empty(m, np.int64)
    total = 0
    for j in range(m):
        size = -1
        for q in range(high):
            r = (keys[j] >> np.int64(bits * (high - 1 - q))) & mask
            if r == 0:
                break
            size += tok_len[r - 1] + 1
        start[j] = total
        length[j] = size
        total += size + 1
    # Tokens are copied 8 bytes at a time (a fixed count, no branch per byte), the bytes
    # written past a token's end overwritten by what follows: 8 spare bytes at the end.
    out = np.empty(total + 8, np.uint8)
    last_full = arena.size - 8  # a token starting here or before can be read 8 at a time
    used = 0
    for j in range(m):
        for q in range(high):
            r = (keys[j] >> np.int64(bits * (high - 1 - q))) & mask
            if r == 0:
                break
            if q > 0:
                out[used] = 0x20
                used += 1
            a = tok_start[r - 1]
            n = tok_len[r - 1]
            if a + n <= last_full:
                for k in range(0, n, 8):
                    for z in range(8):
                        out[used + k + z] = arena[a + k + z]
            else:
                for k in range(n):
                    out[used + k] = arena[a + k]
            used += n
        out[used] = 0
        used += 1
    return start, length, out[:total]


@njit(nogil=True)
def _block(arena: np.ndarray, start: int, length: int, off: int) -> np.uint64:  # pragma: no cover
    """Bytes ``off .. off+8`` of a string as a big-endian integer, zero-padded."""
    key = np.uint64(0)
    for j in range(8):
        key = key << U8
        if off + j < length:
            key |= np.uint64(arena[start + off + j])
    return key


@njit(nogil=True)
def term_order(
    order: np.ndarray, key: np.ndarray, start: np.ndarray, length: np.ndarray, arena: np.ndarray
) -> np.ndarray:  # pragma: no cover
    """Indices of strings in byte order (= Python's ``str`` order of the decoded strings), from
    ``order``, the strings sorted by their keys (in any order among equal keys), and their
    bytes and lengths. ``order`` is rewritten and returned.

    Sorting the 8-byte keys orders nearly everything (numpy's vectorised argsort, outside:
    several times faster than a compiled one). A run of equal keys is ordered by the next 8
    bytes, recursively (an explicit stack); within a run, a string that ends in the block is
    a prefix of the longer ones and comes first, shorter before longer (two strings of one
    length with equal blocks are equal, and the strings are distinct), so the order the
    runs come in does not matter."""
    n = order.size
    stack = [(np.int64(0), np.int64(0), np.int64(0))]
    stack.pop()
    lo = np.int64(0)
    while lo < n:  # runs of equal keys
        hi = lo + 1
        while hi < n and key[order[hi]] == key[order[lo]]:
            hi += 1
        if hi - lo > 1:
            stack.append((lo, hi, np.int64(0)))
        lo = hi
    while len(stack) > 0:
        lo, hi, off = stack.pop()
        ids = order[lo:hi].copy()
        n_short = 0
        for t in ids:
            if length[t] <= off + 8:
                n_short += 1
        short = np.empty(n_short, np.int64)
        longer = np.empty(ids.size - n_short, np.int64)
        keys = np.empty(ids.size - n_short, np.uint64)
        a = b = 0
        for t in ids:
            if length[t] <= off + 8:
                short[a] = t
                a += 1
            else:
                longer[b] = t
                keys[b] = _block(arena, start[t], length[t], off + 8)
                b += 1
        short = short[np.argsort(length[short], kind="mergesort")]
        perm = np.argsort(keys, kind="mergesort")
        longer, keys = longer[perm], keys[perm]
        order[lo : lo + n_short] = short
        base = lo + n_short
        order[base:hi] = longer
        a = 0
        while a < longer.size:
            b = a + 1
            while b < longer.size and keys[b] == keys[a]:
                b += 1
            if b - a > 1:
                stack.append((base + a, base + b, off + 8))
            a = b
    return order


@njit(nogil=True)
def rank_tuples(
    ids: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    token_rank: np.ndarray,
    bits: int,
    high: int,
) -> np.ndarray:  # pragma: no cover
    """Sort keys of word n-gram entries: the ranks (+1) of their tokens, ``bits`` each, first
    token highest, shorter n-grams padded with zeros. Tokens hold word characters only, all
    above the space byte, so ordering n-grams by these keys orders them by their bytes: at
    the first token that differs, either the tokens differ at a byte of both, or one is a
    prefix of the other and the shorter one's next byte is a space (or its end)."""
    out = np.empty(ids.size, np.int64)
    for j in range(ids.size):
        e = ids[j]
        key = np.int64(0)
        n = e_order[e]
        x = e
        for q in range(n - 1, -1, -1):  # the tokens from last to first
            tok = e_right[x] if q > 0 else x
            key |= np.int64(token_rank[tok] + 1) << np.int64(bits * (high - 1 - q))
            if q > 0:
                x = e_left[x]
        out[j] = key
    return out


@njit(nogil=True)
def radix_sort(keys: np.ndarray, bits: int) -> np.ndarray:  # pragma: no cover
    """``np.sort(keys)`` of non-negative int64 keys below ``2**bits``: least significant digit
    first, each pass a stable counting sort by one digit of at most 11 bits (a table of 2,048
    counts stays in the cache). Half of numpy's time for a million keys of 57 bits (the
    packed n-gram keys of 20 Newsgroups' 1-2-grams), which it sorts by comparisons."""
    n = keys.size
    a = keys.copy()
    b = np.empty_like(a)
    passes = max(1, (bits + 10) // 11)
    digit_bits = (bits + passes - 1) // passes  # the passes' digits as even as they can be
    mask = (1 << digit_bits) - 1
    count = np.empty(mask + 2, np.int64)
    for step in range(passes):
        shift = step * digit_bits
        count[:] = 0
        for i in range(n):
            count[((a[i] >> shift) & mask) + 1] += 1
        for d in range(1, mask + 2):
            count[d] += count[d - 1]
        for i in range(n):
            d = (a[i] >> shift) & mask
            b[count[d]] = a[i]
            count[d] += 1
        a, b = b, a
    return a
