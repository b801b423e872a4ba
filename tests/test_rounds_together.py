"""Fits by rounds run side by side (bayeskit._rounds.together): each pass over the parts serves
one round of every fit still going, each fit gets the totals it would get alone, and the passes
are those of the longest fit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit._rounds import Part, Round, Rounds, add_parts, together
from bayeskit.errors import DataError


def scaled_sum(state, X, y, weight):
    return (float(state * np.sum(X)),), None


def count_rows(state, X, y, weight):
    return (np.array([len(X)]),), "schema"


def summing_fit(scales: list[float]) -> Rounds:
    """A fit of ``len(scales)`` rounds: the row count first, then the sum of the values times
    each scale; returns what it was sent."""
    seen = []
    total = yield Round(None, count_rows)
    seen.append((int(total.values[0][0]), total.schema))
    for scale in scales:
        total = yield Round(scale, scaled_sum)
        seen.append(total.values[0])
    return seen


def drive(fit: Rounds, parts: list[np.ndarray]) -> tuple[object, int]:
    """Run ``fit`` over ``parts``: (its result, the passes over the parts)."""
    passes = 0
    try:
        step = next(fit)
        while True:
            passes += 1
            totals = []
            for i, X in enumerate(parts):
                values, schema = step.summarize(step.state, X, None, None)
                totals.append(Part(i, values, schema))
            step = fit.send(add_parts(*totals))
    except StopIteration as stop:
        return stop.value, passes


@settings(max_examples=40, deadline=None)
@given(
    plans=st.lists(st.lists(st.floats(-3, 3), max_size=5), min_size=1, max_size=4),
    cuts=st.lists(st.integers(0, 30), max_size=3),
)
def test_fits_together_get_what_they_get_alone(plans, cuts):
    X = np.arange(30, dtype=float)
    bounds = [0, *sorted(cuts), 30]
    parts = [X[a:b] for a, b in itertools.pairwise(bounds)]
    alone = [drive(summing_fit(p), parts) for p in plans]
    both, passes = drive(together([summing_fit(p) for p in plans]), parts)
    assert both == [result for result, _ in alone]
    assert passes == max(n for _, n in alone)


def test_a_fit_that_fails_stops_them_all_with_its_error():
    def failing() -> Rounds:
        yield Round(None, count_rows)
        raise DataError("no rows left")

    with pytest.raises(DataError, match="no rows left"):
        drive(together([summing_fit([1.0, 2.0]), failing()]), [np.ones(3)])


def test_fits_without_rounds_return_at_once():
    def immediate() -> Rounds:
        return "done"
        yield  # a generator

    assert drive(together([immediate(), immediate()]), [np.ones(2)]) == (["done", "done"], 0)
