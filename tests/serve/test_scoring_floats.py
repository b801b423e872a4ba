"""The check's float math is the model's numpy math, to the last bit (any float)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from bayeskit.serve import scoring
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
    assert _same(scoring._calibrated_logit(score, (a, b)), expected)


@given(z=st.floats(allow_nan=False, allow_infinity=True, allow_subnormal=True))
def test_expit_of_one_float_is_numpys(z: float) -> None:
    with np.errstate(all="ignore"):
        expected = float(calibration.calibrated(np.array([z]), (1.0, 0.0))[0])
    assert _same(scoring._expit(z), expected)
