"""Files whose parts contradict each other are refused by name: a network classifier's cut
points against its columns' categories, a SemiSupervisedNB's settings and EM record against
the model it wraps."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk

from ._refusal import parts, refused, seal

RNG = np.random.default_rng(0)
# column 0: two clusters (one cut, two intervals); column 1: three whole numbers (no cut)
NUMBERS = np.c_[np.r_[RNG.normal(0, 1, 50), RNG.normal(5, 1, 50)], RNG.integers(0, 3, 100)]
LABELS = np.repeat([0, 1], 50)
NETWORKS = [bk.TANClassifier, bk.AODEClassifier, bk.KDBClassifier]


def _cuts(meta: dict[str, Any]) -> list[Any]:
    """The stored cut points of each cut column (the layout state's "cuts" list)."""
    state = meta["state"]
    keys = [key for _, key in state["keys"]["values"]]
    return state["items"][keys.index("cuts")]["items"]


def _network_file(tmp_path: Path, cls: type) -> tuple[Path, dict[str, Any], dict[str, bytes]]:
    path = tmp_path / "network.bkm"
    bk.save(cls().fit(NUMBERS, LABELS), path)
    meta, entries = parts(path)
    assert [c["items"] for c in _cuts(meta)][1] == []  # (the layout the cases below change)
    return path, meta, entries


@pytest.mark.parametrize("cls", NETWORKS)
@pytest.mark.parametrize(
    ("change", "words"),
    [
        # a cut column of two intervals left with no cut point: its category 1 names none
        ("no cut", ("column 0 ('x0') is cut into 1 intervals", "categories are [0.0, 1.0]")),
        ("text categories", ("categories are ['a', 'b']", "interval indices 0 to 1")),
        ("half an interval", ("categories are [0.0, 0.5]",)),
        ("a category beyond", ("column 1 ('x1') is cut into 1 intervals", "categories are [3.0]")),
        ("discretize none", ("cuts 2 column(s) into intervals under discretize='none'",)),
    ],
)
def test_cut_points_must_fit_the_categories(
    tmp_path: Path, cls: type, change: str, words: tuple[str, ...]
) -> None:
    path, meta, entries = _network_file(tmp_path, cls)
    categories = meta["blocks"][0]["meta"]["categories"]
    if change == "no cut":
        _cuts(meta)[0]["items"] = []
    elif change == "text categories":
        categories[0] = {"dtype": "<U1", "values": ["a", "b"]}
    elif change == "half an interval":
        categories[0] = {"dtype": "float64", "values": [0.0, 0.5]}
    elif change == "a category beyond":
        categories[1] = {"dtype": "float64", "values": [3.0]}
    else:
        meta["params"]["discretize"] = "none"
    seal(path, meta, entries)
    refused(path, *words)


@pytest.mark.parametrize("cls", NETWORKS)
def test_an_unlearned_interval_still_loads(tmp_path: Path, cls: type) -> None:
    # Unlearning every row of an interval drops its category: fewer categories than the
    # cut points make is a file save writes.
    model = cls().fit(NUMBERS, LABELS)
    low = NUMBERS[:, 0] < model.cut_points_["x0"][0]
    model.unlearn(NUMBERS[low], LABELS[low])
    assert model.categories_[0].tolist() == [1.0]
    bk.save(model, tmp_path / "unlearned.bkm")
    loaded = bk.load(tmp_path / "unlearned.bkm")
    np.testing.assert_array_equal(loaded.predict_proba(NUMBERS), model.predict_proba(NUMBERS))


@pytest.fixture(scope="module")
def semi_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 0], [4, 1, 0], [0, 2, 0], [1, 4, 1]])
    path = tmp_path_factory.mktemp("semi") / "semi.bkm"
    bk.save(bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, [0, 1, -1, -1, -1, -1]), path)
    return parts(path)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"params": {"estimator": {"type": "estimator", "class": "GaussianNB", "params": {}}}},
            ("params.estimator is a GaussianNB", "wrapped model stored is a 'MultinomialNB'"),
        ),
        # (a setting of None wraps a MultinomialNB, as fit takes it)
        (
            {"params": {"estimator": None}, "inner": {"estimator": "ComplementNB"}},
            ("ComplementNB",),
        ),
        (
            {"state": {"lower_bounds": [-3.6, float("nan"), -3.3, -3.3]}},
            ("lower_bounds[1] is nan",),
        ),
        (
            {"state": {"lower_bounds": [-3.6, -3.3, -3.3, float("inf")]}},
            ("lower_bounds[3] is inf",),
        ),
        ({"state": {"n_iter": -1, "lower_bounds": []}}, ("state.n_iter is -1",)),
        ({"state": {"n_iter": 9}}, ("holds 4 values for n_iter=9",)),
    ],
)
def test_a_semi_supervised_record_must_fit_its_model(
    tmp_path: Path, semi_file: Any, change: dict[str, Any], words: tuple[str, ...]
) -> None:
    meta, entries = copy.deepcopy(semi_file)
    meta["params"].update(change.get("params", {}))
    meta["state"].update(change.get("state", {}))
    meta["state"]["inner"].update(change.get("inner", {}))
    assert len(meta["state"]["lower_bounds"]) == 4 or "n_iter" in change.get("state", {})
    path = tmp_path / "semi.bkm"
    seal(path, meta, entries)
    refused(path, *words)


def test_a_semi_supervised_section_holds_only_its_fields(tmp_path: Path, semi_file: Any) -> None:
    meta, entries = copy.deepcopy(semi_file)
    meta["state"]["inner"]["checksum"] = "0" * 64
    seal(tmp_path / "semi.bkm", meta, entries)
    refused(tmp_path / "semi.bkm", "state.inner holds the field 'checksum'")
