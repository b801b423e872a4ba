"""``bayeskit filter`` when what is around it fails: an output that cannot be written, no
standard input, a token store that is another program's file or cannot be written, and a
filter that has learned one class only. The mail is never reported delivered when it was not,
and the token store (a copy of the model for quick lookups) never costs a learn."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.cli import filter_cmd
from bayeskit.text import token_store

from .._spam_corpus import SRC, needs_corpus, trained_filter
from .._spam_corpus import messages as _messages

pytestmark = needs_corpus

HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return trained_filter(tmp_path_factory.mktemp("filter-failures") / "m.bk", 20)


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """``command`` run by the shell, with ``filter`` standing for ``python -m bayeskit filter``
    of this source tree."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    filt = f"{sys.executable} -m bayeskit filter"
    return subprocess.run(
        ["sh", "-c", command.replace("filter ", filt + " ", 1)],
        cwd=cwd,
        capture_output=True,
        env=env,
        timeout=300,
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("more", ["", "--exit-zero", "--learn ham"])
def test_an_output_that_cannot_be_written_is_an_error_not_a_verdict(model, tmp_path, more):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    (tmp_path / "mail").write_bytes(HAM)
    got = _shell(f"filter m.bk {more} < mail > /dev/full", tmp_path)
    assert got.returncode == 3  # 1 would read as "ham": delivered, which it was not
    assert b"Traceback" not in got.stderr
    assert b"<stdout>: the message could not be written" in got.stderr


@pytest.mark.parametrize(
    ("redirect", "says"),
    [("< mail >&-", b"<stdout>"), ("<&-", b"<stdin>: no message to read")],
)
def test_a_closed_standard_input_or_output_is_an_error(model, tmp_path, redirect, says):
    shutil.copy(model, tmp_path / "m.bk")
    (tmp_path / "mail").write_bytes(HAM)
    got = _shell(f"filter m.bk {redirect}", tmp_path)
    assert got.returncode == 3
    assert b"Traceback" not in got.stderr
    assert says in got.stderr


def test_a_filter_that_learned_one_class_is_unsure_of_everything(tmp_path):
    spam, ham = _messages("spam", 1)[0], _messages("easy_ham_2", 1)[0]
    (tmp_path / "spam").write_bytes(spam)
    (tmp_path / "ham").write_bytes(ham)
    assert _shell("filter new.bk --learn spam < spam", tmp_path).returncode == 0
    for mail in ("ham", "spam"):
        got = _shell(f"filter new.bk < {mail}", tmp_path)
        assert got.returncode == 2, got.stderr  # not "spam" (it knows no ham yet)
        assert b"X-Bayeskit-Spam: Unsure\n" in got.stdout
        # no score beside it (it would be 1.0, the one class it knows), the reason instead
        assert b"X-Bayeskit-Score" not in got.stdout
        assert b"X-Bayeskit-Reason: the filter has learned spam only\n" in got.stdout
        assert b"it learns ham too" in got.stderr
    assert _shell("filter new.bk --learn ham < ham", tmp_path).returncode == 0
    assert _shell("filter new.bk < ham", tmp_path).returncode in (1, 2)


#: Stores of this layout whose meta table's settings are not a JSON object (damaged, or
#: written by another program), each an UPDATE of a store written from the model
_BAD_SETTINGS = {"settings-null": "null", "settings-truncated": '{"supported": true, "anal'}


@pytest.mark.parametrize(
    "store",
    [b"", b"garbage " * 512, "foreign", "without-keys", *_BAD_SETTINGS],
    ids=[
        "empty",
        "garbage",
        "another-programs-database",
        # tables named meta and tokens of another layout (another program's, an older one):
        # a write into them would add a second row for a term, which the store would count
        "tables-without-keys",
        *_BAD_SETTINGS,
    ],
)
def test_a_store_that_is_no_store_costs_no_learn_and_is_written_again(model, tmp_path, store):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    where = Path(token_store.store_path(path))
    if store in _BAD_SETTINGS:
        token_store.rebuild(bk.load(path), path, token_store.model_stamp(path))
        with sqlite3.connect(where) as db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (_BAD_SETTINGS[store],))
        db.close()
    elif isinstance(store, str):
        db = sqlite3.connect(where)
        if store == "foreign":
            db.execute("CREATE TABLE meta (name, val)")
        else:
            db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
            db.execute("CREATE TABLE tokens (term TEXT, ham REAL, spam REAL)")
        db.commit()
        db.close()
    else:
        where.write_bytes(store)
    before = bk.load(path).class_count_.tolist()
    spam = _messages("spam_2", 1)[0]
    (tmp_path / "spam").write_bytes(spam)
    for _ in range(2):
        got = _shell("filter m.bk --learn spam < spam", tmp_path)
        assert got.returncode == 0, got.stderr
        assert got.stdout == spam  # passed on intact
        assert b"Traceback" not in got.stderr
    assert bk.load(path).class_count_.tolist() == [before[0], before[1] + 2]
    (tmp_path / "ham").write_bytes(HAM)
    _shell("filter m.bk < ham", tmp_path)  # (writes the store, if the learns did not)
    got = _shell("filter m.bk --verbose < ham", tmp_path)
    assert b"scored from the token store" in got.stderr
    # ... and it is a store of this layout, one row a term, scoring as the model does
    with sqlite3.connect(where) as db:
        assert db.execute("SELECT count(*) - count(DISTINCT term) FROM tokens").fetchone() == (0,)
        assert db.execute("SELECT count(*) - count(DISTINCT key) FROM meta").fetchone() == (0,)
    db.close()
    for message in (spam, HAM):
        p_spam = bk.load(path).spam_probability([message])[0]
        assert token_store.score_message(path, message)[0] == pytest.approx(p_spam, rel=1e-9)


@pytest.mark.parametrize("settings", list(_BAD_SETTINGS.values()), ids=list(_BAD_SETTINGS))
def test_a_store_whose_settings_cannot_be_read_is_declined_and_rebuilt(model, tmp_path, settings):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    token_store.rebuild(bk.load(path), path, token_store.model_stamp(path))
    with sqlite3.connect(token_store.store_path(path)) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (settings,))
    db.close()
    (tmp_path / "ham").write_bytes(HAM)
    got = _shell("filter m.bk --verbose < ham", tmp_path)
    assert got.returncode in (1, 2)
    assert b"scored by the full model: the token store's settings are" in got.stderr
    assert b"not rebuilt" not in got.stderr
    got = _shell("filter m.bk --verbose < ham", tmp_path)  # rebuilt by the run before
    assert b"scored from the token store" in got.stderr


def test_a_store_failing_before_or_after_the_model_is_saved_costs_no_learn(
    model, tmp_path, monkeypatch, capsys
):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = bk.load(path).class_count_.tolist()
    spam = _messages("spam_2", 2)

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    # The rows cannot be written (the model not yet replaced): the model is saved alone.
    monkeypatch.setattr(token_store._Update, "write", full)
    assert filter_cmd._change(str(path), spam[:1], "spam", True, False) == 1
    assert bk.load(path).class_count_.tolist() == [before[0], before[1] + 1]
    assert "the token store was not updated (database or disk is full)" in capsys.readouterr().err
    monkeypatch.undo()

    # The commit fails after the new model file is in place: learned once, not reported as a
    # failure (a mail system retrying a failed learn would learn the message again).
    real = token_store.updating

    class _Failing:
        def __init__(self, model_path):
            self.inner = real(model_path)

        def __enter__(self):
            return self.inner.__enter__()

        def __exit__(self, *exc):
            self.inner.__exit__(*exc)
            raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(token_store, "updating", _Failing)
    assert filter_cmd._change(str(path), spam[1:], "spam", True, False) == 1
    assert bk.load(path).class_count_.tolist() == [before[0], before[1] + 2]
    assert "the model was saved" in capsys.readouterr().err


def test_learning_from_a_file_reads_an_mbox_or_one_message_and_refuses_the_rest(tmp_path):
    one = tmp_path / "saved.eml"
    one.write_bytes(HAM)
    assert filter_cmd.messages_in(one) == [HAM]  # (mailbox.mbox found 0 messages in it)
    mbox = tmp_path / "in.mbox"
    mbox.write_bytes(b"From a@b Mon Jan  1 00:00:00 2024\n" + HAM + b"\n")
    assert len(filter_cmd.messages_in(mbox)) == 1
    for name, data in (("archive.mbox.gz", b"\x1f\x8b\x08\x00" + bytes(64)), ("x.bin", b"\0\1")):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=r"neither an mbox file .* nor an RFC 822 message"):
            filter_cmd.messages_in(tmp_path / name)


def test_learning_from_a_folder_leaves_hidden_files_out(tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "1").write_bytes(HAM)
    (flat / ".DS_Store").write_bytes(b"\0Bud1")
    (flat / ".mh_sequences").write_bytes(b"")
    assert filter_cmd.messages_in(flat) == [HAM]


def test_training_from_maildirs_reads_their_delivered_messages_only(tmp_path):
    from bayeskit.io.documents import read_class_folders

    for label in ("ham", "spam"):
        for sub in ("cur", "new", "tmp"):
            (tmp_path / label / sub).mkdir(parents=True)
        (tmp_path / label / "cur" / "1:2,S").write_bytes(HAM)
        (tmp_path / label / "new" / "2").write_bytes(HAM)
        (tmp_path / label / "tmp" / "3.M1P1.host").write_bytes(HAM)  # still being delivered
        (tmp_path / label / "dovecot.index.cache").write_bytes(bytes(range(256)))
        (tmp_path / label / "dovecot-uidlist").write_bytes(b"3 V1700000000 N10\n")
        (tmp_path / label / "maildirfolder").write_bytes(b"")
    docs = read_class_folders(tmp_path)
    assert sorted(docs.labels) == ["ham", "ham", "spam", "spam"]


def test_an_empty_mbox_holds_no_messages_and_a_folder_with_new_is_no_maildir(tmp_path):
    from bayeskit.io.documents import list_files

    (tmp_path / "empty.mbox").write_bytes(b"")
    assert filter_cmd.messages_in(tmp_path / "empty.mbox") == []
    (tmp_path / "lead.mbox").write_bytes(b"\nFrom a@b Mon Jan  1 00:00:00 2024\n" + HAM)
    assert len(filter_cmd.messages_in(tmp_path / "lead.mbox")) == 1
    docs = tmp_path / "docs"
    for sub in ("new", "old"):
        (docs / sub).mkdir(parents=True)
        (docs / sub / "a.txt").write_text("words")
    (docs / "top.txt").write_text("words")
    assert [p.relative_to(docs).as_posix() for p in list_files(docs)] == [
        "new/a.txt",
        "old/a.txt",
        "top.txt",
    ]


def test_the_service_is_unsure_of_everything_while_a_filter_knows_one_class():
    from bayeskit.serve.scoring import Scorer
    from bayeskit.text import SpamFilter

    f = SpamFilter().fit(["buy cheap pills now", "cheap pills", "win money now"], ["spam"] * 3)
    scorer = Scorer.of(f)
    answer = scorer.check("hello friend, lunch?")
    assert (answer["verdict"], answer["action"]) == ("unsure", "review")
    assert scorer.verdict("hello friend, lunch?")[1] == "unsure"


def test_a_learner_stopped_by_sigterm_leaves_no_temporary_file(model, tmp_path, monkeypatch, cli):
    """SIGTERM (an MDA's timeout) in the middle of the save ends the learner as an error does:
    the save's clean-up runs, the model stays as it was, the message is passed on and one
    line says so."""
    import signal

    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = path.read_bytes()

    def terminated(*args):
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(filter_cmd, "_write_store", terminated)
    handler = signal.getsignal(signal.SIGTERM)
    result = cli("filter", path, "--learn", "ham", input=HAM)
    assert result.exit_code == 128 + signal.SIGTERM
    assert result.stdout_bytes == HAM
    assert "stopped by SIGTERM before" in result.stderr
    assert "nothing was learned, the model is unchanged" in result.stderr
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".m.bk.*.tmp"))
    assert signal.getsignal(signal.SIGTERM) == handler  # put back


def test_a_killed_learners_temporary_files_are_removed_by_the_next(model, tmp_path, cli):
    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    old = tmp_path / ".m.bk.killed.tmp"  # SIGKILL leaves no chance to clean up
    old.write_bytes(b"half a model")
    os.utime(old, (1, 1))
    fresh = tmp_path / ".m.bk.being-written.tmp"  # another program's save, under way
    fresh.write_bytes(b"a model being written")
    assert cli("filter", path, "--learn", "ham", input=HAM).exit_code == 0
    assert not old.exists()
    assert fresh.exists()


def test_a_store_another_program_holds_costs_seconds_not_a_minute(model, tmp_path, cli):
    """A scorer waits 2 s for the token store's lock, then the full model scores the message
    (it waited 30 s, then 30 s more to write the store again)."""
    import time

    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    first = cli("filter", path, input=HAM)  # writes the store
    store = token_store.store_path(str(path))
    assert os.path.exists(store)
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        held = cli("filter", path, input=HAM)
        took = time.monotonic() - start
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert held.exit_code == first.exit_code
    assert held.stdout == first.stdout  # the same verdict and score, by the full model
    assert took < 20


def test_a_maildir_a_mail_server_is_moving_messages_in(tmp_path, monkeypatch):
    """new/ → cur/ renames under way while --from reads the Maildir: no message missed, none
    read twice."""
    box = tmp_path / "Maildir"
    for sub in ("new", "cur", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "new" / "1001.a").write_bytes(HAM)
    (box / "cur" / "1002.b:2,S").write_bytes(HAM.replace(b"lunch", b"dinner"))
    # listed in both (moved between the two listings): read once, under its new name
    (box / "new" / "1003.c").write_bytes(HAM.replace(b"lunch", b"tea"))
    (box / "cur" / "1003.c:2,").write_bytes(HAM.replace(b"lunch", b"tea"))
    real = Path.open
    moved = []

    def moved_first(self, *args, **kwargs):  # the server moves 1001.a to cur/ before it is read
        if self.name == "1001.a" and self.exists():
            self.rename(box / "cur" / "1001.a:2,S")
            moved.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", moved_first)
    got = filter_cmd.messages_in(box)
    assert sorted(got) == sorted(
        [HAM, HAM.replace(b"lunch", b"dinner"), HAM.replace(b"lunch", b"tea")]
    )
    assert moved  # (the move happened as the learner read the folder)


def test_a_learner_stopped_by_sigterm_after_the_save_reports_success(
    model, tmp_path, monkeypatch, cli
):
    """SIGTERM after the new model file is in place: the learn is done, so the learner exits
    0 and says so. A status of 143 would make a mail system that retries failed commands
    learn the message a second time."""
    import signal

    path = tmp_path / "m.bk"
    shutil.copy(model, path)
    before = bk.load(path).class_count_.copy()
    counted = filter_cmd._refusals

    def terminated(*args, **kwargs):  # what the count line reads, once the model is saved
        os.kill(os.getpid(), signal.SIGTERM)
        return counted(*args, **kwargs)

    monkeypatch.setattr(filter_cmd, "_refusals", terminated)
    result = cli("filter", path, "--learn", "ham", input=HAM)
    assert result.exit_code == 0
    assert "stopped by SIGTERM after" in result.stderr
    assert "the message(s) were learned; the message was passed on" in result.stderr
    assert result.stdout_bytes == HAM
    assert bk.load(path).class_count_.sum() == before.sum() + 1
    assert not list(tmp_path.glob(".m.bk.*.tmp"))
