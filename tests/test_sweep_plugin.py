"""The property-test sweep's counts (tests/_sweep.py)."""

from __future__ import annotations

import pytest

from ._sweep import swept


@pytest.mark.parametrize(
    ("own", "examples", "expected"),
    [
        (None, 400, 400),  # the profile's count: the sweep's
        (3, 400, 60),  # a small count: at least 60
        (20, 400, 200),  # ten times its own
        (100, 400, 400),  # at most the sweep's
        (1000, 400, 1000),  # never fewer than its own
    ],
)
def test_each_test_gets_more_examples_never_fewer(own, examples, expected):
    assert swept(own, examples) == expected
