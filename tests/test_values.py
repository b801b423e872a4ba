"""Sorted merges of category lists: the fast path for words equals the general one."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bayeskit._values import all_text, insert_sorted_text, merge_sorted_text, spread, union_sorted
from bayeskit.stats import CategoryCounts

words = st.lists(st.text(alphabet="abcé€\x00 Z\u4e2d", max_size=4), max_size=25, unique=True).map(
    lambda ws: np.array(sorted(ws), dtype=object)
)


@given(words, words)
def test_merge_sorted_text_is_the_sorted_union(a, b):
    union, pos_a, pos_b = merge_sorted_text(a, b)
    assert union.tolist() == sorted(set(a.tolist()) | set(b.tolist()))
    assert union.tolist() == union_sorted(a, b).tolist()
    assert union[pos_a].tolist() == a.tolist()
    assert union[pos_b].tolist() == b.tolist()


@given(words, words, st.integers(0, 2**32 - 1))
def test_adding_word_counts_is_exact(a, b, seed):
    rng = np.random.default_rng(seed)
    x = CategoryCounts((a,), rng.integers(0, 5, (2, len(a))).astype(float))
    y = CategoryCounts((b,), rng.integers(0, 5, (2, len(b))).astype(float))
    total = x + y
    expected: dict[str, np.ndarray] = {}
    for part in (x, y):
        for j, word in enumerate(part.categories[0].tolist()):
            expected[word] = expected.get(word, 0) + part.counts[:, j]
    assert total.categories[0].tolist() == sorted(expected)
    for j, word in enumerate(total.categories[0].tolist()):
        assert np.array_equal(total.counts[:, j], expected[word])


def test_numbers_and_mixed_values_are_left_to_the_general_rule():
    mixed = np.array([1, "a"], dtype=object)  # sorted: numbers before strings
    assert not all_text(mixed)
    assert not all_text(np.array([1.0, 2.5]))
    assert all_text(np.array(["a", "b"], dtype=object))
    x = CategoryCounts((mixed, np.array([1, 2])), np.array([[1.0, 2.0, 3.0, 4.0]]))
    y = CategoryCounts(
        (np.array([0.5, "b"], dtype=object), np.array([2, 3])), np.array([[10.0, 20.0, 30.0, 40.0]])
    )
    total = x + y
    assert [c.tolist() for c in total.categories] == [[0.5, 1, "a", "b"], [1, 2, 3]]
    assert total.counts.tolist() == [[10.0, 1.0, 2.0, 20.0, 3.0, 34.0, 40.0]]


@given(words, words, st.integers(0, 30))
def test_inserting_a_few_terms_is_the_merge(a, b, most):
    """insert_sorted_text: merge_sorted_text's union and positions of b, or None when more
    than ``most`` terms of b are new to a; spread inserts at those places as np.insert."""
    found = insert_sorted_text(a, b, most)
    new = set(b.tolist()) - set(a.tolist())
    if len(new) > most:
        assert found is None
        return
    assert found is not None
    union, where, pos_b = found
    merged, pos_a, merged_b = merge_sorted_text(a, b)
    assert union.tolist() == merged.tolist()
    assert pos_b.tolist() == merged_b.tolist()
    assert np.insert(a, where, sorted(new)).tolist() == union.tolist()
    counts = np.arange(2.0 * len(a)).reshape(2, len(a))
    np.testing.assert_array_equal(
        spread(counts, where, axis=1), np.insert(counts, where, 0.0, axis=1)
    )
    placed = np.zeros((2, len(union)))
    placed[:, pos_a] = counts
    np.testing.assert_array_equal(spread(counts, where, axis=1), placed)
