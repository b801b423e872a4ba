"""Every bad input named in the issue raises a BayeskitError that says what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError, InputTypeError, ShapeError

from ._grid import ESTIMATORS

X = np.array([[1, 0, 2], [0, 3, 1], [2, 2, 0], [0, 1, 4]], dtype=float)
Y = np.array([0, 0, 1, 1])


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_counts(cls, sparse):
    bad = X.copy()
    bad[2, 1] = -3
    data = sp.csr_matrix(bad) if sparse else bad
    with pytest.raises(DataError, match=r"Negative values in data .* X\[2, 1\] = -3.0"):
        cls().fit(data, Y)
    model = cls().fit(X, Y)
    with pytest.raises(DataError, match=r"X\[2, 1\] = -3.0"):
        model.predict(data)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB, bk.BernoulliNB])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinite_values(cls, value):
    bad = X.copy()
    bad[1, 2] = value
    with pytest.raises(DataError, match=r"inf at row 1, column 2; .* finite numbers"):
        cls().fit(bad, Y)
    with pytest.raises(DataError, match="row 1, column 2"):
        cls().fit(X, Y).predict_proba(bad)


def test_infinite_named_by_dataframe_column():
    frame = pd.DataFrame(X, columns=["free", "money", "now"])
    frame.loc[3, "money"] = np.inf
    with pytest.raises(DataError, match=r"row 3, column 1 \('money'\)"):
        bk.MultinomialNB().fit(frame, Y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_wrong_number_of_columns_at_predict(cls):
    model = cls().fit(X, Y)
    with pytest.raises(ShapeError, match=r"X has 2 features, but .* is expecting 3 features"):
        model.predict(X[:, :2])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_empty_X(cls):
    with pytest.raises(ShapeError, match="0 sample"):
        cls().fit(np.empty((0, 3)), [])
    with pytest.raises(ShapeError, match="0 feature"):
        cls().fit(np.empty((4, 0)), Y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_X_and_y_of_different_lengths(cls):
    with pytest.raises(ShapeError, match="X has 4 rows but y has 3 entries"):
        cls().fit(X, Y[:3])
    with pytest.raises(ShapeError, match="X has 4 rows but y has 5 entries"):
        cls().partial_fit(X, np.arange(5))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_sample_weight(cls):
    with pytest.raises(DataError, match="sample_weight has shape"):
        cls().fit(X, Y, sample_weight=[1, 2])
    with pytest.raises(DataError, match=r"sample_weight\[1\] = -1.0"):
        cls().fit(X, Y, sample_weight=[1, -1, 1, 1])
    with pytest.raises(DataError, match="every sample_weight is zero"):
        cls().fit(X, Y, sample_weight=np.zeros(4))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_missing_or_continuous_labels(cls):
    with pytest.raises(DataError, match="requires y"):
        cls().fit(X, None)
    with pytest.raises(DataError, match="Unknown label type"):
        cls().fit(X, [0.5, 1.5, 2.5, 3.1])
    with pytest.raises(DataError, match=r"missing label .* at row 2"):
        cls().fit(X, np.array(["a", "b", None, "a"], dtype=object))


def test_text_where_numbers_are_needed():
    with pytest.raises(InputTypeError, match="takes numbers"):
        bk.MultinomialNB().fit([["a", "b"], ["c", "d"]], [0, 1])


def test_bernoulli_without_binarize_refuses_counts():
    with pytest.raises(DataError, match=r"binarize=None needs 0/1 features, but X\[0, 2\] = 2.0"):
        bk.BernoulliNB(binarize=None).fit(X, Y)


def test_sparse_input_to_categorical():
    with pytest.raises(InputTypeError, match="not a sparse matrix"):
        bk.CategoricalNB().fit(sp.csr_matrix(X), Y)


def test_categorical_refuses_infinity():
    with pytest.raises(DataError, match="a category must be a finite number"):
        bk.CategoricalNB().fit(np.array([[1.0], [np.inf]]), [0, 1])


def test_dataframe_columns_must_match():
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = bk.MultinomialNB().fit(frame, Y)
    with pytest.raises(BayeskitError, match="feature names"):
        model.predict(frame.rename(columns={"c": "z"}))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_one_dimensional_X(cls):
    with pytest.raises(ShapeError, match="Reshape your data"):
        cls().fit(np.array([1, 2, 3, 4]), Y)
