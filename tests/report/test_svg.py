"""The SVG building blocks: tick choice, curve thinning, colours, escaping."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from bayeskit.report.charts import BLUES, blue
from bayeskit.report.svg import Frame, clip_text, esc, fmt_tick, nice_ticks, thin

finite = st.floats(-1e6, 1e6, allow_nan=False)


@given(finite, st.floats(1e-6, 1e6), st.integers(2, 8))
def test_ticks_are_round_evenly_spaced_and_inside_the_range(lo, span, n):
    assume(span > 1e-6 * abs(lo))  # a chart's range is never below float resolution
    hi = lo + span
    ticks = nice_ticks(lo, hi, n)
    assert 1 <= len(ticks) <= 2.5 * n + 2
    tol = 1e-9 * max(abs(lo), abs(hi), span)
    assert all(lo - tol <= t <= hi + tol for t in ticks)
    if len(ticks) > 1:
        steps = np.diff(ticks)
        assert np.allclose(steps, steps[0], rtol=1e-6)
        mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
        assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 5, 10))
        # at least a third of the range is covered by ticks: the axis is readable
        assert ticks[-1] - ticks[0] >= span / 3 - tol


def test_ticks_of_an_empty_range():
    assert nice_ticks(2.0, 2.0) == [2.0]
    assert nice_ticks(float("nan"), 1.0) == []


def test_tick_labels_are_short():
    assert [fmt_tick(v) for v in (0, 0.25, 3, 1500, 25000, 0.0001, -0.5)] == [
        "0", "0.25", "3", "1.5k", "2e4", "1e-4", "-0.5"
    ]  # fmt: skip


@given(st.lists(st.floats(0, 400), min_size=3, max_size=200))
def test_thinning_keeps_the_ends_and_drops_only_repeats(xs):
    x = np.sort(np.asarray(xs))
    y = np.sqrt(x)
    tx, ty = thin(x, y)
    assert (tx[0], ty[0], tx[-1], ty[-1]) == (x[0], y[0], x[-1], y[-1])
    # every dropped point shares its half-pixel cell with the point before it
    kept = set(zip(np.round(tx / 0.5), np.round(ty / 0.5), strict=True))
    assert set(zip(np.round(x / 0.5), np.round(y / 0.5), strict=True)) <= kept


def test_frame_maps_data_to_the_plotting_area_with_y_up():
    f = Frame(400, 300, (0.0, 10.0), (-1.0, 1.0), margin=(20, 10, 30, 50))
    assert f.px(0.0) == 50
    assert f.px(10.0) == 390
    assert f.py(-1.0) == 270
    assert f.py(1.0) == 20


def test_blues_runs_from_the_first_to_the_last_stop():
    assert blue(0.0) == BLUES[0]
    assert blue(1.0) == BLUES[-1]
    assert blue(-3) == BLUES[0]
    assert blue(7) == BLUES[-1]
    darkness = [sum(int(blue(f)[i : i + 2], 16) for i in (1, 3, 5)) for f in np.linspace(0, 1, 9)]
    assert darkness == sorted(darkness, reverse=True)


def test_escaping_and_clipping():
    assert esc("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;"
    assert clip_text("a  very\nlong label", 8) == "a very …"
    assert clip_text("short", 8) == "short"
