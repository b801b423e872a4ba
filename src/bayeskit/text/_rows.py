"""The scanner's rows: written per chunk of documents over each thread's own entry ids, then
rewritten over the sorted terms' columns into one CSR matrix, with each column's totals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._threads import in_background
from .._threads import in_parallel as _in_parallel
from . import _row_kernels as kernels


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
    def of(cls, rooms: list[int], chunks: list[tuple[int, int]]) -> _RowBuffer:
        """Room for ``rooms[c]`` entries of chunk ``c`` (documents ``chunks[c]``)."""
        at = np.cumsum([0, *rooms])
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


def _rows_and_totals(
    scanned: list[_Rows],
    buffer: _RowBuffer,
    column: np.ndarray,
    column_at: np.ndarray,
    n_columns: int,
    threaded: bool,
    *,
    names_here: bool = True,
) -> Callable[[], tuple[np.ndarray, ...]]:
    """A function waiting for the CSR ``(indptr, indices, data)`` of the scanned rows over
    ``n_columns`` (thread ``w``'s entry ``e`` in column ``column[column_at[w] + e]``) and
    ``(entries, total)`` per column, computed on another thread when ``threaded`` (the rows
    are then shared with the calling thread, which first makes the terms' names when
    ``names_here``).

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

        return in_background(threaded, per_chunk)
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
    share = ((NAME_COST * n_columns if names_here else 0) + n_entries) / (2 * max(n_entries, 1))
    behind, ahead = _split_rows(chunks, buffer.indptr, int(n_entries * min(share, 1.0)))
    wait = in_background(True, lambda: rewrite(behind))

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
    """:func:`~._row_kernels.sorted_rows_of_chunks`'s table of chunks cut in two at the
    row boundary nearest ``entries`` output entries: the rows before it, the rows after
    (possibly none). A chunk cut in two keeps its entries' place; its second part starts
    at the cut's row and output entry."""
    at = chunks[:, 5]
    p, q = int(chunks[-1, 0]), int(chunks[-1, 1])
    if entries >= int(at[-1]) + int(indptr[q - 1] - indptr[p]):  # past the last entry
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
