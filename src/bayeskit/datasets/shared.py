"""Readers for the public datasets in the project's shared data folder.

The folder is found through the ``BAYESKIT_DATA`` environment variable, else as ``shared/data``
beside or above the working directory. Tests and benchmarks call :func:`data_dir` and skip
cleanly when it returns None, or when a reader raises
:class:`~bayeskit.errors.DatasetNotFoundError` (a folder that does not hold the dataset).
Files are read in place and never modified; nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import DatasetNotFoundError, ParameterError, ReadError

UCI_TABLES = {
    # name: (folder, file, index of the class column)
    "mushroom": ("uci-mushroom", "agaricus-lepiota.data", 0),
    "car": ("uci-car-evaluation", "car.data", -1),
    "nursery": ("uci-nursery", "nursery.data", -1),
    "voting": ("uci-congressional-voting", "house-votes-84.data", 0),
}

_SUBSETS = ("train", "test")


def data_dir() -> Path | None:
    """The shared data folder, or None when it is not on this machine."""
    env = os.environ.get("BAYESKIT_DATA")
    if env:
        path = Path(env)
        return path if path.is_dir() else None
    here = Path.cwd().resolve()
    for base in (here, *here.parents):
        for candidate in (base / "shared" / "data", base.parent / "shared" / "data"):
            if candidate.is_dir():
                return candidate
    return None


def _found(root: Path | None, *parts: str, folder: bool = False) -> Path:
    """``root / parts``, the dataset's file (or ``folder``), refused by name when absent."""
    root = data_dir() if root is None else root
    if root is None:
        raise DatasetNotFoundError(
            "the shared data folder was not found; set BAYESKIT_DATA to its path"
        )
    path = Path(root, *parts)
    if not (path.is_dir() if folder else path.is_file()):
        raise DatasetNotFoundError(
            f"{path} not found: {root} does not hold the dataset; BAYESKIT_DATA names the "
            f"folder that holds {parts[0]}/ (not its parent)"
        )
    return path


def load_uci_table(name: str, root: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A categorical UCI table as (X of str, y of str); ``?`` is kept as a value.

    ``name`` is one of ``mushroom``, ``car``, ``nursery``, ``voting``.
    """
    if name not in UCI_TABLES:
        raise ParameterError(f"no UCI table {name!r}; accepted: {', '.join(UCI_TABLES)}")
    folder, file, target = UCI_TABLES[name]
    path = _found(root, folder, file)
    rows = [line.split(",") for line in path.read_text("ascii").splitlines() if line.strip()]
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        line = next(i for i, row in enumerate(rows, 1) if len(row) != len(rows[0]))
        raise ReadError(
            f"{path}: row {line} has {len(rows[line - 1])} fields where row 1 has "
            f"{len(rows[0])} (not counting blank lines)"
        )
    table = np.asarray(rows, dtype=str)
    y = table[:, target]
    X = np.delete(table, target if target >= 0 else table.shape[1] - 1, axis=1)
    return X, y


def load_sms_collection(root: Path | None = None) -> tuple[list[str], np.ndarray]:
    """The SMS Spam Collection as read from the shared folder (same data as the bundled copy)."""
    path = _found(root, "sms-spam-collection", "SMSSpamCollection")
    labels, texts = [], []
    for line in path.read_text("utf-8").splitlines():
        label, _, text = line.partition("\t")
        labels.append(label)
        texts.append(text)
    return texts, np.asarray(labels)


def load_20newsgroups(subset: str, root: Path | None = None) -> tuple[list[str], np.ndarray]:
    """20 Newsgroups "bydate": ``subset`` is ``train`` or ``test``; posts decoded as latin-1."""
    if subset not in _SUBSETS:
        raise ParameterError(f"subset={subset!r}; accepted: 'train' or 'test'")
    base = _found(root, "20newsgroups-bydate", f"20news-bydate-{subset}", folder=True)
    texts, labels = [], []
    for group in sorted(p for p in base.iterdir() if p.is_dir()):
        for file in sorted(group.iterdir(), key=lambda p: p.name):
            texts.append(file.read_bytes().decode("latin-1"))
            labels.append(group.name)
    if not texts:
        raise DatasetNotFoundError(f"{base} holds no posts (one folder of posts per group)")
    return texts, np.asarray(labels)


def load_spambase(root: Path | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """UCI Spambase: (X float64 of shape (4601, 57), y of 0/1 ints with 1 = spam, column names
    from ``spambase.names``)."""
    data_path = _found(root, "uci-spambase", "spambase.data")
    names_path = _found(root, "uci-spambase", "spambase.names")
    try:
        data = np.loadtxt(data_path, delimiter=",", dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise ReadError(f"{data_path}: {' '.join(str(exc).split())}") from None
    names = [
        line.split(":")[0].split()[-1]
        for line in names_path.read_text("ascii").splitlines()
        if ":" in line and not line.startswith("|") and "continuous" in line
    ]
    return data[:, :-1], data[:, -1].astype(np.int64), names
