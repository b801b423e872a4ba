"""The journal: every learned message, on disk before the server says "learned".

``MODEL.journal`` (beside ``MODEL``) is a file of JSON lines:

``{"type": "base", "model_sha256": D, "seq": S, "learned": {digest: label}}``
    The first line. The model file whose sha256 is ``D`` holds every operation up to ``seq``
    ``S``; ``learned`` maps the digest of each message learned through the service (and not
    unlearned since) to its label, so a message learned twice is recognised after a restart.
``{"type": "op", "seq": n, "digest": d, "learn": label|null, "unlearn": label|null,
"doc": text}`` (or ``"doc_b64"`` for raw bytes)
    One learn, unlearn or relabel (unlearn the old label, learn the new one), appended and
    fsynced before the request is acknowledged.
``{"type": "checkpoint", "model_sha256": D, "seq": S}``
    Written (and fsynced) just before a model file holding the operations up to ``S`` replaces
    ``MODEL``, so that a crash between that rename and the compaction below still finds the
    model file's place in the journal.

Compaction writes a new journal (a base line for the new model file, then the operations it
does not hold yet) to a temporary file and renames it over the old one. At every instant
the model file is named by the base line or by a checkpoint line, so on start
:func:`read_journal` knows exactly which operations to replay: the ones after that line. A
last line without its newline (a crash in the middle of an append) was never acknowledged
and is dropped.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from ..errors import BayeskitError
from ..io.model_file import _fsync_directory as fsync_directory

__all__ = [
    "SERVER_MARK",
    "BesideTheService",
    "Journal",
    "JournalError",
    "Op",
    "Replay",
    "file_sha256",
    "named",
    "open_beside",
    "read_journal",
]


#: the start of ``MODEL.lock``'s content while a learning server holds the lock: a mail
#: filter's learner waits for another learner's lock, not for a server's (held while it runs)
SERVER_MARK = b"bayeskit serve"


class JournalError(BayeskitError, ValueError):
    """A journal that does not belong to the model file, or is damaged before its last line."""


@dataclass(frozen=True)
class Op:
    """One acknowledged change: unlearn ``unlearn`` (if set), then learn ``learn`` (if set)."""

    seq: int
    digest: str
    learn: str | None
    unlearn: str | None
    doc: str | bytes
    line: int = field(default=0, compare=False)  # where read_journal found it (for errors)

    def to_line(self) -> bytes:
        record: dict[str, Any] = {
            "type": "op",
            "seq": self.seq,
            "digest": self.digest,
            "learn": self.learn,
            "unlearn": self.unlearn,
        }
        if isinstance(self.doc, bytes):
            record["doc_b64"] = base64.b64encode(self.doc).decode("ascii")
        else:
            record["doc"] = self.doc
        return _line(record)

    @classmethod
    def from_record(
        cls, record: dict[str, Any], where: str, labels: list[str] | None = None, line: int = 0
    ) -> Op:
        """The operation a journal line holds, each field checked (``labels``: the model's),
        or :class:`JournalError` naming ``where`` and the field."""
        try:
            doc: str | bytes
            if "doc_b64" in record:
                doc = base64.b64decode(record["doc_b64"], validate=True)
            else:
                doc = record["doc"]
            seq = _seq(record.get("seq"), where, "the operation's")
            op = cls(seq, record["digest"], record["learn"], record["unlearn"], doc, line)
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"{where}: malformed operation ({exc})") from None
        if not isinstance(op.doc, (str, bytes)) or not isinstance(op.digest, str):
            raise JournalError(f"{where}: malformed operation")
        for key, label in (("learn", op.learn), ("unlearn", op.unlearn)):
            if label is None:
                continue
            if not isinstance(label, str) or (labels is not None and label not in labels):
                known = "" if labels is None else f" (the model's: {', '.join(map(repr, labels))})"
                raise JournalError(
                    f"{where}: the operation's {key} label {label!r} is not a label of the "
                    f"model{known}: the journal is damaged"
                )
        if op.learn is None and op.unlearn is None:
            raise JournalError(f"{where}: the operation neither learns nor unlearns")
        document = op.doc.encode("utf-8") if isinstance(op.doc, str) else op.doc
        if hashlib.sha256(document).hexdigest() != op.digest:
            # the learned-message index would file the message under another message's name
            raise JournalError(
                f"{where}: the operation's digest {op.digest[:16]!r}… is not the sha256 of its "
                "document: the journal is damaged"
            )
        return op


def _seq(value: Any, where: str, whose: str) -> int:
    """A sequence number as the journal writes it: a whole number, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise JournalError(
            f"{where}: {whose} seq is {json.dumps(value)[:40]}, not a whole number of 0 or "
            "more: the journal is damaged"
        )
    return value


@dataclass
class Replay:
    """What :func:`read_journal` found: the operations the model file lacks, in order, and
    the learned-message index after all of them."""

    ops: list[Op]
    learned: dict[str, str]
    seq: int
    base_seq: int
    dropped_tail: bool = False
    pending: list[bytes] = field(default_factory=list)


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _base_line(model_sha256: str, seq: int, learned: dict[str, str]) -> bytes:
    return _line({"type": "base", "model_sha256": model_sha256, "seq": seq, "learned": learned})


def read_journal(
    path: str, model_sha256: str, labels: list[str] | None = None, *, lines: bool = True
) -> Replay | None:
    """The operations of the journal at ``path`` that the model file (of sha256
    ``model_sha256``, whose labels are ``labels``) does not hold; ``None`` when there is no
    journal. Every line is checked: a damaged one is a :class:`JournalError` naming it.

    The journal is read a line at a time, each line parsed and checked as it comes: what is
    kept is the operations (about the file's size) and, with ``lines``, their lines as read
    (``Replay.pending``: a learning server's next compaction writes them again; a reader
    never compacts), where the whole file, its lines and every parsed line held at once took
    five times it (a journal of 50,000 learned messages: 65 MB, read at a peak of 314 MB)."""
    try:
        file = open(path, "rb")  # noqa: SIM115 - closed below, after the first read
    except FileNotFoundError:
        return None
    with file:
        return _read_lines(path, file, model_sha256, labels, lines)


def _record(path: str, number: int, raw: bytes) -> dict[str, Any]:
    """Line ``number`` of the journal at ``path`` as a JSON object, or :class:`JournalError`."""
    try:
        record = json.loads(raw)
    except ValueError:
        raise JournalError(f"{path}: line {number} is not JSON: the journal is damaged") from None
    if not isinstance(record, dict):
        raise JournalError(f"{path}: line {number} is not a JSON object")
    return record


def _read_lines(
    path: str, file: IO[bytes], model_sha256: str, labels: list[str] | None, keep: bool
) -> Replay:
    """:func:`read_journal` of the open journal ``file``."""
    lines = iter(file)
    first = next(lines, b"")
    # (a last line without its newline was cut short by a crash: never acknowledged)
    base = _record(path, 1, first) if first.endswith(b"\n") else None
    if base is None or base.get("type") != "base":
        raise JournalError(f"{path}: the first line is not the journal's base line")
    learned = base.get("learned")
    if not isinstance(learned, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in learned.items()
    ):
        raise JournalError(f"{path}: the base line's learned index is malformed")
    if labels is not None and any(v not in labels for v in learned.values()):
        bad = next(v for v in learned.values() if v not in labels)
        raise JournalError(
            f"{path}: line 1: the base line's learned index holds the label {bad!r}, which is "
            "not a label of the model: the journal is damaged"
        )
    base_seq = _seq(base.get("seq"), f"{path}: line 1", "the base line's")
    start: int | None = None
    start_line = 1
    if base.get("model_sha256") == model_sha256:
        start = base_seq
    del base, first  # (the base line's text: megabytes for a long learned index)
    ops: list[Op] = []
    pending: list[bytes] = []
    seq = base_seq
    tail = b""
    for number, raw in enumerate(lines, start=2):
        if not raw.endswith(b"\n"):
            tail = raw  # the last line, cut short
            break
        record = _record(path, number, raw)
        kind = record.get("type")
        where = f"{path}: line {number}"
        if kind == "checkpoint":
            at = _seq(record.get("seq"), where, "the checkpoint's")
            if at < base_seq:
                raise JournalError(
                    f"{where}: the checkpoint's seq {at} is before the base line's {base_seq}: "
                    "the journal is damaged"
                )
            if record.get("model_sha256") == model_sha256:
                start, start_line = at, number
        elif kind == "op":
            op = Op.from_record(record, where, labels, number)
            if op.seq != seq + 1:
                raise JournalError(f"{where} has seq {op.seq}, expected {seq + 1}")
            seq = op.seq
            ops.append(op)
            if keep:
                pending.append(raw)  # (every operation follows the base line)
            if op.unlearn is not None:
                learned.pop(op.digest, None)
            if op.learn is not None:
                learned[op.digest] = op.learn
        else:
            raise JournalError(f"{where} has an unknown type {kind!r}")
    if start is None:
        raise JournalError(
            f"{path} belongs to another version of the model file (the model's sha256 "
            f"{model_sha256[:12]}… is neither its base nor one of its checkpoints): the model "
            "file was replaced by hand. Move the journal away to serve the model file as it "
            "is, or put back the model file it belongs to"
        )
    if start > seq:
        # a checkpoint is written after the operations it holds: one beyond them would skip
        # acknowledged operations that are in the journal but not in the model file
        raise JournalError(
            f"{path}: line {start_line} says the model file holds the operations up to seq "
            f"{start}, but the journal's operations end at seq {seq}: the journal is damaged "
            "(replaying from there would drop learned messages)"
        )
    return Replay(
        ops[start - base_seq :],
        learned,
        seq,
        base_seq,
        dropped_tail=bool(tail),
        pending=pending,
    )


#: The journal's writes and syncs (seams: the tests fail writes as a full disk does,
#: part-way, and slow syncs down as a busy disk does).
_write = os.write
_fsync = os.fsync


def _open_append(path: str) -> IO[bytes]:
    # Unbuffered: every byte written is in the file (or the write failed), so a failed
    # append can be cut back exactly.
    return open(path, "ab", buffering=0)


class Journal:
    """The open journal of one model file; appends and compactions are serialised."""

    def __init__(self, path: str, replay: Replay | None, model_sha256: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        if replay is None:  # a new journal: the model file as it is, nothing learned yet
            self._since_base: list[tuple[int, bytes]] = []
            self._write_new(_base_line(model_sha256, 0, {}))
        else:
            self._since_base = [
                (replay.base_seq + i + 1, line) for i, line in enumerate(replay.pending)
            ]
            if replay.dropped_tail:
                _cut_torn_tail(path)
        self._file: IO[bytes] = _open_append(path)

    def append(self, ops: Iterable[Op]) -> None:
        """Write the operations and fsync: when this returns they survive a crash. When the
        write fails (a full disk) the journal is cut back to where it was and the error
        raised: nothing of these operations stays, and later appends work once there is
        room."""
        lines = [(op.seq, op.to_line()) for op in ops]
        with self._lock:
            self._write_whole(b"".join(line for _, line in lines))
            self._since_base.extend(lines)

    def checkpoint(self, model_sha256: str, seq: int) -> None:
        """Record (durably) that a model file of sha256 ``model_sha256`` holds ops up to ``seq``."""
        line = _line({"type": "checkpoint", "model_sha256": model_sha256, "seq": seq})
        with self._lock:
            self._write_whole(line)

    def _write_whole(self, data: bytes) -> None:
        """Append ``data`` and fsync, or leave the file as it was and raise: a part of a line
        written before the disk filled up would otherwise sit in the middle of the journal
        once later lines follow it (a damaged journal at the next start)."""
        fd = self._file.fileno()
        end = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[_write(fd, view) :]
            _fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):  # cutting frees space: it works on a full disk
                os.ftruncate(fd, end)
                os.fsync(fd)
            raise

    def compact(self, model_sha256: str, seq: int, learned: dict[str, str]) -> None:
        """Rewrite the journal for the model file now in place (holding ops up to ``seq``)."""
        with self._lock:
            self._since_base = [(s, line) for s, line in self._since_base if s > seq]
            body = _base_line(model_sha256, seq, learned) + b"".join(
                line for _, line in self._since_base
            )
            self._file.close()
            try:
                self._write_new(body)
            finally:
                self._file = _open_append(self.path)

    def _write_new(self, body: bytes) -> None:
        _replace(self.path, body)

    @property
    def pending(self) -> int:
        """Operations written since the base line (not yet in the model file for sure)."""
        return len(self._since_base)

    def close(self) -> None:
        with self._lock, contextlib.suppress(OSError):
            self._file.close()


def _cut_torn_tail(path: str) -> None:
    """Cut the journal's torn last line (a crash in the middle of an append: never
    acknowledged), so that the next line written starts on a line of its own."""
    with open(path, "rb+") as f:
        data = f.read()
        f.truncate(data.rfind(b"\n") + 1)
        f.flush()
        os.fsync(f.fileno())


def named(exc: OSError, path: str) -> OSError:
    """``exc`` naming ``path``: a write or a sync that fails (``No space left on device``)
    names no file, and the command line would call such an error a bug of bayeskit's."""
    return OSError(exc.errno, exc.strerror or type(exc).__name__, path)


def _replace(path: str, body: bytes) -> None:
    """``path``'s content replaced by ``body`` at once (a temporary file renamed over it)."""
    tmp = f"{path}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):  # a part of a journal only takes up room
            os.unlink(tmp)
        if exc.filename is None:  # a write or sync that failed (a full disk) names no file
            raise named(exc, path) from None
        raise
    os.replace(tmp, path)
    fsync_directory(os.path.dirname(os.path.abspath(path)))


class BesideTheService:
    """The journal of a model a ``bayeskit serve`` learned into, for a learner beside it (the
    mail filter's ``--learn``, holding the model's lock, so no server is learning now).

    A learner may change the model file only when the file holds every operation the journal
    has (:func:`open_beside` refuses otherwise: those learns were acknowledged, and exist
    nowhere else). Its new model file is then named in the journal by a checkpoint line,
    written before the file replaces the model (:meth:`before_replace`), as the server's own
    saves are, and the journal is compacted to a base line for it afterwards (:meth:`done`):
    the server starts from the new file, replays nothing, and keeps its index of the
    messages it learned.
    """

    def __init__(self, path: str, replay: Replay) -> None:
        self.path = path
        self.replay = replay
        self._sha = ""

    def before_replace(self, new_model: str) -> None:
        self._sha = file_sha256(new_model)
        if self.replay.dropped_tail:  # glued to a torn line, the checkpoint would be lost
            _cut_torn_tail(self.path)
        with open(self.path, "ab") as f:
            f.write(
                _line({"type": "checkpoint", "model_sha256": self._sha, "seq": self.replay.seq})
            )
            f.flush()
            os.fsync(f.fileno())

    def done(self) -> None:
        if self._sha:
            _replace(self.path, _base_line(self._sha, self.replay.seq, self.replay.learned))


def open_beside(model_path: str) -> BesideTheService | None:
    """The journal beside ``model_path`` for a learner other than the server (None: there is
    none); refuses when the model file lacks operations the journal holds, or the journal is
    damaged or belongs to another version of the file (:class:`JournalError`)."""
    path = f"{model_path}.journal"
    if not os.path.exists(path):
        return None
    replay = read_journal(path, file_sha256(model_path), lines=False)
    if replay is None:
        return None
    if replay.ops:
        raise JournalError(
            f"{path} holds {len(replay.ops)} message(s) learned through bayeskit serve that "
            f"{model_path} does not hold yet (the server stopped before saving them); start "
            f"bayeskit serve {model_path} with its --token-file once, so that it replays and "
            "saves them, and stop it, before learning here"
        )
    return BesideTheService(path, replay)
