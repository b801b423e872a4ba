"""Bad data in one partition, refused on a real cluster: the error is the in-memory one with the
partition and the row named (the row of X, or the row's index label in a DataFrame), its type
kept across the worker processes; and a refused or failed fit leaves the model as it was."""

from __future__ import annotations

import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.errors import DataError, InputTypeError, UnknownClassError
from bayeskit.text import SpamFilter, TextVectorizer

pytestmark = pytest.mark.xdist_group("dask")

N = 120


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "a": rng.poisson(2, N).astype(float),
            "b": rng.poisson(3, N).astype(float),
            "label": rng.choice(["x", "y"], N),
        }
    )


def _refusals(make, frame: pd.DataFrame):
    """(in memory, on the cluster): the errors a fit on ``frame`` raises, in 4 partitions of
    30 rows (row 77 of X is row 17 of partition 2)."""
    with pytest.raises((DataError, InputTypeError)) as here:
        make().fit(frame.drop(columns="label"), frame["label"])
    with pytest.raises(type(here.value)) as there:
        bkd.fit(make(), dd.from_pandas(frame, npartitions=4), "label")
    return str(here.value), str(there.value)


def test_text_in_a_number_column_names_the_partition_and_the_row(on_cluster):
    frame = _table().astype({"a": object})
    frame.loc[77, "a"] = "oops"
    here, there = _refusals(bk.MultinomialNB, frame)
    assert here.startswith("X[77, 0] = 'oops' (column 0 ('a')) is not a number")
    # the model counts rows within its partition; the message says which row of X that is
    assert there == f"partition 2 of X, whose row 17 has the index 77: {here.replace('77', '17')}"
    X = frame.drop(columns="label").to_numpy()
    with pytest.raises(InputTypeError) as on_array:
        bkd.fit(
            bk.GaussianNB(),
            da.from_array(X, chunks=30),
            da.from_array(frame["label"].to_numpy(), 30),
        )
    assert str(on_array.value).startswith(
        "partition 2 of X, whose row 17 is row 77 of X: X[17, 0] = 'oops' (column 0) is not a"
    )


def test_a_refused_value_names_the_partition_and_the_row(on_cluster):
    frame = _table()
    frame.loc[77, "b"] = np.nan
    here, there = _refusals(bk.LinearDiscriminantAnalysis, frame)
    assert here.startswith("X contains nan at row 77, column 1 ('b')")
    assert there == f"partition 2 of X, whose row 17 has the index 77: {here.replace('77', '17')}"
    frame = _table()
    frame.loc[77, "b"] = -1.0
    here, there = _refusals(bk.MultinomialNB, frame)
    assert there == f"partition 2 of X, whose row 17 has the index 77: {here.replace('77', '17')}"


def test_a_label_outside_the_declared_classes_is_the_in_memory_refusal(on_cluster):
    frame = _table()
    X, y = frame[["a", "b"]].to_numpy(), frame["label"].to_numpy().copy()
    y[77] = "z"
    Xd, yd = da.from_array(X, chunks=30), da.from_array(y, chunks=30)
    with pytest.raises(UnknownClassError) as here:
        bk.MultinomialNB().partial_fit(X, y, classes=["x", "y"])
    with pytest.raises(UnknownClassError) as there:
        bkd.partial_fit(bk.MultinomialNB(), Xd, yd, classes=["x", "y"])
    assert str(there.value) == str(here.value)
    model = bk.MultinomialNB().partial_fit(X[:10], frame["label"][:10], classes=["x", "y"])
    before = model.stats_
    with pytest.raises(UnknownClassError, match=r"y holds \['z'\], not in the classes declared"):
        bkd.partial_fit(model, Xd, yd)
    assert model.stats_ is before


def test_text_in_a_column_to_predict_names_the_partition(on_cluster):
    frame = _table()
    model = bk.GaussianNB().fit(frame[["a", "b"]], frame["label"])
    bad = frame[["a", "b"]].astype({"a": object})
    bad.loc[77, "a"] = "oops"
    with pytest.raises(InputTypeError, match=r"^partition 2 of X, whose row 17 has the index 77: "):
        bkd.predict_proba(model, dd.from_pandas(bad, npartitions=4)).compute()
    with pytest.raises(InputTypeError, match=r"^partition 2 of X, whose row 17 is row 77 of X: "):
        bkd.predict(model, da.from_array(bad.to_numpy(), chunks=30)).compute()


DOCS = ["win cash now", "free prize", "lunch at noon", "see you at lunch", "cash prize", "at noon"]
LABELS = ["spam", "spam", "ham", "ham", "spam", "ham"]


def test_a_spam_filter_whose_calibration_fails_is_left_as_it_was(on_threads):
    """The filter is fitted by one reduction and calibrated by another: a source that fails
    in the second (read once, then gone) leaves the fitted filter as it was, statistics and
    scale, not new statistics under the old scale."""
    reads = []

    def read(i: int):
        reads.append(i)
        if len(reads) > 3:
            raise OSError("the source went away")
        return list(zip(DOCS * 3, LABELS * 3, strict=True))

    bag = db.from_delayed([dask.delayed(read, pure=False)(i) for i in range(3)])
    make = lambda: SpamFilter(  # noqa: E731
        calibration_folds=3, vectorizer=TextVectorizer(), model=bk.MultinomialNB()
    )
    spam_filter = make().fit(DOCS * 2, LABELS * 2)
    before = dict(spam_filter.__dict__)
    with pytest.raises(OSError, match="the source went away"):
        bkd.fit(spam_filter, bag)
    assert len(reads) == 4  # the first round read all three partitions
    assert spam_filter.__dict__.keys() == before.keys()
    assert all(spam_filter.__dict__[key] is value for key, value in before.items())
    reads.clear()
    bkd.fit(spam_filter, db.from_sequence(list(zip(DOCS * 9, LABELS * 9, strict=True)), 3))
    np.testing.assert_allclose(
        spam_filter.predict_proba(DOCS),
        bkd.fit(
            make(), db.from_sequence(list(zip(DOCS * 9, LABELS * 9, strict=True)), 3)
        ).predict_proba(DOCS),
        rtol=1e-12,
    )
