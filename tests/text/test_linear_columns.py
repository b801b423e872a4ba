"""``linear_form(columns=…)``: a few columns of a model's linear weights, which a text model
over a large vocabulary gives from its structured weights without making the whole array."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import InputTypeError, ParameterError
from bayeskit.families import _structured
from bayeskit.text import SpamFilter, TextClassifier


@pytest.fixture(scope="module")
def sms():
    texts, labels = load_sms_spam()
    return texts[:1500], labels[:1500]


@pytest.mark.parametrize("structured", [False, True])
@pytest.mark.parametrize(
    "make", [TextClassifier, SpamFilter, lambda: TextClassifier(model=bk.MultinomialNB())]
)
def test_the_columns_are_those_of_the_whole_array(sms, monkeypatch, make, structured):
    if structured:  # every model kept structured, however small
        monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)
    model = make().fit(*sms)
    W, b = model.linear_form()
    rng = np.random.default_rng(0)
    index = rng.choice(W.shape[1], size=40, replace=False)
    for columns in (index, np.sort(index), index.tolist(), [int(W.shape[1] - 1)], []):
        Wc, bc = model.linear_form(columns=columns)
        np.testing.assert_array_equal(bc, b)
        assert Wc.shape == (W.shape[0], len(columns))
        if structured:  # (the structured sums round differently in the last bits)
            np.testing.assert_allclose(Wc, W[:, columns], rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(Wc, W[:, columns])


def test_a_structured_model_gives_its_columns_without_its_whole_array(sms, monkeypatch):
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)
    model = TextClassifier().fit(*sms)
    params = model.fitted_parts()[1]._fitted().params[0]
    assert params.weights is not None
    before = model.linear_form(columns=[0, 3])[0]
    assert "feature_log_prob" not in params.__dict__  # the full array was not made
    model.linear_form()  # ... and once it is, the columns are the same numbers
    np.testing.assert_array_equal(model.linear_form(columns=[0, 3])[0], before)


@settings(max_examples=25, deadline=None)
@given(columns=st.lists(st.integers(0, 10), min_size=1, max_size=8))
def test_a_table_models_columns_are_its_whole_arrays(columns):
    # several blocks (presences beside categories): the columns of the stacked W
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 2, (60, 3)), rng.integers(0, 3, (60, 2))]).astype(float)
    y = rng.integers(0, 2, 60)
    model = bk.MixedNB(
        families={
            0: "bernoulli",
            1: "bernoulli",
            2: "bernoulli",
            3: "categorical",
            4: "categorical",
        }
    ).fit(X, y)
    W, b = model.linear_form()
    assert W.shape[1] >= max(columns) + 1
    Wc, bc = model.linear_form(columns=columns)
    np.testing.assert_array_equal(Wc, W[:, columns])
    np.testing.assert_array_equal(bc, b)


@pytest.mark.parametrize(
    ("columns", "error", "match"),
    [
        ([0.5, 1.0], InputTypeError, "column numbers"),
        ([[0, 1]], InputTypeError, "one-dimensional"),
        (["a"], InputTypeError, "column numbers"),
        ([True, False], InputTypeError, "column numbers"),
        ([-1], ParameterError, "got -1"),
        ([10**9], ParameterError, "got 1000000000"),
    ],
)
@pytest.mark.parametrize("structured", [False, True])
def test_columns_outside_the_model_are_refused_by_name(
    sms, monkeypatch, columns, error, match, structured
):
    if structured:
        monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)
    model = TextClassifier().fit(*sms)
    with pytest.raises(error, match=match):
        model.linear_form(columns=columns)
