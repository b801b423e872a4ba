"""The compiled weighing of document rows and the radix sort of the scanner's term keys give
numpy's numbers exactly: the column scaling and L2 norms of ``output="tfidf"`` on a large
matrix, and the sorted keys of a vocabulary's terms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st

from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextVectorizer, _table_kernels
from bayeskit.text import _count_matrices as count_matrices
from bayeskit.text._count_matrices import row_sums_of_squares, scale_and_l2_normalize


def _numpy_steps(X, idf, weights):
    """What ``output="tfidf"`` did with numpy before the kernel: scale, then divide by the
    rows' L2 norms."""
    X = X.copy()
    if idf is not None:
        X.data *= idf[X.indices]
    if weights is not None:
        X.data *= weights[X.indices]
    size = np.sqrt(row_sums_of_squares(X))
    size[size == 0] = 1.0
    X.data /= np.repeat(size, np.diff(X.indptr))
    return X


@st.composite
def _rows(draw):
    """A CSR matrix of log counts whose rows cross the pairwise summation's block sizes (8,
    128 and beyond), with empty rows, and column factors spanning many magnitudes."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_columns = draw(st.integers(1, 700))
    lengths = rng.choice([0, 1, 7, 8, 9, 127, 128, 129, 300, 700], size=draw(st.integers(1, 12)))
    lengths = np.minimum(lengths, n_columns)
    indices = np.concatenate(
        [np.sort(rng.choice(n_columns, k, replace=False)) for k in lengths] or [[]]
    ).astype(np.int32)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    data = np.log(rng.integers(1, 60, indices.size).astype(float)) + 1.0
    X = sp.csr_matrix((data, indices, indptr), shape=(len(lengths), n_columns))
    scale = draw(st.sampled_from([1e-160, 1e-3, 1.0, 1e100]))
    idf = rng.uniform(0.5, 3.0, n_columns) if draw(st.booleans()) else None
    weights = rng.uniform(0.1, 2.0, n_columns) * scale if draw(st.booleans()) else None
    return X, idf, weights


@given(_rows())
@example((sp.csr_matrix((0, 4)), None, None)).via("no rows")
def test_weighing_by_kernel_is_numpys(drawn):
    X, idf, weights = drawn
    expected = _numpy_steps(X, idf, weights)
    for threshold in (0, count_matrices.KERNEL_WEIGH_NNZ):  # the kernel, then numpy
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(count_matrices, "KERNEL_WEIGH_NNZ", threshold)
            got = X.copy()
            scale_and_l2_normalize(got, idf, weights)
        assert np.array_equal(got.data, expected.data)
        assert np.array_equal(got.indices, X.indices)
        assert np.array_equal(got.indptr, X.indptr)


def test_a_square_that_underflows_or_rows_out_of_order_take_numpys_sums(monkeypatch):
    """numpy sums the product matrix where a square is 0 (the product drops it) or a row's
    columns are out of order; the kernel's sums stand for its own only when neither is so."""
    monkeypatch.setattr(count_matrices, "KERNEL_WEIGH_NNZ", 0)
    X = TextVectorizer(output="counts").fit_transform(load_sms_spam()[0][:400]).astype(float)
    tiny = X.copy()
    tiny.data[::50] = 1e-170  # its square is 0.0
    shuffled = X.copy()
    shuffled.indices[:2] = shuffled.indices[:2][::-1].copy()  # row 0 out of order
    shuffled.has_canonical_format = False
    for Y in (tiny, shuffled):
        expected = _numpy_steps(Y, None, None)
        got = Y.copy()
        scale_and_l2_normalize(got, None, None)
        assert np.array_equal(got.data, expected.data)


@pytest.mark.parametrize("norm_kind", ["l2", "l1", None])
def test_tfidf_output_on_a_large_batch_is_the_numpy_steps(monkeypatch, norm_kind):
    """The vectorizer's weights through the kernel (a batch over the threshold) and through
    numpy (a threshold above it) agree bit for bit, with idf and n-gram weights."""
    texts = load_sms_spam()[0]
    make = lambda: TextVectorizer(  # noqa: E731
        output="tfidf", use_idf=True, sublinear_tf=True, norm=norm_kind, ngram_range=(1, 2),
        ngram_weights=(1.0, 0.7),
    )  # fmt: skip
    fast = make().fit_transform(texts)
    assert fast.nnz >= count_matrices.KERNEL_WEIGH_NNZ
    monkeypatch.setattr(count_matrices, "KERNEL_WEIGH_NNZ", 1 << 62)
    slow = make().fit_transform(texts)
    assert np.array_equal(fast.data, slow.data)
    assert np.array_equal(fast.indices, slow.indices)


@given(
    n=st.integers(0, 5000),
    bits=st.integers(1, 63),
    seed=st.integers(0, 2**32 - 1),
)
@example(n=1, bits=63, seed=0).via("the widest key")
def test_radix_sort_is_numpys_sort(n, bits, seed):
    rng = np.random.default_rng(seed)
    keys = (
        rng.integers(0, 2**bits, n, dtype=np.int64)
        if bits < 63
        else rng.integers(0, np.iinfo(np.int64).max, n, dtype=np.int64)
    )
    if n > 3 and seed % 2:
        keys[: n // 3] = keys[-1]  # repeated keys
    before = keys.copy()
    assert np.array_equal(_table_kernels.radix_sort(keys, bits), np.sort(keys))
    assert np.array_equal(keys, before)  # the input is left as it was


def test_counts_given_up_become_the_weighed_rows():
    """``weigh(own=True)`` weighs the float64 counts in place: the same numbers as a copy's,
    and no copy of the matrix; without it the counts are left as they were."""
    texts = load_sms_spam()[0][:3000]
    vectorizer = TextVectorizer(
        output="tfidf", use_idf=False, sublinear_tf=True, ngram_range=(1, 2)
    )
    terms, counts = vectorizer.count(texts)
    kept = counts.copy()
    copied = vectorizer.weigh(counts, terms=terms)
    assert np.array_equal(counts.data, kept.data)  # not given up: untouched
    weighed = vectorizer.weigh(counts, terms=terms, own=True)
    assert weighed is counts
    assert np.array_equal(weighed.data, copied.data)
