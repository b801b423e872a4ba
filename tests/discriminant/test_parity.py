"""Same numbers as scikit-learn's LinearDiscriminantAnalysis and QuadraticDiscriminantAnalysis
on real data (load_digits, load_wine, load_breast_cancer, UCI spambase), and a named error
where scikit-learn refuses or would predict wrongly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import linalg
from scipy.special import logsumexp
from sklearn import discriminant_analysis as sk
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits, load_wine

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import SingularCovarianceError

RTOL = 1e-8
DATASETS = ["digits", "wine", "breast_cancer", "spambase"]


@pytest.fixture(scope="module")
def data(request):
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def get(name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in cache:
            if name == "spambase":
                root = request.getfixturevalue("shared_data")
                X, y, _ = load_spambase(root)
            else:
                loader = {"digits": load_digits, "wine": load_wine}.get(name, load_breast_cancer)
                X, y = loader(return_X_y=True)
            cache[name] = (np.asarray(X, dtype=np.float64), y)
        return cache[name]

    return get


def assert_close(ours, theirs, what):
    scale = np.abs(theirs).max(initial=0.0)
    # Entries that are 0 in exact arithmetic (a constant column's coefficient) are rounding
    # noise on scikit-learn's side: compared to 1e-10 of the largest entry.
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-10 * scale, err_msg=what)


def assert_proba(ours, theirs, decision):
    """Probabilities against scikit-learn's, and against the softmax of its decision function
    computed without cancellation: with two classes scikit-learn returns ``1 − expit(d)``,
    which keeps only ~1e-16 absolute of a probability near 0 (1e-12 to 1e-4 relative)."""
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-15)
    if decision.ndim == 1:
        decision = np.column_stack([np.zeros_like(decision), decision])
    stable = np.exp(decision - logsumexp(decision, axis=1, keepdims=True))
    np.testing.assert_allclose(ours, stable, rtol=RTOL, atol=1e-300)


def standardized(estimator, X, y):
    """scikit-learn fitted on the columns divided by their standard deviations, its numbers
    taken back to the original units: LDA is equivariant under scaling columns (for
    ``shrinkage`` None and "auto"), and in standard units its least-squares and eigen
    solvers do not lose the digits they lose on breast cancer and spambase, whose columns
    span 10 orders of magnitude of variance (scikit-learn's ``coef_`` there is off by 1e-10
    to 5e-9 relative; see test_sklearn_loses_digits_on_unscaled_columns)."""
    s = X.std(axis=0)
    s[s == 0] = 1.0
    fitted = clone(estimator).fit(X / s, y)
    return {
        "coef_": fitted.coef_ / s,
        "intercept_": fitted.intercept_,
        "decision": fitted.decision_function(X / s),
        "proba": fitted.predict_proba(X / s),
        "transform": fitted.transform(X / s) if estimator.solver == "eigen" else None,
        "ratio": getattr(fitted, "explained_variance_ratio_", None),
    }


def raw(fitted, X):
    return {
        "coef_": fitted.coef_,
        "intercept_": fitted.intercept_,
        "decision": fitted.decision_function(X),
        "proba": fitted.predict_proba(X),
        "transform": fitted.transform(X) if fitted.solver == "eigen" else None,
        "ratio": getattr(fitted, "explained_variance_ratio_", None),
    }


#: datasets whose columns differ in scale by orders of magnitude (compared in standard units)
WIDE_SCALES = ("breast_cancer", "spambase")


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("solver", ["lsqr", "eigen"])
@pytest.mark.parametrize("shrinkage", [None, "auto", 0.3])
def test_lda(data, name, solver, shrinkage):
    X, y = data(name)
    ours = bk.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage).fit(X, y)
    reference = sk.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage)
    try:
        theirs = clone(reference).fit(X, y)
    except linalg.LinAlgError:
        # digits has three columns that are 0 in every image: scikit-learn's eigen solver
        # cannot factor the singular within-class matrix; its lsqr solver leaves the columns
        # out (least squares), as bayeskit does for every solver.
        assert (name, solver, shrinkage) == ("digits", "eigen", None)
        reference = sk.LinearDiscriminantAnalysis(solver="lsqr")
        theirs = clone(reference).fit(X, y)
    assert_close(ours.means_, theirs.means_, "means_")
    assert_close(ours.covariance_, theirs.covariance_, "covariance_")
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    exact = standardized(reference, X, y) if name in WIDE_SCALES and shrinkage != 0.3 else None
    numbers = exact or raw(theirs, X)
    assert_close(ours.coef_, numbers["coef_"], "coef_")
    assert_close(ours.intercept_, numbers["intercept_"], "intercept_")
    decision = ours.decision_function(X)
    # A decision near 0 is a difference of terms of size ~|decision|max: absolute precision.
    np.testing.assert_allclose(
        decision, numbers["decision"], rtol=RTOL, atol=RTOL * np.abs(decision).max()
    )
    assert_proba(ours.predict_proba(X), numbers["proba"], numbers["decision"])
    if numbers["transform"] is not None:
        assert_close(ours.explained_variance_ratio_, numbers["ratio"], "ratio")
        mine, reference_t = ours.transform(X), numbers["transform"]
        assert mine.shape == reference_t.shape
        assert mine.shape[1] == min(len(np.unique(y)) - 1, X.shape[1])
        # An axis is defined up to its sign when its eigenvalue is simple. With shrinkage the
        # between-class matrix is no longer of rank K - 1, and on digits with shrinkage=0.3
        # the 9th eigenvalue is repeated (0.72619614 three times: the three blank pixels):
        # any rotation within that eigenspace is an answer, so only simple axes compare.
        values = ours._params().projection[1]
        gaps = np.abs(np.diff(values))
        simple = np.ones(len(values), dtype=bool)
        simple[:-1] &= gaps > 1e-7 * np.abs(values[:-1])
        simple[1:] &= gaps > 1e-7 * np.abs(values[1:])
        axes = np.flatnonzero(simple[: mine.shape[1]])
        assert len(axes) >= mine.shape[1] - 1
        mine, reference_t = mine[:, axes], reference_t[:, axes]
        signs = np.sign(np.sum(mine * reference_t, axis=0))
        scale = np.abs(reference_t).max(axis=0)
        np.testing.assert_allclose(mine * signs / scale, reference_t / scale, rtol=RTOL, atol=1e-10)


def test_sklearn_loses_digits_on_unscaled_columns(data):
    """Why breast cancer and spambase are compared in standard units: against a solution
    refined with extended-precision residuals, bayeskit's ``coef_`` (a Cholesky solve, whose
    error depends on the correlation-scale conditioning) is right to 1e-13, scikit-learn's
    (an SVD least-squares solve on the raw matrix, condition 3e11) to about 1e-10."""
    X, y = data("breast_cancer")
    ours = bk.LinearDiscriminantAnalysis().fit(X, y)
    theirs = sk.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    S, M = ours.covariance_, ours.means_
    exact = np.array([_refined_solve(S, m) for m in M])
    exact = exact[1] - exact[0]
    scale = np.abs(exact).max()
    assert np.abs(ours.coef_[0] - exact).max() / scale < 1e-12
    assert np.abs(theirs.coef_[0] - exact).max() / scale > 1e-11


def _refined_solve(S, b):
    x = np.linalg.solve(S, b)
    wide_S, wide_b = S.astype(np.longdouble), b.astype(np.longdouble)
    for _ in range(4):
        residual = (wide_b - wide_S @ x.astype(np.longdouble)).astype(np.float64)
        x = x + np.linalg.solve(S, residual)
    return x


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("reg_param", [0.0, 0.1, 0.5])
def test_qda(data, name, reg_param):
    X, y = data(name)
    # scikit-learn refuses a class whose covariance has an eigenvalue below tol=1e-4 in the
    # units of the data, which spambase and breast cancer have at reg_param=0 (their smallest
    # correlation-scale eigenvalues are 1e-4 and 1e-3: regular); tol=1e-12 leaves the
    # numbers alone and lets the comparison run.
    theirs = sk.QuadraticDiscriminantAnalysis(reg_param=reg_param, store_covariance=True, tol=1e-12)
    if name == "digits" and reg_param == 0.0:
        # Pixels that are constant within a class: singular for both libraries.
        with pytest.raises(linalg.LinAlgError):
            theirs.fit(X, y)
        with pytest.raises(SingularCovarianceError, match=r"class 0 is singular: .* set reg_param"):
            bk.QuadraticDiscriminantAnalysis(reg_param=reg_param).fit(X, y)
        return
    theirs.fit(X, y)
    ours = bk.QuadraticDiscriminantAnalysis(reg_param=reg_param).fit(X, y)
    assert_proba(ours.predict_proba(X), theirs.predict_proba(X), theirs.decision_function(X))
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    assert_close(ours.means_, theirs.means_, "means_")
    assert_close(ours.covariance_, np.asarray(theirs.covariance_), "covariance_")
    assert_close(ours.priors_, theirs.priors_, "priors_")
    for mine, reference in zip(ours.scalings_, theirs.scalings_, strict=True):
        assert_close(mine, reference, "scalings_")


@pytest.mark.parametrize("name", ["wine", "breast_cancer"])
def test_qda_priors(data, name):
    X, y = data(name)
    k = len(np.unique(y))
    priors = np.arange(1, k + 1) / np.arange(1, k + 1).sum()
    ours = bk.QuadraticDiscriminantAnalysis(priors=priors, reg_param=0.1).fit(X, y)
    theirs = sk.QuadraticDiscriminantAnalysis(priors=priors, reg_param=0.1).fit(X, y)
    assert_proba(ours.predict_proba(X), theirs.predict_proba(X), theirs.decision_function(X))
    assert_close(ours.priors_, theirs.priors_, "priors_")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(ours.decision_function(X), theirs.decision_function(X), "decision")


@pytest.mark.parametrize("shrinkage", ["auto", 0.2])
def test_qda_eigen_solver_with_shrinkage(data, shrinkage):
    X, y = data("digits")
    ours = bk.QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=shrinkage).fit(X, y)
    theirs = sk.QuadraticDiscriminantAnalysis(
        solver="eigen", shrinkage=shrinkage, store_covariance=True
    ).fit(X, y)
    assert_proba(ours.predict_proba(X), theirs.predict_proba(X), theirs.decision_function(X))
    assert_close(ours.covariance_, np.asarray(theirs.covariance_), "covariance_")


def test_lda_covariance_estimators(data):
    from sklearn.covariance import OAS, LedoitWolf, ShrunkCovariance

    X, y = data("wine")
    for estimator in (OAS(), LedoitWolf(), ShrunkCovariance(shrinkage=0.4)):
        ours = bk.LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=estimator)
        theirs = sk.LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=estimator)
        ours.fit(X, y)
        theirs.fit(X, y)
        assert_close(ours.covariance_, theirs.covariance_, repr(estimator))
        assert_proba(ours.predict_proba(X), theirs.predict_proba(X), theirs.decision_function(X))
