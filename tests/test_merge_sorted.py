"""merge_sorted: the union of two sorted category arrays and where each value lands, as
sorting them together gives it."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bayeskit._values import merge_sorted

words = st.text(st.sampled_from("abcé Z\u4e2d"), max_size=4)


def _sorted_object(values) -> np.ndarray:
    out = np.empty(len(set(values)), dtype=object)
    out[:] = sorted(set(values))
    return out


@given(a=st.lists(words, max_size=30), b=st.lists(words, max_size=30))
def test_text_terms_merge_as_sorting_together(a, b):
    a, b = _sorted_object(a), _sorted_object(b)
    union, where_a, where_b = merge_sorted(a, b)
    np.testing.assert_array_equal(union, _sorted_object([*a.tolist(), *b.tolist()]))
    np.testing.assert_array_equal(union[where_a], a)
    np.testing.assert_array_equal(union[where_b], b)


@given(a=st.sets(st.integers(-50, 50)), b=st.sets(st.integers(-50, 50)))
def test_numbers_merge_as_union1d(a, b):
    a, b = np.array(sorted(a), dtype=np.int64), np.array(sorted(b), dtype=np.int64)
    union, where_a, where_b = merge_sorted(a, b)
    np.testing.assert_array_equal(union, np.union1d(a, b))
    np.testing.assert_array_equal(union[where_a], a)
    np.testing.assert_array_equal(union[where_b], b)


def test_mixed_values_are_left_to_the_general_rule():
    mixed = np.array([1, "a"], dtype=object)
    assert merge_sorted(mixed, np.array(["b"], dtype=object)) is None
    assert merge_sorted(np.array([1, 2]), np.array([1.5])) is None
