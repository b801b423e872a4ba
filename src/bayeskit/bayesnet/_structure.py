"""Structure learning from the counts alone: mutual information with the class, conditional
mutual information between features given the class, Chow–Liu trees and k-dependence parents.

Both informations are those of the empirical distribution (maximum likelihood, no smoothing),
in nats, as Friedman, Geiger & Goldszmidt (1997) and Sahami (1996) define them:

    I(X_i; Y)       = Σ_{y,a}   P(y, a)    ln [ P(y, a) / (P(y) P(a)) ]
    I(X_i; X_j | Y) = Σ_{y,a,b} P(y, a, b) ln [ P(a, b | y) / (P(a | y) P(b | y)) ]

each over the rows in which the features involved are observed (the counts hold no others).

``x ln y`` is numpy's product where ``x > 0`` (what ``scipy.special.xlogy`` computes there; the
terms where ``x = 0`` are 0), so the informations need no SciPy, whose special functions cost
about 0.3 s to import, many times what learning the structure of a table of a few thousand
rows takes. The Bayesian edge weight's ``lnΓ`` is SciPy's ``gammaln``, imported when that
weight is first computed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._lazy import special
from ._counts import Layout, class_sums


def class_information(singles: np.ndarray, cat_offsets: np.ndarray) -> np.ndarray:
    """``I(X_i; Y)`` of each feature from its counts ``N(y, x_i = a)`` (n_classes, Σ V_i)."""
    singles = np.maximum(singles, 0.0)  # rounding residue of unlearning
    d = len(cat_offsets) - 1
    feature = np.repeat(np.arange(d), np.diff(cat_offsets))
    n_ya = singles
    n_a = n_ya.sum(axis=0)
    n_y = class_sums(n_ya, feature, d)
    n = n_y.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = n_ya * n[feature] / (n_y[:, feature] * n_a)
        terms = np.where(n_ya > 0, n_ya * np.log(ratio), 0.0)
    out = np.bincount(feature, weights=terms.sum(axis=0), minlength=d)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, out / np.where(n > 0, n, 1.0), 0.0)


@dataclass(frozen=True)
class PairCells:
    """The pair blocks of a statistic, cell by cell: counts ``N`` (n_classes, n_pair_cells),
    each cell's pair, its two features, and the margins ``N(y, a)``, ``N(y, b)`` of its block
    (over the rows where both features are observed)."""

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
        cells = layout.pair_layout
        N = counts[:, cells.start : cells.stop]
        n_ya = class_sums(N, cells.group_a, cells.n_a)[:, cells.group_a]
        n_yb = class_sums(N, cells.group_b, cells.n_b)[:, cells.group_b]
        return cls(cells.pairs, cells.start, N, cells.pair, cells.first, cells.second, n_ya, n_yb)


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
    n_y = class_sums(N, pair, n_pairs)
    total = n_y.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = N * n_y[:, pair] / (cells.n_ya * cells.n_yb)
        terms = np.where(N > 0, N * np.log(ratio), 0.0).sum(axis=0)
    info = np.bincount(pair, weights=terms, minlength=n_pairs)
    info = np.where(total > 0, info / np.where(total > 0, total, 1.0), 0.0)
    info = np.maximum(info, 0.0)  # rounding can leave -1e-17 for independent features
    i, j = layout.features[cells.pairs, 0], layout.features[cells.pairs, 1]
    out[i, j] = info
    out[j, i] = info
    return out


def bayesian_gain(counts: np.ndarray, layout: Layout, alpha: np.ndarray) -> np.ndarray:
    """The Bayesian edge weight of every pair of features: a symmetric (d, d) matrix, 0 on
    the diagonal, from the pair blocks of ``counts`` (n_classes, n_cells).

    The gain of giving ``X_i`` the parent ``X_j`` besides the class is the difference of
    the log marginal likelihoods of its family under Dirichlet priors of ``α_i`` per cell
    (the Bayesian Dirichlet score of Cooper & Herskovits 1992 and Heckerman, Geiger &
    Chickering 1995, with ``α_i = 1`` the K2 score):

        Δ(i ← j) = Σ_{y,b} ln B(N(y, ·, b) + α_i) / B(α_i)  −  Σ_y ln B(N(y, ·) + α_i) / B(α_i),

    ``B`` the multivariate beta function over ``x_i``'s ``V_i`` values; in log-gamma terms
    ``Σ_cells [lnΓ(N + α_i) − lnΓ(α_i)] − Σ_{(y,b)} [lnΓ(N(y,b) + V_i α_i) − lnΓ(V_i α_i)]``
    less the same with the class alone as parent. Unlike ``N · I(X_i; X_j | Y)``, the gain
    pays for the parameters a parent adds, and it is not symmetric; an edge weighs the larger
    of its two directions' gains (what Weka's TAN search compares). Both families are counted
    over the rows where both features are observed (the pair's block)."""
    d = len(layout.sizes)
    out = np.zeros((d, d))
    cells = layout.pair_layout
    n_pairs = len(cells.pairs)
    if not n_pairs:
        return out
    N = np.maximum(counts[:, cells.start : cells.stop], 0.0)  # rounding residue of unlearning
    first, second = layout.features[cells.pairs, 0], layout.features[cells.pairs, 1]
    V_first, V_second = layout.sizes[first].astype(float), layout.sizes[second].astype(float)
    a_first, a_second = alpha[first], alpha[second]
    n_ya = class_sums(N, cells.group_a, cells.n_a)  # N(y, x_first = a), per pair
    n_yb = class_sums(N, cells.group_b, cells.n_b)
    n_y = class_sums(N, cells.pair, n_pairs)

    def log_beta_gain(n: np.ndarray, a: np.ndarray, pair: np.ndarray) -> np.ndarray:
        # Σ over the groups of each pair of lnΓ(n + a) − lnΓ(a) (0 where n = 0)
        terms = np.where(n > 0, special.gammaln(n + a) - special.gammaln(a), 0.0).sum(axis=0)
        return np.bincount(pair, weights=terms, minlength=n_pairs)

    into_first = (
        log_beta_gain(N, a_first[cells.pair], cells.pair)
        - log_beta_gain(n_yb, (V_first * a_first)[cells.pair_b], cells.pair_b)
        - log_beta_gain(n_ya, a_first[cells.pair_a], cells.pair_a)
        + log_beta_gain(n_y, V_first * a_first, np.arange(n_pairs))
    )
    into_second = (
        log_beta_gain(N, a_second[cells.pair], cells.pair)
        - log_beta_gain(n_ya, (V_second * a_second)[cells.pair_a], cells.pair_a)
        - log_beta_gain(n_yb, a_second[cells.pair_b], cells.pair_b)
        + log_beta_gain(n_y, V_second * a_second, np.arange(n_pairs))
    )
    weight = np.maximum(into_first, into_second)
    out[first, second] = weight
    out[second, first] = weight
    return out


def chow_liu(weight: np.ndarray, root: int) -> np.ndarray:
    """The parent of each feature in a maximum-weight spanning tree of the complete graph
    with edge weights ``weight`` (symmetric), directed away from ``root``; −1 for the root.

    Prim's algorithm (1957) grown from the root: each step joins the feature outside the
    tree with the heaviest edge into it (among equal edges, the lowest-numbered feature,
    joined to the tree feature that reached that weight first), so the tree comes out
    directed and every tie is broken the same way on every machine."""
    d = weight.shape[0]
    parents = np.full(d, -1, dtype=np.int64)
    if d < 2:
        return parents
    outside = np.ones(d, dtype=bool)
    outside[root] = False
    best = np.where(outside, weight[root], -np.inf)  # heaviest edge into the tree so far
    parents[outside] = root
    for _ in range(d - 1):  # Prim's steps are sequential: each joins one feature
        v = int(np.argmax(best))
        outside[v] = False
        best[v] = -np.inf
        closer = outside & (weight[v] > best)
        best[closer] = weight[v][closer]
        parents[closer] = v
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
