"""The held-out choice on wide tables: each family's held-out terms taken column by column
without probes (the kernel's grids for many columns at once, its log density formed only
beside the held-out values; the Poisson terms directly) and the choice tried for many columns
at once give the very numbers, bit for bit, of the plain way — a probe per column scored by
the family's own ``log_prob`` and the column-by-column rule — so the same families."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.families import _choice, auto
from bayeskit.families._choice import _MAX_PASSES, log_likelihood, row_log_likelihoods
from bayeskit.families.kernel import Kernel
from bayeskit.families.poisson import Poisson

from .test_auto_blocks import _table as _mixed_table


def _table(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = _mixed_table(seed, n, d)  # count, skewed and normal columns, 5% missing
    X[:, 2] *= 1e-210  # values so small the kernel scales them (powers of two)
    X[y == 1, 5 % d] = np.nan  # a class without a value of a column
    return X, y


def _plain_contributions(family, X, weight, fold, k):
    """Each fold's fit scoring a probe per column: a held-out row with that column's value
    alone, by the family's log_prob (what the choice's terms mean)."""
    n, d = X.shape
    out = np.zeros((d, n, weight.shape[0]))
    for f in range(k):
        test = np.flatnonzero(fold == f)
        train = fold != f
        params = family.finalize(family.summarize(X[train], weight[:, train].T))
        for j in range(d):
            probe = np.full((len(test), d), np.nan)
            probe[:, j] = X[test, j]
            out[j, test] = family.log_prob(params, probe)
    return np.clip(out, -auto._IMPOSSIBLE, auto._IMPOSSIBLE)


def _plain_choose(prior, parts, weight):
    """The rule of :func:`auto.choose`, one column and one candidate at a time."""
    d = next(p.shape[0] for p in parts if p is not None)
    scores = np.full((len(parts), d), -np.inf)
    for i, part in enumerate(parts):
        for j in range(d):
            if part is not None and not np.isnan(part[j, 0, 0]):
                scores[i, j] = log_likelihood(prior + part[j], weight)
    start = np.full(len(parts), -np.inf)
    for i, part in enumerate(parts):
        if part is not None and not np.isnan(part[:, 0, 0]).any():
            start[i] = log_likelihood(prior + part.sum(axis=0), weight)
    choice = np.full(d, int(np.argmax(start)))
    total = prior + sum(parts[choice[j]][j] for j in range(d))
    rows = row_log_likelihoods(total, weight)
    size = weight.sum(axis=0)
    for _ in range(_MAX_PASSES):
        changed = False
        for j in range(d):
            best = None
            for i, part in enumerate(parts):
                if i == choice[j] or not np.isfinite(scores[i, j]):
                    continue
                trial = total - parts[choice[j]][j] + part[j]
                trial_rows = row_log_likelihoods(trial, weight)
                gain = trial_rows - rows
                value = float(np.sum(gain))
                per_unit = np.divide(gain, size, out=np.zeros_like(gain), where=size > 0)
                mean = value / float(size.sum())
                se = np.sqrt(float(np.sum(size * (per_unit - mean) ** 2)))
                if value > se and (best is None or value > best[0]):
                    best = (value, i, trial, trial_rows)
            if best is not None:
                choice[j], total, rows, changed = best[1], best[2], best[3], True
        if not changed:
            break
    return choice, scores


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), kernel=st.sampled_from(["gaussian", "epanechnikov"]))
def test_the_kernel_held_out_terms_are_its_probes_scores(seed, kernel):
    X, y = _table(seed, 60, 9)
    weight = np.eye(3)[y].T
    fold = auto.fold_of(X, weight, 4)
    family = Kernel(kernel)
    got = auto._contributions(family, "kernel", X, weight, fold, 4)
    np.testing.assert_array_equal(got, _plain_contributions(family, X, weight, fold, 4))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.sampled_from([1.0, 0.0]))
def test_the_poisson_held_out_terms_are_its_probes_scores(seed, alpha):
    X, y = _table(seed, 60, 9)
    X = np.abs(np.round(X[:, ::3]))  # counts (a rate of 0 with alpha=0: log rate −inf)
    weight = np.eye(3)[y].T
    fold = auto.fold_of(X, weight, 4)
    family = Poisson(alpha=alpha, estimate="mle" if alpha == 0 else "mean")
    got = auto._contributions(family, "poisson", X, weight, fold, 4)
    plain = _plain_contributions(family, X, weight, fold, 4)
    np.testing.assert_array_equal(got, plain)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), d=st.sampled_from([1, 7, 40]))
def test_the_stacked_choice_is_the_column_by_column_rule(seed, d):
    rng = np.random.default_rng(seed)
    n, K = 30, 3
    y = rng.integers(0, K, n)
    weight = np.eye(K)[y].T
    prior = np.log(np.bincount(y, minlength=K) + 1.0)[None, :] - np.log(n + K)
    # four candidates: near ties (changes that just pass or miss their standard error)
    base = rng.normal(size=(d, n, K))
    parts = [base + rng.normal(0, s, size=(d, n, K)) for s in (0.0, 0.3, 1.0)]
    counts = base + 0.5 * (np.arange(K) == y[:, None])
    counts[rng.random(d) < 0.5] = np.nan  # a candidate for some columns only
    parts.append(counts)
    parts.insert(1, None)
    # short stretches, so a pass restarts after each change many times
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_choice, "_STACKED", 4 * n * K)
        got = auto.choose(prior, parts, weight)
    want = _plain_choose(prior, parts, weight)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_a_wide_table_chooses_as_the_plain_way():
    """All four candidates on 40 columns (counts, skewed, tiny, with missing values):
    the same scores and choice as every family's probes and the column-by-column rule."""
    X, y = _table(3, 80, 40)
    weight = np.eye(3)[y].T
    family = auto.Auto(folds=4)
    families = {name: family._family(name) for name in auto.CANDIDATES}
    counts = auto._count_columns(X)
    fold = auto.fold_of(X, weight, 4)
    got = auto._cross_validated(families, auto.CANDIDATES, X, weight, counts, 4)
    parts = []
    for name in auto.CANDIDATES:
        part = np.full((X.shape[1], *weight.T.shape), np.nan)
        columns = np.flatnonzero(counts) if name == "poisson" else np.arange(X.shape[1])
        if name in ("kernel", "poisson"):  # the two that no longer score probes
            part[columns] = _plain_contributions(families[name], X[:, columns], weight, fold, 4)
        else:
            part[columns] = auto._contributions(
                families[name], name, X[:, columns], weight, fold, 4
            )
        parts.append(part)
    want = _plain_choose(auto.held_out_prior(weight, fold, 4), parts, weight)
    assert len(set(got[0].tolist())) > 1  # more than one family chosen
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
