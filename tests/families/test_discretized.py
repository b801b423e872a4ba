"""The discretized family: the cut points of each method, the interval probabilities, and the
laws that make fit, partial_fit, merge and unlearn one model."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.preprocessing import KBinsDiscretizer

from bayeskit.errors import DataError, ParameterError
from bayeskit.families._base import family_from_config
from bayeskit.families._mdl import Rows, entropy_bits, split_costs
from bayeskit.families.discretized import Discretized, DiscretizedParams, frequency_cuts
from bayeskit.stats import Sample

METHODS = ["mdl", "width", "frequency"]


def one_hot(y: np.ndarray, n_classes: int, weight: np.ndarray | None = None) -> sp.csr_matrix:
    n = len(y)
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    return sp.csr_matrix((w, np.asarray(y), np.arange(n + 1)), shape=(n, n_classes))


def fit(family: Discretized, X, y, weight=None, n_classes=None) -> DiscretizedParams:
    X = np.asarray(X, dtype=np.float64)
    X = X[:, None] if X.ndim == 1 else X
    y = np.asarray(y)
    R = one_hot(y, int(y.max()) + 1 if n_classes is None else n_classes, weight)
    return family.finalize(family.summarize(X, R))


def assert_same_params(a: DiscretizedParams, b: DiscretizedParams) -> None:
    """Bit for bit: the cut points and every count are sums in a fixed order."""
    np.testing.assert_array_equal(a.cut_offsets, b.cut_offsets)
    np.testing.assert_array_equal(a.cuts, b.cuts)
    np.testing.assert_array_equal(a.interval_count, b.interval_count)
    np.testing.assert_array_equal(a.feature_log_prob, b.feature_log_prob)


# ---------------------------------------------------------------------------------- MDL
def reference_mdl(x: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int) -> list[float]:
    """Fayyad & Irani's recursion written out plainly from the 1993 paper, one interval and
    one candidate at a time. The floating-point formulas are the module's own (so that exact
    ties between candidates resolve alike); the search and the recursion are independent."""
    values = np.unique(x)
    counts = np.zeros((len(values), n_classes))
    np.add.at(counts, (np.searchsorted(values, x), y), w)

    def ent(c: np.ndarray) -> float:
        return float(entropy_bits(c[None, :], np.array([c.sum()]))[0])

    def split(lo: int, hi: int) -> list[float]:
        if hi - lo < 2:
            return []
        whole = counts[lo:hi].sum(axis=0)
        N = whole.sum()
        best = None
        for i in range(lo, hi - 1):
            left, right = counts[lo : i + 1].sum(axis=0), counts[i + 1 : hi].sum(axis=0)
            n_left, n_right = np.array([left.sum()]), np.array([right.sum()])
            cost = float(split_costs(left[None], right[None], n_left, n_right)[0])
            if best is None or best[0] > cost:
                best = (cost, i, left, right)
        assert best is not None
        cost, i, left, right = best
        k, k1, k2 = (int((c > 0).sum()) for c in (whole, left, right))
        gain = ent(whole) - cost / np.log(2.0)
        delta = np.log2(3.0**k - 2.0) - (k * ent(whole) - k1 * ent(left) - k2 * ent(right))
        if N < 2 or not gain > (np.log2(N - 1) + delta) / N:
            return []
        cut = (values[i] + values[i + 1]) / 2
        return [*split(lo, i + 1), float(cut), *split(i + 1, hi)]

    return split(0, len(values))


def test_mdl_cuts_between_two_separated_classes():
    x = np.array([5.0, 1, 7, 3, 8, 2, 6, 4])
    y = (x > 4).astype(int)
    assert fit(Discretized("mdl"), x, y).cut_points(0).tolist() == [4.5]


def test_mdl_finds_the_best_of_several_boundaries():
    # Class 1 sits in the middle: two boundaries, both needed (the recursion finds the second).
    x = np.arange(30.0)
    y = np.r_[np.zeros(10), np.ones(10), np.full(10, 2)].astype(int)
    assert fit(Discretized("mdl"), x, y).cut_points(0).tolist() == [9.5, 19.5]
    # Class 1 in the middle of class 0: the first cut (at 19.5) gains 0.19 bits. On 30 rows
    # that does not pay for its description, (log2(29) + 3.08) / 30 = 0.26 bits; on the same
    # pattern with every row five times it does (0.07), and the left part is then cut too.
    y = np.r_[np.zeros(12), np.ones(8), np.zeros(10)].astype(int)
    assert fit(Discretized("mdl"), x, y).cut_points(0).size == 0
    params = fit(Discretized("mdl"), np.repeat(x, 5), np.repeat(y, 5))
    assert params.cut_points(0).tolist() == [11.5, 19.5]


def test_mdl_refuses_to_cut_a_feature_unrelated_to_the_class():
    x = np.arange(100.0)
    alternating = (np.arange(100) % 2).astype(int)
    assert fit(Discretized("mdl"), x, alternating).cut_points(0).size == 0
    rng = np.random.default_rng(7)
    noise = rng.normal(size=(600, 1))
    informative = np.where(rng.random(600) < 0.5, -1.0, 1.0)
    y = (informative > 0).astype(int)
    params = fit(Discretized("mdl"), np.column_stack([informative, noise]), y)
    assert params.cut_points(0).tolist() == [0.0]
    assert params.cut_points(1).size == 0
    # An uncut feature has one interval, probability 1 in every class: it drops out.
    np.testing.assert_array_equal(params.feature_log_prob[:, -1], 0.0)


def test_mdl_weight_counts_as_rows():
    # A perfect split of two rows pays for itself: gain 1 bit > (log2(1) + 0.81) / 2.
    assert fit(Discretized("mdl"), [0.0, 1.0], [0, 1]).cut_points(0).tolist() == [0.5]
    # Less than two rows' worth of weight is never cut (log2(N - 1) needs N >= 2) ...
    assert fit(Discretized("mdl"), [0.0, 1.0], [0, 1], [0.4, 0.4]).cut_points(0).size == 0
    # ... and a weight of k is k rows: 8 alternating rows are not cut, weighted up they are.
    x, y = np.arange(8.0), np.array([0, 0, 1, 0, 1, 1, 0, 1])
    assert fit(Discretized("mdl"), x, y).cut_points(0).size == 0
    heavy = fit(Discretized("mdl"), x, y, np.full(8, 40.0))
    assert heavy.cut_points(0).size > 0
    assert_same_params(heavy, fit(Discretized("mdl"), np.repeat(x, 40), np.repeat(y, 40)))


@given(
    st.lists(st.integers(0, 2), min_size=10, max_size=10),
    st.lists(
        st.tuples(st.integers(0, 9), st.integers(1, 5), st.booleans()), min_size=2, max_size=80
    ),
)
def test_mdl_matches_the_plain_recursion(class_of_value, rows):
    # Each value has a usual class, with some rows of another: structure worth cutting, noise.
    x, w, flip = (np.array(c) for c in zip(*rows, strict=True))
    y = (np.array(class_of_value)[x] + flip) % 3
    params = fit(Discretized("mdl"), x.astype(float), y, w, n_classes=3)
    assert params.cut_points(0).tolist() == reference_mdl(x.astype(float), y, w, 3)


@given(
    st.lists(st.floats(0.05, 5.0), min_size=2, max_size=40),
    st.lists(st.floats(0.05, 5.0), min_size=1, max_size=40),
)
def test_mdl_never_cuts_inside_a_run_of_one_class(weights_a, weights_b):
    # Fayyad & Irani: a cut inside a run of one class never minimises E; with fractional
    # weights a pure interval must still have entropy exactly 0 and stay whole.
    w = np.array(weights_a + weights_b)
    x = np.arange(len(w), dtype=float)
    y = (x >= len(weights_a)).astype(int)
    cuts = fit(Discretized("mdl"), x, y, w).cut_points(0).tolist()
    assert cuts in ([], [len(weights_a) - 0.5])


@pytest.mark.parametrize("below", [1.0, 2.0, 0.0, -np.spacing(0.0), 1e308, -1e308, 3.5])
def test_mdl_cut_between_adjacent_floats_separates_them(below):
    # The midpoint of two adjacent floats rounds onto one of them; the cut must still put
    # the lower value below it and the upper one above (x >= cut).
    above = np.nextafter(below, np.inf)
    x = np.repeat([below, above], 20)
    family = Discretized("mdl")
    params = fit(family, x, np.repeat([0, 1], 20))
    assert params.cuts.size == 1
    assert below < params.cuts[0] <= above
    np.testing.assert_array_equal(params.interval_count, [[20, 0], [0, 20]])


# ------------------------------------------------------------------------- width, frequency
def test_width_cuts_are_numpy_linspace_and_kbins_uniform():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(101, 4)) * [1, 10, 1e-3, 5] + [0, 3, -2, 100]
    y = rng.integers(0, 2, size=101)
    params = fit(Discretized("width", n_bins=7), X, y)
    kbins = KBinsDiscretizer(n_bins=7, encode="ordinal", strategy="uniform").fit(X)
    for j in range(4):
        expected = np.linspace(X[:, j].min(), X[:, j].max(), 8)[1:-1]
        np.testing.assert_array_equal(params.cut_points(j), expected)
        np.testing.assert_array_equal(params.cut_points(j), kbins.bin_edges_[j][1:-1])


def test_frequency_cuts_are_numpy_inverted_cdf_quantiles():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(103, 3))  # 103 rows: no quantile level falls exactly on a row
    y = rng.integers(0, 3, size=103)
    q = np.arange(1, 5) / 5
    params = fit(Discretized("frequency", n_bins=5), X, y)
    kbins = KBinsDiscretizer(
        n_bins=5, encode="ordinal", strategy="quantile", quantile_method="inverted_cdf"
    ).fit(X)
    for j in range(3):
        expected = np.quantile(X[:, j], q, method="inverted_cdf")
        np.testing.assert_array_equal(params.cut_points(j), expected)
        np.testing.assert_array_equal(params.cut_points(j), kbins.bin_edges_[j][1:-1])


@given(st.lists(st.integers(1, 12), min_size=5, max_size=60), st.integers(1, 8))
def test_weighted_frequency_cuts_are_weighted_quantiles(weights, n_bins):
    w = np.array(weights, dtype=np.float64)
    x = np.random.default_rng(len(w)).normal(size=len(w))
    params = fit(Discretized("frequency", n_bins=n_bins), x, np.zeros(len(w), int), w)
    q = np.arange(1, n_bins) / n_bins
    quantiles = np.quantile(x, q, weights=w, method="inverted_cdf")
    # Repeats and a cut at the minimum would leave an empty interval: they are dropped.
    expected = sorted(set(quantiles[quantiles > x.min()].tolist()))
    assert params.cut_points(0).tolist() == expected
    repeated = fit(
        Discretized("frequency", n_bins=n_bins), np.repeat(x, weights), np.zeros(int(w.sum()), int)
    )
    assert_same_params(params, repeated)


@given(
    st.lists(st.one_of(st.integers(0, 6), st.just(-1)), min_size=1, max_size=60),
    st.integers(1, 12),
)
def test_frequency_equal_weights_shortcut_is_the_weighted_rule(cells, n_bins):
    # Rows of equal whole weight take a shortcut (shares are counts); it must agree with the
    # running-sum rule that weighted rows follow, ties and missing values included.
    x = np.array(cells, dtype=float)
    x[x < 0] = np.nan
    X = np.column_stack([x, x[::-1]])
    W = np.full((1, len(x)), 3.0)
    fast = frequency_cuts(Rows(W, X, False), n_bins)
    general = frequency_cuts(Rows(W, X, True), n_bins)
    for a, b in zip(fast, general, strict=True):
        np.testing.assert_array_equal(a, b)
    for j in range(2):
        seen = X[:, j][~np.isnan(X[:, j])]
        if seen.size:
            # numpy's weighted definition: its unweighted inverted_cdf rounds n·q instead,
            # which differs where n·q is a whole number (42 rows, q = 9/14).
            levels = np.arange(1, n_bins) / n_bins
            weights = np.ones(len(seen))
            q = np.quantile(seen, levels, weights=weights, method="inverted_cdf")
            expected = sorted(set(q[q > seen.min()].tolist()))
            assert sorted(fast[1][fast[0] == j].tolist()) == expected


def test_frequency_with_ties_leaves_no_empty_interval():
    rng = np.random.default_rng(2)
    x = np.where(rng.random(500) < 0.7, 0.0, rng.integers(1, 4, size=500).astype(float))
    x[:5] = 9.0
    params = fit(Discretized("frequency", n_bins=10), x, rng.integers(0, 2, size=500))
    cuts = params.cut_points(0)
    assert np.all(np.diff(cuts) > 0)
    assert cuts[0] > 0.0
    assert np.all(params.interval_count.sum(axis=0) > 0)
    assert len(cuts) < 9


@pytest.mark.parametrize("method", METHODS)
def test_constant_missing_and_single_bin_features_have_one_interval(method):
    X = np.array([[1.0, 2.0, np.nan, 0.0], [1.0, 5.0, np.nan, 1.0], [1.0, 9.0, np.nan, 2.0]] * 5)
    y = np.array([0, 1, 1] * 5)
    params = fit(Discretized(method, n_bins=3), X, y)
    assert params.cut_points(0).size == 0
    assert params.cut_points(2).size == 0
    np.testing.assert_array_equal(params.interval_count[:, params.interval_offsets[2]], 0.0)
    one = fit(Discretized(method, n_bins=1), X, y)
    if method != "mdl":
        assert one.cuts.size == 0


@pytest.mark.parametrize("method", METHODS)
def test_empty_sample_has_one_interval_per_feature(method):
    # What is left after every row is removed: nothing to cut, every factor 1.
    params = Discretized(method).finalize(Sample(np.zeros((2, 0)), np.zeros((0, 3))))
    assert params.cuts.size == 0
    np.testing.assert_array_equal(params.feature_log_prob, np.zeros((2, 3)))


# ---------------------------------------------------------------------------------- scoring
def test_interval_probabilities_and_log_prob():
    x = np.array([0.0, 1, 2, 3, 4, 5, 6, 7, 8, 10])
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1, 1])
    family = Discretized("width", n_bins=5, alpha=0.5)
    params = fit(family, x, y)
    assert params.cut_points(0).tolist() == [2.0, 4.0, 6.0, 8.0]
    counts = np.array([[2, 2, 1, 0, 0], [0, 0, 1, 2, 2]], dtype=float)
    np.testing.assert_array_equal(params.interval_count, counts)
    theta = (counts + 0.5) / (counts.sum(axis=1, keepdims=True) + 0.5 * 5)
    np.testing.assert_allclose(np.exp(params.feature_log_prob), theta, rtol=1e-14)
    # Outside the range: the end intervals; on a cut: the interval above; NaN: factor 1.
    probe = np.array([[-100.0], [1.9999], [2.0], [8.0], [1e9], [np.nan]])
    expected = np.log(theta[:, [0, 0, 1, 4, 4]]).T
    out = family.log_prob(params, probe)
    np.testing.assert_allclose(out[:5], expected, rtol=1e-14)
    np.testing.assert_array_equal(out[5], 0.0)


@pytest.mark.parametrize("method", METHODS)
def test_probabilities_sum_to_one_per_feature(method):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (X[:, 0] > 0).astype(int) + (rng.random(200) < 0.3)
    params = fit(Discretized(method, n_bins=6), X, y)
    theta = np.exp(params.feature_log_prob)
    per_feature = np.add.reduceat(theta, params.interval_offsets[:-1], axis=1)
    np.testing.assert_allclose(per_feature, 1.0, rtol=1e-12)
    # Missing entries are left out of the counts.
    observed = ~np.isnan(X)
    for j in range(3):
        lo, hi = params.interval_offsets[j : j + 2]
        per_class = params.interval_count[:, lo:hi].sum(axis=1)
        np.testing.assert_array_equal(per_class, np.bincount(y[observed[:, j]], minlength=3))


def test_unsmoothed_estimate_and_soft_labels():
    x = np.array([[0.0], [1.0], [5.0], [6.0]])
    family = Discretized("width", n_bins=2, alpha=0.0, estimate="mle")
    params = fit(family, x, [0, 0, 1, 1])
    assert np.isneginf(params.feature_log_prob).sum() == 2
    out = family.log_prob(params, np.array([[0.5]]))
    assert out[0, 0] == 0.0
    assert np.isneginf(out[0, 1])
    # Soft responsibilities: every row counts in each class with its weight.
    R = np.array([[0.75, 0.25], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    soft = Discretized("width", n_bins=2).finalize(Sample.of(x, R))
    np.testing.assert_allclose(soft.interval_count, [[1.75, 0.5], [0.25, 1.5]], rtol=1e-15)


# ---------------------------------------------------------------------------------- laws
finite = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 1))
blocks = st.lists(
    st.tuples(
        st.lists(st.one_of(finite, st.just(np.nan)), min_size=2, max_size=2),
        st.integers(0, 2),
        st.floats(0.1, 3.0),
    ),
    min_size=1,
    max_size=25,
)


def block(rows) -> Sample:
    X = np.array([r[0] for r in rows], dtype=np.float64)
    y = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    return Sample.of(X, one_hot(y, 3, w))


@pytest.mark.parametrize("method", METHODS)
@given(a=blocks, b=blocks, c=blocks)
def test_merge_laws_hold_exactly(method, a, b, c):
    family = Discretized(method, n_bins=4)
    sa, sb, sc = block(a), block(b), block(c)
    whole = family.finalize(block(a + b + c))
    assert_same_params(family.finalize(sa + sb + sc), whole)
    assert_same_params(family.finalize(sc + sb + sa), whole)
    assert_same_params(family.finalize(sa + (sb + sc)), family.finalize((sb + sa) + sc))


@pytest.mark.parametrize("method", METHODS)
@given(a=blocks, b=blocks)
def test_removing_rows_gives_the_sample_without_them(method, a, b):
    family = Discretized(method, n_bins=3)
    both = block(a) + block(b)
    left = (both + (-block(b))).without_empty(1e-9)
    kept = family.finalize(left)
    alone = family.finalize(block(a))
    np.testing.assert_array_equal(kept.cuts, alone.cuts)
    np.testing.assert_allclose(kept.interval_count, alone.interval_count, rtol=1e-12, atol=1e-12)


def test_fixed_order_of_tied_rows():
    # The same rows in another order: float weights summed in the same order all the same.
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(300, 2)).astype(float)
    R = one_hot(rng.integers(0, 2, size=300), 2, rng.random(300))
    perm = rng.permutation(300)
    for method in METHODS:
        family = Discretized(method, n_bins=3)
        assert_same_params(
            family.finalize(Sample.of(X, R)), family.finalize(Sample.of(X[perm], R[perm]))
        )


# ---------------------------------------------------------------------------------- settings
@pytest.mark.parametrize("n_bins", [0, -2, 2.5, True, "3", None])
def test_bad_n_bins(n_bins):
    with pytest.raises(ParameterError, match=r"n_bins must be an integer >= 1"):
        fit(Discretized("width", n_bins=n_bins), [1.0, 2.0], [0, 1])


def test_bad_method_alpha_estimate():
    with pytest.raises(ParameterError, match=r"method='kmeans' is not one of"):
        fit(Discretized("kmeans"), [1.0, 2.0], [0, 1])
    with pytest.raises(ParameterError, match="alpha must be >= 0"):
        fit(Discretized(alpha=-1.0), [1.0, 2.0], [0, 1])
    with pytest.raises(ParameterError, match="per-feature alpha"):
        fit(Discretized(alpha=[1.0, 2.0]), [1.0, 2.0], [0, 1])
    with pytest.raises(ParameterError, match="estimate='map' needs alpha >= 1"):
        fit(Discretized(alpha=0.5, estimate="map"), [1.0, 2.0], [0, 1])


def test_validate_refuses_inf_naming_the_cell():
    X = np.array([[1.0, 2.0], [3.0, -np.inf]])
    with pytest.raises(DataError, match=r"-inf at row 1, column 1 \('b'\)"):
        Discretized().validate(X, ["a", "b"])
    out = Discretized().validate(sp.csr_matrix(np.array([[0.0, np.nan]])), ["a", "b"])
    assert isinstance(out, np.ndarray)
    assert np.isnan(out[0, 1])


def test_config_rebuilds_the_family():
    family = Discretized("frequency", n_bins=np.int64(4), alpha=np.array([0.5, 2.0]))
    config = family.config()
    assert json.loads(json.dumps(config)) == config
    again = family_from_config("discretized", config)
    assert isinstance(again, Discretized)
    assert again.config() == config
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 0.0], [3.0, 5.0]])
    assert_same_params(fit(family, X, [0, 0, 1, 1]), fit(again, X, [0, 0, 1, 1]))
