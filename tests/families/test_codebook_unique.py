"""The categories of a text column are found by a stable sort: the same as ``np.unique``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.families._codebook import Table, discover_codes


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "B", "é", "", "ab", "a b", "10", "9"]), min_size=1))
def test_categories_of_a_text_column_are_numpys(cells):
    column = np.array(cells, dtype=object)
    values, inverse = np.unique(column, return_inverse=True)
    (cats,), codes = discover_codes(Table([column], ["f"]))
    assert cats.tolist() == values.tolist()
    np.testing.assert_array_equal(codes[:, 0], inverse)
