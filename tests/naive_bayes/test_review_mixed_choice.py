"""A hostile review of MixedNB's choice of a family per column: the values a user's table may
hold where the chosen family does not fit, refused by name; and the choice itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError

rng = np.random.default_rng(11)
N = 200
Y = np.repeat(np.array(["a", "b"]), N // 2)


def _flags() -> pd.DataFrame:
    present = np.where(Y == "a", rng.random(N) < 0.8, rng.random(N) < 0.2)
    return pd.DataFrame({"x": rng.normal(Y == "a", 1.0), "member": present})


FLAGS = _flags()


@pytest.mark.parametrize("value", [2, 0.5, -1, 7.0])
def test_a_boolean_column_refuses_another_number_by_name(value):
    """A column of True/False gets the Bernoulli family. Fed 2, 0.5 or -1 (a column of
    another table, a code), it used to read them as True above 0 and False at or below it,
    and gave a confident answer; it is refused, naming the column, the row and the value,
    at predict and at partial_fit, and the model is left as it was."""
    model = bk.MixedNB(numeric="gaussian").fit(FLAGS, Y)
    assert model.feature_families_["member"] == "bernoulli"
    before = model.predict_joint_log_proba(FLAGS)
    bad = pd.DataFrame({"x": [0.0, 0.1], "member": [1, value]})
    with pytest.raises(DataError, match=r"column 1 \('member'\) holds .* at row 1.*True/False"):
        model.predict(bad)
    with pytest.raises(BayeskitError, match="'member'") as refused:
        model.partial_fit(bad, ["a", "b"])
    assert isinstance(refused.value, ValueError)
    np.testing.assert_array_equal(model.predict_joint_log_proba(FLAGS), before)


def test_a_boolean_column_takes_bools_and_their_numbers_alike():
    model = bk.MixedNB(numeric="gaussian").fit(FLAGS, Y)
    as_bools = pd.DataFrame({"x": [0.0, 0.0, 0.0], "member": [True, False, None]})
    as_numbers = pd.DataFrame({"x": [0.0, 0.0, 0.0], "member": [1.0, 0.0, np.nan]})
    np.testing.assert_array_equal(model.predict_proba(as_bools), model.predict_proba(as_numbers))


def test_a_threshold_given_in_options_still_binarizes():
    model = bk.MixedNB(numeric="gaussian", options={"bernoulli": {"binarize": 0.0}}).fit(FLAGS, Y)
    probe = pd.DataFrame({"x": [0.0, 0.0], "member": [2.0, 1.0]})
    proba = model.predict_proba(probe)
    np.testing.assert_allclose(proba[0], proba[1])
