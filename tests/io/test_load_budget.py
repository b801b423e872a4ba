"""What a load allocates stays within what its budget took: the statistics' checks, the copies
made of arrays stored as narrower types, and each family's finalize at its peak, temporaries
included. A 570 KB MultinomialNB file of 2 × 25 million counts (a full array of ones) passed
every check under the default 1 GiB, and load then peaked at 3.2 GB turning the array's cells
into structured weights."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit.io import _format

from ._refusal import measured_loads, npy, parts, refused, seal

RNG = np.random.default_rng(0)
MB = 1024**2


def counts_file(path: Path, total: np.ndarray) -> Path:
    """A MultinomialNB file holding ``total`` (n_classes, n_features) as its counts."""
    n_classes = total.shape[0]
    bk.save(bk.MultinomialNB().fit(np.eye(n_classes), np.arange(n_classes)), path)
    meta, entries = parts(path)
    entries["block0.total.npy"] = npy(total)
    meta["n_features_in"] = total.shape[1]
    seal(path, meta, entries)
    return path


def test_dense_counts_whose_cells_outgrow_the_budget_are_refused(tmp_path: Path) -> None:
    # The reviewed file at a tenth of its size, under a budget its arrays and the full
    # weights fitted into (80 MB of 200 MB): load made 7 times the array turning its cells
    # into structured weights.
    path = counts_file(tmp_path / "cells.bkm", np.ones((2, 2_500_000)))
    assert path.stat().st_size < 100_000
    with pytest.raises(bk.errors.ModelFileError, match="the multinomial parameters needs"):
        bk.load(path, max_bytes=200 * MB)
    valid = counts_file(tmp_path / "valid.bkm", np.ones((2, 3)))
    [(outcome, grown_kb, _)] = measured_loads(valid, [path], max_bytes=200 * MB)
    assert outcome == "refused"
    assert grown_kb < 200 * 1024, grown_kb // 1024


@pytest.mark.slow
def test_the_reviewed_file_is_refused_under_the_default_budget(tmp_path: Path) -> None:
    path = counts_file(tmp_path / "cells.bkm", np.ones((2, 25_000_000)))
    assert path.stat().st_size < 1_000_000
    refused(path, "the multinomial parameters needs", "load(..., max_bytes=...)")
    valid = counts_file(tmp_path / "valid.bkm", np.ones((2, 3)))
    [(outcome, grown_kb, _)] = measured_loads(valid, [path])
    assert outcome == "refused"
    assert grown_kb < 1024 * 1024, grown_kb // 1024


def _sparse_counts(n_rows: int, n_features: int, per_row: int = 200) -> Any:
    """Counts of ``per_row`` random terms a row (a vocabulary of ``n_features``)."""
    rows = np.repeat(np.arange(n_rows), per_row)
    terms = RNG.integers(0, n_features, rows.size)
    counts = RNG.integers(1, 4, rows.size).astype(np.float64)
    return sp.csr_matrix((counts, (rows, terms)), shape=(n_rows, n_features))


def _fitted(model: bk.GenerativeClassifier, X: Any, n_classes: int = 20) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        bk.save(model.fit(X, RNG.integers(0, n_classes, X.shape[0])), path)
        return path

    return make


DENSE = RNG.poisson(0.5, size=(200, 40_000)).astype(np.float64)
# two classes' counts of 2.5 million terms, most of them counted (kept as their cells)
CELLS = _sparse_counts(300, 2_500_000, per_row=20_000)
FILES: dict[str, Callable[[Path], Path]] = {
    # a full count array large enough for structured weights (cells found in it)
    "multinomial-full-array": lambda p: counts_file(p, RNG.poisson(1.0, (2, 2_500_000)) * 1.0),
    # counts stored as bytes: checked as float64, a copy eight times their size
    "multinomial-uint8": lambda p: counts_file(p, np.ones((2, 2_500_000), dtype=np.uint8)),
    "multinomial-cells": _fitted(bk.MultinomialNB(), CELLS, 2),
    "complement-cells": _fitted(bk.ComplementNB(), CELLS, 2),
    "complement-norm": _fitted(bk.ComplementNB(norm=True), DENSE),
    "bernoulli": _fitted(bk.BernoulliNB(), DENSE),
    "bernoulli-auto": _fitted(bk.BernoulliNB(alpha="auto"), DENSE),
    "poisson": _fitted(bk.PoissonNB(), DENSE),
    "binomial": _fitted(bk.BinomialNB(n_trials=10), np.minimum(DENSE, 10)),
}


@pytest.mark.parametrize("name", FILES)
def test_a_load_allocates_no_more_than_its_budget_took(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = FILES[name](tmp_path / f"{name}.bkm")
    bk.load(path, max_bytes=4 * 1024**3)  # (every import and compiled function warm)
    taken: list[int] = []
    take = _format.Budget.take

    def spy(self: _format.Budget, nbytes: int, what: str) -> None:
        taken.append(nbytes)
        take(self, nbytes, what)

    monkeypatch.setattr(_format.Budget, "take", spy)
    tracemalloc.start()
    try:
        bk.load(path, max_bytes=4 * 1024**3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # (meta.json parsed and the archive's buffers: bounded apart, by the size of meta.json)
    assert peak <= sum(taken) + 2 * MB, (peak // MB, sum(taken) // MB)
    assert sum(taken) > 10 * MB  # large enough for the temporaries to tell
