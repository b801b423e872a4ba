"""The passes of :mod:`._kernels` in numpy, for tables small enough that numpy's temporaries
are cheap: counting every subset's cell, scoring TAN/KDB and AODE, coding whole numbers.

A process that only fits and predicts small tables (cross-validating a UCI table) then never
imports numba (about 1 s) nor loads a compiled kernel from its cache (0.1–0.5 s each), which
costs far more than the passes themselves. Above :data:`NUMPY_WORK` the compiled kernels run.

The counts are the kernels' to the last bit: ``bincount`` adds each cell's weights in row
order, as the kernels do. The network scores are too (each row's factors are added feature
by feature, the kernel's order); AODE's log-sum-exp over the super-parents is taken in one
step instead of the kernel's running one, equal up to rounding.
"""

from __future__ import annotations

import numpy as np

#: Up to this many temporaries (row × subset × member for counting, row × factor × class for
#: scoring) the numpy passes run; beyond, the compiled kernels.
NUMPY_WORK = 1 << 22


def subset_cells(
    codes: np.ndarray, features: np.ndarray, strides: np.ndarray, offsets: np.ndarray
) -> np.ndarray:
    """Each subset's cell of each row, (n_subsets, n): an index of the flat cell axis, −1
    where a feature of the subset is missing in the row (the kernels' ``_cell``)."""
    columns = np.ascontiguousarray(codes.T)  # a feature's codes side by side: rows to gather
    cells = np.repeat(offsets[: len(features), None], codes.shape[0], axis=1)
    missing = np.zeros(cells.shape, dtype=bool)
    for t in range(features.shape[1]):  # the members of a subset: at most MAX_ORDER
        member = features[:, t]
        values = columns[np.maximum(member, 0)]
        cells += values * strides[:, t, None]  # padding has stride 0
        missing |= (values < 0) & (member >= 0)[:, None]
    cells[missing] = -1
    return cells


def count_hard(
    cells: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int, n_cells: int
) -> np.ndarray:
    """``counts[class, cell]`` of rows of class ``y`` and weight ``w`` (n_classes, n_cells),
    from :func:`subset_cells`."""
    keys = cells + y * n_cells
    weights = np.broadcast_to(w, cells.shape)
    seen = cells >= 0
    if not seen.all():
        keys, weights = keys[seen], weights[seen]
    out = np.bincount(keys.ravel(), weights=weights.ravel(), minlength=n_classes * n_cells)
    return out.astype(np.float64, copy=False).reshape(n_classes, n_cells)


def count_soft(cells: np.ndarray, W: np.ndarray, n_cells: int) -> np.ndarray:
    """As :func:`count_hard` for soft class weights ``W`` (n, n_classes)."""
    n_classes = W.shape[1]
    keys = cells[:, :, None] + np.arange(n_classes) * n_cells
    weights = np.broadcast_to(W, keys.shape)
    seen = np.broadcast_to((cells >= 0)[:, :, None], keys.shape)
    if not seen.all():
        keys, weights = keys[seen], weights[seen]
    out = np.bincount(keys.ravel(), weights=weights.ravel(), minlength=n_classes * n_cells)
    return out.astype(np.float64, copy=False).reshape(n_classes, n_cells)


def shifted_codes(values: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """``values − lo`` per column as int64, −1 where a value is NaN (missing)."""
    if values.dtype.kind in "biu":
        return values.astype(np.int64) - lo
    missing = np.isnan(values)
    return np.where(missing, -1, np.where(missing, 0.0, values).astype(np.int64) - lo)


def network(
    codes: np.ndarray,
    parents: np.ndarray,
    strides: np.ndarray,
    cpt_offsets: np.ndarray,
    cpt: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
) -> np.ndarray:
    """``Σ_i ln P(x_i | y, x_pa(i))`` of each row, (n, n_classes); a missing ``x_i`` drops
    its factor, a missing parent gives ``ln P(x_i | y)`` (the kernels' ``_network_row``)."""
    factors = network_factors(codes, parents, strides, cpt_offsets, cpt, cat_offsets, single)
    return factors.sum(axis=1)  # feature after feature, as the kernel adds them


def network_factors(
    codes: np.ndarray,
    parents: np.ndarray,
    strides: np.ndarray,
    cpt_offsets: np.ndarray,
    cpt: np.ndarray,
    cat_offsets: np.ndarray,
    single: np.ndarray,
) -> np.ndarray:
    """``ln P(x_i | y, x_pa(i))`` of each row, feature and class (n, d, n_classes); 0 where
    ``x_i`` is missing."""
    n, d = codes.shape
    n_classes = cpt.shape[1]
    present = codes >= 0
    key = cpt_offsets + codes * strides[:, 0]
    whole = present.copy()  # every parent observed too
    for t in range(parents.shape[1]):  # parent slots: k ≤ 3, not features
        slot = parents[:, t]
        has = slot >= 0
        value = codes[:, np.maximum(slot, 0)]
        key += np.where(has, value * strides[:, t + 1], 0)
        whole &= ~has | (value >= 0)
    out = np.zeros((n, d, n_classes))
    # only the cells a row uses are read (a feature or parent with no value seen in training
    # has an empty block: a stand-in index would fall outside it)
    out[whole] = cpt[key[whole]]
    fallback = present & ~whole
    out[fallback] = single[(cat_offsets[:-1] + codes)[fallback]]
    return out


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
) -> np.ndarray:
    """``ln`` of the average over the super-parents ``p`` of ``P(x_p | y) Π_{i≠p} P(x_i | y,
    x_p)``, (n, n_classes); naive Bayes where no feature qualifies (the kernels'
    ``_aode_row``)."""
    n, d = codes.shape
    present = codes >= 0
    start = cat_offsets[:-1]
    row_of = np.where(present, start + codes, 0)
    # one table to read every factor from: P(x_lo | y, x_hi), P(x_hi | y, x_lo), P(x | y),
    # and a row of zeros for the factors a missing value drops
    n_hi, n_lo, n_single = len(given_hi), len(given_lo), len(single)
    table = np.concatenate([given_hi, given_lo, single, np.zeros((1, single.shape[1]))])
    zero = n_hi + n_lo + n_single
    naive_key = np.where(present, n_hi + n_lo + row_of, zero)
    naive = table[naive_key].sum(axis=1)  # feature after feature, as the kernel adds them
    parent = present & (parent_ok[row_of] if n_single else False)
    used = parent.sum(axis=1)
    if not parent.any():
        return naive
    # key[r, p, 0]: P(x_p | y); key[r, p, 1 + t]: the t-th other feature i given x_p
    p, i = np.nonzero(~np.eye(d, dtype=bool))  # p major, i increasing
    s = pair_index[i, p]
    a_p, a_i = codes[:, p], codes[:, i]
    first = i < p  # the pair (i, p): x_i is its first feature, given the second
    cell = pair_offsets[s] + np.where(first, a_i * sizes[p] + a_p, a_p * sizes[i] + a_i)
    cell = np.where(first, cell, n_hi + cell)
    key = np.empty((n, d, d), dtype=np.int64)
    key[:, :, 0] = naive_key
    key[:, :, 1:] = np.where((a_i >= 0) & (a_p >= 0), cell, zero).reshape(n, d, d - 1)
    term = table[key].sum(axis=2)  # (n, d, n_classes), the kernel's order of addition
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(parent[:, :, None], term, -np.inf)
        top = term.max(axis=1)  # (n, n_classes)
        safe = np.where(np.isfinite(top), top, 0.0)
        total = np.exp(term - safe[:, None, :]).sum(axis=1)
        mixed = np.where(total > 0.0, safe + np.log(total), -np.inf)
        mixed -= np.log(np.maximum(used, 1))[:, None]
    return np.where((used > 0)[:, None], mixed, naive)
