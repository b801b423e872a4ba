"""The Poisson family: rates, log-likelihood against scipy, the length term, missing values,
sparse input, the linear form, statistics that add, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import gammaln
from scipy.stats import multinomial, poisson

from bayeskit._labels import class_weights
from bayeskit.errors import DataError, ParameterError
from bayeskit.families._base import FAMILIES, family_from_config, safe_dot
from bayeskit.families.poisson import Poisson
from bayeskit.stats import Counts

LABELS = np.array(["a", "b", "c"])


def block(seed: int, n: int = 40, d: int = 4, holes: float = 0.0, k: int = 3):
    """Counts (some NaN) and the one-hot class weights the template builds."""
    rng = np.random.default_rng(seed)
    y = LABELS[rng.integers(0, k, size=n)]
    y[:k] = LABELS[:k]  # every class present
    X = rng.poisson(rng.uniform(0.2, 4.0, size=d), size=(n, d)).astype(np.float64)
    X[rng.random(X.shape) < holes] = np.nan
    _, R = class_weights(y, rng.integers(1, 4, size=n).astype(float), n)
    return X, R


def counts_close(a: Counts, b: Counts) -> None:
    np.testing.assert_allclose(a.weight, b.weight, rtol=1e-12)
    np.testing.assert_allclose(a.total, b.total, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(a.observed_weight(), b.observed_weight(), rtol=1e-12)


def hand_rates(X: np.ndarray, R, alpha: float, beta: float) -> np.ndarray:
    """λ_cj = (Σ_i r_ic x_ij + α) / (Σ_i r_ic [x_ij observed] + β), the slow way."""
    Rd = R.toarray()
    seen = ~np.isnan(X)
    S = Rd.T @ np.where(seen, X, 0.0)
    w = Rd.T @ seen.astype(float)
    return (S + alpha) / (w + beta)


@given(seed=st.integers(0, 10_000), alpha=st.floats(0.01, 3.0), beta=st.floats(0.0, 2.0))
def test_rates_are_the_gamma_posterior_mean(seed, alpha, beta):
    X, R = block(seed, holes=0.2)
    family = Poisson(alpha, beta=beta)
    params = family.finalize(family.summarize(X, R))
    expected = hand_rates(X, R, alpha, beta)
    np.testing.assert_allclose(params.rate, expected, rtol=1e-12)
    np.testing.assert_allclose(params.log_rate, np.log(expected), rtol=1e-12, atol=1e-14)


def test_map_and_mle_estimates():
    X, R = block(1)
    stats = Poisson().summarize(X, R)
    mode = Poisson(2.5, beta=1.0, estimate="map").finalize(stats).rate
    np.testing.assert_allclose(mode, hand_rates(X, R, 1.5, 1.0), rtol=1e-12)
    mle = Poisson(7.0, beta=3.0, estimate="mle").finalize(stats).rate  # prior ignored
    np.testing.assert_allclose(mle, hand_rates(X, R, 0.0, 0.0), rtol=1e-12)
    # Seed 002: the MLE of the rate is the class mean of the feature.
    np.testing.assert_allclose(mle, stats.total / stats.observed_weight(), rtol=1e-12)


def test_a_zero_count_class_has_a_finite_log_rate_by_default():
    X = np.array([[0.0, 3.0], [0.0, 1.0], [4.0, 0.0]])
    R = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    stats = Poisson().summarize(X, R)
    smoothed = Poisson().finalize(stats)
    assert np.isfinite(smoothed.log_rate).all()
    np.testing.assert_allclose(smoothed.rate[0, 0], 0.5 / 2)  # Jeffreys: (0 + 1/2) / 2
    mle = Poisson(estimate="mle").finalize(stats)
    assert mle.log_rate[0, 0] == -np.inf
    # Under the MLE a count where the class never had one is impossible; zero is certain.
    jll = Poisson(estimate="mle").log_prob(mle, np.array([[1.0, 2.0], [0.0, 2.0]]))
    assert jll[0, 0] == -np.inf
    np.testing.assert_allclose(jll[1, 0], poisson.logpmf(2, 2.0))


@given(seed=st.integers(0, 10_000), alpha=st.floats(0.05, 2.0), beta=st.floats(0.0, 2.0))
def test_log_prob_matches_scipy(seed, alpha, beta):
    X, R = block(seed)
    family = Poisson(alpha, beta=beta)
    params = family.finalize(family.summarize(X, R))
    rate = hand_rates(X, R, alpha, beta)
    rows = np.random.default_rng(seed).poisson(2.0, size=(7, X.shape[1])).astype(float)
    expected = poisson.logpmf(rows[:, None, :], rate[None, :, :]).sum(axis=2)
    np.testing.assert_allclose(family.log_prob(params, rows), expected, rtol=1e-10)


def test_given_length_mle_class_without_counts_makes_only_empty_rows():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [2.0, 1.0]])
    R = sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    family = Poisson(estimate="mle", given_length=True)
    params = family.finalize(family.summarize(X, R))
    rows = np.array([[0.0, 0.0], [1.0, 0.0]])
    jll = family.log_prob(params, rows)
    np.testing.assert_allclose(jll[0], [0.0, 0.0])  # an empty row is certain given N = 0
    assert jll[1, 0] == -np.inf
    np.testing.assert_allclose(jll[1, 1], np.log(2 / 3))
    W, b = family.linear_form(params)
    # −inf weights (impossible counts) multiply as in every count family: safe_dot.
    np.testing.assert_array_equal(safe_dot(family.design(params, rows), W) + b, jll)


def test_fractional_counts_use_the_gamma_function():
    X, R = block(2)
    family = Poisson()
    params = family.finalize(family.summarize(X, R))
    rows = np.array([[2.5, 0.0, 1.25, 70000.0]])  # fractional, and beyond the lookup table
    lam = params.rate
    expected = (rows * np.log(lam) - lam - gammaln(rows + 1)).sum(axis=1)
    np.testing.assert_allclose(family.log_prob(params, rows)[0], expected, rtol=1e-12)


@given(seed=st.integers(0, 10_000), alpha=st.floats(0.05, 2.0))
def test_given_length_is_the_multinomial_of_the_rates(seed, alpha):
    X, R = block(seed)
    family = Poisson(alpha, beta=1.0, given_length=True)
    params = family.finalize(family.summarize(X, R))
    pi = params.rate / params.rate.sum(axis=1, keepdims=True)
    rows = np.random.default_rng(seed).poisson(2.0, size=(5, X.shape[1])).astype(float)
    rows[0] = 0.0  # an empty row has probability 1 given its length
    expected = np.array([[multinomial.logpmf(r, r.sum(), p) for p in pi] for r in rows])
    np.testing.assert_allclose(family.log_prob(params, rows), expected, rtol=1e-10, atol=1e-12)
    # β cancels: the conditional model is the same for every β.
    other = Poisson(alpha, beta=5.0, given_length=True)
    np.testing.assert_allclose(
        other.log_prob(other.finalize(family.summarize(X, R)), rows),
        expected,
        rtol=1e-10,
        atol=1e-12,
    )


@pytest.mark.parametrize("given_length", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_a_missing_value_drops_its_term(given_length, sparse):
    X, R = block(3, n=60, d=5, holes=0.15)
    family = Poisson(0.5, given_length=given_length)
    data = sp.csr_matrix(X) if sparse else X
    params = family.finalize(family.summarize(data, R))
    # Training: a feature's rate comes from the rows where it is observed, class by class.
    for j in range(X.shape[1]):
        seen = ~np.isnan(X[:, j])
        alone = Poisson(0.5).finalize(Poisson(0.5).summarize(X[seen][:, [j]], R[seen]))
        np.testing.assert_allclose(params.rate[:, j], alone.rate[:, 0], rtol=1e-12)
    # Prediction: a row with feature 2 missing scores as the model of the other features.
    row = np.array([[1.0, 3.0, np.nan, 0.0, 2.0]])
    others = [0, 1, 3, 4]
    restricted = Poisson(0.5, given_length=given_length)
    sub = restricted.finalize(restricted.summarize(X[:, others], R))
    probe = sp.csr_matrix(row) if sparse else row
    np.testing.assert_allclose(
        family.log_prob(params, probe),
        restricted.log_prob(sub, row[:, others]),
        rtol=1e-12,
    )
    nothing = np.full((1, 5), np.nan)
    np.testing.assert_array_equal(family.log_prob(params, nothing), np.zeros((1, 3)))


def test_a_feature_never_observed_drops_out_and_an_empty_class_gets_the_pooled_rate():
    X = np.array([[1.0, np.nan], [3.0, np.nan], [2.0, np.nan]])
    R = sp.csr_matrix(np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
    family = Poisson(0.5)
    params = family.finalize(family.summarize(X, R))
    assert params.known.tolist() == [True, False]
    np.testing.assert_allclose(params.rate[2, 0], (6 + 0.5) / 3)  # class 2 has no rows
    jll = family.log_prob(params, np.array([[2.0, 5.0]]))
    np.testing.assert_allclose(jll, family.log_prob(params, np.array([[2.0, np.nan]])))
    assert np.isfinite(jll).all()


@pytest.mark.parametrize("soft", [False, True])
@given(seed=st.integers(0, 10_000))
def test_sparse_and_dense_summaries_agree(soft, seed):
    X, R = block(seed, holes=0.1)
    X[np.random.default_rng(seed).random(X.shape) < 0.3] = 0.0
    if soft:  # EM responsibilities: every row in every class in part
        rng = np.random.default_rng(seed)
        R = rng.dirichlet(np.ones(3), size=X.shape[0])
    family = Poisson()
    counts_close(family.summarize(sp.csr_matrix(X), R), family.summarize(X, R))


def test_duplicate_sparse_entries_are_summed_first():
    coo = sp.coo_matrix(([1.0, 2.0, 4.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    family = Poisson()
    data = family.validate(coo.tocsr(copy=False), ["x0", "x1"])
    np.testing.assert_array_equal(data.toarray(), [[0.0, 3.0], [4.0, 0.0]])
    dense = family.validate(coo.toarray(), ["x0", "x1"])
    R = sp.csr_matrix(np.eye(2))
    counts_close(family.summarize(data, R), family.summarize(dense, R))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("holes", [0.0, 0.2])
def test_linear_form_is_exact(sparse, holes):
    X, R = block(5, n=50, d=6, holes=holes)
    family = Poisson(0.3, beta=0.5)
    params = family.finalize(family.summarize(X, R))
    data = sp.csr_matrix(X) if sparse else X
    W, b = family.linear_form(params)
    design = family.design(params, data)
    assert W.shape[1] == design.shape[1] == len(family.column_names(params, list("abcdef")))
    np.testing.assert_allclose(
        np.asarray(design @ W.T) + b, family.log_prob(params, data), rtol=1e-12, atol=1e-10
    )


def test_linear_form_given_length():
    X, R = block(6, n=50, d=6)
    family = Poisson(1.0, given_length=True)
    params = family.finalize(family.summarize(X, R))
    W, b = family.linear_form(params)
    np.testing.assert_allclose(
        family.design(params, X) @ W.T + b, family.log_prob(params, X), rtol=1e-12
    )
    # The weights are ln π_cj, the class's word distribution.
    np.testing.assert_allclose(np.exp(W[:, :-1]).sum(axis=1), 1.0, rtol=1e-12)
    holes = X.copy()
    holes[4, 2] = np.nan
    with pytest.raises(DataError, match=r"X\[4, 2\] is missing; .* complete rows only"):
        family.design(params, holes)


@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 38), cut_b=st.integers(1, 38))
def test_statistics_add_like_data(seed, cut_a, cut_b):
    X, R = block(seed, holes=0.1)
    lo, hi = sorted((cut_a, cut_b))
    family = Poisson()
    a, b, c = (family.summarize(X[s], R[s]) for s in (slice(0, lo), slice(lo, hi), slice(hi, None)))
    whole = family.summarize(X, R)
    counts_close(a + b + c, whole)
    counts_close(a + b, b + a)
    counts_close((a + b) + c, a + (b + c))
    kept = family.summarize(X[:lo], R[:lo])
    counts_close((whole + (-(b + c))).cleaned(np.arange(3), 1e-9), kept)


def test_bad_input_is_named():
    family = Poisson()
    names = ["free", "money", "now"]
    bad = np.array([[1.0, 0.0, 2.0], [0.0, -3.0, 1.0]])
    with pytest.raises(
        DataError, match=r"Negative values .* X\[1, 1\] = -3.0 \(column 1 \('money'\)"
    ):
        family.validate(bad, names)
    with pytest.raises(DataError, match=r"X\[1, 1\] = -3.0"):
        family.validate(sp.csr_matrix(bad), names)
    bad[0, 2] = np.inf
    with pytest.raises(DataError, match=r"inf at row 0, column 2 \('now'\); .* finite"):
        family.validate(bad, names)
    with pytest.raises(DataError, match=r"inf at row 0, column 2 \('now'\); .* finite"):
        family.validate(sp.csr_matrix(bad), names)
    ok = np.array([[0.0, np.nan, 2.5]])  # non-integer counts: a quasi-likelihood
    np.testing.assert_array_equal(family.validate(ok, names), ok)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"alpha": -1.0}, "alpha must be >= 0"),
        ({"beta": -0.5}, r"beta \(the Gamma prior's rate\) must be a finite number >= 0"),
        ({"beta": np.inf}, "beta .* finite"),
        ({"alpha": 0.5, "estimate": "map"}, "estimate='map' needs alpha >= 1"),
        ({"estimate": "median"}, "estimate='median' is not one of"),
        ({"given_length": "yes"}, "given_length must be True or False"),
    ],
)
def test_bad_hyperparameters(settings, message):
    X, R = block(7)
    with pytest.raises(ParameterError, match=message):
        Poisson(**settings).finalize(Poisson().summarize(X, R))


def test_config_rebuilds_the_family():
    family = Poisson(np.array([0.5, 1.0]), beta=2.0, estimate="map", given_length=True)
    assert FAMILIES["poisson"] is Poisson
    again = family_from_config("poisson", family.config())
    assert again.config() == family.config() == type(family)(**family.config()).config()
    assert again.config()["alpha"] == [0.5, 1.0]
