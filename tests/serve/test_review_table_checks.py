"""A hostile review of /invocations for table models: a CSV header the model does not know,
repeated names, repeated JSON keys, compressed bodies and query values the server does not
read are refused by name (a 4xx naming what is accepted), never read as something else."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import bayeskit as bk


def _post(client, body: bytes | str, content_type: str, **headers: str):
    content = body.encode() if isinstance(body, str) else body
    return client.post(
        "/invocations", content=content, headers={"Content-Type": content_type, **headers}
    )


def _says(response, status: int, parts: list[str]) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for part in parts:
        assert part in message, (part, message)


@pytest.mark.parametrize("header", ["A,B", "a,B", " A , b", "B,A"])
def test_a_csv_header_naming_the_columns_in_another_case_is_not_read_as_a_row(
    serve, categories_file, header
):
    """bayeskit predict refuses such a header naming the columns; the service read it as a
    row of unseen categories and answered one row more than the body holds."""
    client = serve(categories_file, token=False)
    r = _post(client, f"{header}\nx,p\n", "text/csv")
    _says(r, 400, ["the columns differ from the model's", "missing"])


def test_a_headerless_csv_row_is_still_read(serve, categories_file):
    model = bk.load(categories_file)
    client = serve(categories_file, token=False)
    r = _post(client, "x,p\ny,q\n", "text/csv")
    assert r.status_code == 200, r.text
    frame = pl.DataFrame({"a": ["x", "y"], "b": ["p", "q"]})
    assert r.json()["predictions"] == model.predict(frame).tolist()


@pytest.mark.parametrize("body", ["a,b,a\nx,p,y\n", "a,a\nx,p\n", "a, b,b\nx,p,q\n"])
def test_a_csv_header_naming_a_column_twice_is_named(serve, categories_file, body):
    """As bayeskit predict says it (polars' words were "found more fields than defined in
    'Schema' Consider setting 'truncate_ragged_lines=True'")."""
    client = serve(categories_file, token=False)
    _says(_post(client, body, "text/csv"), 400, ["line 1", "twice"])


@pytest.mark.parametrize(
    "body",
    [
        '{"dataframe_records": [{"a": "x", "a": "y", "b": "p"}]}',
        '{"dataframe_split": {"columns": ["a", "b"], "data": [["x", "p"]], "data": []}}',
        '{"instances": [["x", "p"]], "instances": [["y", "q"]]}',
    ],
)
def test_a_json_object_naming_a_key_twice_is_refused(serve, categories_file, body):
    """RFC 8259, section 4: the names of an object should be unique; a parser's choice of
    one value (Python's: the last) would answer for a row that was not meant."""
    client = serve(categories_file, token=False)
    _says(_post(client, body, "application/json"), 400, ["twice"])


@pytest.mark.parametrize("coding", ["gzip", "br", "deflate"])
def test_a_compressed_body_is_refused_naming_its_coding(serve, categories_file, coding):
    """RFC 9110, section 8.4: a content coding the server does not decode is a 415 naming
    it (a gzipped body was read as bad UTF-8, and a plain one labelled gzip was answered)."""
    client = serve(categories_file, token=False)
    body = json.dumps({"instances": [["x", "p"]]}).encode()
    for content in (body, gzip.compress(body)):
        r = _post(client, content, "application/json", **{"Content-Encoding": coding})
        _says(r, 415, [f"Content-Encoding {coding!r}", "identity"])
    r = _post(client, body, "application/json", **{"Content-Encoding": "identity"})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("value", ["maybe", "ture", "2"])
def test_a_query_probabilities_value_not_understood_is_refused(serve, categories_file, value):
    """?probabilities=ture answered labels alone, as params' misspelled key would have."""
    client = serve(categories_file, token=False)
    body = json.dumps({"instances": [["x", "p"]]}).encode()

    def ask(flag):
        return client.post(
            f"/invocations?probabilities={flag}",
            content=body,
            headers={"Content-Type": "application/json"},
        )

    _says(ask(value), 400, ["probabilities", repr(value), "true"])
    for yes in ("true", "1", "yes", "TRUE"):
        r = ask(yes)
        assert r.status_code == 200, r.text
        assert "p_no" in r.json()["predictions"][0]
    for no in ("false", "0", "no", ""):
        r = ask(no)
        assert r.status_code == 200, r.text
        assert isinstance(r.json()["predictions"][0], str)


def test_a_number_of_thousands_of_digits_is_refused_in_the_servers_words(serve, categories_file):
    """Python's words ("use sys.set_int_max_str_digits() to increase the limit") are advice
    to the server's programmer, not to its client."""
    client = serve(categories_file, token=False)
    body = '{"instances": [[' + "9" * 10_000 + ', "p"]]}'
    r = _post(client, body, "application/json")
    _says(r, 400, ["10000 digits", "4300"])
    assert "sys." not in r.json()["error"]


WIDE = 20_000


@pytest.mark.parametrize("shape", ["records", "csv"])
def test_a_request_of_thousands_of_unknown_columns_is_refused_by_their_names(
    serve, categories_file, monkeypatch, shape
):
    """Refused from the names alone: a frame of 200,000 columns, built only to name them in
    the error, cost seconds of the server's time for a body of 3 MB."""
    client = serve(categories_file, token=False)
    names = [f"c{j}" for j in range(WIDE)]
    if shape == "records":
        body = json.dumps({"dataframe_records": [dict.fromkeys(names, 1)]})
        content_type = "application/json"
    else:
        body = ",".join(names) + "\n" + ",".join("1" * WIDE) + "\n"
        content_type = "text/csv"

    def built(*args, **kwargs):
        raise AssertionError("a frame was built for a request refused by its column names")

    monkeypatch.setattr(pl, "DataFrame", built)
    monkeypatch.setattr(pl, "read_csv", built)
    r = _post(client, body, content_type)
    _says(r, 400, ["missing 'a', 'b'", "not in training 'c0'", f"({WIDE - 10} more)"])


@pytest.fixture(scope="module")
def numbers_file(tmp_path_factory) -> Path:
    """A GaussianNB fitted on two named columns of numbers."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"age": rng.normal(40, 10, 120), "score": rng.normal(size=120)})
    model = bk.GaussianNB().fit(frame, rng.choice(["no", "yes"], 120))
    path = tmp_path_factory.mktemp("models") / "numbers.bk"
    bk.save(model, path)
    return path


@pytest.mark.parametrize("value", ["1_000", "\u0661\u0662", "\uff13\uff10"])
def test_a_number_written_other_than_in_ascii_digits_is_refused(serve, numbers_file, value):
    """Python's float() reads "1_000" as 1000 and Arabic-Indic or full-width digits as
    numbers; bayeskit predict refuses such a field, and so does the service, in JSON and
    CSV alike (it answered for age 1000)."""
    client = serve(numbers_file, token=False)
    r = client.post("/invocations", json={"dataframe_records": [{"age": value, "score": 0.5}]})
    _says(r, 400, [f"column 'age' holds {value!r} in row 1", "numbers"])
    if value.isascii():  # (polars itself refuses the others, in its own words)
        _says(_post(client, f"age,score\n{value},0.5\n", "text/csv"), 400, ["'1_000'"])
    r = client.post("/invocations", json={"dataframe_records": [{"age": " 30", "score": "1e1"}]})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("sent", ["gro\u0308\u00dfe", "\u200fgr\u00f6\u00dfe"])
def test_a_column_name_in_another_unicode_form_is_named_so(serve, tmp_path, sent):
    """'größe' in NFD (o and a combining diaeresis) or behind a right-to-left mark is
    refused, as before, but the error said "missing 'größe'; not in training 'größe'", two
    names that look the same; it now shows their code points and says why they differ."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"gr\u00f6\u00dfe": rng.normal(size=50), "b": rng.normal(size=50)})
    path = tmp_path / "u.bk"
    bk.save(bk.GaussianNB().fit(frame, rng.choice(["x", "y"], 50)), path)
    client = serve(path, token=False)
    for r in (
        client.post("/invocations", json={"dataframe_records": [{sent: 1.0, "b": 2.0}]}),
        _post(client, f"{sent},b\n1,2\n", "text/csv"),
    ):
        _says(r, 400, ["Unicode normalization form", "U+00F6", "send the model's spelling"])


def test_two_content_type_headers_are_refused(serve, categories_file):
    """The first was read as the body's type, whatever the second said."""
    client = serve(categories_file, token=False)
    r = client.post(
        "/invocations",
        content=b"a,b\nx,p\n",
        headers=[("Content-Type", "text/csv"), ("Content-Type", "application/json")],
    )
    _says(r, 400, ["2 Content-Type headers", "'text/csv'", "'application/json'", "send one"])
