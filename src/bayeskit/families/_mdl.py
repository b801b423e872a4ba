"""The sorted class counts every discretization starts from, and the supervised cuts of
Fayyad & Irani (1993): recursive minimum-entropy splits stopped by the minimum description
length principle.

An interval ``S`` holding ``N`` (weighted) rows is cut at the boundary ``T`` that minimises the
class entropy of the two halves, ``E(T; S) = N₁/N Ent(S₁) + N₂/N Ent(S₂)``, and the cut is kept
only when it pays for itself:

    Gain(T; S) = Ent(S) − E(T; S)  >  (log₂(N − 1) + Δ(T; S)) / N,
    Δ(T; S) = log₂(3^k − 2) − [k Ent(S) − k₁ Ent(S₁) − k₂ Ent(S₂)],

with ``k``, ``k₁``, ``k₂`` the numbers of classes present in ``S``, ``S₁``, ``S₂`` (entropies
in bits). Both halves are then cut again in the same way. Weights count as rows (a row of
weight 2 is two rows), so ``N`` is a total weight; an interval of weight below 2 is never cut.

Candidate cuts lie halfway between consecutive distinct values. The recursion runs level by
level over all features at once: every interval still open at one level is scored in the same
few array operations, from running class totals along each feature's sorted values. The only
loops are over recursion levels and over batches of intervals that bound the memory used;
none visits a row, a candidate or a feature.

Reference: U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
attributes for classification learning", IJCAI 1993, pp. 1022–1027.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

import numpy as np

from .._jit import njit
from .._lazy import special
from ..errors import MergeError
from ..stats import Sample

_LOG2 = np.log(2.0)
#: Candidate cuts scored at once: bounds the (candidates × classes) temporaries.
CHUNK = 1 << 18


@dataclass(frozen=True)
class Rows:
    """The rows of a sample that carry weight, ordered so that sums over them are exact.

    ``weight`` is (n_classes, n) and ``values`` (n, n_features), NaN = missing. Rows of zero
    weight (absent) are left out. Whole weights add exactly in any order; when some weight is
    fractional the rows are sorted by their weights (``stable`` is True), so that rows that
    tie on a value are summed in an order fixed by the data, not by the order it arrived in:
    fit, partial_fit, merge and unlearn then give identical sums.
    """

    weight: np.ndarray
    values: np.ndarray
    stable: bool

    @classmethod
    def of(cls, sample: Sample) -> Rows:
        if sample.weight.size and sample.weight.min() < 0:
            sample = sample.without_empty(0.0)  # removed rows cancel the rows they remove
            if sample.weight.size and sample.weight.min() < 0:
                raise MergeError(
                    "the sample holds negative weights: data was removed that it never held"
                )
        W, V = sample.weight, sample.values
        present = (W != 0).any(axis=0)
        if not present.all():
            W, V = W[:, present], V[present]
        if np.all(np.round(W) == W) and W.sum() < 2.0**53:
            return cls(W, V, False)
        canon = np.lexsort(W[::-1])
        return cls(W[:, canon], V[canon], True)

    def sorted_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Each feature's values in increasing order, NaN last, and the rows they come from:
        two (n_features, n) arrays. Ties keep the rows' order when ``stable``."""
        columns = np.ascontiguousarray(self.values.T)
        order = np.argsort(columns, axis=1, kind="stable" if self.stable else None)
        return np.take_along_axis(columns, order, axis=1), order

    def labels(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(class, weight) of each row when every row is in one class; None for soft labels."""
        W = self.weight
        if not (np.count_nonzero(W, axis=0) == 1).all():
            return None
        code = np.argmax(W != 0, axis=0)
        return code, W[code, np.arange(W.shape[1])]


@dataclass(frozen=True)
class Groups:
    """Every feature's distinct observed values, increasing, with the class weight at each.

    ``values[offsets[j]:offsets[j + 1]]`` are feature ``j``'s; ``counts`` is (G, n_classes).
    """

    values: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def feature(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.offsets) - 1), self.sizes)

    @classmethod
    def of(cls, rows: Rows) -> Groups:
        W = rows.weight
        K, d = W.shape[0], rows.values.shape[1]
        columns, order = rows.sorted_columns()
        observed = ~np.isnan(columns)
        values, at = columns[observed], order[observed]
        del columns, order
        feature = np.repeat(np.arange(d), observed.sum(axis=1))
        new = np.ones(len(values), dtype=bool)
        new[1:] = (values[1:] != values[:-1]) | (feature[1:] != feature[:-1])
        starts = np.flatnonzero(new)
        G = len(starts)
        labels = rows.labels()
        counts: np.ndarray
        if labels is not None:
            code, w = labels
            key = (np.cumsum(new) - 1) * K + code[at]
            counts = np.bincount(key, weights=w[at], minlength=G * K).reshape(G, K)
        elif G:
            counts = np.add.reduceat(W.T[at], starts, axis=0)
        else:
            counts = np.zeros((0, K))
        offsets = np.concatenate([[0], np.cumsum(np.bincount(feature[starts], minlength=d))])
        # + 0.0 turns -0.0 into 0.0: which of two tied zeros comes first is not fixed.
        return cls(values[starts] + 0.0, counts, offsets.astype(np.int64))


def segment_search(
    a: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    x: np.ndarray,
    side: Literal["left", "right"],
) -> np.ndarray:
    """``lo + np.searchsorted(a[lo:hi], x, side)`` for each query (``lo``, ``hi``, ``x``
    broadcast; every ``a[lo:hi]`` sorted): a bisection run on all queries at once, in
    ``log₂`` of the longest segment steps. Meant for few queries into many values."""
    lo, hi, x = (np.array(v) for v in np.broadcast_arrays(lo, hi, x))
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        v = a[np.where(active, mid, 0)]
        go = active & ((v <= x) if side == "right" else (v < x))
        lo = np.where(go, mid + 1, lo)
        hi = np.where(active & ~go, mid, hi)


@njit(nogil=True)
def running_totals(counts: np.ndarray, offsets: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Running sums of ``counts`` (G, K) down each feature's rows ``offsets[j]:offsets[j+1]``,
    restarting at every feature: exact per feature, whatever came before it."""
    out = np.empty_like(counts)
    K = counts.shape[1]
    for j in range(offsets.shape[0] - 1):
        for k in range(K):
            run = 0.0
            for g in range(offsets[j], offsets[j + 1]):
                run += counts[g, k]
                out[g, k] = run
    return out


def entropy_nats(counts: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Class entropy in nats of each row of class weights with row sums ``total``:
    ``ln N − Σ_k (c_k / N) ln c_k`` (``0 ln 0 = 0``; 0 where the row is empty). No term grows
    with the weights, so weights near 1e308 or 1e-308 neither overflow nor underflow, and a
    pure row gives exactly 0 (``ln c − 1 · ln c``)."""
    safe = np.where(total > 0, total, 1.0)
    with np.errstate(divide="ignore"):
        nats = np.log(safe) - np.einsum("ij->i", special.xlogy(counts / safe[:, None], counts))
    return np.where(total > 0, nats, 0.0)


def entropy_bits(counts: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Class entropy in bits of each row of class weights with row sums ``total`` (0 where
    the row is empty)."""
    return entropy_nats(counts, total) / _LOG2


def _log2_3k_minus_2(k: np.ndarray) -> np.ndarray:
    """``log₂(3^k − 2)``: exact 0 for one class (a pure interval is never cut on rounding);
    past 600 classes ``3^k`` would overflow and the ``− 2`` is below the precision anyway."""
    k = k.astype(np.float64)
    exact = np.log2(3.0 ** np.minimum(k, 600.0) - 2.0)
    return np.where(k < 600, exact, k * np.log2(3.0))


def split_costs(
    left: np.ndarray, right: np.ndarray, n_left: np.ndarray, n_right: np.ndarray
) -> np.ndarray:
    """``E(T; S) = N₁/N Ent(S₁) + N₂/N Ent(S₂)`` in nats of each candidate cut, from the class
    weights of its halves: the quantity a best cut minimises."""
    n = n_left + n_right
    return (n_left / n) * entropy_nats(left, n_left) + (n_right / n) * entropy_nats(right, n_right)


def _best_splits(
    a: np.ndarray,
    b: np.ndarray,
    i: np.ndarray,
    n_cand: np.ndarray,
    running: np.ndarray,
    first: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For intervals ``[a, b)`` of group indices (``first``: starting at their feature's first
    value) with candidate cuts after groups ``i`` (``n_cand`` per interval, in order): whether
    MDL accepts each interval's best cut, and the last group below it. ``running`` holds the
    running class weights along each feature."""
    start = np.cumsum(n_cand) - n_cand
    n_all = len(i)
    # Differences of running totals are exactly 0 for a class with no weight in the span
    # (x + 0.0 == x), so the class counts k, k₁, k₂ are exact, and a side holding one class
    # has a total equal to that class's weight: entropy exactly 0.
    base = np.where(first[:, None], 0.0, running[a - 1])
    end = running[b - 1]
    at = running[i]
    left = at - np.repeat(base, n_cand, axis=0)
    right = np.repeat(end, n_cand, axis=0) - at
    n_left, n_right = np.einsum("ij->i", left), np.einsum("ij->i", right)
    cost = split_costs(left, right, n_left, n_right)
    # The lowest cost of each interval; on ties the smallest cut, so the result is fixed.
    lowest = np.minimum.reduceat(cost, start)
    hits = np.where(cost == np.repeat(lowest, n_cand), np.arange(n_all), n_all)
    best = np.minimum.reduceat(hits, start)
    whole = end - base
    n = np.einsum("ij->i", whole)
    h = entropy_bits(whole, n)
    h1 = entropy_bits(left[best], n_left[best])
    h2 = entropy_bits(right[best], n_right[best])
    k = np.count_nonzero(whole > 0, axis=1)
    k1 = np.count_nonzero(left[best] > 0, axis=1)
    k2 = np.count_nonzero(right[best] > 0, axis=1)
    gain = h - lowest / _LOG2
    delta = _log2_3k_minus_2(k) - (k * h - k1 * h1 - k2 * h2)
    threshold = (np.log2(np.maximum(n - 1.0, 1.0)) + delta) / n
    return (n >= 2.0) & (gain > threshold), i[best]


def mdl_cuts(groups: Groups) -> tuple[np.ndarray, np.ndarray]:
    """Fayyad–Irani cut points of every feature: (feature of each cut, cut), in no order.

    A value ``x`` lies above a cut when ``x >= cut``; cuts lie strictly above the value below.
    """
    offsets = groups.offsets
    sizes = groups.sizes
    owner = groups.feature
    counts = np.ascontiguousarray(groups.counts, dtype=np.float64)
    running = running_totals(counts, offsets)
    # Fayyad & Irani's theorem 1: a best cut is a boundary point, never between two values
    # that both hold rows of one and the same class only. Only those are candidates.
    pure = np.where(np.count_nonzero(counts, axis=1) == 1, np.argmax(counts != 0, axis=1), -1)
    boundary = np.flatnonzero((pure[:-1] != pure[1:]) | (pure[:-1] < 0))
    # Open intervals as group ranges [a, b) with at least two distinct values.
    a, b = offsets[:-1][sizes >= 2], offsets[1:][sizes >= 2]
    found: list[np.ndarray] = []
    while a.size:
        lo = np.searchsorted(boundary, a)
        n_cand = np.searchsorted(boundary, b - 1) - lo
        a, b, lo, n_cand = a[n_cand > 0], b[n_cand > 0], lo[n_cand > 0], n_cand[n_cand > 0]
        if not a.size:
            break
        # Whole intervals in batches of about CHUNK candidates (a larger one alone).
        batch = np.cumsum(n_cand) // CHUNK
        edges = np.flatnonzero(np.diff(batch, prepend=-1, append=batch[-1] + 1))
        accept = np.empty(a.size, dtype=bool)
        below = np.empty(a.size, dtype=np.int64)
        for s, e in pairwise(edges):
            m = n_cand[s:e]
            i = boundary[np.arange(m.sum()) + np.repeat(lo[s:e] - (np.cumsum(m) - m), m)]
            first = a[s:e] == offsets[owner[a[s:e]]]
            accept[s:e], below[s:e] = _best_splits(a[s:e], b[s:e], i, m, running, first)
        cut = below[accept]
        found.append(cut)
        a, b = np.concatenate([a[accept], cut + 1]), np.concatenate([cut + 1, b[accept]])
        wide = b - a >= 2
        a, b = a[wide], b[wide]
    at = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    lower, upper = groups.values[at], groups.values[at + 1]
    mid = lower / 2 + upper / 2  # halving first: no overflow near the float limits
    # Between adjacent floats the midpoint rounds onto one of them; it must lie above `lower`.
    return owner[at], np.where(mid > lower, mid, upper)
