"""The journal and the background save: a crash between any two writes loses nothing
acknowledged and counts nothing twice (the crash is simulated at each step here; the
end-to-end tests kill a real server with SIGKILL)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.serve.journal import JournalError, file_sha256
from bayeskit.serve.state import LearnError, ModelState

from .conftest import SPAMMY

MESSAGES = [
    (f"note {i}: {SPAMMY if i % 2 else 'lunch at noon'}", "spam" if i % 2 else "ham")
    for i in range(6)
]


def _learn(state: ModelState, messages) -> None:
    for text, label in messages:
        assert state.submit(text, label, unlearn=False).result(30)["learned"]


def _expected(source, messages) -> np.ndarray:
    model = bk.load(source)
    model.partial_fit([t for t, _ in messages], [y for _, y in messages])
    return model.predict_proba([SPAMMY, "lunch at noon", "note 3"])


def _proba(state: ModelState) -> np.ndarray:
    return state.snapshot.model.predict_proba([SPAMMY, "lunch at noon", "note 3"])


@pytest.fixture
def model(sms_file, tmp_path):
    path = tmp_path / "sms.bk"
    shutil.copyfile(sms_file, path)
    return path


def _abandon(state: ModelState) -> None:
    """Stop the threads without saving, as a crash would (the files stay as they are)."""
    state._queue.put(None)
    state._stop.set()
    for thread in state._threads:
        thread.join(10)
    assert state.journal is not None
    state.journal.close()
    assert state._lock_file is not None
    state._lock_file.close()  # the kernel drops a dead process's locks


def test_journal_replayed_after_a_crash(model, sms_file):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES)
    _abandon(state)
    assert file_sha256(model) == file_sha256(sms_file)  # never saved: the journal has it all
    again = ModelState(str(model), learning=True, save_interval=3600)
    assert again.replayed == len(MESSAGES)
    np.testing.assert_allclose(_proba(again), _expected(sms_file, MESSAGES), rtol=1e-12)
    assert len(again.snapshot.learned) == len(MESSAGES)
    again.close()


@pytest.mark.parametrize("crash_at", ["after_save", "after_checkpoint", "after_replace"])
def test_a_crash_at_any_step_of_the_save(model, sms_file, monkeypatch, crash_at):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:4])
    journal = state.journal
    assert journal is not None

    class CrashError(Exception):
        pass

    def crash(*args, **kwargs):
        raise CrashError

    steps = {
        "after_save": (journal, "checkpoint"),
        "after_checkpoint": (os, "replace"),
        "after_replace": (journal, "compact"),
    }
    target, name = steps[crash_at]
    with monkeypatch.context() as patch:
        patch.setattr(target, name, crash)
        with pytest.raises(CrashError):
            state.save_now()
    _learn(state, MESSAGES[4:])  # more learning after the failed save, then the crash
    _abandon(state)
    again = ModelState(str(model), learning=True, save_interval=3600)
    np.testing.assert_allclose(_proba(again), _expected(sms_file, MESSAGES), rtol=1e-12)
    assert again.snapshot.seq == len(MESSAGES)
    assert sorted(again.snapshot.learned.values()) == sorted(y for _, y in MESSAGES)
    # and a save that completes leaves a model file that holds everything, with a short journal
    assert again.save_now()
    again.close()
    on_disk = bk.load(model)
    np.testing.assert_allclose(
        on_disk.predict_proba([SPAMMY, "lunch at noon", "note 3"]),
        _expected(sms_file, MESSAGES),
        rtol=1e-12,
    )
    lines = (model.parent / "sms.bk.journal").read_text().splitlines()
    assert len(lines) == 1
    base = json.loads(lines[0])
    assert base["model_sha256"] == file_sha256(model)
    assert len(base["learned"]) == len(MESSAGES)  # duplicates are still recognised


def test_a_torn_last_line_was_never_acknowledged(model, sms_file):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:3])
    _abandon(state)
    journal = model.parent / "sms.bk.journal"
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"type":"op","seq":4,"digest":"ab')  # cut mid-append
    again = ModelState(str(model), learning=True, save_interval=3600)
    np.testing.assert_allclose(_proba(again), _expected(sms_file, MESSAGES[:3]), rtol=1e-12)
    assert journal.read_bytes() == whole  # the torn line is gone; appends start cleanly
    _learn(again, MESSAGES[3:4])
    again.close()
    third = ModelState(str(model), learning=False)
    np.testing.assert_allclose(_proba(third), _expected(sms_file, MESSAGES[:4]), rtol=1e-12)


def test_a_journal_of_another_model_is_refused(model, sms_file, tmp_path):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:2])
    _abandon(state)
    other = bk.load(sms_file)
    other.partial_fit(["something else entirely"], ["ham"])
    bk.save(other, model)  # replaced by hand while the journal still names the old file
    with pytest.raises(JournalError, match="belongs to another version of the model file"):
        ModelState(str(model), learning=True)


def test_a_damaged_journal_is_refused(model):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:3])
    _abandon(state)
    journal = model.parent / "sms.bk.journal"
    lines = journal.read_bytes().split(b"\n")
    lines[2] = b"garbage"
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 3 is not JSON"):
        ModelState(str(model), learning=True)


def test_unlearn_and_relabel_replay(model, sms_file):
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:3])
    text, label = MESSAGES[0]
    other = "spam" if label == "ham" else "ham"
    assert state.submit(text, other, unlearn=False).result(30)["was"] == label
    assert state.submit(MESSAGES[1][0], MESSAGES[1][1], unlearn=True).result(30)["unlearned"]
    expected = _proba(state)
    _abandon(state)
    again = ModelState(str(model), learning=True, save_interval=3600)
    np.testing.assert_allclose(_proba(again), expected, rtol=1e-12)
    np.testing.assert_allclose(
        expected, _expected(sms_file, [(text, other), MESSAGES[2]]), rtol=1e-12
    )
    again.close()


def test_a_batch_with_a_bad_request_learns_the_others(model, sms_file):
    state = ModelState(str(model), learning=True, save_interval=3600)
    from bayeskit.serve.state import _Request

    good = [_Request(t, y, False) for t, y in MESSAGES[:3]]
    never = _Request("never learned", "spam", True)
    state._learn_batch([good[0], never, *good[1:]])
    assert all(r.future.result(30)["learned"] for r in good)
    with pytest.raises(Exception, match="never learned"):
        never.future.result(30)
    np.testing.assert_allclose(_proba(state), _expected(sms_file, MESSAGES[:3]), rtol=1e-12)
    _abandon(state)


def test_readers_only_need_read_access(model, sms_file):
    os.chmod(model, 0o444)
    try:
        state = ModelState(str(model), learning=False)
        assert state.journal is None
        assert not (model.parent / "sms.bk.journal").exists()
    finally:
        os.chmod(model, 0o644)


def test_one_learning_server_per_model_file(model):
    state = ModelState(str(model), learning=True, save_interval=3600)
    with pytest.raises(LearnError, match="another bayeskit serve is learning into"):
        ModelState(str(model), learning=True)
    reader = ModelState(str(model), learning=False)  # serving without learning is fine
    assert reader.snapshot.seq == 0
    state.close()
    ModelState(str(model), learning=True).close()  # released by close


def test_a_message_the_model_refuses_fails_alone(model, sms_file, monkeypatch):
    import bayeskit.serve.state as state_module
    from bayeskit.errors import DataError
    from bayeskit.serve.state import _Request

    real = state_module.apply_ops

    def picky(m, ops):
        if any(doc == "poison" for doc, _, _ in ops):
            raise DataError("the model refuses this message")
        return real(m, ops)

    monkeypatch.setattr(state_module, "apply_ops", picky)
    state = ModelState(str(model), learning=True, save_interval=3600)
    batch = [_Request(t, y, False) for t, y in MESSAGES[:2]]
    bad = _Request("poison", "spam", False)
    state._learn_batch([batch[0], bad, batch[1]])
    assert all(r.future.result(30)["learned"] for r in batch)
    with pytest.raises(DataError, match="refuses"):
        bad.future.result(30)
    np.testing.assert_allclose(_proba(state), _expected(sms_file, MESSAGES[:2]), rtol=1e-12)
    assert state.snapshot.seq == 2
    _abandon(state)


def _damaged(model, change) -> None:
    """Three learns journaled and a crash; then ``change(records)`` edits the journal's
    records (a list of dicts, the base line first) by hand."""
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:3])
    _abandon(state)
    journal = model.parent / "sms.bk.journal"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    change(records)
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))


def _checkpoint(records, **fields) -> None:
    records.insert(2, {"type": "checkpoint", "model_sha256": "0" * 64, **fields})


HAND_DAMAGE = [
    ("base without seq", lambda r: r[0].pop("seq"), "line 1: the base line's seq is null"),
    ("base seq text", lambda r: r[0].update(seq="x"), 'line 1: the base line\'s seq is "x"'),
    ("base seq null", lambda r: r[0].update(seq=None), "line 1: the base line's seq is null"),
    ("base seq huge", lambda r: r[0].update(seq=1e999), "line 1: the base line's seq is"),
    ("checkpoint without seq", lambda r: _checkpoint(r), "line 3: the checkpoint's seq is null"),
    ("checkpoint seq text", lambda r: _checkpoint(r, seq="2"), "line 3: the checkpoint's seq"),
    ("op seq text", lambda r: r[2].update(seq="2"), 'line 3: the operation\'s seq is "2"'),
    ("unknown label", lambda r: r[1].update(learn="eggs"), "line 2: the operation's learn label"),
    ("label not text", lambda r: r[1].update(learn=5), "learn label 5 is not a label"),
    ("unlearn label", lambda r: r[3].update(unlearn="eggs"), "line 4: the operation's unlearn"),
    ("no change", lambda r: r[1].update(learn=None), "line 2: the operation neither learns"),
    ("digest", lambda r: r[2].update(digest="ab" * 32), "line 3: the operation's digest"),
    ("index label", lambda r: r[0].update(learned={"ab": "eggs"}), "index holds the label"),
]


@pytest.mark.parametrize(
    ("change", "says"), [c[1:] for c in HAND_DAMAGE], ids=[c[0] for c in HAND_DAMAGE]
)
def test_a_hand_damaged_journal_is_refused_naming_its_line(model, change, says):
    _damaged(model, change)
    with pytest.raises(JournalError, match=r"sms\.bk\.journal: ") as refused:
        ModelState(str(model), learning=True)
    assert says in str(refused.value)
    assert "the journal is damaged" in str(refused.value) or "neither" in str(refused.value)


def test_a_checkpoint_beyond_the_operations_is_refused(model):
    """A checkpoint naming the model file at a seq past the journal's last operation would
    replay nothing: the acknowledged operations after the base would be dropped silently."""
    sha = file_sha256(model)

    def beyond(records):
        records[0]["model_sha256"] = "0" * 64  # the base names an older model file
        records.append({"type": "checkpoint", "model_sha256": sha, "seq": 99})

    _damaged(model, beyond)
    with pytest.raises(JournalError, match="line 5 says the model file holds the operations up"):
        ModelState(str(model), learning=True)


def test_a_hand_damaged_journal_stops_the_command_with_status_2(model, capsys):
    from bayeskit.cli import main

    _damaged(model, lambda r: r[1].update(learn="eggs"))
    token = model.parent / "token"
    token.write_text("test-token-0123456789\n")
    assert main(["serve", str(model), "--token-file", str(token), "--port", "18651"]) == 2
    error = capsys.readouterr().err
    assert "sms.bk.journal: line 2" in error
    assert "this is a bug" not in error


def test_a_long_journal_is_read_in_about_twice_its_size(tmp_path):
    """Read a line at a time: what stays is the operations and their lines (about twice the
    file); the whole file, its lines and every parsed line held at once peaked at five times
    it. The lines kept are the ones read, for the next compaction to write again."""
    import hashlib
    import random
    import tracemalloc

    from bayeskit.serve.journal import Op, _base_line, read_journal

    rnd = random.Random(0)
    words = [f"w{i}" for i in range(500)]
    path = tmp_path / "m.bk.journal"
    ops = []
    for seq in range(1, 3001):
        doc = " ".join(rnd.choices(words, k=150))
        digest = hashlib.sha256(doc.encode()).hexdigest()
        ops.append(Op(seq, digest, "spam" if seq % 3 else "ham", None, doc))
    path.write_bytes(_base_line("f" * 64, 0, {}) + b"".join(op.to_line() for op in ops))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        replay = read_journal(str(path), "f" * 64, ["ham", "spam"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert replay is not None
    assert replay.ops == ops
    assert replay.pending == [op.to_line() for op in ops]
    assert len(replay.learned) == len({op.digest for op in ops})
    assert peak < 3 * size, (peak, size)


def test_a_reader_keeps_the_operations_not_their_lines(model):
    """Only a learning server compacts the journal: a reader replays the operations and
    keeps no copy of their lines."""
    from bayeskit.serve.journal import read_journal

    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:3])
    _abandon(state)
    path = str(model.parent / "sms.bk.journal")
    sha = file_sha256(model)
    kept = read_journal(path, sha)
    bare = read_journal(path, sha, lines=False)
    assert kept is not None
    assert bare is not None
    assert [op.digest for op in bare.ops] == [op.digest for op in kept.ops]
    assert len(kept.pending) == 3
    assert bare.pending == []
    reader = ModelState(str(model), learning=False)
    np.testing.assert_allclose(_proba(reader), _expected(model, MESSAGES[:3]), rtol=1e-12)
