"""UsefulnessSelector and feature_usefulness: refused calls change nothing, classes of no
weight and missing values take no part, the settings are checked once, and the selector
passes scikit-learn's estimator checks with the tags it declares."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayeskit as bk
from bayeskit.errors import DataError, ParameterError, ShapeError
from bayeskit.inspection import UsefulnessSelector, feature_usefulness
from bayeskit.text import TextClassifier

X = np.array([[3, 1, 0], [2, 1, 0], [0, 1, 2], [0, 1, 3]])
Y = [0, 0, 1, 1]


@parametrize_with_checks([UsefulnessSelector(k=1), UsefulnessSelector(threshold=0.6)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def fitted_state(selector):
    return {
        k: (v.copy() if hasattr(v, "copy") else v)
        for k, v in vars(selector).items()
        if k.endswith("_")
    }


def assert_same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize(
    "settings",
    [{"k": 0}, {"k": True}, {"k": 2.0}, {"threshold": "0.6"}, {"threshold": np.nan},
     {"threshold": np.inf}, {"alpha": -1.0}, {"prior": "flat"}],
    ids=str,
)  # fmt: skip
def test_a_refused_fit_leaves_the_selector_as_it_was(settings):
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    selector = UsefulnessSelector(k=2).fit(frame, Y)
    before = fitted_state(selector)
    with pytest.raises(ParameterError):
        selector.set_params(**settings).fit(np.hstack([X, X]), Y)
    assert_same_state(fitted_state(selector), before)
    # the fitted selector still transforms what it was fitted on
    assert selector.set_params(k=2, threshold=None, alpha=1.0, prior="uniform").transform(
        frame
    ).shape == (4, 2)


def test_one_class_is_refused_naming_it():
    with pytest.raises(DataError, match=r"one class only, \[0\]"):
        UsefulnessSelector(k=1).fit(X, [0, 0, 0, 0])


def test_k_above_the_number_of_features_keeps_them_all():
    assert UsefulnessSelector(k=10).fit(X, Y).get_support().all()


def test_transform_checks_the_width_and_keeps_missing_values():
    selector = UsefulnessSelector(k=2).fit(X, Y)
    with pytest.raises(ShapeError, match="X has 4 features, but UsefulnessSelector is expecting 3"):
        selector.transform(np.ones((2, 4)))
    holes = np.array([[np.nan, 1.0, 2.0]])
    np.testing.assert_array_equal(selector.transform(holes), holes[:, selector.get_support()])
    assert sp.issparse(selector.transform(sp.csr_matrix(X)))


def test_a_declared_class_without_rows_takes_no_part():
    """A class declared to partial_fit but never seen has no mean count: before, its
    smoothed alpha / 0 made it win every feature (usefulness 1 everywhere)."""
    fitted = bk.MultinomialNB().fit(X, Y)
    declared = bk.MultinomialNB().partial_fit(X, Y, classes=[0, 1, 2])
    for prior in ("uniform", "empirical"):
        np.testing.assert_allclose(
            feature_usefulness(declared, prior=prior),
            feature_usefulness(fitted, prior=prior),
            rtol=1e-12,
        )
    np.testing.assert_allclose(feature_usefulness(fitted), [6 / 7, 1 / 2, 6 / 7], rtol=1e-12)


def test_useful_terms_with_a_declared_class_without_documents():
    docs = ["win cash now", "cash prize win", "meeting at noon", "lunch at noon today", "the"]
    y = ["spam", "spam", "ham", "ham", "ham"]
    fitted = TextClassifier(useful_terms=3).fit(docs, y)
    declared = TextClassifier(useful_terms=3).partial_fit(docs, y, classes=["ham", "spam", "x"])
    terms = fitted.fitted_parts()[0].get_feature_names_out().tolist()
    assert declared.fitted_parts()[0].get_feature_names_out().tolist() == terms
    assert "at" not in terms  # (the first terms in order, when every term tied at 1)
    assert declared.term_usefulness() == pytest.approx(fitted.term_usefulness(), rel=1e-12)


def test_a_missing_presence_drops_out_of_its_class_rate():
    """Bernoulli presences: class 0 saw the feature once (present) and missed it three
    times, class 1 saw it present 3 times in 4. Presence rates over the rows that saw it,
    1 and 3/4, give 1 / 1.75; counting the missing rows as absent (1/4 against 3/4) gave
    3/4 for class 1."""
    Xb = np.array([[np.nan], [np.nan], [np.nan], [1], [1], [1], [1], [0]])
    model = bk.BernoulliNB().fit(Xb, [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_allclose(feature_usefulness(model, alpha=0), [1 / 1.75], rtol=1e-12)
    # a feature one class never saw: only the other class speaks for it
    Xc = np.array([[np.nan, 1], [np.nan, 0], [1, 1], [0, 0]])
    model = bk.BernoulliNB().fit(Xc, [0, 0, 1, 1])
    np.testing.assert_allclose(feature_usefulness(model, alpha=0)[0], 1.0)
