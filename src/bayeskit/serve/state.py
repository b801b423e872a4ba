"""The served model: immutable snapshots swapped whole, the journal, the saver.

Readers take ``state.snapshot`` once per request and use nothing else, so they never see a
half-updated model: a learn builds a new model (copy on write: a text model's statistics
are values that add, so the new model shares every array the message does not change),
journals it, and only then replaces the reference. The model update runs in the thread
that submits the learn (the server's event loop: a second Python thread computing would
only wait for the interpreter lock while the loop runs checks); its journal line goes to
one journal thread, which writes and fsyncs everything queued while its previous fsync ran
in one write and one fsync (group commit) before readers see it and the learns are
answered. A saver thread rewrites the model file in the background (see :mod:`.journal`
for the order of writes that makes this safe at any crash).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import fnmatch
import glob
import hashlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from ..contract import contract_of
from ..errors import BayeskitError
from ..io.model_file import load, save
from .journal import (
    SERVER_MARK,
    Journal,
    JournalError,
    Op,
    Replay,
    file_sha256,
    named,
    read_journal,
)
from .learned import LearnedIndex
from .scoring import Scorer, plain

__all__ = [
    "LearnError",
    "ModelState",
    "Snapshot",
    "StorageFullError",
    "digest_of",
    "outcome",
]

log = logging.getLogger("bayeskit.serve")
_MAX_BATCH = 256
#: A replay at start of at least this many operations, or of a journal of at least this
#: many bytes, is said as it runs, with a count every REPLAY_PROGRESS_SECONDS
REPLAY_SAID_OPS = 1000
REPLAY_SAID_BYTES = 2**20
REPLAY_PROGRESS_SECONDS = 5.0
#: how many operations a replay applies at once (in order: an unlearn comes after its learn)
REPLAY_PART = 2000
#: how often a reader reads the model file and its journal while the file keeps changing
_READS = 5


class LearnError(BayeskitError, ValueError):
    """A learn or unlearn the server refuses; ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Snapshot:
    """One version of the model with everything a request reads; never changed once built."""

    model: Any  # the model file's model: it predicts, learns and is saved
    scorer: Scorer | None  # text models only
    seq: int  # the last journal operation this model holds
    learned: LearnedIndex  # digest -> label of the messages learned through the service
    described: Any = None  # what /metadata and /check read: see described_model

    def __post_init__(self) -> None:
        if self.described is None:
            object.__setattr__(self, "described", described_model(self.model))


def described_model(model: Any) -> Any:
    """The model whose fitted parts describe ``model``: the estimator a fitted wrapper
    declares it wraps (scikit-learn's ``estimator_``, as SemiSupervisedNB has) when its
    classes are the wrapper's, so that it holds the class counts, columns, families and text
    pipeline the wrapper's answers come from; otherwise ``model`` itself."""
    inner = model.__dict__.get("estimator_")
    classes = getattr(inner, "classes_", None)
    if classes is None or not hasattr(inner, "class_count_"):
        return model
    if not np.array_equal(np.asarray(classes), np.asarray(model.classes_)):
        return model  # classes made of several components each
    return inner


def cannot_learn(model: Any) -> str:
    """Why the service cannot teach ``model`` one message at a time (what its contract
    declares), or ""."""
    from ..errors import CapabilityError
    from .inputs import reads_text

    try:
        if contract_of(model).served_learnable:
            return ""
    except CapabilityError:
        pass
    name = type(model).__name__
    if reads_text(model):
        return (
            f"this model ({name}) cannot learn or unlearn one message at a time (it has no "
            "partial_fit and unlearn); serve the text model it wraps to learn"
        )
    return (
        f"this model ({name}) reads table rows, and the service learns only messages of "
        "text: it cannot learn or unlearn through the service (fit it again, or partial_fit "
        "it in Python, and serve the new model file)"
    )


class StorageFullError(LearnError):
    """The journal could not be written (the disk is full or over quota): the learn was not
    acknowledged and the model is unchanged; it succeeds once there is room again."""

    def __init__(self, path: str, exc: OSError) -> None:
        reason = exc.strerror or type(exc).__name__
        super().__init__(
            f"the server cannot store learned messages now ({reason} on the disk of its "
            "journal): nothing was learned and the model is unchanged. Checks and predictions "
            "work as usual; retry the learn once there is room",
            status=507,
        )
        self.path = path


def digest_of(doc: str | bytes) -> str:
    """The identity of a message: sha256 of the bytes the model reads."""
    return hashlib.sha256(doc.encode("utf-8") if isinstance(doc, str) else doc).hexdigest()


def apply_ops(model: Any, ops: list[tuple[str | bytes, str | None, str | None]]) -> Any:
    """A new model: ``model`` with the (doc, learn, unlearn) operations applied; ``model``
    itself is not changed. Learns go first, then unlearns, so an unlearn of a message learned
    in the same batch always finds it (statistics add, so the order changes nothing else)."""
    # Additive text models replace their statistics on update (a shallow copy suffices); the
    # others update fitted parts in place and are copied whole.
    new = copy.copy(model) if hasattr(model, "stats_") else copy.deepcopy(model)
    # (labels are checked before they reach the journal; classes_ is read once: each read
    # checks the fitted model, and a replay at start applies every journaled operation)
    label_of = {str(label): label for label in reversed(model.classes_.tolist())}
    learn = [(doc, label_of[lab]) for doc, lab, _ in ops if lab is not None]
    unlearn = [(doc, label_of[lab]) for doc, _, lab in ops if lab is not None]
    if learn:
        new.partial_fit([d for d, _ in learn], [y for _, y in learn])
    if unlearn:
        new.unlearn([d for d, _ in unlearn], [y for _, y in unlearn])
    return new


class _Request:
    def __init__(self, doc: str | bytes, label: str, unlearn: bool) -> None:
        self.doc, self.label, self.unlearn = doc, label, unlearn
        self.digest = digest_of(doc)
        self.future: Future[dict[str, Any]] = Future()


@dataclass
class _Computed:
    """Requests whose model update is done, waiting for their journal lines to be durable:
    their operations (none for a duplicate or a refused unlearn, answered in turn), the
    answers to give once they are, and the snapshot holding them."""

    answers: list[tuple[_Request, dict[str, Any] | BaseException]]
    ops: list[Op]
    snapshot: Snapshot


#: How long a learn's handler waits in place for the journal's fsync (see :func:`outcome`).
_WAIT_IN_PLACE = 0.002
#: An event-loop iteration shorter than this is an idle loop's (see :func:`outcome`).
_IDLE_ITERATION = 0.0005


async def outcome(future: Future[dict[str, Any]]) -> dict[str, Any]:
    """The result of a learn submitted to :meth:`ModelState.submit`, awaited in an event loop.

    The journal thread resolves ``future`` once the learn's line is fsynced, typically a
    fraction of a millisecond after the submit: waiting that long in place (at most
    ``_WAIT_IN_PLACE``, the interpreter lock released) answers in this very iteration.
    Otherwise (a slow disk, a group under way) ``asyncio.wrap_future`` would resume the
    task two loop iterations after ``future`` is resolved (one to copy the result into an
    asyncio future, one to run the task it wakes), and under load an iteration runs a check
    for every busy connection; looking at ``future`` once per iteration answers in the
    first one after it is resolved. A loop with nothing else to do (iterations far shorter
    than an fsync) waits for the wake-up instead of spinning."""
    with contextlib.suppress(FutureTimeout):
        return future.result(timeout=_WAIT_IN_PLACE)
    loop = asyncio.get_running_loop()
    while not future.done():
        started = loop.time()
        await asyncio.sleep(0)
        if not future.done() and loop.time() - started < _IDLE_ITERATION:
            return await asyncio.wrap_future(future)
    return future.result()


class ModelState:
    """The model of one server process, and (with ``learning``) its journal and writers."""

    def __init__(
        self,
        path: str,
        *,
        learning: bool,
        save_interval: float = 10.0,
        say: Callable[[str], object] | None = None,
    ) -> None:
        self.path = os.path.abspath(path)
        #: where a long replay at start says how far it is (the start's other lines go
        #: there too: standard error); None: said nowhere
        self._say = say
        self.journal_path = self.path + ".journal"
        self.learning = learning
        self.save_interval = save_interval
        self._saving_path = self.path + ".saving"
        self.cannot_learn = ""  # set when the model itself cannot learn (then learning is off)
        self.storage_error: str | None = None  # the last failed journal write, until one works
        self._lock_file: IO[bytes] | None = None  # taken once the model is known to learn
        try:
            self._start(learning)
        except BaseException:
            if self._lock_file is not None:
                self._lock_file.close()  # a model or journal that cannot be served
            raise

    def _start(self, learning: bool) -> None:
        """Load the model, replay its journal and (learning) start the journal and saver
        threads."""
        model_sha = file_sha256(self.path)
        model = load(self.path)
        self.cannot_learn = cannot_learn(model)
        if self.cannot_learn and learning:
            # nothing can change the model: no lock, and no journal created beside it
            self.learning = learning = False
        if learning:
            self._lock_file = _lock(self.path + ".lock")
            if file_sha256(self.path) != model_sha:
                # a mail filter's learner replaced the file before the lock was ours: the
                # journal names the new file (its checkpoint), so read that one
                model_sha = file_sha256(self.path)
                model = load(self.path)
        if learning:  # what a crash in the middle of a save left behind
            folder, name = os.path.split(self._saving_path)
            temporary = f".{glob.escape(name)}.*.tmp"  # the name as it is, [ab] included
            for leftover in [name, *fnmatch.filter(os.listdir(folder), temporary)]:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(folder, leftover))
        with contextlib.suppress(OSError):
            size = os.path.getsize(self.journal_path)
            if size >= REPLAY_SAID_BYTES and self._say is not None:
                name = os.path.basename(self.journal_path)
                self._say(f"bayeskit serve: reading {name} ({size / 2**20:,.1f} MB)…")
        model_sha, model, replay = self._model_and_journal(model_sha, model, learning)
        seq, learned, replayed = 0, {}, 0
        if replay is not None:
            if replay.ops:
                model = self._replayed(model, replay.ops)
            seq, learned, replayed = replay.seq, replay.learned, len(replay.ops)
        self.replayed = replayed
        #: the journal's last line was cut short (a crash in the middle of an append: never
        #: acknowledged), and is not replayed: said when the server starts
        self.dropped_tail = replay is not None and replay.dropped_tail
        self.snapshot = self._snapshot(model, seq, LearnedIndex(learned))
        self.saved_seq = seq - replayed
        self.journal: Journal | None = None
        self._head = self.snapshot  # the newest model computed (see _learn_batch)
        self._computing = threading.Lock()  # one model update at a time
        self._saving = threading.Lock()  # one save of the model file at a time
        self._closed = False
        self._queue: queue.Queue[_Computed | None] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        if learning:
            self.journal = Journal(self.journal_path, replay, model_sha)
            for target, name in ((self._writer, "journal"), (self._saver, "saver")):
                thread = threading.Thread(target=target, name=f"bayeskit-{name}", daemon=True)
                thread.start()
                self._threads.append(thread)

    def _replayed(self, model: Any, ops: list[Op]) -> Any:
        """``model`` with the journal's ``ops`` applied, in order, a part at a time: a long
        replay (200,000 learns take about half a minute) says how far it is, every
        :data:`REPLAY_PROGRESS_SECONDS`, where the start's other lines go."""
        say = self._say if len(ops) >= REPLAY_SAID_OPS else None
        name = os.path.basename(self.journal_path)
        if say is not None:
            say(f"bayeskit serve: replaying {len(ops):,} learned messages from {name}…")
        started = last = time.monotonic()
        for start in range(0, len(ops), REPLAY_PART):
            part = ops[start : start + REPLAY_PART]
            model = apply_ops(model, [(op.doc, op.learn, op.unlearn) for op in part])
            now = time.monotonic()
            done = start + len(part)
            if say is not None and done < len(ops) and now - last >= REPLAY_PROGRESS_SECONDS:
                last = now
                say(f"bayeskit serve: replayed {done:,} of {len(ops):,} ({now - started:.0f} s)")
        return model

    def _model_and_journal(
        self, sha: str, model: Any, learning: bool
    ) -> tuple[str, Any, Replay | None]:
        """The model file (of sha256 ``sha``, read as ``model``) and what the journal holds
        that it lacks, read as one version. A learning server holds the lock, so neither
        changes meanwhile. A reader (a server without a token, beside the learning one) may
        start while the learning server saves: the file replaced between its hash and its
        load, or between its load and the journal's read, would give a journal compacted for
        the new file ("another version") or operations replayed onto a file that holds them
        (counted twice). So a reader reads again until the file is the one it hashed."""
        for attempt in range(1, _READS + 1):
            try:
                # (a reader never compacts: it needs the operations, not their lines)
                replay = read_journal(self.journal_path, sha, label_names(model), lines=learning)
            except JournalError:
                if learning or attempt == _READS or file_sha256(self.path) == sha:
                    raise
            else:
                if learning or file_sha256(self.path) == sha:
                    return sha, model, replay
                if attempt == _READS:
                    raise JournalError(
                        f"{self.path} was replaced {_READS} times while this server read it "
                        "and its journal (the server learning into it saves faster than it "
                        "can be read); start this server again"
                    )
            sha = file_sha256(self.path)
            model = load(self.path)
        raise AssertionError("unreachable")  # every attempt returns or raises

    @staticmethod
    def _snapshot(model: Any, seq: int, learned: LearnedIndex, *, warm: bool = True) -> Snapshot:
        described = described_model(model)
        documents = contract_of(described).input == "documents"
        scorer = Scorer.of(described, warm=warm) if documents else None
        return Snapshot(model, scorer, seq, learned, described)

    # ------------------------------------------------------------------ learning
    def submit(self, doc: str | bytes, label: str, *, unlearn: bool) -> Future[dict[str, Any]]:
        """Learn (or unlearn) ``doc`` as ``label``: the model update is made here, in the
        caller's thread; the returned future resolves once the change is journaled (fsync)
        and visible to readers, or fails with LearnError."""
        request = _Request(doc, label, unlearn)
        self._learn_batch([request])
        return request.future

    def _learn_batch(self, batch: list[_Request]) -> None:
        """Update the model with ``batch`` (in the caller's thread) and queue the result for
        the journal thread, which writes and fsyncs the lines of everything queued while
        its last fsync ran in one write and one fsync (group commit), then shows the new
        model to readers and answers. Updates chain on the newest model computed, durable or
        not (``_head``); readers see only ``snapshot``, whose changes are all durable."""
        with self._computing:
            if self._closed or self.journal is None:
                raise LearnError("the server is stopping: nothing was learned", status=503)
            computed = self._compute(self._head, batch)
            if computed is None:
                return
            self._head = computed.snapshot
            self._queue.put(computed)

    @property
    def busy(self) -> bool:
        """Whether a model update is under way (another thread's: a submit now would wait
        for it)."""
        return self._computing.locked()

    def _compute(self, head: Snapshot, batch: list[_Request]) -> _Computed | None:
        learned = head.learned  # (each version O(√n) to make: see LearnedIndex)
        answers: list[tuple[_Request, dict[str, Any] | BaseException]] = []
        accepted: list[tuple[_Request, Op]] = []
        seq = head.seq
        for request in batch:
            was = learned.get(request.digest)
            if request.unlearn:
                if was != request.label:
                    answers.append((request, _never_learned(request, was)))
                    continue
                op_learn: str | None = None
                op_unlearn: str | None = request.label
                learned = learned.updated({request.digest: None})
            else:
                if was == request.label:
                    answers.append((request, _duplicate(request, was)))
                    continue
                op_learn, op_unlearn = request.label, was
                learned = learned.updated({request.digest: request.label})
            seq += 1
            accepted.append((request, Op(seq, request.digest, op_learn, op_unlearn, request.doc)))
        if not accepted:
            if not answers:
                return None
            return _Computed(answers, [], head)
        try:
            model = apply_ops(head.model, [(op.doc, op.learn, op.unlearn) for _, op in accepted])
        except BayeskitError as exc:
            if len(batch) == 1:  # refused by the model: answered now, nothing to journal
                batch[0].future.set_exception(exc)
                return None
            # One request spoils the batch: apply them one at a time, so that only it fails.
            computed: _Computed | None = None
            for request in batch:
                one = self._compute(head if computed is None else computed.snapshot, [request])
                if one is not None:
                    computed = (
                        one
                        if computed is None
                        else _Computed(
                            computed.answers + one.answers, computed.ops + one.ops, one.snapshot
                        )
                    )
            return computed
        answers.extend((request, _learned(request, op)) for request, op in accepted)
        # a learned model's lookups follow from its parent's: no warm-up check to pay here
        snapshot = self._snapshot(model, seq, learned, warm=False)
        return _Computed(answers, [op for _, op in accepted], snapshot)

    def _writer(self) -> None:
        """The journal thread: group commit of what :meth:`_learn_batch` queued."""
        while True:
            first = self._queue.get()
            if first is None:
                return
            group = [first]
            self._take_queued(group, _MAX_BATCH)
            try:
                self._commit(group)
            except BaseException as exc:  # never leave a client waiting
                if not isinstance(exc, StorageFullError):  # a full disk is not a bug
                    log.exception("journaling learned messages failed")
                else:
                    log.warning("%s", exc)
                self._roll_back(group, exc)

    def _take_queued(self, group: list[_Computed], most: int | None) -> None:
        """Move what is queued now onto ``group`` (until it holds ``most``; None: all),
        leaving a stop request queued for the journal thread to see."""
        while most is None or len(group) < most:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                return
            if more is None:
                self._queue.put(None)
                return
            group.append(more)

    def _commit(self, group: list[_Computed]) -> None:
        ops = [op for computed in group for op in computed.ops]
        assert self.journal is not None
        if ops:
            try:
                self.journal.append(ops)  # durable before anyone is told
            except OSError as exc:  # nothing was acknowledged: the snapshot stays as it was
                self.storage_error = exc.strerror or type(exc).__name__
                raise StorageFullError(self.journal_path, exc) from None
            self.storage_error = None
        self.snapshot = group[-1].snapshot
        for computed in group:
            for request, answer in computed.answers:
                if isinstance(answer, BaseException):
                    request.future.set_exception(answer)
                else:
                    request.future.set_result(answer)

    def _roll_back(self, group: list[_Computed], exc: BaseException) -> None:
        """The group's lines are not in the journal: fail its requests that change the
        model, and every such request computed on top of them since (queued after them),
        and compute from the durable model again.

        A request that changes nothing (a duplicate learn, an unlearn of a message not
        learned so) keeps its own answer, decided again on the durable model's index: it
        needed no journal line, so a full disk is not its answer; it was decided on learns
        that are now refused, and the durable index may answer it otherwise (a duplicate of
        a refused learn is now a learn, refused with the rest)."""
        with self._computing:
            self._head = self.snapshot
            self._take_queued(group, None)
        durable = self.snapshot.learned
        for computed in group:
            for request, _ in computed.answers:
                if request.future.done():
                    continue
                was = durable.get(request.digest)
                if request.unlearn and was != request.label:
                    request.future.set_exception(_never_learned(request, was))
                elif not request.unlearn and was == request.label:
                    request.future.set_result(_duplicate(request, was))
                else:
                    request.future.set_exception(exc)

    # ------------------------------------------------------------------ saving
    def _saver(self) -> None:
        while not self._stop.wait(self.save_interval):
            try:
                self.save_now()
            except Exception:
                log.exception("saving the model file failed; the journal keeps every change")

    def save_now(self) -> bool:
        """Write the current snapshot over the model file if it holds unsaved changes.

        One save at a time (close() saves after waiting a while for the saver thread, which
        may still be saving): two would write the same temporary file, and one could name
        the other's file, in its checkpoint, as holding fewer operations than it does."""
        with self._saving:
            snap = self.snapshot
            if snap.seq == self.saved_seq or self.journal is None:
                return False
            save(snap.model, self._saving_path)
            sha = file_sha256(self._saving_path)
            self.journal.checkpoint(sha, snap.seq)  # the new file's place, before it takes over
            os.replace(self._saving_path, self.path)
            self.journal.compact(sha, snap.seq, snap.learned.to_dict())
            self.saved_seq = snap.seq
            return True

    def close(self, *, timeout: float = 30.0) -> None:
        """Stop learning, save what is unsaved, and release the journal."""
        if self.journal is None:
            return
        with self._computing:  # no learn is queued after the journal thread's last one
            self._closed = True
            self._queue.put(None)
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(deadline - time.monotonic(), 0.1))
        try:
            self.save_now()
        except Exception as exc:  # e.g. a full disk: said, and nothing is lost
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            log.warning(
                "saving %s as the server stops failed (%s): the journal keeps every learned "
                "message, and the next start replays them",
                self.path,
                reason,
            )
        self.journal.close()
        self.journal = None
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                self._lock_file.truncate(0)  # the mark says a server holds it: no longer
            self._lock_file.close()  # releases the lock

    def status(self, snap: Any = None) -> dict[str, Any]:
        """The learning's state; ``snap``: the snapshot an answer already read (its counts
        and its sequence number then belong to one model), else the current one."""
        snap = self.snapshot if snap is None else snap
        return {
            "seq": snap.seq,
            "saved_seq": self.saved_seq,
            "learned_messages": len(snap.learned),
            "replayed_at_start": self.replayed,
            "storage_error": self.storage_error,
        }


#: how long a starting server waits for a mail filter's learner to release the lock (s)
LEARNER_WAIT = 30.0


def _take(handle: IO[bytes], fcntl: Any, path: str) -> None:
    """Lock ``handle`` (the file ``path``) at once, or once a mail filter's learner holding
    it is done (a learn takes a second or so); refuses at once when another server holds it
    (its mark is in the file), or when the learner takes longer than :data:`LEARNER_WAIT`."""
    deadline = time.monotonic() + LEARNER_WAIT
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            with open(handle.name, "rb") as f:
                server = f.read(64).startswith(SERVER_MARK)
            if server:
                raise LearnError(
                    f"another bayeskit serve is learning into {path.removesuffix('.lock')} "
                    f"(it holds {path}); stop it, or serve this model without --token-file"
                ) from None
            if time.monotonic() > deadline:
                raise LearnError(
                    f"a learner (bayeskit filter --learn) has held {path} for "
                    f"{LEARNER_WAIT:g} s; start the server again when it is done"
                ) from None
            time.sleep(0.05)


def _lock(path: str) -> IO[bytes]:
    """Hold ``path`` locked while this process learns: a second server learning into the
    same model file would interleave two journals."""
    handle = open(path, "ab")  # noqa: SIM115 (held until close)
    try:
        import fcntl

        _take(handle, fcntl, path)
        # who holds it, for a mail filter's learner, which waits for another learner's lock
        # but not for a server's (held as long as the server runs)
        handle.truncate(0)
        handle.write(SERVER_MARK + f" {os.getpid()}\n".encode())
        handle.flush()
    except ImportError:  # not POSIX: no advisory locks
        pass
    except OSError as exc:
        with contextlib.suppress(OSError):  # it would try to write the mark again
            handle.close()
        if exc.filename is None:  # the mark could not be written (a full disk)
            raise named(exc, path) from None
        raise
    except BaseException:
        handle.close()
        raise
    return handle


def _duplicate(request: _Request, was: str) -> dict[str, Any]:
    return {
        "learned": False,
        "duplicate": True,
        "label": request.label,
        "digest": request.digest,
        "message": f"this message was already learned as {was!r}; it is not counted twice",
    }


def _learned(request: _Request, op: Op) -> dict[str, Any]:
    return {
        "learned": not request.unlearn,
        "unlearned": request.unlearn,
        "duplicate": False,
        "label": request.label,
        "was": op.unlearn if not request.unlearn else None,
        "digest": request.digest,
        "seq": op.seq,
    }


def _never_learned(request: _Request, was: str | None) -> LearnError:
    if was is None:
        reason = "this message was never learned through this server"
    else:
        reason = f"this message was learned as {was!r}, not {request.label!r}"
    return LearnError(
        f"{reason} (digest {request.digest[:16]}…): nothing to unlearn, the model is unchanged",
        status=409,
    )


def label_names(model: Any) -> list[str]:
    return [str(plain(c)) for c in model.classes_.tolist()]
