"""Structure learning from the counts alone: mutual information with the class, conditional
mutual information between features given the class, Chow–Liu trees and k-dependence parents.

Both informations are those of the empirical distribution (maximum likelihood, no smoothing),
in nats, as Friedman, Geiger & Goldszmidt (1997) and Sahami (1996) define them:

    I(X_i; Y)       = Σ_{y,a}   P(y, a)    ln [ P(y, a) / (P(y) P(a)) ]
    I(X_i; X_j | Y) = Σ_{y,a,b} P(y, a, b) ln [ P(a, b | y) / (P(a | y) P(b | y)) ]

each over the rows in which the features involved are observed (the counts hold no others).

``x ln y`` is numpy's product where ``x > 0`` (what ``scipy.special.xlogy`` computes there; the
terms where ``x = 0`` are 0) and the Bayesian edge weight's ``lnΓ`` is Python's
``math.lgamma`` (:func:`log_gamma`), so learning a structure needs no SciPy, whose special
functions cost about 0.3 s of CPU to import, many times what learning the structure of a
table of a few thousand rows takes.

Two ``lnΓ`` (or two summation orders) agree to a few units in the last place, not bitwise, so
a weight can come out a few ulps either side of an equal one. Every comparison the
structures make therefore treats as ties the weights within :data:`TIE_RTOL` of the largest
``|weight|`` compared (for the Bayesian gain, of ``N ln N`` if larger: :func:`gain_scale`) and
breaks them by the documented index rule: the same tree whichever ``lnΓ`` computed the
weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._counts import Layout, class_sums

#: Weights closer than this fraction of the largest ``|weight|`` compared (for the Bayesian
#: gain: or of ``N ln N``, ``N`` the rows of the largest pair block, if larger) are ties.
#: A weight is a sum of terms each computed to a few ulps (``lnΓ``, ``ln``): the informations'
#: terms are at most about the largest information, but the Bayesian gain is a difference of
#: log-gamma sums of size up to ``N ln N`` (the log marginal likelihoods of ``N`` rows), while
#: the gain itself may be a few nats, so its rounding is relative to ``N ln N``. Measured
#: between ``math.lgamma`` and SciPy's ``gammaln``, the gains differ by at most 1e-13 of the
#: largest on the shared UCI tables (10³–10⁴ rows) and 4e-11 on 10⁶ rows of independent
#: features: 1e-9 of ``max(|w|, N ln N)`` leaves a margin of 10⁴ or more at any size. Two
#: gains within it are log marginal likelihoods whose Bayes factor is 1 to within
#: ``1e-9 N ln N`` (1e-5 at 10⁴ rows, 0.014 at 10⁶): a choice the data do not make.
TIE_RTOL = 1e-9
#: The least size the weights' rounding is taken relative to, in nats: informations and gains
#: are sums of terms of a nat or so (``ln`` of count ratios, ``lnΓ`` near the pseudo-counts)
#: even where they sum to 0, so when every information is truly 0 (features independent of
#: the class) the values compared are rounding residue of ±1e-17, and 1e-9 of the largest
#: of them let the summation order (the rows' order, an unlearn) choose the root and the
#: tree. Below 1e-9 nats, no amount of data tells two weights apart (``2N·I`` below 0.2 at
#: 10⁸ rows).
TIE_FLOOR = 1.0


def tie_tolerance(weights: np.ndarray, scale: float = 0.0) -> float:
    """The absolute tolerance within which two of ``weights`` (nats) are ties: :data:`TIE_RTOL`
    of the largest ``|weight|``, of ``scale`` (the size of the sums the weights are
    differences of) or of :data:`TIE_FLOOR`, whichever is largest."""
    finite = np.abs(weights[np.isfinite(weights)])
    return TIE_RTOL * max(float(finite.max(initial=0.0)), scale, TIE_FLOOR)


def gain_scale(counts: np.ndarray, layout: Layout) -> float:
    """``N ln N`` of the largest pair block's total count ``N`` (0 below one row): the size of
    the log-gamma sums a Bayesian gain is the difference of (:data:`TIE_RTOL`)."""
    cells = layout.pair_layout
    if not len(cells.pairs):
        return 0.0
    block = counts[:, cells.start : cells.stop].sum(axis=0)
    n = float(np.bincount(cells.pair, weights=block, minlength=len(cells.pairs)).max())
    return n * math.log(n) if n > 1 else 0.0


def first_of_max(values: np.ndarray, tol: float) -> int:
    """The lowest index whose value is within ``tol`` of the largest (−inf: excluded)."""
    return int(np.argmax(values >= values.max() - tol))


def tied_order(values: np.ndarray) -> np.ndarray:
    """The indices by decreasing value, ties (within :func:`tie_tolerance` of the largest
    left) in increasing index: each step takes the lowest index tied with the largest value
    not yet taken. With no near-ties, ``np.argsort(-values, kind="stable")``."""
    tol = tie_tolerance(values)
    left = np.asarray(values, dtype=np.float64).copy()
    order = np.empty(len(left), dtype=np.int64)
    for t in range(len(left)):  # each step depends on those before (what is left)
        order[t] = first_of_max(left, tol)
        left[order[t]] = -np.inf
    return order


def log_gamma(x: np.ndarray) -> np.ndarray:
    """``lnΓ(x)`` of every element (``x > 0``): Python's ``math.lgamma`` of each distinct value.

    The Bayesian gain takes ``lnΓ`` of counts plus a pseudo-count: whole counts (or few distinct
    weighted ones) plus one ``α`` or ``V_i α`` per feature, so a table's cells hold few distinct
    values (a car fold: 204 distinct among the 2,404 arguments of its gains) and one
    ``math.lgamma`` call per distinct value costs less than importing SciPy's ``gammaln``
    (0.3 s of CPU); :func:`log_gamma_of_counts` finds the distinct values of whole counts
    without sorting. (An exact sum of logs, ``lnΓ(n + a) − lnΓ(a) = Σ_{k<n}
    ln(a + k)``, would need a cumulative table up to the largest count per distinct ``a``, its
    rounding growing with the count, and another path for fractional weights.)"""
    values, inverse = np.unique(x, return_inverse=True)
    out = np.fromiter(map(_lgamma, values.tolist()), dtype=np.float64, count=len(values))
    return out[inverse].reshape(np.shape(x))


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except OverflowError:  # x beyond ~2.6e305: lnΓ(x) exceeds float64 (scipy's gammaln: inf)
        return math.inf


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
        # P(y, a) / (P(y) P(a)) as two ratios of counts, neither of which overflows or
        # underflows: the product of two counts does beyond 1e154 (or below 1e-154) a row
        ratio = (n_ya / n_a) * (n[feature] / n_y[:, feature])
        terms = np.where(n_ya > 0, n_ya * np.log(ratio), 0.0)
    out = np.bincount(feature, weights=terms.sum(axis=0), minlength=d)
    with np.errstate(divide="ignore", invalid="ignore"):
        info = np.where(n > 0, out / np.where(n > 0, n, 1.0), 0.0)
    return np.maximum(info, 0.0)  # rounding can leave -1e-16 for a feature the class ignores


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
        # as two ratios of counts, not a product of two (see class_information)
        ratio = (N / cells.n_ya) * (n_y[:, pair] / cells.n_yb)
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
    n_ya = class_sums(N, cells.group_a, cells.n_a)  # N(y, x_first = a), per pair
    n_yb = class_sums(N, cells.group_b, cells.n_b)
    n_y = class_sums(N, cells.pair, n_pairs)
    # the pseudo-counts: α_i per cell and V_i α_i per parent value, few distinct numbers,
    # each group named by its index among them
    d = len(layout.sizes)
    pseudo, code = np.unique(np.concatenate([alpha, layout.sizes * alpha]), return_inverse=True)
    a, va = code[:d], code[d:]
    every = np.arange(n_pairs)
    s = log_beta_sums(
        [
            (N, a[first][cells.pair], cells.pair),  # x_first given the class and x_second
            (n_yb, va[first][cells.pair_b], cells.pair_b),
            (n_ya, a[first][cells.pair_a], cells.pair_a),  # x_first given the class alone
            (n_y, va[first], every),
            (N, a[second][cells.pair], cells.pair),  # and the other way round
            (n_ya, va[second][cells.pair_a], cells.pair_a),
            (n_yb, a[second][cells.pair_b], cells.pair_b),
            (n_y, va[second], every),
        ],
        pseudo,
        n_pairs,
    )
    into_first = s[0] - s[1] - s[2] + s[3]
    into_second = s[4] - s[5] - s[6] + s[7]
    weight = np.maximum(into_first, into_second)
    out[first, second] = weight
    out[second, first] = weight
    return out


def log_beta_sums(
    terms: list[tuple[np.ndarray, np.ndarray, np.ndarray]], pseudo: np.ndarray, n_pairs: int
) -> list[np.ndarray]:
    """For each ``(n, code, pair)`` — counts (n_classes, n_groups), each group's pseudo-count
    ``a = pseudo[code]`` and pair — the sum over each pair's groups and classes of
    ``lnΓ(n + a) − lnΓ(a)`` (0 where ``n = 0``), (n_pairs,): ``lnΓ(n + a)`` of the cells with
    data (:func:`log_gamma_of_counts`, once for all terms), ``lnΓ(a)`` once per pseudo-count."""
    seen = [n > 0 for n, _, _ in terms]
    n_seen = [s.sum(axis=0) for s in seen]
    counts = np.concatenate([n[s] for (n, _, _), s in zip(terms, seen, strict=True)])
    codes = np.concatenate(
        [np.broadcast_to(c, n.shape)[s] for (n, c, _), s in zip(terms, seen, strict=True)]
    )
    values = np.split(
        log_gamma_of_counts(counts, codes, pseudo), np.cumsum([int(k.sum()) for k in n_seen])[:-1]
    )
    # V_i α_i is 0 for a feature never observed; it has no cells, so no term needs lnΓ(0)
    log_gamma_pseudo = np.zeros(len(pseudo))
    log_gamma_pseudo[pseudo > 0] = log_gamma(pseudo[pseudo > 0])
    out = []
    for (n, code, pair), s, k, v in zip(terms, seen, n_seen, values, strict=True):
        cells = np.zeros(n.shape)
        cells[s] = v
        sums = cells.sum(axis=0) - log_gamma_pseudo[code] * k
        out.append(np.bincount(pair, weights=sums, minlength=n_pairs))
    return out


def log_gamma_of_counts(counts: np.ndarray, codes: np.ndarray, pseudo: np.ndarray) -> np.ndarray:
    """``lnΓ(counts + pseudo[codes])``, elementwise: :func:`log_gamma` of the distinct values.

    Whole counts (unweighted rows) are told apart without sorting them: each element is the
    key ``code · (K + 1) + count`` (``K`` the largest count) into a table that holds
    ``log_gamma`` of the keys present, when that table is no larger than about twice the
    elements; otherwise (fractional weights, or few cells with large counts) ``log_gamma``
    sorts the values. Both compute ``lnΓ`` of the same float ``pseudo + count``, so the
    result does not depend on the path; the table's pass is linear, which matters on wide
    tables (2·10⁴ rows of 100 features of 20 values: 4·10⁶ cells, about 200 distinct values;
    the gain took 14 s with ``np.unique``'s sort, 3.4 s with the table, 3.2 s with SciPy's
    ``gammaln``, on a loaded machine)."""
    if counts.size:
        top = int(counts.max())
        width = top + 1
        if len(pseudo) * width <= 2 * counts.size + (1 << 16) and np.array_equal(
            counts, np.floor(counts)
        ):
            key = codes * width + counts.astype(np.int64)
            present = np.zeros(len(pseudo) * width, dtype=bool)
            present[key] = True
            where = np.flatnonzero(present)
            table = np.empty(len(present))
            table[where] = log_gamma(pseudo[where // width] + (where % width).astype(np.float64))
            return table[key]
    return log_gamma(counts + pseudo[codes])


def chow_liu(weight: np.ndarray, root: int, tol: float | None = None) -> np.ndarray:
    """The parent of each feature in a maximum-weight spanning tree of the complete graph
    with edge weights ``weight`` (symmetric), directed away from ``root``; −1 for the root.

    Prim's algorithm (1957) grown from the root: each step joins, of the features outside
    the tree whose heaviest edge into it ties with the heaviest such edge, the lowest-numbered,
    to the earliest-joined tree feature whose edge to it ties with that feature's heaviest.
    Ties are weights within ``tol`` (default: :func:`tie_tolerance` of ``weight``) below the
    heaviest, so the tree comes out directed, and rounding (another ``lnΓ``, another
    summation order) does not change it. Each edge is within two tolerances of the heaviest
    across its cut, so the tree's weight is within ``2 (d − 1)`` tolerances of the maximum
    (exactly the maximum when no weights are near-ties)."""
    d = weight.shape[0]
    parents = np.full(d, -1, dtype=np.int64)
    if d < 2:
        return parents
    tol = tie_tolerance(weight) if tol is None else tol
    order = np.empty(d, dtype=np.int64)  # the features in the order they join
    order[0] = root
    outside = np.ones(d, dtype=bool)
    outside[root] = False
    best = np.where(outside, weight[root], -np.inf)  # heaviest edge into the tree so far
    for k in range(1, d):  # Prim's steps are sequential: each joins one feature
        v = first_of_max(best, tol)
        joined = order[:k]
        parents[v] = joined[int(np.argmax(weight[joined, v] >= best[v] - tol))]
        order[k] = v
        outside[v] = False
        best[v] = -np.inf
        best[outside] = np.maximum(best[outside], weight[v, outside])
    return parents


def kdb_parents(class_info: np.ndarray, pair_info: np.ndarray, k: int) -> np.ndarray:
    """Sahami's k-dependence parents: features taken in decreasing ``I(X_i; Y)`` (ties: the
    lower-numbered first); each takes as parents the (up to) ``k`` features before it with
    the largest ``I(X_i; X_j | Y)`` (ties: the earlier feature in that order), each pick the
    first tied with the largest left (as :func:`tied_order`; ties within :func:`tie_tolerance`
    of all the ``I(X_i; Y)``, and of the whole ``I(X_i; X_j | Y)`` matrix). (d, k), padded
    with −1, parents increasing."""
    d = len(class_info)
    order = tied_order(class_info)
    tol = tie_tolerance(pair_info)
    out = np.full((d, max(k, 1)), -1, dtype=np.int64)
    for t in range(1, d):  # the order is sequential by definition: each looks at those before
        i = order[t]
        left = pair_info[i, order[:t]].astype(np.float64)
        best = []
        for _ in range(min(k, t)):  # at most k (≤ 3) picks
            s = first_of_max(left, tol)
            best.append(order[s])
            left[s] = -np.inf
        out[i, : len(best)] = np.sort(best)
    return out[:, :k] if k else out[:, :0]
