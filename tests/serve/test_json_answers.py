"""The service's JSON answers: written by orjson, read back as the standard library writes them.

Every answer goes through :func:`bayeskit.serve.answers.json_answer`. Whatever the content (the
floats of a check, NaN and infinities of an unsmoothed model, numpy scalars, keys that are not
text, integers beyond 64 bits, text that is not valid UTF-8), a client must read the same
values as from the standard library's encoder with non-finite numbers as null.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.serve.answers import _ENCODE_NULLS, _finite, json_answer

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
_content = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def _standard(content: Any) -> Any:
    """What the standard library's encoder writes, non-finite numbers as null, read back."""
    return json.loads(_ENCODE_NULLS(_finite(content)))


@settings(max_examples=300, deadline=None)
@given(_content)
def test_any_answer_reads_back_as_the_standard_librarys(content: Any) -> None:
    answer = json_answer(content)
    assert answer.media_type == "application/json"
    assert json.loads(answer.body) == _standard(content)


def test_non_finite_numbers_are_null_never_nan_text() -> None:
    body = json_answer({"log_odds": -math.inf, "p": [math.nan, math.inf, 0.5]}).body
    assert b"NaN" not in body
    assert b"Infinity" not in body
    assert json.loads(body) == {"log_odds": None, "p": [None, None, 0.5]}


def test_numpy_scalars_and_keys_that_are_not_text() -> None:
    body = json_answer({1: np.float64(0.25), "n": np.int64(3), "x": np.float64("nan")}).body
    assert json.loads(body) == {"1": 0.25, "n": 3, "x": None}


@pytest.mark.parametrize(
    "content",
    [{"big": 2**70}, {"text": "a\udc80b"}],
    ids=["integer beyond 64 bits", "lone surrogate"],
)
def test_what_orjson_declines_is_written_by_the_standard_library(content: Any) -> None:
    body = json_answer(content).body
    body.decode("ascii")  # (escaped: a lone surrogate has no UTF-8 bytes)
    assert json.loads(body) == content


def test_a_checks_floats_keep_every_digit() -> None:
    weights = [-1.8307831208495156, 0.0003991243438568584, 1e-05, 5e-324, 1.2345678901234568e17]
    assert json.loads(json_answer({"w": weights}).body)["w"] == weights
