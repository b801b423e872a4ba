"""Compiled passes over the rows: counting every feature subset's cell, and scoring a network.

Each pass visits a row once and does a few instructions per (row, subset) or (row, factor);
numpy's way (one ``bincount`` per subset over combined codes) makes a temporary of the data's
size per subset. Codes are each value's index among its feature's categories, −1 where the
value is missing (or was never seen in training: it drops out of the factors it touches).
Tables small enough for numpy's temporaries take the same passes in numpy (:mod:`._small`),
without loading these.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit, prange


@njit(inline="always")
def _cell(
    codes: np.ndarray,
    r: int,
    s: int,
    features: np.ndarray,
    strides: np.ndarray,
    offsets: np.ndarray,
) -> int:  # pragma: no cover
    """Row ``r``'s cell of subset ``s`` (an index of the flat cell axis); −1 when a feature
    of the subset is missing in the row."""
    key = offsets[s]
    for t in range(features.shape[1]):
        f = features[s, t]
        if f < 0:
            break
        v = codes[r, f]
        if v < 0:
            key = -1
            break
        key += v * strides[s, t]
    return key


@njit(nogil=True)
def count_hard(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    features: np.ndarray,
    strides: np.ndarray,
    offsets: np.ndarray,
    n_classes: int,
    n_cells: int,
) -> np.ndarray:  # pragma: no cover
    """``counts[cell, class]``: the weight of the rows of each class in each subset's cell,
    summed in row order (whole weights add exactly in any order)."""
    counts = np.zeros((n_cells, n_classes))
    n = codes.shape[0]
    n_subsets = features.shape[0]
    for r in range(n):
        c = y[r]
        wr = w[r]
        if wr == 0.0:
            continue
        for s in range(n_subsets):
            key = _cell(codes, r, s, features, strides, offsets)
            if key >= 0:
                counts[key, c] += wr
    return counts


@njit(nogil=True)
def _count_pairs_rows(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cat_offsets: np.ndarray,
    pair_offsets: np.ndarray,
    sizes: np.ndarray,
    counts: np.ndarray,
    start: int,
    stop: int,
) -> None:  # pragma: no cover
    d = codes.shape[1]
    for r in range(start, stop):
        c = y[r]
        wr = w[r]
        if wr == 0.0:
            continue
        for i in range(d):
            a = codes[r, i]
            if a < 0:
                continue
            counts[cat_offsets[i] + a, c] += wr
            for j in range(i + 1, d):
                b = codes[r, j]
                if b >= 0:
                    counts[pair_offsets[i, j] + a * sizes[j] + b, c] += wr


@njit(nogil=True)
def count_pairs_serial(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cat_offsets: np.ndarray,
    pair_offsets: np.ndarray,
    sizes: np.ndarray,
    n_classes: int,
    n_cells: int,
) -> np.ndarray:  # pragma: no cover
    """:func:`count_pairs` in one chunk, without starting the thread pool (small tables)."""
    counts = np.zeros((n_cells, n_classes))
    _count_pairs_rows(
        codes, y, w, cat_offsets, pair_offsets, sizes, counts, 0, codes.shape[0]
    )  # fmt: skip
    return counts


@njit(parallel=True)
def count_pairs(
    codes: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    cat_offsets: np.ndarray,
    pair_offsets: np.ndarray,
    sizes: np.ndarray,
    n_classes: int,
    n_cells: int,
    n_chunks: int,
) -> np.ndarray:  # pragma: no cover
    """:func:`count_hard` for singles and pairs (TAN, AODE, KDB with k = 1), the rows cut
    into ``n_chunks`` consecutive chunks counted side by side and added in chunk order (a
    split fixed by the number of rows, so the same rows give the same sums)."""
    n = codes.shape[0]
    parts = np.zeros((n_chunks, n_cells, n_classes))
    step = (n + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        _count_pairs_rows(
            codes, y, w, cat_offsets, pair_offsets, sizes, parts[t], t * step,
            min(n, (t + 1) * step),
        )  # fmt: skip
    out = parts[0].copy()
    for t in range(1, n_chunks):
        out += parts[t]
    return out


@njit(nogil=True)
def shifted_codes(values: np.ndarray, lo: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``out = values − lo`` per column, −1 where a value is NaN (missing)."""
    n, d = values.shape
    for r in range(n):
        for j in range(d):
            v = values[r, j]
            out[r, j] = -1 if v != v else np.int64(v) - lo[j]


@njit(nogil=True)
def count_soft(
    codes: np.ndarray,
    W: np.ndarray,
    features: np.ndarray,
    strides: np.ndarray,
    offsets: np.ndarray,
    n_cells: int,
) -> np.ndarray:  # pragma: no cover
    """As :func:`count_hard` for soft class weights ``W`` (n_rows, n_classes)."""
    n, n_classes = W.shape
    counts = np.zeros((n_cells, n_classes))
    n_subsets = features.shape[0]
    for r in range(n):
        for s in range(n_subsets):
            key = _cell(codes, r, s, features, strides, offsets)
            if key >= 0:
                for c in range(n_classes):
                    counts[key, c] += W[r, c]
    return counts


@njit(inline="always")
def _network_row(
    codes: np.ndarray,
    r: int,
    parents: np.ndarray,
    strides: np.ndarray,
    cpt_offsets: np.ndarray,
    cpt: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    d, k = parents.shape
    n_classes = cpt.shape[1]
    for i in range(d):
        a = codes[r, i]
        if a < 0:
            continue
        key = cpt_offsets[i] + a * strides[i, 0]
        ok = True
        for t in range(k):
            p = parents[i, t]
            if p < 0:
                break
            b = codes[r, p]
            if b < 0:
                ok = False
                break
            key += b * strides[i, t + 1]
        if ok:
            for c in range(n_classes):
                out[r, c] += cpt[key, c]
        else:  # a parent is missing: the factor falls back to P(x_i | y)
            row = cat_offsets[i] + a
            for c in range(n_classes):
                out[r, c] += single[row, c]


@njit(parallel=True)
def network(
    codes: np.ndarray,
    parents: np.ndarray,
    strides: np.ndarray,
    cpt_offsets: np.ndarray,
    cpt: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    for r in prange(codes.shape[0]):
        _network_row(codes, r, parents, strides, cpt_offsets, cpt, cat_offsets, single, out)


@njit(inline="always")
def _aode_row(
    codes: np.ndarray,
    r: int,
    pair_index: np.ndarray,
    pair_offsets: np.ndarray,
    sizes: np.ndarray,
    given_hi: np.ndarray,
    given_lo: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
    parent_ok: np.ndarray,
    out: np.ndarray,
    top: np.ndarray,
    total: np.ndarray,
    term: np.ndarray,
) -> None:  # pragma: no cover
    d = codes.shape[1]
    n_classes = single.shape[1]
    for c in range(n_classes):
        top[r, c] = -np.inf
        total[r, c] = 0.0
    used = 0
    for p in range(d):
        ap = codes[r, p]
        if ap < 0 or not parent_ok[cat_offsets[p] + ap]:
            continue
        used += 1
        for c in range(n_classes):
            term[r, c] = single[cat_offsets[p] + ap, c]
        for i in range(d):
            ai = codes[r, i]
            if i == p or ai < 0:
                continue
            s = pair_index[i, p]
            if i < p:  # the pair (i, p): x_i is its first feature, given the second
                key = pair_offsets[s] + ai * sizes[p] + ap
                for c in range(n_classes):
                    term[r, c] += given_hi[key, c]
            else:  # the pair (p, i): x_i is its second feature, given the first
                key = pair_offsets[s] + ap * sizes[i] + ai
                for c in range(n_classes):
                    term[r, c] += given_lo[key, c]
        for c in range(n_classes):  # log-sum-exp, one super-parent at a time
            v = term[r, c]
            if v == -np.inf:
                continue
            if v > top[r, c]:
                total[r, c] = total[r, c] * np.exp(top[r, c] - v) + 1.0
                top[r, c] = v
            else:
                total[r, c] += np.exp(v - top[r, c])
    if used == 0:  # no super-parent qualifies: naive Bayes
        for i in range(d):
            ai = codes[r, i]
            if ai < 0:
                continue
            for c in range(n_classes):
                out[r, c] += single[cat_offsets[i] + ai, c]
        return
    for c in range(n_classes):
        if total[r, c] > 0.0:
            out[r, c] += top[r, c] + np.log(total[r, c]) - np.log(used)
        else:
            out[r, c] = -np.inf


@njit(parallel=True)
def aode(
    codes: np.ndarray,
    pair_index: np.ndarray,
    pair_offsets: np.ndarray,
    sizes: np.ndarray,
    given_hi: np.ndarray,
    given_lo: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
    parent_ok: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover
    top = np.empty_like(out)
    total = np.empty_like(out)
    term = np.empty_like(out)
    for r in prange(codes.shape[0]):
        _aode_row(
            codes, r, pair_index, pair_offsets, sizes, given_hi, given_lo, cat_offsets,
            single, parent_ok, out, top, total, term,
        )  # fmt: skip
