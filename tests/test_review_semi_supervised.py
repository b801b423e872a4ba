"""Hostile review of SemiSupervisedNB: label markers, settings, the wrapped estimator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError, NotFittedError, ParameterError


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (10, 2)), rng.normal(4, 1, (10, 2))]
    return X, np.repeat(["a", "b"], 10)


def _fit(model, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (EM's convergence, not the subject)
        return model.fit(X, y, **kw)


@pytest.mark.parametrize(
    "y",
    [
        np.array(["a", "b", -1, -1] * 5),  # numpy turns the marker into the text "-1"
        np.array(["a", "b", "-1", "-1"] * 5, dtype=object),
        ["a", "b", "-1", None] * 5,
    ],
    ids=["str-array", "object-array", "list"],
)
def test_the_marker_turned_into_text_is_no_silent_class(y):
    """np.array(["a", "b", -1]) holds the text "-1": it became a third class "-1" and every
    row marked unlabelled a labelled one of it."""
    X, _ = _data()
    fitted = _fit(bk.SemiSupervisedNB(bk.GaussianNB()), X, np.array(["a"] * 20))
    before = fitted.predict_proba(X)
    with pytest.raises(DataError, match=r"y\[2\] is the text '-1'.*None.*classes="):
        _fit(fitted, X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), before)  # unchanged


def test_a_declared_text_class_minus_one_is_a_class():
    X, _ = _data()
    y = np.array(["a", "b", "-1", "-1"] * 5)
    model = _fit(bk.SemiSupervisedNB(bk.GaussianNB()), X, y, classes=["-1", "a", "b"])
    assert model.classes_.tolist() == ["-1", "a", "b"]


@pytest.mark.parametrize(
    "y",
    [
        np.array([0, 1, -1, -1] * 5),
        np.array([0.0, 1.0, np.nan, -1.0] * 5),
        np.array(["a", "b", None, None] * 5, dtype=object),
        ["a", "b", -1, None] * 5,
    ],
    ids=["int", "float-nan", "object-none", "list-mixed"],
)
def test_marker_conventions_mark_the_same_rows(y):
    X, _ = _data()
    model = _fit(bk.SemiSupervisedNB(bk.GaussianNB()), X, y)
    assert len(model.classes_) == 2
    distributions = model.label_distributions_
    np.testing.assert_allclose(distributions.sum(axis=1), 1.0)
    assert np.isfinite(distributions).all()


def test_an_estimator_class_instead_of_an_instance_is_named():
    """SemiSupervisedNB(MultinomialNB) raised scikit-learn's own TypeError from clone."""
    X, y = _data()
    with pytest.raises(ParameterError, match=r"estimator=GaussianNB is a class.*GaussianNB\(\)"):
        _fit(bk.SemiSupervisedNB(bk.GaussianNB), X, np.where(np.arange(20) % 2, y, None))
    with pytest.raises(ParameterError, match="is a class"):
        bk.SemiSupervisedNB(bk.GaussianNB).check_params()


def test_no_unlabelled_rows_is_the_wrapped_estimator_fitted_alone():
    X, y = _data()
    semi = _fit(bk.SemiSupervisedNB(bk.KernelNB()), X, y)
    alone = bk.KernelNB().fit(X, y)
    np.testing.assert_allclose(semi.predict_proba(X), alone.predict_proba(X), rtol=1e-12)


def test_only_unlabelled_rows_and_bad_settings_are_refused_by_name():
    X, _ = _data()
    with pytest.raises(DataError, match="all 20 rows are unlabelled"):
        bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, [-1] * 20)
    for setting, match in [
        ({"max_iter": -1}, "max_iter=-1"),
        ({"tol": -1e-3}, r"tol=-0\.001"),
        ({"unlabeled_weight": float("nan")}, "unlabeled_weight=nan"),
    ]:
        with pytest.raises(ParameterError, match=match):
            bk.SemiSupervisedNB(bk.GaussianNB(), **setting).fit(X, [0, -1] * 10)


def test_max_iter_zero_is_the_labelled_rows_alone():
    X, y = _data()
    labelled = np.arange(20) % 3 == 0
    marked = np.where(labelled, y, None)
    semi = _fit(bk.SemiSupervisedNB(bk.ParzenWindowClassifier(), max_iter=0), X, marked)
    alone = bk.ParzenWindowClassifier().fit(X[labelled], y[labelled])
    assert semi.n_iter_ == 0
    np.testing.assert_allclose(semi.predict_proba(X), alone.predict_proba(X), rtol=1e-12)


def test_set_params_on_the_wrapped_estimator_after_fit_and_clone():
    X, y = _data()
    marked = np.where(np.arange(20) % 2, y, None)
    model = _fit(bk.SemiSupervisedNB(bk.KernelNB(bandwidth="scott")), X, marked)
    copy = clone(model)
    assert copy.get_params()["estimator__bandwidth"] == "scott"
    np.testing.assert_allclose(
        _fit(copy, X, marked).predict_proba(X), model.predict_proba(X), rtol=1e-12
    )
    model.set_params(estimator__bandwidth="silverman")
    with pytest.raises(NotFittedError, match="estimator__bandwidth"):
        model.predict(X)
    model.set_params(estimator__bandwidth="scott")
    np.testing.assert_allclose(copy.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    assert issubclass(NotFittedError, BayeskitError)


@pytest.mark.parametrize(
    "y",
    [np.array([1, -1, 1, -1] * 5), np.array([1, -1, None, None] * 5, dtype=object)],
    ids=["all-labelled", "none-marks"],
)
def test_a_declared_class_minus_one_is_a_class_and_only_none_marks(y):
    """Labels -1 and 1 (sentiment data): with classes=[-1, 1], -1 is a class, not the marker."""
    X, _ = _data()
    model = _fit(bk.SemiSupervisedNB(bk.GaussianNB()), X, y, classes=[-1, 1])
    assert model.classes_.tolist() == [-1, 1]
    labelled = np.array([v is not None for v in y.tolist()])
    np.testing.assert_array_equal(model.transduction_[labelled], y[labelled].astype(int))
