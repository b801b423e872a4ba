"""Compiled kernels of the document rows (:mod:`bayeskit.text._rows` and
:mod:`bayeskit.text._scan` drive them): sorting each CSR row by column, checksums of the
columns, remapping rows onto another vocabulary's columns, column totals, and the rows'
weights scaled by column and divided by their norms.
"""

from __future__ import annotations

import numpy as np

from .._insertion import sort_first
from .._jit import njit, prange


def _crc_table() -> np.ndarray:
    table = np.zeros(256, np.uint32)
    for byte in range(256):
        c = byte
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table[byte] = c
    return table


CRC_TABLE = _crc_table()


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
            sort_first(row, m)
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


@njit(nogil=True)
def _pairwise_squares(data: np.ndarray, start: int, n: int) -> float:  # pragma: no cover
    """The sum of the squares of ``data[start:start + n]`` as numpy's pairwise summation adds
    a contiguous array: fewer than 8 one by one from -0.0; up to 128 in 8 partial sums
    (value ``i`` into sum ``i % 8``), added ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 +
    s7))``, then the rest one by one; more, the two halves (the first a multiple of 8) so."""
    if n < 8:
        total = -0.0
        for i in range(start, start + n):
            total += data[i] * data[i]
        return total
    if n > 128:
        half = n // 2
        half -= half % 8
        return _pairwise_squares(data, start, half) + _pairwise_squares(
            data, start + half, n - half
        )
    # (eight locals, not an array: this runs once a row and a block of a long row)
    s0, s1 = data[start] * data[start], data[start + 1] * data[start + 1]
    s2, s3 = data[start + 2] * data[start + 2], data[start + 3] * data[start + 3]
    s4, s5 = data[start + 4] * data[start + 4], data[start + 5] * data[start + 5]
    s6, s7 = data[start + 6] * data[start + 6], data[start + 7] * data[start + 7]
    i = start + 8
    paired = start + n - n % 8
    while i < paired:
        s0 += data[i] * data[i]
        s1 += data[i + 1] * data[i + 1]
        s2 += data[i + 2] * data[i + 2]
        s3 += data[i + 3] * data[i + 3]
        s4 += data[i + 4] * data[i + 4]
        s5 += data[i + 5] * data[i + 5]
        s6 += data[i + 6] * data[i + 6]
        s7 += data[i + 7] * data[i + 7]
        i += 8
    total = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    while i < start + n:
        total += data[i] * data[i]
        i += 1
    return total


@njit(nogil=True, parallel=True)
def scale_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    idf: np.ndarray,
    weights: np.ndarray,
    sums: np.ndarray,
) -> bool:  # pragma: no cover
    """Each entry times its column's ``idf`` and then its ``weights`` (each when not empty),
    in place, and each row's sum of squares into ``sums``: the first square plus the rest's
    pairwise sum, as ``np.add.reduceat`` adds a row of squares. False when a square is 0 (the
    sums then do not stand for numpy's, which a stored zero changes)."""
    scaled_by_idf = idf.size > 0
    scaled_by_weights = weights.size > 0
    n_rows = indptr.size - 1
    zero = np.zeros(n_rows, np.bool_)
    for row in prange(n_rows):
        start, stop = indptr[row], indptr[row + 1]
        for p in range(start, stop):
            value = data[p]
            if scaled_by_idf:
                value *= idf[indices[p]]
            if scaled_by_weights:
                value *= weights[indices[p]]
            data[p] = value
            if value * value == 0.0:
                zero[row] = True
        if stop > start:
            sums[row] = data[start] * data[start] + _pairwise_squares(
                data, start + 1, stop - start - 1
            )
        else:
            sums[row] = 0.0
    return not zero.any()


@njit(nogil=True, parallel=True)
def divide_rows(
    indptr: np.ndarray, data: np.ndarray, sizes: np.ndarray
) -> None:  # pragma: no cover
    """Each row's entries divided by its size, in place."""
    for row in prange(indptr.size - 1):
        size = sizes[row]
        for p in range(indptr[row], indptr[row + 1]):
            data[p] /= size
