"""A categorical column held as text where the model learned numbers (``"3"`` for ``3``), or
the reverse, is refused by name: every row was scored as holding values never seen (0.5/0.5
on two balanced classes), silently."""

import numpy as np
import pandas as pd
import pytest

from bayeskit import MixedNB
from bayeskit.errors import DataError
from bayeskit.naive_bayes import CategoricalNB

X = np.array([[1, 2], [3, 2], [1, 5], [3, 5]] * 5)
y = np.array([0, 0, 1, 1] * 5)


@pytest.mark.parametrize(
    ("train", "query", "says"),
    [
        (X, np.array([["1", "5"]]), "column 'x0' holds '1', text, where the model learned 1"),
        (X, np.array([["3.0", "2"]]), "column 'x0' holds '3.0', text, where the model learned 3"),
        (
            X.astype(str),
            np.array([[1, 5]]),
            "column 'x0' holds 1, a number, where the model learned '1'",
        ),
        (
            X.astype(str),
            np.array([[3.0, 5.0]]),
            "column 'x0' holds 3.0, a number, where the model learned '3'",
        ),
    ],
)
def test_the_other_kind_of_a_learned_value_is_refused(train, query, says):
    model = CategoricalNB().fit(train, y)
    with pytest.raises(DataError, match="row 0: " + says.replace("(", r"\(")) as caught:
        model.predict_proba(query)
    assert caught.value.row == 0
    assert "pass the column as it was in training" in str(caught.value)


def test_new_values_and_columns_with_learned_ones_are_scored_as_before():
    model = CategoricalNB().fit(X, y)
    # a value that spells no learned category is a value never seen, of whatever kind
    np.testing.assert_allclose(model.predict_proba(np.array([["x", "y"]])), [[0.5, 0.5]])
    np.testing.assert_allclose(model.predict_proba(np.array([[7, 9]])), [[0.5, 0.5]])
    # a column holding some learned values is the model's: its other values are new ones
    mixed = np.array([[1, "2"], [3, 5]], dtype=object)
    expected = model.predict_proba(np.array([[1, 2], [3, 5]]))
    assert model.predict_proba(mixed)[1].tolist() == expected[1].tolist()
    # bools are labels, never spelled as numbers
    flags = CategoricalNB().fit(np.array([[True], [False]] * 10), y)
    assert flags.predict_proba(np.array([[1]])).shape == (1, 2)


def test_a_mixed_table_names_its_column():
    frame = pd.DataFrame({"size": [1, 3, 1, 3] * 5, "colour": ["r", "g", "g", "r"] * 5})
    model = MixedNB(families={"size": "categorical", "colour": "categorical"}).fit(frame, y)
    query = pd.DataFrame({"size": ["3"], "colour": ["r"]})
    with pytest.raises(DataError, match="column 'size' holds '3', text, where the model learned 3"):
        model.predict(query)


def test_the_command_line_names_the_file_row_and_column(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    (tmp_path / "train.csv").write_text("c,d,label\n1,x,p\n2,y,q\n1,y,p\n2,x,q\n")
    (tmp_path / "new.csv").write_text("c,d\n1,x\n2.0,y\n")
    runner = CliRunner()
    model = tmp_path / "m.bk"
    args = ["train", str(tmp_path / "train.csv"), "--target", "label", "--model", "categorical"]
    assert runner.invoke(app, [*args, "-o", str(model)]).exit_code == 0
    done = runner.invoke(app, ["predict", str(model), str(tmp_path / "new.csv")])
    # (the file's values are read as the model's numbers: nothing to refuse)
    assert done.exit_code == 0, done.stderr
