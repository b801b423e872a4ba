"""What a hostile review of the service noticed and left: a full disk's 507 given to the
other learns of its group, a redirect built from the Host header, CSV headers and RFC 4180's
``header`` parameter, NaN in JSON, unknown ``dataframe_split`` keys, Python reprs in
answers, and a long journal replayed at start without a word.

Each is checked on a real server (uvicorn in a thread, :class:`ThreadServer`) or, for what
the HTTP layer does not change, through the app.
"""

from __future__ import annotations

import errno
import http.client
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import bayeskit as bk
import bayeskit.serve.journal as journal_module
from bayeskit.serve import ServeConfig
from bayeskit.serve.state import ModelState

from .conftest import AUTH, HAMMY, SPAMMY, ThreadServer
from .test_server import call


@pytest.fixture(scope="module")
def measures_file(tmp_path_factory) -> Path:
    """A GaussianNB fitted on two named columns of numbers."""
    rng = np.random.default_rng(1)
    frame = pl.DataFrame({"u": rng.normal(size=80), "v": rng.normal(size=80)})
    path = tmp_path_factory.mktemp("models") / "gauss.bk"
    bk.save(bk.GaussianNB().fit(frame, rng.choice(["no", "yes"], 80)), path)
    return path


@pytest.fixture(scope="module")
def codes_file(tmp_path_factory) -> Path:
    """A CategoricalNB fitted on two columns of integer codes."""
    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"a": rng.integers(0, 3, 90), "b": rng.integers(0, 3, 90)})
    path = tmp_path_factory.mktemp("models") / "codes.bk"
    bk.save(bk.CategoricalNB().fit(frame, rng.choice(["no", "yes"], 90)), path)
    return path


def _says(response, status: int, parts: list[str]) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for part in parts:
        assert part in message, (part, message)


# ------------------------------------------------------------------ 1. a full disk in a group
def _learn(port: int, path: str, text: str) -> tuple[int, dict]:
    return call(port, "POST", path, text.encode(), AUTH)


def test_a_full_disk_leaves_the_other_answers_of_its_group_as_they_are(
    sms_file, model_copy, token_file, monkeypatch
):
    """A learn refused for a full disk (507) turned every other request queued behind it
    into a 507 too, a duplicate learn and an unlearn of a message never learned included,
    which need no journal line: each now keeps its own answer."""
    model = model_copy(sms_file)
    config = ServeConfig(model=str(model), token_file=str(token_file), save_interval=3600)
    server = ThreadServer(config)  # (no save meanwhile: its checkpoint would fsync too)
    state = server._server.config.app.service.state
    try:
        assert _learn(server.port, "/learn/spam", SPAMMY)[0] == 200  # durable
        entered, release = threading.Event(), threading.Event()
        real_fsync = journal_module._fsync

        def full(fd: int) -> None:
            entered.set()
            release.wait(30)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(journal_module, "_fsync", full)
        answers: dict[str, tuple[int, dict]] = {}

        def send(name: str, path: str, text: str) -> threading.Thread:
            thread = threading.Thread(
                target=lambda: answers.__setitem__(name, _learn(server.port, path, text))
            )
            thread.start()
            return thread

        threads = [send("first", "/learn/ham", HAMMY)]
        assert entered.wait(30)  # its group's fsync is under way: the others queue behind
        threads += [
            send("new", "/learn/ham", f"{HAMMY} and more"),
            send("duplicate", "/learn/spam", SPAMMY),
            send("never learned", "/unlearn/ham", "a message nobody sent"),
            send("other label", "/unlearn/ham", SPAMMY),
        ]
        deadline = time.monotonic() + 30
        while state._queue.qsize() < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert state._queue.qsize() == 4
        release.set()
        for thread in threads:
            thread.join(30)
        monkeypatch.setattr(journal_module, "_fsync", real_fsync)
        assert answers["first"][0] == 507
        assert answers["new"][0] == 507
        status, got = answers["duplicate"]
        assert status == 200, got
        assert got["duplicate"] is True
        assert got["learned"] is False
        status, got = answers["never learned"]
        assert status == 409, got
        assert "never learned" in got["error"]
        status, got = answers["other label"]
        assert status == 409, got
        assert "learned as 'spam', not 'ham'" in got["error"]
        # nothing of the refused learns was kept, and learning goes on
        assert call(server.port, "GET", "/health")[1]["learned_messages"] == 1
        assert _learn(server.port, "/learn/ham", HAMMY)[0] == 200
    finally:
        server.kill()


# ------------------------------------------------------------------ 2. a trailing slash
@pytest.mark.parametrize(
    ("method", "path", "meant"),
    [("GET", "/metadata/", "/metadata"), ("POST", "/invocations/", "/invocations"),
     ("GET", "/health//", "/health"), ("GET", "/nothing/", None)],
)  # fmt: skip
def test_a_trailing_slash_is_no_redirect_to_the_host_header(
    topics_file, model_copy, method, path, meant
):
    """``GET /metadata/`` was a 307 with an empty body whose Location was built from the
    request's Host header; now a 404 as other unknown paths get, naming the path meant."""
    server = ThreadServer(ServeConfig(model=str(model_copy(topics_file)), allow_hosts=("*",)))
    try:
        headers = {"Host": "elsewhere.example", "Content-Type": "application/json"}
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        conn.request(method, path, body=b'{"inputs": ["hi"]}', headers=headers)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        assert response.status == 404, body
        assert response.getheader("location") is None
        message = json.loads(body)["error"]
        assert message.startswith(f"no such resource: {method} {path}")
        if meant:
            assert f"the resource is {meant}, without the trailing slash" in message
        else:
            assert "trailing slash" not in message
        assert "elsewhere.example" not in message
    finally:
        server.kill()


# ------------------------------------------------------------------ 3. table checks
@pytest.fixture(scope="module")
def servers(tmp_path_factory, categories_file, measures_file, codes_file):
    """One real server per table model (read-only: no token)."""
    started = {
        name: ThreadServer(ServeConfig(model=str(path)))
        for name, path in (("cat", categories_file), ("gauss", measures_file),
                           ("codes", codes_file))
    }  # fmt: skip
    yield started
    for server in started.values():
        server.kill()


class _Answer:
    def __init__(self, status: int, body) -> None:
        self.status_code, self._body = status, body
        self.text = json.dumps(body) if not isinstance(body, bytes) else body.decode()

    def json(self):
        return self._body


def _post(server, body: str, content_type: str) -> _Answer:
    headers = {"Content-Type": content_type}
    return _Answer(*call(server.port, "POST", "/invocations", body.encode(), headers))


@pytest.mark.parametrize("body", ["foo,bar\nx,p\n", "w,r\nx,p\n"])
def test_a_wrong_csv_header_over_text_categories_is_named(servers, body):
    """``foo,bar`` above a row was read as one more row of unseen categories (two answers
    for one row); a first line none of whose fields is a category of its column is a
    header, refused naming the columns, and the answer says how to send it as a row."""
    r = _post(servers["cat"], body, "text/csv")
    _says(r, 400, ["missing 'a', 'b'", "not in training", "header=absent"])


def test_a_lone_row_of_unseen_categories_is_told_how_to_send_it(servers):
    """A single line of unseen categories (``w,r``) reads as a header, as ``foo,bar`` does:
    the answer was "no rows to predict", which said nothing of why or of header=absent."""
    _says(_post(servers["cat"], "w,r\n", "text/csv"), 400, ["only line (w,r)", "header=absent"])
    r = _post(servers["cat"], "w,r\n", "text/csv; header=absent")
    assert r.status_code == 200, r.text
    _says(_post(servers["cat"], "a,b\n", "text/csv"), 400, ["no rows to predict"])


@pytest.mark.parametrize(
    ("body", "rows"),
    [("x,p\ny,q\n", 2), ("NA,p\n", 1), ("w,p\n", 1)],  # a known value, a missing one
)
def test_a_csv_row_without_a_header_is_still_read(servers, categories_file, body, rows):
    r = _post(servers["cat"], body, "text/csv")
    assert r.status_code == 200, r.text
    assert len(r.json()["predictions"]) == rows


def test_a_csv_header_of_numbers_columns_is_told_from_a_row(servers):
    assert _post(servers["gauss"], "0.5,1.5\n", "text/csv").status_code == 200
    _says(_post(servers["gauss"], "x,y\n0.5,1.5\n", "text/csv"), 400, ["missing 'u', 'v'"])


def test_rfc_4180_header_parameter_is_honoured(servers, categories_file):
    """``text/csv; header=absent|present`` (RFC 4180, section 3) was ignored: a first line
    naming the columns was taken as a header though the client said it is a row, and a row
    as data though the client said it is a header."""
    model = bk.load(categories_file)
    expected = model.predict(pl.DataFrame({"a": ["y", "x"], "b": ["q", "p"]})).tolist()
    server = servers["cat"]
    r = _post(server, "y,q\nx,p\n", "text/csv; header=absent")
    assert r.status_code == 200, r.text
    assert r.json()["predictions"] == expected
    # the client says the first line is a row: read as one (unseen categories), not a header
    r = _post(server, "a,b\nx,p\n", 'text/csv; charset=utf-8; Header="Absent"')
    assert r.status_code == 200, r.text
    assert len(r.json()["predictions"]) == 2
    # the client says it is a header: refused naming the columns, though it looks like a row
    _says(_post(server, "y,q\nx,p\n", "text/csv; header=present"), 400, ["missing 'a', 'b'"])
    r = _post(server, "b,a\nq,y\np,x\n", "text/csv; header=present")
    assert r.json()["predictions"] == expected
    _says(
        _post(server, "a,b\nx,p\n", "text/csv; header=yes"),
        400,
        ["header parameter is 'yes'", "header=present", "header=absent", "RFC 4180"],
    )


@pytest.mark.parametrize("value", ['"NaN"', '"nan"', '"inf"', '"-Infinity"', "1e999"])
def test_nan_text_is_no_missing_value_in_json(servers, value):
    """The string "NaN" was read as a missing value where "NA" is refused; in JSON a
    missing value is null. Each is refused naming the column, and null is still read."""
    body = '{"dataframe_records": [{"u": ' + value + ', "v": 1}]}'
    _says(_post(servers["gauss"], body, "application/json"), 400, ["column 'u'", "null"])


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_nan_literals_are_not_json(servers, word):
    """Python's parser reads NaN and Infinity (JavaScript's words), which JSON does not have
    (RFC 8259, section 6): NaN was a missing value, Infinity a model's refusal."""
    body = '{"dataframe_records": [{"u": ' + word + ', "v": 1}]}'
    _says(_post(servers["gauss"], body, "application/json"), 400, [word, "RFC 8259", "null"])


def test_null_and_NA_in_json_are_as_documented(servers):
    ok = _post(servers["gauss"], '{"dataframe_records": [{"u": null, "v": 1}]}', "application/json")
    assert ok.status_code == 200, ok.text
    body = '{"dataframe_records": [{"u": "NA", "v": 1}]}'
    _says(_post(servers["gauss"], body, "application/json"), 400, ["column 'u'", "'NA'"])


@pytest.mark.parametrize("key", ["colums", "dtypes", "Data"])
def test_an_unknown_dataframe_split_key_is_named(servers, key):
    """MLflow's dataframe_split has columns, index and data; another key was ignored (a
    misspelled "colums" read the rows by position)."""
    body = json.dumps({"dataframe_split": {key: ["b", "a"], "data": [["x", "p"]]}})
    _says(
        _post(servers["cat"], body, "application/json"),
        400,
        [f"'{key}'", "accepted: 'columns', 'index', 'data'"],
    )
    body = '{"dataframe_split": {"columns": ["a", "b"], "index": [7], "data": [["x", "p"]]}}'
    assert _post(servers["cat"], body, "application/json").status_code == 200


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('{"inputs": {"a": ["x", "y"], "b": ["p"]}}', "('a' has 2, 'b' has 1)"),
        ('{"inputs": [null]}', "it is null"),
        ('{"inputs": [{"a": "x", "b": "p"}, true]}', 'it is {"a": "x", "b": "p"}'),
        ('{"inputs": [["x", "p"]], "params": {"probabilities": null}}', "not null"),
    ],
)
def test_answers_show_the_request_not_python(servers, body, says):
    """The answers showed Python's reprs of the request's values ([2, 1], None, True,
    {'a': 'x'}); they show what was sent, in JSON's words, or say it in words."""
    r = _post(servers["cat"], body, "application/json")
    _says(r, 400, [says])
    assert not any(word in r.json()["error"] for word in ("None", "True", "[2, 1]", "np."))


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"dataframe_records": [{"a": 1e200, "b": 1}]}', "application/json"),
        ('{"dataframe_records": [{"a": -1e300, "b": 1}]}', "application/json"),
        ("a,b\n" + "1" * 30 + ",1\n", "text/csv"),
    ],
)
def test_a_code_beyond_int64_is_refused_by_its_column(servers, body, content_type):
    """Integer categories: 1e200 (a whole number in JSON) and a CSV code of 30 digits were a
    500 (polars' overflow); refused naming the column, as 10**30 in JSON was."""
    _says(_post(servers["codes"], body, content_type), 400, ["column 'a'", "row 1"])


# ------------------------------------------------------------------ 4. a long replay at start
def test_a_long_replay_at_start_says_how_far_it_is(
    topics_file, model_copy, token_file, monkeypatch, capfd
):
    """200,000 journaled learns replayed for about half a minute at start with nothing
    printed; a replay past REPLAY_SAID_OPS now says so, on standard error with the other
    start-up lines, and how far it is every REPLAY_PROGRESS_SECONDS (here: at every part),
    and replays the same model as in one part."""
    import bayeskit.serve.state as state_module

    from .test_journal import _abandon

    model = model_copy(topics_file)
    state = ModelState(str(model), learning=True, save_interval=3600)
    texts = [(f"goal number {i}", "sport") for i in range(25)]
    texts += [(f"goal number {i}", "law") for i in range(5)]  # relabelled: unlearn, learn
    for text, label in texts:
        assert state.submit(text, label, unlearn=False).result(30)["seq"]
    expected = state.snapshot.model.class_count_.tolist()
    _abandon(state)  # a crash: the model file lacks all 30
    for name, value in (("REPLAY_SAID_OPS", 10), ("REPLAY_PART", 7),
                        ("REPLAY_PROGRESS_SECONDS", 0.0), ("REPLAY_SAID_BYTES", 1)):  # fmt: skip
        monkeypatch.setattr(state_module, name, value)
    capfd.readouterr()
    server = ThreadServer(ServeConfig(model=str(model), token_file=str(token_file)))
    try:
        health = call(server.port, "GET", "/health")[1]
        assert health["replayed_at_start"] == 30
        replayed = server._server.config.app.service.state.snapshot.model
        assert replayed.class_count_.tolist() == expected
    finally:
        server.kill()
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("bayeskit serve: ")]
    assert lines[0].startswith("bayeskit serve: reading topics.bk.journal (")
    assert lines[1] == "bayeskit serve: replaying 30 learned messages from topics.bk.journal…"
    counts = [line.split("replayed ")[1].split(" (")[0] for line in lines[2:]]
    assert counts == ["7 of 30", "14 of 30", "21 of 30", "28 of 30"]


def test_a_short_replay_says_nothing_before_the_banner(topics_file, model_copy, capfd):
    from .test_journal import _abandon

    model = model_copy(topics_file)
    state = ModelState(str(model), learning=True, save_interval=3600)
    assert state.submit("a late goal", "sport", unlearn=False).result(30)["seq"] == 1
    _abandon(state)
    capfd.readouterr()
    said: list[str] = []
    replayed = ModelState(str(model), learning=False, say=said.append)
    assert replayed.replayed == 1
    assert said == []


# ------------------------------------------------------------------ beside the list
@pytest.fixture(scope="module")
def truths_server(tmp_path_factory):
    """A MixedNB with a column of true/false (the Bernoulli family) and one of numbers."""
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({"f": rng.choice([True, False], 90), "g": rng.normal(size=90)})
    path = tmp_path_factory.mktemp("models") / "truths.bk"
    bk.save(bk.MixedNB().fit(frame, rng.choice(["no", "yes"], 90)), path)
    server = ThreadServer(ServeConfig(model=str(path)))
    yield server
    server.kill()


def test_a_csv_truth_beside_a_value_that_is_not_one_is_named_by_its_own_row(truths_server):
    """A CSV column of true/false holding one other value was refused at its first row,
    naming a value the column does hold ("holds 'true' in row 1"); now the row at fault is
    named, and true/false in any case are read, as polars reads such a column."""
    r = _post(truths_server, "f,g\ntrue,1\nmaybe,2\n", "text/csv")
    _says(r, 400, ["column 'f' holds 'maybe' in row 2"])
    r = _post(truths_server, "f,g\nTrue,1\nFALSE,2\n", "text/csv")
    assert r.status_code == 200, r.text
    assert len(r.json()["predictions"]) == 2


@pytest.mark.parametrize(
    ("content_type", "says"),
    [("text/csv", "the CSV body is empty"), ("application/json", "the JSON body is empty")],
)
def test_an_empty_body_is_said_in_the_servers_words(servers, content_type, says):
    """Empty bodies were answered in the parsers' words ("the CSV body cannot be read: empty
    CSV", "malformed JSON: Expecting value: line 1 column 1 (char 0)")."""
    _says(_post(servers["cat"], "", content_type), 400, [says])
