"""A value a model refuses, met in a file, is named by the file and its row counted from 1 (as
the readers count data rows), in the file's own column names — not by numpy's 0-based
``X[i, j]``, which is the Python API's message."""

from __future__ import annotations

import pickle

import pytest

from bayeskit.errors import DataError
from bayeskit.naive_bayes import MultinomialNB

ROWS = 30
BAD = 25  # the data row (from 1) holding the negative count


@pytest.fixture
def counts(tmp_path):
    rows = [f"{i % 6},{(i * 7) % 5},{'xz'[i % 2]}" for i in range(ROWS)]
    rows[BAD - 1] = "3,-2,x"
    (tmp_path / "bad.csv").write_text("a,b,y\n" + "\n".join(rows) + "\n")
    rows[BAD - 1] = "3,2,x"
    (tmp_path / "good.csv").write_text("a,b,y\n" + "\n".join(rows) + "\n")
    return tmp_path


MESSAGE = (
    f"bad.csv, row {BAD}: column 'b' holds -2.0; a multinomial model takes non-negative counts "
    "or frequencies"
)


@pytest.mark.parametrize(
    "more",
    [["--batch-size", "7"], ["--batch-size", "100000"], ["--batch-size", "7", "--workers", "1"]],
)
def test_train_names_the_row_of_the_file(cli, counts, more):
    # (with --workers the batches are learned on a Dask worker of a local cluster)
    result = cli("train", counts / "bad.csv", "-t", "y", "-m", "multinomial", "-o",
                 counts / "m.bkm", *more)  # fmt: skip
    assert result.exit_code == 2
    assert MESSAGE in result.stderr


def test_predict_and_evaluate_name_the_row_of_the_file(cli, counts):
    model = counts / "m.bkm"
    trained = cli("train", counts / "good.csv", "-t", "y", "-m", "multinomial", "-o", model)
    assert trained.exit_code == 0, trained.output
    predicted = cli("predict", model, counts / "bad.csv")
    assert predicted.exit_code == 2
    assert MESSAGE in predicted.stderr
    held_out = cli("evaluate", counts / "good.csv", "-t", "y", "-m", "multinomial", "--test",
                   counts / "bad.csv")  # fmt: skip
    assert held_out.exit_code == 2
    assert MESSAGE in held_out.stderr
    # cross-validation: each fold's rows mapped back to the file's
    folds = cli("evaluate", counts / "bad.csv", "-t", "y", "-m", "multinomial")
    assert folds.exit_code == 2
    assert MESSAGE in folds.stderr
    stdin = cli("predict", model, "-", "-f", "csv", input=(counts / "bad.csv").read_text())
    assert stdin.exit_code == 2
    assert MESSAGE.replace("bad.csv", "<stdin>") in stdin.stderr


def test_the_python_message_and_the_row_survive_a_process_boundary():
    with pytest.raises(DataError) as caught:
        MultinomialNB().fit([[1, 2], [3, -2]], [0, 1])
    assert "X[1, 1] = -2.0" in str(caught.value)  # scikit-learn's wording, 0-based
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.row, again.detail) == (1, caught.value.detail)
    assert str(again) == str(caught.value)


@pytest.mark.parametrize("more", [[], ["--batch-size", "7"], ["--batch-size", "1000"]])
def test_a_text_value_in_a_column_of_numbers_is_named_by_its_row(cli, tmp_path, more):
    rows = [f"{i % 6},{(i * 7) % 5},{'xz'[i % 2]}" for i in range(ROWS)]
    rows[BAD - 1] = "abc,2,x"  # after the first batch of 7 rows
    (tmp_path / "text.csv").write_text("a,b,y\n" + "\n".join(rows) + "\n")
    result = cli("train", tmp_path / "text.csv", "-t", "y", "-m", "multinomial", "-o",
                 tmp_path / "m.bkm", *more)  # fmt: skip
    assert result.exit_code == 2, result.output
    assert (
        f"text.csv, row {BAD}: column 'a' holds 'abc'; --model multinomial takes numbers only"
        in result.output
    )
    assert not (tmp_path / "m.bkm").exists()
