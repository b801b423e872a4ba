"""What bayeskit.dask does with awkward or wrong collections: unknown sizes are computed; y not
aligned with X, partitions that disagree on columns or dtypes, and a missing dask are errors
that name what is wrong."""

from __future__ import annotations

import re
import subprocess
import sys

import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.errors import DataError, InputTypeError, ShapeError

from .._grid import CASES, assert_same_model, dataset

pytestmark = pytest.mark.xdist_group("dask")


def test_unknown_chunk_sizes_are_computed(on_cluster):
    X, y = dataset(CASES[10], seed=1, n=200)  # GaussianNB, with NaN
    keep = np.arange(200) % 3 != 0
    Xd, yd = da.from_array(X, chunks=40), da.from_array(y, chunks=40)
    masked = Xd[da.from_array(keep, chunks=40)]
    assert np.isnan(masked.chunks[0]).all()
    whole = CASES[10].make().fit(X[keep], y[keep])
    in_memory_y = bkd.fit(CASES[10].make(), masked, y[keep])  # split by computed sizes
    assert_same_model(in_memory_y, whole, X)
    both_masked = bkd.fit(CASES[10].make(), masked, yd[da.from_array(keep, chunks=40)])
    assert_same_model(both_masked, whole, X)
    rechunked = bkd.fit(CASES[10].make(), masked, da.from_array(y[keep], chunks=25))
    assert_same_model(rechunked, whole, X)


def test_y_not_aligned_with_x_is_named(on_threads):
    X, y = dataset(CASES[0], seed=2, n=100)
    Xd = da.from_array(X, chunks=25)
    with pytest.raises(ShapeError, match=r"y is not aligned with X: it has 99 rows but X has 100"):
        bkd.fit(bk.MultinomialNB(), Xd, y[:99])
    with pytest.raises(ShapeError, match=r"y is not aligned .* 98 rows but X has 100"):
        bkd.fit(bk.MultinomialNB(), Xd, da.from_array(y[:98], chunks=10))
    with pytest.raises(ShapeError, match=r"sample_weight is not aligned .* 3 rows"):
        bkd.fit(bk.MultinomialNB(), Xd, y, sample_weight=[1, 2, 3])
    masked_y = da.from_array(y, chunks=25)[da.from_array(np.arange(100) != 60, chunks=25)]
    # paired with X's partitions (its lengths unknown), then re-split like X when partition 2
    # shows a length of its own: the whole y is one row short
    with pytest.raises(ShapeError, match=r"y is not aligned with X: it has 99 rows but X has 100"):
        bkd.fit(bk.MultinomialNB(), Xd, masked_y)
    with pytest.raises(DataError, match=r"y names the column 'label', which X does not have"):
        bkd.fit(bk.MixedNB(), dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0]}), 1), "label")
    with pytest.raises(InputTypeError, match=r"column name is only accepted .* DataFrame"):
        bkd.fit(bk.MultinomialNB(), Xd, "label")


def _frame(a, b) -> pd.DataFrame:
    return pd.DataFrame({"a": a, "b": b})


def test_partitions_disagreeing_on_columns_or_dtypes_are_named(on_cluster):
    meta = _frame(pd.Series([], dtype="float64"), pd.Series([], dtype="str"))
    good = [_frame([1.0, 2.0], ["x", "y"]), _frame([3.0, 4.0], ["y", "y"])]
    labels = dd.from_pandas(pd.Series(["p", "q", "p", "q", "p", "q"]), npartitions=3)

    def frame_of(parts):
        delayed = [dask.delayed(p) for p in parts]
        return dd.from_delayed(delayed, meta=meta, verify_meta=False)

    wrong_dtype = frame_of([*good, _frame(["5", "6"], ["x", "x"])])
    with pytest.raises(DataError, match=r"partition 2 of X: column 'a' has dtype (object|str)"):
        bkd.fit(bk.MixedNB(), wrong_dtype, labels)
    wrong_columns = frame_of([good[0], pd.DataFrame({"a": [1.0, 2.0], "c": ["x", "y"]}), good[1]])
    with pytest.raises(DataError, match=r"partition 1 of X does not have .*missing \['b'\]"):
        bkd.fit(bk.MixedNB(), wrong_columns, labels)


def test_an_object_column_typed_differently_by_partitions_is_named(on_threads):
    owner = pd.Series([True, False, None, None, True, False], dtype=object)
    frame = pd.DataFrame({"owner": owner, "x": np.arange(6.0)})
    with dask.config.set({"dataframe.convert-string": False}):  # keep the object column
        ddf = dd.from_pandas(frame, npartitions=3)  # partition 1: owner all missing
    with pytest.raises(DataError, match=r"partition 1 of X does not match partition 0: column"):
        bkd.fit(bk.MixedNB(), ddf, ["a", "b"] * 3)
    typed = dd.from_pandas(frame.astype({"owner": "boolean"}), npartitions=3)
    model = bkd.fit(bk.MixedNB(), typed, ["a", "b"] * 3)  # the fix the message gives
    assert model.feature_families_["owner"] == "bernoulli"


def test_other_bad_collections(on_threads):
    with pytest.raises(InputTypeError, match=r"takes X as a dask.array.*not a ndarray"):
        bkd.fit(bk.MultinomialNB(), np.ones((3, 2)), [0, 1, 0])
    with pytest.raises(InputTypeError, match=r"element 0 of partition 0 .* not a \(document"):
        bkd.fit(bk.text.TextClassifier(), db.from_sequence(["a b", "c d"], npartitions=1))
    empty = da.from_array(np.ones((0, 3)), chunks=5)
    with pytest.raises(DataError, match="X has no rows"):
        bkd.fit(bk.MultinomialNB(), empty, np.array([], dtype=str))
    with pytest.raises(bk.errors.NotFittedError):
        bkd.predict(bk.MultinomialNB(), da.ones((3, 2)))


def test_without_dask_the_error_says_what_to_install():
    code = (
        "import sys; sys.modules['dask'] = None\n"
        "try:\n"
        "    import bayeskit.dask\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "MissingDependencyError bayeskit.dask needs dask, which is not installed: "
        'pip install "bayeskit[dask]"'
    )


@pytest.mark.parametrize(
    ("make", "rows"),
    [
        (bk.QuadraticDiscriminantAnalysis, [0] * 20 + [1] * 3),  # class 1: 3 rows, 5 columns
        (bk.LinearDiscriminantAnalysis, [0] * 23),  # one class
    ],
    ids=["QDA-singular", "LDA-one-class"],
)
def test_fit_refuses_what_fit_in_memory_refuses(make, rows, on_threads):
    """The statistics add even when the model cannot be used; the fit is refused as the
    in-memory fit refuses it, with the same message, and the estimator is left unfitted."""
    y = np.asarray(rows)
    X = np.random.default_rng(3).normal(size=(len(y), 5))
    with pytest.raises(DataError) as in_memory:
        make().fit(X, y)
    model = make()
    with pytest.raises(type(in_memory.value)) as on_dask:
        bkd.fit(model, da.from_array(X, chunks=7), da.from_array(y, chunks=7))
    assert _rounding(on_dask.value) == _rounding(in_memory.value)
    assert "stats_" not in model.__dict__


def _rounding(error: BaseException) -> str:
    """The message without its round-off-sized numbers (an eigenvalue of about -1e-16)."""
    return re.sub(r"-?\d\.\d+e-1\d", "<tiny>", str(error))


def test_a_refusal_inside_a_partition_names_the_partition_and_the_row_of_x(on_threads):
    X = np.ones((1000, 2))
    X[737, 1] = -3.0
    y = np.arange(1000) % 2
    with pytest.raises(DataError, match=r"^partition 7 of X, whose row 37 is row 737 of X: .*"):
        bkd.fit(bk.MultinomialNB(), da.from_array(X, chunks=(100, 2)), da.from_array(y, chunks=100))
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(label=y)
    with pytest.raises(
        DataError, match=r"^partition 7 of X, whose row 37 has the index 737: .*'b'"
    ):
        bkd.fit(bk.MultinomialNB(), dd.from_pandas(frame, npartitions=10), "label")
    model = bk.GaussianNB().fit(np.abs(X), y)
    Xp = np.abs(X)
    Xp[737, 0] = np.inf
    with pytest.raises(DataError, match=r"^partition 7 of X, whose row 37 is row 737 of X: X co"):
        bkd.predict(model, da.from_array(Xp, chunks=(100, 2))).compute()
