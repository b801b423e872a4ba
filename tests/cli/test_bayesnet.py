"""The command line builds the Bayesian network classifiers: --model tan|aode|kdb on a table
of categories and one of numbers, saved models equal to the library's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk


@pytest.mark.parametrize(
    ("choice", "cls"),
    [("tan", bk.TANClassifier), ("aode", bk.AODEClassifier), ("kdb", bk.KDBClassifier)],
)
def test_train_each_network_on_mushroom(cli, mushroom_csv, tmp_path, choice, cls):
    path = tmp_path / f"{choice}.bkm"
    result = cli(
        "train", mushroom_csv, "--target", "class", "--missing", "?", "--model", choice, "-o", path
    )
    assert result.exit_code == 0, result.stderr
    assert f"model: {cls.__name__}()" in result.stdout
    model = bk.load(path)
    frame = pl.read_csv(mushroom_csv, null_values="?")
    X, y = frame.drop("class"), frame.get_column("class").to_numpy()
    np.testing.assert_allclose(model.predict_proba(X), cls().fit(X, y).predict_proba(X))


def test_numbers_are_cut_into_intervals(cli, tmp_path: Path):
    data = load_wine(as_frame=True)
    frame = pl.from_pandas(data.frame.rename(columns={"od280/od315_of_diluted_wines": "od280"}))
    csv = tmp_path / "wine.csv"
    frame.with_columns(pl.col("target").cast(pl.String)).write_csv(csv)
    path = tmp_path / "tan.bkm"
    result = cli("train", csv, "--target", "target", "--model", "tan", "-o", path)
    assert result.exit_code == 0, result.stderr
    model = bk.load(path)
    assert set(model.cut_points_) == set(frame.drop("target").columns)
