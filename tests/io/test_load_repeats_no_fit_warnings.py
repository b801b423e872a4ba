"""Reading a model file does not repeat what fit warned about: a model saved with priors
that do not sum to 1, collinear columns or a class_weight naming no class warned at every
predict and inspect of the file (the command line reads it each time)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris

import bayeskit as bk

X, Y = load_iris(return_X_y=True)


def _collinear():
    return np.c_[X, X[:, 0] - X[:, 1]]


CASES = [
    ("priors", lambda: bk.LinearDiscriminantAnalysis(priors=[0.3333] * 3), lambda: X),
    ("qda priors", lambda: bk.QuadraticDiscriminantAnalysis(priors=[0.3333] * 3), lambda: X),
    ("collinear", lambda: bk.LinearDiscriminantAnalysis(), _collinear),
    ("class_weight", lambda: bk.MultinomialNB(class_weight={"zz": 2.0}), lambda: X),
]
SAID = {
    "priors": "renormalising",
    "qda priors": "renormalising",
    "collinear": "collinear",
    "class_weight": "none of the classes",
}


@pytest.mark.parametrize(("why", "make", "data"), CASES, ids=[c[0] for c in CASES])
def test_fit_warns_and_reading_the_file_does_not(why, make, data, tmp_path):
    rows = data()
    with pytest.warns(UserWarning, match=SAID[why]):
        model = make().fit(rows, Y)
    bk.save(model, tmp_path / "m.bk")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = bk.load(tmp_path / "m.bk")
        np.testing.assert_array_equal(again.predict_proba(rows), model.predict_proba(rows))


def test_a_saved_models_priors_are_still_renormalised():
    model = bk.LinearDiscriminantAnalysis(priors=[0.3333] * 3)
    with pytest.warns(bk.errors.BayeskitWarning, match="renormalising"):
        model.fit(X, Y)
    path = "m.bk"
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        bk.save(model, os.path.join(tmp, path))
        again = bk.load(os.path.join(tmp, path))
    np.testing.assert_allclose(np.exp(again.class_log_prior_), [1 / 3] * 3, rtol=1e-12)
    with pytest.warns(bk.errors.BayeskitWarning, match="renormalising"):
        again.partial_fit(X[:5], Y[:5])  # learning again says it again
