"""What every compiled text kernel inlines: reading bytes, hashing them, finding or adding
entries, and counting them into a row (:mod:`bayeskit.text._scan` drives the kernels).

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

A byte string's hash is built from its bytes eight at a time (``push_byte``, ``finish_hash``); its
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
outputs. :func:`bayeskit._jit.njit` keeps the compiled code next to each module where it can.
The kernels live in three modules beside this one: the scanners (:mod:`._scan_kernels`), the
tables' merging and ordering (:mod:`._table_kernels`), and the rows' sorting and remapping
(:mod:`._row_kernels`). They inline the helpers here; a kernel's disk cache is stamped with
every kernel module (:data:`bayeskit._jit.KERNEL_SOURCES`), so a change here rebuilds them all.
"""

from __future__ import annotations

import numpy as np

from .._jit import count_ones, load_be64, load_le64, njit, trailing_zeros

WORD, SPACE, TOKEN = 1, 2, 4  # bits of a character's class: \w, \s, may be in a token
EMPTY = np.uint64(0)  # a free slot's second word (never 0 in use: see bytes_entry, pair_entry)
SEED = np.uint64(0x243F6A8885A308D3)
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_LOW32 = np.uint64(0xFFFFFFFF)
ONE = np.uint64(1)
U8 = np.uint64(8)
U32 = np.uint64(32)
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

#: How many probes ahead the n-gram pass asks for the slots it will read (:func:`prefetch`).
PREFETCH_AHEAD = 16

# ---------------------------------------------------------------------------- bytes and hashes


@njit(nogil=True, inline="always", _nrt=False)
def char_width(lead: int) -> int:  # pragma: no cover
    """Bytes of the UTF-8 character starting with byte ``lead``."""
    if lead < 0x80:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


@njit(nogil=True, inline="always", _nrt=False)
def code_point(
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
def push_byte(
    h: np.uint64, acc: np.uint64, nb: int, key: np.uint64, byte: int
) -> tuple[np.uint64, np.uint64, int, np.uint64]:  # pragma: no cover
    """Add one byte to a hash state ``(h, acc, nb, key)``: ``acc`` gathers the bytes; every 8
    are mixed into ``h``, the first 8 also kept as the ``key``; ``nb`` counts them all."""
    acc = (acc << U8) | np.uint64(byte)
    nb += 1
    if nb & 7 == 0:
        if nb == 8:
            key = acc
        h = (h ^ acc) * _M1
        h ^= h >> U32
        acc = np.uint64(0)
    return h, acc, nb, key


@njit(nogil=True, inline="always", _nrt=False)
def finish_hash(
    h: np.uint64, acc: np.uint64, nb: int, key: np.uint64
) -> tuple[np.uint64, np.uint64]:  # pragma: no cover
    """``(hash, key)`` of a string of ``nb`` bytes from its hash state."""
    if nb < 8:  # the mask keeps nb == 0 (acc == 0) off a 64-bit shift, undefined in LLVM
        key = acc << np.uint64((8 * (8 - nb)) & 63)
    x = ((h ^ acc) * _M1) ^ np.uint64(nb)
    x ^= x >> np.uint64(29)
    x *= _M2
    x ^= x >> U32
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
def hash_at(text: np.ndarray, s: int, nb: int, fold: bool) -> tuple[np.uint64, np.uint64]:
    """``finish_hash``'s ``(hash, key)`` of the ``nb`` bytes at ``text[s]`` (lowercased when
    ``fold``), read eight at a time: the same numbers as pushing them one by one. ``text``
    has 8 readable bytes after every string asked for (the driver pads it)."""
    h = SEED
    q = s
    for _ in range(nb >> 3):
        w = load_be64(text, q)
        if fold:
            w = _fold8(w)
        h = (h ^ w) * _M1
        h ^= h >> U32
        q += 8
    w = load_be64(text, q)
    if fold:
        w = _fold8(w)
    r = nb & 7
    acc = w >> np.uint64((64 - 8 * r) & 63) if r else np.uint64(0)
    key = np.uint64(0)  # shorter tokens: finish_hash takes the key from the word just read
    if nb >= 8:
        key = load_be64(text, s)
        if fold:
            key = _fold8(key)
    return finish_hash(h, acc, nb, key)


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
            m |= (c & ONE) << np.uint64(8 * k + 7)
        return m
    digit = (x + _BIAS_0) & ~(x + _BIAS_9)
    x_lower = x | _CASE
    letter = (x_lower + _BIAS_LA) & ~(x_lower + _BIAS_LZ)
    underscore = ~((x ^ _UNDERSCORE) + _LOW7)
    return (digit | letter | underscore) & _HIGH


@njit(nogil=True, inline="always", _nrt=False)
def latin1_runs(
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
        shifted = (m << U8) | prev
        starts = m & ~shifted
        ends = ~m & shifted
        n_starts = np.int64(count_ones(starts))
        n_ends = np.int64(count_ones(ends))
        for q in range(4):
            bounds[0, opened + q] = i + np.int64(trailing_zeros(starts) >> _U3)
            starts &= starts - ONE
        for q in range(4):
            bounds[1, closed + q] = i + np.int64(trailing_zeros(ends) >> _U3)
            ends &= ends - ONE
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
        if closed == cap:
            # (checked before the byte is read: the eight-byte loop may have used the room
            # up, and a run starting at i must be found whole by the next call)
            return i, closed
        c = (np.int64(classes[text[i]]) >> 2) & 1  # TOKEN
        bounds[0, opened] = i
        opened += c & (last ^ 1)
        bounds[1, closed] = i
        closed += last & (c ^ 1)
        last = c
        i += 1
    if last == 1:
        bounds[1, closed] = end
        closed += 1
    return i, closed


@njit(nogil=True, inline="always", _nrt=False)
def pair_hash(pk: np.uint64) -> np.uint64:  # pragma: no cover
    x = pk * _M1
    x ^= x >> np.uint64(29)
    x *= _M2
    x ^= x >> U32
    return x


@njit(nogil=True, inline="always", _nrt=False)
def find_bytes(
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
        if tokens[p, 0] == key and (tag >> U32) == want:
            e = np.int64(tag & _LOW32)
            same = True
            a = start[e]
            for k in range(8, length):  # the first 8 bytes are the key
                if arena[a + k] != lower[src[s + k]]:
                    same = False
                    break
            if same:
                return np.int64(p), e
        p = (p + ONE) & mask


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
        p = (p + ONE) & mask


@njit(nogil=True, inline="always", _nrt=False)
def _room(
    sizes: np.ndarray, ids: np.ndarray, table: np.ndarray, n_in_table: int
) -> bool:  # pragma: no cover
    """Whether one more entry fits: an id, and a slot with the table staying half empty."""
    return sizes[0] < ids.size and 2 * (n_in_table + 1) <= table.shape[0]


@njit(nogil=True, inline="always", _nrt=False)
def row_add(
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
def bytes_entry(
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
    slot, e = find_bytes(tokens, hf, key, length, arena, e_start, src, lower, s)
    if e >= 0 or not insert:
        return e
    used = sizes[1]
    if not _room(sizes, e_hash, tokens, sizes[2]) or used + length + 1 > arena.size:
        return -2
    e = sizes[0]
    tokens[slot, 0] = key
    tokens[slot, 1] = (np.uint64(length) << U32) | np.uint64(e)
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
def pair_entry(
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
    """The entry of the word n-gram ``left`` + token ``right`` (as :func:`bytes_entry`);
    -1 as well when either part is unknown."""
    if left < 0 or right < 0:
        return -1
    pk = (np.uint64(left) << U32) | np.uint64(right)
    hf = pair_hash(pk)
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
def column_of(insert: bool, e: int, column: np.ndarray, oov: int) -> int:  # pragma: no cover
    """Where an occurrence of entry ``e`` (-1: none) counts: its own id when counting new
    terms; its vocabulary column, else the out-of-vocabulary one (-1: nowhere)."""
    if insert:
        return e
    if e >= 0 and column[e] >= 0:
        return column[e]
    return oov


@njit(nogil=True, inline="always", _nrt=False)
def next_token(
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
    h, acc, nb, key = SEED, np.uint64(0), 0, np.uint64(0)
    cp, width = code_point(text, lower, i, utf8)
    if classes[cp] & TOKEN == 0 or (joined and classes[cp] & WORD == 0):
        return -1, i + width, h, acc, nb, key
    s = i
    n_chars = 0
    kept_h, kept_acc, kept_nb, kept_key, kept_chars = h, acc, nb, key, 0
    while True:
        for k in range(width):
            h, acc, nb, key = push_byte(h, acc, nb, key, lower[text[i + k]])
        i += width
        n_chars += 1
        if joined and classes[cp] & WORD:
            kept_h, kept_acc, kept_nb, kept_key, kept_chars = h, acc, nb, key, n_chars
        if i >= end:
            break
        cp, width = code_point(text, lower, i, utf8)
        if classes[cp] & TOKEN == 0:
            break
    if joined:
        h, acc, nb, key, n_chars = kept_h, kept_acc, kept_nb, kept_key, kept_chars
    if n_chars < min_chars:
        return -1, i, h, acc, nb, key
    return s, i, h, acc, nb, key
