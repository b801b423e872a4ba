"""Binomial counts: ``x_j`` successes out of ``k_j`` trials, ``x_j ~ Binomial(k_j, p_cj)``.

``ln p(x|c) = Σ_j ln C(k_j, x_j) + x_j ln p_cj + (k_j − x_j) ln(1 − p_cj)`` (the binomial pmf;
natural parameter ``θ = ln p/(1 − p)``, log-partition ``A = −k ln(1 − p)``, base measure
``ln C(k, x)``), linear in ``x`` apart from the class-free ``ln C(k, x)``. ``p`` is smoothed by
a Beta(α, α) prior: ``p = (S + a) / (w k + 2a)`` with ``S`` the weighted successes, ``w`` the
weight of the rows where the feature is observed and ``a`` = α (posterior mean), α − 1 (mode)
or 0 (maximum likelihood). With ``k = 1`` this is the Bernoulli model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import column_label, first_bad, position
from ..errors import DataError, ParameterError
from ..stats import Counts
from ..stats._base import first_true, safe_ratio
from ._base import Family, safe_dot, split_missing
from ._counts_common import (
    Block,
    count_block,
    count_totals,
    exp_column_names,
    exp_design,
    exp_log_prob,
    log_factorial,
    row_sums,
)
from ._dirichlet import check_alpha, check_estimate, log_ratio, pseudo_count


@dataclass(frozen=True)
class BinomialParams:
    log_prob: np.ndarray  # ln p_cj, (n_classes, n_features)
    log_neg_prob: np.ndarray  # ln (1 − p_cj)
    n_trials: np.ndarray  # k_j, (n_features,)

    @property
    def degenerate(self) -> bool:
        """Some ``p`` is exactly 1 (unsmoothed): the natural parameter is infinite."""
        return bool(np.isneginf(self.log_neg_prob).any())


#: The largest n_trials: 2**53, beyond which float64 does not hold every whole number.
_MOST_TRIALS = float(2**53)


def check_trials(n_trials: Any, n_features: int) -> np.ndarray:
    """``n_trials`` (one whole number ≥ 1, or one per feature) as a float array (n_features,)."""
    if n_trials is None:
        raise ParameterError(
            "a binomial model needs n_trials: the number of trials k each count is out of "
            "(x = 0..k), one k for every feature or a list with one k per feature"
        )
    try:
        k = np.asarray(n_trials, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(
            f"n_trials must be a whole number >= 1 or one per feature; got {n_trials!r}"
        ) from None
    if isinstance(n_trials, (bool, np.bool_, str, bytes)) or k.ndim > 1:
        raise ParameterError(
            f"n_trials must be a whole number >= 1 or one per feature; got {n_trials!r}"
        )
    if k.ndim == 1 and k.shape[0] != n_features:
        raise ParameterError(
            f"n_trials has {k.shape[0]} values; a per-feature n_trials needs one for each of the "
            f"{n_features} features"
        )
    # Up to 2**53, the whole numbers float64 holds exactly: ln C(k, x) is a difference of
    # log-factorials, which past it lose every digit (and past ~1e306 overflow into NaN).
    bad = ~np.isfinite(k) | (k < 1) | (k != np.floor(k)) | (k > _MOST_TRIALS)
    if bad.any():
        value = float(k.ravel()[np.flatnonzero(bad.ravel())[0]])
        raise ParameterError(
            f"n_trials must be whole numbers from 1 to 2**53 (the number of trials); got {value!r}"
        )
    return np.broadcast_to(k, (n_features,)).copy()


class Binomial(Family):
    """Binomial family over all features of a block.

    Parameters
    ----------
    n_trials : int or array of shape (n_features,)
        ``k``: every count of feature j is a whole number from 0 to ``k_j``.
    alpha : float or array of shape (n_features,)
        Beta(α, α) prior on each ``p``.
    estimate : {"mean", "map", "mle"}
        Posterior mean, posterior mode (α ≥ 1) or maximum likelihood.

    Examples
    --------
    >>> import numpy as np
    >>> family = Binomial(n_trials=4, alpha=1.0)
    >>> X = np.array([[3.0], [4.0], [1.0]])
    >>> R = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> params = family.finalize(family.summarize(X, R))
    >>> np.exp(params.log_prob).round(4).tolist()  # (7 + 1)/(8 + 2), (1 + 1)/(4 + 2)
    [[0.8], [0.3333]]
    >>> family.log_prob(params, np.array([[2.0]])).round(4)  # ln C(4,2) + 2 ln p + 2 ln(1-p)
    array([[-1.8734, -1.2164]])
    """

    name = "binomial"
    one_column = "pmf"
    by_name = False  # its numbers of trials have no default
    linear = True

    def __init__(self, n_trials: Any = None, *, alpha: Any = 1.0, estimate: str = "mean"):
        self.n_trials = n_trials
        self.alpha = alpha
        self.estimate = estimate

    def config(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            return v.tolist() if isinstance(v, np.ndarray) else v

        return {
            "n_trials": plain(self.n_trials),
            "alpha": plain(self.alpha),
            "estimate": self.estimate,
        }

    def validate(self, X: Any, names: Sequence[str]) -> Block:
        X = count_block(X, names, "a binomial model")
        k = check_trials(self.n_trials, X.shape[1])
        if sp.issparse(X):
            vals, cols = X.data, X.indices
        else:
            vals, cols = X, np.arange(X.shape[1])[None, :]
        observed = ~np.isnan(vals)
        with np.errstate(invalid="ignore"):
            negative = observed & (vals < 0)
            # Negative values first: the message every count model gives for them.
            bad = (
                negative
                if negative.any()
                else observed & ((vals > k[cols]) | (vals != np.floor(vals)))
            )
        if bad.any():
            row, col = first_bad(X, bad)
            value = float(X[row, col])
            if value < 0:
                where = f"X[{row}, {position(names, col)}]"
                lead = f"Negative values in data passed to a binomial model: {where}"
                why = ""
            else:
                lead = f"X[{row}, {position(names, col)}]"
                why = (
                    " is not a whole number"
                    if value != np.floor(value)
                    else f" is above n_trials = {k[col]:g}"
                )
            raise DataError(
                f"{lead} = {value!r} ({column_label(names, col)}){why}; a binomial model takes "
                f"whole-number counts from 0 to {k[col]:g} in this column (NaN marks a missing "
                "value)"
            )
        return X

    def summarize(self, X: Block, R: np.ndarray | sp.spmatrix) -> Counts:
        return count_totals(X, R)

    def parameter_size(self, stats: Counts) -> int:
        # finalize's peak in (n_classes, n_features) arrays, its temporaries too (a model
        # file's load takes it from its budget first): the mean count and its masks, the
        # rescaled counts, trials and pseudo-counts, successes, failures and denominators,
        # and each log ratio with its two logarithms; the rows observed where values are
        # missing
        arrays = 13 + (stats.missing is not None)
        return arrays * stats.n_classes * stats.n_features + 4 * stats.n_features

    def finalize(self, stats: Counts) -> BinomialParams:
        k = check_trials(self.n_trials, stats.n_features)
        alpha = check_alpha(self.alpha, stats.n_features)
        a = pseudo_count(alpha, check_estimate(self.estimate))
        w = stats.observed_weight()
        mean = safe_ratio(stats.total, w)
        above = (w > 0) & (mean > k * (1 + 1e-12))
        if above.any():
            c, j = first_true(above)
            raise ParameterError(
                f"n_trials = {k[j]:g} for feature {j} is below the mean count "
                f"{mean[c, j]:g} of class {c} in these statistics: they were not learned "
                "as counts out of this n_trials"
            )
        # (S + a) / (w k + 2a) and (w k − S + a) / (w k + 2a), with numerator and denominator
        # divided by w where w >= 1: the mean count and a / w instead of products of the
        # weight, which could overflow for weights near 1e308.
        big = w >= 1.0
        unit = np.where(big, w, 1.0)
        a_w = np.asarray(a) / unit
        S = np.where(big, mean, stats.total)
        trials = np.where(big, 1.0, w) * k
        num = S + a_w
        den = trials + 2 * a_w
        fail = np.maximum(trials - S, 0.0) + a_w
        return BinomialParams(log_ratio(num, den, 2), log_ratio(fail, den, 2), k)

    @staticmethod
    def _log_choose(params: BinomialParams, Xz: Block) -> np.ndarray:
        k = params.n_trials
        log_k = log_factorial(k)
        return row_sums(Xz, lambda x, j: log_k[j] - log_factorial(x) - log_factorial(k[j] - x))

    def log_prob(self, params: BinomialParams, X: Block) -> np.ndarray:
        Xz, missing = split_missing(X)
        h = self._log_choose(params, Xz)
        if not params.degenerate:
            theta, A = self._natural(params)
            return exp_log_prob(Xz, missing, theta, A, h)
        # Some p = 1 (maximum likelihood): failures are impossible there, so count them
        # explicitly (dense; only unsmoothed models get here).
        Xd = Xz.toarray() if sp.issparse(Xz) else Xz
        seen = 1.0
        if missing is not None:
            seen = 1.0 - (missing.toarray() if sp.issparse(missing) else missing)
        failures = seen * params.n_trials - Xd
        jll = safe_dot(Xd, params.log_prob) + safe_dot(failures, params.log_neg_prob)
        return jll + h[:, None]

    @staticmethod
    def _natural(params: BinomialParams) -> tuple[np.ndarray, np.ndarray]:
        """θ = ln p − ln(1 − p) (−inf where p = 0) and A = −k ln(1 − p)."""
        theta = params.log_prob - params.log_neg_prob
        return theta, -params.n_trials * params.log_neg_prob

    def linear_form(self, params: BinomialParams) -> tuple[np.ndarray, np.ndarray]:
        """Weights ``[θ, A (per "missing" column), 1 (the ln C(k, x) column)]`` over
        :meth:`design`'s columns, bias ``−Σ_j A_cj``."""
        if params.degenerate:
            raise ParameterError(
                "the binomial model has some p = 1 (unsmoothed estimate), where ln p/(1 − p) is "
                "infinite: it has no linear form; use estimate='mean' with alpha > 0"
            )
        theta, A = self._natural(params)
        return np.hstack([theta, A, np.ones((A.shape[0], 1))]), -A.sum(axis=1)

    def design(self, params: BinomialParams, X: Block) -> Block:
        Xz, missing = split_missing(X)
        return exp_design(Xz, missing, self._log_choose(params, Xz))

    def column_names(self, params: BinomialParams, names: Sequence[str]) -> list[str]:
        return exp_column_names(names, "<Σ ln C(k, x)>")
