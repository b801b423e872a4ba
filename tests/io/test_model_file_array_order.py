"""A model file stores every array in C order: the same model writes the same bytes whatever
the memory layout of its arrays (a statistic summed in Fortran order by one fit and in C order
by another, as ``bayeskit train`` with and without ``--batch-size``), so files compare with
``cmp``."""

from __future__ import annotations

import copy
import dataclasses
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
from bayeskit.io._format import npy_bytes
from bayeskit.stats import Counts, Summary

RNG = np.random.default_rng(1)
N = 80
FRAME = pd.DataFrame(
    {
        "a": RNG.normal(size=N).round(4),
        "b": RNG.poisson(3, N),
        "c": RNG.choice(["x", "y", "z"], N),
    }
)
LABELS = RNG.choice(["p", "q"], N)


def _laid_out(model, order: str):
    """A copy of ``model`` whose statistics' 2-D arrays are laid out in ``order`` ("C" or
    "F"), their values the same (a Summary keeps its weights in C order: a kernel column's
    training values stay as laid out)."""

    def block(b):
        arrays = {
            f.name: np.array(getattr(b, f.name), order=order)
            for f in dataclasses.fields(b)
            if isinstance(getattr(b, f.name), np.ndarray) and getattr(b, f.name).ndim >= 2
        }
        return dataclasses.replace(b, **arrays)

    stats = model.statistics()
    out = copy.deepcopy(model)
    out.fit_summary(Summary(stats.classes, stats.class_count, tuple(map(block, stats.blocks))))
    return out


@pytest.mark.parametrize(
    ("make", "columns"),
    [(bk.MixedNB, ["a", "b", "c"]), (bk.KernelNB, ["a", "b"])],
    ids=["mixed-kernel", "kernel"],
)
def test_fortran_and_c_ordered_models_save_to_the_same_bytes(make, columns, tmp_path: Path) -> None:
    X = FRAME[columns]
    model = make().fit(X, LABELS)
    c_ordered, f_ordered = _laid_out(model, "C"), _laid_out(model, "F")
    two_d = [
        getattr(b, f.name)
        for b in f_ordered.statistics().blocks
        for f in dataclasses.fields(b)
        if isinstance(getattr(b, f.name), np.ndarray) and getattr(b, f.name).ndim >= 2
    ]
    assert any(a.flags.f_contiguous and not a.flags.c_contiguous for a in two_d)
    bk.save(c_ordered, tmp_path / "c.bk")
    bk.save(f_ordered, tmp_path / "f.bk")
    assert (tmp_path / "c.bk").read_bytes() == (tmp_path / "f.bk").read_bytes()
    with zipfile.ZipFile(tmp_path / "f.bk") as archive:
        headers = [archive.read(n)[:128] for n in archive.namelist() if n.endswith(".npy")]
    assert headers
    assert all(b"'fortran_order': False" in h for h in headers)
    loaded = bk.load(tmp_path / "f.bk")
    np.testing.assert_array_equal(loaded.predict_proba(X), f_ordered.predict_proba(X))


def test_an_array_is_stored_in_c_order_whatever_its_layout() -> None:
    values = np.arange(12.0).reshape(3, 4)
    stored = npy_bytes(values, "block0.total.npy")
    assert npy_bytes(np.asfortranarray(values), "block0.total.npy") == stored
    assert npy_bytes(np.asfortranarray(values.T).T, "block0.total.npy") == stored
    assert npy_bytes(values[:, ::2], "x.npy") == npy_bytes(values[:, ::2].copy(), "x.npy")


def test_counts_are_in_c_order_however_made() -> None:
    """The same counts score the same to the last bit fitted, learned in batches, or loaded
    from a file (which stores C order): a total is held in C order whatever made it (a fit's
    product is class-fastest), and its pooled counts are the same in either layout."""
    model = bk.MultinomialNB().fit(FRAME[["b"]].to_numpy() * [[1, 2]], LABELS)
    (block,) = model.statistics().blocks
    held = dataclasses.replace(block, total=np.asfortranarray(block.total))
    assert held.total.flags.c_contiguous
    assert block.total.flags.c_contiguous
    wide = np.random.default_rng(0).random((12, 40)) * 1e3
    many = Counts(np.ones(12), np.asfortranarray(wide))
    np.testing.assert_array_equal(many.feature_totals(), np.asfortranarray(wide).sum(axis=0))
    np.testing.assert_array_equal(held.total, block.total)
