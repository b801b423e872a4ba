"""The float twins of the calibration (a service checks one message at a time) are its numpy
math: the calibrated log-odds to the last bit, the probability to the last place or two
(any float)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from bayeskit.text import calibration

ANY = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


def _same(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


@given(score=ANY, a=ANY, b=ANY)
def test_calibrated_logit_of_one_float_is_numpys(score: float, a: float, b: float) -> None:
    with np.errstate(all="ignore"):
        expected = float(calibration.calibrated_logit(np.array([score]), (a, b))[0])
    assert _same(calibration.calibrated_logit_of(score, (a, b)), expected)


@given(z=st.floats(allow_nan=False, allow_infinity=True, allow_subnormal=True))
@example(z=-36.0).via("numpy's exp and log1p round differently from the C library's")
def test_expit_of_one_float_is_numpys_to_an_ulp(z: float) -> None:
    """The same formula; numpy's SIMD exp/log and the C library's may round differently in
    the last place (about 2 % of scores), so the two agree to 2 units in the last place."""
    with np.errstate(all="ignore"):
        expected = calibration.calibrated(np.array([z]), (1.0, 0.0))
    got = np.array([calibration.expit_of(z)])
    np.testing.assert_array_max_ulp(got, expected, maxulp=2)
    assert 0.0 <= got[0] <= 1.0
