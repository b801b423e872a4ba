"""The service's map of learned messages: every version reads as the dict it stands for, and
a new version leaves the old ones as they were (requests under way keep reading them)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.serve.learned import LearnedIndex

_digests = st.sampled_from([f"d{i}" for i in range(150)])
_batch = st.dictionaries(_digests, st.sampled_from(["spam", "ham", None]), max_size=6)


def _same(index: LearnedIndex, expected: dict[str, str]) -> None:
    assert dict(index) == expected
    assert index.to_dict() == expected
    assert len(index) == len(expected)
    assert sorted(index) == sorted(expected)
    for digest in [f"d{i}" for i in range(150)]:
        assert index.get(digest) == expected.get(digest)
        assert (digest in index) == (digest in expected)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(_digests, st.sampled_from(["spam", "ham"]), max_size=40),
    st.lists(_batch, max_size=120),
)
def test_every_version_reads_as_its_dict_and_old_ones_stay(
    start: dict[str, str], batches: list[dict[str, str | None]]
) -> None:
    versions = [(LearnedIndex(start), dict(start))]
    for changes in batches:
        index, expected = versions[-1]
        new_expected = dict(expected)
        for digest, label in changes.items():
            if label is None:
                new_expected.pop(digest, None)
            else:
                new_expected[digest] = label
        versions.append((index.updated(changes), new_expected))
    for index, expected in versions:  # the old versions too, after all the new ones
        _same(index, expected)


def test_many_learns_fold_the_changes_into_a_new_shared_map() -> None:
    index = LearnedIndex({f"old{i}": "ham" for i in range(10_000)})
    first = index
    for i in range(1_000):
        index = index.updated({f"new{i}": "spam", f"old{i}": None})
        # the changes kept beside the shared map stay about the square root of its size
        assert len(index._changes) <= 2 * 100 + 2
    assert len(index) == 10_000
    assert index.get("new999") == "spam"
    assert index.get("old999") is None
    assert index.get("old1000") == "ham"
    assert len(first) == 10_000
    assert first.get("old0") == "ham"
    assert first.get("new0") is None
