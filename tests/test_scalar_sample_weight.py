"""One sample_weight given for every row is checked as a weight of one row is: a negative,
NaN or infinite one is refused naming it (not as "no data" or "an overflow" further on), by
fit and partial_fit alike, and the model is left as it was."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import DataError
from bayeskit.text import TextClassifier

X = np.random.default_rng(0).normal(size=(100, 3))
Y = np.array(["a", "b"] * 50)
BAD = [-1.0, np.nan, np.inf, -np.inf, np.float32(-2.0), -3]


@pytest.mark.parametrize("weight", BAD, ids=repr)
def test_fit_refuses_a_scalar_weight_out_of_range_by_name(weight):
    model = bk.GaussianNB()
    with pytest.raises(DataError, match=rf"sample_weight = {float(weight)}; a weight must be"):
        model.fit(X, Y, sample_weight=weight)
    assert not model.__sklearn_is_fitted__()


@pytest.mark.parametrize("weight", BAD, ids=repr)
def test_partial_fit_refuses_a_scalar_weight_out_of_range_and_keeps_the_model(weight):
    model = bk.MultinomialNB().fit(np.abs(X), Y)
    before = dict(model.__dict__)
    with pytest.raises(DataError, match=rf"sample_weight = {float(weight)}; a weight must be"):
        model.partial_fit(np.abs(X), Y, sample_weight=weight)
    assert model.__dict__.keys() == before.keys()
    assert all(model.__dict__[k] is v for k, v in before.items())


def test_a_text_model_refuses_it_too():
    with pytest.raises(DataError, match=r"sample_weight = -1.0; a weight must be"):
        TextClassifier().fit(["cheap pills", "lunch at noon"], ["spam", "ham"], sample_weight=-1.0)


def test_a_scalar_weight_in_range_weighs_every_row_alike():
    model = bk.GaussianNB().fit(X, Y, sample_weight=2.5)
    np.testing.assert_allclose(model.class_count_, [125.0, 125.0])
    with pytest.raises(DataError, match="every sample_weight is zero"):
        bk.GaussianNB().fit(X, Y, sample_weight=0.0)
