"""Discriminant models in model files: every setting round-trips, a covariance estimator is
stored by name, and a stored scatter matrix that is not symmetric positive semi-definite is
refused at load, naming the array."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from sklearn.covariance import OAS, MinCovDet, ShrunkCovariance
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit import _estimators, discriminant, naive_bayes
from bayeskit.errors import ModelFileError, ParameterError
from bayeskit.io import _format, model_file

from ..io._refusal import parts, refused
from ..io.test_model_file import seal

X, Y = load_wine(return_X_y=True)
NAMES = [f"f{j}" for j in range(X.shape[1])]

MODELS = [
    bk.LinearDiscriminantAnalysis(),
    bk.LinearDiscriminantAnalysis(shrinkage="auto", n_components=1, priors=[0.2, 0.3, 0.5]),
    bk.LinearDiscriminantAnalysis(covariance_estimator=OAS()),
    bk.LinearDiscriminantAnalysis(
        solver="eigen", covariance_estimator=ShrunkCovariance(shrinkage=0.2)
    ),
    bk.QuadraticDiscriminantAnalysis(reg_param=0.1, class_weight="balanced"),
    bk.QuadraticDiscriminantAnalysis(solver="eigen", shrinkage="auto"),
    bk.RegularizedDiscriminantAnalysis(lam=0.3, gamma=0.2, loss=[[0, 1, 1], [2, 0, 1], [1, 1, 0]]),
]


def test_one_list_names_every_estimator_a_file_may_hold():
    expected = {*naive_bayes.__all__, *discriminant.__all__}
    expected |= {"GaussianMixtureClassifier", "ParzenWindowClassifier"}
    expected |= {"TANClassifier", "AODEClassifier", "KDBClassifier"}
    assert set(model_file.ESTIMATORS) == expected
    assert model_file.ESTIMATORS is _estimators.ESTIMATORS
    for name, cls in model_file.ESTIMATORS.items():
        assert getattr(bk, name) is cls


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_round_trip(model, tmp_path: Path):
    import pandas as pd

    frame = pd.DataFrame(X, columns=NAMES)
    model.fit(frame, Y)
    bk.save(model, tmp_path / "da.bkm")
    loaded = bk.load(tmp_path / "da.bkm")
    assert type(loaded) is type(model)
    assert repr(loaded) == repr(model)
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    np.testing.assert_array_equal(loaded.predict(frame), model.predict(frame))
    assert loaded.feature_names_in_.tolist() == NAMES
    # A loaded model keeps learning and merging exactly.
    np.testing.assert_allclose(
        (loaded + model).predict_proba(frame),
        model.fit(pd.concat([frame, frame]), np.r_[Y, Y]).predict_proba(frame),
        rtol=1e-9,
    )


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "qda.bkm"
    bk.save(bk.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(X, Y), path)
    return path


def _with_scatter(path: Path, change) -> None:
    meta, entries = parts(path)
    name = meta["blocks"][0]["arrays"]["scatter"]
    scatter = np.load(io.BytesIO(entries[name]))
    change(scatter)
    buffer = io.BytesIO()
    np.save(buffer, scatter)
    entries[name] = buffer.getvalue()
    seal(path, meta, entries)


def test_refuses_a_scatter_that_is_not_symmetric(saved: Path):
    def skew(s):
        s[1, 0, 4] += 1.0

    _with_scatter(saved, skew)
    refused(saved, "array 'scatter' of class index 1", "not symmetric ([0, 4]")


def test_refuses_a_scatter_that_is_not_positive_semi_definite(saved: Path):
    def negative(s):
        s[2, 3, 3] = -s[2, 3, 3]

    _with_scatter(saved, negative)
    refused(saved, "array 'scatter' of class index 2", "negative diagonal entry [3, 3]")

    def indefinite(s):
        s[0] = np.eye(13)
        s[0, 0, 1] = s[0, 1, 0] = 2.0

    _with_scatter(saved, indefinite)
    refused(saved, "array 'scatter' of class index 0", "not positive semi-definite")


def test_refuses_a_covariance_estimator_not_on_the_list(tmp_path: Path):
    path = tmp_path / "lda.bkm"
    bk.save(bk.LinearDiscriminantAnalysis(covariance_estimator=OAS()).fit(X, Y), path)
    meta, entries = parts(path)
    meta["params"]["covariance_estimator"]["name"] = "MinCovDet"
    seal(path, meta, entries)
    refused(path, "malformed value of hyperparameter covariance_estimator")
    meta["params"]["covariance_estimator"] = {
        "type": "covariance_estimator",
        "name": "OAS",
        "params": _format.encode({"evil": 1}, "covariance_estimator", 0),
    }
    seal(path, meta, entries)
    refused(path, "malformed value of hyperparameter covariance_estimator")


def test_estimators_that_need_the_rows_are_refused_at_fit():
    with pytest.raises(ParameterError, match=r"MinCovDet\(\) needs the training rows"):
        bk.LinearDiscriminantAnalysis(covariance_estimator=MinCovDet()).fit(X, Y)
    with pytest.raises(ParameterError, match="give one of the two"):
        bk.LinearDiscriminantAnalysis(covariance_estimator=OAS(), shrinkage=0.5).fit(X, Y)
    model = bk.LinearDiscriminantAnalysis().fit(X, Y)
    with pytest.raises(ParameterError, match=r"MinCovDet\(\) needs the training rows"):
        model.set_params(covariance_estimator=MinCovDet())  # the fitted model keeps its own
    model.covariance_estimator = MinCovDet()  # set past set_params: the file still refuses
    with pytest.raises(ModelFileError, match="cannot store the hyperparameter"):
        model_file._model_contents(model)
