"""``bayeskit serve`` for real: uvicorn in a subprocess on a free port of 127.0.0.1, killed
with SIGKILL at random moments, slow clients, a thousand connections, several workers.

Starting a server costs seconds (Python, bayeskit, the model): the slow clients meet the
app and its uvicorn settings in a thread of this process; the other tests start the kind of
server they test (learning and killed, many connections, with workers); command-line
mistakes and the load benchmark run in this process.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import socket
import threading
import time

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.serve import ServeConfig
from bayeskit.serve.journal import file_sha256
from bayeskit.serve.state import ModelState, digest_of

from .conftest import AUTH, SPAMMY, ServerProcess, ThreadServer, serve_check_cpu, serve_load

TIMEOUT = 1  # the --timeout slow clients meet


def call(port: int, method: str, path: str, body: bytes = b"", headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        data = response.read()
        is_json = response.getheader("content-type", "").startswith("application/json")
        return response.status, json.loads(data) if is_json else data
    finally:
        conn.close()


def _kill_rounds(sms_file, model, token_file, rounds: int, seed: int) -> None:
    """Learn from 4 client threads and SIGKILL the server at a random moment, ``rounds``
    times (each restart replays what the last round acknowledged, then learns more); then
    every acknowledged message is in the model, none twice."""
    rng = random.Random(seed)
    acked: dict[str, str] = {}
    sent: dict[str, str] = {}
    flags = ["--token-file", str(token_file), "--save-interval", "0.05"]
    for r in range(rounds):
        server = ServerProcess(model, *flags)
        assert any("learning: on" in line for line in server.lines)
        if acked:  # the restarted server holds what the killed one acknowledged
            _, health = call(server.port, "GET", "/health")
            assert health["learned_messages"] >= len(acked)
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            for text in rng.sample(sorted(acked), min(20, len(acked))):
                conn.request("POST", "/check", body=text.encode())
                assert json.loads(conn.getresponse().read())["learned_as"] == acked[text]
            conn.close()
        stop, going = threading.Event(), threading.Event()
        lock = threading.Lock()

        def learn(worker: int, port=server.port, r=r, stop=stop, lock=lock, going=going) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            for i in range(10_000):
                if stop.is_set():
                    return
                text = f"round {r} client {worker} message {i}: {SPAMMY if i % 3 else 'lunch?'}"
                label = "spam" if i % 3 else "ham"
                with lock:
                    sent[text] = label
                try:
                    conn.request("POST", f"/learn/{label}", body=text.encode(), headers=AUTH)
                    response = conn.getresponse()
                    body = json.loads(response.read())
                except (OSError, http.client.HTTPException, ValueError):
                    return  # killed: this one was not acknowledged
                assert response.status == 200, body
                with lock:
                    acked[text] = label
                    going.set()

        threads = [threading.Thread(target=learn, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        # Learning is under way (a busy machine may take a while to get there); kill it
        # at a random moment from then on: mid-request, mid-fsync, mid-save.
        going.wait(60)
        time.sleep(rng.uniform(0.0, 1.5))
        server.kill()
        stop.set()
        for t in threads:
            t.join(30)
    assert acked, "no learn was acknowledged before the kills"
    # The last kill's files, read as a restarting server reads them (the same ModelState
    # that `bayeskit serve` builds at start: the restarts above are real ones).
    state = ModelState(str(model), learning=True, save_interval=3600)
    learned = state.snapshot.learned
    missing = [text for text, label in acked.items() if learned.get(digest_of(text)) != label]
    assert not missing, f"{len(missing)} acknowledged learns lost, e.g. {missing[:2]}"
    state.close()  # a clean stop: saves the model file and compacts the journal
    # The model file now holds the journal's messages exactly once each: the original model
    # plus every learned message (acknowledged, or journaled just before a kill) equals it.
    journal = json.loads((model.parent / (model.name + ".journal")).read_text().splitlines()[0])
    assert journal["learned"] == learned
    by_digest = {digest_of(t): (t, y) for t, y in sent.items()}
    assert set(learned) <= set(by_digest)
    texts = [by_digest[d][0] for d in learned]
    labels = [learned[d] for d in learned]
    expected = bk.load(sms_file).partial_fit(texts, labels)
    on_disk = bk.load(model)
    assert on_disk.class_count_.tolist() == expected.class_count_.tolist()
    probe = [SPAMMY, "lunch?", *texts[:20]]
    np.testing.assert_allclose(
        on_disk.predict_proba(probe), expected.predict_proba(probe), rtol=1e-9
    )


def test_sigkill_at_random_moments_loses_no_acknowledged_learn(sms_file, model_copy, token_file):
    # One kill (the long loop below restarts and kills 25 times; the load benchmark's test
    # restarts a killed server and finds every acknowledged learn).
    _kill_rounds(sms_file, model_copy(sms_file), token_file, rounds=1, seed=1)


@pytest.mark.slow
def test_sigkill_loop_long(sms_file, model_copy, token_file):
    _kill_rounds(sms_file, model_copy(sms_file), token_file, rounds=25, seed=2)


def _read_all(sock: socket.socket, limit: float) -> tuple[bytes, bool]:
    """What the server sends until it closes the connection (True) or ``limit`` s pass."""
    sock.settimeout(limit)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except TimeoutError:
        return b"".join(chunks), False
    return b"".join(chunks), True


def _slow_clients_time_out(server) -> None:
    silent = socket.create_connection(("127.0.0.1", server.port))
    partial = socket.create_connection(("127.0.0.1", server.port))
    partial.sendall(b"POST /check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
    body = socket.create_connection(("127.0.0.1", server.port))
    body.sendall(
        b"POST /check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
        b"Content-Type: text/plain\r\n\r\nonly ten b"
    )
    assert call(server.port, "GET", "/ping")[0] == 200  # others are served meanwhile
    # each is answered 408 after ~1 s and its connection closed (the bound leaves room for
    # a busy CPU): a body still owed would be read as the next request
    answers = [_read_all(s, 60) for s in (silent, partial, body)]
    for s in (silent, partial, body):
        s.close()
    for answer, closed in answers:
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
        assert b'{"error":' in answer
        assert b"x-frame-options: DENY" in answer  # (the headers every answer carries)
        assert closed
    assert b"connection: close" in answers[2][0].lower()
    assert f"did not arrive within {TIMEOUT} s".encode() in answers[2][0]
    assert call(server.port, "GET", "/ping")[0] == 200


async def _many(port: int, n: int) -> list[int]:
    async def one(i: int) -> int:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return -1
        body = f"message {i}: {SPAMMY}".encode()
        writer.write(
            b"POST /check HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
        )
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            return -1
        finally:
            writer.close()
        return int(head.split()[1])

    return await asyncio.gather(*(one(i) for i in range(n)))


def _a_thousand_connections_at_once(server) -> None:
    statuses = asyncio.run(_many(server.port, 1000))
    counts = {s: statuses.count(s) for s in set(statuses)}
    assert set(counts) <= {200, 503}, counts  # served, or told to come back: no crash
    assert counts.get(200, 0) >= 64
    assert server.process.poll() is None
    assert call(server.port, "GET", "/ping")[0] == 200
    assert call(server.port, "POST", "/check", SPAMMY.encode())[1]["verdict"] == "spam"


def test_slow_clients_time_out(sms_file, model_copy):
    # The app and its uvicorn settings in a thread of this process: a second of timeout
    # would also cut off a thousand prompt clients that a busy machine starves of CPU.
    server = ThreadServer(ServeConfig(model=str(model_copy(sms_file)), timeout=TIMEOUT))
    try:
        _slow_clients_time_out(server)
    finally:
        server.kill()


def test_a_thousand_connections_at_once(sms_file, model_copy):
    server = ServerProcess(model_copy(sms_file), "--max-in-flight", "64")
    try:
        _a_thousand_connections_at_once(server)
    finally:
        server.kill()


WORKERS_REFUSAL = (
    "learning is off: it runs 2 worker processes, each with its own copy of the model, so a "
    "message learned by one would be missing from the others' answers. Checks and "
    "predictions work as usual; to learn, restart it with --workers 1"
)


def test_several_workers_serve_and_refuse_learning(sms_file, model_copy, token_file):
    model = model_copy(sms_file)
    server = ServerProcess(model, "--workers", "2", "--token-file", str(token_file))
    try:
        # the workers start after the banner (connections wait in the backlog meanwhile)
        assert call(server.port, "GET", "/ping", timeout=300)[0] == 200
        for _ in range(20):
            status, got = call(server.port, "POST", "/check", SPAMMY.encode())
            assert status == 200
            assert got["verdict"] == "spam"
        # learning is refused, saying why and what to do, as the banner said at start
        for path in ("/learn/spam", "/unlearn/spam"):
            status, got = call(server.port, "POST", path, SPAMMY.encode(), AUTH)
            assert status == 403
            assert got["error"] == WORKERS_REFUSAL
        assert f"  learning: off — {WORKERS_REFUSAL.removeprefix('learning is off: ')}" in (
            server.lines
        )
        assert call(server.port, "GET", "/metadata")[1]["learning"]["reason"] == WORKERS_REFUSAL
        assert call(server.port, "GET", "/health")[1]["seq"] == 0
    finally:
        assert server.stop() == 0
    assert not list(model.parent.glob("*.journal")) + list(model.parent.glob("*.lock"))


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_workers_stop_when_their_supervisor_is_killed(sms_file, model_copy):
    """SIGKILL of the supervisor (a crash, the out-of-memory killer) leaves no worker serving
    on its own: the port is free again, and the server's stderr pipe closes."""
    server = ServerProcess(model_copy(sms_file), "--workers", "2")
    try:
        assert call(server.port, "GET", "/ping", timeout=300)[0] == 200
    finally:
        server.kill()
    deadline = time.monotonic() + 30
    while not _refused(server.port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _refused(server.port), "a worker went on serving after its supervisor was killed"
    server._drain.join(30)  # every holder of the pipe is gone
    assert not server._drain.is_alive()


def _cli(capsys, *args: str) -> tuple[int, str]:
    """``bayeskit serve ARGS`` in this process (each mistake is refused before serving)."""
    from bayeskit.cli import main

    code = main(["serve", *args])
    return code, capsys.readouterr().err


def test_command_line_mistakes(sms_file, tmp_path, capsys):
    code, err = _cli(capsys, str(tmp_path / "missing.bk"))
    assert code == 2
    assert "no such model file" in err
    assert len(err.strip().splitlines()) == 1
    short = tmp_path / "short"
    short.write_text("abc\n")
    code, err = _cli(capsys, str(sms_file), "--token-file", str(short))
    assert code == 2
    assert "at least 8 characters" in err
    code, err = _cli(capsys, str(sms_file), "--token-file", str(tmp_path / "nope"))
    assert code == 2
    assert "nope" in err
    not_a_model = tmp_path / "x.bk"
    not_a_model.write_text("hello")
    code, err = _cli(capsys, str(not_a_model), "--port", "0")
    assert code == 2
    assert "not a bayeskit model file" in err
    code, err = _cli(capsys, str(sms_file), "--workers", "0")
    assert code == 2
    assert "--workers" in err
    code, err = _cli(capsys, str(sms_file), "--port", "70000")
    assert code == 2
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        code, err = _cli(capsys, str(sms_file), "--port", str(busy.getsockname()[1]))
    assert code == 2
    assert "cannot listen on 127.0.0.1" in err


def test_load_benchmark_short(sms_file, capsys):
    """The benchmark's own run (in this process, serving a copy of the test model), bounded
    small: no 5xx, no lost learn, and the given model file untouched."""
    sha = file_sha256(sms_file)
    serve_load.main(["--requests", "600", "--clients", "8", "--learn", "0.05", "--json",
                     "--model", str(sms_file)])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["requests"] == 600
    assert report["server_errors"] == 0
    assert report["acknowledged_learns"] > 5
    assert report["lost_learns"] == 0
    assert set(report["status"]) == {"200"}
    assert file_sha256(sms_file) == sha
    assert not list(sms_file.parent.glob("*.journal"))
    assert "| 5xx | 0 |" in serve_load.report(report)


def test_load_benchmark_judges_its_targets_at_the_default_load_only():
    result = {
        "clients": 32, "learn_fraction": 0.02, "workers": 1, "requests": 20000, "seconds": 10.0,
        "requests_per_s": 2100.0, "checks_per_s": 1990.0, "check_p50_ms": 12.0,
        "check_p99_ms": 27.0, "learn_p50_ms": 10.0, "learn_p99_ms": 50.5, "status": {"200": 1},
        "server_errors": 0, "acknowledged_learns": 378, "lost_learns": 0, "load_average": 1.0,
        "server_cpu_us_per_request": 460.0,
    }  # fmt: skip
    verdicts = serve_load.judged(result)
    assert verdicts["checks_per_s"].endswith("**MISSED**")
    assert verdicts["learn_p50_ms"].endswith("met")  # the bound itself is met
    assert verdicts["learn_p99_ms"].endswith("**MISSED**")
    assert verdicts["lost_learns"].endswith("met")
    assert "≥ 2,000: **MISSED**" in serve_load.report(result)
    assert serve_load.judged({**result, "clients": 8}) == {}


def test_check_cpu_benchmark_short(capsys):
    """The in-process check benchmark runs its checks through the app (every one answered
    200, or it raises) and prints one row per round and the median."""
    serve_check_cpu.main(["--checks", "50", "--rounds", "2"])
    out = capsys.readouterr().out
    assert "50 checks of SMS messages" in out
    rows = [line for line in out.splitlines() if line.startswith(("| 1 |", "| 2 |"))]
    assert len(rows) == 2
    assert "| median |" in out
