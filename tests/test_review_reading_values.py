"""How mixed tables' values are read: integers beyond float64's exact range, fractions among
whole-number categories, pandas' integer columns turned float by a missing value, and the
command line's missing markers and leading zeros."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError

BIG = 2**53  # 2**53 + 1 has no float64: it reads as 2**53
Y = np.array(["a", "b", "a", "a", "b", "a"] * 4)


def _big_codes(frame: str):
    values = [BIG, BIG + 1, None, BIG, BIG + 1, BIG] * 4
    if frame == "polars":
        return pl.DataFrame({"code": values})
    return pd.DataFrame({"code": pd.array(values, dtype="Int64")})


@pytest.mark.parametrize("frame", ["polars", "pandas"])
@pytest.mark.parametrize(
    "make",
    [lambda: bk.MixedNB(integers="categorical"), bk.CategoricalNB, bk.TANClassifier],
    ids=["MixedNB", "CategoricalNB", "TAN"],
)
def test_nullable_integers_beyond_2_53_stay_exact_categories(frame, make):
    """A nullable integer column with a missing value went through float64: 2**53 + 1 became
    2**53, so two identifiers merged into one category and the rows of the second were read
    as the first (no error, no warning)."""
    X = _big_codes(frame)
    model = make().fit(X, Y)
    categories = (
        model.categories_["code"] if isinstance(model.categories_, dict) else model.categories_[0]
    )
    assert sorted(int(c) for c in categories) == [BIG, BIG + 1]
    assert model.predict(X.head(2)).tolist() == ["a", "b"]  # BIG + 1 is always class b


def test_nullable_integers_in_float_range_are_read_as_before():
    X = pd.DataFrame({"n": pd.array([1, 2, None, 3] * 5, dtype="Int64")})
    model = bk.CategoricalNB().fit(X, ["a", "b"] * 10)
    assert model.categories_[0].dtype.kind == "f"  # the fast float path, unchanged


@pytest.mark.parametrize(
    "make",
    [
        lambda: bk.MixedNB(integers="categorical"),
        bk.CategoricalNB,
        bk.TANClassifier,
        bk.AODEClassifier,
        bk.KDBClassifier,
    ],
    ids=["MixedNB", "CategoricalNB", "TAN", "AODE", "KDB"],
)
@pytest.mark.parametrize(
    "given",
    [
        pd.DataFrame({"n": [2.5]}),
        pd.DataFrame({"n": pd.Series([2.5, None], dtype=object)}),
        np.array([[2.5]]),
    ],
    ids=["pandas", "object", "numpy"],
)
def test_a_fraction_among_whole_number_categories_is_refused(make, given):
    """2.5 in a column learned as the categories 1, 2, 3 was scored as a value never seen:
    the column dropped out of the row without a word."""
    X = pd.DataFrame({"n": [1, 2, 3, 1, 2, 3, 1, 2, 3, 1] * 2})
    plain = isinstance(given, np.ndarray)
    model = make().fit(X.to_numpy() if plain else X, Y[:20])
    with pytest.raises(BayeskitError, match=r"holds 2\.5, a number between whole-number") as e:
        model.predict_proba(given)
    assert isinstance(e.value, ValueError)
    # whole floats (pandas' NaN-promoted integers) and values never seen are still scored
    scored = np.array([[2.0], [np.nan], [7.0]])
    assert model.predict_proba(scored if plain else pd.DataFrame(scored, columns=["n"])).shape == (
        3,
        2,
    )


@pytest.mark.parametrize(
    "make", [bk.TANClassifier, bk.AODEClassifier, bk.KDBClassifier], ids=["TAN", "AODE", "KDB"]
)
def test_pandas_integers_with_a_missing_value_stay_categories_in_a_network(make):
    """pandas turns an integer column with one missing value into float64; the network then
    cut it into intervals (one interval here: the column was lost) instead of counting its
    categories as it does without the missing value."""
    a = [1, 2, 3, 1, 2, 3, 1, 2, 3, 1] * 2
    y = np.where(np.array(a) == 2, "b", "a")
    with_missing = pd.DataFrame({"a": [*a[:-1], None], "b": [1, 2] * 10})
    assert with_missing["a"].dtype == np.float64
    model = make().fit(with_missing, y)
    assert model.cut_points_ == {}
    assert sorted(model.stats_.blocks[0].categories[0].tolist()) == [1, 2, 3]
    assert model.predict(pd.DataFrame({"a": [2, 3], "b": [1, 1]})).tolist() == ["b", "a"]


def test_pandas_integers_with_a_missing_value_follow_mixednb_integers():
    X = pd.DataFrame({"a": [1.0, 2.0, None, 3.0] * 5, "x": [0.5, 1.5, 2.5, 3.5] * 5})
    model = bk.MixedNB(integers="categorical").fit(X, ["a", "b"] * 10)
    assert model.feature_families_["a"] == "categorical"
    assert model.feature_families_["x"] != "categorical"  # real floats stay numbers
