"""The held-out choice of each column's family, scored in blocks of columns: the same choice
and scores as column by column, at a cost linear in the number of columns (60 rows × 5,000
columns took 59 s, the square of the width, where blocks take 25 s)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.families import auto
from bayeskit.families.gaussian import Gaussian


def _table(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, d) + y[:, None] * rng.normal(0, 1, d)
    X[:, ::3] = rng.poisson(2 + y[:, None], size=(n, X[:, ::3].shape[1]))  # count columns
    X[:, 1::4] = np.exp(X[:, 1::4] / 3)  # skewed ones
    X[rng.random((n, d)) < 0.05] = np.nan
    return X, y


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), width=st.sampled_from([1, 2, 5]))
def test_blocks_of_columns_choose_as_one_block_does(seed, width):
    X, y = _table(seed, 45, 11)
    options = {"auto": {"folds": 3}}
    whole = bk.MixedNB(options=options).fit(X, y)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(auto, "PROBE_WIDTH", width)
        blocked = bk.MixedNB(options=options).fit(X, y)
    assert blocked.feature_families_ == whole.feature_families_
    np.testing.assert_allclose(
        blocked.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-12, atol=1e-12
    )


def test_the_choice_scores_cells_in_proportion_to_the_columns(monkeypatch):
    """Each family scores rows × columns × at most PROBE_WIDTH cells in all, not rows ×
    columns² (column by column over all the columns)."""
    n, d, folds = 40, 400, 3
    X, y = _table(0, n, d)
    cells = []
    score = Gaussian.log_prob

    def counted(self, params, Z):
        cells.append(Z.size)
        return score(self, params, Z)

    monkeypatch.setattr(Gaussian, "log_prob", counted)
    model = bk.MixedNB(options={"auto": {"folds": folds, "candidates": ["gaussian", "kernel"]}})
    model.fit(X, y)
    # (the last call: predict's of the fitted model, n × d cells)
    assert 0 < sum(cells) <= n * d * auto.PROBE_WIDTH + n * d, sum(cells)
