"""Compiled kernels of the text scanner (:mod:`bayeskit.text._scan` drives them).

The text is one byte array: latin-1 (one byte per character) or UTF-8 (``surrogatepass``).
Every byte is read through a 256-entry table ``lower`` (latin-1 lowercasing, or the identity),
so lowercased text is never written out for the word analyzer. A character's class comes from
``classes[code point]``: bit 1 = a word character (``\\w``), bit 2 = whitespace (``\\s``),
bit 4 = a character a token may hold (the word characters, and the *joiners* of a pattern that
keeps e-mail addresses and host names whole).

**Entries.** A vocabulary table holds *entries*, numbered in order of creation. An entry is
either a byte string (a token, or a character n-gram), found through the ``tokens`` hash table,
or a *pair* ``(left entry, right token)``: the word n-gram ``left + " " + right``, found
through the ``pairs`` table by the two ids alone, so a word n-gram is never compared or copied
byte by byte. ``order[e]`` is the number of tokens of a word entry (1 for byte strings). A
word n-gram's left part is an entry too, even when it is not a term itself (the bigram of a
trigram when only trigrams are counted): counted are the entries of the wanted orders.

A byte string's hash is built from its bytes eight at a time (``_push``, ``_final``); its
*key* is its first 8 bytes, big-endian and zero-padded, so integer order of keys is byte order
of strings. A ``tokens`` slot holds ``(key, length << 32 | entry)``: most strings are at most
8 bytes long, and for them the slot alone decides equality, in one memory access; longer ones
compare their remaining bytes with the copy kept in an ``arena`` (each followed by a NUL
byte). A ``pairs`` slot holds ``(left << 32 | right, entry + 1)``. A zero second word marks a
free slot (tables start as zeros, and no page of them is touched before it is used). Hash
collisions never merge entries: equality is always by bytes and length, or by both ids.

**Rows.** Scanning a document appends its CSR row: each term's column (its entry id, or a
fixed column for a fitted vocabulary) in order of first occurrence, with its count. ``last[c]``
packs ``(visit << 32 | position in the row)`` of column ``c``'s latest entry, so one memory
access says whether this row has it already. ``visit`` counts document attempts, so a
document scanned again (below) never sees its own earlier entries.

**Blocks.** A large table's probes, found one at a time between tokens, each wait for
their own cache miss. The word scanner therefore hashes a block of tokens first, asking for
each one's ``tokens`` slot as it goes (:func:`~bayeskit._jit.prefetch`), then finds their
entries; and gathers a document's tokens in blocks whose n-grams are found in passes that
ask for the slots they will read a few n-grams ahead (:func:`_word_ngrams`). The misses
overlap; the entries, rows and output are those of one token at a time.

**Growth.** The scanners neither allocate nor count references: they are compiled without
numba's runtime (``_nrt=False``; inlined helpers with array arguments otherwise pay reference
counting per token, measured 3-4x slower), and every work array comes from the driver. When an
output array is full, a scanner returns ``(document, status, need)``; the driver grows it and
calls again from the start of that document, whose partial row is dropped (entries it added
stay: they occur in it). Status: 0 done, 1 rows full, 2 tables or arena full (``need``: arena
bytes for the string that did not fit).

Every kernel is ``nogil``: the driver runs several at once in Python threads, each on its own
outputs. :func:`bayeskit._jit.njit` keeps the compiled code next to this file where it can.
The kernels stay in this one file, long as it is: they share the hashing, probing and
row-counting helpers they inline (a kernel's cache is stamped with every kernel module,
:data:`bayeskit._jit.KERNEL_SOURCES`, so a split would be safe, only not done).
"""

from __future__ import annotations

import numpy as np

from .._jit import count_ones, load_be64, load_le64, njit, prefetch, trailing_zeros

DONE, ROWS_FULL, TABLES_FULL = 0, 1, 2
WORD, SPACE, TOKEN = 1, 2, 4  # bits of a character's class: \w, \s, may be in a token
EMPTY = np.uint64(0)  # a free slot's second word (never 0 in use: see _bytes_entry, _pair_entry)
_SEED = np.uint64(0x243F6A8885A308D3)
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_LOW32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_U8 = np.uint64(8)
_U32 = np.uint64(32)
_U3 = np.uint64(3)
_HIGH = np.uint64(0x8080808080808080)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)

# A byte in every lane, for comparing eight bytes at once (_fold8).
_LANE = 0x0101010101010101
_BIAS_A, _BIAS_Z = np.uint64((0x80 - 0x41) * _LANE), np.uint64((0x80 - 0x5B) * _LANE)
_BIAS_C0, _BIAS_DF = np.uint64((0x80 - 0x40) * _LANE), np.uint64((0x80 - 0x5F) * _LANE)
_TIMES = np.uint64(0x57 * _LANE)  # U+00D7, the one character of U+00C0-U+00DE left alone
# Token characters below 0x80 (_word_mask): digits, letters either case, the underscore.
_BIAS_0, _BIAS_9 = np.uint64((0x80 - 0x30) * _LANE), np.uint64((0x7F - 0x39) * _LANE)
_BIAS_LA, _BIAS_LZ = np.uint64((0x80 - 0x61) * _LANE), np.uint64((0x7F - 0x7A) * _LANE)
_CASE = np.uint64(0x20 * _LANE)
_UNDERSCORE = np.uint64(0x5F * _LANE)


def _crc_table() -> np.ndarray:
    table = np.zeros(256, np.uint32)
    for byte in range(256):
        c = byte
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[byte] = c
    return table


CRC_TABLE = _crc_table()


# ---------------------------------------------------------------------------- bytes and hashes


@njit(nogil=True, inline="always", _nrt=False)
def _width(lead: int) -> int:  # pragma: no cover
    """Bytes of the UTF-8 character starting with byte ``lead``."""
    if lead < 0x80:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


@njit(nogil=True, inline="always", _nrt=False)
def _code_point(
    src: np.ndarray, lower: np.ndarray, i: int, utf8: bool
) -> tuple[int, int]:  # pragma: no cover
    """The code point starting at byte ``i`` and its length in bytes. The driver made the
    bytes, so they are well-formed (surrogates included, as ``surrogatepass`` writes them)."""
    b = np.int64(lower[src[i]])
    if not utf8 or b < 0x80:
        return b, 1
    if b < 0xE0:
        return ((b & 0x1F) << 6) | (np.int64(src[i + 1]) & 0x3F), 2
    if b < 0xF0:
        return (
            ((b & 0x0F) << 12)
            | ((np.int64(src[i + 1]) & 0x3F) << 6)
            | (np.int64(src[i + 2]) & 0x3F)
        ), 3
    return (
        ((b & 0x07) << 18)
        | ((np.int64(src[i + 1]) & 0x3F) << 12)
        | ((np.int64(src[i + 2]) & 0x3F) << 6)
        | (np.int64(src[i + 3]) & 0x3F)
    ), 4


@njit(nogil=True, inline="always", _nrt=False)
def _push(
    h: np.uint64, acc: np.uint64, nb: int, key: np.uint64, byte: int
) -> tuple[np.uint64, np.uint64, int, np.uint64]:  # pragma: no cover
    """Add one byte to a hash state ``(h, acc, nb, key)``: ``acc`` gathers the bytes; every 8
    are mixed into ``h``, the first 8 also kept as the ``key``; ``nb`` counts them all."""
    acc = (acc << _U8) | np.uint64(byte)
    nb += 1
    if nb & 7 == 0:
        if nb == 8:
            key = acc
        h = (h ^ acc) * _M1
        h ^= h >> _U32
        acc = np.uint64(0)
    return h, acc, nb, key


@njit(nogil=True, inline="always", _nrt=False)
def _final(
    h: np.uint64, acc: np.uint64, nb: int, key: np.uint64
) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """``(hash, key)`` of a string of ``nb`` bytes from its hash state."""
    if nb < 8:
        key = acc << np.uint64(8 * (8 - nb))
    x = ((h ^ acc) * _M1) ^ np.uint64(nb)
    x ^= x >> np.uint64(29)
    x *= _M2
    x ^= x >> _U32
    return x, key


@njit(nogil=True, inline="always", _nrt=False)
def _fold8(w: np.uint64) -> np.uint64:  # pragma: no cover
    """Eight latin-1 bytes lowercased at once, as ``str.lower`` does (``A``-``Z`` and
    U+00C0-U+00DE but U+00D7 gain 0x20; no other latin-1 character changes, asserted by
    :mod:`._encode`). Each byte's low 7 bits are compared with the ranges by adding a bias to
    them: no sum carries into the next byte, so the top bit of each says the comparison."""
    x = w & _LOW7
    ascii_upper = (x + _BIAS_A) & ~(x + _BIAS_Z) & ~w
    high_upper = (x + _BIAS_C0) & ~(x + _BIAS_DF) & ((x ^ _TIMES) + _LOW7) & w
    return w | (((ascii_upper | high_upper) & _HIGH) >> np.uint64(2))


@njit(nogil=True, inline="always", _nrt=False)
def _hash_at(text: np.ndarray, s: int, nb: int, fold: bool) -> tuple[np.uint64, np.uint64]:
    """``_final``'s ``(hash, key)`` of the ``nb`` bytes at ``text[s]`` (lowercased when
    ``fold``), read eight at a time: the same numbers as pushing them one by one. ``text``
    has 8 readable bytes after every string asked for (the driver pads it)."""
    h = _SEED
    q = s
    for _ in range(nb >> 3):
        w = load_be64(text, q)
        if fold:
            w = _fold8(w)
        h = (h ^ w) * _M1
        h ^= h >> _U32
        q += 8
    w = load_be64(text, q)
    if fold:
        w = _fold8(w)
    r = nb & 7
    acc = w >> np.uint64((64 - 8 * r) & 63) if r else np.uint64(0)
    key = np.uint64(0)  # shorter tokens: _final takes the key from the word just read
    if nb >= 8:
        key = load_be64(text, s)
        if fold:
            key = _fold8(key)
    return _final(h, acc, nb, key)


@njit(nogil=True, inline="always", _nrt=False)
def _word_mask(text: np.ndarray, classes: np.ndarray, i: int) -> np.uint64:  # pragma: no cover
    """Which of the 8 latin-1 bytes at ``text[i]`` are token characters: the top bit of
    each byte's lane (little-endian: byte ``k`` is bits ``8k``-``8k + 7``). ASCII bytes are
    classed all at once: a token character is ``[0-9A-Za-z_]`` (latin-1's ``\\w`` below
    0x80, asserted by :mod:`._encode`), each range compared by adding a bias to every lane (no
    lane carries into the next below 0x80). Words holding a byte of 0x80 or more, rare in
    most text, are classed a byte at a time from ``classes``."""
    x = load_le64(text, i)
    if x & _HIGH:
        m = np.uint64(0)
        for k in range(8):
            c = np.uint64(classes[text[i + k]]) >> np.uint64(2)  # TOKEN
            m |= (c & _ONE) << np.uint64(8 * k + 7)
        return m
    digit = (x + _BIAS_0) & ~(x + _BIAS_9)
    x_lower = x | _CASE
    letter = (x_lower + _BIAS_LA) & ~(x_lower + _BIAS_LZ)
    underscore = ~((x ^ _UNDERSCORE) + _LOW7)
    return (digit | letter | underscore) & _HIGH


@njit(nogil=True, inline="always", _nrt=False)
def _latin1_runs(
    text: np.ndarray, classes: np.ndarray, i: int, end: int, bounds: np.ndarray
) -> tuple[int, int]:
    """The next runs of token characters of latin-1 text from byte ``i`` (where no run goes
    on from the byte before) to ``end``, at most ``bounds.shape[1] - 1``: their starts in
    ``bounds[0]``, their ends in ``bounds[1]``. Returns ``(where to go on, how many)``.

    Eight bytes at a time (:func:`_word_mask`), without a branch on the runs: a word's run
    starts and ends are the bits where its mask differs from itself shifted by one byte, and
    each word writes four start and four end slots (no more runs begin or end in eight
    bytes), its counts moving by how many are real. 1.5x faster on 20 Newsgroups than a byte
    at a time, whose two stores per byte were most of the time; loops over the bits were
    slower, their trip counts guessed wrong. A run open when the room runs short is given
    back (the call returns its start, to go on from), unless it is the only one; it, the
    last bytes of a document, and everything when there is room for fewer than four runs,
    are read a byte at a time."""
    cap = bounds.shape[1] - 1
    opened = 0
    closed = 0
    prev = np.uint64(0)  # the last byte of the previous word, in the first byte's lane
    while i + 8 <= end and closed + 4 <= cap:
        m = _word_mask(text, classes, i)
        shifted = (m << _U8) | prev
        starts = m & ~shifted
        ends = ~m & shifted
        n_starts = np.int64(count_ones(starts))
        n_ends = np.int64(count_ones(ends))
        for q in range(4):
            bounds[0, opened + q] = i + np.int64(trailing_zeros(starts) >> _U3)
            starts &= starts - _ONE
        for q in range(4):
            bounds[1, closed + q] = i + np.int64(trailing_zeros(ends) >> _U3)
            ends &= ends - _ONE
        opened += n_starts
        closed += n_ends
        prev = m >> np.uint64(56)
        i += 8
    if opened > closed:
        if closed > 0:
            return bounds[0, closed], closed
        while i < end and (classes[text[i]] >> 2) & 1:  # TOKEN
            i += 1
        bounds[1, 0] = i
        return i, 1
    if closed > 0 and i + 8 <= end:
        return i, closed
    last = 0
    while i < end:
        c = (np.int64(classes[text[i]]) >> 2) & 1  # TOKEN
        bounds[0, opened] = i
        opened += c & (last ^ 1)
        bounds[1, closed] = i
        closed += last & (c ^ 1)
        last = c
        i += 1
        if closed == cap:
            return i, closed
    if last == 1:
        bounds[1, closed] = end
        closed += 1
    return i, closed


@njit(nogil=True, inline="always", _nrt=False)
def _pair_hash(pk: np.uint64) -> np.uint64:  # pragma: no cover
    x = pk * _M1
    x ^= x >> np.uint64(29)
    x *= _M2
    x ^= x >> _U32
    return x


@njit(nogil=True, inline="always", _nrt=False)
def _find_bytes(
    tokens: np.ndarray,
    hf: np.uint64,
    key: np.uint64,
    length: int,
    arena: np.ndarray,
    start: np.ndarray,
    src: np.ndarray,
    lower: np.ndarray,
    s: int,
) -> tuple[int, int]:  # pragma: no cover
    """``(slot, entry)`` of the string ``lower[src[s:s + length]]`` in ``tokens``, or
    ``(the free slot where it goes, -1)``."""
    mask = np.uint64(tokens.shape[0] - 1)
    p = hf & mask
    want = np.uint64(length)
    while True:
        tag = tokens[p, 1]
        if tag == EMPTY:
            return np.int64(p), -1
        if tokens[p, 0] == key and (tag >> _U32) == want:
            e = np.int64(tag & _LOW32)
            same = True
            a = start[e]
            for k in range(8, length):  # the first 8 bytes are the key
                if arena[a + k] != lower[src[s + k]]:
                    same = False
                    break
            if same:
                return np.int64(p), e
        p = (p + _ONE) & mask


@njit(nogil=True, inline="always", _nrt=False)
def _find_pair(
    pairs: np.ndarray, hf: np.uint64, pk: np.uint64
) -> tuple[int, int]:  # pragma: no cover
    """``(slot, entry)`` of the pair with key ``pk`` in ``pairs``, or ``(free slot, -1)``. A
    slot holds ``entry + 1``, so that a zero means free (tables start as zeros: no page of
    them is touched before it is used)."""
    mask = np.uint64(pairs.shape[0] - 1)
    p = hf & mask
    while True:
        tag = pairs[p, 1]
        if tag == EMPTY:
            return np.int64(p), -1
        if pairs[p, 0] == pk:
            return np.int64(p), np.int64(tag) - 1
        p = (p + _ONE) & mask


@njit(nogil=True, inline="always", _nrt=False)
def _room(
    sizes: np.ndarray, ids: np.ndarray, table: np.ndarray, n_in_table: int
) -> bool:  # pragma: no cover
    """Whether one more entry fits: an id, and a slot with the table staying half empty."""
    return sizes[0] < ids.size and 2 * (n_in_table + 1) <= table.shape[0]


@njit(nogil=True, inline="always", _nrt=False)
def _row_add(
    col: int,
    last: np.ndarray,
    visit: int,
    row0: int,
    nnz: int,
    indices: np.ndarray,
    counts: np.ndarray,
) -> int:  # pragma: no cover
    """Count column ``col`` once more in the row that starts at ``row0``; the new ``nnz``, or
    -1 when ``indices`` is full (the row might need an entry).

    Without a branch on whether the row has the column already (as often true as not: a
    guessed branch there cost more than the rest of this): a new entry is written at ``nnz``
    with count 0 + 1, an old one rewritten in place with its count + 1, by arithmetic (LLVM
    turns a select on the scanner's critical path back into a branch)."""
    if nnz == indices.size:
        return -1
    seen = last[col]
    new = np.int64((seen >> 32) != visit)
    had = seen & 0xFFFFFFFF
    at = had + (nnz - row0 - had) * new
    counts[row0 + at] = counts[row0 + at] * (1 - new) + 1
    indices[row0 + at] = col
    last[col] = (np.int64(visit) << 32) | at
    return nnz + new


@njit(nogil=True, inline="always", _nrt=False)
def _bytes_entry(
    insert: bool,
    hf: np.uint64,
    key: np.uint64,
    length: int,
    src: np.ndarray,
    lower: np.ndarray,
    s: int,
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
    last: np.ndarray,
) -> int:  # pragma: no cover
    """The entry of a string: found, or (``insert``) added; -1 when it is not there (fixed
    vocabulary) and -2 when there is no room to add it."""
    slot, e = _find_bytes(tokens, hf, key, length, arena, e_start, src, lower, s)
    if e >= 0 or not insert:
        return e
    used = sizes[1]
    if not _room(sizes, e_hash, tokens, sizes[2]) or used + length + 1 > arena.size:
        return -2
    e = sizes[0]
    tokens[slot, 0] = key
    tokens[slot, 1] = (np.uint64(length) << _U32) | np.uint64(e)
    e_hash[e] = hf
    e_key[e] = key
    e_start[e] = used
    e_len[e] = length
    e_left[e] = -1
    e_right[e] = -1
    e_order[e] = 1
    for k in range(length):
        arena[used + k] = lower[src[s + k]]
    arena[used + length] = 0
    sizes[0] += 1
    sizes[1] = used + length + 1
    sizes[2] += 1
    last[e] = -1
    return e


@njit(nogil=True, inline="always", _nrt=False)
def _pair_entry(
    insert: bool,
    left: int,
    right: int,
    order: int,
    pairs: np.ndarray,
    e_hash: np.ndarray,
    e_key: np.ndarray,
    e_start: np.ndarray,
    e_len: np.ndarray,
    e_left: np.ndarray,
    e_right: np.ndarray,
    e_order: np.ndarray,
    sizes: np.ndarray,
    last: np.ndarray,
) -> int:  # pragma: no cover
    """The entry of the word n-gram ``left`` + token ``right`` (as :func:`_bytes_entry`);
    -1 as well when either part is unknown."""
    if left < 0 or right < 0:
        return -1
    pk = (np.uint64(left) << _U32) | np.uint64(right)
    hf = _pair_hash(pk)
    slot, e = _find_pair(pairs, hf, pk)
    if e >= 0 or not insert:
        return e
    if not _room(sizes, e_hash, pairs, sizes[3]):
        return -2
    e = sizes[0]
    pairs[slot, 0] = pk
    pairs[slot, 1] = np.uint64(e + 1)
    e_hash[e] = hf
    e_key[e] = pk
    e_start[e] = -1
    e_len[e] = -1
    e_left[e] = left
    e_right[e] = right
    e_order[e] = order
    sizes[0] += 1
    sizes[3] += 1
    last[e] = -1
    return e


@njit(nogil=True, inline="always", _nrt=False)
def _column(insert: bool, e: int, column: np.ndarray, oov: int) -> int:  # pragma: no cover
    """Where an occurrence of entry ``e`` (-1: none) counts: its own id when counting new
    terms; its vocabulary column, else the out-of-vocabulary one (-1: nowhere)."""
    if insert:
        return e
    if e >= 0 and column[e] >= 0:
        return column[e]
    return oov


@njit(nogil=True, inline="always", _nrt=False)
def _next_token(
    text: np.ndarray,
    utf8: bool,
    lower: np.ndarray,
    classes: np.ndarray,
    i: int,
    end: int,
    min_chars: int,
    joined: bool,
) -> tuple[int, int, np.uint64, np.uint64, int, np.uint64]:  # pragma: no cover
    """The token starting at byte ``i`` (< ``end``), read a character at a time (UTF-8, or
    joiners): ``(start, end, hash state)``, or ``(-1, where to go on, ...)`` when no token of
    at least ``min_chars`` characters starts there. Its hash state is built while finding its
    end. With joiners the token is the run from its first word character to its last one (what
    ``\\b\\w[\\w.@-]*\\w\\b|\\b\\w\\b`` finds): the state is kept at each word
    character's end, and leading joiners are skipped."""
    h, acc, nb, key = _SEED, np.uint64(0), 0, np.uint64(0)
    cp, width = _code_point(text, lower, i, utf8)
    if classes[cp] & TOKEN == 0 or (joined and classes[cp] & WORD == 0):
        return -1, i + width, h, acc, nb, key
    s = i
    n_chars = 0
    kept_h, kept_acc, kept_nb, kept_key, kept_chars = h, acc, nb, key, 0
    while True:
        for k in range(width):
            h, acc, nb, key = _push(h, acc, nb, key, lower[text[i + k]])
        i += width
        n_chars += 1
        if joined and classes[cp] & WORD:
            kept_h, kept_acc, kept_nb, kept_key, kept_chars = h, acc, nb, key, n_chars
        if i >= end:
            break
        cp, width = _code_point(text, lower, i, utf8)
        if classes[cp] & TOKEN == 0:
            break
    if joined:
        h, acc, nb, key, n_chars = kept_h, kept_acc, kept_nb, kept_key, kept_chars
    if n_chars < min_chars:
        return -1, i, h, acc, nb, key
    return s, i, h, acc, nb, key


# ---------------------------------------------------------------------------- scanners


#: How many probes ahead the n-gram pass asks for the slots it will read (:func:`prefetch`).
PREFETCH_AHEAD = 16


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
            pk = (np.uint64(grams[0, ahead - 1]) << _U32) | np.uint64(grams[0, ahead])
            prefetch(pairs, np.int64(_pair_hash(pk) & mask))
        b = _pair_entry(
            insert, grams[0, i - 1], grams[0, i], 2, pairs, e_hash, e_key, e_start, e_len,
            e_left, e_right, e_order, sizes, last,
        )  # fmt: skip
        if b == -2:
            return -2
        grams[1, i] = b
    first_trigram = 1 if carried else 2
    if high > 2:
        for i in range(first_trigram, m):
            c = _pair_entry(
                insert, grams[1, i - 1], grams[0, i], 3, pairs, e_hash, e_key, e_start, e_len,
                e_left, e_right, e_order, sizes, last,
            )  # fmt: skip
            if c == -2:
                return -2
            grams[2, i] = c
    for i in range(1, m):
        ahead = i + PREFETCH_AHEAD
        if ahead < m:
            col = _column(insert, grams[1, ahead], column, oov)
            if col >= 0:
                prefetch(last, col)
        if low <= 2:
            col = _column(insert, grams[1, i], column, oov)
            if col >= 0:
                nnz = _row_add(col, last, visit, row0, nnz, indices, counts)
                if nnz < 0:
                    return -1
        if high > 2 and i >= first_trigram:
            col = _column(insert, grams[2, i], column, oov)
            if col >= 0:
                nnz = _row_add(col, last, visit, row0, nnz, indices, counts)
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
                i, n_runs = _latin1_runs(text, classes, i, end, bounds)
                for k in range(n_runs):
                    s = bounds[0, k]
                    nb = bounds[1, k] - s
                    hf, key8 = _hash_at(text, s, nb, fold)
                    _pend(pending, p, hf, key8, s, nb, tokens, token_mask)
                    p += np.int64(nb >= min_chars)  # runs too short are overwritten
            else:
                while p < pending.shape[1] and i < end:
                    s, i, h, acc, nb, key = _next_token(
                        text, utf8, lower, classes, i, end, min_chars, joined
                    )
                    if s >= 0:
                        hf, key8 = _final(h, acc, nb, key)
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
                        _, stop = _find_bytes(
                            stop_tokens, hf, key8, nb, stop_arena, stop_start, text, lower, s
                        )
                        if stop >= 0:
                            continue
                    t = _bytes_entry(
                        insert, hf, key8, nb, text, lower, s, tokens, e_hash, e_key, e_start,
                        e_len, e_left, e_right, e_order, arena, sizes, last,
                    )  # fmt: skip
                    if t == -2:
                        return d, TABLES_FULL, nb + 1, visit
                    if low == 1:
                        col = _column(insert, t, column, oov)
                        if col >= 0:
                            nnz = _row_add(col, last, visit, row0, nnz, indices, counts)
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
        cp, width = _code_point(text, lower, i, utf8)
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
                h, acc, nb, key = _SEED, np.uint64(0), 0, np.uint64(0)
                p = o
                for m in range(1, min(high, size - index) + 1):
                    width = _width(scratch[p]) if utf8 else 1
                    for k in range(width):
                        h, acc, nb, key = _push(h, acc, nb, key, scratch[p + k])
                    p += width
                    if (m >= low and (not wb or m < size)) or (wb and index == 0 and m == size):
                        hf, key8 = _final(h, acc, nb, key)
                        e = _bytes_entry(
                            insert, hf, key8, nb, scratch, identity, o, tokens, e_hash, e_key,
                            e_start, e_len, e_left, e_right, e_order, arena, sizes, last,
                        )  # fmt: skip
                        if e == -2:
                            return d, TABLES_FULL, nb + 1, visit
                        col = _column(insert, e, column, oov)
                        if col >= 0:
                            nnz = _row_add(col, last, visit, row0, nnz, indices, counts)
                            if nnz < 0:
                                return d, ROWS_FULL, 0, visit
                o += _width(scratch[o]) if utf8 else 1
                index += 1
            if not wb:
                break
            a = b - 1  # the closing space opens the next padded word
        indptr[d + 1] = nnz
    return n_docs, DONE, 0, visit


# ---------------------------------------------------------------------------- tables


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
            p = (p + _ONE) & mask
        table[p, 0] = e_key[e]
        if of_pairs:
            table[p, 1] = np.uint64(e + 1)
        else:
            table[p, 1] = (np.uint64(e_len[e]) << _U32) | np.uint64(e)
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
                pk = (np.uint64(mapping[b_left[ahead]]) << _U32) | np.uint64(
                    mapping[b_right[ahead]]
                )
                prefetch(pairs, np.int64(_pair_hash(pk) & pair_mask))
        if b_order[u] == 1:
            mapping[u] = _bytes_entry(
                True, b_hash[u], b_key[u], b_len[u], b_arena, identity, b_start[u], tokens,
                e_hash, e_key, e_start, e_len, e_left, e_right, e_order, arena, sizes, last,
            )  # fmt: skip
        else:
            mapping[u] = _pair_entry(
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
            h, acc, nb, key = _SEED, np.uint64(0), 0, np.uint64(0)
            for q in range(k, z):
                h, acc, nb, key = _push(h, acc, nb, key, arena[q])
            hf, key8 = _final(h, acc, nb, key)
            tok = _bytes_entry(
                True, hf, key8, nb, arena, identity, k, tokens, e_hash, e_key, e_start, e_len,
                e_left, e_right, e_order, v_arena, sizes, last,
            )  # fmt: skip
            if tok == -2:
                return t
            order += 1
            if order == 1:
                e = tok
            else:
                e = _pair_entry(
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
        key = key << _U8
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


# ---------------------------------------------------------------------------- rows


@njit(nogil=True)
def sorted_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    column: np.ndarray,
    out_indptr: np.ndarray,
    out_indices: np.ndarray,
    out_data: np.ndarray,
    at: int,
    merge: bool,
    n_columns: int,
) -> int:  # pragma: no cover
    """Write rows with entry ``k`` in column ``column[indices[k]]`` (< ``n_columns``), each
    row's columns sorted, at ``out_*[at:]`` (``out_indptr[r]`` = where row ``r`` starts there);
    ``merge`` sums entries that land in one column (hashing), otherwise columns are distinct.
    Returns the end of the rows written.

    A row is sorted by insertion when short, otherwise by a two- or three-pass radix sort of
    its columns (each pass a counting sort on half or a third of the column bits: stable, so
    each pass keeps the previous ones' order; the same sorted row either way): 3-4x faster
    than numba's quicksort on 20 Newsgroups rows, whose columns are spread over ~10^5-10^6
    terms."""
    n_rows = indptr.size - 1
    longest = 0
    for r in range(n_rows):
        longest = max(longest, indptr[r + 1] - indptr[r])
    row = np.empty(longest, np.int64)
    other = np.empty(longest, np.int64)
    bits = 1
    while (1 << bits) < n_columns:
        bits += 1
    half = (bits + 1) // 2
    third = (bits + 2) // 3
    hist = np.empty(1 << half, np.int64)
    q = at
    for r in range(n_rows):
        a, b = indptr[r], indptr[r + 1]
        m = b - a
        out_indptr[r] = q
        for k in range(a, b):
            row[k - a] = (np.int64(column[indices[k]]) << 32) | np.int64(counts[k])
        src = row
        if m <= _INSERTION_MAX:
            for k in range(1, m):
                x = row[k]
                j = k - 1
                while j >= 0 and row[j] > x:
                    row[j + 1] = row[j]
                    j -= 1
                row[j + 1] = x
        else:
            # Two passes on half the bits, or three on a third when the row is short next
            # to the histograms: their clearing and summing then costs more than the
            # third pass over the row (most 20 Newsgroups 1-2-gram rows, ~300 columns of
            # ~10^6).
            width = half if 2 * (m + (1 << half)) <= 3 * (m + (1 << third)) else third
            mask = (1 << width) - 1
            n_hist = 1 << width
            dst = other
            for shift in range(32, 32 + bits, width):
                hist[:n_hist] = 0
                for k in range(m):
                    hist[(src[k] >> shift) & mask] += 1
                total = 0
                for h in range(n_hist):
                    c = hist[h]
                    hist[h] = total
                    total += c
                for k in range(m):
                    h = (src[k] >> shift) & mask
                    dst[hist[h]] = src[k]
                    hist[h] += 1
                src, dst = dst, src
        for k in range(m):
            c = np.int32(src[k] >> 32)
            v = np.float64(src[k] & 0xFFFFFFFF)
            if merge and q > out_indptr[r] and out_indices[q - 1] == c:
                out_data[q - 1] += v
            else:
                out_indices[q] = c
                out_data[q] = v
                q += 1
    return q


_INSERTION_MAX = 32  # rows up to this long are sorted by insertion


@njit(nogil=True)
def sorted_rows_of_chunks(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    chunks: np.ndarray,
    column: np.ndarray,
    out_indptr: np.ndarray,
    out_indices: np.ndarray,
    out_data: np.ndarray,
    n_columns: int,
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """:func:`sorted_rows` of several chunks of rows in one call (none merged), then the
    :func:`column_totals` of the entries written. Chunk ``i``, ``chunks[i] = (p, q, e, c, d,
    o)``: its row pointers ``indptr[p:q]`` into its entries ``indices[e:]`` and
    ``counts[e:]``, its entry ``k`` in column ``column[c + k]``; its rows are rows ``d, d + 1,
    ...`` of the output, their entries from ``out_*[o]`` on. The chunks' output must follow
    each other: the totals are those of ``out_*[chunks[0, 5]:]`` up to the last one's end."""
    lo = chunks[0, 5] if chunks.shape[0] else 0
    hi = lo
    for i in range(chunks.shape[0]):
        p, q, e, c, d, o = chunks[i]
        hi = sorted_rows(
            indptr[p:q], indices[e:], counts[e:], column[c:], out_indptr[d : d + q - p - 1],
            out_indices, out_data, o, False, n_columns,
        )  # fmt: skip
    return column_totals(out_indices[lo:hi], out_data[lo:hi], n_columns)


@njit(nogil=True)
def crc_columns(
    arena: np.ndarray,
    start: np.ndarray,
    length: np.ndarray,
    utf8: bool,
    width: int,
    crc: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """``zlib.crc32(term.encode("utf-8", "surrogatepass")) % width`` of each string (latin-1
    bytes are widened to UTF-8 on the fly)."""
    out = np.empty(start.size, np.int32)
    mask = np.uint32(0xFF)
    for t in range(start.size):
        c = np.uint32(0xFFFFFFFF)
        for k in range(start[t], start[t] + length[t]):
            b = np.uint32(arena[k])
            if not utf8 and b >= 0x80:
                lead = np.uint32(0xC0) | (b >> np.uint32(6))
                c = crc[(c ^ lead) & mask] ^ (c >> np.uint32(8))
                b = np.uint32(0x80) | (b & np.uint32(0x3F))
            c = crc[(c ^ b) & mask] ^ (c >> np.uint32(8))
        out[t] = np.int64(c ^ np.uint32(0xFFFFFFFF)) % width
    return out


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
    """Entries and summed (whole-number) values per column of a sparse matrix, as int64.

    When every sum fits 32 bits (the values' magnitudes add up to less than 2**31), both are
    tallied as int32 side by side, in one cache line per entry: 3x faster on the 1.2 million
    columns of 20 Newsgroups' 1-2-grams than two int64 arrays, which leave the cache."""
    whole = 0.0
    for k in range(data.size):
        whole += abs(data[k])
    if indices.size < 2**31 and whole < 2**31:
        both = np.zeros((n_columns, 2), np.int32)
        for k in range(indices.size):
            j = indices[k]
            both[j, 0] += 1
            both[j, 1] += np.int32(data[k])
        return both[:, 0].astype(np.int64), both[:, 1].astype(np.int64)
    entries = np.zeros(n_columns, np.int64)
    totals = np.zeros(n_columns, np.int64)
    for k in range(indices.size):
        entries[indices[k]] += 1
        totals[indices[k]] += np.int64(data[k])
    return entries, totals
