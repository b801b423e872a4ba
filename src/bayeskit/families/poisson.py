"""Poisson counts: ``x_j ~ Poisson(λ_cj)`` in each class (Vorontsov's lectures).

``ln p(x|c) = Σ_j x_j ln λ_cj − λ_cj − ln x_j!`` is an exponential family with natural
parameter ``θ = ln λ``, log-partition ``A = λ`` and base measure ``h(x) = −ln x!``: linear in
``x`` apart from the class-free ``h``. The rate is smoothed by a Gamma(α, β) prior (shape α,
rate β): ``λ = (S + α) / (w + β)`` with ``S`` the weighted count total and ``w`` the weight of
the rows where the feature is observed.

The document-length variant (McCallum & Nigam) scores a row given its length ``N = Σ_j x_j``: the
Poisson counts conditioned on their sum are multinomial with ``π_cj = λ_cj / Λ_c``
(``Λ_c = Σ_j λ_cj``), so the length term ``−Λ_c`` (the expected length) becomes
``−N ln Λ_c``, and with the same α the model *is* multinomial Naive Bayes (β cancels).

Its helpers, shared with the binomial family, are in :mod:`._counts_common`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._lazy import special
from .._validation import check_non_negative, first_bad
from ..errors import DataError, ParameterError
from ..stats import Counts
from ..stats._base import first_true, safe_ratio
from ._base import Family, safe_dot, split_missing
from ._counts_common import (
    Block,
    check_nonneg_number,
    count_block,
    count_totals,
    exp_column_names,
    exp_design,
    exp_log_prob,
    log_factorial,
    observed_sum,
    row_sums,
)
from ._dirichlet import check_alpha, check_estimate


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
        Score each row given its length ``N = Σ_j x_j`` (the multinomial model).

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
    one_column = "pmf"
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

    def summarize(self, X: Block, R: np.ndarray | sp.spmatrix) -> Counts:
        return count_totals(X, R)

    def parameter_size(self, stats: Counts) -> int:
        # finalize's peak in (n_classes, n_features) arrays, its temporaries too (a model
        # file's load takes it from its budget first): numerators, denominators, their ratio,
        # the rates, their logarithm and its masked copy, and the masks; the rows observed
        # where values are missing
        arrays = 6 + (stats.missing is not None)
        return arrays * stats.n_classes * stats.n_features + 8 * stats.n_features

    def finalize(self, stats: Counts) -> PoissonParams:
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
        w = stats.observed_weight()
        S = stats.total
        num, den = S + a, w + b
        pooled_num, pooled_den = S.sum(axis=0) + a, w.sum(axis=0) + b
        known = pooled_den > 0
        fallback = safe_ratio(pooled_num, pooled_den)
        with np.errstate(over="ignore"):
            rate = np.where(den > 0, safe_ratio(num, den), fallback[None, :])
        rate[:, ~known] = 0.0
        if np.isinf(rate).any():
            c, j = first_true(np.isinf(rate))
            raise ParameterError(
                f"the rate of feature {j} in class index {c}, (S + alpha) / (w + beta) = "
                f"{float(np.broadcast_to(num, rate.shape)[c, j]):.3g} / {float(den[c, j]):.3g}, "
                "exceeds float64: the class's rows weigh almost nothing and "
                f"beta={self.beta!r} adds no prior rows to the denominator; give beta > 0 (the "
                "Gamma prior's rate, e.g. 1) or larger sample weights",
                cell=(c, j),
            )
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
        return jll + (special.gammaln(length + 1.0) - log_fact)[:, None]

    def log_prob_cells(self, params: PoissonParams, X: np.ndarray) -> np.ndarray | None:
        """:meth:`log_prob`'s term of each column apart, (n_features, n_rows, n_classes), 0
        where missing: the very numbers of a row holding that column's value alone (the
        held-out choice of :class:`~bayeskit.families.Auto` asks for these), by the same
        operations without the row. None given the length (its terms are not apart)."""
        if self.given_length:
            return None
        x = np.asarray(X, dtype=np.float64).T[:, :, None]  # (d, n, 1)
        missing = np.isnan(x)
        x = np.where(missing, 0.0, x)
        theta = params.log_rate.T[:, None, :]  # (d, 1, K)
        # x θ, where θ = −inf (a rate of 0) is −inf for a count above 0 and 0 for a 0
        with np.errstate(invalid="ignore"):
            dot = np.where(np.isneginf(theta), np.where(x > 0, -np.inf, 0.0), x * theta)
        log_fact = log_factorial(x)
        if not params.known.all():
            log_fact = log_fact * params.known.astype(np.float64)[:, None, None]
        out = dot - np.where(missing, 0.0, params.rate.T[:, None, :])
        out += -log_fact
        return out

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
        h = special.gammaln(length + 1.0) - log_fact
        if sp.issparse(Xz):
            return sp.hstack([Xz, sp.csr_matrix(h[:, None])], format="csr")
        return np.hstack([Xz, h[:, None]])

    def column_names(self, params: PoissonParams, names: Sequence[str]) -> list[str]:
        if self.given_length:
            return [*names, "<ln N!/Πx!>"]
        return exp_column_names(names, "<−Σ ln x!>")
