"""Model files: save a fitted model, load it back without ever running code from the file.

A model file is a zip archive holding ``meta.json`` (format name and version, estimator class
name, hyperparameters, feature names, class labels, each statistic block's kind, metadata and
arrays, a manifest with the sha256 of every array entry and a checksum of all that) and one
``.npy`` entry per array: numbers only, never object arrays or pickles. The archive comment ends
with the sha256 of every byte before it, so a damaged file is detected (unkeyed digests:
damage, not deliberate tampering). :func:`load` finds classes in :data:`ESTIMATORS` and
:data:`~bayeskit.stats.STATISTIC_KINDS` only, reads arrays with ``allow_pickle=False`` and
refits the model from its sufficient statistics.

Format version 2 added the text models (TextVectorizer, TextClassifier, SpamFilter; layout in
:mod:`bayeskit.io._text_state`); version 3 writes the text classifiers as every generative
classifier is written, their one block of kind "documents" (:mod:`bayeskit.io._documents_block`),
which also keeps the classes ``partial_fit(classes=...)`` declared. Files of version 2 still
load. Each file is written with the oldest version that holds it: models of
:data:`ESTIMATORS` as version 1. A newer format version is refused with "upgrade"; an
earlier file this bayeskit would rebuild otherwise than it was fitted (see the guide's "Files
from other versions") is refused with a :class:`~bayeskit.errors.ModelFileVersionError` that
says to fit the model again. An earlier bayeskit may not read a file of this one as it was
written: load a file with the version that wrote it or a newer one.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> import bayeskit as bk
>>> model = bk.MultinomialNB(alpha=0.5).fit(np.array([[2, 0], [0, 3], [1, 1]]), ["a", "b", "a"])
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "model.bk")
...     bk.save(model, path)
...     loaded = bk.load(path)
>>> loaded
MultinomialNB(alpha=0.5)
>>> np.array_equal(loaded.predict_proba([[1, 2]]), model.predict_proba([[1, 2]]))
True
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import stat
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Any, cast

import numpy as np

from .._estimators import documents_estimators, estimator_class
from .._values import charged
from ..contract import contract_of, declares
from ..errors import (
    BayeskitError,
    InputTypeError,
    ModelFileError,
    ModelFileVersionError,
    SaveError,
)
from ._format import (
    CELLS_VERSION,
    DEFAULT_MAX_BYTES,
    DOCUMENTS_VERSION,
    ESTIMATORS,
    FORMAT_NAME,
    Budget,
)
from ._format import SAFE_NAME as _SAFE_NAME
from ._format import build as _build
from ._format import check_meta as _check_meta
from ._format import section_contents as _section_contents

__all__ = ["ESTIMATORS", "FORMAT_NAME", "FORMAT_VERSION", "load", "load_reading", "save"]

#: The newest format version this bayeskit reads; each file is written with the oldest version
#: that holds it (1 for the models in ESTIMATORS, 2 for a TextVectorizer, 3 for text
#: classifiers, 4 for a model whose count statistic is kept as its cells, a large
#: multinomial or complement model's; a SemiSupervisedNB that of the model it wraps, at least
#: 2).
FORMAT_VERSION = CELLS_VERSION
#: Zip bomb limits: declared uncompressed total, meta.json size and compression ratio, entries.
MAX_TOTAL_SIZE = 4 * 1024**3
MAX_META_SIZE = 64 * 1024**2
MAX_META_RATIO = 1000
MAX_ENTRIES = 10_000
#: The most values (list items, dict entries: counted as commas and brackets, before parsing)
#: meta.json may hold: every hyperparameter list, label and category list together.
MAX_JSON_ITEMS = 4_000_000
#: Largest .npy header read (numpy's own default limit).
_MAX_NPY_HEADER = 10_000
_CHUNK = 1 << 20

_META = "meta.json"
_TRAILER = b"bayeskit-sha256:"
_DIGEST_LEN = 64
_LOW_LEVEL = (
    zipfile.BadZipFile, zlib.error, struct.error, EOFError, OSError, ValueError, TypeError,
    KeyError, IndexError, OverflowError, NotImplementedError, RuntimeError, RecursionError,
)  # fmt: skip


# ---------------------------------------------------------------------------------- saving
#: Names that say "pickle": a model file named so invites ``pickle.load`` (which runs code)
#: and would be mistaken for one.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".pck", ".pcl", ".p")


def check_model_file_name(path: str | os.PathLike[str]) -> None:
    """Refuse a path that names no file (empty, or ending in a folder separator), and a model
    file name ending like a pickle (:data:`PICKLE_SUFFIXES`) with a
    :class:`~bayeskit.errors.SaveError` that suggests ``.bkm``."""
    target = os.fspath(path)
    if not os.path.basename(target):
        # ("" named the folder above the working one: the write failed on a folder said
        # not to exist)
        raise SaveError(
            errno.EINVAL,
            "the path names no file"
            + (" (it is empty)" if not target else " (it ends in a folder separator)")
            + "; give a file name such as model.bkm",
            target,
        )
    stem, suffix = os.path.splitext(target)
    if suffix.lower() in PICKLE_SUFFIXES:
        raise SaveError(
            errno.EINVAL,
            f"a bayeskit model file is not a pickle, and a name ending in {suffix!r} invites "
            f"pickle.load, which runs code; name it {os.path.basename(stem)}.bkm",
            target,
        )


def save(
    model: Any, path: str | os.PathLike[str], *, reading: dict[str, Any] | None = None
) -> None:
    """Write a fitted model to ``path`` atomically (temporary file, fsync, rename).

    A failure leaves a file already at ``path`` untouched and no temporary file behind.

    Parameters
    ----------
    model : a model of ESTIMATORS, or a TextVectorizer, TextClassifier or SpamFilter
        Fitted (else :class:`~bayeskit.errors.NotFittedError`; any other object:
        :class:`~bayeskit.errors.InputTypeError`). Model files hold no code, so a vectorizer
        with a callable ``analyzer`` cannot be saved (:class:`~bayeskit.errors.ModelFileError`).
    path : str or os.PathLike
    reading : dict, optional
        How the training data was read (``bayeskit train`` stores its table options: missing
        markers, separator, header), kept in meta.json under ``"reading"`` for the commands
        that read new data for the model (:func:`load_reading`): names to strings, numbers,
        booleans, null or lists of strings. A file without it is written as before.

    Raises :class:`~bayeskit.errors.SaveError` (also an ``OSError``) naming ``path`` when the
    file cannot be written there (no such folder, no permission, a folder of that name), when
    something other than a regular file is there (a device such as ``/dev/null``, a FIFO, a
    socket: the new file would replace it), or when its name ends like a pickle's (``.pkl``,
    ``.pickle``, ``.joblib``…): a model file is not one, and a name that says so invites
    ``pickle.load``. A symbolic link at ``path`` is followed for that check: a link to a
    regular file (or a dangling one) is itself replaced by the new file, and the file it
    pointed to is left as it was; a link to a device, FIFO or socket is refused.

    Examples
    --------
    >>> import os, tempfile
    >>> import bayeskit as bk
    >>> model = bk.CategoricalNB().fit([["red", 1], ["blue", 2]], [True, False])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bk.save(model, os.path.join(tmp, "colors.bk"))
    ...     bk.load(os.path.join(tmp, "colors.bk")).predict([["red", 1]])
    array([ True])
    """
    check_model_file_name(path)
    meta, entries = _model_contents(model)
    if reading is not None:
        meta = {**meta, "reading": _check_reading(reading, InputTypeError)}
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    _check_target(target)
    mode = _new_file_mode(target)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory
        )
    except OSError as exc:
        raise _save_error(exc, target, directory) from None
    try:
        with os.fdopen(fd, "w+b") as f:
            _write_archive(f, meta, entries)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        _check_target(target)  # again: a node made there while the file was written
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, BayeskitError):
            raise _save_error(exc, target, directory) from None
        raise
    _fsync_directory(directory)


def _check_target(target: str) -> None:
    """Refuse to replace what is at ``target`` unless it is a regular file (or nothing): the
    rename that finishes a save would put the model file in the place of a folder, a device
    node (``/dev/null``: run as root, the system's own), a FIFO or a socket. A symbolic link
    is followed for the check: one to a regular file (or a dangling one) is replaced by the
    new file, the file it pointed to left as it was; one to anything else is refused."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # nothing there (or a dangling link): a new file is written
        return
    if stat.S_ISDIR(mode):
        raise SaveError(errno.EISDIR, "cannot save the model there: it is a folder", target)
    if not stat.S_ISREG(mode):
        raise SaveError(
            errno.EEXIST,
            f"cannot save the model there: it is {_node_kind(mode)}, not a regular file, and "
            "saving would replace it; give the path of a regular file",
            target,
        )


def _node_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, kind in (
        (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):  # fmt: skip
        if test(mode):
            return kind
    return "not a regular file"


def _save_error(exc: OSError, target: str, directory: str) -> SaveError:
    """The OSError of writing the temporary file, told about the path the caller gave."""
    if isinstance(exc, FileNotFoundError) or not os.path.isdir(directory):
        reason = f"the folder {directory!r} does not exist"
    elif isinstance(exc, PermissionError):
        reason = f"no permission to write in the folder {directory!r}"
    else:
        reason = exc.strerror or str(exc)
    return SaveError(exc.errno or 0, f"cannot save the model: {reason}", target)


def _model_contents(model: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (with its manifest, without checksum) and the array entries of a model, in
    the state format its declaration names (:mod:`bayeskit.contract`)."""
    cls = type(model)
    if declares(cls):
        state = _STATES[contract_of(cls).state]()
        if state.lookup(cls.__name__) is cls:
            return state.contents(model)
    names = ", ".join(sorted({n for kind in _STATES.values() for n in kind().estimators()}))
    cls_name = f"{cls.__module__}.{cls.__qualname__}"
    raise InputTypeError(f"save takes a fitted bayeskit estimator ({names}), not a {cls_name}")


class _State:
    """How a model file writes and reads one kind of state (a contract's ``state``): the
    estimators it holds, their contents, the check of their meta.json and the builder."""

    def __init__(
        self,
        estimators: Callable[[], dict[str, type]],
        contents: Callable[[Any], tuple[dict[str, Any], dict[str, bytes]]],
        check: Callable[[dict[str, Any]], dict[str, str]],
        build: Callable[[dict[str, Any], dict[str, np.ndarray], Budget], Any],
        lookup: Callable[[str], type | None] | None = None,
    ) -> None:
        self.estimators, self.contents, self.check, self.build = estimators, contents, check, build
        self.lookup = lookup or (lambda name: estimators().get(name))


def _generative() -> _State:
    # the text classifiers (whose package is imported when needed) are generative classifiers
    # (looked up by name, so that loading a model of ESTIMATORS does not import bayeskit.text)
    return _State(
        lambda: {**ESTIMATORS, **documents_estimators()},
        _section_contents,
        _check_meta,
        _build,
        estimator_class,
    )


def _text() -> _State:
    """TextVectorizer, and the text classifiers of format version 2 (read only)."""
    from . import _text_state  # imports bayeskit.text when needed

    return _State(
        lambda: dict(_text_state.TEXT_ESTIMATORS),
        _text_state.text_contents,
        _text_state.check_text_meta,
        _text_state.build_text,
    )


def _semi_supervised() -> _State:
    from . import _semi_state  # imports bayeskit.semi_supervised when needed

    return _State(
        lambda: {"SemiSupervisedNB": _semi_state.SemiSupervisedNB},
        _semi_state.semi_contents,
        _semi_state.check_semi_meta,
        _semi_state.build_semi,
    )


#: the state formats, by the name a contract's ``state`` gives (the generative one first: the
#: format of every file of version 1)
_STATES: dict[str, Callable[[], _State]] = {
    "generative": _generative,
    "text": _text,
    "semi-supervised": _semi_supervised,
}


def _state_of(meta: dict[str, Any]) -> _State:
    """The state format of the estimator a file names, as that estimator declares it (a text
    classifier in a file older than format version 3: the "text" state it was written in);
    a name no format holds is checked (and refused by name) as a file of version 1."""
    estimator = meta.get("estimator")
    for make in _STATES.values():
        state = make()
        cls = state.lookup(estimator) if isinstance(estimator, str) else None
        if cls is not None:
            declared = contract_of(cls)
            if declared.input == "documents" and meta["format_version"] < DOCUMENTS_VERSION:
                return _text()
            return _STATES[declared.state]()
    return _generative()


def _write_archive(f: IO[bytes], meta: dict[str, Any], entries: dict[str, bytes]) -> None:
    """Write meta.json (sealed with its checksum), the entries and the whole-file digest."""
    meta = {**meta, "checksum": _meta_checksum(meta)}
    contents = {_META: json.dumps(meta, indent=1, sort_keys=True).encode(), **entries}
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.comment = _TRAILER + b"0" * _DIGEST_LEN
        for name, data in contents.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    size = f.seek(0, os.SEEK_END)
    digest = _digest_of_prefix(f, size - _DIGEST_LEN)
    f.seek(size - _DIGEST_LEN)
    f.write(digest)


def _new_file_mode(path: str) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: str) -> None:
    with contextlib.suppress(OSError, AttributeError):  # POSIX only: make the rename durable
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ---------------------------------------------------------------------------------- loading
def load(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """Read a model written by :func:`save`; nothing in the file is ever run.

    Returns a fitted model that predicts exactly like the saved one (a model of
    :data:`ESTIMATORS` or a text model: TextVectorizer, TextClassifier, SpamFilter). Raises
    :class:`~bayeskit.errors.ModelFileError` (naming the path and the problem) for a file that
    is not a bayeskit model, is truncated or modified, needs a newer bayeskit or holds anything
    :func:`save` does not write; ``OSError`` if it cannot be opened.

    Memory and time are bounded before anything is allocated: the arrays a file declares (and
    the parameters computed from them) may take at most ``max_bytes`` (default 1 GiB; raise it
    to load a larger model you trust), meta.json at most 64 MiB and 4 million values, and
    every entry is decompressed as a stream that may not outgrow its declared size.

    Examples
    --------
    >>> import os, tempfile
    >>> import bayeskit as bk
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "not-a-model.bk")
    ...     with open(path, "w") as f:
    ...         _ = f.write("hello")
    ...     bk.load(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayeskit.errors.ModelFileError: cannot load model file ...: not a bayeskit model file (...)
    """
    name = os.fspath(path)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise InputTypeError(f"max_bytes must be a whole number of bytes >= 0; got {max_bytes!r}")
    error: type[ModelFileError] = ModelFileError
    budget = Budget(max_bytes)
    with _open_regular(name) as f, charged(budget.take):
        try:
            return _read_model(f, budget)
        except ModelFileError as exc:
            problem = " ".join(str(exc).split())
            error = type(exc)
        except _LOW_LEVEL as exc:
            problem = f"corrupted or malformed ({type(exc).__name__}: {' '.join(str(exc).split())})"
        except MemoryError:  # a check that should have bounded it did not: still the file's
            problem = (
                "it asks for more memory than this machine can give (refused; load(..., "
                "max_bytes=...) bounds what a load may take)"
            )
    raise error(f"cannot load model file {name!r}: {problem}")


def _open_regular(name: str) -> IO[bytes]:
    """``name`` opened for reading if it is a regular file (a symbolic link followed); a
    device (``/dev/zero`` would be read without end), a FIFO (``open`` would wait for a
    writer for ever) or a socket is refused with a :class:`~bayeskit.errors.ModelFileError`
    before reading a byte: checked before opening, and again on what was opened (opened
    without blocking), in case the name was replaced in between. A missing file or a folder
    raises the ``OSError`` of opening it, as ``open`` does."""
    mode = os.stat(name).st_mode  # FileNotFoundError, PermissionError... as open's
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if not stat.S_ISREG(mode):
        raise ModelFileError(_not_regular(name, mode))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(name, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ModelFileError(_not_regular(name, mode))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _not_regular(name: str, mode: int) -> str:
    return (
        f"cannot load model file {name!r}: it is {_node_kind(mode)}, not a regular file "
        "(a model file is a file written by bayeskit.save)"
    )


def load_reading(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """How the model file's training data was read (the ``reading`` given to :func:`save`),
    or None for a file without it (every file written before it existed). The file is
    checked as :func:`load` checks it (its digests; meta.json's size), its arrays not read."""
    name = os.fspath(path)
    with _open_regular(name) as f:
        try:
            size = f.seek(0, os.SEEK_END)
            with zipfile.ZipFile(f) as zf:
                infos = _check_listing(zf, size, Budget(DEFAULT_MAX_BYTES))
                meta = _read_meta(zf, infos)
                if meta.get("checksum") != _meta_checksum(meta):
                    raise ModelFileError("checksum mismatch in meta.json: the file was modified")
            reading = meta.get("reading")
            return None if reading is None else _check_reading(reading, ModelFileError)
        except ModelFileError as exc:
            problem = " ".join(str(exc).split())
        except _LOW_LEVEL as exc:
            problem = f"corrupted or malformed ({type(exc).__name__}: {' '.join(str(exc).split())})"
        except MemoryError:
            problem = "it asks for more memory than this machine can give (refused)"
    raise ModelFileError(f"cannot load model file {name!r}: {problem}")


#: Most keys, list items and characters of a value a model file's ``reading`` may hold
_READING_LIMIT = 1000


def _check_reading(reading: Any, error: type[BayeskitError]) -> dict[str, Any]:
    """``reading`` if it is a small dict of names to str, number, bool, None or a list of
    str; else ``error`` saying so."""

    def plain(value: Any) -> bool:
        if value is None or isinstance(value, (bool, int, float)):
            return True
        if isinstance(value, str):
            return len(value) <= _READING_LIMIT
        return (
            isinstance(value, list)
            and len(value) <= _READING_LIMIT
            and all(isinstance(v, str) and len(v) <= _READING_LIMIT for v in value)
        )

    if (
        not isinstance(reading, dict)
        or len(reading) > _READING_LIMIT
        or not all(isinstance(k, str) and plain(v) for k, v in reading.items())
    ):
        raise error(
            "reading must be a dict of names to strings, numbers, booleans, null or lists of "
            f"strings; got {str(reading)[:200]}"
        )
    return dict(reading)


def _read_model(f: IO[bytes], budget: Budget) -> Any:
    size = f.seek(0, os.SEEK_END)
    try:
        zf = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError):
        f.seek(0)
        if f.read(4) == b"PK\x03\x04":
            raise ModelFileError("the zip archive is truncated or corrupted") from None
        raise ModelFileError("not a bayeskit model file (not a zip archive)") from None
    with zf:
        infos = _check_listing(zf, size, budget)
        meta = _read_meta(zf, infos)
        if len(zf.comment) != len(_TRAILER) + _DIGEST_LEN or not zf.comment.startswith(_TRAILER):
            raise ModelFileError("the file is truncated (its end marker is missing or cut)")
        if _digest_of_prefix(f, size - _DIGEST_LEN) != zf.comment[len(_TRAILER) :]:
            raise ModelFileError("checksum mismatch: the file was modified or is corrupted")
        if meta.get("checksum") != _meta_checksum(meta):
            raise ModelFileError("checksum mismatch in meta.json: the file was modified")
        state = _state_of(meta)
        manifest = state.check(meta)
        for name in sorted(set(infos) - set(manifest) - {_META}):
            raise ModelFileError(f"entry {name!r} is not in the manifest")
        for name in sorted(set(manifest) - set(infos)):
            raise ModelFileError(f"entry {name!r} of the manifest is missing")
        arrays = {
            name: _read_npy(zf, infos[name], digest, budget) for name, digest in manifest.items()
        }
    try:
        return state.build(meta, arrays, budget)
    except ModelFileVersionError as exc:  # an older file this version would read otherwise
        raise ModelFileVersionError(
            f"{exc}. The file is format version {meta['format_version']} (written by bayeskit "
            f"{meta.get('bayeskit_version')!r}); this bayeskit reads format versions 1 to "
            f"{FORMAT_VERSION} but not this model as it was saved: fit the model again from "
            "its data with this bayeskit and save it"
        ) from None


def _check_listing(zf: zipfile.ZipFile, size: int, budget: Budget) -> dict[str, zipfile.ZipInfo]:
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ModelFileError(f"too many entries ({len(infos)})")
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename
        if "/" in name or "\\" in name or ".." in name or not _SAFE_NAME.fullmatch(name):
            raise ModelFileError(
                f"entry name {name!r} is not allowed (no path separators, '..' or odd characters)"
            )
        if name in by_name:
            raise ModelFileError(f"entry {name!r} appears twice")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ModelFileError(
                f"entry {name!r} uses compression method {info.compress_type}; model files are "
                "deflated or stored"
            )
        by_name[name] = info
    if sum(info.compress_size for info in infos) > size:
        raise ModelFileError("entries are larger than the file: it is truncated or corrupted")
    total = sum(info.file_size for info in infos)
    if total > MAX_TOTAL_SIZE:
        raise ModelFileError(
            f"entries declare {total} bytes uncompressed (limit {MAX_TOTAL_SIZE}): "
            "refusing a possible zip bomb"
        )
    # Every array entry is a header and its data: together no more than the budget allows.
    arrays = [info for info in infos if info.filename != _META]
    declared = sum(max(info.file_size - _MAX_NPY_HEADER, 0) for info in arrays)
    if declared > budget.limit:
        raise ModelFileError(
            f"entries declare {declared} bytes of array data, beyond the {budget.limit} bytes "
            "this load may use: refusing a possible zip bomb before decompressing it "
            "(load(..., max_bytes=...) raises the limit for a model you trust)"
        )
    return by_name


def _read_meta(zf: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo]) -> dict[str, Any]:
    info = infos.get(_META)
    if info is None:
        raise ModelFileError("not a bayeskit model file (no meta.json)")
    if info.file_size > min(MAX_META_SIZE, MAX_META_RATIO * max(info.compress_size, 1)):
        raise ModelFileError(
            f"meta.json declares {info.file_size} bytes from {info.compress_size} compressed: "
            "refusing a possible zip bomb"
        )
    raw = _read_entry(zf, info, MAX_META_SIZE)
    items = raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    if items > MAX_JSON_ITEMS:
        raise ModelFileError(
            f"meta.json holds about {items} values (limit {MAX_JSON_ITEMS}): refusing to parse it"
        )
    try:
        meta = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_names)
    except ModelFileError:
        raise
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(f"meta.json is not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"not a bayeskit model file (meta.json format is not {FORMAT_NAME!r})")
    version = meta.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"meta.json: format_version must be a positive int, not {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileVersionError(
            f"format_version {version} needs a newer bayeskit (written by bayeskit "
            f"{meta.get('bayeskit_version')!r}; this one reads format versions up to "
            f"{FORMAT_VERSION}): upgrade bayeskit to load it"
        )
    return meta


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of meta.json whose names are unique: save never repeats one, and of two
    values under one name Python's parser keeps the last where another reader may keep the
    first (RFC 8259, section 4), so that the two would read different models."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise ModelFileError(
                    f"meta.json names {name[:100]!r} twice in one object: not written by save"
                )
            seen.add(name)
    return out


def _read_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """An entry's bytes, decompressed as a stream that may not outgrow ``limit``."""
    try:
        with zf.open(info) as stream:
            data = stream.read(limit + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ModelFileError(
            f"checksum mismatch or corrupted entry {info.filename!r} ({exc})"
        ) from None
    if len(data) > limit:
        raise ModelFileError(f"entry {info.filename!r} is larger than {limit} bytes")
    return data


def _read_exact(stream: zipfile.ZipExtFile, n: int, name: str) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise ModelFileError(f"entry {name!r} is truncated")
    return data


def _read_npy(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, digest: str, budget: Budget
) -> np.ndarray:
    """An array entry, read without trusting it: the header first (its size bounded), its
    dtype and shape checked and the data's size taken from the budget, then the data streamed
    into the array while its sha256 is computed. Nothing larger than the header is read
    before the array's size is known and allowed."""
    name = info.filename
    sha = hashlib.sha256()
    try:
        with zf.open(info) as opened:
            stream = cast(zipfile.ZipExtFile, opened)
            head = _read_exact(stream, 10, name)
            if head[:6] != b"\x93NUMPY" or head[6] not in (1, 2, 3):
                raise ModelFileError(f"entry {name!r} is not a .npy array (bad magic string)")
            if head[6] == 1:
                header_len = struct.unpack("<H", head[8:10])[0]
            else:
                head += _read_exact(stream, 2, name)
                header_len = struct.unpack("<I", head[8:12])[0]
            if header_len > _MAX_NPY_HEADER:
                raise ModelFileError(f"entry {name!r} has a .npy header of {header_len} bytes")
            head += _read_exact(stream, header_len, name)
            shape, fortran, dtype = _npy_header(head, name)
            nbytes = math.prod(shape) * dtype.itemsize
            if nbytes != info.file_size - len(head):
                raise ModelFileError(f"entry {name!r}: the array's shape does not match its data")
            budget.take(nbytes, f"entry {name!r} ({dtype} array of shape {tuple(shape)})")
            sha.update(head)
            flat = np.empty(nbytes, dtype=np.uint8)
            view = memoryview(flat.data)
            for start in range(0, nbytes, _CHUNK):
                chunk = view[start : start + _CHUNK]
                if stream.readinto(chunk) != len(chunk):
                    raise ModelFileError(f"entry {name!r} is truncated")
                sha.update(chunk)
            if stream.read(1):
                raise ModelFileError(f"entry {name!r}: the array's shape does not match its data")
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ModelFileError(f"checksum mismatch or corrupted entry {name!r} ({exc})") from None
    if sha.hexdigest() != digest:
        raise ModelFileError(f"checksum mismatch in entry {name!r}: the file was modified")
    return flat.view(dtype).reshape(shape, order="F" if fortran else "C")


def _npy_header(head: bytes, name: str) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """(shape, Fortran order, dtype) of a .npy header, refusing anything but plain numbers."""
    buffer = io.BytesIO(head)
    try:
        version = np.lib.format.read_magic(buffer)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"unsupported .npy format version {version}")
        read_header = np.lib.format.read_array_header_1_0
        if version == (2, 0):
            read_header = np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(buffer, max_header_size=_MAX_NPY_HEADER)
    except (ValueError, TypeError, SyntaxError) as exc:
        raise ModelFileError(f"entry {name!r} is not a .npy array ({exc})") from None
    if dtype.hasobject or dtype.kind not in "biuf" or dtype.fields is not None:
        raise ModelFileError(
            f"entry {name!r} holds a {dtype} array (object/pickle arrays are refused)"
        )
    return tuple(shape), bool(fortran), dtype


# ---------------------------------------------------------------------------------- checksums
def _meta_checksum(meta: dict[str, Any]) -> str:
    body = {k: v for k, v in meta.items() if k != "checksum"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _digest_of_prefix(f: IO[bytes], length: int) -> bytes:
    """Hex sha256 of the first ``length`` bytes of ``f``."""
    digest = hashlib.sha256()
    f.seek(0)
    while length > 0:
        chunk = f.read(min(length, 1 << 20))
        if not chunk:
            break
        digest.update(chunk)
        length -= len(chunk)
    return digest.hexdigest().encode("ascii")
