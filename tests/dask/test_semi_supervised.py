"""Semi-supervised Naive Bayes on a cluster: bayeskit.dask.fit runs SemiSupervisedNB's EM as
one reduction per iteration, and the model is the in-memory one."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import bayeskit as bk
import bayeskit.dask as bkd
from bayeskit.errors import DataError, MergeError, ParameterError
from bayeskit.text import TextClassifier

from .._grid import assert_same_model

pytestmark = pytest.mark.xdist_group("dask")


def counts(seed: int = 0, n: int = 240, labelled: float = 0.1):
    """Word counts of three topics; about ``labelled`` of the rows keep their label."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, 3, size=n)
    rates = np.array([[6, 1, 1, 2, 0.5], [1, 6, 1, 2, 0.5], [1, 1, 6, 2, 0.5]])
    X = rng.poisson(rates[topic]).astype(float)
    names = np.array(["sport", "tech", "arts"], dtype=object)
    y = np.where(rng.random(n) < labelled, names[topic], None)
    y[:3] = names  # every class has a labelled row
    return X, y


def assert_same_semi(got, want, rtol=1e-10):
    np.testing.assert_array_equal(got.classes_, want.classes_)
    assert got.n_iter_ == want.n_iter_
    assert got.converged_ == want.converged_
    np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=rtol)
    np.testing.assert_array_equal(got.transduction_, want.transduction_)
    np.testing.assert_allclose(
        got.label_distributions_, want.label_distributions_, rtol=rtol, atol=1e-13
    )
    assert_same_model(got.estimator_, want.estimator_, np.zeros((1, got.n_features_in_)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: bk.SemiSupervisedNB(bk.MultinomialNB(), unlabeled_weight=0.5),
        lambda: bk.SemiSupervisedNB(bk.GaussianNB(), max_iter=8),
        lambda: bk.SemiSupervisedNB(bk.BernoulliNB(binarize=1.0)),
    ],
    ids=["multinomial", "gaussian", "bernoulli"],
)
def test_semi_supervised_em_on_the_cluster_is_em_in_memory(make, on_cluster):
    X, y = counts()
    chunks = (60, 0, 45, 100, 35)  # an empty partition; labelled rows in only some
    weight = np.random.default_rng(1).uniform(0.5, 2, size=len(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        want = make().fit(X, y, sample_weight=weight)
        in_memory = len(caught)
        got = bkd.fit(
            make(),
            da.from_array(X, chunks=(chunks, X.shape[1])),
            da.from_array(y, chunks=(chunks,)),
            sample_weight=weight,
        )
    assert len(caught) == 2 * in_memory  # the same ConvergenceWarning, or none
    assert in_memory == (not want.converged_)
    assert got.n_iter_ > 2
    assert_same_semi(got, want)
    np.testing.assert_allclose(
        bkd.predict_proba(got, da.from_array(X, chunks=50)).compute(),
        want.predict_proba(X),
        rtol=1e-9,
    )


def test_one_partition_is_the_in_memory_model_bit_for_bit(on_threads):
    X, y = counts(seed=2)
    y = np.where(y == None, -1, np.searchsorted(["arts", "sport", "tech"], y.astype(str)))  # noqa: E711
    want = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, y)
    got = bkd.fit(bk.SemiSupervisedNB(bk.MultinomialNB()), da.from_array(X, chunks=-1), y)
    assert_same_semi(got, want, rtol=0)


def test_what_the_cluster_cannot_run_is_refused_by_name(on_threads):
    X, y = counts()
    Xd, yd = da.from_array(X, chunks=50), da.from_array(y, chunks=50)
    with pytest.raises(ParameterError, match=r"n_components=2\) does not run on a cluster"):
        bkd.fit(bk.SemiSupervisedNB(n_components=2), Xd, yd)
    with pytest.raises(ParameterError, match=r"SemiSupervisedNB\(TextClassifier\)"):
        bkd.fit(bk.SemiSupervisedNB(TextClassifier()), Xd, yd)
    with pytest.raises(DataError, match="all 240 rows are unlabelled"):
        bkd.fit(bk.SemiSupervisedNB(), Xd, np.full(len(y), None, dtype=object))
    weight = np.where(y == None, 1.0, 0.0)  # noqa: E711
    with pytest.raises(DataError, match="every labelled row has weight 0"):
        bkd.fit(bk.SemiSupervisedNB(), Xd, yd, sample_weight=weight)
    model = bk.SemiSupervisedNB().fit(X, y)
    before = model.estimator_
    with pytest.raises(MergeError, match="no partial_fit"):
        bkd.partial_fit(model, Xd, yd)
    with pytest.raises(ParameterError, match="unlabeled_weight"):
        bkd.fit(model.set_params(unlabeled_weight=-1.0), Xd, yd)
    assert model.estimator_ is before
