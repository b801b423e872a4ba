"""What a load allocates stays within what its budget took: the statistics' checks, the copies
made of arrays stored as narrower types, and each family's finalize at its peak, temporaries
included. A 570 KB MultinomialNB file of 2 × 25 million counts (a full array of ones) passed
every check under the default 1 GiB, and load then peaked at 3.2 GB turning the array's cells
into structured weights."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit.io import _format
from bayeskit.text import SpamFilter

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


def _values(n_rows: int, n_features: int, n_values: int) -> np.ndarray:
    """Whole numbers 0 … n_values − 1 (the network classifiers' categories)."""
    return RNG.integers(0, n_values, (n_rows, n_features))


def _numbers(n_rows: int, n_features: int, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Numbers whose distribution follows the class (MDL cuts them)."""
    y = RNG.integers(0, n_classes, n_rows)
    return RNG.normal(size=(n_rows, n_features)) + y[:, None] * RNG.random(n_features), y


def _fitted_xy(model: Any, X: Any, y: Any, **fit: Any) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        bk.save(model.fit(X, y, **fit), path)
        return path

    return make


def _mixed(n_rows: int, n_numeric: int, n_classes: int) -> tuple[Any, np.ndarray]:
    """A table whose numeric columns follow the class in four shapes (normal, two modes,
    counts, skewed: the held-out choice gives them different families), and a category."""
    y = RNG.integers(0, n_classes, n_rows)
    shapes = [
        lambda: RNG.normal(size=n_rows) + 0.3 * y,
        lambda: np.where(RNG.random(n_rows) < 0.5, -2.0, 2.0) * (y % 2) + RNG.normal(size=n_rows),
        lambda: RNG.poisson(1.0 + y).astype(np.float64),
        lambda: RNG.exponential(1.0 + y),
    ]
    columns = {f"x{j}": shapes[j % 4]() for j in range(n_numeric)}
    columns["city"] = RNG.choice(np.array(["Lyon", "Oslo", "Rome"]), n_rows)
    return pd.DataFrame(columns), y


def _unstored(make: Callable[[Path], Path]) -> Callable[[Path], Path]:
    """A MixedNB file as written before the held-out choice was stored (no fitted record):
    its load makes the choice again."""

    def older(path: Path) -> Path:
        make(path)
        meta, entries = parts(path)
        meta.pop("fitted", None)  # (files of every version before it have none)
        seal(path, meta, entries)
        return path

    return older


def _messages(n_messages: int, n_words: int = 100, vocabulary: int = 50_000) -> list[str]:
    """Messages of random words (and word pairs: a few hundred thousand terms)."""
    words = np.array([f"w{i}" for i in range(vocabulary)])
    return [" ".join(words[RNG.integers(0, vocabulary, n_words)]) for _ in range(n_messages)]


DENSE = RNG.poisson(0.5, size=(200, 40_000)).astype(np.float64)
NUMBERS = RNG.normal(size=(4000, 40))
CATEGORIES = _values(4000, 60, 8)
# two classes' counts of 2.5 million terms, most of them counted (kept as their cells)
CELLS = _sparse_counts(300, 2_500_000, per_row=20_000)
MIXED = _mixed(6000, 12, 3)
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
    # the MDL search over every distinct value, equal-width and equal-frequency intervals
    "discretized-mdl": _fitted(bk.DiscretizedNB(), NUMBERS),
    "discretized-cuts": _fitted_xy(bk.DiscretizedNB(), *_numbers(4000, 40, 5)),
    "discretized-width": _fitted(bk.DiscretizedNB(method="width", n_bins=500), NUMBERS),
    "discretized-frequency": _fitted(bk.DiscretizedNB(method="frequency", n_bins=500), NUMBERS),
    # many classes' weights over few features (their compressed rows), cross-validation
    "kernel-classes": _fitted(bk.KernelNB(), RNG.normal(size=(50_000, 2)), 50),
    "kernel-cv": _fitted(bk.KernelNB(bandwidth="cv"), RNG.normal(size=(20_000, 4)), 10),
    # the layout of pair cells made again (over 2^18 cells), the Bayesian gain of weighted
    # rows (its lnΓ sorted), the informations, AODE's tables both ways, KDB's triples
    "tan": _fitted(bk.TANClassifier(), CATEGORIES, 5),
    "tan-weighted": _fitted_xy(
        bk.TANClassifier(), CATEGORIES, RNG.integers(0, 5, 4000), sample_weight=RNG.random(4000)
    ),
    "tan-cmi": _fitted(bk.TANClassifier(edge_weight="cmi"), CATEGORIES, 5),
    "tan-numbers": _fitted_xy(bk.TANClassifier(), *_numbers(4000, 60, 5)),
    "aode": _fitted(bk.AODEClassifier(), CATEGORIES, 5),
    "kdb": _fitted(bk.KDBClassifier(), CATEGORIES, 5),
    # many categories: the log probabilities' numerators, denominators and logarithm; the
    # choice of alpha="auto"; codes with gaps, their ranges made columns (materialized)
    "categorical": _fitted(bk.CategoricalNB(), _values(20_000, 60, 1000), 20),
    "categorical-auto": _fitted(bk.CategoricalNB(alpha="auto"), _values(20_000, 60, 1000), 20),
    "categorical-codes": _fitted(bk.CategoricalNB(), 3 * _values(20_000, 60, 1000), 20),
    # many classes' moments: the pooled spread, the floor; the Normal-Gamma posterior
    "gaussian": _fitted(bk.GaussianNB(), RNG.normal(size=(300, 10_000)), 100),
    "gaussian-predictive": _fitted(
        bk.GaussianNB(estimate="predictive"), RNG.normal(size=(300, 10_000)), 100
    ),
    # full covariances: the scatters regularized, the estimates, factors and inverses
    "gmm-full": _fitted(
        bk.GaussianMixtureClassifier(n_components=4, covariance_type="full", max_iter=3, tol=1e3),
        RNG.normal(size=(3000, 150)),
        3,
    ),
    "gmm-tied-prior": _fitted(
        bk.GaussianMixtureClassifier(
            n_components=4, covariance_type="tied", prior="conjugate", max_iter=3, tol=1e3
        ),
        RNG.normal(size=(3000, 150)),
        3,
    ),
    # the held-out choice of each numeric column's family, stored: the chosen families
    # fitted on their columns; a file without it: the choice made again (every
    # candidate's held-out contributions, the folds' training samples)
    "mixed-auto": _fitted_xy(bk.MixedNB(options={"auto": {"folds": 3}}), *MIXED),
    "mixed-auto-unstored": _unstored(
        _fitted_xy(bk.MixedNB(options={"auto": {"folds": 3}}), *MIXED)
    ),
    # a vocabulary of word pairs: the terms decoded (a str object each), the parameters
    "spam-filter": _fitted_xy(
        SpamFilter(calibration_folds=None),
        _messages(1500),
        np.where(RNG.random(1500) < 0.4, "spam", "ham"),
    ),
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
    # meta.json parsed and the archive's buffers are bounded apart, by meta.json's size: its
    # objects take up to 4 times its text (a list of 60,000 codes: 0.76 MB of text, 2.8 MB
    # at the parse's peak), on top of the archive's buffers
    with zipfile.ZipFile(path) as archive:
        text = archive.getinfo("meta.json").file_size
    assert peak <= sum(taken) + 2 * MB + 4 * text, (peak // MB, sum(taken) // MB, text // 1024)
    assert sum(taken) > 10 * MB  # large enough for the temporaries to tell


def _ones(model: Any, X: Any, y: Any) -> Callable[[Path], Path]:
    """A fitted network classifier's file whose counts are all ones (a few KB compressed)."""

    def make(path: Path) -> Path:
        bk.save(model.fit(X, y), path)
        meta, entries = parts(path)
        counts = meta["blocks"][0]["arrays"]["counts"]
        shape = np.load(io.BytesIO(entries[counts])).shape
        entries[counts] = npy(np.ones(shape))
        seal(path, meta, entries)
        return path

    return make


def _features_without_values(path: Path, n_features: int = 100) -> Path:
    """A KDB(k=3) file of ``n_features`` features none of which has a value: no cells, and
    C(100, 4) = 3.9 million empty subsets for the layout to list."""
    X = np.repeat(np.arange(3)[:, None], 3, axis=1)
    bk.save(bk.KDBClassifier(k=3).fit(np.r_[X, X], [0, 0, 0, 1, 1, 1]), path)
    meta, entries = parts(path)
    meta["blocks"][0]["meta"]["categories"] = [{"dtype": "int64", "values": []}] * n_features
    meta["n_features_in"] = n_features
    entries[meta["blocks"][0]["arrays"]["counts"]] = npy(np.zeros((2, 0)))
    seal(path, meta, entries)
    return path


VALUES = _values(400, 200, 10)  # 200 features of 10 values: 2 million pair cells
BEYOND: dict[str, Callable[[Path], Path]] = {
    "tan": _ones(bk.TANClassifier(), VALUES, RNG.integers(0, 2, 400)),
    "aode": _ones(bk.AODEClassifier(), VALUES, RNG.integers(0, 2, 400)),
    "kdb": _ones(bk.KDBClassifier(), VALUES, RNG.integers(0, 2, 400)),
    "kdb-no-values": _features_without_values,
    "discretized": _fitted(bk.DiscretizedNB(), RNG.normal(size=(15_000, 20))),
    "kernel": _fitted(bk.KernelNB(), RNG.normal(size=(20_000, 1)), 200),
}


def test_network_and_interval_files_beyond_the_budget_are_refused(tmp_path: Path) -> None:
    # Under 200 MB, which their arrays and what was counted before fitted into, these loads
    # grew the resident memory by 210 to 800 MB (the pair cells' layout, informations and
    # gains, the MDL search, the kernel's compressed weights; the layout listed the 3.9
    # million subsets of a file of 1 KB).
    paths = [make(tmp_path / f"{name}.bkm") for name, make in BEYOND.items()]
    for path in paths:
        with pytest.raises(bk.errors.ModelFileError, match="parameters needs"):
            bk.load(path, max_bytes=200 * MB)
    valid = _fitted(bk.TANClassifier(), VALUES[:20, :3], 2)(tmp_path / "valid.bkm")
    for name, (outcome, grown_kb, seconds) in zip(
        BEYOND, measured_loads(valid, paths, max_bytes=200 * MB), strict=True
    ):
        assert outcome == "refused", name
        assert grown_kb < 200 * 1024, (name, grown_kb // 1024)
        assert seconds < 5, (name, seconds)


def _code_ranges(path: Path, n_features: int = 60) -> Path:
    """A CategoricalNB file of two classes whose ``n_features`` features each saw the codes 0
    and 65,535 (a few KB): finalize makes every code in between a column, 7.9 million
    cells in all."""
    bk.save(bk.CategoricalNB().fit(np.array([[0], [1]]), [0, 1]), path)
    meta, entries = parts(path)
    meta["blocks"][0]["meta"]["categories"] = [
        {"dtype": "int64", "values": [0, 65_535]}
    ] * n_features
    meta["n_features_in"] = n_features
    entries[meta["blocks"][0]["arrays"]["counts"]] = npy(np.ones((2, 2 * n_features)))
    seal(path, meta, entries)
    return path


def _components(path: Path, n_components: int = 24, n_features: int = 600) -> Path:
    """A GaussianMixtureClassifier file of two classes with ``n_components`` full
    covariances over ``n_features`` (identity scatters: a few hundred KB compressed),
    each a (d, d) matrix that finalize regularizes, factors and inverts."""
    X = RNG.normal(size=(40, 2))
    model = bk.GaussianMixtureClassifier(n_components=1, covariance_type="full", random_state=0)
    bk.save(model.fit(X, np.repeat([0, 1], 20)), path)
    meta, entries = parts(path)
    arrays = meta["blocks"][0]["arrays"]
    m, d = n_components, n_features
    weight = np.full(m, 10.0)
    stored = {
        "weight": weight,
        "component_weight": weight,
        "owner": np.repeat([0, 1], m // 2),
        "component_mean": np.zeros((m, d)),
        "component_scatter": np.broadcast_to(10.0 * np.eye(d), (m, d, d)).copy(),
        "var_floor": np.zeros((2, d)),
        "ridge_scale": np.ones((2, d)),
    }
    for key, value in stored.items():
        entries[arrays[key]] = npy(value)
    meta["n_features_in"] = d
    seal(path, meta, entries)
    return path


INFLATED: dict[str, Callable[[Path], Path]] = {
    "categorical-code-ranges": _code_ranges,
    "gmm-components": _components,
}


def test_category_and_mixture_files_beyond_the_budget_are_refused(tmp_path: Path) -> None:
    # Under 200 MB, which their arrays and what was counted before fitted into, these small
    # files grew the resident memory beyond it (the code ranges made columns, the
    # components' covariances regularized, factored and inverted).
    paths = [make(tmp_path / f"{name}.bkm") for name, make in INFLATED.items()]
    for path in paths:
        assert path.stat().st_size < 1_000_000
        with pytest.raises(bk.errors.ModelFileError, match="parameters needs"):
            bk.load(path, max_bytes=200 * MB)
    valid = _fitted(bk.CategoricalNB(), _values(20, 3, 4), 2)(tmp_path / "valid.bkm")
    for name, (outcome, grown_kb, seconds) in zip(
        INFLATED, measured_loads(valid, paths, max_bytes=200 * MB), strict=True
    ):
        assert outcome == "refused", name
        assert grown_kb < 200 * 1024, (name, grown_kb // 1024)
        assert seconds < 5, (name, seconds)
