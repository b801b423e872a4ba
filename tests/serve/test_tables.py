"""Table rows sent to /invocations: columns matched by name (a bare matrix's x0, x1, … too),
every value checked against its column, so that a value of the wrong type is refused by
column and row and never changes the answers of the other rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import bayeskit as bk


def _save(folder: Path, name: str, model) -> Path:
    path = folder / name
    bk.save(model, path)
    return path


@pytest.fixture(scope="module")
def matrix_file(tmp_path_factory) -> Path:
    """A GaussianNB fitted on a bare matrix of two columns, whose second one matters."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 1] > 0).astype(int)
    return _save(tmp_path_factory.mktemp("models"), "g2.bk", bk.GaussianNB().fit(X, y))


@pytest.fixture(scope="module")
def codes_file(tmp_path_factory) -> Path:
    """A CategoricalNB fitted on integer codes 0..2 (a bare matrix)."""
    rng = np.random.default_rng(0)
    model = bk.CategoricalNB().fit(rng.integers(0, 3, (200, 3)), rng.integers(0, 2, 200))
    return _save(tmp_path_factory.mktemp("models"), "c3.bk", model)


@pytest.fixture(scope="module")
def mixed_file(tmp_path_factory) -> Path:
    rng = np.random.default_rng(0)
    frame = pl.DataFrame(
        {
            "age": rng.integers(20, 60, 100),
            "color": rng.choice(["red", "blue"], 100),
            "score": rng.normal(size=100),
        }
    )
    model = bk.MixedNB().fit(frame, rng.choice(["a", "b"], 100))
    return _save(tmp_path_factory.mktemp("models"), "mixed.bk", model)


def _p0(client, body: dict) -> list[float]:
    r = client.post("/invocations", json={**body, "params": {"probabilities": True}})
    assert r.status_code == 200, r.text
    return [row[next(k for k in row if k.startswith("p_"))] for row in r.json()["predictions"]]


def _refused(client, body, says: list[str], content_type: str = "application/json") -> None:
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    r = client.post("/invocations", content=content, headers={"Content-Type": content_type})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    for part in says:
        assert part in error, (part, error)


def test_a_bare_matrix_models_columns_are_matched_by_their_advertised_names(serve, matrix_file):
    model = bk.load(matrix_file)
    client = serve(matrix_file, token=False)
    assert client.get("/metadata").json()["features"] == ["x0", "x1"]
    expected = model.predict_proba(np.array([[0.0, 5.0]]))[0, 0]
    in_order = _p0(client, {"dataframe_records": [{"x0": 0, "x1": 5}]})
    swapped = _p0(client, {"dataframe_records": [{"x1": 5, "x0": 0}]})
    split = _p0(client, {"dataframe_split": {"columns": ["x1", "x0"], "data": [[5, 0]]}})
    columns = _p0(client, {"inputs": {"x1": [5], "x0": [0]}})
    assert in_order == swapped == split == columns == [pytest.approx(expected, rel=1e-12)]
    r = client.post("/invocations", content=b"x1,x0\n5,0\n", headers={"Content-Type": "text/csv"})
    assert r.json()["predictions"] == model.predict(np.array([[0.0, 5.0]])).tolist()
    _refused(client, {"dataframe_records": [{"zz": 0, "yy": 5}]}, ["'zz'", "'yy'", "'x0'"])
    _refused(client, {"inputs": {"x0": [0], "x1": [5], "x2": [1]}}, ["not in training 'x2'"])


@pytest.mark.parametrize("bad", ["0", "a", True, 1.5, [0], {"a": 0}])
def test_a_value_of_the_wrong_type_is_refused_by_column_and_row(serve, codes_file, bad):
    """Not read with the other rows' values as one type (polars made the column text when
    one row held "0", which changed the first row's answer too)."""
    model = bk.load(codes_file)
    client = serve(codes_file, token=False)
    shown = repr(bad) if isinstance(bad, str) else json.dumps(bad)
    _refused(
        client,
        {"inputs": [[0, 1, 2], [bad, 1, 2]]},
        [f"column 'x0' holds {shown} in row 2", "whole numbers"],
    )
    rows = [[0, 1, 2], [2, 2, 0], [1.0, 0, 1]]
    expected = model.predict_proba(np.array(rows, dtype=np.int64))[:, 0].tolist()
    assert _p0(client, {"inputs": rows}) == pytest.approx(expected, rel=1e-12)


def test_text_categories_of_a_bare_matrix_read_a_number_as_its_text(serve, tmp_path):
    """1 sent for a column of text categories "0".."2" is the category "1", as for a named
    text column (it became the number 1.0, never seen in training: a silent other answer)."""
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, (200, 2)).astype(str)
    model = bk.CategoricalNB().fit(codes, rng.integers(0, 2, 200))
    path = _save(tmp_path, "text-codes.bk", model)
    client = serve(path, token=False)
    expected = model.predict_proba(np.array([["1", "2"]]))[0, 0]
    assert _p0(client, {"inputs": [[1, "2"]]}) == [pytest.approx(expected, rel=1e-12)]


def test_a_padded_csv_body_reads_as_the_command_line_reads_it(serve, mixed_file):
    model = bk.load(mixed_file)
    client = serve(mixed_file, token=False)
    padded = b"age, color, score\n 30, red, 0.5\n41 ,blue,-1.25\n"
    r = client.post("/invocations", content=padded, headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text
    frame = pl.DataFrame({"age": [30, 41], "color": [" red", "blue"], "score": [0.5, -1.25]})
    assert r.json()["predictions"] == model.predict(frame).tolist()


def test_an_integer_past_64_bits_is_named(serve, codes_file):
    client = serve(codes_file, token=False)
    _refused(client, {"inputs": [[10**20, 1, 2]]}, ["column 'x0' holds 100000000000000000000"])


NESTED = [
    ({"dataframe_records": [{"age": [1, 2], "color": "red", "score": 0.5}]}, "'age' holds [1, 2]"),
    ({"dataframe_records": [{"age": 30, "color": {"a": 1}, "score": 0.5}]}, "'color' holds {"),
    (
        {"dataframe_split": {"columns": ["age", "color", "score"], "data": [[[1], "red", 0.5]]}},
        "'age' holds [1]",
    ),
    ({"instances": [[30, "red", [0.5]]]}, "'score' holds [0.5]"),
    ({"inputs": {"age": [30], "color": [["red"]], "score": [0.5]}}, "'color' holds [\"red\"]"),
    ({"dataframe_records": [{"age": {}, "color": "red", "score": 0.5}]}, "'age' holds {}"),
]


@pytest.mark.parametrize(("body", "says"), NESTED)
def test_a_nested_value_in_a_table_is_refused_naming_its_column(serve, mixed_file, body, says):
    client = serve(mixed_file, token=False)
    _refused(client, body, [says, "in row 1"])
    assert client.get("/ping").status_code == 200


def test_a_short_csv_row_is_refused_as_the_command_line_refuses_it(serve, mixed_file):
    client = serve(mixed_file, token=False)
    header = "age,color,score\n"
    _refused(client, header + "30,red\n", ["line 2: 2 fields where the header has 3"], "text/csv")
    _refused(client, header + "30,red,0.5\n31,blue,0.1,9\n", ["line 3: 4 fields"], "text/csv")
    r = client.post("/invocations", content=header + "30,red,0.5\n31,blue,\n",
                    headers={"Content-Type": "text/csv"})  # fmt: skip
    assert r.status_code == 200, r.text  # an empty field is a missing value


def test_a_headerless_csv_row_with_the_wrong_count_is_named(serve, matrix_file):
    client = serve(matrix_file, token=False)
    _refused(client, "0.5,1.5,2.5\n", ["line 1: 3 fields where the model reads 2"], "text/csv")
    _refused(client, "0.5\n", ["line 1: 1 field where the model reads 2"], "text/csv")


def test_params_must_be_an_object(serve, mixed_file):
    client = serve(mixed_file, token=False)
    row = {"age": 30, "color": "red", "score": 0.5}
    for params in ([], "yes", 1, False):
        _refused(client, {"inputs": [row], "params": params}, ["params must be a JSON object"])
    r = client.post("/invocations", json={"inputs": [row], "params": None})
    assert r.status_code == 200, r.text


def test_a_column_beside_the_text_is_named(serve, sms_file):
    client = serve(sms_file, token=False)
    records = [{"text": "free prize now", "subject": "hi"}]
    _refused(client, {"dataframe_records": records}, ["'subject'", "leave them out"])
    r = client.post("/invocations", json={"dataframe_records": [{"text": "free prize now"}]})
    assert r.status_code == 200, r.text
    _refused(client, {"inputs": {"text": [["free"]]}}, ["'text' must hold text", "row 1"])


def test_a_quoted_column_name_in_a_csv_body_is_read_as_training_read_it(serve, tmp_path):
    """The header ``a,"q,c"`` written with its quotes doubled (RFC 4180) names the column
    ``"q,c"``, as bayeskit train reads it; polars kept the doubled quotes ("not in training")."""
    frame = pl.DataFrame({"a": [1, 2, 1, 2], '"q,c"': [2.0, 3.0, 2.5, 3.5]})
    model = bk.GaussianNB().fit(frame, ["x", "y", "x", "y"])
    client = serve(_save(tmp_path, "quoted.bk", model), token=False)
    assert client.get("/metadata").json()["features"] == ["a", '"q,c"']
    body = '\ufeffa,"""q,c"""\n1,2\n2,3.5\n'
    r = client.post("/invocations", content=body.encode(), headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text
    assert r.json()["predictions"] == ["x", "y"]


def test_an_unknown_param_is_named(serve, mixed_file):
    """A misspelled parameter ("probabilites") was ignored: labels came back where
    probabilities were asked for."""
    client = serve(mixed_file, token=False)
    row = {"age": 30, "color": "red", "score": 0.5}
    _refused(
        client,
        {"inputs": [row], "params": {"probabilites": True}},
        ["'probabilites'", "accepted: 'probabilities', 'predict_proba'"],
    )
    r = client.post("/invocations", json={"inputs": [row], "params": {"predict_proba": True}})
    assert r.status_code == 200, r.text
    assert "label" in r.json()["predictions"][0]


def test_a_csv_body_as_r_and_pandas_write_it_is_read_as_bayeskit_predict_reads_it(
    serve, mixed_file
):
    """R's write.csv and pandas' to_csv write row names as an unnamed first column, and a
    spreadsheet export may end every line with a separator: set aside, as the command line
    sets them aside, not refused as a column without a name."""
    model = bk.load(mixed_file)
    client = serve(mixed_file, token=False)
    expected = model.predict(
        pl.DataFrame({"age": [30, 41], "color": ["red", "blue"], "score": [0.5, -1.25]})
    ).tolist()
    for body in (
        '"","age","color","score"\n"1",30,"red",0.5\n"2",41,"blue",-1.25\n',  # write.csv
        '"age","color","score"\n"1",30,"red",0.5\n"2",41,"blue",-1.25\n',  # write.table
        ",age,color,score\n0,30,red,0.5\n1,41,blue,-1.25\n",  # to_csv
        "age,color,score,\n30,red,0.5,\n41,blue,-1.25,\n",  # a separator ending each line
    ):
        r = client.post("/invocations", content=body, headers={"Content-Type": "text/csv"})
        assert r.status_code == 200, r.text
        assert r.json()["predictions"] == expected
    body = "age,color,score,\n30,red,0.5,\n41,blue,-1.25,7\n"
    _refused(client, body, ["last column (4) has no name", "data row 2 holds"], "text/csv")


def test_a_csv_body_separated_otherwise_is_refused_saying_text_csv_takes_commas(serve, mixed_file):
    client = serve(mixed_file, token=False)
    for body, name in (
        ("age;color;score\n30;red;0.5\n", "semicolons"),
        ('"age";"color";"score"\n30;"red";0.5\n', "semicolons"),
        ("age\tcolor\tscore\n30\tred\t0.5\n", "tabs"),
    ):
        says = [f"first line holds {name} and no comma", "separated by commas (RFC 4180)"]
        _refused(client, body, says, "text/csv")
