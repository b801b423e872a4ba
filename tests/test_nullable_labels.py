"""Labels in pandas' nullable dtypes are the values they hold, not floats.

scikit-learn's check turns an ``Int64`` label column 1, 2 into the classes 1.0, 2.0 and a
``boolean`` one into 0.0, 1.0; a user who wrote integers or booleans reads them back.
"""

import numpy as np
import pandas as pd
import pytest

from bayeskit import MixedNB
from bayeskit.errors import DataError
from bayeskit.naive_bayes import BernoulliNB, GaussianNB

X = np.random.default_rng(0).normal(size=(40, 3))


@pytest.mark.parametrize(
    ("labels", "dtype", "kind"),
    [
        ([1, 2] * 20, "Int64", "i"),
        ([7, 300] * 20, "UInt16", "u"),
        ([True, False] * 20, "boolean", "b"),
        ([1.0, 2.0] * 20, "Float64", "f"),
    ],
)
@pytest.mark.parametrize("Model", [GaussianNB, BernoulliNB])
def test_classes_keep_the_dtype_the_labels_hold(labels, dtype, kind, Model):
    y = pd.Series(labels, dtype=dtype)
    model = Model().fit(X, y)
    plain = Model().fit(X, np.asarray(labels))
    assert model.classes_.dtype.kind == kind
    np.testing.assert_array_equal(model.classes_, plain.classes_)
    assert model.predict(X).dtype.kind == kind
    np.testing.assert_array_equal(model.predict(X), plain.predict(X))
    assert model.score(X, y) == plain.score(X, np.asarray(labels))


def test_partial_fit_takes_nullable_classes_and_batches():
    y = pd.Series([1, 2, 3, 4] * 10, dtype="Int64")
    model = GaussianNB()
    model.partial_fit(X[:20], y[:20], classes=pd.array([1, 2, 3, 4], dtype="Int64"))
    model.partial_fit(X[20:], y[20:])
    whole = GaussianNB().fit(X, np.asarray(y, dtype=np.int64))
    np.testing.assert_array_equal(model.classes_, [1, 2, 3, 4])
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_a_table_model_reads_a_nullable_label_column():
    frame = pd.DataFrame({"a": X[:, 0], "b": pd.Series([1, 2, 3, 4] * 10, dtype="Int64")})
    y = pd.Series([1, 2] * 20, dtype="Int64")
    assert MixedNB().fit(frame, y).classes_.tolist() == [1, 2]


def test_a_missing_nullable_label_is_refused_by_row():
    y = pd.Series([1, 2, 1, None] * 10, dtype="Int64")
    model = GaussianNB().fit(X, np.array([1, 2] * 20))
    before = model.predict_proba(X)
    with pytest.raises(DataError, match=r"missing label \(NA\) at row 3"):
        model.fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), before)
