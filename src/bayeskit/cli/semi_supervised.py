"""``bayeskit train FOLDER --unlabeled SOURCE``: semi-supervised EM over documents by rounds
(:mod:`bayeskit.semi_supervised._rounds`), a pass over the labelled and the unlabelled files,
read again a batch at a time, per EM iteration; the batches are summarized here or on a
cluster (``--workers``/``--scheduler``) and added in batch order, so both write the same model
file."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..io.documents import list_files
from ..io.readers import ReadError
from ..io.stream import FileBatch
from .data import describe_counts, describe_data
from .output import note
from .streaming import TrainingData, settle_text_model, train_rounds

#: Files of --unlabeled looked at for binary content, and how much of each: enough to tell
#: a folder of documents from a folder of images or archives without reading it all.
_SAMPLED_FILES = 64
_SAMPLED_BYTES = 8192


#: Control bytes (not tab, newlines, form feed or escape) that text holds next to none of.
_CONTROL = bytes([*range(0, 8), *range(14, 27), *range(28, 32), 127])


def looks_binary(sample: bytes) -> bool:
    """Whether the start of a file is binary data rather than text or an e-mail: a NUL byte
    (as git and grep tell binary files), or — text that is not UTF-8 — more than 1 byte in
    20 a control byte (random bytes hold about 1 in 9; latin-1 text, none)."""
    if b"\0" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(sample) - 4:  # not just a character cut at the sample's end
            controls = len(sample) - len(sample.translate(None, _CONTROL))
            return controls > len(sample) / 20
    return False


def check_unlabelled(source: str, data: str) -> None:
    """Refuse an ``--unlabeled`` SOURCE that cannot be unlabelled documents for DATA: missing,
    empty, DATA itself (or a folder holding it, or inside it: its documents are labelled), or
    binary files only (:func:`looks_binary` in their first 8 KiB); a note names binary files
    among text ones. Called before any data is read."""
    path = Path(source)
    if not path.exists():
        raise ReadError(f"{source}: no such file or folder; check the path", path=source)
    unlabelled, labelled = path.resolve(), Path(data).resolve()
    if unlabelled == labelled or labelled in unlabelled.parents:
        where = "DATA itself" if unlabelled == labelled else "inside DATA"
        raise ReadError(
            f"{source}: --unlabeled is {where} ({data}): its documents are labelled ones; "
            "give a file or folder of documents without labels",
            path=source,
        )
    if unlabelled in labelled.parents:
        raise ReadError(
            f"{source}: --unlabeled holds DATA ({data}): its labelled documents would be read "
            "again as unlabelled ones; give a file or folder of documents without labels",
            path=source,
        )
    files = list_files(path) if path.is_dir() else [path]
    if not files:
        raise ReadError(f"{source}: the folder holds no file", path=source)
    sampled = files[:: max(len(files) // _SAMPLED_FILES, 1)][:_SAMPLED_FILES]
    binary = []
    for file in sampled:
        with open(file, "rb") as f:
            if looks_binary(f.read(_SAMPLED_BYTES)):
                binary.append(file)
    if binary and len(binary) == len(sampled):
        where = str(binary[0]) if path.is_dir() else source
        raise ReadError(
            f"{where}: --unlabeled reads text or e-mail documents; this holds binary data (a "
            f"NUL byte, or control bytes in text that is not UTF-8, in its first "
            f"{_SAMPLED_BYTES} bytes"
            + (f", as in all {len(sampled)} files looked at" if path.is_dir() else "")
            + ")",
            path=source,
        )
    if binary:
        note(
            f"{source}: {len(binary)} of the {len(sampled)} files looked at hold binary data "
            f"(e.g. {binary[0]}); they are read as text"
        )


def unlabelled_batches(source: str, kind: str, batch_size: int) -> Iterator[FileBatch]:
    """The files of ``--unlabeled`` (a folder: every file under it; or one file), unread,
    about ``batch_size`` files a batch, each document marked unlabelled (None)."""
    path = Path(source)
    if not path.exists():
        raise ReadError(f"{source}: no such file or folder; check the path", path=source)
    files, root = (list_files(path), path) if path.is_dir() else ([path], path.parent)
    if not files:
        raise ReadError(f"{source}: the folder holds no file", path=source)
    for start in range(0, len(files), batch_size):
        chunk = files[start : start + batch_size]
        unlabelled: list[Any] = [None] * len(chunk)
        yield FileBatch(root, chunk, unlabelled, kind, sum(p.stat().st_size for p in chunk))


def train_semi_supervised(
    reopen: Callable[[], TrainingData],
    unlabeled: str,
    batch_size: int,
    choice: str,
    alpha: float | None,
    integers: str | None,
    merges: list[str],
    runner: Any,
) -> tuple[Any, str, int]:
    """(the fitted text model, the labelled data described, how many unlabelled documents)."""
    from ..errors import ConvergenceWarning

    kind = reopen().kind
    next(unlabelled_batches(unlabeled, kind, batch_size))  # its checks, before any work
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        trained = train_rounds(
            reopen, choice, alpha, integers, merges, runner=runner,
            unlabelled=lambda: unlabelled_batches(unlabeled, kind, batch_size),
        )  # fmt: skip
    for warning in caught:
        note(str(warning.message))
    semi = trained.model
    labelled = trained.rows
    classes, counts = np.unique(semi.transduction_[:labelled], return_counts=True)
    described = describe_data(kind, labelled, None, None, describe_counts(classes, counts))
    return settle_text_model(semi.estimator_), described, len(semi.transduction_) - labelled
