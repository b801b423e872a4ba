"""The gaussian family: moments in, normal / Student-t log-likelihoods out."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as st_dist

from bayeskit.errors import DataError, ParameterError
from bayeskit.families._base import FAMILIES, family_from_config
from bayeskit.families.gaussian import Gaussian
from bayeskit.stats import Moments


def one_hot(y: np.ndarray, k: int, w: np.ndarray | None = None) -> sp.csr_matrix:
    w = np.ones(len(y)) if w is None else w
    return sp.csr_matrix((w, y, np.arange(len(y) + 1)), shape=(len(y), k))


def data(seed: int, n: int = 50, d: int = 4, k: int = 3, offset: float = 0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    X = (
        offset
        + rng.normal(size=(k, d))[y] * 3
        + rng.normal(size=(n, d)) * rng.uniform(0.5, 2, size=d)
    )
    return X, y


def direct(theta: np.ndarray, var: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Σ_j ln N(x_j; θ_cj, σ²_cj) term by term, NaN entries skipped (the reference)."""
    terms = -0.5 * (np.log(2 * np.pi * var)[None] + (X[:, None, :] - theta[None]) ** 2 / var[None])
    return np.where(np.isnan(X)[:, None, :], 0.0, terms).sum(axis=2)


def fitted(family: Gaussian, X: np.ndarray, y: np.ndarray, k: int, w=None):
    return family.finalize(family.summarize(X, one_hot(y, k, w)))


def test_mle_is_the_weighted_mean_and_variance_plus_the_floor():
    X, y = data(0)
    w = np.random.default_rng(1).uniform(0.2, 3, len(y))
    p = fitted(Gaussian(var_smoothing=1e-3), X, y, 3, w)
    pooled_mean = np.average(X, axis=0, weights=w)
    epsilon = 1e-3 * np.average((X - pooled_mean) ** 2, axis=0, weights=w).max()
    assert p.epsilon == pytest.approx(epsilon, rel=1e-12)
    for c in range(3):
        mean = np.average(X[y == c], axis=0, weights=w[y == c])
        var = np.average((X[y == c] - mean) ** 2, axis=0, weights=w[y == c])
        np.testing.assert_allclose(p.theta[c], mean, rtol=1e-12)
        np.testing.assert_allclose(p.var[c], var + epsilon, rtol=1e-12)


def test_log_prob_equals_the_direct_formula():
    X, y = data(2)
    family = Gaussian()
    p = fitted(family, X, y, 3)
    np.testing.assert_allclose(family.log_prob(p, X), direct(p.theta, p.var, X), rtol=1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e6, -1e9])
@pytest.mark.parametrize("spread", [1.0, 1e-4])
def test_matrix_form_is_accurate_on_adversarial_data(offset, spread):
    # Large common offsets and tiny variances: the expansion u² A + u B + C is taken on
    # values centred on the pooled mean, so the offset cancels before any product. The error
    # is bounded by a few ulps of Σ_j ((x_j − m_j)² + (μ_cj − m_j)²) / σ²_cj.
    rng = np.random.default_rng(3)
    n, d, k = 400, 30, 6
    y = rng.integers(0, k, n)
    centres = rng.normal(size=(k, d)) * 5 * spread
    scales = spread * rng.uniform(0.1, 3, size=(k, d))
    X = offset + centres[y] + rng.normal(size=(n, d)) * scales[y]
    family = Gaussian(var_smoothing=0.0)
    p = fitted(family, X, y, k)
    ours = family.log_prob(p, X)
    # Reference in extended precision, from the same parameters.
    Xl, tl, vl = (a.astype(np.longdouble) for a in (X, p.theta, p.var))
    ref = (-0.5 * (np.log(2 * np.pi * vl)[None] + (Xl[:, None] - tl[None]) ** 2 / vl[None])).sum(2)
    u = X - p.reference
    scale = ((u**2) @ (1 / p.var).T + (((p.theta - p.reference) ** 2) / p.var).sum(1)) + 1
    error = np.abs(ours - ref.astype(np.float64)) / scale
    assert error.max() < 1e-14
    # Relative to the log-likelihood itself, on these data:
    assert (np.abs(ours - ref.astype(np.float64)) / np.abs(ref.astype(np.float64))).max() < 1e-12


def test_missing_value_contributes_nothing():
    X, y = data(4)
    family = Gaussian()
    p = fitted(family, X, y, 3)
    holes = np.random.default_rng(5).random(X.shape) < 0.3
    Xm = np.where(holes, np.nan, X)
    Xm[0] = np.nan
    out = family.log_prob(p, Xm)
    np.testing.assert_allclose(out, direct(p.theta, p.var, Xm), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out[0], 0.0)


def test_nan_in_training_is_left_out_per_feature():
    X, y = data(6)
    Xm = X.copy()
    Xm[::3, 1] = np.nan
    family = Gaussian(var_smoothing=0.0)
    p = fitted(family, Xm, y, 3)
    keep = ~np.isnan(Xm[:, 1])
    alone = fitted(family, X[keep][:, [1]], y[keep], 3)
    np.testing.assert_allclose(p.theta[:, 1], alone.theta[:, 0], rtol=1e-12)
    np.testing.assert_allclose(p.var[:, 1], alone.var[:, 0], rtol=1e-12)
    others = fitted(family, X[:, [0, 2, 3]], y, 3)
    np.testing.assert_allclose(p.theta[:, [0, 2, 3]], others.theta, rtol=1e-12)


def test_class_without_values_of_a_feature_uses_the_pooled_moments():
    X, y = data(7)
    X[y == 2, 3] = np.nan
    p = fitted(Gaussian(var_smoothing=0.0), X, y, 3)
    observed = X[~np.isnan(X[:, 3]), 3]
    assert p.theta[2, 3] == pytest.approx(observed.mean(), rel=1e-12)
    assert p.var[2, 3] == pytest.approx(observed.var(), rel=1e-12)


def test_feature_never_observed_adds_nothing():
    X, y = data(8)
    X[:, 2] = np.nan
    family = Gaussian()
    p = fitted(family, X, y, 3)
    probe = np.array([[0.3, -1.0, 1e6, 2.0]])
    without = probe.copy()
    without[0, 2] = np.nan
    out = family.log_prob(p, probe)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, family.log_prob(p, without), rtol=1e-12)


def test_constant_feature_in_one_class_is_floored():
    X, y = data(9)
    X[y == 1, 0] = 4.25
    family = Gaussian()
    p = fitted(family, X, y, 3)
    assert p.var[1, 0] == p.epsilon > 0
    out = family.log_prob(p, np.vstack([X, [[4.25, 0, 0, 0]]]))
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize(
    ("values", "epsilon"),
    [(np.array([[3.0, -2.0], [3.0, -2.0]]), 1e-9 * 9.0), (np.zeros((3, 2)), 1e-9)],
)
def test_every_feature_constant_still_gives_a_positive_floor(values, epsilon):
    # No spread at all: the floor follows the size of the values (1 when all are 0).
    y = np.arange(len(values)) % 2
    family = Gaussian()
    p = fitted(family, values, y, 2)
    assert p.epsilon == pytest.approx(epsilon, rel=1e-12)
    np.testing.assert_allclose(p.var, epsilon, rtol=1e-12)
    assert np.all(np.isfinite(family.log_prob(p, values + 1.0)))


def test_no_floor_with_a_constant_feature_is_refused():
    X, y = data(10)
    X[y == 0, 2] = 1.0
    with pytest.raises(ParameterError, match=r"feature 2 has variance 0 in class index 0"):
        fitted(Gaussian(var_smoothing=0.0), X, y, 3)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"var_smoothing": -1e-9}, r"var_smoothing must be >= 0; got -1e-09"),
        ({"var_smoothing": float("nan")}, "var_smoothing must be finite"),
        ({"var_smoothing": "small"}, "var_smoothing must be a number"),
        ({"shared_variance": "yes"}, "shared_variance must be True or False"),
        ({"estimate": "map"}, "estimate='map' is not one of"),
        ({"estimate": "predictive", "prior_count": 0}, "prior_count must be > 0"),
        ({"estimate": "predictive", "prior_var": [1, -1, 1, 1]}, "prior_var must be > 0"),
        ({"estimate": "predictive", "prior_mean": [1, 2]}, r"prior_mean has shape \(2,\)"),
        ({"estimate": "predictive", "prior_mean": "x"}, "prior_mean must be a number"),
    ],
)
def test_bad_settings_are_named(settings, message):
    X, y = data(11)
    with pytest.raises(ParameterError, match=message):
        fitted(Gaussian(**settings), X, y, 3)


def test_infinity_is_refused_naming_row_and_column():
    X = np.zeros((3, 2))
    X[2, 1] = -np.inf
    with pytest.raises(DataError, match=r"-inf at row 2, column 1 \('b'\)"):
        Gaussian().validate(X, ["a", "b"])


def test_shared_variance_pools_the_within_class_variance():
    X, y = data(12)
    family = Gaussian(var_smoothing=1e-6, shared_variance=True)
    p = fitted(family, X, y, 3)
    m2 = sum(((X[y == c] - X[y == c].mean(0)) ** 2).sum(0) for c in range(3))
    np.testing.assert_allclose(p.var, np.tile(m2 / len(y) + p.epsilon, (3, 1)), rtol=1e-12)
    np.testing.assert_allclose(family.log_prob(p, X), direct(p.theta, p.var, X), rtol=1e-12)
    # The class-dependent part is linear: log_prob − (X W' + b) is the same for every class.
    W, b = family.discriminant(p)
    rest = family.log_prob(p, X) - (X @ W.T + b)
    np.testing.assert_allclose(rest, rest[:, :1].repeat(3, axis=1), rtol=1e-10)
    with pytest.raises(ParameterError, match="shared_variance=True"):
        Gaussian().discriminant(fitted(Gaussian(), X, y, 3))


def normal_gamma(x: np.ndarray, mu0: float, k0: float, a0: float, b0: float):
    """The conjugate update written out from the raw values of one class and feature."""
    n = len(x)
    xbar = x.mean() if n else 0.0
    kn, an = k0 + n, a0 + n / 2
    mun = (k0 * mu0 + n * xbar) / kn
    bn = b0 + 0.5 * ((x - xbar) ** 2).sum() + k0 * n * (xbar - mu0) ** 2 / (2 * kn)
    return 2 * an, mun, np.sqrt(bn * (kn + 1) / (an * kn))


def test_predictive_is_the_student_t_of_the_normal_gamma_posterior():
    X, y = data(13, n=30, d=3)
    mu0, v0, k0 = np.array([0.5, -1.0, 2.0]), np.array([2.0, 0.5, 4.0]), 2.5
    family = Gaussian(estimate="predictive", prior_mean=mu0, prior_var=v0, prior_count=k0)
    p = fitted(family, X, y, 3)
    probe = np.random.default_rng(14).normal(size=(7, 3)) * 3
    expected = np.zeros((7, 3))
    for c in range(3):
        for j in range(3):
            df, loc, scale = normal_gamma(X[y == c, j], mu0[j], k0, k0 / 2, k0 / 2 * v0[j])
            expected[:, c] += st_dist.t.logpdf(probe[:, j], df, loc=loc, scale=scale)
            assert p.dof is not None
            assert p.dof[c, j] == pytest.approx(df)
    np.testing.assert_allclose(family.log_prob(p, probe), expected, rtol=1e-12)


def test_predictive_with_a_shared_precision():
    X, y = data(15, n=24, d=2)
    family = Gaussian(estimate="predictive", shared_variance=True, prior_count=1.0)
    p = fitted(family, X, y, 3)
    mu0, v0 = X.mean(0), X.var(0) + p.epsilon  # the documented defaults
    probe = np.array([[0.0, 1.0], [2.0, -3.0]])
    expected = np.zeros((2, 3))
    for j in range(2):
        an, bn = 0.5, 0.5 * v0[j]
        for c in range(3):
            x = X[y == c, j]
            kn = 1 + len(x)
            an += len(x) / 2
            bn += 0.5 * ((x - x.mean()) ** 2).sum() + len(x) * (x.mean() - mu0[j]) ** 2 / (2 * kn)
        for c in range(3):
            x = X[y == c, j]
            kn = 1 + len(x)
            loc = (mu0[j] + x.sum()) / kn
            scale = np.sqrt(bn * (kn + 1) / (an * kn))
            expected[:, c] += st_dist.t.logpdf(probe[:, j], 2 * an, loc=loc, scale=scale)
    np.testing.assert_allclose(family.log_prob(p, probe), expected, rtol=1e-12)


def test_predictive_empty_class_is_the_prior_predictive_and_nan_drops():
    X, y = data(16, n=20, d=2, k=2)
    family = Gaussian(estimate="predictive", prior_mean=1.0, prior_var=2.0, prior_count=3.0)
    p = fitted(family, X, y, 3)  # class 2 has no rows
    df, loc, scale = normal_gamma(np.array([]), 1.0, 3.0, 1.5, 3.0)
    probe = np.array([[0.2, np.nan], [np.nan, np.nan]])
    out = family.log_prob(p, probe)
    assert out[0, 2] == pytest.approx(st_dist.t.logpdf(0.2, df, loc=loc, scale=scale))
    np.testing.assert_array_equal(out[1], 0.0)


def test_predictive_approaches_the_mle_with_much_data():
    rng = np.random.default_rng(17)
    y = rng.integers(0, 2, 40_000)
    X = rng.normal(size=(40_000, 3)) + y[:, None]
    mle, bayes = Gaussian(), Gaussian(estimate="predictive")
    pm, pb = fitted(mle, X, y, 2), fitted(bayes, X, y, 2)
    probe = X[:50]
    np.testing.assert_allclose(bayes.log_prob(pb, probe), mle.log_prob(pm, probe), rtol=1e-3)


def test_config_rebuilds_the_family():
    family = Gaussian(
        1e-7, shared_variance=True, estimate="predictive", prior_mean=np.array([1.0, 2.0])
    )
    config = family.config()
    assert config["prior_mean"] == [1.0, 2.0]
    assert FAMILIES["gaussian"] is Gaussian
    rebuilt = family_from_config("gaussian", config)
    assert rebuilt.config() == config
    assert type(Gaussian(**config)) is Gaussian


finite = st.floats(-1e3, 1e3, allow_nan=False)


@given(
    seed=st.integers(0, 10_000),
    offset=st.sampled_from([0.0, 1e4, -3e7]),
    cuts=st.tuples(st.integers(1, 58), st.integers(1, 58)),
)
def test_moments_add_in_any_order(seed, offset, cuts):
    X, y = data(seed, n=60, offset=offset)
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    family = Gaussian()
    lo, hi = sorted(cuts)
    hi += 1
    a, b, c = (
        family.summarize(X[s], one_hot(y[s], 3))
        for s in (slice(0, lo), slice(lo, hi), slice(hi, None))
    )
    whole = family.summarize(X, one_hot(y, 3))

    # A value near the offset is only known to an ulp of the offset, so differences in the
    # order of additions show at ~1e-16·|offset| relative to the spread (~1); raw power sums
    # would lose ~1e-16·offset² instead.
    rtol = 1e-11 + 1e-15 * abs(offset)
    spread = whole.pooled().variance.max()

    def same(s: Moments, t: Moments) -> None:
        for u, v in zip(s.weights(), t.weights(), strict=True):
            np.testing.assert_allclose(u, v, rtol=1e-11, atol=1e-9 * (1 + abs(offset)))
        pa, pb = family.finalize(s), family.finalize(t)
        # Removing data leaves rounding residue in M2 of the size of the data's spread (times
        # the ulp of the offset), not of the floor that a one-row class has as its variance.
        atol = spread * (1e-10 + 5e-14 * abs(offset))
        np.testing.assert_allclose(pa.var, pb.var, rtol=rtol, atol=atol)
        assert pa.epsilon == pytest.approx(pb.epsilon, rel=rtol)

    same(a + b, b + a)
    same((a + b) + c, a + (b + c))
    same(a + b + c, whole)
    same((a + b + c) + (-c), a + b)


def test_moments_of_soft_labels_are_weighted_moments():
    # Moments.of has a compiled path for one-hot labels and one for soft responsibilities.
    X, y = data(18, n=40)
    X[np.random.default_rng(19).random(X.shape) < 0.2] = np.nan
    R = np.random.default_rng(20).dirichlet(np.ones(3), size=len(y))
    soft = Moments.of(X, R)
    for c in range(3):
        for j in range(X.shape[1]):
            seen = ~np.isnan(X[:, j])
            mean = np.average(X[seen, j], weights=R[seen, c])
            assert soft.weight[c, j] == pytest.approx(R[seen, c].sum(), rel=1e-12)
            assert soft.mean[c, j] == pytest.approx(mean, rel=1e-12)
            m2 = (R[seen, c] * (X[seen, j] - mean) ** 2).sum()
            assert soft.m2[c, j] == pytest.approx(m2, rel=1e-12)
    hard, dense = Moments.of(X, one_hot(y, 3)), Moments.of(X, one_hot(y, 3).toarray())
    for u, v in zip(hard.weights(), dense.weights(), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


def test_rows_next_to_a_tight_class_keep_full_accuracy():
    """Classes 1000 standard deviations apart: for a row at its own class mean the expansion
    cancels terms of size ~1e6 to a result of size ~1; those pairs are rescored directly."""
    rng = np.random.default_rng(5)
    centres = np.array([[0.0, 0.0, 0.0], [1000.0, -1000.0, 500.0]])
    y = np.repeat([0, 1], 50)
    X = centres[y] + rng.normal(size=(100, 3))
    family = Gaussian()
    params = family.finalize(Moments.of(X, sp.csr_matrix(np.eye(2)[y])))
    Q = X[::7].astype(np.longdouble)
    mu, var = params.theta.astype(np.longdouble), params.var.astype(np.longdouble)
    exact = -0.5 * (
        np.log(2 * np.pi * var)[None] + (Q[:, None, :] - mu[None]) ** 2 / var[None]
    ).sum(axis=2)
    np.testing.assert_allclose(family.log_prob(params, X[::7]), exact.astype(float), rtol=1e-12)
