"""The service's limits against hostile requests, on uvicorn as ``bayeskit serve`` runs it:
JSON nested past its depth bound or holding lone surrogates, request heads past their byte
bound (many large headers, one endless one), a journal on a full disk. Every refusal is a
JSON error with a 4xx (or 507) status; the server keeps serving; nothing acknowledged is lost.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import socket
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.serve import ServeConfig
from bayeskit.serve.headers import ANSWER_HEADERS
from bayeskit.serve.inputs import MAX_JSON_DEPTH, json_depth
from bayeskit.serve.state import ModelState, digest_of

from .conftest import AUTH, SPAMMY, ServerProcess, ThreadServer
from .test_server import _read_all, call

# ------------------------------------------------------------------ JSON
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


def _has_answer_headers(answer: bytes) -> None:
    """The protocol's own refusals carry the headers every answer carries."""
    head = answer.partition(b"\r\n\r\n")[0].lower()
    for name, value in ANSWER_HEADERS:
        assert name + b": " + value.lower() in head, (name, head)


@given(json_values)
@settings(max_examples=300, deadline=None)
def test_json_depth_is_the_nesting_of_arrays_and_objects(value):
    # brackets inside strings (escaped quotes included) do not count
    assert json_depth(json.dumps(value)) == _depth(value)
    assert json_depth(json.dumps(value, ensure_ascii=False)) == _depth(value)


def _hostile_bodies(rng: random.Random) -> list[tuple[str, bytes, str]]:
    """(what, body, content type) — each a request the server must refuse by name or answer."""
    bodies: list[tuple[str, bytes, str]] = []
    for _ in range(12):
        depth = rng.choice([MAX_JSON_DEPTH + 1, 100, 1000, 10_000, 100_000])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}"), ('[{"k":', "}]")])
        text = opener * depth + "1" + closer * depth
        where = rng.choice(["alone", "inputs", "dataframe_split"])
        if where == "inputs":
            text = '{"inputs": ' + text + "}"
        elif where == "dataframe_split":
            text = '{"dataframe_split": {"columns": ["text"], "data": [' + text + "]}}"
        if rng.random() < 0.3:  # unclosed too
            text = text[: rng.randrange(1, len(text))]
        bodies.append((f"nested {depth} deep ({where})", text.encode(), "application/json"))
    for _ in range(12):
        code = rng.choice([0xD800, 0xDBFF, 0xDC00, 0xDFFF, rng.randrange(0xD800, 0xE000)])
        lone = f"\\u{code:04x}" if rng.random() < 0.5 else f"\\u{code:04X}"
        # a high surrogate escape followed by something that is not its low pair
        if 0xD800 <= code < 0xDC00 and rng.random() < 0.5:
            lone += rng.choice(["x", "\\u0041", "\\ud800"])
        shape = rng.choice(
            [
                '{"inputs": ["%s"]}',
                '{"instances": [{"text": "%s"}]}',
                '{"dataframe_records": [{"text": "a %s b"}]}',
                '{"dataframe_split": {"columns": ["text"], "data": [["%s"]]}}',
                '{"inputs": {"text": ["%s"]}}',
                '{"inputs": ["ok"], "params": {"%s": true}}',
                '{"inputs": ["ok"], "%s": 1}',
            ]
        )
        bodies.append((f"surrogate {lone}", (shape % lone).encode(), "application/json"))
    # charsets that decode to lone surrogates
    utf7 = "application/json; charset=utf-7"
    bodies.append(("surrogate in UTF-7", b'{"inputs": ["+2AA-"]}', utf7))
    escapes = "application/json; charset=unicode_escape"
    bodies.append(("surrogate by unicode_escape", b'{"inputs": ["\\ud800"]}', escapes))
    bodies.append(("surrogate in a UTF-7 CSV", b"text\n+2AA-\n", "text/csv; charset=utf-7"))
    return bodies


def test_hostile_json_is_refused_by_name(sms_file, model_copy, token_file):
    config = ServeConfig(model=str(model_copy(sms_file)), token_file=str(token_file))
    server = ThreadServer(config)
    try:
        rng = random.Random(27)
        for what, body, kind in _hostile_bodies(rng):
            status, got = call(server.port, "POST", "/invocations", body, {"Content-Type": kind})
            assert 400 <= status < 500, (what, status, got)
            assert isinstance(got, dict), (what, got)
            assert set(got) == {"error"}, (what, got)
            if what.startswith("nested"):  # (cut short: malformed before it is too deep)
                message = got["error"]
                assert "levels deep" in message or "malformed JSON" in message, (what, message)
            else:
                assert "lone UTF-16 surrogate" in got["error"], (what, got)
        # /check and /learn read text bodies in a declared charset: the same refusal
        utf7 = {"Content-Type": "text/plain; charset=utf-7"}
        for path, headers in (("/check", utf7), ("/learn/spam", {**utf7, **AUTH})):
            status, got = call(server.port, "POST", path, b"+2AA-", headers)
            assert status == 400, (path, status, got)
            assert "lone UTF-16 surrogate \\ud800" in got["error"]
        # within the bound, deep but legal bodies are read (refused for their shape, not 500)
        deep = MAX_JSON_DEPTH - 1
        legal = '{"inputs": ' + "[" * deep + '"x"' + "]" * deep + "}"
        status, got = call(server.port, "POST", "/invocations", legal.encode())
        assert status == 400
        assert "levels deep" not in got["error"]
        # a surrogate pair is a character: it is read
        pair = b'{"inputs": ["\\ud83d\\ude00 free prize"]}'
        assert call(server.port, "POST", "/invocations", pair)[0] == 200
        assert call(server.port, "GET", "/ping")[0] == 200
    finally:
        server.kill()


@pytest.mark.parametrize("charset", ["undefined", "idna", "punycode"])
def test_codecs_that_are_no_charset_are_refused_as_unknown(
    charset, sms_file, model_copy, token_file
):
    """``undefined`` raised a plain UnicodeError on every body (a 500 and a traceback in the
    log); ``idna`` and ``punycode`` (domain names) decoded some bodies as if a charset."""
    config = ServeConfig(model=str(model_copy(sms_file)), token_file=str(token_file))
    server = ThreadServer(config)
    try:
        before = call(server.port, "GET", "/metadata")[1]["learning"]["seq"]
        text = {"Content-Type": f"text/plain; charset={charset}"}
        for path, headers, body in (
            ("/check", text, b"hello"),
            ("/verdict", text, b"hello"),
            ("/learn/spam", {**text, **AUTH}, b"hello"),
            ("/invocations", {"Content-Type": f"application/json; charset={charset}"},
             b'{"inputs": ["a"]}'),
            ("/invocations", {"Content-Type": f"text/csv; charset={charset}"}, b"text\na\n"),
        ):  # fmt: skip
            status, got = call(server.port, "POST", path, body, headers)
            assert status == 415, (path, status, got)
            assert got == {"error": f"unknown charset {charset!r}; send UTF-8"}
        assert call(server.port, "GET", "/metadata")[1]["learning"]["seq"] == before
        status, got = call(
            server.port, "POST", "/invocations?probabilities=maybe", b'{"inputs": ["a"]}'
        )
        assert status == 400
        assert got["error"].endswith("accepted: true, yes, 1, false, no or 0")
    finally:
        server.kill()


# ------------------------------------------------------------------ request heads
LIMIT = 16 * 2**10


def _head(rng: random.Random, total: int) -> bytes:
    """A GET /ping whose headers add up to about ``total`` bytes, in a random number of
    headers of random sizes."""
    count = rng.randint(1, 64)
    sizes = [max(total // count + rng.randint(-50, 50), 1) for _ in range(count)]
    headers = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * n) for i, n in enumerate(sizes))
    # Connection: close, so an answered request ends at once instead of at keep-alive's
    # timeout (5 s a request, most of this test's time before)
    return b"GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + headers + b"\r\n"


def _send(port: int, data: bytes, rng: random.Random) -> tuple[bytes, bool]:
    sock = socket.create_connection(("127.0.0.1", port))
    try:
        pieces = rng.choice([1, 3, 50])
        step = max(len(data) // pieces, 1)
        for start in range(0, len(data), step):
            try:
                sock.sendall(data[start : start + step])
            except OSError:  # closed by the server after its answer
                break
        try:
            return _read_all(sock, 30)
        except ConnectionResetError:  # data we sent was still unread when it closed
            return b"", True
    finally:
        sock.close()


def test_request_heads_are_bounded(sms_file, model_copy):
    server = ThreadServer(ServeConfig(model=str(model_copy(sms_file)), max_header_bytes=LIMIT))
    try:
        rng = random.Random(431)
        for _ in range(24):
            total = int(LIMIT * rng.choice([0.2, 0.5, 0.85, 1.2, 2, 8, 64]))
            answer, closed = _send(server.port, _head(rng, total), rng)
            if total <= 0.85 * LIMIT:
                assert answer.startswith(b"HTTP/1.1 200 "), (total, answer[:80])
            else:
                assert answer.startswith(b"HTTP/1.1 431 "), (total, answer[:80])
                assert closed
                assert answer.endswith(b'bytes; send fewer or smaller headers"}')
                _has_answer_headers(answer)
                assert b"exceed 16384 bytes" in answer
        # a long target counts as well
        target = b"GET /ping?" + b"q" * (2 * LIMIT) + b" HTTP/1.1\r\n\r\n"
        assert _send(server.port, target, rng)[0].startswith(b"HTTP/1.1 431 ")
        assert call(server.port, "GET", "/ping")[0] == 200
    finally:
        server.kill()


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_endless_and_many_headers_hold_neither_time_nor_memory(sms_file, model_copy):
    """One 64 MiB header, and 64 headers of 1 MiB, against ``bayeskit serve`` (the default
    64 KiB bound): answered 431 once past the bound, the rest read and dropped for at most
    two seconds, then closed; the peak memory of the server process grows by less than
    16 MiB (it held the whole head before: +110 MB)."""
    server = ServerProcess(model_copy(sms_file))
    try:
        assert call(server.port, "GET", "/ping", timeout=300)[0] == 200
        before = _peak_rss_kib(server.process.pid)
        chunk = b"a" * 2**20
        for head, repeat in (
            (b"GET /ping HTTP/1.1\r\nHost: localhost\r\nX-Endless: ", [chunk] * 64),
            (b"GET /ping HTTP/1.1\r\nHost: localhost\r\n", [b"X-Big: " + chunk + b"\r\n"] * 64),
        ):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.settimeout(30)
            start = time.monotonic()
            sent = 0
            with contextlib.suppress(OSError):
                sock.sendall(head)
                for piece in repeat:
                    sock.sendall(piece)
                    sent += len(piece)
            answer = b""
            with contextlib.suppress(OSError):  # reset: what we sent was left unread
                answer = _read_all(sock, 30)[0]
            seconds = time.monotonic() - start
            sock.close()
            assert seconds < 10, seconds
            # the answer, unless the connection was reset while we were still sending
            assert answer.startswith(b"HTTP/1.1 431 ") or (sent < len(repeat) * 2**20), sent
        grown = _peak_rss_kib(server.process.pid) - before
        assert grown < 16 * 1024, f"peak RSS grew by {grown} KiB"
        assert call(server.port, "GET", "/ping")[0] == 200
    finally:
        server.kill()


# ------------------------------------------------------------------ a full disk
def _learn(port: int, text: str, label: str) -> tuple[int, dict]:
    return call(port, "POST", f"/learn/{label}", text.encode(), AUTH)


def _full_disk_round(port: int, fill: Path, model: Path) -> dict[str, str]:
    """Learn until the disk is full, then check, predict, learn again once there is room;
    return the acknowledged learns."""
    acked: dict[str, str] = {}
    status, got = 200, {}
    for i in range(5000):
        text = f"message {i}: " + "the striker scored a goal " * 40
        status, got = _learn(port, text, "sport")
        if status != 200:
            break
        acked[text] = "sport"
    assert status == 507, (status, got)
    assert got["error"].startswith("the server cannot store learned messages now (No space")
    # checks and predictions go on; the health says why learning fails
    for k in range(3):
        status, answer = call(port, "POST", "/check", b"a late goal won the match")
        assert status == 200
        assert answer["label"] == "sport"
        status, _ = call(port, "POST", "/invocations", b'{"inputs": ["the judge ruled"]}')
        assert status == 200
        # (longer than a page: it cannot fit in what is left of the last one)
        long = " ".join(f"goal{j}" for j in range(1000))
        assert _learn(port, f"still full {k}: {long}", "sport")[0] == 507
    health = call(port, "GET", "/health")[1]
    assert health["storage_error"] == "No space left on device"
    # room again: learning works with no restart
    fill.unlink()
    status, got = _learn(port, "room again: the judge read the ruling", "law")
    assert status == 200, got
    acked["room again: the judge read the ruling"] = "law"
    assert call(port, "GET", "/health")[1]["storage_error"] is None
    return acked


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _fill(folder: Path) -> Path:
    """A file taking up all but ~64 KiB of the file system of ``folder``."""
    fill = folder / "fill"
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    with open(fill, "wb") as f, contextlib.suppress(OSError):
        f.write(b"\0" * max(free - 64 * 2**10, 0))
    return fill


def _every_acknowledged_learn_is_kept(model: Path, acked: dict[str, str]) -> None:
    state = ModelState(str(model), learning=True, save_interval=3600)
    try:
        learned = state.snapshot.learned
        assert all(learned.get(digest_of(t)) == y for t, y in acked.items())
        assert len(learned) == len(acked)
    finally:
        state.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_answers_507_and_learning_resumes(topics_file, tmp_path, token_file):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "1m"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        model = disk / "topics.bk"
        model.write_bytes(topics_file.read_bytes())
        config = ServeConfig(model=str(model), token_file=str(token_file), save_interval=3600)
        server = ThreadServer(config)
        try:
            fill = _fill(disk)
            acked = _full_disk_round(server.port, fill, model)
        finally:
            server.kill()  # a clean stop saves the model file: there is room now
        _every_acknowledged_learn_is_kept(model, acked)
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_journal_write_that_fails_is_cut_back(topics_file, model_copy, token_file, monkeypatch):
    """The same on any file system, by failing the journal's writes (ENOSPC) part-way: the
    part of a line written before the failure is cut away, so the journal stays whole."""
    import bayeskit.serve.journal as journal

    model = model_copy(topics_file)
    server = ThreadServer(ServeConfig(model=str(model), token_file=str(token_file)))
    real_write = journal._write
    full = {"on": False}

    def write(fd: int, data: bytes) -> int:
        if full["on"]:
            real_write(fd, bytes(data[: len(data) // 2]))  # a torn line, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(journal, "_write", write)
    try:
        acked = {}
        rng = random.Random(507)
        for i in range(40):
            full["on"] = rng.random() < 0.4
            text = f"goal number {i}"
            status, got = _learn(server.port, text, "sport")
            if full["on"]:
                assert status == 507, got
                assert call(server.port, "POST", "/check", b"goal")[0] == 200
            else:
                assert status == 200, got
                acked[text] = "sport"
        full["on"] = False
    finally:
        server.kill()
    lines = (model.parent / (model.name + ".journal")).read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert all(json.loads(line) for line in lines[:-1])  # no torn line anywhere
    _every_acknowledged_learn_is_kept(model, acked)


def test_learning_a_spam_message_still_works_after_refusals(sms_file, model_copy, token_file):
    """After every kind of refusal above, a plain learn is acknowledged."""
    server = ThreadServer(ServeConfig(model=str(model_copy(sms_file)), token_file=str(token_file)))
    try:
        call(server.port, "POST", "/invocations", b"[" * 5000)
        status, got = _learn(server.port, SPAMMY, "spam")
        assert status == 200, got
        assert got["learned"] is True
    finally:
        server.kill()


def test_bytes_that_are_not_http_get_a_json_answer(sms_file, model_copy):
    server = ThreadServer(ServeConfig(model=str(model_copy(sms_file))))
    try:
        rng = random.Random(400)
        for garbage in (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(40),  # a TLS client hello
            b"POST /check HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\nhello",
            b"GET / HTTP/1.1\r\nHo st: x\r\n\r\n",
        ):
            answer, _ = _send(server.port, garbage, rng)
            assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
            head, _, body = answer.partition(b"\r\n\r\n")
            assert b"content-type: application/json" in head.lower()
            _has_answer_headers(answer)
            assert json.loads(body)["error"].startswith("the bytes sent are not a valid HTTP/1.1")
        assert call(server.port, "GET", "/ping")[0] == 200
    finally:
        server.kill()


@given(json_values.filter(lambda v: not isinstance(v, dict)))
@settings(max_examples=100, deadline=None)
def test_a_json_body_that_is_not_an_object_is_named_in_jsons_words(value):
    # It said "got a bool", "got a NoneType": Python's names for what the client wrote as
    # JSON. It names the JSON value (true, null, the number 1, an array of 2 values).
    from bayeskit import GaussianNB
    from bayeskit.serve.inputs import invocation_input, json_kind
    from bayeskit.serve.refusal import RequestError

    model = GaussianNB().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(RequestError) as refused:
        invocation_input(json.dumps(value).encode(), "application/json", model, False)
    said = str(refused.value)
    hint = ' (rows go in {"instances": [...]})' if isinstance(value, list) else ""
    assert said.endswith(f"; got {json_kind(value)}{hint}")
    if not isinstance(value, str):
        assert not any(word in said for word in ("NoneType", "bool", " int", " list"))
    if value is None or isinstance(value, bool):
        assert said.endswith(f"got {json.dumps(value)}")
