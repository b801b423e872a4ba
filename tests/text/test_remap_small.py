"""The numpy remap used for a few documents equals the compiled one."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayeskit.text import _row_kernels as kernels
from bayeskit.text._count_matrices import remap_rows_small


@settings(max_examples=60, deadline=None)
@given(
    dense=st.integers(1, 6).flatmap(
        lambda rows: st.integers(1, 10).flatmap(
            lambda cols: arrays(np.float64, (rows, cols), elements=st.sampled_from([0.0, 1, 2, 7]))
        )
    ),
    data=st.data(),
)
def test_numpy_remap_equals_the_kernel(dense, data):
    counts = sp.csr_matrix(dense)
    n_terms = dense.shape[1]
    known = np.asarray(data.draw(st.lists(st.booleans(), min_size=n_terms, max_size=n_terms)))
    column = np.full(n_terms, -1, np.int64)
    column[known] = np.arange(known.sum())
    for oov in (-1, int(known.sum())):
        ours = remap_rows_small(counts, column, oov)
        compiled = kernels.remap_rows(
            counts.indptr.astype(np.int64), counts.indices, counts.data, column, oov
        )
        for a, b in zip(ours, compiled, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
