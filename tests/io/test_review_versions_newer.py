"""A file of the same format version that holds a part this bayeskit does not write (as a newer
bayeskit that adds one to a model's stored state would write it) is refused by name, never
read without that part: an earlier bayeskit that ignored MixedNB's category_alpha loaded such
a file smoothed otherwise than it was fitted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk

from ._refusal import parts, refused, seal

RNG = np.random.default_rng(6)
NUMBERS = RNG.normal(size=(40, 3))
CATS = RNG.integers(0, 3, size=(40, 3))
Y = np.array(["a", "b"] * 20)


def _state_key(meta: dict[str, Any]) -> None:
    state = meta["state"]
    state["keys"]["values"].append(["str", "future"])
    state["items"].append(1)


def _layout_key(meta: dict[str, Any]) -> None:
    layout = meta["state"]["items"][meta["state"]["keys"]["values"].index(["str", "layout"])]
    block = layout["items"][0]
    block["keys"]["values"].append(["str", "future"])
    block["items"].append(1)


def _block_meta_key(meta: dict[str, Any]) -> None:
    meta["blocks"][0]["meta"]["future"] = 1


def _nested_block_meta_key(meta: dict[str, Any]) -> None:
    meta["blocks"][0]["meta"]["component_meta"]["future"] = 1


CASES = {
    "MixedNB state": (lambda: bk.MixedNB().fit(np.column_stack([NUMBERS, CATS]), Y), _state_key),
    "MixedNB layout": (lambda: bk.MixedNB().fit(np.column_stack([NUMBERS, CATS]), Y), _layout_key),
    "TAN state": (lambda: bk.TANClassifier().fit(CATS, Y), _state_key),
    "Gaussian meta": (lambda: bk.GaussianNB().fit(NUMBERS, Y), _block_meta_key),
    "mixture meta": (
        lambda: bk.GaussianMixtureClassifier(n_components=2).fit(NUMBERS, Y),
        _block_meta_key,
    ),
    "mixture components' meta": (
        lambda: bk.GaussianMixtureClassifier(n_components=2).fit(NUMBERS, Y),
        _nested_block_meta_key,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_part_this_version_does_not_write_is_refused(tmp_path: Path, case: str) -> None:
    fit, edit = CASES[case]
    path = tmp_path / "newer.bk"
    bk.save(fit(), path)
    bk.load(path)  # as written, it loads
    meta, entries = parts(path)
    edit(meta)
    seal(path, meta, entries)
    refused(path, "future", "does not write")


def test_a_block_array_this_version_does_not_write_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.bk"
    bk.save(bk.GaussianNB().fit(NUMBERS, Y), path)
    meta, entries = parts(path)
    name = "block0.future.npy"
    meta["blocks"][0]["arrays"]["future"] = name
    entries[name] = entries["block0.mean.npy"]
    seal(path, meta, entries)
    refused(path, "'future'", "does not write")
