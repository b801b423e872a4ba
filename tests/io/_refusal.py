"""Helpers of the model-file tests: taking a file apart, and the check every refused file goes
through (a one-line ModelFileError naming the path and the problem, no chained traceback)."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import textwrap
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


def decoded_terms(path: Path) -> int:
    """What a load takes from its budget to decode the term lists of a model file (each
    ``<name>.utf8`` entry with its ``<name>.offsets``)."""
    from bayeskit.io._documents_block import decoded_size

    _, entries = parts(path)
    total = 0
    for name, data in entries.items():
        if name.endswith(".utf8.npy"):
            blob = np.load(io.BytesIO(data))
            offsets = np.load(io.BytesIO(entries[name.replace(".utf8.npy", ".offsets.npy")]))
            total += decoded_size(blob, offsets)
    return total


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


_MEASURE = textwrap.dedent(
    """
    import resource, sys, time
    import bayeskit as bk
    from bayeskit.errors import ModelFileError
    max_bytes = int(sys.argv[1])
    bk.load(sys.argv[2])  # a valid file: every import and compiled function is warm
    for path in sys.argv[3:]:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        try:
            bk.load(path, max_bytes=max_bytes)
            outcome = "loaded"
        except ModelFileError:
            outcome = "refused"
        seconds = time.perf_counter() - start
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(outcome, grown, f"{seconds:.3f}", flush=True)
    """
)


def measured_loads(
    valid: Path, paths: list[Path], max_bytes: int = model_file.DEFAULT_MAX_BYTES
) -> list[tuple[str, int, float]]:
    """("loaded" or "refused", growth of the peak resident memory in KB, seconds) of loading
    each file in turn, in a fresh process warmed up by loading ``valid``."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(max_bytes), str(valid), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout.split()
    return [(out[i], int(out[i + 1]), float(out[i + 2])) for i in range(0, len(out), 3)]
