"""bayeskit.dask.fit ≡ the estimator's own fit on the same rows, for every estimator of the
common grid: on a real two-process cluster, and over many partitionings (hypothesis)."""

from __future__ import annotations

import itertools
import os

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.errors import DataError, ParameterError, UnknownClassError

from .._grid import CASES, Case, assert_same_model, dataset

pytestmark = pytest.mark.xdist_group("dask")

#: few hypothesis examples per estimator by default (the thorough profile runs its own number)
EXAMPLES = (
    settings(max_examples=8) if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci" else settings()
)


def _by_class(X, y):
    """The rows sorted by class, so most partitions miss some classes."""
    order = np.argsort(y, kind="stable")
    return X[order], y[order]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_fit_on_cluster_equals_fit_in_memory(case: Case, on_cluster):
    X, y = _by_class(*dataset(case, seed=11))
    chunks = (13, 0, 20, 27)  # an empty partition; each class absent from some partitions
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    model = bkd.fit(case.make(), Xd, da.from_array(y, chunks=(chunks,)))
    whole = case.make().fit(X, y)
    assert_same_model(model, whole, X)
    proba = bkd.predict_proba(model, Xd)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), whole.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(bkd.predict(model, Xd).compute(), whole.predict(X))


def _chunks(cuts: list[int], n: int) -> tuple[int, ...]:
    bounds = [0, *sorted(cuts), n]
    return tuple(b - a for a, b in itertools.pairwise(bounds))


partitionings = st.lists(st.integers(0, 60), max_size=6)  # repeated cuts: empty partitions


@pytest.mark.parametrize("case", CASES, ids=repr)
@EXAMPLES
@given(seed=st.integers(0, 10_000), cuts=partitionings, y_cuts=partitionings, sort=st.booleans())
def test_fit_equals_fit_over_partitionings(case: Case, seed, cuts, y_cuts, sort):
    X, y = dataset(case, seed=seed)
    if sort:
        X, y = _by_class(X, y)
    weight = np.random.default_rng(seed).integers(1, 4, size=len(y)).astype(float)
    with dask.config.set(scheduler="sync"):
        model = bkd.fit(
            case.make(),
            da.from_array(X, chunks=(_chunks(cuts, len(y)), X.shape[1])),
            da.from_array(y, chunks=(_chunks(y_cuts, len(y)),)),  # re-split like X
            sample_weight=weight,  # in memory: split like X
        )
    assert_same_model(model, case.make().fit(X, y, sample_weight=weight), X)


@pytest.mark.parametrize("case", CASES[:1] + CASES[6:7] + CASES[10:11], ids=repr)
def test_partial_fit_adds_a_collection_to_a_model(case: Case, on_cluster):
    X, y = dataset(case, seed=12)
    model = case.make().fit(X[:20], y[:20])
    before = model.stats_
    more = bkd.partial_fit(model, da.from_array(X[20:], chunks=15), da.from_array(y[20:], 15))
    assert more is model
    assert model.stats_ is not before
    assert_same_model(model, case.make().fit(X, y), X)


def test_partial_fit_declares_classes(on_cluster):
    X = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 4.0]])
    model = bkd.partial_fit(
        bk.MultinomialNB(), da.from_array(X, chunks=2), ["a", "b", "a"], classes=["a", "b", "c"]
    )
    assert model.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(model.class_count_, [2, 1, 0])


def test_declared_classes_hold_on_dask_as_in_memory(on_threads):
    # partial_fit's declared classes are the in-memory rule on a collection too: a label
    # outside them is refused, later batches keep to them, and fit forgets them.
    X = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 4.0], [2.0, 2.0]])
    Xd = da.from_array(X, chunks=2)
    with pytest.raises(UnknownClassError, match=r"y holds \['z'\], not in classes"):
        bkd.partial_fit(bk.MultinomialNB(), Xd, ["a", "b", "z", "a"], classes=["a", "b"])
    with pytest.raises(ParameterError, match=r"classes holds \['b'\] more than once"):
        bkd.partial_fit(bk.MultinomialNB(), Xd, ["a", "b", "a", "a"], classes=["a", "b", "b"])
    model = bkd.partial_fit(bk.MultinomialNB(), Xd, ["a", "b", "a", "a"], classes=["a", "b"])
    before = model.stats_
    with pytest.raises(UnknownClassError, match="not in the classes declared"):
        bkd.partial_fit(model, Xd, ["a", "b", "c", "a"])
    with pytest.raises(UnknownClassError, match="not in the classes declared"):
        model.partial_fit(X[:1], ["c"])
    assert model.stats_ is before
    bkd.fit(model, Xd, ["a", "b", "a", "a"])  # fit starts afresh, as in memory
    model.partial_fit(X[:1], ["c"])
    assert model.classes_.tolist() == ["a", "b", "c"]


def test_predict_is_lazy_and_sends_the_model_once(on_cluster):
    X, y = dataset(CASES[0], seed=13, n=400)
    model = bk.MultinomialNB().fit(X, y)
    Xd = da.from_array(X, chunks=50)  # 8 partitions
    proba = bkd.predict_proba(model, Xd)
    graph = dict(proba.__dask_graph__())
    holders = [k for k, v in graph.items() if _holds(v, model)]
    assert len(holders) == 1  # one key holds the model; the 8 tasks refer to it
    assert proba.chunks == (Xd.chunks[0], (len(model.classes_),))
    np.testing.assert_allclose(proba.compute(), model.predict_proba(X), rtol=1e-12)


def _holds(value, model) -> bool:
    data = getattr(value, "value", value)  # a dask DataNode wraps the literal
    return data is model


def test_a_partition_whose_rows_all_weigh_zero_is_no_error(on_threads):
    X = np.random.default_rng(15).normal(size=(60, 3))
    y = np.repeat(["a", "b", "c"], 20)
    weight = np.ones(len(y))
    weight[:20] = 0.0  # the first partition (and class a) weighs nothing
    model = bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=20), y, sample_weight=weight)
    assert_same_model(model, bk.GaussianNB().fit(X, y, sample_weight=weight), X)
    with pytest.raises(DataError, match="every sample_weight is zero"):
        bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=20), y, sample_weight=np.zeros(60))


def test_fit_keeps_the_estimator_on_a_refused_fit(on_threads):
    X, y = dataset(CASES[0], seed=14)
    model = bk.MultinomialNB().fit(X, y)
    before = model.stats_
    with pytest.raises(ParameterError, match="alpha"):
        model.set_params(alpha=-1.0)  # refused on a fitted model, which keeps its own
    model.alpha = -1.0  # set past set_params: the distributed fit refuses it
    with pytest.raises(ParameterError, match="alpha"):
        bkd.fit(model, da.from_array(X, chunks=20), y)
    assert model.stats_ is before
