"""Helpers of the model-file tests: taking a file apart, and the check every refused file goes
through (a one-line ModelFileError naming the path and the problem, no chained traceback)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import ModelFileError
from bayeskit.io import model_file


def refused(path: Path, *words: str) -> ModelFileError:
    with pytest.raises(ModelFileError) as info:
        bk.load(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    assert info.value.__context__ is None
    assert info.value.__cause__ is None
    for word in words:
        assert word in message, message
    return info.value


def parts(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (without its checksum) and the other entries of a model file."""
    with zipfile.ZipFile(path) as zf:
        entries = {name: zf.read(name) for name in zf.namelist()}
    meta = json.loads(entries.pop("meta.json"))
    del meta["checksum"]
    return meta, entries


def seal(path: Path, meta: dict[str, Any], entries: dict[str, bytes]) -> None:
    """Write a crafted file with valid checksums, so that the checks behind them are reached."""
    meta["entries"] = {n: hashlib.sha256(d).hexdigest() for n, d in entries.items()}
    with open(path, "w+b") as f:
        model_file._write_archive(f, meta, entries)


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
