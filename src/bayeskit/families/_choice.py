"""The choice of each column's family from the held-out contributions of the candidates
(:class:`~bayeskit.families.Auto`'s last step; see :func:`choose`).

Every column's score, and every column's trial of another candidate, is computed for many
columns at once on stacked (columns, rows, classes) arrays, by the same operations as one
column at a time: each reduction runs over the same contiguous axis in the same order, so the
numbers, and so the choice, are those of the column-by-column rule, bit for bit (checked
against it in tests/families/test_auto_wide.py).
"""

from __future__ import annotations

import numpy as np

#: passes over the columns of the joint choice (each pass that changes nothing ends it).
_MAX_PASSES = 5
#: (column, row, class) values of one stacked step (16 MB a temporary): a wide table's
#: columns are scored a few hundred at a time, not one by one.
_STACKED = 1 << 21
#: columns tried together first in a pass; doubled after each stretch without a change and
#: back to this after a change (only the columns before a change are kept: the ones after it
#: are tried again against the new total).
_FIRST_STRETCH = 8


def held_out_prior(weight: np.ndarray, fold: np.ndarray, k: int) -> np.ndarray:
    """Each row's log class prior from the other folds (add-one smoothed), (n_rows, K)."""
    K = weight.shape[0]
    out = np.zeros((weight.shape[1], K))
    for f in range(k):
        test = fold == f
        count = weight[:, ~test].sum(axis=1)
        out[test] = np.log(count + 1.0) - np.log(count.sum() + K)
    return out


def row_log_likelihoods(joint: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``Σ_c r_ic log P(c | x_i)`` of each row from joint log-likelihoods (..., n, K) and
    weights (K, n), shape (..., n)."""
    top = joint.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    posterior = joint - (top + np.log(np.exp(joint - top).sum(axis=-1, keepdims=True)))
    r = weight.T
    return np.sum(np.where(r > 0, r * posterior, 0.0), axis=-1)


def log_likelihood(joint: np.ndarray, weight: np.ndarray) -> float:
    """``Σ_i Σ_c r_ic log P(c | x_i)`` from joint log-likelihoods (n, K) and weights (K, n)."""
    return float(np.sum(row_log_likelihoods(joint, weight)))


def standard_error(gain: np.ndarray, size: np.ndarray) -> float:
    """The standard error of ``gain.sum()``, a sum over rows of a paired difference: the rows
    are a sample of the data, each counted ``size`` times (a row of weight 2 is two copies of
    it, as everywhere in the model)."""
    return float(standard_errors(gain[None, :], size)[0])


def standard_errors(gain: np.ndarray, size: np.ndarray) -> np.ndarray:
    """:func:`standard_error` of each row of ``gain`` (m, n)."""
    total = float(size.sum())
    if total <= 0.0:
        return np.full(gain.shape[0], np.inf)
    per_unit = np.divide(gain, size, out=np.zeros_like(gain), where=size > 0)
    mean = np.sum(gain, axis=-1) / total
    variance = np.sum(size * (per_unit - mean[:, None]) ** 2, axis=-1) / total
    return np.sqrt(total * variance)


def _column_scores(prior: np.ndarray, part: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``log_likelihood(prior + part[j], weight)`` of every column ``j`` of ``part``."""
    d, n, K = part.shape
    step = max(1, _STACKED // max(n * K, 1))
    out = np.empty(d)
    for lo in range(0, d, step):  # stretches of columns, each scored at once
        out[lo : lo + step] = row_log_likelihoods(prior + part[lo : lo + step], weight).sum(-1)
    return out


def choose(
    prior: np.ndarray, parts: list[np.ndarray | None], weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(choice, scores): the candidate of each column and each candidate's score alone.

    ``parts[i]`` holds candidate ``i``'s held-out contributions (n_columns, n_rows, K), or
    None where it is no candidate (−inf there, columns it cannot take filled with NaN). The
    score of a choice is the held-out log-likelihood of the class given every column.

    1. Every column starts with the same family: the candidate that can take every column
       and scores best with all of them (ties keep the earlier candidate) — the one-family
       model R's e1071 and Weka users choose by hand, chosen here by cross-validation.
    2. Then, column by column, the column takes another candidate when the change raises
       the held-out log-likelihood by more than one standard error of its paired row-by-row
       difference (the one-standard-error rule: Breiman, Friedman, Olshen & Stone 1984,
       §3.4.3; Hastie, Tibshirani & Friedman 2009, §7.10), the largest such change first,
       until a pass over the columns changes nothing.

    A free search over the ``n_candidates ** n_columns`` combinations, or each column's best
    family alone, fits the noise of the held-out folds on small tables (50 rows, 8 columns:
    held-out log-loss 0.39-0.53 inside the training data, 1.6 on new rows) and gives columns
    that repeat each other's information each its sharpest family; a change that must beat
    its own standard error is one the data support."""
    d = next(p.shape[0] for p in parts if p is not None)
    scores = np.full((len(parts), d), -np.inf)
    start = np.full(len(parts), -np.inf)
    sums: dict[int, np.ndarray] = {}
    for i, part in enumerate(parts):
        if part is None:
            continue
        taken = ~np.isnan(part[:, 0, 0])
        scores[i, taken] = _column_scores(prior, part[taken], weight)
        if taken.all():
            sums[i] = part.sum(axis=0)  # column after column, as a running total adds them
            start[i] = log_likelihood(prior + sums[i], weight)
    first = int(np.argmax(start))
    choice = np.full(d, first, dtype=np.int64)
    total = prior + sums[first]
    rows = row_log_likelihoods(total, weight)
    size = weight.sum(axis=0)
    tried = np.isfinite(scores)
    for _ in range(_MAX_PASSES):
        changed = False
        j, stretch = 0, _FIRST_STRETCH
        while j < d:
            end = min(d, j + stretch, j + max(1, _STACKED // max(total.size, 1)))
            found = _first_change(parts, choice, tried, total, rows, size, weight, j, end)
            if found is None:
                j, stretch = end, 2 * stretch
                continue
            column, i, total, rows = found
            choice[column], changed = i, True
            j, stretch = column + 1, _FIRST_STRETCH
        if not changed:
            break
    return choice, scores


def _first_change(
    parts: list[np.ndarray | None],
    choice: np.ndarray,
    tried: np.ndarray,
    total: np.ndarray,
    rows: np.ndarray,
    size: np.ndarray,
    weight: np.ndarray,
    lo: int,
    hi: int,
) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """The first column of ``lo:hi`` that takes another candidate against ``total`` (with the
    candidate, the new total and its rows' log-likelihoods), or None: :func:`choose`'s step
    for each of these columns, tried at once."""
    columns = np.arange(lo, hi)
    current = np.empty((hi - lo, *total.shape))
    for i, part in enumerate(parts):
        mine = choice[lo:hi] == i
        if mine.any():
            assert part is not None
            current[mine] = part[columns[mine]]
    base = total - current  # the total without each column's present contribution
    value = np.full((len(parts), hi - lo), -np.inf)
    good = np.zeros((len(parts), hi - lo), dtype=bool)
    trials: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for i, part in enumerate(parts):
        others = (choice[lo:hi] != i) & tried[i, lo:hi]
        if part is None or not others.any():
            continue
        trial = base + part[lo:hi]
        trial_rows = row_log_likelihoods(trial, weight)
        gain = trial_rows - rows
        value[i] = np.where(others, gain.sum(axis=-1), -np.inf)
        good[i] = others & (value[i] > standard_errors(gain, size))
        trials[i] = (trial, trial_rows)
    hit = np.flatnonzero(good.any(axis=0))
    if not len(hit):
        return None
    at = int(hit[0])
    # the largest gain among the candidates that pass; a tie keeps the earlier candidate
    best = int(np.argmax(np.where(good[:, at], value[:, at], -np.inf)))
    trial, trial_rows = trials[best]
    return lo + at, best, trial[at], trial_rows[at]
