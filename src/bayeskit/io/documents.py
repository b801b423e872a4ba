"""Reading documents: a folder with one sub-folder per class (20 Newsgroups, spam/ham folders of
text or e-mail), folders of ``.eml`` files and mbox files.

Layout
    ``root/<class>/...``: every file under a class sub-folder (recursively) is one document of
    that class, except an mbox file, whose messages each are one (each message's text in a
    collection of text). Hidden files and folders
    (``.name``) and SpamAssassin's ``cmds`` index files are skipped; files directly in
    ``root`` are ignored when it has class sub-folders.

Text or e-mail
    Decided from the content: a file is an e-mail when it is named ``.eml`` or ``.mbox``,
    starts with an mbox ``From`` line, or its header block (the lines before the first blank
    line) holds a transport header (``Received``, ``Return-Path``, ``Delivered-To``,
    ``Message-ID``, ``MIME-Version``, ``Content-Type``). The collection is e-mail when most
    sampled files are (20 Newsgroups posts carry ``From:`` and ``Subject:`` only and read as
    text). E-mails are parsed with :func:`bayeskit.text.read_message` (MIME, charsets, HTML);
    text is decoded as UTF-8, else latin-1 (which never fails).

Examples
--------
>>> import tempfile, pathlib
>>> from bayeskit.io.documents import read_class_folders
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for label, text in [("sport", "the match ended 2-1"), ("space", "the launch was delayed")]:
...     (root / label).mkdir()
...     _ = (root / label / "1.txt").write_text(text)
>>> docs = read_class_folders(root)
>>> docs.kind, docs.labels.tolist(), docs.names
('text', ['space', 'sport'], ['space/1.txt', 'sport/1.txt'])
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .readers import ReadError

__all__ = [
    "MBOX_HEAD",
    "Documents",
    "class_folders",
    "decode_text",
    "is_email",
    "is_mbox",
    "list_files",
    "mbox_texts",
    "read_class_folders",
    "read_documents",
]

#: Called with (files read, files in all) while reading a collection.
Progress = Callable[[int, int], None]

_MAIL_SUFFIXES = (".eml", ".mbox")
_TRANSPORT = re.compile(
    rb"^(received|return-path|delivered-to|message-id|mime-version|content-type):",
    re.IGNORECASE | re.MULTILINE,
)
_HEADER_LINE = re.compile(rb"^([!-9;-~]+:|[ \t])")
#: An mbox "From_" line: sender then a ctime date ("From a@b  Thu Aug 22 12:36:23 2002").
_FROM_LINE = re.compile(rb"^From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ", re.MULTILINE)
#: An mbox's start: its first line (after any blank ones) is a "From_" line.
_MBOX_START = re.compile(rb"[\r\n]*From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ")
_SAMPLE_FILES = 24
#: The bytes of a file :func:`is_mbox` looks at (its first 16 MiB).
MBOX_HEAD = 1 << 24


@dataclass
class Documents:
    """Documents read from files.

    Attributes
    ----------
    docs : list of str (text) or list of :class:`bayeskit.text.Message` (e-mail)
    labels : ndarray of str, or None when the files are not in class sub-folders
    names : list of str
        Where each document came from: its path relative to the folder read (``/``
        separators), with ``#k`` (1-based) for the k-th message of an mbox file.
    kind : {"text", "email"}
    """

    docs: list[Any]
    labels: np.ndarray | None
    names: list[str]
    kind: str


def is_email(path: Path, head: bytes) -> bool:
    """Whether a file (its name and first bytes) holds an e-mail (see the module docstring).

    Deliberately stricter than :func:`bayeskit.text.analyze.is_raw_email`, which decides how
    ``analyzer="auto"`` reads one document: a folder is read as e-mails (parsed messages)
    only when its files carry a transport or MIME header (Received, Return-Path, Message-ID,
    ...) or a mail suffix, so a folder of news posts (From and Subject lines alone) stays
    text, while "auto" still reads each such post as a message."""
    if path.suffix.lower() in _MAIL_SUFFIXES or head.startswith(b"From "):
        return True
    header_block = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    lines = header_block.splitlines()
    return (
        bool(lines)
        and all(_HEADER_LINE.match(line) for line in lines[:20])
        and _TRANSPORT.search(header_block) is not None
    )


def is_mbox(path: Path, data: bytes) -> bool:
    """Whether a file (its name and its bytes, of which the first 16 MiB are looked at) is an
    mbox of messages, each a document: named ``.mbox``, or starting with an mbox ``From``
    line, as every mbox does (RFC 4155), and holding more than one (a lone message with one
    reads as that message). A news post or a message that quotes ``From`` lines of other
    messages in its text, after its own header, is one document."""
    if path.suffix.lower() == ".mbox":
        return True
    return _MBOX_START.match(data) is not None and len(_FROM_LINE.findall(data, 0, MBOX_HEAD)) > 1


#: The folders of a Maildir that hold delivered messages.
_MAILDIR_PARTS = ("cur", "new")


def _visible(entry: os.DirEntry[str]) -> bool:
    return not entry.name.startswith(".") and entry.name != "cmds"


def list_files(folder: Path) -> list[Path]:
    """Every visible file under ``folder``, in name order (symbolic links to folders are not
    followed, so a link cycle cannot loop); of a Maildir (a folder holding ``cur/`` and
    ``new/``), the messages of ``cur/`` and ``new/`` only: not those still being delivered
    (``tmp/``) nor the mail server's own files beside them (``dovecot.index.cache``,
    ``maildirfolder``...)."""
    out: list[Path] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        with os.scandir(current) as scan:
            entries = sorted((e for e in scan if _visible(e)), key=lambda e: e.name, reverse=True)
        parts = {e.name for e in entries if e.is_dir(follow_symlinks=False)}
        if set(_MAILDIR_PARTS) <= parts:  # a Maildir: its cur/ and new/ (and tmp/)
            entries = [e for e in entries if e.name in _MAILDIR_PARTS]
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
        out.extend(Path(e.path) for e in reversed(entries) if e.is_file())
    return sorted(out)


def class_folders(root: Path) -> list[Path]:
    """The visible sub-folders of ``root`` (the classes), in name order."""
    with os.scandir(root) as scan:
        return sorted(Path(e.path) for e in scan if _visible(e) and e.is_dir())


def _check_folder(root: Path, label: str) -> None:
    if not root.exists():
        raise ReadError(f"{label}: no such file or folder; check the path", path=label)
    if not root.is_dir():
        raise ReadError(f"{label}: not a folder", path=label)


def _head(path: Path, size: int = 4096) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _detect_kind(files: list[Path]) -> str:
    if not files:
        return "text"
    step = max(1, len(files) // _SAMPLE_FILES)
    sample = files[::step][:_SAMPLE_FILES]
    mail = sum(is_email(p, _head(p)) for p in sample)
    return "email" if 2 * mail > len(sample) else "text"


def decode_text(data: bytes) -> str:
    """A text document's bytes as text: UTF-8, else latin-1 (which never fails)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def mbox_texts(path: str | os.PathLike[str]) -> Iterator[str]:
    """The text of each message of an mbox file, headers and all (:func:`decode_text`), in
    order: an mbox read as text documents."""
    import mailbox

    box = mailbox.mbox(os.fspath(path), create=False)
    try:
        for key in box.iterkeys():
            yield decode_text(box.get_bytes(key))
    finally:
        box.close()


def _read_file(path: Path, kind: str, name: str) -> Iterator[tuple[str, Any]]:
    """(name, document) for each document in one file."""
    from ..text.email import iter_mbox, read_message

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReadError(f"{path}: cannot be read ({exc.strerror})", path=str(path)) from None
    if kind == "text":
        if is_mbox(path, data):  # each message's text, as in an e-mail collection
            for k, text in enumerate(mbox_texts(path), start=1):
                yield f"{name}#{k}", text
        else:
            yield name, decode_text(data)
        return
    if is_mbox(path, data):
        for k, message in enumerate(iter_mbox(path), start=1):
            yield f"{name}#{k}", message
    else:
        yield name, read_message(data)


def _read_files(
    files: list[Path], root: Path, kind: str, progress: Progress | None
) -> tuple[list[str], list[Any], list[int]]:
    names: list[str] = []
    docs: list[Any] = []
    owner: list[int] = []  # index of the file each document came from
    for i, path in enumerate(files):
        for name, doc in _read_file(path, kind, path.relative_to(root).as_posix()):
            names.append(name)
            docs.append(doc)
            owner.append(i)
        if progress is not None:
            progress(i + 1, len(files))
    return names, docs, owner


def read_class_folders(
    root: str | os.PathLike[str], *, kind: str | None = None, progress: Progress | None = None
) -> Documents:
    """The labelled documents of a folder with one sub-folder per class.

    Parameters
    ----------
    root : path of the folder
    kind : {"text", "email"}, optional
        Default: decided from the content (module docstring).
    progress : callable (done, total), optional

    Raises
    ------
    ReadError
        The folder is missing, has no class sub-folder, has only one, or a class folder holds
        no file.
    """
    folder = Path(root)
    label = os.fspath(root)
    _check_folder(folder, label)
    classes = class_folders(folder)
    if not classes:
        raise ReadError(
            f"{label}: no sub-folder; training on a folder needs one sub-folder per class "
            "(e.g. ham/ and spam/) holding that class's documents",
            path=label,
        )
    per_class = [list_files(sub) for sub in classes]
    for sub, files in zip(classes, per_class, strict=True):
        if not files:
            raise ReadError(
                f"{label}: the class folder {sub.name!r} holds no file; put its documents "
                "there or remove it",
                path=label,
            )
    if len(classes) < 2:
        raise ReadError(
            f"{label}: one class folder ({classes[0].name!r}); a classifier needs examples of "
            "at least two classes, one sub-folder each",
            path=label,
        )
    files = [f for group in per_class for f in group]
    file_labels = np.repeat([sub.name for sub in classes], [len(g) for g in per_class])
    kind = _detect_kind(files) if kind is None else kind
    names, docs, owner = _read_files(files, folder, kind, progress)
    return Documents(docs, file_labels[np.asarray(owner, dtype=np.intp)], names, kind)


def read_documents(
    source: str | os.PathLike[str], *, kind: str | None = None, progress: Progress | None = None
) -> Documents:
    """Documents to classify: a folder (every file under it, labelled by its class
    sub-folder when all files are in sub-folders) or one file (one document, or every message
    of an mbox file)."""
    path = Path(source)
    label = os.fspath(source)
    if not path.exists():
        raise ReadError(f"{label}: no such file or folder; check the path", path=label)
    if path.is_dir():
        files = list_files(path)
        if not files:
            raise ReadError(f"{label}: the folder holds no file", path=label)
        root = path
    else:
        files, root = [path], path.parent
    kind = _detect_kind(files) if kind is None else kind
    names, docs, _ = _read_files(files, root, kind, progress)
    labels = None
    if path.is_dir() and all(len(Path(n).parts) > 1 for n in names):
        labels = np.asarray([Path(n).parts[0] for n in names])
        if len(np.unique(labels)) < 2:
            labels = None
    return Documents(docs, labels, names, kind)
