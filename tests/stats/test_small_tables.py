"""A small table is summarized, counted and rescored by numpy, not the compiled loops (whose
import and compiler cost half a second): the same numbers, bit for bit, whatever the
weights, missing values and scales."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bayeskit.families import _categorical_kernels as cat
from bayeskit.families import _gaussian_refine as gr
from bayeskit.stats import moments

values = st.one_of(
    st.floats(-1e150, 1e150, allow_nan=False, width=64),
    st.floats(-1e-300, 1e-300, width=64),
    st.just(np.nan),
    st.just(-0.0),
)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 60),
    d=st.integers(1, 5),
    k=st.integers(1, 4),
)
def test_numpy_moments_are_the_compiled_ones_bit_for_bit(data, n, d, k):
    X = data.draw(hnp.arrays(np.float64, (n, d), elements=values))
    codes = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    w = data.draw(
        hnp.arrays(
            np.float64,
            n,
            elements=st.one_of(st.floats(0, 1e308), st.sampled_from([0.0, 1.0, 2.0, 3.0])),
        )
    )
    with np.errstate(all="ignore"):  # both overflow alike on weights near 1e308
        ours = moments._labelled_moments_small(X, codes, w, k)
        compiled = moments._labelled_moments(X, codes, w, k)
    for a, b in zip(ours, compiled, strict=True):
        np.testing.assert_array_equal(a, b)
        assert (np.signbit(a) == np.signbit(b)).all()


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), d=st.integers(1, 5), k=st.integers(1, 4))
def test_numpy_rescoring_is_the_compiled_one_bit_for_bit(data, n, d, k):
    """Rows near the mean of a class of tiny variance: pairs the expansion cannot score are
    rescored, by the same sums in the same order."""
    theta = data.draw(hnp.arrays(np.float64, (k, d), elements=st.floats(-1e3, 1e3)))
    sd = data.draw(hnp.arrays(np.float64, (k, d), elements=st.sampled_from([1e-9, 1e-3, 1.0])))
    precision = 1.0 / sd**2
    precision[data.draw(hnp.arrays(bool, (k, d)))] = 0.0  # features never seen in a class
    log_norm = np.log(2 * np.pi * sd**2)
    noise = data.draw(hnp.arrays(np.float64, (n, d), elements=st.floats(-1e-6, 1e-6)))
    X = theta[data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))] + noise
    X[data.draw(hnp.arrays(bool, (n, d)))] = np.nan
    jll = data.draw(hnp.arrays(np.float64, (n, k), elements=st.floats(-1e12, 1e12)))
    U2_rows = np.nansum(X * X, axis=1)
    offset_terms = 0.5 * (theta**2 * precision).sum(axis=1)
    ours = gr.refine(jll.copy(), X, U2_rows, theta, precision, offset_terms, log_norm)
    compiled = jll.copy()
    top = precision.max(axis=1, initial=0.0)
    gr._refine(X, U2_rows, top, offset_terms, theta, precision, log_norm, compiled)
    np.testing.assert_array_equal(ours, compiled)
    assert (np.signbit(ours) == np.signbit(compiled)).all()


codes_or_missing = st.one_of(st.integers(-2, 6).map(float), st.just(np.nan), st.just(2.5))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), d=st.integers(1, 4), k=st.integers(1, 3))
def test_numpy_category_counts_are_the_compiled_ones_bit_for_bit(data, n, d, k):
    """A small categorical table's ranges and weighted counts (codes, NaN, negative codes
    as missing, fractional and huge weights): numpy's pass gives the compiled loop's answer."""
    floats = data.draw(st.booleans())
    X = data.draw(
        hnp.arrays(np.float64, (n, d), elements=codes_or_missing)
        if floats
        else hnp.arrays(np.int64, (n, d), elements=st.integers(-1, 6))
    )
    ours_range = cat.value_range(X)
    compiled_range = cat.column_range(X)
    assert ours_range[2] == compiled_range[2]
    if not compiled_range[2]:
        return
    for a, b in zip(ours_range[:2], compiled_range[:2], strict=True):
        np.testing.assert_array_equal(a, b)
    lo, hi, _ = compiled_range
    empty = lo > hi
    lo = np.where(empty, 0, lo)
    span = np.where(empty, 0, hi - lo + 1)
    base = np.concatenate([[0], np.cumsum(span)])
    y = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    w = data.draw(hnp.arrays(np.float64, n, elements=st.one_of(st.floats(0, 1e300), st.just(0.1))))
    ours = cat.key_counts(X, y, w, lo, base[:-1], k, int(base[-1]))
    compiled = cat.count_keys(X, y, w, lo, base[:-1], k, int(base[-1]))
    np.testing.assert_array_equal(ours, compiled)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 30),
    d=st.integers(1, 4),
    k=st.integers(1, 3),
    unseen=st.sampled_from([cat.SMOOTH, cat.IGNORE, cat.ERROR]),
)
def test_numpy_category_scores_are_the_compiled_ones_bit_for_bit(data, n, d, k, unseen):
    """Rows of codes (seen, unseen, out of range, fractional, missing) scored against a table
    of log-probabilities: the same sums, and the same first unseen feature under ERROR."""
    X = data.draw(hnp.arrays(np.float64, (n, d), elements=codes_or_missing))
    lo = data.draw(hnp.arrays(np.int64, d, elements=st.integers(-1, 1)))
    span = data.draw(hnp.arrays(np.int64, d, elements=st.integers(0, 5)))
    base = np.concatenate([[0], np.cumsum(span)])[:-1]
    groups = int(span.sum())
    lut = data.draw(hnp.arrays(np.int64, max(groups, 1), elements=st.integers(-1, groups - 1)))
    table = data.draw(
        hnp.arrays(np.float64, (groups + d, k), elements=st.floats(-1e3, 0, width=64))
    )
    start = data.draw(hnp.arrays(np.float64, (n, k), elements=st.floats(-1e3, 0, width=64)))
    bad0 = data.draw(hnp.arrays(np.int64, n, elements=st.sampled_from([0, 0, 2])))
    ours, ours_bad = start.copy(), bad0.copy()
    cat.score_small(X, lo, span, base, lut, table, unseen, ours, ours_bad)
    compiled, compiled_bad = start.copy(), bad0.copy()
    cat.score_serial(X, lo, span, base, lut, table, unseen, compiled, compiled_bad)
    np.testing.assert_array_equal(ours, compiled)
    np.testing.assert_array_equal(ours_bad, compiled_bad)


def test_many_classes_score_a_small_table_without_a_large_temporary():
    """4,000 rows × 4 codes × 40 classes: the (row, feature, class) terms would be 640,000
    floats, so the compiled loop scores them; the same numbers as the serial kernel."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, (4000, 4)).astype(np.float64)
    lo, span = np.zeros(4, np.int64), np.full(4, 5)
    base = np.arange(4) * 5
    lut = np.arange(20)
    table = -rng.random((24, 40))
    ours, compiled = np.zeros((4000, 40)), np.zeros((4000, 40))
    bad, bad_compiled = np.zeros(4000, np.int64), np.zeros(4000, np.int64)
    cat.score(X, lo, span, base, lut, table, cat.SMOOTH, ours, bad)
    cat.score_serial(X, lo, span, base, lut, table, cat.SMOOTH, compiled, bad_compiled)
    np.testing.assert_array_equal(ours, compiled)
