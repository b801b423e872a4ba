"""The messages ``bayeskit filter --from PATH`` learns: a Maildir (``cur/`` and ``new/``), a
Maildir folder, an mbox file, a file holding one message, or a folder of message or mbox
files, each read as far as the filter scores a message (:data:`SCORED_BYTES`)."""

from __future__ import annotations

import mailbox
import re
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path

from .mail_headers import SCORED_BYTES, header_end

__all__ = ["iter_named_messages", "messages_in", "named_messages"]


def messages_in(path: Path, *, by_date: bool = False) -> list[bytes]:
    """The raw messages of a Maildir (``cur/`` and ``new/``), a Maildir folder, an mbox file,
    a file holding one message, or a folder of message files (hidden files left out;
    ``by_date``: in the order of their Date headers, undated ones last, ties in name order),
    each as far as the filter reads a message (:data:`SCORED_BYTES`)."""
    return [raw for _, raw in named_messages(path, by_date=by_date)]


def named_messages(
    path: Path, *, by_date: bool = False, unreadable: list[str] | None = None
) -> list[tuple[str, bytes]]:
    """:func:`messages_in` with each message's name: its file's path (a message of an mbox
    file: ``FILE#N``, counted from 1). ``unreadable``: a list that collects each file of a
    folder or Maildir that cannot be read (``NAME (Permission denied)``), left out, where
    without it the first such file is an error; a file gone since it was listed (moved or
    deleted by the mail client) is left out either way."""
    return list(iter_named_messages(path, by_date=by_date, unreadable=unreadable))


#: What reads one message (its first :data:`SCORED_BYTES`) when called: ``(name, bytes)``.
_Reader = Callable[[], tuple[str, bytes]]


def iter_named_messages(
    path: Path, *, by_date: bool = False, unreadable: list[str] | None = None
) -> Iterator[tuple[str, bytes]]:
    """:func:`named_messages` one message at a time, each read as it is wanted and only as
    far as the scorer reads a message (its first :data:`SCORED_BYTES`: a learner learns what
    the filter scores), so that a learner holds a batch of them, never a whole mailbox.
    ``by_date``: each message is read once for its Date header, then again in date order."""
    readers = _readers(path, unreadable)
    if by_date:
        dated = []
        for reader in readers:
            found = _read(reader, unreadable)
            if found is not None:
                dated.append((_date_key(found[1]), reader))
        dated.sort(key=lambda item: item[0])  # (stable: ties in listing order)
        readers = iter([reader for _, reader in dated])
    for reader in readers:
        found = _read(reader, unreadable)
        if found is not None:
            yield found


def _read(reader: _Reader, unreadable: list[str] | None) -> tuple[str, bytes] | None:
    """``reader()``, or None for a file gone meanwhile or one that cannot be read (named in
    ``unreadable``; raised when that is None)."""
    try:
        return reader()
    except FileNotFoundError:
        return None
    except _UnreadableError as exc:
        if unreadable is None:
            raise exc.__cause__ or exc from None
        unreadable.append(str(exc))
        return None


class _UnreadableError(Exception):
    """A file of a folder or Maildir that cannot be read (its cause the OSError): named."""


def _prefix(path: Path) -> bytes:
    """The first :data:`SCORED_BYTES` of the file ``path``."""
    with path.open("rb") as file:
        return file.read(SCORED_BYTES)


def _readers(path: Path, unreadable: list[str] | None) -> Iterator[_Reader]:
    """What reads each message of ``path`` (see :func:`iter_named_messages`), in order."""
    if path.is_file():
        with path.open("rb") as file:
            head = file.read(4096).lstrip()
        if not head:  # an empty mbox (a folder emptied): no messages
            return
        elif head.startswith(b"From "):
            yield from _mbox_readers(path)
        elif header_end(head) is not None:
            yield lambda: (str(path), _prefix(path))  # one message (a saved .eml)
        else:
            raise ValueError(
                f"{path}: neither an mbox file (its first line a 'From ' line) nor an RFC 822 "
                "message (header lines first); a compressed mailbox must be uncompressed first"
            )
    elif (path / "cur").is_dir() or (path / "new").is_dir():
        yield from _maildir_readers(path)
    elif path.is_dir():
        for f in sorted(path.iterdir()):
            if f.is_file() and not f.name.startswith("."):
                try:
                    found = _folder_file(f)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    if unreadable is None:
                        raise
                    unreadable.append(f"{f} ({exc.strerror or exc})")
                    continue
                yield from found
    else:
        raise ValueError(f"{path}: no such mailbox (a Maildir, an mbox file or a folder)")


def _unreadable(path: Path, read: Callable[[], bytes]) -> bytes:
    """``read()``, an error other than the file's being gone raised as
    :class:`_UnreadableError` naming ``path`` (``NAME (Permission denied)``)."""
    try:
        return read()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _UnreadableError(f"{path} ({exc.strerror or exc})") from exc


def _mbox_readers(path: Path) -> list[_Reader]:
    """What reads each message of the mbox file ``path`` (``FILE#N``, from 1): its first
    :data:`SCORED_BYTES`, never the whole message."""
    box = mailbox.mbox(path, create=False)

    def reader(i: int, key: str) -> _Reader:
        def read() -> tuple[str, bytes]:
            with box.get_file(key) as file:
                return f"{path}#{i + 1}", file.read(SCORED_BYTES)

        return read

    return [reader(i, key) for i, key in enumerate(box.keys())]


def _folder_file(path: Path) -> list[_Reader]:
    """What reads the messages of one file of a folder: each message of an mbox file
    (``FILE#N``), as ``bayeskit train`` reads a folder
    (:func:`bayeskit.io.documents.is_mbox`: named ``.mbox``, or starting with one of several
    mbox ``From`` lines in its first :data:`~bayeskit.io.documents.MBOX_HEAD` bytes, all it
    looks at), else the file as one message. The file's start, read here to tell, is kept
    for its first reading (then dropped: a second reading reads the file again)."""
    from ..io.documents import MBOX_HEAD, is_mbox

    with path.open("rb") as file:
        head = file.read(MBOX_HEAD)
    if is_mbox(path, head):
        return _mbox_readers(path)
    kept = [head[:SCORED_BYTES]]
    del head

    def read() -> tuple[str, bytes]:
        return str(path), (kept.pop() if kept else _unreadable(path, lambda: _prefix(path)))

    return [read]


def _maildir_readers(path: Path) -> Iterator[_Reader]:
    """What reads each message of a Maildir once, while a mail server may be moving them
    from ``new/`` to ``cur/`` (renamed ``UNIQUE`` → ``UNIQUE:2,FLAGS``): ``new/`` is listed
    before ``cur/``, so a message moved in between is listed twice, not missed, and kept once
    by its unique part; one renamed before it is read is looked for by that part (a reader
    raises FileNotFoundError for one deleted meanwhile: left out)."""

    def listed(sub: str) -> dict[str, Path]:
        folder = path / sub
        if not folder.is_dir():
            return {}
        return {
            f.name.split(":")[0]: f
            for f in folder.iterdir()
            if not f.name.startswith(".") and f.is_file()
        }

    def reader(unique: str, file: Path) -> _Reader:
        def read() -> tuple[str, bytes]:
            try:
                return str(file), _unreadable(file, lambda: _prefix(file))
            except FileNotFoundError:  # renamed since: flags changed, or moved to cur/
                again = listed("cur").get(unique)
                if again is None:
                    raise
                return str(again), _unreadable(again, lambda: _prefix(again))

        return read

    files = listed("new")
    files.update(listed("cur"))  # a message in both (moved meanwhile): its newer name
    for unique, file in sorted(files.items(), key=lambda item: item[1].name):
        yield reader(unique, file)


def _date_key(raw: bytes) -> tuple[int, float]:
    head = raw[: header_end(raw) or 0].decode("latin-1")
    found = re.search(r"(?im)^date:[ \t]*(.*(?:\r?\n[ \t].*)*)", head)
    if found is None:
        return 1, 0.0
    try:
        return 0, parsedate_to_datetime(" ".join(found.group(1).split())).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return 1, 0.0
