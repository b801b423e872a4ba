"""The kernel density family: accuracy against exact estimates, bandwidth rules, statistics
that add, missing values and bad hyperparameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import cauchy, gaussian_kde
from sklearn.neighbors import KernelDensity

from bayeskit.errors import DataError, ParameterError
from bayeskit.families import _bandwidth as bw
from bayeskit.families import _kde_kernels
from bayeskit.families._base import FAMILIES, family_from_config
from bayeskit.families._kde_kernels import KERNELS, log_cauchy
from bayeskit.families.kernel import Kernel, KernelParams
from bayeskit.stats import Sample

# scikit-learn's KernelDensity calls a compact kernel's support radius its bandwidth (and the
# exponential kernel's scale, std / √2): name there and the factor from our std-bandwidth.
SKLEARN_KERNELS = {
    "gaussian": ("gaussian", 1.0),
    "epanechnikov": ("epanechnikov", math.sqrt(5)),
    "tophat": ("tophat", math.sqrt(3)),
    "triangular": ("linear", math.sqrt(6)),
    "cosine": ("cosine", 1 / math.sqrt(1 - 8 / math.pi**2)),
    "exponential": ("exponential", 1 / math.sqrt(2)),
}


def one_hot(
    codes: np.ndarray, weight: np.ndarray | None = None, k: int | None = None
) -> sp.csr_matrix:
    n = len(codes)
    w = np.ones(n) if weight is None else weight
    return sp.csr_matrix((w, codes, np.arange(n + 1)), shape=(n, k or int(codes.max()) + 1))


def fitted(family: Kernel, X: np.ndarray, R: sp.csr_matrix | np.ndarray) -> KernelParams:
    return family.finalize(family.summarize(X, R))


def bimodal(seed: int, n: int = 400) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(0, 1, n // 2), rng.normal(4, 0.5, n - n // 2)]


def exact_mixture(
    params: KernelParams, kernel: str, x: np.ndarray, w: np.ndarray, at: np.ndarray, a: float
) -> np.ndarray:
    """The model's density computed exactly: (Σ w K_h(at − x) + a g(at)) / (W + a)."""
    h = params.bandwidth[0, 0]
    kde = (w * KERNELS[kernel].density((at[:, None] - x) / h) / h).sum(axis=1)
    g = np.exp(log_cauchy(at, params.tail_loc[0], params.tail_scale[0]))
    return (kde + a * g) / (w.sum() + a)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_kernels_are_unit_variance_densities(kernel):
    shape = KERNELS[kernel]
    u = np.linspace(-40, 40, 800_001)
    k = shape.density(u)
    du = u[1] - u[0]
    assert abs(k.sum() * du - 1) < 1e-6
    assert abs((u * k).sum() * du) < 1e-9
    assert abs((u * u * k).sum() * du - 1) < 1e-5
    if math.isfinite(shape.radius):
        assert np.all(k[np.abs(u) >= shape.radius] == 0)


def test_tail_is_a_cauchy_density_without_overflow():
    x = np.array([-1e5, -3.0, 0.0, 0.5, 7.0, 1e120, 1e150])
    np.testing.assert_allclose(
        log_cauchy(x, 0.5, 2.0)[:5], cauchy.logpdf(x[:5], loc=0.5, scale=2.0), rtol=1e-12
    )
    far = log_cauchy(x[5:], 0.5, 2.0)
    assert np.all(np.isfinite(far))
    np.testing.assert_allclose(far, -np.log(np.pi * 2.0) - 2 * np.log(x[5:] / 2.0), rtol=1e-12)


@pytest.mark.parametrize("kernel", sorted(SKLEARN_KERNELS))
def test_kernel_shapes_match_scikit_learn(kernel):
    x = bimodal(0, 50)
    at = np.linspace(-4, 7, 301)
    h = 0.7
    name, factor = SKLEARN_KERNELS[kernel]
    kd = KernelDensity(kernel=name, bandwidth=h * factor).fit(x[:, None])
    ours = KERNELS[kernel].density((at[:, None] - x) / h).sum(axis=1) / (h * len(x))
    np.testing.assert_allclose(ours, np.exp(kd.score_samples(at[:, None])), rtol=1e-10, atol=1e-14)


# Measured with the defaults (32 grid points per bandwidth): the Gaussian estimate is within
# 4.8e-4 (relative) of the exact one wherever the density exceeds 1e-3 of its peak, and every
# kernel's integrated absolute error is ≤ 1.6e-4, except the tophat's (4e-3: its jumps cannot
# be interpolated). The bounds leave a factor ~2.
L1_BOUND = {"tophat": 1e-2}


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_binned_density_agrees_with_exact_kde(kernel):
    x = bimodal(3)
    w = np.random.default_rng(3).integers(1, 4, len(x)).astype(float)
    a = 1e-6
    family = Kernel(kernel, tail_weight=a)
    params = fitted(family, x[:, None], one_hot(np.zeros(len(x), int), w))
    h = params.bandwidth[0, 0]
    at = np.linspace(x.min() - 5 * h, x.max() + 5 * h, 20_001)
    ours = np.exp(family.log_prob(params, at[:, None])[:, 0])
    exact = exact_mixture(params, kernel, x, w, at, a)
    l1 = np.abs(ours - exact).sum() * (at[1] - at[0])
    assert l1 < L1_BOUND.get(kernel, 3e-4)
    if kernel == "gaussian":
        dense = exact > 1e-3 * exact.max()
        assert np.max(np.abs(ours[dense] / exact[dense] - 1)) < 1e-3


def test_far_outliers_do_not_coarsen_the_grid():
    rng = np.random.default_rng(11)
    x = np.r_[rng.normal(0, 1, 2000), rng.uniform(1e3, 1e5, 5)]
    a = 1e-9
    family = Kernel(tail_weight=a)
    params = fitted(family, x[:, None], one_hot(np.zeros(len(x), int)))
    h = params.bandwidth[0, 0]
    # One grid over [-4, 1e5] would have a step of ~500 bandwidths; segments keep it fine.
    assert h / params.step[0, 0] > 8
    at = np.r_[np.linspace(-3, 3, 301), x[-5:], x[-5:] + 0.5 * h]
    ours = np.exp(family.log_prob(params, at[:, None])[:, 0])
    exact = exact_mixture(params, "gaussian", x, np.ones(len(x)), at, a)
    assert np.max(np.abs(ours / exact - 1)) < 1e-2


def test_many_outliers_share_segments():
    rng = np.random.default_rng(12)
    x = np.r_[rng.normal(0, 1, 500), rng.uniform(1e3, 1e6, 2000)]
    family = Kernel("epanechnikov", grid_size=64, shared_bandwidth=False, bandwidth=0.01)
    params = fitted(family, x[:, None], one_hot(np.zeros(len(x), int)))
    seg_ptr = params.grid[0]
    assert seg_ptr[1] <= 64 // 4
    lp = family.log_prob(params, x[:, None])
    assert np.all(np.isfinite(lp))


def test_gaussian_agrees_with_scipy_gaussian_kde():
    x = bimodal(5, 300)
    w = np.random.default_rng(5).uniform(0.5, 2.0, len(x))
    family = Kernel("gaussian", bandwidth=0.4, tail_weight=1e-9)
    params = fitted(family, x[:, None], one_hot(np.zeros(len(x), int), w))
    h = params.bandwidth[0, 0]
    # The factor is a multiple of the weighted standard deviation (ddof 0).
    mean = np.average(x, weights=w)
    assert h == pytest.approx(0.4 * math.sqrt(np.average((x - mean) ** 2, weights=w)), rel=1e-12)
    kde = gaussian_kde(x, bw_method=1.0, weights=w)
    kde.set_bandwidth(h / math.sqrt(kde.covariance[0, 0]))
    at = np.linspace(-3, 6, 501)
    np.testing.assert_allclose(
        family.log_prob(params, at[:, None])[:, 0], kde.logpdf(at), rtol=0, atol=1e-3
    )


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov", "tophat"])
def test_density_integrates_to_one(kernel):
    x = np.random.default_rng(1).standard_t(3, size=500)
    family = Kernel(kernel, grid_size=256)
    params = fitted(family, x[:, None], one_hot(np.zeros(len(x), int)))
    grid = params.points(0, 0)
    at = np.linspace(grid[0], grid[-1], 200_001)
    inside = np.exp(family.log_prob(params, at[:, None])[:, 0]).sum() * (at[1] - at[0])
    # Outside its grid a class's density is its tail share of a Cauchy, integrated exactly.
    loc, scale = params.tail_loc[0], params.tail_scale[0]
    cauchy_mass = (
        1 - (np.arctan((grid[-1] - loc) / scale) - np.arctan((grid[0] - loc) / scale)) / np.pi
    )
    outside = np.exp(params.log_tail[0, 0]) * cauchy_mass
    assert inside + outside == pytest.approx(1.0, abs=2e-3)


def test_parallel_scoring_equals_serial(monkeypatch):
    rng = np.random.default_rng(13)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    family = Kernel()
    params = fitted(family, X, one_hot(rng.integers(0, 3, 300)))
    at = rng.normal(size=(500, 4)) * 3
    serial = family.log_prob(params, at)
    monkeypatch.setattr(_kde_kernels, "PARALLEL_WORK", 0)
    np.testing.assert_array_equal(family.log_prob(params, at), serial)


def test_far_values_stay_finite_for_compact_kernels():
    X = np.array([[0.0], [0.1], [0.2], [10.0], [10.3]])
    R = one_hot(np.array([0, 0, 0, 1, 1]))
    family = Kernel("epanechnikov")
    params = fitted(family, X, R)
    lp = family.log_prob(params, np.array([[5.0], [-1e300], [1e300], [10.1]]))
    assert np.all(np.isfinite(lp))
    # Far from every class's data only the tail is left: the classes differ by their size.
    far = lp[1]
    assert far[0] - far[1] == pytest.approx(math.log((2 + 1) / (3 + 1)), abs=1e-9)
    assert lp[3].argmax() == 1


def test_rules_of_thumb():
    x = np.random.default_rng(2).normal(3.0, 2.0, size=1000)
    X, R = x[:, None], one_hot(np.zeros(len(x), int))
    sigma = x.std()
    q1, q3 = np.quantile(x, [0.25, 0.75])
    n = len(x)
    expected = {
        "silverman": 0.9 * min(sigma, (q3 - q1) / 1.349) * n**-0.2,
        "scott": 1.06 * sigma * n**-0.2,
        0.5: 0.5 * sigma,
    }
    for rule, h in expected.items():
        assert fitted(Kernel(bandwidth=rule), X, R).bandwidth[0, 0] == pytest.approx(h, rel=1e-12)


def test_silverman_uses_sigma_when_quartiles_coincide():
    x = np.r_[np.zeros(80), np.arange(1.0, 21.0)]  # mostly zero, like a word frequency
    h = fitted(Kernel(), x[:, None], one_hot(np.zeros(len(x), int))).bandwidth[0, 0]
    assert h == pytest.approx(0.9 * x.std() * len(x) ** -0.2, rel=1e-12)


@given(st.lists(st.integers(1, 4), min_size=3, max_size=30), st.integers(0, 1000))
def test_weighted_quartiles_equal_repetition(counts, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=len(counts)), 1)
    w = np.asarray(counts, dtype=float)
    family = Kernel(shared_bandwidth=False)
    weighted = fitted(family, x[:, None], one_hot(np.zeros(len(x), int), w))
    rep = np.repeat(x, counts)
    repeated = fitted(family, rep[:, None], one_hot(np.zeros(len(rep), int)))
    np.testing.assert_allclose(weighted.bandwidth, repeated.bandwidth, rtol=1e-10)


def test_one_row_or_no_spread_gets_the_floor():
    X = np.array([[5.0, 1.0], [7.0, 1.0], [7.0, 1.0], [9.0, 1.0]])
    R = one_hot(np.array([0, 1, 1, 2]))
    for shared in (True, False):
        family = Kernel(shared_bandwidth=shared, min_bandwidth=1e-2)
        params = fitted(family, X, R)
        assert np.all(np.isfinite(params.bandwidth))
        assert np.all(params.bandwidth > 0)
        lp = family.log_prob(params, np.array([[7.0, 1.0], [6.0, 2.0]]))
        assert np.all(np.isfinite(lp))
        assert lp[0].argmax() == 1
    h = fitted(Kernel(shared_bandwidth=False, min_bandwidth=1e-2), X, R).bandwidth
    sigma_all = X[:, 0].std()
    np.testing.assert_allclose(h[:, 0], 1e-2 * sigma_all)  # one row / constant in every class
    # A feature constant everywhere: any positive scale; the classes' densities are equal.
    np.testing.assert_allclose(h[:, 1], 1e-2 * 1.0)


def test_shared_bandwidth_is_the_weighted_mean_of_the_class_rules():
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal(0, 1, (300, 2)), rng.normal(0, 3, (100, 2))]
    R = one_hot(np.r_[np.zeros(300, int), np.ones(100, int)])
    own = fitted(Kernel(shared_bandwidth=False), X, R).bandwidth
    shared = fitted(Kernel(), X, R).bandwidth
    np.testing.assert_allclose(shared, np.broadcast_to((300 * own[0] + 100 * own[1]) / 400, (2, 2)))


def exact_loo(x: np.ndarray, h: float, params: KernelParams, a: float) -> float:
    kernel = KERNELS["gaussian"].density((x[:, None] - x[None, :]) / h) / h
    np.fill_diagonal(kernel, 0.0)
    g = np.exp(log_cauchy(x, params.tail_loc[0], params.tail_scale[0]))
    return float(np.log((kernel.sum(axis=1) + a * g) / (len(x) - 1 + a)).sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cv_maximises_the_leave_one_out_likelihood(seed):
    x = bimodal(seed, 200)
    X, R = x[:, None], one_hot(np.zeros(len(x), int))
    base = fitted(Kernel(), X, R)
    chosen = fitted(Kernel(bandwidth="cv"), X, R).bandwidth[0, 0]
    silverman = base.bandwidth[0, 0]
    scores = {f: exact_loo(x, f * silverman, base, 1.0) for f in bw.CV_FACTORS}
    best = max(scores.values())
    assert exact_loo(x, chosen, base, 1.0) >= best - 1e-3 * abs(best)
    # Two separated modes of different widths: Silverman's rule oversmooths the narrow one.
    assert chosen < silverman


def test_cv_with_one_row_keeps_the_rule():
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    R = one_hot(np.array([0, 0, 0, 1]))
    family = Kernel(bandwidth="cv", shared_bandwidth=False)
    cv = fitted(family, X, R).bandwidth
    rule = fitted(Kernel(shared_bandwidth=False), X, R).bandwidth
    assert cv[1, 0] == rule[1, 0]


def test_missing_values_are_left_out_of_the_density():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(120, 2))
    y = rng.integers(0, 2, 120)
    X[rng.random(120) < 0.3, 0] = np.nan
    family = Kernel()
    params = fitted(family, X, one_hot(y))
    observed = ~np.isnan(X[:, 0])
    alone = fitted(family, X[observed, :1], one_hot(y[observed]))
    np.testing.assert_allclose(params.weight[:, 0], np.bincount(y[observed]))
    at = np.linspace(-3, 3, 50)[:, None]
    np.testing.assert_allclose(
        family.log_prob(params, np.c_[at, np.full_like(at, np.nan)]),
        family.log_prob(alone, at),
        rtol=1e-12,
    )
    np.testing.assert_array_equal(family.log_prob(params, np.full((1, 2), np.nan)), 0.0)


def test_a_class_without_values_of_a_feature_gets_the_populations_density():
    """Class 2 never observes feature 0: its density there is the other classes' mixed in
    proportion to W + a (its own cell, the tail alone, is still tabulated as such)."""
    X = np.array([[0.0], [1.0], [4.0], [5.0], [6.0], [np.nan], [np.nan]])
    family = Kernel()
    params = fitted(family, X, one_hot(np.array([0, 0, 1, 1, 1, 2, 2])))
    at = np.array([-2.0, 0.5, 30.0, -1e140])
    assert params.points(2, 0).size == 0  # no grid: the compiled tail alone
    scored = family.log_prob(params, at[:, None])
    share = np.array([3.0, 4.0])  # W + a of the two classes that observed it
    expected = np.log(np.exp(scored[:, :2]) @ share / share.sum())
    np.testing.assert_allclose(scored[:, 2], expected, rtol=1e-12)
    tail = log_cauchy(at, params.tail_loc[0], params.tail_scale[0])
    # far out it is no longer the tail, wider than every class's: log(2a / Σ(W + a)) below
    np.testing.assert_allclose(scored[2:, 2] - tail[2:], np.log(2.0 / 7.0), rtol=1e-6)


def test_soft_labels_are_weights():
    rng = np.random.default_rng(8)
    x = rng.normal(size=200)
    resp = rng.dirichlet([1.0, 1.0], size=200)
    family = Kernel(shared_bandwidth=False, tail_weight=1e-12)
    soft = fitted(family, x[:, None], resp)
    at = np.linspace(-2, 2, 41)[:, None]
    for c in range(2):
        single = fitted(family, x[:, None], one_hot(np.zeros(200, int), resp[:, c]))
        assert soft.bandwidth[c, 0] == pytest.approx(single.bandwidth[0, 0], rel=1e-10)
        np.testing.assert_allclose(
            family.log_prob(soft, at)[:, c], family.log_prob(single, at)[:, 0], atol=1e-9
        )
    hard = np.eye(2)[(resp[:, 1] > 0.5).astype(int)]
    np.testing.assert_allclose(
        family.log_prob(fitted(family, x[:, None], hard), at),
        family.log_prob(fitted(family, x[:, None], sp.csr_matrix(hard)), at),
        rtol=1e-12,
    )


samples = st.integers(0, 10_000).map(
    lambda seed: (
        np.random.default_rng(seed).normal(size=(30, 2)),
        np.random.default_rng(seed + 1).integers(0, 2, 30),
    )
)


@pytest.mark.parametrize("bandwidth", ["silverman", "cv"])
@given(data=samples, cut=st.integers(1, 29), cut2=st.integers(1, 29))
def test_samples_add_like_data(bandwidth, data, cut, cut2):
    X, y = data
    family = Kernel(bandwidth=bandwidth, grid_size=256)
    lo, hi = sorted((cut, cut2))
    parts = [
        family.summarize(X[s], one_hot(y[s], k=2))
        for s in (slice(0, lo), slice(lo, hi), slice(hi, 30))
    ]
    a, b, c = parts
    whole = family.summarize(X, one_hot(y, k=2))
    at = np.random.default_rng(0).normal(size=(25, 2)) * 2
    ref = family.log_prob(family.finalize(whole), at)
    for total in (a + b + c, c + b + a, (a + b) + c, a + (b + c), sum(parts)):
        np.testing.assert_allclose(
            family.log_prob(family.finalize(total), at), ref, rtol=1e-9, atol=1e-9
        )
    # Removing c's rows leaves the sample of a and b.
    left = (whole + (-c)).without_empty(1e-9)
    np.testing.assert_allclose(
        family.log_prob(family.finalize(left), at),
        family.log_prob(family.finalize(a + b), at),
        rtol=1e-9,
        atol=1e-9,
    )


def test_uncancelled_removal_is_netted_in_finalize():
    X = np.array([[0.0], [1.0], [2.0], [5.0]])
    R = one_hot(np.array([0, 0, 1, 1]))
    family = Kernel()
    whole = family.summarize(X, R)
    removed = whole + (-family.summarize(X[3:], R[3:]))
    at = np.linspace(-1, 6, 15)[:, None]
    np.testing.assert_allclose(
        family.log_prob(family.finalize(removed), at),
        family.log_prob(family.finalize(family.summarize(X[:3], R[:3])), at),
        rtol=1e-12,
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"bandwidth": 0}, "bandwidth=0 is not accepted"),
        ({"bandwidth": -0.5}, "bandwidth=-0.5"),
        ({"bandwidth": float("inf")}, "bandwidth=inf"),
        ({"bandwidth": float("nan")}, "bandwidth=nan"),
        ({"bandwidth": True}, "bandwidth=True"),
        ({"bandwidth": "wide"}, "bandwidth='wide' is not a known rule"),
        ({"kernel": "box"}, "kernel='box' is not a known kernel; use one of"),
        ({"grid_size": 4}, "grid_size=4"),
        ({"grid_size": 100.5}, "grid_size=100.5"),
        ({"tail_weight": 0}, "tail_weight=0"),
        ({"min_bandwidth": -1}, "min_bandwidth=-1"),
    ],
)
def test_bad_hyperparameters(settings, message):
    family = Kernel(**settings)
    stats = family.summarize(np.array([[0.0], [1.0]]), one_hot(np.array([0, 1])))
    with pytest.raises(ParameterError, match=message):
        family.finalize(stats)


def test_infinite_and_overflowing_values_are_refused():
    with pytest.raises(DataError, match=r"X contains inf at row 1, column 0"):
        Kernel().validate(np.array([[0.0], [np.inf]]), ["0"])
    with pytest.raises(DataError, match=r"-1e\+200 at row 1, column 0 .* rescale"):
        Kernel().validate(np.array([[0.0], [-1e200]]), ["0"])


def test_config_rebuilds_the_family():
    family = Kernel("cosine", bandwidth=np.float64(0.3), grid_size=512, shared_bandwidth=False)
    assert FAMILIES["kernel"] is Kernel
    rebuilt = family_from_config("kernel", family.config())
    assert rebuilt.config() == family.config()
    assert type(rebuilt.config()["bandwidth"]) is float
    X, R = np.array([[0.0], [1.0], [3.0]]), one_hot(np.array([0, 0, 1]))
    stats = family.summarize(X, R)
    assert isinstance(stats, Sample)
    np.testing.assert_array_equal(
        family.log_prob(family.finalize(stats), X), rebuilt.log_prob(rebuilt.finalize(stats), X)
    )
