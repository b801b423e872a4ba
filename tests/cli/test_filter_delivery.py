"""``bayeskit filter`` as a mail system relies on it: the token store kept as private as the
model, a message the output cut off reported as an error, a message that cannot be scored
delivered by maildrop's ``xfilter`` rather than deferred for ever, a learner stopped by
SIGTERM, and what learning from a folder says of files that are no messages."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bayeskit.text import token_store

from .._spam_corpus import SRC, needs_corpus, trained_filter
from .._spam_corpus import messages as _messages

pytestmark = needs_corpus

HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"
#: Messages the filter cannot score: each is the message's own problem, not the model's.
UNSCORABLE = {
    "empty": b"",
    "binary": bytes(range(256)) * 8,
    "no-headers": b"just some text\nwithout headers\n",
    "leading-blank": b"\nSubject: leading blank\n\nbody\n",
}


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return trained_filter(tmp_path_factory.mktemp("filter-delivery") / "m.bk", 20)


def _shell(command: str, cwd: Path, data: bytes | None = None) -> subprocess.CompletedProcess:
    """``command`` run by the shell, with ``filter`` standing for ``python -m bayeskit filter``
    of this source tree."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    filt = f"{sys.executable} -m bayeskit filter"
    return subprocess.run(
        ["sh", "-c", command.replace("filter ", filt + " ")],
        cwd=cwd,
        input=data,
        capture_output=True,
        env=env,
        timeout=300,
    )


def _mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_token_store_is_as_private_as_the_model(model, tmp_path):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    path.chmod(0o600)
    (tmp_path / "mail").write_bytes(HAM)
    store = Path(token_store.store_path(path))
    # learned: the store created beside a private model is private
    got = _shell("umask 022; filter m.bk --learn spam < mail", tmp_path)
    assert got.returncode == 0, got.stderr
    assert _mode(path) == 0o600
    assert _mode(store) == 0o600
    # written again by a scorer (the store missing)
    store.unlink()
    got = _shell("umask 022; filter m.bk < mail", tmp_path)
    assert got.returncode in (0, 1, 2), got.stderr
    assert _mode(store) == 0o600
    # a store left readable by all (the model made private since) is made private again
    store.chmod(0o644)
    assert _shell("umask 022; filter m.bk --learn ham < mail", tmp_path).returncode == 0
    assert _mode(store) == 0o600
    # SQLite's journal, while a write is under way, has the store's permissions
    store.chmod(0o644)
    with token_store.updating(path) as update:
        update.db.execute("DELETE FROM tokens")
        journal = Path(f"{store}-journal")
        assert journal.exists()
        assert _mode(journal) == 0o600
    assert _mode(store) == 0o600
    # a model readable by its group: the store too, no more
    path.chmod(0o640)
    assert _shell("umask 077; filter m.bk --learn ham < mail", tmp_path).returncode == 0
    assert _mode(store) == 0o640


def test_a_delivery_cut_off_by_the_reader_is_an_error_not_a_verdict(model, tmp_path):
    """A reader that goes away after 1 MiB: the write takes part of the message and returns
    its count, which was taken for all of it (status 1, "ham": delivered)."""
    shutil.copy(model, tmp_path / "m.bk")
    (tmp_path / "big").write_bytes(HAM + b"Lunch at noon tomorrow.\n" * (8 << 20 >> 4))
    reader = f'{sys.executable} -c "import sys; sys.stdin.buffer.read(1 << 20)"'
    got = _shell(f"{{ filter m.bk < big; echo $? > status; }} | {reader}", tmp_path)
    assert (tmp_path / "status").read_text().strip() == "3", got.stderr
    assert b"<stdout>: the message could not be written" in got.stderr
    assert b"Traceback" not in got.stderr


@pytest.mark.parametrize("name", sorted(UNSCORABLE))
def test_a_message_that_cannot_be_scored_goes_on_as_unsure_with_exit_zero(model, name):
    raw = UNSCORABLE[name]
    got = _shell("filter m.bk --exit-zero", model.parent, raw)
    assert got.returncode == 0, got.stderr  # maildrop would defer it (EX_TEMPFAIL) otherwise
    head = got.stdout.partition(b"\n\n")[0]
    assert head.split(b"\n")[0] == b"X-Bayeskit-Spam: Unsure"
    assert head.split(b"\n")[1].startswith(b"X-Bayeskit-Reason: ")
    # every byte of the message follows the added header block (a leading blank line of
    # its own ends that block)
    assert got.stdout.endswith(raw)
    assert len(got.stdout) - len(raw) == len(head) + (1 if raw.startswith(b"\n") else 2)
    assert b"passed on as Unsure" in got.stderr
    # without --exit-zero the status is still the error's, the message unchanged
    plain = _shell("filter m.bk", model.parent, raw)
    assert (plain.returncode, plain.stdout) == (3, raw)


def test_a_message_that_cannot_be_scored_is_unsure_beside_a_missing_model(tmp_path):
    """The message's own problem is said whatever the model: the content is checked first."""
    got = _shell("filter missing.bk --exit-zero", tmp_path, b"")
    assert got.returncode == 0
    assert got.stdout.startswith(b"X-Bayeskit-Spam: Unsure\n")


@pytest.mark.skipif(shutil.which("maildrop") is None, reason="maildrop is not installed")
def test_maildrop_delivers_what_cannot_be_scored_and_defers_without_a_model(model, tmp_path):
    """The guide's maildrop recipe: xfilter turns any non-zero status into EX_TEMPFAIL (75),
    so the mail server retries the message, then bounces it."""
    mail = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (mail / sub).mkdir(parents=True)

    def recipe(model_path: Path) -> Path:
        rc = tmp_path / f"mailfilter-{model_path.name}"
        rc.write_text(
            f'xfilter "env PYTHONPATH={SRC} {sys.executable} -m bayeskit filter {model_path} '
            '--exit-zero"\n'
            'if (/^X-Bayeskit-Spam: Yes/)\n{\n    to "/dev/null"\n}\n'
            f'to "{mail}/"\n'
        )
        rc.chmod(0o600)  # (maildrop refuses a filter file others may write)
        return rc

    rc = recipe(model)
    ham = _messages("easy_ham_2", 1)[0]
    for raw in [ham, *UNSCORABLE.values()]:
        done = subprocess.run(["maildrop", str(rc)], input=raw, capture_output=True, timeout=300)
        assert done.returncode == 0, (raw[:40], done.stderr)
    delivered = [p.read_bytes() for p in (mail / "new").iterdir()]
    assert len(delivered) == 1 + len(UNSCORABLE)
    assert sum(m.startswith(b"X-Bayeskit-Spam: Unsure\n") for m in delivered) == len(UNSCORABLE)
    # a missing model is the installation's problem: deferred (the mail waits in the queue)
    done = subprocess.run(
        ["maildrop", str(recipe(tmp_path / "missing.bk"))], input=ham, capture_output=True
    )
    assert done.returncode == 75
    assert len(list((mail / "new").iterdir())) == 1 + len(UNSCORABLE)


def test_a_learner_stopped_by_sigterm_while_it_waits_passes_the_message_on(model, tmp_path):
    """SIGTERM (an MDA's time limit) while the learner waits for the model's lock: the
    message it read goes on, and one line says the model is unchanged (it said nothing and
    wrote nothing: status 143, the message lost to a filter recipe)."""
    import fcntl
    import signal
    import time

    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = path.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "bayeskit", "filter", str(path), "--learn", "spam"]
    lock = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # another learner's, for as long as the test needs
    try:
        learner = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert learner.stdin is not None
        learner.stdin.write(HAM)
        learner.stdin.close()
        learner.stdin = None  # (communicate would flush it)
        deadline = time.monotonic() + 240
        while not _holds_open(learner.pid, f"{path}.lock"):  # it read the message
            assert time.monotonic() < deadline
            assert learner.poll() is None
            time.sleep(0.1)
        time.sleep(0.2)  # (from opening the lock to waiting on it)
        learner.send_signal(signal.SIGTERM)
        out, err = learner.communicate(timeout=120)
    finally:
        os.close(lock)
    assert learner.returncode == 128 + signal.SIGTERM
    assert out == HAM
    assert b"stopped by SIGTERM before" in err
    assert b"the model is unchanged" in err
    assert b"Traceback" not in err
    assert path.read_bytes() == before


def _holds_open(pid: int, path: str) -> bool:
    fds = Path(f"/proc/{pid}/fd")
    try:
        return any(os.readlink(fd) == path for fd in fds.iterdir())
    except OSError:  # (a descriptor closed while listed)
        return False


def test_a_learner_stopped_by_sigterm_while_it_starts_says_so(tmp_path, capsys):
    import signal

    from bayeskit.cli import main

    def terminated(args):
        os.kill(os.getpid(), signal.SIGTERM)  # as if it came during the imports
        return 0

    handler = signal.getsignal(signal.SIGTERM)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("bayeskit.cli._run", terminated)
        with pytest.raises(SystemExit) as stopped:
            main(["filter", str(tmp_path / "m.bk"), "--learn", "spam"])
    assert stopped.value.code == 128 + signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == handler  # put back
    err = capsys.readouterr().err
    assert "stopped by SIGTERM while starting: nothing was learned" in err


def test_files_that_are_no_messages_are_refused_by_name_not_learned(tmp_path, cli):
    import bayeskit as bk

    folder = tmp_path / "Junk"
    folder.mkdir()
    (folder / "1").write_bytes(HAM)
    (folder / "2").write_bytes(b"")
    (folder / "3").write_bytes(UNSCORABLE["binary"])
    path = tmp_path / "new.bk"
    result = cli("filter", path, "--learn", "ham", "--from", folder)
    assert result.exit_code == 0, result.stderr
    assert "1 of 3 messages learned; 2 refused, no messages" in result.stderr
    assert f"{folder / '2'}, {folder / '3'}" in result.stderr
    assert bk.load(path).class_count_.tolist() == [1.0, 0.0]  # (ham, spam)
    # one from standard input is refused as the scorer refuses it
    got = cli("filter", path, "--learn", "ham", input=UNSCORABLE["no-headers"])
    assert got.exit_code == 3
    assert got.stdout_bytes == UNSCORABLE["no-headers"]
    assert "not an RFC 822 message (no header lines); nothing learned" in got.stderr
    assert bk.load(path).class_count_.tolist() == [1.0, 0.0]


def test_unlearning_a_message_never_learned_says_so_in_plain_words(model, tmp_path, cli):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = path.read_bytes()
    spam = _messages("spam_2", 1)[0]  # (the model learned from spam/, not spam_2/)
    result = cli("filter", path, "--unlearn", "ham", input=spam)
    assert result.exit_code == 3
    assert result.stdout_bytes == spam
    assert "this message was not learned as ham" in result.stderr
    assert "nothing was unlearned, the model is unchanged" in result.stderr
    assert "weight" not in result.stderr
    assert path.read_bytes() == before


def test_a_server_that_cannot_be_reached_is_named(tmp_path):
    got = _shell("filter --server http://127.0.0.1:1", tmp_path, HAM)
    assert (got.returncode, got.stdout) == (3, HAM)
    assert b"--server http://127.0.0.1:1: the server cannot be reached (" in got.stderr
