"""The rule of MixedNB's held-out choice of each numeric column's family: one family for every
column first, then a column changes family only when the gain beats one standard error."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.families.auto import choose, log_likelihood, row_log_likelihoods, standard_error


def _gaussian_table(seed: int, n: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Columns normal within each class: one that shifts with the class, one that spreads."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    spread = rng.normal(0.0, np.where(y == 0, 1.0, 4.0))
    shift = rng.normal(1.5 * y, 1.0)
    return pd.DataFrame({"spread": spread, "shift": shift}), y


def test_normal_columns_get_the_gaussian():
    chosen = [bk.MixedNB().fit(*_gaussian_table(seed, 400)).feature_families_ for seed in range(8)]
    gaussian = sum(f == {"spread": "gaussian", "shift": "gaussian"} for f in chosen)
    assert gaussian >= 7, chosen  # the held-out estimate is noisy; the rule is not


def test_a_bimodal_column_gets_a_family_with_two_modes():
    """Class 0 of ``two_modes`` has modes at -3 and 3, class 1 one mode between them: no
    Gaussian fits it, a kernel density or a discretization does."""
    kernel_or_gaussian = bk.MixedNB(options={"auto": {"candidates": ["gaussian", "kernel"]}})
    for seed in range(4):
        X, y = _gaussian_table(seed, 400)
        rng = np.random.default_rng(seed + 100)
        modes = np.where(rng.random(400) < 0.5, -3.0, 3.0) * (y == 0)
        X["two_modes"] = modes + rng.normal(0.0, 0.5, 400)
        assert bk.MixedNB().fit(X, y).feature_families_["two_modes"] in {"kernel", "discretized"}
        assert kernel_or_gaussian.fit(X, y).feature_families_["two_modes"] == "kernel"


# ---------------------------------------------------------------------- the rule itself
def _two_candidates(n_copies: int) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Two columns, two candidates. Candidate 0 is uninformative; candidate 1 makes column 0
    right on 9 rows of 10 and column 1 right on 11 rows of 20 (a small gain that could be
    chance). Every row is repeated ``n_copies`` times."""
    y = np.tile(np.arange(2), 10)
    right0 = np.arange(20) % 10 != 0
    right1 = np.arange(20) < 11
    said0, said1 = np.where(right0, y, 1 - y), np.where(right1, y, 1 - y)
    sharp = np.log(np.stack([np.where(np.eye(2)[s] > 0, 0.7, 0.3) for s in (said0, said1)]))
    reps = np.repeat(np.arange(20), n_copies)
    weight = np.eye(2)[y[reps]].T
    prior = np.full((len(reps), 2), np.log(0.5))
    return prior, [np.zeros((2, len(reps), 2)), sharp[:, reps]], weight


def test_a_change_must_beat_its_standard_error():
    """Both columns start with the sharp candidate (together it beats the uninformative one).
    Dropping column 1 (right on 11 rows of 20) raises the held-out log-likelihood a little:
    on 20 rows the gain is below one standard error and the column keeps its family (a free
    search would have taken the gain); on the same rows 40 times over the same average gain is
    significant and the column takes the uninformative family."""
    for copies, expected in ((1, [1, 1]), (40, [1, 0])):
        prior, parts, weight = _two_candidates(copies)
        choice, scores = choose(prior, parts, weight)
        assert scores[1, 0] > scores[0, 0]  # alone, column 0 is better sharp,
        assert scores[0, 1] > scores[1, 1]  # column 1 better without its noise
        start = [log_likelihood(prior + p.sum(axis=0), weight) for p in parts]
        assert start[1] > start[0]
        assert choice.tolist() == expected, copies
        both = row_log_likelihoods(prior + parts[1].sum(axis=0), weight)
        gain = row_log_likelihoods(prior + parts[1][0], weight) - both
        assert gain.sum() > 0
        significant = gain.sum() > standard_error(gain, weight.sum(axis=0))
        assert significant == (copies == 40)


@settings(max_examples=30, deadline=None)
@given(
    gains=st.lists(st.floats(-3.0, 3.0), min_size=2, max_size=12),
    counts=st.lists(st.integers(1, 4), min_size=12, max_size=12),
)
def test_a_row_of_weight_w_is_w_copies_of_it(gains, counts):
    gain = np.asarray(gains)
    size = np.asarray(counts[: len(gains)], dtype=np.float64)
    repeated = np.repeat(gain, size.astype(int))
    np.testing.assert_allclose(
        standard_error(gain * size, size),
        standard_error(repeated, np.ones_like(repeated)),
        rtol=1e-9,
        atol=1e-12,
    )


# ---------------------------------------------------------------------- real tables
FAMILIES = ("gaussian", "kernel", "discretized")


def _cv(model: bk.MixedNB, X: pd.DataFrame, y: np.ndarray) -> tuple[float, float]:
    proba = np.zeros((len(y), len(np.unique(y))))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        proba[test] = clone(model).fit(X.iloc[train], y[train]).predict_proba(X.iloc[test])
    return float(np.mean(proba.argmax(axis=1) == y)), float(log_loss(y, proba))


def test_real_tables_never_much_worse_than_the_best_single_family():
    """Fisher's iris and the Wisconsin breast cancer table (scikit-learn's copies): the choice,
    made from each fold's training rows, is within 0.02 in log-loss of the best of the three
    one-family settings and at least as accurate as the Gaussian one (R's e1071 model)."""
    for load in (load_iris, load_breast_cancer):
        data = load(as_frame=True)
        X, y = data.data, data.target.to_numpy()
        auto = _cv(bk.MixedNB(), X, y)
        single = {
            f: _cv(bk.MixedNB(numeric=f), X, y) for f in ("gaussian", "kernel", "discretized")
        }
        assert auto[1] <= min(s[1] for s in single.values()) + 0.02, (auto, single)
        assert auto[0] >= single["gaussian"][0], (auto, single)
