"""One value read two ways — the number 3 beside the text ``"3"`` in one categorical column,
as when a batch or a part of the data was read as text and another as numbers — is refused
by name wherever the statistics meet (fit, partial_fit, adding models), where it was learned
as two categories: a model streamed from a numeric batch and then a text one split every
value's counts in two, silently."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit import MixedNB
from bayeskit.errors import DataError
from bayeskit.naive_bayes import CategoricalNB

X = np.array([[1, 2], [3, 2], [1, 5], [3, 5]] * 5)
y = np.array([0, 0, 1, 1] * 5)
SAYS = "column 'x0' holds both the number {} and the text '{}'"


def test_a_text_batch_beside_a_numeric_model_is_refused_and_the_model_kept():
    model = CategoricalNB().partial_fit(X, y, classes=[0, 1])
    before = model.predict_proba(X)
    with pytest.raises(DataError, match=SAYS.format(1, 1)):
        model.partial_fit(np.array([["3", "2"], ["1", "5"]], dtype=object), [1, 0])
    assert [c.tolist() for c in model.categories_] == [[1, 3], [2, 5]]
    np.testing.assert_array_equal(model.predict_proba(X), before)
    # the same batch as numbers is learned, as fit on both batches gives
    model.partial_fit(np.array([[3, 2], [1, 5]]), [1, 0])
    whole = CategoricalNB().fit(np.vstack([X, [[3, 2], [1, 5]]]), np.r_[y, 1, 0])
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_a_numeric_batch_beside_a_text_model_is_refused():
    model = CategoricalNB().fit(X.astype(str), y)
    with pytest.raises(DataError, match=SAYS.format(3.0, 3)):
        model.partial_fit(np.array([[3.0, 2.0]]), [1])


@pytest.mark.parametrize(
    ("column", "number", "text"), [([3, "3", "x"], 3, "3"), ([2.0, "2", 7], 2.0, "2")]
)
def test_one_fit_of_a_column_holding_both_spellings_is_refused(column, number, text):
    Xo = np.array(column, dtype=object).reshape(-1, 1)
    with pytest.raises(DataError, match=SAYS.format(number, text)):
        CategoricalNB().fit(Xo, [0, 1, 1])


def test_adding_models_of_the_two_readings_is_refused():
    numbers = CategoricalNB().fit(X, y)
    texts = CategoricalNB().fit(X.astype(str).astype(object), y)
    with pytest.raises(DataError, match=SAYS.format(1, 1)):
        numbers + texts


def test_mixednb_names_the_frame_column():
    frame = pd.DataFrame({"colour": ["red", "blue"] * 10, "size": pd.array([1, 2, 3, 4] * 5)})
    frame["size"] = frame["size"].astype(object)
    model = MixedNB(families={"colour": "categorical", "size": "categorical"})
    model.partial_fit(frame, y, classes=[0, 1])
    batch = pd.DataFrame({"colour": ["red"], "size": ["2"]})
    with pytest.raises(DataError, match="column 'size' holds both the number 2 and the text '2'"):
        model.partial_fit(batch, [1])


@settings(max_examples=200, deadline=None)
@given(
    numbers=st.lists(st.integers(-50, 50), min_size=1, max_size=6),
    words=st.lists(st.text("abcxyz", min_size=1, max_size=4), min_size=1, max_size=6),
)
def test_numbers_beside_words_that_spell_no_number_are_learned(numbers, words):
    """The refusal is only of a value spelled both ways: other mixed columns are learned,
    each value its own category."""
    column = np.array(numbers + words, dtype=object).reshape(-1, 1)
    labels = np.arange(len(column)) % 2
    model = CategoricalNB().fit(column, labels)
    assert len(model.categories_[0]) == len(set(numbers)) + len(set(words))
