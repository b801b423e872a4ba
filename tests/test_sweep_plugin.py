"""The property-test sweep's counts (tests/_sweep.py)."""

from __future__ import annotations

import pytest

from ._sweep import _examples, swept


@pytest.mark.parametrize(
    ("own", "examples", "expected"),
    [
        (3, 400, 60),  # a small count: at least 60
        (20, 400, 200),  # ten times its own
        (100, 400, 400),  # at most the sweep's
        (1000, 400, 1000),  # never fewer than its own
    ],
)
def test_each_test_gets_more_examples_never_fewer(own, examples, expected):
    assert swept(own, examples) == expected


@pytest.mark.parametrize("given", ["0", "-5", "many", "1.5"])
def test_a_sweep_of_no_whole_positive_count_is_refused(monkeypatch, given):
    monkeypatch.setenv("BAYESKIT_SWEEP", given)
    with pytest.raises(ValueError, match="whole number of examples"):
        _examples()


def test_without_the_variable_the_plugin_is_inert(monkeypatch):
    monkeypatch.delenv("BAYESKIT_SWEEP", raising=False)
    assert _examples() is None
    monkeypatch.setenv("BAYESKIT_SWEEP", "250")
    assert _examples() == 250
