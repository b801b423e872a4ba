"""The models' formulas evaluated directly from the rows, one term at a time: what the
vectorised statistics, structures and compiled scorers are checked against."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from scipy.special import logsumexp


def observed(v: Any) -> bool:
    return v is not None and v == v


def count(X: np.ndarray, y: np.ndarray, c: Any, where: dict[int, Any]) -> int:
    """Rows of class ``c`` (``None``: any) whose features ``where`` hold the given values
    (``...``: any observed value)."""
    total = 0
    for row, label in zip(X, y, strict=True):
        if c is not None and label != c:
            continue
        if all(observed(row[j]) and (v is ... or row[j] == v) for j, v in where.items()):
            total += 1
    return total


def n_values(X: np.ndarray, j: int) -> int:
    return len({v for v in X[:, j] if observed(v)})


def class_information(X: np.ndarray, y: np.ndarray, i: int) -> float:
    rows = [r for r in range(len(y)) if observed(X[r, i])]
    n = len(rows)
    out = 0.0
    for c in set(y[rows].tolist()):
        for a in {X[r, i] for r in rows}:
            n_ya = sum(1 for r in rows if y[r] == c and X[r, i] == a)
            if n_ya:
                n_y = sum(1 for r in rows if y[r] == c)
                n_a = sum(1 for r in rows if X[r, i] == a)
                out += n_ya / n * np.log(n_ya * n / (n_y * n_a))
    return out


def conditional_information(X: np.ndarray, y: np.ndarray, i: int, j: int) -> float:
    rows = [r for r in range(len(y)) if observed(X[r, i]) and observed(X[r, j])]
    n = len(rows)
    out = 0.0
    for c in set(y[rows].tolist()):
        mine = [r for r in rows if y[r] == c]
        for a in {X[r, i] for r in mine}:
            for b in {X[r, j] for r in mine}:
                n_yab = sum(1 for r in mine if X[r, i] == a and X[r, j] == b)
                if n_yab:
                    n_ya = sum(1 for r in mine if X[r, i] == a)
                    n_yb = sum(1 for r in mine if X[r, j] == b)
                    out += n_yab / n * np.log(n_yab * len(mine) / (n_ya * n_yb))
    return out


def bayesian_gain(X: np.ndarray, y: np.ndarray, i: int, j: int, alpha: float) -> float:
    """ln P(D_i | Y, X_j) − ln P(D_i | Y): the log marginal likelihood of x_i's column given
    the class and x_j, less given the class alone, under a Dirichlet(α, …, α) prior on each
    conditional distribution of x_i (Cooper & Herskovits 1992), over the rows where both
    are observed: Π over parent values of Γ(V α) / Γ(N + V α) Π_a Γ(N_a + α) / Γ(α)."""
    rows = [r for r in range(len(y)) if observed(X[r, i]) and observed(X[r, j])]
    values = sorted({X[r, i] for r in rows})
    V = n_values(X, i)  # every value the model knows of x_i (observed in any row)

    def family(parent_of: Any) -> float:
        groups: dict[Any, list[int]] = {}
        for r in rows:
            groups.setdefault(parent_of(r), []).append(r)
        total = 0.0
        for members in groups.values():
            total += math.lgamma(V * alpha) - math.lgamma(len(members) + V * alpha)
            for a in values:
                n_a = sum(1 for r in members if X[r, i] == a)
                total += math.lgamma(n_a + alpha) - math.lgamma(alpha)
        return total

    return family(lambda r: (y[r], X[r, j])) - family(lambda r: y[r])


#: The documented tie rule: weights within this fraction of the largest |weight| are ties.
TIE_RTOL = 1e-9


#: weights within 1e-9 nats are ties however small every weight is (rounding of sums of
#: terms of a nat or so, where every information is truly 0)
TIE_FLOOR = 1.0


def tie_tolerance(W: np.ndarray) -> float:
    return TIE_RTOL * max(max((abs(float(w)) for w in np.ravel(W)), default=0.0), TIE_FLOOR)


def first_tied(values: list[float], tol: float) -> int:
    """The position of the first value within ``tol`` of the largest."""
    top = max(values)
    return next(k for k, v in enumerate(values) if v >= top - tol)


def root(class_info: np.ndarray) -> int:
    """The feature of largest ``I(X_i; Y)``, the lowest-numbered among ties."""
    return first_tied(list(class_info), tie_tolerance(class_info))


def gain_tolerance(X: np.ndarray, W: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The ties of Bayesian gains: within 1e-9 of the largest |gain| or of ``N ln N``, ``N``
    the largest (weighted) number of rows in which two features are both observed."""
    w = np.ones(len(X)) if weights is None else weights
    d = X.shape[1]
    n = max(
        (sum(w[r] for r in range(len(X)) if observed(X[r, i]) and observed(X[r, j]))
         for i in range(d) for j in range(i + 1, d)),
        default=0.0,
    )  # fmt: skip
    return max(tie_tolerance(W), TIE_RTOL * (n * math.log(n) if n > 1 else 0.0))


def chow_liu_tree(W: np.ndarray, root: int, tol: float | None = None) -> dict[int, int]:
    """Prim's rule as documented, over every edge crossing the cut at each step: join the
    lowest-numbered outside feature whose heaviest edge into the tree ties with the heaviest
    crossing edge, to the earliest-joined tree feature whose edge ties with that feature's
    heaviest (ties: within ``tol``, by default :func:`tie_tolerance`). Each feature's parent
    (the root has none)."""
    d = W.shape[0]
    tol = tie_tolerance(W) if tol is None else tol
    tree, parents = [root], {}
    while len(tree) < d:
        outside = [u for u in range(d) if u not in tree]
        heaviest = [max(W[t, u] for t in tree) for u in outside]
        u = outside[first_tied(heaviest, tol)]
        parents[u] = next(t for t in tree if W[t, u] >= max(W[t2, u] for t2 in tree) - tol)
        tree.append(u)
    return parents


def kdb_parents(class_info: np.ndarray, W: np.ndarray, k: int) -> dict[int, tuple[int, ...]]:
    """Sahami's rule with the documented ties: the features in decreasing ``I(X_i; Y)``
    (each step the lowest-numbered feature tied with the largest left), each with the ``k``
    earlier features of largest ``W[i, j]`` (each pick the earliest tied with the largest
    left)."""
    tol_ci, tol = tie_tolerance(class_info), tie_tolerance(W)
    left = list(range(len(class_info)))
    order: list[int] = []
    while left:
        pick = left[first_tied([class_info[i] for i in left], tol_ci)]
        order.append(pick)
        left.remove(pick)
    out = {}
    for t, i in enumerate(order):
        candidates, chosen = list(order[:t]), []
        while candidates and len(chosen) < k:
            pick = candidates[first_tied([W[i, j] for j in candidates], tol)]
            chosen.append(pick)
            candidates.remove(pick)
        out[i] = tuple(sorted(chosen))
    return out


def best_tree_weight(W: np.ndarray) -> float:
    """The largest total weight of a spanning tree of the complete graph, by enumerating
    every tree (Prüfer sequences: d^(d−2) of them)."""
    d = W.shape[0]
    if d < 2:
        return 0.0
    best = -np.inf
    for seq in itertools.product(range(d), repeat=d - 2):
        degree = [1] * d
        for v in seq:
            degree[v] += 1
        weight = 0.0
        for v in seq:
            leaf = min(u for u in range(d) if degree[u] == 1)
            weight += W[leaf, v]
            degree[leaf] -= 1
            degree[v] -= 1
        u, v = (w for w in range(d) if degree[w] == 1)
        best = max(best, weight + W[u, v])
    return float(best)


def log_conditional(
    X: np.ndarray, y: np.ndarray, c: Any, i: int, a: Any, given: dict[int, Any], alpha: float
) -> float:
    """``ln (N(c, x_i = a, given) + α) / (N(c, x_i observed, given) + α V_i)``."""
    num = count(X, y, c, {i: a, **given}) + alpha
    den = count(X, y, c, {i: ..., **given}) + alpha * n_values(X, i)
    return float(np.log(num / den))


def network_log_likelihood(
    X: np.ndarray, y: np.ndarray, row: np.ndarray, c: Any, parents: dict[int, tuple[int, ...]],
    alpha: float,
) -> float:  # fmt: skip
    out = 0.0
    for i, a in enumerate(row):
        if not observed(a):
            continue
        pa = parents[i]
        given = {p: row[p] for p in pa} if all(observed(row[p]) for p in pa) else {}
        out += log_conditional(X, y, c, i, a, given, alpha)
    return out


def aode_log_likelihood(
    X: np.ndarray, y: np.ndarray, row: np.ndarray, c: Any, m: float, alpha: float
) -> float:
    terms = []
    d = len(row)
    for p in range(d):
        if not observed(row[p]) or count(X, y, None, {p: row[p]}) < m:
            continue
        term = log_conditional(X, y, c, p, row[p], {}, alpha)
        for i in range(d):
            if i != p and observed(row[i]):
                term += log_conditional(X, y, c, i, row[i], {p: row[p]}, alpha)
        terms.append(term)
    if not terms:
        return network_log_likelihood(X, y, row, c, {i: () for i in range(d)}, alpha)
    return float(logsumexp(terms) - np.log(len(terms)))
