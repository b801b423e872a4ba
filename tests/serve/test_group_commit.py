"""Group commit: learns submitted while the journal's fsync runs share the next one, and a
SIGKILL in the middle of such a group loses no acknowledged learn.

The learns run in a child process (``ModelState`` as ``bayeskit serve`` builds it) whose
journal syncs are slowed down as a busy disk's are, so that several learns are always
waiting for one; the child prints each sync as it starts and each learn as it is
acknowledged, and the test kills it with SIGKILL while a sync is under way."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import numpy as np

import bayeskit as bk
from bayeskit.serve import ServeConfig
from bayeskit.serve.state import ModelState, digest_of

from .conftest import AUTH, SPAMMY, ThreadServer
from .test_server import call

CLIENTS = 8

CHILD = """
import sys, threading, time
from bayeskit.serve import journal
from bayeskit.serve.state import ModelState

real = journal._fsync
lock = threading.Lock()

def say(line):  # one write per line: the threads' lines never interleave
    with lock:
        sys.stdout.write(line + "\\n")
        sys.stdout.flush()

def slow(fd):
    say("sync")
    time.sleep(0.05)  # a busy disk: the learns of 8 clients queue up behind it
    real(fd)

journal._fsync = slow
state = ModelState(sys.argv[1], learning=True, save_interval=3600)

def learn(client):
    for i in range(10_000):
        text, label = message(client, i)
        if state.submit(text, label, unlearn=False).result()["learned"]:
            say(f"acked {client} {i}")

def message(client, i):
    return f"client {client} message {i}: " + ("win cash now" if i % 3 else "lunch?"), (
        "spam" if i % 3 else "ham"
    )

threads = [threading.Thread(target=learn, args=(k,)) for k in range(CLIENTS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
""".replace("CLIENTS", str(CLIENTS))


def _message(client: int, i: int) -> tuple[str, str]:
    text = f"client {client} message {i}: " + ("win cash now" if i % 3 else "lunch?")
    return text, "spam" if i % 3 else "ham"


def test_concurrent_learns_share_a_sync_and_a_kill_mid_group_loses_none(sms_file, tmp_path):
    model = tmp_path / "sms.bk"
    model.write_bytes(sms_file.read_bytes())
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(model)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: list[tuple[int, int]] = []
    syncs = 0
    killed_mid_sync = False
    deadline = time.monotonic() + 120
    assert child.stdout is not None
    try:
        for line in child.stdout:
            word, *rest = line.split()
            if word == "acked":
                acked.append((int(rest[0]), int(rest[1])))
            elif word == "sync":
                syncs += 1
                # a sync has started (the child sleeps in it): kill it there, once enough
                # learns were acknowledged for groups to have formed
                if len(acked) >= 60 or time.monotonic() > deadline:
                    child.send_signal(signal.SIGKILL)
                    killed_mid_sync = True
                    break
    finally:
        if child.poll() is None and not killed_mid_sync:
            child.kill()
        child.wait(30)
        stderr = child.stderr.read() if child.stderr is not None else ""
    assert killed_mid_sync, stderr[-2000:]
    assert len(acked) >= 60, stderr[-2000:]
    # Shared syncs: one sync per group of the learns that queued while the last one ran,
    # not one per learn (each group's sync is counted once it starts, the last unfinished).
    assert syncs - 1 < len(acked) / 2, (syncs, len(acked))
    # Restart as the server does: every acknowledged learn is in the model, and the model
    # is exactly the original one plus the journaled messages (acknowledged, or journaled
    # in the killed group before the kill), each once.
    state = ModelState(str(model), learning=True, save_interval=3600)
    try:
        learned = state.snapshot.learned
        missing = [m for m in acked if learned.get(digest_of(_message(*m)[0])) != _message(*m)[1]]
        assert not missing, f"{len(missing)} acknowledged learns lost, e.g. {missing[:3]}"
        # each client has at most one learn in flight: past its last acknowledged one
        last = {k: max((i for c, i in acked if c == k), default=-1) for k in range(CLIENTS)}
        sent = {
            digest_of(t): (t, y)
            for k in range(CLIENTS)
            for t, y in (_message(k, i) for i in range(last[k] + 2))
        }
        assert set(learned) <= set(sent)
        texts = [sent[d][0] for d in learned]
        labels = [learned[d] for d in learned]
        expected = bk.load(sms_file).partial_fit(texts, labels)
        served = state.snapshot.model
        assert served.class_count_.tolist() == expected.class_count_.tolist()
        probe = [SPAMMY, "lunch?", *texts[:20]]
        np.testing.assert_allclose(
            served.predict_proba(probe), expected.predict_proba(probe), rtol=1e-9
        )
        lines = (tmp_path / "sms.bk.journal").read_text().splitlines()
        assert json.loads(lines[0])["type"] == "base"
        assert len([ln for ln in lines if json.loads(ln)["type"] == "op"]) == len(learned)
    finally:
        state.close()


def test_a_learn_is_answered_after_its_group_is_durable(sms_file, tmp_path, monkeypatch):
    """In one process: learns submitted from several threads while a sync is held back are
    neither answered nor shown to readers until the sync that holds them returns, and one
    sync holds them all."""
    import bayeskit.serve.journal as journal

    model = tmp_path / "sms.bk"
    model.write_bytes(sms_file.read_bytes())
    held, release = threading.Event(), threading.Event()
    syncs: list[int] = []
    real = journal._fsync

    def gated(fd: int) -> None:
        syncs.append(fd)
        if len(syncs) == 1:
            held.set()
            assert release.wait(60)
        real(fd)

    monkeypatch.setattr(journal, "_fsync", gated)
    state = ModelState(str(model), learning=True, save_interval=3600)
    try:
        first = state.submit("the first one: win cash now", "spam", unlearn=False)
        assert held.wait(60)
        futures = []
        threads = [
            threading.Thread(
                target=lambda k=k: futures.append(
                    state.submit(f"waiting {k}: lunch at noon", "ham", unlearn=False)
                )
            )
            for k in range(CLIENTS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(futures) == CLIENTS  # computed, queued behind the held sync
        assert not first.done()
        assert not any(f.done() for f in futures)
        assert state.snapshot.seq == 0  # readers see none of them yet
        release.set()
        assert first.result(60)["seq"] == 1
        seqs = sorted(f.result(60)["seq"] for f in futures)
        assert seqs == list(range(2, CLIENTS + 2))
        assert len(syncs) == 2  # the held one, then one for all the others
        assert state.snapshot.seq == CLIENTS + 1
        assert len(state.snapshot.learned) == CLIENTS + 1
    finally:
        release.set()
        state.close()


def test_the_loop_answers_checks_while_a_learn_waits_for_another_update(
    sms_file, model_copy, token_file
):
    """A learn arriving while another thread's model update is under way (a large
    message's) waits for it off the event loop: checks are answered meanwhile, and the
    learn once the update is done."""
    server = ThreadServer(ServeConfig(model=str(model_copy(sms_file)), token_file=str(token_file)))
    state = server._server.config.app.service.state
    answers: list[tuple[int, object]] = []
    try:
        with state._computing:  # another thread's model update under way
            learner = threading.Thread(
                target=lambda: answers.append(
                    call(server.port, "POST", "/learn/spam", b"win a prize now", AUTH, timeout=60)
                )
            )
            learner.start()
            time.sleep(0.2)  # the learn has arrived and waits for the update
            status, got = call(server.port, "POST", "/check", SPAMMY.encode(), timeout=10)
            assert status == 200, got
            assert not answers
        learner.join(60)
        assert answers, "the learn was never answered"
        status, got = answers[0]
        assert status == 200, got
        assert got["learned"] is True
    finally:
        server.kill()


def test_the_loop_answers_while_a_large_table_body_is_read(
    sms_file, model_copy, monkeypatch, tmp_path
):
    """A large /invocations body is read off the event loop: while one is being parsed (held
    here), a ping is answered. On the loop, a wide table's JSON held every request for
    seconds."""
    from bayeskit.serve import app as app_module

    model = tmp_path / "g.bk"
    rng = np.random.default_rng(0)
    bk.save(bk.GaussianNB().fit(rng.normal(size=(50, 2)), rng.integers(0, 2, 50)), model)
    reading, release = threading.Event(), threading.Event()
    real = app_module.invocation_input

    def held(*args, **kwargs):
        reading.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(app_module, "invocation_input", held)
    server = ThreadServer(ServeConfig(model=str(model)))
    answers: list[tuple[int, object]] = []
    rows = [{"x0": float(i), "x1": 1.0} for i in range(4000)]
    body = json.dumps({"dataframe_records": rows}).encode()
    assert len(body) > app_module._BIG_BODY
    try:
        headers = {"Content-Type": "application/json"}
        reader = threading.Thread(
            target=lambda: answers.append(
                call(server.port, "POST", "/invocations", body, headers, timeout=60)
            )
        )
        reader.start()
        assert reading.wait(30)
        status, _ = call(server.port, "GET", "/ping", timeout=10)
        assert status == 200
        assert not answers  # still being read
        release.set()
        reader.join(60)
        assert answers[0][0] == 200
        assert len(answers[0][1]["predictions"]) == len(rows)
    finally:
        release.set()
        server.kill()
