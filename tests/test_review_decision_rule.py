"""The decision rule, as a review found it: explain's default class is predict's, class weights
and a loss matrix together, pandas settings read by their labels, a loss of all zeros, and
prior_alpha checked whether used or not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.inspection import explain
from bayeskit.text import TextClassifier

X = np.array([[3, 0, 1], [2, 0, 0], [0, 4, 1], [0, 3, 2], [1, 1, 5], [0, 1, 4]])
Y = np.array(["a", "a", "b", "b", "c", "c"])
HAM_ROW = np.array([[2, 1, 0]])


def two_class():
    X2 = np.array([[3, 0], [2, 1], [0, 3], [1, 2]])
    return X2, np.array(["ham", "ham", "spam", "spam"])


@pytest.mark.parametrize(
    "settings", [{"loss": [[0, 100], [1, 0]]}, {"class_weight": {"spam": 100}}], ids=str
)
def test_explain_by_default_explains_the_decision(settings):
    """P(ham) 0.86: a loss or class weights decide spam, and explain explained ham."""
    X2, y2 = two_class()
    model = bk.MultinomialNB(**settings).fit(X2, y2)
    row = np.array([2, 1])
    assert model.predict_proba([row])[0, 0] > 0.7
    assert model.predict([row])[0] == "spam"
    e = explain(model, row)
    assert (e.label, e.versus) == ("spam", "ham")
    assert explain(model, row, versus="spam").label == "ham"  # (the decision is versus)
    text = TextClassifier(model=bk.MultinomialNB(class_weight={"spam": 50})).fit(
        ["cash prize now", "free cash", "lunch at noon", "see you at lunch", "lunch notes"],
        ["spam", "spam", "ham", "ham", "ham"],
    )
    message = "lunch cash"
    assert text.explain(message).label == text.predict([message])[0]


def test_class_weights_count_under_a_loss_matrix():
    """With both, class weights were ignored: the 0-1 loss beside them undid them."""
    X2, y2 = two_class()
    weighted = bk.MultinomialNB(class_weight={"spam": 100}).fit(X2, y2)
    both = bk.MultinomialNB(class_weight={"spam": 100}, loss=[[0, 1], [1, 0]]).fit(X2, y2)
    rows = np.array([[2, 1], [1, 1], [0, 2], [3, 0]])
    np.testing.assert_array_equal(both.predict(rows), weighted.predict(rows))
    lam = np.array([1.0, 100.0])
    np.testing.assert_allclose(
        both.predict_risk(rows), (both.predict_proba(rows) * lam) @ np.array([[0, 1], [1, 0]]).T
    )


def test_pandas_settings_are_read_by_their_labels():
    weight = pd.Series({"c": 1000.0, "a": 1.0, "b": 1.0})
    np.testing.assert_array_equal(
        bk.MultinomialNB(class_weight=weight).fit(X, Y).predict(X),
        bk.MultinomialNB(class_weight=weight.to_dict()).fit(X, Y).predict(X),
    )
    prior = pd.Series({"c": 0.98, "a": 0.01, "b": 0.01})
    model = bk.MultinomialNB(class_prior=prior).fit(X, Y)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.01, 0.01, 0.98])
    loss = pd.DataFrame(np.ones((3, 3)) - np.eye(3), index=list("cba"), columns=list("cba"))
    loss.loc["a", "c"] = 1000.0  # deciding a when the truth is c
    plain = np.ones((3, 3)) - np.eye(3)
    plain[0, 2] = 1000.0
    np.testing.assert_allclose(
        bk.MultinomialNB(loss=loss).fit(X, Y).predict_risk(X),
        bk.MultinomialNB(loss=plain).fit(X, Y).predict_risk(X),
    )
    # positions (a default index) are read as positions
    by_position = pd.Series([0.2, 0.3, 0.5])
    model = bk.MultinomialNB(class_prior=by_position).fit(X, Y)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.2, 0.3, 0.5])
    with pytest.raises(ParameterError, match=r"labelled \['x', 'y', 'z'\]"):
        bk.MultinomialNB(class_prior=pd.Series([0.2, 0.3, 0.5], index=list("xyz"))).fit(X, Y)


def test_a_loss_that_decides_nothing_is_refused():
    with pytest.raises(ParameterError, match="0 everywhere"):
        bk.MultinomialNB(loss=np.zeros((3, 3))).fit(X, Y)
    with pytest.raises(ParameterError, match="real numbers"):
        bk.MultinomialNB(loss=(np.ones((3, 3)) - np.eye(3)) * (1 + 1j)).fit(X, Y)
    one = bk.MultinomialNB(loss=[[0.0]]).fit(X[:2], Y[:2])  # (one class: nothing to decide)
    assert (one.predict(X) == "a").all()


@pytest.mark.parametrize(
    "settings",
    [
        {"fit_prior": False, "prior_alpha": -5},
        {"class_prior": [0.5, 0.25, 0.25], "prior_alpha": "x"},
    ],
    ids=str,
)
def test_prior_alpha_is_checked_even_where_unused(settings):
    with pytest.raises(ParameterError, match="prior_alpha must be >= 0"):
        bk.MultinomialNB(**settings).fit(X, Y)
