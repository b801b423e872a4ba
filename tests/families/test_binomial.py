"""The binomial family: Beta-smoothed p, log-likelihood against scipy, k = 1 as Bernoulli,
missing values, sparse input, the linear form, statistics that add, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom

from bayeskit._labels import class_weights
from bayeskit.errors import DataError, ParameterError
from bayeskit.families import Bernoulli
from bayeskit.families._base import family_from_config
from bayeskit.families.binomial import Binomial
from bayeskit.stats import Counts

from .test_poisson import counts_close

K = np.array([5.0, 1.0, 12.0, 3.0])
LABELS = np.array(["a", "b", "c"])


def block(seed: int, n: int = 40, holes: float = 0.0, k: np.ndarray = K):
    rng = np.random.default_rng(seed)
    y = LABELS[rng.integers(0, 3, size=n)]
    y[:3] = LABELS
    X = rng.binomial(k.astype(np.int64), rng.uniform(0.05, 0.95, size=len(k)), size=(n, len(k)))
    X = X.astype(np.float64)
    X[rng.random(X.shape) < holes] = np.nan
    _, R = class_weights(y, rng.integers(1, 4, size=n).astype(float), n)
    return X, R


def hand_p(X: np.ndarray, R, k: np.ndarray, a: float) -> np.ndarray:
    Rd = R.toarray()
    seen = ~np.isnan(X)
    S = Rd.T @ np.where(seen, X, 0.0)
    trials = (Rd.T @ seen.astype(float)) * k
    return (S + a) / (trials + 2 * a)


@given(seed=st.integers(0, 10_000), alpha=st.floats(0.01, 3.0))
def test_p_is_the_beta_posterior_mean(seed, alpha):
    X, R = block(seed, holes=0.2)
    family = Binomial(K.tolist(), alpha=alpha)
    params = family.finalize(family.summarize(X, R))
    expected = hand_p(X, R, K, alpha)
    np.testing.assert_allclose(np.exp(params.log_prob), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(params.log_neg_prob), 1 - expected, rtol=1e-10)


def test_map_mle_and_an_empty_class():
    X, R = block(1)
    stats = Binomial(K).summarize(X, R)
    mode = Binomial(K, alpha=3.0, estimate="map").finalize(stats)
    np.testing.assert_allclose(np.exp(mode.log_prob), hand_p(X, R, K, 2.0), rtol=1e-12)
    mle = Binomial(K, alpha=9.0, estimate="mle").finalize(stats)
    np.testing.assert_allclose(
        np.exp(mle.log_prob), stats.total / stats.observed_weight() / K, rtol=1e-12
    )
    R3 = sp.csr_matrix(np.hstack([R.toarray(), np.zeros((R.shape[0], 1))]))
    empty = Binomial(K).finalize(Binomial(K).summarize(X, R3))
    np.testing.assert_allclose(np.exp(empty.log_prob[3]), 0.5)  # the prior's mean


@given(seed=st.integers(0, 10_000), alpha=st.floats(0.05, 2.0))
def test_log_prob_matches_scipy(seed, alpha):
    X, R = block(seed)
    family = Binomial(K, alpha=alpha)
    params = family.finalize(family.summarize(X, R))
    p = hand_p(X, R, K, alpha)
    rows, _ = block(seed + 1, n=6)
    expected = binom.logpmf(rows[:, None, :], K[None, None, :], p[None, :, :]).sum(axis=2)
    np.testing.assert_allclose(family.log_prob(params, rows), expected, rtol=1e-10)


def test_unsmoothed_certainties_match_scipy():
    X = np.array([[3.0, 0.0], [3.0, 1.0], [1.0, 2.0]])
    R = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    family = Binomial(3, estimate="mle")
    params = family.finalize(family.summarize(X, R))  # class 0: p = 1 for feature 0
    assert params.degenerate
    rows = np.array([[3.0, 0.0], [2.0, 1.0], [0.0, 3.0], [np.nan, 2.0]])
    p = np.array([[1.0, 1 / 6], [1 / 3, 2 / 3]])
    seen = ~np.isnan(rows)
    expected = np.where(
        seen[:, None, :], binom.logpmf(np.nan_to_num(rows)[:, None, :], 3, p[None]), 0.0
    ).sum(axis=2)
    np.testing.assert_allclose(family.log_prob(params, rows), expected, rtol=1e-12)
    with pytest.raises(ParameterError, match="no linear form"):
        family.linear_form(params)


def test_one_trial_is_bernoulli():
    rng = np.random.default_rng(2)
    X = (rng.random((50, 6)) < 0.3).astype(np.float64)
    _, R = class_weights(LABELS[rng.integers(0, 3, 50)], None, 50)
    binomial, bernoulli = Binomial(1, alpha=0.7), Bernoulli(0.7, binarize=None)
    pb = binomial.finalize(binomial.summarize(X, R))
    pr = bernoulli.finalize(bernoulli.summarize(X, R))
    np.testing.assert_allclose(pb.log_prob, pr.feature_log_prob, rtol=1e-12)
    np.testing.assert_allclose(binomial.log_prob(pb, X), bernoulli.log_prob(pr, X), rtol=1e-12)
    assert isinstance(bernoulli.summarize(X, R), Counts)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_missing_value_drops_its_term(sparse):
    X, R = block(3, n=60, holes=0.15)
    family = Binomial(K)
    data = sp.csr_matrix(X) if sparse else X
    params = family.finalize(family.summarize(data, R))
    for j in range(len(K)):
        seen = ~np.isnan(X[:, j])
        one = Binomial(K[j])
        alone = one.finalize(one.summarize(X[seen][:, [j]], R[seen]))
        np.testing.assert_allclose(params.log_prob[:, j], alone.log_prob[:, 0], rtol=1e-12)
    row = np.array([[2.0, np.nan, 7.0, 0.0]])
    others = [0, 2, 3]
    restricted = Binomial(K[others])
    sub = restricted.finalize(restricted.summarize(X[:, others], R))
    probe = sp.csr_matrix(row) if sparse else row
    np.testing.assert_allclose(
        family.log_prob(params, probe), restricted.log_prob(sub, row[:, others]), rtol=1e-12
    )
    np.testing.assert_array_equal(family.log_prob(params, np.full((1, 4), np.nan)), 0.0)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("holes", [0.0, 0.2])
def test_linear_form_is_exact(sparse, holes):
    X, R = block(5, n=50, holes=holes)
    family = Binomial(K, alpha=0.4)
    params = family.finalize(family.summarize(X, R))
    data = sp.csr_matrix(X) if sparse else X
    W, b = family.linear_form(params)
    design = family.design(params, data)
    assert W.shape[1] == design.shape[1] == len(family.column_names(params, list("abcd")))
    np.testing.assert_allclose(
        np.asarray(design @ W.T) + b, family.log_prob(params, data), rtol=1e-12, atol=1e-10
    )


@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 38), cut_b=st.integers(1, 38))
def test_statistics_add_like_data(seed, cut_a, cut_b):
    X, R = block(seed, holes=0.1)
    lo, hi = sorted((cut_a, cut_b))
    family = Binomial(K)
    a, b, c = (family.summarize(X[s], R[s]) for s in (slice(0, lo), slice(lo, hi), slice(hi, None)))
    whole = family.summarize(X, R)
    counts_close(a + b + c, whole)
    counts_close(a + b, b + a)
    counts_close((a + b) + c, a + (b + c))
    counts_close((whole + (-(b + c))).cleaned(np.arange(3), 1e-9), family.summarize(X[:lo], R[:lo]))
    counts_close(family.summarize(sp.csr_matrix(X), R), whole)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (6.0, r"is above n_trials = 5; .* from 0 to 5 in this column"),
        (2.5, r"is not a whole number; .* from 0 to 5"),
        (-1.0, r"^Negative values in data passed to a binomial model: X\[1, 0\] = -1.0"),
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_counts_out_of_range_are_named(value, why, sparse):
    X = np.array([[1.0, 0.0, 12.0, 3.0], [value, 1.0, 0.0, np.nan]])
    data = sp.csr_matrix(X) if sparse else X
    with pytest.raises(DataError, match=r"X\[1, 0\] = " + f"{value!r}" + r" \(column 0 \('n'\)\)"):
        Binomial(K).validate(data, ["n", "b", "c", "d"])
    with pytest.raises(DataError, match=why):
        Binomial(K).validate(data, ["n", "b", "c", "d"])


def test_infinity_is_refused():
    X = np.array([[1.0, np.inf, 0.0, 0.0]])
    with pytest.raises(DataError, match=r"inf at row 0, column 1; .* finite"):
        Binomial(K).validate(X, [])


@pytest.mark.parametrize(
    ("n_trials", "message"),
    [
        (None, "needs n_trials"),
        (0, r"whole numbers from 1 to 2\*\*53 .* got 0.0"),
        (2.5, r"whole numbers from 1 to 2\*\*53 .* got 2.5"),
        (1e308, r"whole numbers from 1 to 2\*\*53 .* got 1e\+308"),
        ([4, 4, 4, 2.0**53 + 2], r"from 1 to 2\*\*53 .* got 9007199254740994.0"),
        ([5, 1, 12], "n_trials has 3 values; .* each of the 4 features"),
        ([[5, 1, 12, 3]], "one per feature"),
        (True, "one per feature"),
        ("five", "one per feature"),
    ],
)
def test_bad_n_trials(n_trials, message):
    X, R = block(1)
    with pytest.raises(ParameterError, match=message):
        Binomial(n_trials).validate(X, [])
    with pytest.raises(ParameterError, match=message):
        Binomial(n_trials).finalize(Binomial(K).summarize(X, R))


def test_n_trials_cannot_shrink_below_learned_counts():
    X, R = block(1)
    stats = Binomial(K).summarize(X, R)
    with pytest.raises(ParameterError, match=r"n_trials = 1 for feature 0 is below the mean"):
        Binomial(1).finalize(stats)
    wider = Binomial(K * 2).finalize(stats)  # larger k is fine: p halves
    np.testing.assert_allclose(np.exp(wider.log_prob), hand_p(X, R, K * 2, 1.0), rtol=1e-12)


def test_config_rebuilds_the_family():
    family = Binomial(np.array([3, 4]), alpha=np.array([1.0, 2.0]), estimate="map")
    again = family_from_config("binomial", family.config())
    assert (
        again.config()
        == family.config()
        == {
            "n_trials": [3, 4],
            "alpha": [1.0, 2.0],
            "estimate": "map",
        }
    )
