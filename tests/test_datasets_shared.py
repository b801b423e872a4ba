"""The shared data folder's readers: a folder that does not hold a dataset, a name or subset
that does not exist and a malformed file are each refused by name (tests skip on the first),
and nothing is read from anywhere else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bayeskit.datasets import shared
from bayeskit.errors import DatasetNotFoundError, ParameterError, ReadError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "load",
    [
        lambda root: shared.load_uci_table("voting", root),
        lambda root: shared.load_sms_collection(root),
        lambda root: shared.load_20newsgroups("train", root),
        lambda root: shared.load_spambase(root),
    ],
    ids=["uci", "sms", "20newsgroups", "spambase"],
)
def test_a_folder_without_the_dataset_names_the_path(tmp_path, load):
    with pytest.raises(DatasetNotFoundError, match=f"{tmp_path}.* does not hold the dataset"):
        load(tmp_path)
    assert issubclass(DatasetNotFoundError, FileNotFoundError)  # (what callers caught before)


def test_a_wrong_data_folder_skips_the_tests_that_read_it(tmp_path):
    """BAYESKIT_DATA naming a folder that exists but holds no dataset (its parent, say)
    skips a test reading it, as no folder at all does; before, the test failed."""
    test = "tests/naive_bayes/test_binomial.py::test_votes_with_missing_values_match_categorical_nb"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", test],
        cwd=ROOT,
        env={**os.environ, "BAYESKIT_DATA": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "does not hold the dataset" in done.stdout


def test_unknown_names_are_refused_naming_the_accepted_ones(tmp_path):
    with pytest.raises(ParameterError, match="'iris'; accepted: mushroom, car, nursery, voting"):
        shared.load_uci_table("iris", tmp_path)
    with pytest.raises(ParameterError, match="subset='valid'; accepted: 'train' or 'test'"):
        shared.load_20newsgroups("valid", tmp_path)


def test_an_empty_newsgroups_folder_is_no_dataset(tmp_path):
    (tmp_path / "20newsgroups-bydate" / "20news-bydate-test").mkdir(parents=True)
    with pytest.raises(DatasetNotFoundError, match="holds no posts"):
        shared.load_20newsgroups("test", tmp_path)


def test_a_ragged_table_names_its_row(tmp_path):
    folder = tmp_path / "uci-car-evaluation"
    folder.mkdir()
    (folder / "car.data").write_text("a,b,c\n\nd,e\n", "ascii")
    with pytest.raises(ReadError, match="row 2 has 2 fields where row 1 has 3"):
        shared.load_uci_table("car", tmp_path)
