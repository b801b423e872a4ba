"""Multivariate Bernoulli event model: each feature is present or absent (McCallum & Nigam 1998).

``p_cj = (N_cj + α) / (N_c + 2α)``; unlike the multinomial model the absence of a feature counts
too: ``ln p(x|c) = Σ_j x_j ln p_cj + (1 − x_j) ln(1 − p_cj)``, still linear in ``x``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from numbers import Real
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import as_real, check_binary
from ..errors import DataError, ParameterError
from ..stats import Counts
from ..stats._base import first_true
from ._base import Family, class_totals, class_weight_totals, safe_dot, split_missing
from ._dirichlet import (
    check_alpha,
    check_auto_estimate,
    check_estimate,
    choose_alpha,
    is_auto,
    log_ratio,
    pseudo_count,
)


@dataclass(frozen=True)
class BernoulliParams:
    feature_log_prob: np.ndarray  # ln p_cj, (n_classes, n_features)
    feature_log_neg_prob: np.ndarray  # ln (1 − p_cj)
    alpha: Any = None  # the pseudo-count chosen by alpha="auto" (None: as given)

    @cached_property
    def linear(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(W, b) with ``log p(x|c) = x @ W.T + b``; None when some p_cj is exactly 1."""
        neg = self.feature_log_neg_prob
        if np.isneginf(neg).any():
            return None
        return self.feature_log_prob - neg, neg.sum(axis=1)


def binarize(X: Any, threshold: float) -> Any:
    """1 where ``X > threshold``, else 0, NaN (missing) kept; CSR stays CSR."""
    if sp.issparse(X):
        out = X.tocsr(copy=True)
        missing = np.isnan(out.data)
        present = out.data > threshold
        out.data = np.where(missing, np.nan, present) if missing.any() else present.astype(float)
        out.eliminate_zeros()
        return out
    X = np.asarray(X)
    missing = np.isnan(X)
    present = threshold < X
    return np.where(missing, np.nan, present) if missing.any() else present.astype(float)


def _dense(X: Any) -> np.ndarray:
    return X.toarray() if sp.issparse(X) else np.asarray(X)


class Bernoulli(Family):
    """Bernoulli family over all features of a block.

    Parameters
    ----------
    alpha, force_alpha, estimate
        As for :class:`~bayeskit.families.Multinomial`, with two categories per feature;
        ``alpha="auto"`` chooses one pseudo-count for the block from the counts, as
        :class:`~bayeskit.families.Categorical`'s does (absence and presence its two values).
    binarize : float or None
        Threshold that turns values into presence (``x > binarize``); None: input must be 0/1.
    """

    name = "bernoulli"
    column_kind = "binary"
    linear = True

    def __init__(
        self,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
        binarize: float | None = 0.0,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate
        self.binarize = binarize

    def config(self) -> dict[str, Any]:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        return {
            "alpha": alpha,
            "force_alpha": self.force_alpha,
            "estimate": self.estimate,
            "binarize": self.binarize,
        }

    def _threshold(self) -> float | None:
        """``binarize`` checked: None or a number (a model file may hold anything)."""
        value = self.binarize
        if value is None:
            return None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.number)):
            raise ParameterError(f"binarize must be None or a number; got {value!r}")
        if np.isnan(as_real(value)):
            raise ParameterError("binarize must be None or a number; got nan")
        return as_real(value)

    def validate(self, X: Any, names: Sequence[str]) -> Any:
        threshold = self._threshold()
        if threshold is None:
            check_binary(X, names, "BernoulliNB")
            return X
        return binarize(X, threshold)

    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Counts:
        X, missing = split_missing(X)
        lost = None if missing is None else class_totals(R, missing)
        return Counts(class_weight_totals(R), class_totals(R, X), lost)

    def parameter_size(self, stats: Counts) -> int:
        # finalize's peak in (n_classes, n_features) arrays, its temporaries too (a model
        # file's load takes it from its budget first): the smoothed counts, the check that
        # none exceeds its rows (three temporaries and a mask), the denominators, each log
        # ratio with its two logarithms (and copies where a class is empty), the rows
        # observed where values are missing; alpha="auto" scores every candidate on both
        # columns of every feature (measured at 21.5 arrays: 24 counted)
        arrays = 9 + (stats.missing is not None) + (24 if is_auto(self.alpha) else 0)
        return arrays * stats.n_classes * stats.n_features + 4 * stats.n_features

    def finalize(self, stats: Counts) -> BernoulliParams:
        self._threshold()  # a bad binarize is refused by fit and load, not by predict
        estimate = check_estimate(self.estimate)
        # Rows where the feature is missing are neither presence nor absence.
        seen = stats.observed_weight()
        chosen = None
        if is_auto(self.alpha):
            check_auto_estimate(estimate)
            d = stats.n_features
            two = np.stack([seen - stats.total, stats.total], axis=2).reshape(-1, 2 * d)
            chosen, _ = choose_alpha(
                np.maximum(two, 0.0), np.repeat(np.arange(d), 2), np.full(d, 2)
            )
            alpha: Any = chosen
        else:
            alpha = check_alpha(self.alpha, stats.n_features, force_alpha=self.force_alpha)
        a = pseudo_count(alpha, estimate)
        num = stats.total + a
        excess = stats.total > seen + 1e-9 * np.abs(seen)
        if excess.any():
            c, j = first_true(excess)
            raise DataError(
                f"feature {j} is present {stats.total[c, j]:.6g} times in the "
                f"{seen[c, j]:.6g} rows of class index {c} in "
                "which it is observed: a feature cannot be present in more rows than there are "
                "(were rows removed that the model never saw?)"
            )
        den = seen + 2 * np.asarray(a)
        return BernoulliParams(log_ratio(num, den, 2), log_ratio(den - num, den, 2), chosen)

    def log_prob(self, params: BernoulliParams, X: Any) -> np.ndarray:
        X, missing = split_missing(X)
        if missing is None:
            return self._complete_log_prob(params, X)
        # A missing feature is neither present nor absent: it contributes neither ln p nor
        # ln(1 − p). Rows with missing values are the rare case, scored densely.
        X, missing = _dense(X), _dense(missing)
        absent = 1.0 - X - missing
        return safe_dot(X, params.feature_log_prob) + safe_dot(absent, params.feature_log_neg_prob)

    def _complete_log_prob(self, params: BernoulliParams, X: Any) -> np.ndarray:
        if params.linear is not None:
            W, b = params.linear
            return safe_dot(X, W) + b
        neg = params.feature_log_neg_prob
        # Σ_j (1 − x_j) ln(1 − p_cj) = Σ_j ln(1 − p_cj) − Σ_j x_j ln(1 − p_cj), kept sparse;
        # where 1 − p = 0 (unsmoothed MLE) a row lacking that feature is impossible.
        impossible = np.isneginf(neg)
        finite_neg = np.where(impossible, 0.0, neg)
        jll = safe_dot(X, params.feature_log_prob) - np.asarray(X @ finite_neg.T)
        jll += finite_neg.sum(axis=1)
        if impossible.any():
            absent_hits = impossible.sum(axis=1) - np.asarray(X @ impossible.T.astype(float))
            jll[absent_hits > 0] = -np.inf
        return np.asarray(jll, dtype=np.float64)

    def linear_form(self, params: BernoulliParams) -> tuple[np.ndarray, np.ndarray]:
        neg = params.feature_log_neg_prob
        return params.feature_log_prob - neg, neg.sum(axis=1)
