"""The numpy passes of small tables (bayesnet._small) against the compiled kernels that run
beyond NUMPY_WORK: the same counts to the last bit, the same network scores to the last bit,
AODE's to rounding."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import bayeskit as bk
from bayeskit.bayesnet import _estimator, _family, _small
from bayeskit.families._codebook import Table

VALUES = np.array(["a", "b", "c", "d"], dtype=object)


@st.composite
def coded(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes −1…3 with −1 missing, class labels, weights with some zeros)."""
    n = draw(st.integers(1, 40))
    d = draw(st.integers(1, 5))
    codes = draw(arrays(np.int64, (n, d), elements=st.integers(-1, 3)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 2)))
    w = draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 0.25, 1.0, 3.0, 1e-3])))
    return codes, y, w


def _table(codes: np.ndarray) -> Table:
    X = np.where(codes >= 0, VALUES[np.maximum(codes, 0)], None).astype(object)
    return Table(list(X.T), [f"x{j}" for j in range(X.shape[1])])


def _both(monkeypatch: pytest.MonkeyPatch, run):  # type: ignore[no-untyped-def]
    """``run()`` by the numpy passes, then by the compiled kernels."""
    small = run()
    with monkeypatch.context() as m:
        m.setattr(_small, "NUMPY_WORK", -1)
        compiled = run()
    return small, compiled


@settings(max_examples=60, deadline=None)
@given(coded(), st.sampled_from([_family.TAN(), _family.KDB(k=2), _family.KDB(k=3)]))
def test_counts_equal_the_kernels_to_the_last_bit(data, family):
    codes, y, w = data
    monkeypatch = pytest.MonkeyPatch()
    X = _table(codes)
    hard = sp.csr_matrix((w, y, np.arange(len(y) + 1)), shape=(len(y), 3))
    soft = np.random.default_rng(len(y)).dirichlet(np.ones(3), len(y)) * w[:, None]
    for R in (hard, soft):
        small, compiled = _both(monkeypatch, lambda R=R: family.summarize(X, R))
        for a, b in zip(small.categories, compiled.categories, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(small.counts, compiled.counts)


@settings(max_examples=60, deadline=None)
@given(coded(), st.sampled_from(["mean", "mle"]), st.sampled_from([0.0, 1.0, 2.0]))
def test_scores_equal_the_kernels(data, estimate, m):
    codes, y, w = data
    X = _table(codes).columns
    X = np.stack(X, axis=1)
    monkeypatch = pytest.MonkeyPatch()
    networks = (bk.TANClassifier, lambda **kw: bk.KDBClassifier(k=2, **kw))
    for make in networks:
        model = make(alpha=0.5, estimate=estimate).fit(X, y, sample_weight=w + 1.0)
        small, compiled = _both(monkeypatch, lambda m=model: m.predict_joint_log_proba(X))
        np.testing.assert_array_equal(small, compiled)
    model = bk.AODEClassifier(m=m, estimate=estimate).fit(X, y, sample_weight=w + 1.0)
    small, compiled = _both(monkeypatch, lambda: model.predict_joint_log_proba(X))
    np.testing.assert_array_equal(np.isneginf(small), np.isneginf(compiled))
    finite = np.isfinite(compiled)
    np.testing.assert_allclose(small[finite], compiled[finite], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(
    "matrix",
    [
        np.array([[3, -2], [5, -2], [4, 7]]),
        np.array([[1.0, np.nan], [3.0, 2.0], [np.nan, np.nan]]),
        np.array([[True, False], [True, True]]),
        np.array([[0.5, 1.0], [2.0, 3.0]]),  # not whole: coded by sorting instead
        np.array([[np.nan], [np.nan]]),
    ],
)
def test_whole_number_codes_equal_the_kernels(matrix, monkeypatch):
    table = Table(list(matrix.T), [f"x{j}" for j in range(matrix.shape[1])], matrix)
    (cats, codes), (cats_k, codes_k) = _both(monkeypatch, lambda: _family.local_codes(table))
    np.testing.assert_array_equal(codes, codes_k)
    for a, b in zip(cats, cats_k, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


@settings(max_examples=40, deadline=None)
@given(coded())
def test_text_with_missing_values_reads_as_cell_by_cell(data):
    """An object table of text and None is read through its types at once; the model is the
    one the cell-by-cell reading gives (its categories, counts and scores)."""
    codes, y, w = data
    X = np.stack(_table(codes).columns, axis=1)
    assert _estimator.text_or_missing(X) is not None
    fast = bk.TANClassifier().fit(X, y, sample_weight=w + 1.0)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_estimator, "text_or_missing", lambda X: None)
        slow = bk.TANClassifier().fit(X, y, sample_weight=w + 1.0)
        expected = slow.predict_joint_log_proba(X[::-1])
    for a, b in zip(fast.categories_, slow.categories_, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    np.testing.assert_array_equal(fast.stats_.blocks[0].counts, slow.stats_.blocks[0].counts)
    np.testing.assert_array_equal(fast.predict_joint_log_proba(X[::-1]), expected)


def test_only_text_and_none_take_the_shortcut():
    assert _estimator.text_or_missing(np.array([["a", None]], dtype=object)) is not None
    for other in (1, 2.5, np.nan, True, np.str_("a")):
        assert _estimator.text_or_missing(np.array([["a", other]], dtype=object)) is None
    assert _estimator.text_or_missing(np.array([["a", "b"]])) is None  # already text
