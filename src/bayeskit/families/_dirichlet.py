"""Point estimates of category probabilities under a Dirichlet prior.

With counts ``N_v`` over ``K`` categories and a symmetric Dirichlet(α) prior:

* ``"mean"`` — posterior mean ``(N_v + α) / (N + Kα)``: Laplace (α=1) and Lidstone smoothing,
  the estimate scikit-learn uses (McCallum & Nigam 1998);
* ``"map"`` — posterior mode ``(N_v + α − 1) / (N + K(α − 1))``, defined for α ≥ 1; MAP with
  Dir(2) gives the same numbers as Laplace smoothing;
* ``"mle"`` — maximum likelihood ``N_v / N`` (α ignored); an unseen event gets probability 0.

All three are ``(N_v + a) / Σ_v (N_v + a)`` with pseudo-count ``a = α``, ``α − 1`` or ``0``.

The prior's mean need not be uniform: ``smoothing="corpus"`` centres it on the pooled
distribution of all classes tempered by a power ``γ``, pseudo-count ``a_v = αK q_v`` with
``q_v = N_v^γ / Σ_u N_u^γ`` (:func:`corpus_pseudo_count`; ``γ = 0`` is the uniform prior,
``γ = 1`` the pooled distribution itself).

Why ``γ < 1``: take a category seen ``n`` times, all in one class ``s`` (the others have
``N_cv = 0``). Its estimate is ``(n + αK q_v) / (N_s + αK)`` in ``s`` and ``αK q_v / (N_c + αK)``
elsewhere, so its log-odds is ``ln(1 + n / (αK q_v)) + const``. With ``γ = 1``, ``q_v ∝ n``: the
pseudo-count grows with the count and the log-odds is the same for ``n = 1`` as for
``n = 1000`` (one spam's one-off word weighs as much as "claim"). With ``q_v ∝ n^γ`` it is
``ln(1 + c n^{1−γ})``: it grows with the count, by ``(1 − γ) ln n`` once the count dominates,
while a category seen in every class still falls back on how common it is.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import Any

import numpy as np

from .._validation import as_real
from .._values import one_of
from ..errors import ParameterError

ESTIMATES = ("mean", "map", "mle")
SMOOTHINGS = ("uniform", "corpus")
_ALPHA_FLOOR = 1e-10


def check_estimate(estimate: Any) -> str:
    if not one_of(estimate, ESTIMATES):
        raise ParameterError(
            f"estimate={estimate!r} is not one of {ESTIMATES}: 'mean' (posterior mean, "
            "Laplace/Lidstone smoothing), 'map' (posterior mode) or 'mle' (maximum likelihood)"
        )
    return str(estimate)


def check_smoothing(smoothing: Any, estimate: str) -> str:
    if not one_of(smoothing, SMOOTHINGS):
        raise ParameterError(
            f"smoothing={smoothing!r} is not one of {SMOOTHINGS}: 'uniform' (alpha added to "
            "every count, Lidstone) or 'corpus' (a Dirichlet prior whose mean is the pooled "
            "distribution of all classes)"
        )
    if smoothing == "corpus" and estimate != "mean":
        raise ParameterError(
            f"smoothing='corpus' needs estimate='mean' (got estimate={estimate!r}): the mode "
            "of a Dirichlet prior centred on the pooled distribution lies outside the simplex "
            "for every rare category"
        )
    return str(smoothing)


def check_power(power: Any) -> float:
    """``corpus_power`` is a number in [0, 1] (0: the uniform prior, 1: the pooled one)."""
    if (
        isinstance(power, (bool, np.bool_))
        or not isinstance(power, (Real, np.number))
        or not 0.0 <= as_real(power) <= 1.0
    ):
        raise ParameterError(
            f"corpus_power must be a number in [0, 1] (0: the uniform prior, 1: the pooled "
            f"distribution, between: the pooled counts raised to that power); got {power!r}"
        )
    return float(power)


def corpus_pseudo_count(alpha: Any, pooled: np.ndarray, power: float = 1.0) -> np.ndarray:
    """``αK q_v`` with ``q_v = N_v^γ / Σ_u N_u^γ`` (``γ = power``) over the ``K`` categories
    no class has left unseen, ``N_v`` their pooled (all-class) counts: a Dirichlet prior of the
    same total strength ``αK`` as Lidstone's, centred on how common each category is, tempered
    so that a category's pseudo-count grows slower than its count (see the module docstring).
    A category no class has seen gets ``α`` (as with uniform smoothing: it tells the classes
    nothing, and its probability must not be 0); without any data the prior is the uniform
    one."""
    pooled = np.asarray(pooled, dtype=np.float64)
    seen = pooled > 0
    if not seen.any():
        return np.broadcast_to(np.asarray(alpha, dtype=np.float64), pooled.shape).copy()
    tempered = pooled if power == 1.0 else _tempered(pooled, seen, power)
    out = (
        np.asarray(alpha, dtype=np.float64) * (pooled.shape[-1] / float(tempered.sum())) * tempered
    )
    return np.where(seen, out, alpha)


def _tempered(pooled: np.ndarray, seen: np.ndarray, power: float) -> np.ndarray:
    """``N^γ`` where ``N > 0``, else 0 (``0^0`` would count unseen categories as seen at
    ``γ = 0``).

    Counts of words are whole numbers far below the number of categories: then the powers
    of ``0, 1, …, max N`` are computed once each and looked up, the same numbers as
    ``np.power`` of every count (the same function of the same value) without a ``pow``
    per category; a text model's learn of one message calls this for its whole vocabulary
    (a third of that learn's time with the powers computed one by one)."""
    top = float(pooled.max())
    if (
        top < len(pooled) // 4
        and float(pooled.min()) >= 0.0
        and np.array_equal(pooled, np.floor(pooled))
    ):
        table = np.power(np.arange(int(top) + 1, dtype=np.float64), power)
        table[0] = 0.0
        return table[pooled.astype(np.intp)]
    return np.power(pooled, power, where=seen, out=np.zeros_like(pooled))


def check_alpha(alpha: Any, n_features: int, *, force_alpha: bool = True) -> Any:
    """Validate ``alpha`` (a scalar or one value per feature) the way scikit-learn does."""
    if isinstance(alpha, (Real, np.number)) and not isinstance(alpha, (bool, np.bool_)):
        value: Any = as_real(alpha)
        low = value
    else:
        try:
            value = np.asarray(alpha, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParameterError(
                f"alpha must be a number or one number per feature; got {alpha!r}"
            ) from exc
        if value.ndim != 1 or value.shape[0] != n_features:
            raise ParameterError(
                f"alpha has shape {value.shape}; a per-feature alpha needs one value for each of "
                f"the {n_features} features"
            )
        low = float(value.min()) if value.size else 0.0
    if not np.all(np.isfinite(value)):
        raise ParameterError(f"alpha must be finite; got {alpha!r}")
    if low < 0:
        raise ParameterError(f"alpha must be >= 0 (it is a pseudo-count); got {low!r}")
    if low < _ALPHA_FLOOR and not force_alpha:
        warnings.warn(
            f"alpha too small will result in numeric errors, setting alpha = {_ALPHA_FLOOR:.1e}. "
            "Use `force_alpha=True` to keep alpha unchanged.",
            UserWarning,
            stacklevel=3,
        )
        return np.maximum(value, _ALPHA_FLOOR)
    return value


def pseudo_count(alpha: Any, estimate: str) -> Any:
    """The ``a`` added to every count: α (mean), α − 1 (map) or 0 (mle)."""
    if estimate == "mle":
        return 0.0
    if estimate == "map":
        low = float(np.min(alpha))
        if low < 1:
            raise ParameterError(
                f"estimate='map' needs alpha >= 1: the mode of a Dirichlet(alpha) prior lies "
                f"inside the simplex only then; got alpha={low!r}. Use estimate='mean' for "
                "Lidstone smoothing with alpha < 1"
            )
        return np.asarray(alpha) - 1.0 if isinstance(alpha, np.ndarray) else alpha - 1.0
    return alpha


def log_ratio(
    num: np.ndarray, den: np.ndarray, n_categories: Any, *, own: bool = False
) -> np.ndarray:
    """``log(num / den)``; a class with no data at all (``den == 0``) gets the uniform
    distribution over its ``n_categories`` instead of 0/0.

    ``own``: ``num`` is a float64 temporary of the caller's, so the result is written over it
    (the same numbers: for 20 classes × a million n-grams each array not allocated saves the
    page faults of 190 MB)."""
    empty = den == 0
    if np.any(empty):
        if own and num.dtype == np.float64:
            np.copyto(num, 1.0, where=empty)  # (no second array of num's size)
        else:
            num = np.where(empty, 1.0, num)
        den = np.where(empty, n_categories, den)
    with np.errstate(divide="ignore"):
        if not own or num.dtype != np.float64:
            return np.log(num) - np.log(den)
        out = np.log(num, out=num)
        out -= np.log(den)
        return out


#: The pseudo-counts ``alpha="auto"`` chooses among, largest first (a tie goes to the larger):
#: Laplace's 1, Jeffreys' 1/2, and smaller ones down to 1/100, near the unsmoothed frequency
#: (R's e1071 estimate, α → 0).
AUTO_ALPHAS = (1.0, 0.5, 0.25, 0.1, 0.03, 0.01)


def is_auto(alpha: Any) -> bool:
    """Whether ``alpha`` asks for the pseudo-count to be chosen from the data."""
    return isinstance(alpha, str) and alpha == "auto"


def check_auto_estimate(estimate: str) -> None:
    """``alpha="auto"`` scores the posterior mean: the other estimates are refused with it."""
    if estimate != "mean":
        raise ParameterError(
            f"alpha='auto' chooses the pseudo-count of the posterior mean; estimate={estimate!r} "
            "needs a number for alpha (or use estimate='mean')"
        )


def choose_alpha(
    counts: np.ndarray, feature: np.ndarray, n_categories: np.ndarray
) -> tuple[float, np.ndarray]:
    """The pseudo-count of :data:`AUTO_ALPHAS` with the largest leave-one-out log-likelihood of
    the class, and the scores of every candidate.

    ``counts`` (n_classes, n_columns) holds the weighted count of every (feature, category)
    column, ``feature`` (n_columns,) the feature of each, ``n_categories`` (n_features,) the
    ``K`` of each feature's smoothing. The score of α is
    ``Σ_j Σ_i log P₋ᵢ(y_i | x_ij)``: for every feature, the posterior of each row's class given
    that feature's value, under the posterior-mean estimates ``(N_cv + α) / (N_c + Kα)`` and an
    add-one class prior, with the row itself left out of its class's counts — the held-out
    likelihood of what the classifier is judged on (Smyth 2000; leave-one-out
    cross-validation, Hastie, Tibshirani & Friedman 2009, §7.10). The estimates are functions
    of the counts, so leaving a row out is subtracting it from its cell: the score is exact,
    with no refit. A row of weight ``w ≥ 1`` counts as ``w`` rows; a cell
    of weight below 1 (soft labels) leaves out that weight. The counts add, so ``fit``,
    ``partial_fit`` in any batches and merged models choose the same α."""
    counts = np.asarray(counts, dtype=np.float64)
    n_classes, n_columns = counts.shape
    if n_columns == 0:
        return AUTO_ALPHAS[1], np.zeros(len(AUTO_ALPHAS))
    d = len(n_categories)
    totals = np.zeros((n_classes, d))
    np.add.at(totals.T, feature, counts.T)
    N = totals[:, feature]  # (C, V): the observed rows of the column's feature, per class
    K = np.asarray(n_categories, dtype=np.float64)[feature]
    left = np.minimum(counts, 1.0)  # the held-out row's weight in its own cell
    has = counts > 0
    scores = np.empty(len(AUTO_ALPHAS))
    for g, alpha in enumerate(AUTO_ALPHAS):
        full = np.log(N + 1.0) + np.log(counts + alpha) - np.log(N + K * alpha)
        own = np.log(N - left + 1.0) + np.log(counts - left + alpha) - np.log(N - left + K * alpha)
        top = np.maximum(full.max(axis=0), own.max(axis=0))
        e = np.exp(full - top)
        # Σ over the other classes, as prefix + suffix sums (no cancellation).
        before = np.vstack([np.zeros((1, n_columns)), np.cumsum(e, axis=0)[:-1]])
        after = np.vstack([np.cumsum(e[::-1], axis=0)[::-1][1:], np.zeros((1, n_columns))])
        log_total = top + np.log(before + after + np.exp(own - top))
        scores[g] = float(np.sum(np.where(has, counts * (own - log_total), 0.0)))
    return AUTO_ALPHAS[best_of(scores)], scores


def best_of(scores: np.ndarray) -> int:
    """The index of the largest score, the first of those within rounding of it: candidates
    that tie (a feature of one category scores the same under every α, up to the last bits
    of the logarithms) go to the first, the largest pseudo-count."""
    top = float(np.max(scores))
    return int(np.flatnonzero(scores >= top - 1e-9 * max(1.0, abs(top)))[0])
