"""The user guide's checkable claims, checked against the code (docs/guide/*.md)."""

import numpy as np
import pytest
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import DataError


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


def test_discriminant_default_lda_has_the_eigen_solvers_coef_and_transform(wine):
    # discriminant.md: whatever the solver, coef_ and transform are those of scikit-learn's
    # "lsqr"/"eigen" solvers (transform up to each axis's sign); its "svd" solver agrees on
    # predict_proba only.
    X, y = wine
    ours = bk.LinearDiscriminantAnalysis().fit(X, y)
    eigen = sk.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    svd = sk.LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(ours.coef_, eigen.coef_, rtol=1e-8)
    mine, theirs = ours.transform(X), eigen.transform(X)
    signs = np.sign(np.sum(mine * theirs, axis=0))
    np.testing.assert_allclose(mine * signs, theirs, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), svd.predict_proba(X), atol=1e-12)
    assert not np.allclose(ours.coef_, svd.coef_)


def test_discriminant_oas_takes_values_to_1e75_and_refuses_larger_by_name(wine):
    # discriminant.md: "oas" squares the covariance: values up to about 1e75, not 1e150.
    X, y = wine
    for scale, fits in ((1e75, True), (1e80, False)):
        Z = X.copy()
        Z[:, 2] = X[:, 2] / X[:, 2].max() * scale
        model = bk.LinearDiscriminantAnalysis(shrinkage="oas")
        if fits:
            assert model.fit(Z, y).score(Z, y) > 0.3
        else:
            with pytest.raises(DataError, match="beyond float64's range"):
                model.fit(Z, y)
        # a number takes such values, as the guide says
        bk.LinearDiscriminantAnalysis(shrinkage=0.3).fit(Z, y)


def test_event_models_gaussian_partial_fit_in_batches_is_fit_where_sklearn_differs():
    # event-models.md: the variance floor comes from the merged statistics, so partial_fit in
    # batches gives fit's model; scikit-learn's partial_fit floors by another amount.
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB

    X, y = load_breast_cancer(return_X_y=True)
    order = np.argsort(X[:, 3])
    ours, theirs = bk.GaussianNB(), GaussianNB()
    for batch in np.array_split(order, 7):
        ours.partial_fit(X[batch], y[batch], classes=[0, 1])
        theirs.partial_fit(X[batch], y[batch], classes=[0, 1])
    whole = bk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.epsilon_, whole.epsilon_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, whole.var_, rtol=1e-9)
    assert not np.isclose(theirs.epsilon_, GaussianNB().fit(X, y).epsilon_, rtol=1e-3)


def test_estimation_a_given_vectorizer_changed_on_the_part_waits_for_fit():
    # estimation.md: clf.vectorizer.set_params(lowercase=False) on a given vectorizer makes
    # the fitted model wait for fit, naming the setting.
    from bayeskit.errors import NotFittedError
    from bayeskit.text import TextClassifier, TextVectorizer

    texts = ["buy cheap pills now", "meeting at noon", "cheap pills cheap", "lunch at noon"] * 3
    labels = ["spam", "ham", "spam", "ham"] * 3
    clf = TextClassifier(vectorizer=TextVectorizer(), model=bk.MultinomialNB()).fit(texts, labels)
    clf.vectorizer.set_params(lowercase=False)
    with pytest.raises(NotFittedError, match="vectorizer__lowercase"):
        clf.predict(["Cheap"])


def test_incremental_a_batch_after_which_the_model_cannot_predict_is_refused():
    # incremental.md: each call leaves a model that predicts; GaussianNB(var_smoothing=0)
    # refuses the batch that leaves a class with one row, though fit on all rows accepts it
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 2.0], [5.0, 5.0]])
    y = np.array([0, 0, 1, 1])
    whole = bk.GaussianNB(var_smoothing=0).fit(X, y)
    model = bk.GaussianNB(var_smoothing=0).partial_fit(X[:2], y[:2], classes=[0, 1])
    before = dict(model.__dict__)
    with pytest.raises(bk.errors.ParameterError, match="variance 0 in class 1"):
        model.partial_fit(X[2:3], y[2:3])
    assert model.__dict__.keys() == before.keys()
    assert all(model.__dict__[k] is v for k, v in before.items())
    model.partial_fit(X[2:], y[2:])  # both rows of class 1 together: as fit
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
