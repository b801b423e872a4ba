"""The scanner's vocabulary tables (:class:`_Entries`; :class:`Lookup` for a fixed
vocabulary), and their terms put in order and spelled out.

An entry is a byte string or a word n-gram of entries (:mod:`._scan_entries` says how the
tables find them). Terms are sorted by their bytes, which is their order as ``str``: latin-1
and UTF-8 bytes (with ``surrogatepass``) compare as their code points do.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import _table_kernels as kernels
from ._encode import _IDENTITY

#: Word n-grams are sorted by keys of their tokens' ranks when the keys fit so many bits,
#: otherwise by their bytes.
RANK_KEY_BITS = 63


@dataclass
class _Entries:
    """A vocabulary table: the ``tokens`` and ``pairs`` hash tables and, per entry, its hash,
    key, bytes in the arena (strings), parts (pairs) and order (see :mod:`._scan_entries`)."""

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
        (:func:`~._table_kernels.rank_tuples`) when the keys fit :data:`RANK_KEY_BITS`:
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
    """:func:`~._table_kernels.term_order` of strings with these keys, bytes and lengths."""
    return kernels.term_order(np.argsort(key), key, start, length, arena)


def _sort_distinct(
    keys: np.ndarray, key_bits: int, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(values[np.argsort(keys)], np.sort(keys))`` of distinct non-negative keys below
    ``2**key_bits`` and non-negative int64 ``values``: each value packed into its key's low
    bits when both fit 63 bits, and the packed integers sorted by their digits
    (:func:`~._table_kernels.radix_sort`, a quarter of numpy's ``argsort`` time for a million
    1-2-grams), so no random gather takes the values in the sorted order."""
    value_bits = max(1, int(values.max(initial=0)).bit_length())
    if key_bits + value_bits > 63:
        index = np.argsort(keys)
        return values[index], keys[index]
    packed = kernels.radix_sort((keys << value_bits) | values, key_bits + value_bits)
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
