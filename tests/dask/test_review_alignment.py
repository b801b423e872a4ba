"""y and sample_weight with X's partition count but other partition lengths (lengths dask does
not know, so they could not be compared up front): re-split like X by position, the model the
in-memory one; a y of another total length is still refused by name."""

from __future__ import annotations

import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
import bayeskit.dask as bkd
from bayeskit.errors import ShapeError

from .._grid import assert_same_model

pytestmark = pytest.mark.xdist_group("dask")

N = 90


def _data():
    rng = np.random.default_rng(4)
    X = rng.poisson(2, size=(N, 3)).astype(float)
    y = rng.choice(["a", "b", "c"], N)
    weight = rng.integers(1, 4, N).astype(float)
    return X, y, weight


def _frame(X) -> dd.DataFrame:
    return dd.from_pandas(pd.DataFrame(X, columns=["p", "q", "r"]), npartitions=3)  # 30 each


def _same(model, X, y, weight):
    whole = bk.MultinomialNB().fit(pd.DataFrame(X, columns=["p", "q", "r"]), y, weight)
    assert_same_model(model, whole, pd.DataFrame(X, columns=["p", "q", "r"]))


@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_a_series_and_a_bag_of_other_partition_lengths_are_re_split_like_x(on_cluster):
    X, y, weight = _data()
    Xd = _frame(X)
    labels = dd.from_pandas(pd.Series(y), chunksize=40)  # 40, 40, 10 rows
    weights = dd.from_pandas(pd.Series(weight), chunksize=35)  # 35, 35, 20 rows
    assert labels.npartitions == weights.npartitions == Xd.npartitions == 3
    _same(bkd.fit(bk.MultinomialNB(), Xd, labels, sample_weight=weights), X, y, weight)
    bag = db.from_sequence(y.tolist(), partition_size=40)
    assert bag.npartitions == 3
    _same(bkd.fit(bk.MultinomialNB(), Xd, bag, sample_weight=weight), X, y, weight)


def test_arrays_of_unknown_chunk_sizes_are_re_split_like_x(on_threads):
    X, y, weight = _data()
    keep = da.from_array(np.ones(N, dtype=bool), chunks=30)
    masked = da.from_array(X, chunks=30)[keep]  # 30, 30, 30 rows, unknown to dask
    assert np.isnan(masked.chunks[0]).all()
    labels = da.from_array(y, chunks=((40, 40, 10),))
    model = bkd.fit(bk.MultinomialNB(), masked, labels, sample_weight=weight)
    whole = bk.MultinomialNB().fit(X, y, weight)
    assert_same_model(model, whole, X)
    # the labels' chunks unknown, X's known
    masked_y = da.from_array(y, chunks=((40, 40, 10),))[da.from_array(np.ones(N, bool), 40)]
    model = bkd.fit(bk.MultinomialNB(), da.from_array(X, chunks=30), masked_y, weight)
    assert_same_model(model, whole, X)


@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_a_y_of_another_length_is_still_refused_by_name(on_threads):
    X, y, _ = _data()
    with pytest.raises(ShapeError, match=r"^y is not aligned with X: it has 89 rows but X has 90"):
        bkd.fit(bk.MultinomialNB(), _frame(X), dd.from_pandas(pd.Series(y[:89]), npartitions=3))
    model = bk.MultinomialNB().fit(X, y)
    before = model.stats_
    with pytest.raises(ShapeError, match=r"it has 91 rows but X has 90"):
        bkd.fit(model, _frame(X), db.from_sequence([*y.tolist(), "a"], npartitions=3))
    assert model.stats_ is before
