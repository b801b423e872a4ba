"""``bayeskit filter``: passthrough with verdict headers, bogofilter's exit statuses, never
eating mail, learning under a lock, and delivery through a real MDA (procmail)."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.cli.filter_cmd import messages_in
from bayeskit.cli.mail_headers import header_end, with_headers
from bayeskit.text import SpamFilter, token_store

from .._spam_corpus import SRC, needs_corpus, served, trained_filter
from .._spam_corpus import messages as _messages

pytestmark = needs_corpus


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return trained_filter(tmp_path_factory.mktemp("filter") / "m.bk", 40)


def run(*args: object, data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "bayeskit", "filter", *map(str, args)]
    return subprocess.run(command, input=data, capture_output=True, env=env, timeout=300)


def _without_ours(out: bytes) -> bytes:
    return b"".join(
        line for line in out.splitlines(keepends=True) if not line.startswith(b"X-Bayeskit-")
    )


def test_passthrough_adds_the_verdict_and_exits_with_it(model):
    spam = _messages("spam_2", 1)[0]
    ham = _messages("easy_ham_2", 1)[0]
    forged = b"X-Bayeskit-Spam: No\nX-Bayeskit-Score:\n 0.0\n" + spam
    expected = SpamFilter.classify(bk.load(model), [spam, ham]).tolist()
    statuses = {"spam": 0, "ham": 1, "unsure": 2}
    for message, verdict, original in ((forged, expected[0], spam), (ham, expected[1], ham)):
        got = run(model, data=message)
        assert got.returncode == statuses[verdict], got.stderr
        word = {"spam": b"Yes", "ham": b"No", "unsure": b"Unsure"}[verdict]
        head = got.stdout[: header_end(got.stdout)]
        assert head.count(b"X-Bayeskit-Spam: ") == 1  # a forged verdict is dropped
        assert b"X-Bayeskit-Spam: " + word + b"\n" in head
        assert _without_ours(got.stdout) == original
    assert run(model, "--exit-zero", data=ham).returncode == 0


@pytest.mark.parametrize(
    "params",
    [{"scoring": "fisher"}, {"scoring": "fisher", "nb_weight": 1.0}],
    ids=["fisher", "fisher+naive_bayes"],
)
def test_every_scoring_files_as_the_library_does(tmp_path, params):
    # The first message is scored by the full model (no store yet; it writes one), the others
    # from the store: both give SpamFilter.classify's verdict and spam_probability's score.
    path = trained_filter(tmp_path / "s.bk", 40, **params)
    probe = _messages("spam_2", 3) + _messages("hard_ham", 3)
    filt = bk.load(path)
    verdicts, p_spam = filt.classify(probe).tolist(), filt.spam_probability(probe)
    said = []
    for message, verdict, p in zip(probe, verdicts, p_spam, strict=True):
        got = run(path, "--verbose", data=message)
        word = {"spam": b"Yes", "ham": b"No", "unsure": b"Unsure"}[verdict]
        head = got.stdout[: header_end(got.stdout)]
        assert b"X-Bayeskit-Spam: " + word + b"\n" in head
        assert b"X-Bayeskit-Score: %.6f\n" % p in head
        said.append(got.stderr)
    assert b"by the full model" in said[0]
    assert all(b"from the token store" in err for err in said[1:])


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00\xff" * 5000 + os.urandom(2000), b"just a line of text\n\nand more", b"\n\n\n"],
    ids=["empty", "binary", "not-rfc822", "blank-lines"],
)
def test_a_filter_never_eats_mail(model, data):
    got = run(model, data=data)
    assert got.returncode == 3
    assert got.stdout == data
    assert b"Traceback" not in got.stderr
    assert got.stderr.startswith(b"bayeskit filter: ")


def test_no_model_or_not_a_filter_passes_the_mail_through(tmp_path):
    message = _messages("spam_2", 1)[0]
    got = run(tmp_path / "missing.bk", data=message)
    assert (got.returncode, got.stdout) == (3, message)
    assert b"Traceback" not in got.stderr


def test_huge_message_is_classified_and_passed_through(model):
    message = _messages("easy_ham_2", 1)[0] + b"word " * 2_000_000  # 10 MB
    got = run(model, data=message)
    assert got.returncode in (0, 1, 2)
    assert _without_ours(got.stdout) == message


def test_headers_go_at_the_end_of_the_header_block_in_its_line_ending():
    raw = b"From: a@b\r\nSubject: hi\r\n\r\nbody\r\n"
    out = with_headers(raw, header_end(raw), [(b"X-Bayeskit-Spam", b"No")])
    assert out == b"From: a@b\r\nSubject: hi\r\nX-Bayeskit-Spam: No\r\n\r\nbody\r\n"
    only = b"Subject: no body"
    assert with_headers(only, header_end(only), [(b"X", b"1")]) == b"Subject: no body\nX: 1\n"
    assert header_end(b"no header here\n\nbody") is None


def test_learn_and_unlearn_from_a_maildir_in_date_order(tmp_path, model):
    box = tmp_path / "Maildir" / ".Junk"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    late = b"From: x@y\nDate: Tue, 2 Jan 2024 10:00:00 +0000\nSubject: late\n\nwin cash\n"
    early = b"From: x@y\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nSubject: early\n\nfree prize\n"
    (box / "cur" / "a").write_bytes(late)
    (box / "new" / "b").write_bytes(early)
    assert messages_in(box, by_date=True) == [early, late]
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = bk.load(path).class_count_.tolist()
    assert run(path, "--learn", "spam", "--from", box).returncode == 0
    assert bk.load(path).class_count_.tolist() == [before[0], before[1] + 2]
    assert run(path, "--unlearn", "spam", "--from", box).returncode == 0
    assert bk.load(path).class_count_.tolist() == before
    mbox = tmp_path / "in.mbox"
    mbox.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\n" + late + b"\n")
    assert len(messages_in(mbox)) == 1
    assert run(path, "--learn", "spamm", data=late).returncode == 3


def test_learn_means_the_models_own_labels(tmp_path):
    # A filter trained from folders "Spam" and "Ham" spells its classes so: --learn spam
    # and --unlearn ham must name those (they learned a third class "spam" before, then were
    # refused).
    path = tmp_path / "m.bk"
    spam, ham = _messages("spam", 6), _messages("easy_ham", 6)
    f = SpamFilter(spam_label="Spam", ham_label="Ham", calibration_folds=None)
    bk.save(f.fit(spam + ham, ["Spam"] * 6 + ["Ham"] * 6), path)
    assert run(path, "--learn", "spam", data=_messages("spam_2", 1)[0]).returncode == 0
    learned = bk.load(path)
    assert learned.classes_.tolist() == ["Ham", "Spam"]
    assert learned.class_count_.tolist() == [6, 7]
    assert run(path, "--unlearn", "ham", data=ham[0]).returncode == 0
    assert bk.load(path).class_count_.tolist() == [5, 7]


def test_parallel_learners_lose_nothing_and_kill_9_breaks_nothing(tmp_path, model):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = bk.load(path).class_count_.tolist()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    messages = _messages("spam_2", 5)
    command = [sys.executable, "-m", "bayeskit", "filter", str(path), "--learn", "spam"]
    learners = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        for _ in messages
    ]
    victim = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    for learner, message in zip(learners, messages, strict=True):
        assert learner.stdin is not None
        learner.stdin.write(message)
        learner.stdin.close()
    assert victim.stdin is not None
    victim.stdin.write(messages[0])
    victim.stdin.close()
    time.sleep(1.0)
    victim.send_signal(signal.SIGKILL)
    assert [learner.wait(timeout=300) for learner in learners] == [0] * len(messages)
    victim.wait(timeout=60)
    learned = bk.load(path).class_count_.tolist()  # loads: never half-written
    assert learned[0] == before[0]
    assert learned[1] in (before[1] + 5, before[1] + 6)  # the killed one counted or not
    # The token store: in step with the model file, or stale (then never used).
    filt = bk.load(path)
    with sqlite3.connect(token_store.store_path(path)) as db:
        stamp = db.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()[0]
        rows = db.execute("SELECT term, ham, spam FROM tokens ORDER BY term").fetchall()
    if stamp == token_store.model_stamp(path):
        vec, nb = filt.fitted_parts()
        assert [t for t, _, _ in rows] == sorted(vec.terms_.tolist())
        assert [[h for _, h, _ in rows], [s for _, _, s in rows]] == nb.feature_count_.tolist()
    message = _messages("easy_ham_2", 1)[0]
    expected = {"spam": 0, "ham": 1, "unsure": 2}[str(filt.classify([message])[0])]
    assert run(path, data=message).returncode == expected


@pytest.mark.skipif(shutil.which("procmail") is None, reason="procmail is not installed")
def test_procmail_delivers_through_the_filter_into_a_maildir(tmp_path, model):
    mail = tmp_path / "Mail"
    for sub in ("cur", "new", "tmp"):
        (mail / sub).mkdir(parents=True)
    rc = tmp_path / "procmailrc"
    rc.write_text(
        f"SHELL=/bin/sh\nMAILDIR={mail}/\nDEFAULT={mail}/\nPYTHONPATH={SRC}\n"
        f":0fw\n| {sys.executable} -m bayeskit filter {model} --exit-zero\n"
        ":0\n* ^X-Bayeskit-Spam: Yes\n.Junk/\n"
    )
    spam, ham = _messages("spam_2", 1)[0], _messages("easy_ham_2", 1)[0]
    verdicts = SpamFilter.classify(bk.load(model), [spam, ham]).tolist()
    for message in (spam, ham, b"\x00garbage\xff"):
        subprocess.run(["procmail", "-m", str(rc)], input=message, check=True, timeout=300)
    junk = list((mail / ".Junk" / "new").glob("*")) if (mail / ".Junk").exists() else []
    inbox = list((mail / "new").glob("*"))
    assert len(junk) == verdicts.count("spam")
    assert len(junk) + len(inbox) == 3  # nothing eaten, the garbage included
    delivered = [p.read_bytes() for p in inbox]
    # garbage is no message to score: with --exit-zero it goes on as Unsure, whole
    assert any(
        m.startswith(b"X-Bayeskit-Spam: Unsure\n") and b"\n\n\x00garbage\xff" in m
        for m in delivered
    )


def test_a_running_server_scores_through_filter_server(tmp_path, model):
    with served(model) as url:
        spam, ham = _messages("spam_2", 1)[0], _messages("easy_ham_2", 1)[0]
        filt = bk.load(model)
        for message in (spam, ham):
            done = run("--server", url, "--verbose", data=message)
            p = float(filt.spam_probability([message])[0])
            expected = {"spam": 0, "ham": 1, "unsure": 2}[str(filt.classify([message])[0])]
            assert done.returncode == expected
            assert f"scored by {url}".encode() in done.stderr
            assert _without_ours(done.stdout) == message
            assert b"X-Bayeskit-Score: %.6f" % p in done.stdout
        garbage = b"\x00garbage\xff"
        done = run("--server", url, data=garbage)
        assert (done.returncode, done.stdout) == (3, garbage)
    # No server there: passed through with status 3, or scored by MODEL when given.
    message = _messages("spam_2", 1)[0]
    done = run("--server", url, data=message)
    assert (done.returncode, done.stdout) == (3, message)
    copy = tmp_path / "m.bk"
    shutil.copy(model, copy)
    done = run(copy, "--server", url, data=message)
    assert (
        done.returncode
        == {"spam": 0, "ham": 1, "unsure": 2}[str(bk.load(copy).classify([message])[0])]
    )
