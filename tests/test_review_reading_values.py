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


# ------------------------------------------------------------------ the command line's reading
# MASS::Cars93 as R's write.csv writes it: AirBags is "None", "Driver only" or "Driver &
# Passenger" (34 of its 93 rows "None"); these rows keep its proportions.
CARS = (
    '"Type","AirBags","Origin","Price"\n'
    + '"Small","None","non-USA",15.9\n' * 6
    + '"Small","Driver only","USA",12.1\n' * 2
    + '"Midsize","Driver only","USA",33.9\n' * 5
    + '"Midsize","Driver & Passenger","non-USA",NA\n' * 2
    + '"Large","Driver & Passenger","USA",29.5\n' * 3
    + '"Large","None","USA",20.8\n' * 2
)


def test_none_is_a_category_not_a_missing_marker():
    """pandas' na_values read "None" as missing, and the command line took them: Cars93's
    AirBags lost its category "None" (34 of 93 rows) without a word, and as the target it
    refused the file ("row 1 has no value in the target column")."""
    from bayeskit.io.readers import DEFAULT_MISSING, read_table

    assert "None" not in DEFAULT_MISSING
    frame = read_table(CARS.encode(), format="csv")
    assert frame.get_column("AirBags").null_count() == 0
    assert frame.get_column("AirBags").value_counts().height == 3
    assert frame.get_column("Price").null_count() == 2  # R's NA still is missing


def test_training_on_none_as_a_class_and_as_a_feature(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    path = tmp_path / "cars.csv"
    path.write_text(CARS)
    runner = CliRunner()
    result = runner.invoke(app, ["train", str(path), "-t", "AirBags", "-o", str(tmp_path / "a")])
    assert result.exit_code == 0, result.stderr
    assert "classes: Driver & Passenger 5, Driver only 7, None 8" in result.stdout
    result = runner.invoke(app, ["train", str(path), "-t", "Type", "-o", str(tmp_path / "t.bkm")])
    assert result.exit_code == 0, result.stderr
    assert "read as missing" not in result.stderr
    assert bk.load(tmp_path / "t.bkm").categories_["AirBags"].tolist() == [
        "Driver & Passenger",
        "Driver only",
        "None",
    ]


@pytest.mark.parametrize("batch_size", [None, "4"])
def test_a_marker_read_as_missing_among_categories_is_noted(tmp_path, batch_size):
    """Where a word marker (R's NA) stands in a column of categories, it may be a category
    (the ``NA`` of a table that spells "none" so): training says so, naming the column and
    the marker, and how to read it as a value."""
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    path = tmp_path / "cars.csv"
    path.write_text(CARS.replace('"None"', "NA"))
    args = ["train", str(path), "-t", "Type", "-o", str(tmp_path / "t.bkm")]
    args += ["--batch-size", batch_size] if batch_size else []
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "read as missing" in line]
    assert lines == [
        "note: fields written 'NA' were read as missing in column 'AirBags', which holds "
        "categories (a usual missing marker); if that is one of the categories, pass "
        "--no-default-missing (only empty fields and --missing values are then missing)"
    ]  # (Price, a column of numbers with NA, is not named)
    result = CliRunner().invoke(app, [*args, "--no-default-missing"])
    assert result.exit_code == 0, result.stderr
    assert "read as missing" not in result.stderr
    assert "NA" in bk.load(tmp_path / "t.bkm").categories_["AirBags"].tolist()


ZIPS = "zip,level,y\n" + "".join(
    f"{z},{lv},{c}\n"
    for z, lv, c in [("02134", "01", "a"), ("10001", "1", "b"), ("02139", "02", "a")] * 4
    + [("90210", "2", "b")] * 4
)


def test_leading_zeros_are_kept_as_codes():
    """ "02134" read as the integer 2134, and the levels "01" and "1" as one category."""
    from bayeskit.io.readers import read_table

    frame = read_table(ZIPS.encode(), format="csv")
    assert frame.get_column("zip").to_list()[:3] == ["02134", "10001", "02139"]
    assert frame.get_column("level").n_unique() == 4
    plain = read_table(b"n,y\n1,a\n10,b\n0,a\n-3,b\n0.5,a\n", format="csv")
    assert plain.get_column("n").dtype.is_float()  # 0 and 0.5 are no leading zeros


def test_leading_zeros_are_kept_in_batches_and_at_predict(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app
    from bayeskit.io.stream import TableStream

    path = tmp_path / "zips.csv"
    path.write_text(ZIPS)
    batches = list(TableStream(path, target="y", batch_size=3))
    assert batches[0].X.get_column("level").to_list() == ["01", "1", "02"]
    runner = CliRunner()
    model = tmp_path / "zips.bkm"
    result = runner.invoke(app, ["train", str(path), "-t", "y", "-o", str(model)])
    assert result.exit_code == 0, result.stderr
    assert "column 'zip' holds whole numbers with leading zeros written as text (02134)" in (
        result.stderr
    )
    assert sorted(bk.load(model).categories_["level"].tolist()) == ["01", "02", "1", "2"]
    new = tmp_path / "new.csv"
    new.write_text("zip,level\n02134,01\n10001,1\n")
    result = runner.invoke(app, ["predict", str(model), str(new)])
    assert result.exit_code == 0, result.stderr
    assert [line.split(",")[0] for line in result.stdout.splitlines()[1:]] == ["a", "b"]
