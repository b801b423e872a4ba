"""Whole numbers held as objects are codes as they are in an integer array.

A column with None beside its numbers (pandas keeps it as objects) or a batch of an object
frame held the same numbers as an integer array, yet was read as labels: its categories were
the values seen, not ``0 … max code``, so a model streamed from an integer batch then an object
one changed its smoothing, and every prediction, mid-stream.
"""

import numpy as np
import pandas as pd
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

from bayeskit.naive_bayes import CategoricalNB

rng = np.random.default_rng(0)
X = rng.choice([0, 3, 7, 9, 12], size=(120, 3))
y = rng.integers(0, 2, 120)


def test_object_integers_are_codes_with_scikit_learns_numbers():
    as_objects = CategoricalNB().fit(X.astype(object), y)
    reference = SkCategoricalNB().fit(X, y)
    np.testing.assert_allclose(as_objects.predict_proba(X), reference.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(as_objects.n_categories_, reference.n_categories_)


def test_a_stream_of_integer_then_object_batches_is_fit_on_all():
    held = X.astype(object)
    held[70, 1] = None  # a missing value: the batch is held as objects
    streamed = CategoricalNB().partial_fit(X[:60], y[:60], classes=[0, 1])
    streamed.partial_fit(held[60:], y[60:])
    whole = CategoricalNB().fit(held, y)
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(streamed.n_categories_, [13, 13, 13])


def test_a_pandas_column_with_none_keeps_its_codes():
    frame = pd.DataFrame({f"f{j}": pd.Series(X[:, j].tolist(), dtype=object) for j in range(3)})
    frame.loc[5, "f0"] = None
    model = CategoricalNB().fit(frame, y)
    np.testing.assert_array_equal(model.n_categories_, [13, 13, 13])


def test_bools_and_mixed_objects_stay_labels():
    flags = np.array([True, False] * 60, dtype=object).reshape(-1, 1)
    assert CategoricalNB().fit(flags, y).n_categories_.tolist() == [2]
    mixed = np.array([1, "a", 12] * 40, dtype=object).reshape(-1, 1)
    assert CategoricalNB().fit(mixed, y).n_categories_.tolist() == [3]
    huge = np.array([2**70, 1] * 60, dtype=object).reshape(-1, 1)
    assert CategoricalNB().fit(huge, y).n_categories_.tolist() == [2]
