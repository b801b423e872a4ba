"""Poisson counts: ``x_j ~ Poisson(λ_cj)`` in each class (seed 002).

``ln p(x|c) = Σ_j x_j ln λ_cj − λ_cj − ln x_j!`` is an exponential family with natural
parameter ``θ = ln λ``, log-partition ``A = λ`` and base measure ``h(x) = −ln x!``: linear in
``x`` apart from the class-free ``h``. The rate is smoothed by a Gamma(α, β) prior (shape α,
rate β): ``λ = (S + α) / (w + β)`` with ``S`` the weighted count total and ``w`` the weight of
the rows where the feature is observed.

The document-length variant (seed 002) scores a row given its length ``N = Σ_j x_j``: the
Poisson counts conditioned on their sum are multinomial with ``π_cj = λ_cj / Λ_c``
(``Λ_c = Σ_j λ_cj``), so the length term ``−Λ_c`` (the expected length) becomes
``−N ln Λ_c``, and with the same α the model *is* multinomial Naive Bayes (β cancels).

The helpers below serve every count family of this exponential form (binomial too):
``ln p(x|c) = Σ_j o_j (x_j θ_cj − A_cj + h_j(x_j))`` with ``o_j`` = feature j observed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._jit import njit
from .._validation import check_non_negative, column_label, first_bad
from ..errors import DataError, ParameterError
from ..stats import Moments
from ._base import (
    Family,
    class_totals,
    class_weight_totals,
    hard_labels,
    real_block,
    safe_dot,
    split_missing,
)
from ._dirichlet import check_alpha, check_estimate

#: a validated count block: dense float64 (NaN = missing) or CSR float64.
Block: TypeAlias = Any


# ---------------------------------------------------------------- count-family helpers
def count_block(X: Any, names: Sequence[str], what: str) -> Block:
    """Dense float64 (NaN = missing) or CSR float64 with each cell stored once; ±inf refused
    naming the cell.

    CSR stays CSR: for count data zeros cost nothing (``h(0) = 0`` for every family here).
    """
    if not sp.issparse(X):
        return real_block(X, names, what)
    X = sp.csr_matrix(X, dtype=np.float64)
    # Functions of single entries (ln x!, squared deviations) need each cell stored once;
    # unsorted indices are fine.
    if _has_duplicates(X.indptr, X.indices, X.shape[1]):
        X = X.copy()
        X.sum_duplicates()
    infinite = np.isinf(X.data)
    if infinite.any():
        row, col = first_bad(X, infinite)
        raise DataError(
            f"X contains {X.data[infinite][0]} at row {row}, {column_label(names, col)}; {what} "
            "takes finite numbers (NaN marks a missing value)"
        )
    return X


def count_moments(X: Block, R: np.ndarray | sp.spmatrix) -> Moments:
    """Per-class weight, mean and M2 of each feature over its observed entries (NaN left
    out); CSR input stays sparse: a zero's squared deviation is ``mean²``."""
    if not sp.issparse(X):
        return Moments.of(X, R)
    n_classes = R.shape[1]
    labels = hard_labels(R)
    if labels is not None:
        codes, row_weight = labels
        weight, mean, m2 = _csr_moments(
            X.indptr,
            X.indices,
            X.data,
            codes,
            row_weight.astype(np.float64),
            n_classes,
            X.shape[1],
        )
        return Moments(weight, mean, m2)
    # Soft responsibilities: every row deviates from every class mean.
    Xz, missing = split_missing(X)
    weight = np.repeat(class_weight_totals(R)[:, None], Xz.shape[1], axis=1)
    if missing is not None:
        weight -= class_totals(R, missing)
    mean = _ratio(class_totals(R, Xz), weight)
    stored = _with_data(Xz, np.ones_like(Xz.data))
    zeros = np.maximum(weight - class_totals(R, stored), 0.0)
    Rd = np.asarray(R.toarray() if sp.issparse(R) else R, dtype=np.float64)  # type: ignore[union-attr]
    m2 = np.empty_like(mean)
    for c in range(n_classes):
        dev = Xz.data - mean[c, Xz.indices]
        m2[c] = np.asarray(_with_data(Xz, dev * dev).T @ Rd[:, c]).ravel()
    return Moments(weight, mean, np.maximum(m2 + zeros * mean * mean, 0.0))


@njit(nogil=True)
def _csr_moments(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    codes: np.ndarray,
    row_weight: np.ndarray,
    n_classes: int,
    n_features: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """Moments of canonical CSR counts under hard labels in two passes over the stored
    entries (NaN = missing): one for the totals, one for the squared deviations; each
    observed zero of a class adds ``mean²``."""
    total = np.zeros((n_classes, n_features))
    stored = np.zeros((n_classes, n_features))
    lost = np.zeros((n_classes, n_features))
    class_weight = np.zeros(n_classes)
    for i in range(indptr.shape[0] - 1):
        c, w = codes[i], row_weight[i]
        class_weight[c] += w
        for k in range(indptr[i], indptr[i + 1]):
            v = data[k]
            if v != v:
                lost[c, indices[k]] += w
            else:
                total[c, indices[k]] += w * v
                stored[c, indices[k]] += w
    weight = np.empty((n_classes, n_features))
    mean = np.zeros((n_classes, n_features))
    for c in range(n_classes):
        for j in range(n_features):
            weight[c, j] = class_weight[c] - lost[c, j]
            if weight[c, j] != 0:
                mean[c, j] = total[c, j] / weight[c, j]
    m2 = np.zeros((n_classes, n_features))
    for i in range(indptr.shape[0] - 1):
        c, w = codes[i], row_weight[i]
        for k in range(indptr[i], indptr[i + 1]):
            v = data[k]
            if v == v:
                dev = v - mean[c, indices[k]]
                m2[c, indices[k]] += w * dev * dev
    for c in range(n_classes):
        for j in range(n_features):
            zeros = max(weight[c, j] - stored[c, j], 0.0)
            m2[c, j] = max(m2[c, j] + zeros * mean[c, j] * mean[c, j], 0.0)
    return weight, mean, m2


@njit(nogil=True)
def _has_duplicates(
    indptr: np.ndarray, indices: np.ndarray, n_cols: int
) -> bool:  # pragma: no cover
    last = np.full(n_cols, -1, dtype=np.int64)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            if last[indices[k]] == i:
                return True
            last[indices[k]] = i
    return False


def observed_sum(missing: Block, A: np.ndarray) -> np.ndarray:
    """``Σ_j o_ij A_cj`` of every row and class, shape (n, K), given the indicator of the
    missing entries: the row's observed features only. Rows with missing values are summed
    directly (no cancellation)."""
    out = np.repeat(A.sum(axis=1)[None, :], missing.shape[0], axis=0)
    holes = np.flatnonzero(np.asarray(missing.sum(axis=1)).ravel())
    if holes.size:
        part = missing[holes]
        seen = 1.0 - (part.toarray() if sp.issparse(part) else part)
        out[holes] = seen @ A.T
    return out


def row_sums(X: Block, f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """``Σ_j f(x_ij, j)`` of each row, for an ``f`` with ``f(0, j) = 0`` (only stored entries
    of CSR input are visited; ``j`` is passed as column indices)."""
    if sp.issparse(X):
        return np.asarray(_with_data(X, f(X.data, X.indices)).sum(axis=1)).ravel()
    return np.asarray(f(X, np.arange(X.shape[1])[None, :]).sum(axis=1), dtype=np.float64)


def exp_log_prob(
    Xz: Block, missing: Block | None, theta: np.ndarray, A: np.ndarray, h: np.ndarray
) -> np.ndarray:
    """``Σ_j o_ij (x_ij θ_cj − A_cj) + h_i``: the exponential-family log-likelihood (θ may
    hold −inf, an impossible count; A is finite)."""
    jll = safe_dot(Xz, theta)
    if missing is None:
        jll -= A.sum(axis=1)
    else:
        jll -= observed_sum(missing, A)
    jll += h[:, None]
    return jll


def exp_design(Xz: Block, missing: Block | None, h: np.ndarray) -> Block:
    """``[x, missing indicator, h]``: the columns ``exp_log_prob`` is linear in, given the
    weights ``[θ, A, 1]`` and bias ``−Σ_j A_cj`` (a missing feature gives its A back)."""
    n, d = Xz.shape
    if sp.issparse(Xz):
        holes = missing if missing is not None else sp.csr_matrix((n, d))
        return sp.hstack([Xz, holes, sp.csr_matrix(h[:, None])], format="csr")
    holes_d = missing if missing is not None else np.zeros((n, d))
    return np.hstack([Xz, holes_d, h[:, None]])


def exp_column_names(names: Sequence[str], base: str) -> list[str]:
    return [*names, *(f"{n}=<missing>" for n in names), base]


def log_factorial(x: np.ndarray) -> np.ndarray:
    """``ln x! = ln Γ(x + 1)``; whole counts (the usual case) are looked up in a table, which
    is several times faster than evaluating Γ at every entry."""
    if x.size == 0:
        return np.zeros_like(x)
    top = float(x.max())
    if top < 1 << 16:
        whole = x.astype(np.int64)
        if np.array_equal(whole, x):
            return gammaln(np.arange(int(top) + 1) + 1.0)[whole]
    return gammaln(x + 1.0)


def _with_data(X: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast_shapes(num.shape, den.shape))
    np.divide(num, den, out=out, where=den != 0)
    return out


def check_nonneg_number(value: Any, what: str) -> float:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, Real)
        or not np.isfinite(float(value))
        or value < 0
    ):
        raise ParameterError(f"{what} must be a finite number >= 0; got {value!r}")
    return float(value)


# ---------------------------------------------------------------- the Poisson family
@dataclass(frozen=True)
class PoissonParams:
    rate: np.ndarray  # λ_cj, (n_classes, n_features); 0 for a feature never observed
    log_rate: np.ndarray  # ln λ_cj (−inf where λ = 0 under MLE; 0 for unknown features)
    known: np.ndarray  # (n_features,) bool: observed in training (else the term is dropped)


class Poisson(Family):
    """Poisson family over all features of a block.

    Parameters
    ----------
    alpha : float or array of shape (n_features,)
        Shape of the Gamma prior on each rate: pseudo-count added to every class total, so a
        feature never seen in a class still has a positive rate.
    beta : float
        Rate of the Gamma prior: pseudo-rows added to every class weight (0: improper prior).
    estimate : {"mean", "map", "mle"}
        Posterior mean ``(S + α)/(w + β)``, posterior mode ``(S + α − 1)/(w + β)`` (α ≥ 1) or
        maximum likelihood ``S / w``.
    given_length : bool
        Score each row given its length ``N = Σ_j x_j`` (the multinomial model, seed 002).

    A class in which a feature was never observed (``w + β = 0``) gets the rate pooled over
    all classes, which tells the classes nothing apart; a feature observed in no class at all
    drops out as a missing value does.

    Examples
    --------
    >>> import numpy as np
    >>> family = Poisson(alpha=0.5)
    >>> X = np.array([[2.0, 0.0], [4.0, 1.0], [0.0, 3.0]])
    >>> R = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> params = family.finalize(family.summarize(X, R))
    >>> params.rate.tolist()  # (6 + 0.5) / 2, (1 + 0.5) / 2; (0 + 0.5) / 1, (3 + 0.5) / 1
    [[3.25, 0.75], [0.5, 3.5]]
    >>> family.log_prob(params, np.array([[3.0, np.nan]])).round(4)  # ln Poisson(3; λ_c0)
    array([[-1.5058, -4.3712]])
    """

    name = "poisson"
    linear = True

    def __init__(
        self,
        alpha: Any = 0.5,
        *,
        beta: float = 0.0,
        estimate: str = "mean",
        given_length: bool = False,
    ):
        self.alpha = alpha
        self.beta = beta
        self.estimate = estimate
        self.given_length = given_length

    def config(self) -> dict[str, Any]:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        return {
            "alpha": alpha,
            "beta": self.beta,
            "estimate": self.estimate,
            "given_length": self.given_length,
        }

    def validate(self, X: Any, names: Sequence[str]) -> Block:
        X = count_block(X, names, "a Poisson model")
        check_non_negative(X, names, "a Poisson model")
        return X

    def summarize(self, X: Block, R: np.ndarray | sp.spmatrix) -> Moments:
        return count_moments(X, R)

    def finalize(self, stats: Moments) -> PoissonParams:
        estimate = check_estimate(self.estimate)
        alpha = check_alpha(self.alpha, stats.n_features)
        beta = check_nonneg_number(self.beta, "beta (the Gamma prior's rate)")
        if not isinstance(self.given_length, (bool, np.bool_)):
            raise ParameterError(f"given_length must be True or False; got {self.given_length!r}")
        if estimate == "map" and np.min(alpha) < 1:
            raise ParameterError(
                "estimate='map' needs alpha >= 1: the mode of the Gamma(alpha + S, beta + w) "
                f"posterior is (S + alpha − 1)/(w + beta) only then; got alpha={alpha!r}. Use "
                "estimate='mean' for a smaller alpha"
            )
        a: Any = {"mean": alpha, "map": np.asarray(alpha) - 1.0, "mle": 0.0}[estimate]
        b = 0.0 if estimate == "mle" else beta
        w = np.maximum(stats.weight, 0.0)
        S = w * stats.mean
        num, den = S + a, w + b
        pooled_num, pooled_den = S.sum(axis=0) + a, w.sum(axis=0) + b
        known = pooled_den > 0
        fallback = _ratio(pooled_num, pooled_den)
        rate = np.where(den > 0, _ratio(num, den), fallback[None, :])
        rate[:, ~known] = 0.0
        with np.errstate(divide="ignore"):
            log_rate = np.where(known, np.log(rate), 0.0)
        return PoissonParams(rate, log_rate, known)

    def _h(self, params: PoissonParams, Xz: Block) -> tuple[np.ndarray, np.ndarray]:
        """(``Σ_j ln x_j!`` and the length ``N``) of each row over the known features."""
        if params.known.all():
            return row_sums(Xz, lambda x, j: log_factorial(x)), row_sums(Xz, lambda x, j: x)
        known = params.known.astype(np.float64)
        log_fact = row_sums(Xz, lambda x, j: log_factorial(x) * known[j])
        return log_fact, row_sums(Xz, lambda x, j: x * known[j])

    def log_prob(self, params: PoissonParams, X: Block) -> np.ndarray:
        Xz, missing = split_missing(X)
        log_fact, length = self._h(params, Xz)
        if not self.given_length:
            return exp_log_prob(Xz, missing, params.log_rate, params.rate, -log_fact)
        # Multinomial given N over the observed features: Σ x ln λ − N ln Σ_obs λ + ln N!/Πx!.
        dot = safe_dot(Xz, params.log_rate)
        if missing is None:
            expected: np.ndarray = params.rate.sum(axis=1)[None, :]
        else:
            expected = observed_sum(missing, params.rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(length[:, None] > 0, length[:, None] * np.log(expected), 0.0)
            jll = np.where(np.isneginf(dot), -np.inf, dot - term)
        return jll + (gammaln(length + 1.0) - log_fact)[:, None]

    def linear_form(self, params: PoissonParams) -> tuple[np.ndarray, np.ndarray]:
        """Weights over :meth:`design`'s columns.

        Plain: ``[ln λ, λ (per "missing" column), 1 (the −Σ ln x! column)]``, bias ``−Σ_j λ_cj``.
        Given the length: ``[ln π_cj, 1 (the ln N!/Πx! column)]``, bias 0.
        """
        rate, log_rate = params.rate, params.log_rate
        ones = np.ones((rate.shape[0], 1))
        if not self.given_length:
            return np.hstack([log_rate, rate, ones]), -rate.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_total = np.log(rate.sum(axis=1, keepdims=True))
            log_pi = np.where(params.known, log_rate - log_total, 0.0)
        # A class with total rate 0 (MLE, no counts) can only produce empty rows.
        log_pi[np.isneginf(log_total[:, 0])[:, None] & params.known] = -np.inf
        return np.hstack([log_pi, ones]), np.zeros(rate.shape[0])

    def design(self, params: PoissonParams, X: Block) -> Block:
        Xz, missing = split_missing(X)
        log_fact, length = self._h(params, Xz)
        if not self.given_length:
            return exp_design(Xz, missing, -log_fact)
        if missing is not None:
            row, col = first_bad(missing, (missing.data if sp.issparse(missing) else missing) > 0)
            raise DataError(
                f"X[{row}, {col}] is missing; the linear form of the Poisson model given the "
                "length holds for complete rows only (a missing count changes which rates the "
                "length is shared among)"
            )
        h = gammaln(length + 1.0) - log_fact
        if sp.issparse(Xz):
            return sp.hstack([Xz, sp.csr_matrix(h[:, None])], format="csr")
        return np.hstack([Xz, h[:, None]])

    def column_names(self, params: PoissonParams, names: Sequence[str]) -> list[str]:
        if self.given_length:
            return [*names, "<ln N!/Πx!>"]
        return exp_column_names(names, "<−Σ ln x!>")
