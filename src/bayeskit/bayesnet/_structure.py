"""Structure learning from the counts alone: mutual information with the class, conditional
mutual information between features given the class, Chow–Liu trees and k-dependence parents.

Both informations are those of the empirical distribution (maximum likelihood, no smoothing),
in nats, as Friedman, Geiger & Goldszmidt (1997) and Sahami (1996) define them:

    I(X_i; Y)       = Σ_{y,a}   P(y, a)    ln [ P(y, a) / (P(y) P(a)) ]
    I(X_i; X_j | Y) = Σ_{y,a,b} P(y, a, b) ln [ P(a, b | y) / (P(a | y) P(b | y)) ]

each over the rows in which the features involved are observed (the counts hold no others).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree
from scipy.special import xlogy

from ._counts import Layout


def class_information(singles: np.ndarray, cat_offsets: np.ndarray) -> np.ndarray:
    """``I(X_i; Y)`` of each feature from its counts ``N(y, x_i = a)`` (n_classes, Σ V_i)."""
    singles = np.maximum(singles, 0.0)  # rounding residue of unlearning
    d = len(cat_offsets) - 1
    feature = np.repeat(np.arange(d), np.diff(cat_offsets))
    n_ya = singles
    n_a = n_ya.sum(axis=0)
    n_y = np.zeros((singles.shape[0], d))
    np.add.at(n_y.T, feature, n_ya.T)
    n = n_y.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = n_ya * n[feature] / (n_y[:, feature] * n_a)
        terms = np.where(n_ya > 0, xlogy(n_ya, ratio), 0.0)
    out = np.bincount(feature, weights=terms.sum(axis=0), minlength=d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, out / np.where(n > 0, n, 1.0), 0.0)


@dataclass(frozen=True)
class PairCells:
    """The pair blocks of a statistic, cell by cell: counts ``N`` (n_classes, n_pair_cells),
    each cell's pair, its two features and values, and the margins ``N(y, a)``, ``N(y, b)``
    of its block (over the rows where both features are observed)."""

    pairs: np.ndarray  # subset index of each pair
    start: int  # first pair cell in the flat cell axis
    N: np.ndarray
    pair: np.ndarray
    first: np.ndarray
    second: np.ndarray
    n_ya: np.ndarray
    n_yb: np.ndarray

    @classmethod
    def of(cls, counts: np.ndarray, layout: Layout) -> PairCells:
        d = len(layout.sizes)
        is_pair = (layout.features[:, 1] >= 0) & (layout.features[:, 2:] < 0).all(axis=1)
        pairs = np.flatnonzero(is_pair)
        K = counts.shape[0]
        if not len(pairs):
            empty = np.zeros(0, dtype=np.int64)
            none = np.zeros((K, 0))
            return cls(pairs, 0, none, empty, empty, empty, none, none)
        start, stop = int(layout.offsets[pairs[0]]), int(layout.offsets[pairs[-1] + 1])
        N = counts[:, start:stop]
        pair = np.repeat(np.arange(len(pairs)), np.diff(layout.offsets)[pairs])
        local = np.arange(stop - start) - (layout.offsets[pairs] - start)[pair]
        first_f, second_f = layout.features[pairs, 0][pair], layout.features[pairs, 1][pair]
        second_size = layout.sizes[second_f]
        a, b = local // second_size, local % second_size
        cat = layout.offsets[: d + 1]
        n_cat = int(cat[-1])
        # margins keyed by (pair, value): pair * n_cat + the value's global code
        _, ia = np.unique(pair.astype(np.int64) * n_cat + cat[first_f] + a, return_inverse=True)
        _, ib = np.unique(pair.astype(np.int64) * n_cat + cat[second_f] + b, return_inverse=True)
        n_ya = np.empty_like(N)
        n_yb = np.empty_like(N)
        for c in range(K):  # a handful of classes; every other loop is inside numpy
            n_ya[c] = np.bincount(ia, weights=N[c])[ia]
            n_yb[c] = np.bincount(ib, weights=N[c])[ib]
        return cls(pairs, start, N, pair, first_f, second_f, n_ya, n_yb)


def conditional_information(counts: np.ndarray, layout: Layout) -> np.ndarray:
    """``I(X_i; X_j | Y)`` of every pair of features: a symmetric (d, d) matrix, 0 on the
    diagonal, from the pair blocks of ``counts`` (n_classes, n_cells)."""
    d = len(layout.sizes)
    out = np.zeros((d, d))
    cells = PairCells.of(np.maximum(counts, 0.0), layout)  # rounding residue of unlearning
    n_pairs = len(cells.pairs)
    if not n_pairs:
        return out
    N, pair = cells.N, cells.pair
    n_y = np.stack([np.bincount(pair, weights=row, minlength=n_pairs) for row in N])
    total = n_y.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = N * n_y[:, pair] / (cells.n_ya * cells.n_yb)
        terms = np.where(N > 0, xlogy(N, ratio), 0.0).sum(axis=0)
    info = np.bincount(pair, weights=terms, minlength=n_pairs)
    info = np.where(total > 0, info / np.where(total > 0, total, 1.0), 0.0)
    info = np.maximum(info, 0.0)  # rounding can leave -1e-17 for independent features
    i, j = layout.features[cells.pairs, 0], layout.features[cells.pairs, 1]
    out[i, j] = info
    out[j, i] = info
    return out


def chow_liu(weight: np.ndarray, root: int) -> np.ndarray:
    """The parent of each feature in a maximum-weight spanning tree of the complete graph
    with edge weights ``weight`` (symmetric), directed away from ``root``; −1 for the root.

    The maximum spanning tree is the minimum spanning tree of ``c − weight`` for a constant
    ``c`` above every weight (the same tree: every spanning tree has ``d − 1`` edges), which
    keeps every edge positive, as scipy's sparse graph routines require of an edge."""
    d = weight.shape[0]
    parents = np.full(d, -1, dtype=np.int64)
    if d < 2:
        return parents
    shifted = (float(weight.max()) + 1.0) - weight
    tree = minimum_spanning_tree(sp.csr_matrix(np.triu(shifted, 1)))
    undirected = tree + tree.T
    _, predecessors = breadth_first_order(undirected, root, directed=False)
    parents[:] = np.where(predecessors >= 0, predecessors, -1)
    parents[root] = -1
    return parents


def kdb_parents(class_info: np.ndarray, pair_info: np.ndarray, k: int) -> np.ndarray:
    """Sahami's k-dependence parents: features taken in decreasing ``I(X_i; Y)``; each takes
    as parents the (up to) ``k`` features before it with the largest ``I(X_i; X_j | Y)``
    (ties: the earlier feature in that order). (d, k), padded with −1, parents increasing."""
    d = len(class_info)
    order = np.argsort(-class_info, kind="stable")
    out = np.full((d, max(k, 1)), -1, dtype=np.int64)
    for t in range(1, d):  # the order is sequential by definition: each looks at those before
        i = order[t]
        before = order[:t]
        best = before[np.argsort(-pair_info[i, before], kind="stable")[:k]]
        out[i, : len(best)] = np.sort(best)
    return out[:, :k] if k else out[:, :0]
