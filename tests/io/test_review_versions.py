"""Model files across bayeskit's versions: a file an earlier version wrote loads and predicts
as it did when saved, or is refused by a ModelFileVersionError naming its format version,
the ones this bayeskit reads and how to rebuild it; a file of a newer format is refused naming
both versions.

``old_files/`` holds files written by earlier commits of bayeskit (``write_old_files.py``,
small generated tables) with the probabilities and labels each predicted when it was saved
(``expected.json``). The other tests build an "old" file by rewriting a current one's
meta.json the way the earlier version wrote it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import ModelFileError, ModelFileVersionError
from bayeskit.io.model_file import FORMAT_VERSION

from ._refusal import parts, refused, seal

OLD = Path(__file__).parent / "old_files"
EXPECTED = json.loads((OLD / "expected.json").read_text())
LOADS = sorted(name for name, e in EXPECTED["files"].items() if "proba" in e)
REFUSED = sorted(name for name, e in EXPECTED["files"].items() if e.get("refused"))


def _rows(entry: dict[str, Any]) -> Any:
    rows = EXPECTED["inputs"][entry["input"]]
    return rows if entry["input"] == "docs" else np.asarray(rows, dtype=float)


@pytest.mark.parametrize("name", LOADS)
def test_an_earlier_versions_file_predicts_as_when_it_was_saved(name: str) -> None:
    entry = EXPECTED["files"][name]
    model = bk.load(OLD / name)
    rows = _rows(entry)
    np.testing.assert_allclose(
        model.predict_proba(rows), np.asarray(entry["proba"]), rtol=0, atol=1e-12
    )
    assert np.asarray(model.predict(rows)).astype(str).tolist() == entry["predict"]


@pytest.mark.parametrize("name", REFUSED)
def test_an_earlier_versions_file_this_one_would_read_otherwise_is_refused(name: str) -> None:
    with zipfile.ZipFile(OLD / name) as zf:  # the format version the file declares
        version = json.loads(zf.read("meta.json"))["format_version"]
    error = refused(
        OLD / name,
        f"format version {version}",
        f"reads format versions 1 to {FORMAT_VERSION}",
        "fit the model again",
    )
    assert isinstance(error, ModelFileVersionError)


def test_the_corpus_is_small() -> None:
    assert sum(p.stat().st_size for p in OLD.iterdir()) < 50_000
    assert LOADS
    assert REFUSED


# ------------------------------------------------------------------ rewritten current files
def _saved(model: Any, path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    bk.save(model, path)
    return parts(path)


def test_a_newer_format_version_is_refused_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "newer.bk"
    meta, entries = _saved(bk.MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]), path)
    meta["format_version"] = FORMAT_VERSION + 1
    seal(path, meta, entries)
    error = refused(
        path,
        f"format_version {FORMAT_VERSION + 1} needs a newer bayeskit",
        f"format versions up to {FORMAT_VERSION}",
    )
    assert isinstance(error, ModelFileVersionError)


_RNG = np.random.default_rng(4)
CATS = _RNG.integers(0, 3, size=(60, 4))
CAT_Y = np.where(CATS[:, 0] + _RNG.integers(0, 2, 60) > 1, "x", "y")


def test_a_tan_file_from_before_edge_weight_loads_as_it_was_fitted(tmp_path: Path) -> None:
    """TANClassifier weighed its tree's edges by the conditional mutual information before
    edge_weight existed (default now: the Bayesian Dirichlet gain); a file without the
    setting is one of those, and loads as it was fitted."""
    cmi = bk.TANClassifier(edge_weight="cmi").fit(CATS, CAT_Y)
    bayes = bk.TANClassifier().fit(CATS, CAT_Y)
    assert not np.allclose(cmi.predict_proba(CATS), bayes.predict_proba(CATS))
    path = tmp_path / "tan.bk"
    meta, entries = _saved(cmi, path)
    del meta["params"]["edge_weight"]  # as written before the setting existed
    seal(path, meta, entries)
    loaded = bk.load(path)
    assert loaded.edge_weight == "cmi"
    np.testing.assert_array_equal(loaded.predict_proba(CATS), cmi.predict_proba(CATS))


MIXED = np.column_stack([np.random.default_rng(4).normal(size=(60, 2)), CATS[:, :2]])


def _without_category_alpha(meta: dict[str, Any]) -> None:
    state = meta["state"]
    at = state["keys"]["values"].index(["str", "category_alpha"])
    del state["keys"]["values"][at], state["items"][at]


@pytest.mark.parametrize("numeric", ["auto", "gaussian"])
def test_a_mixed_file_from_before_its_stored_pseudo_count_with_numbers_is_refused(
    tmp_path: Path, numeric: str
) -> None:
    """A MixedNB file storing no category_alpha was written before this version's Gaussian
    floor (each column's own) and its rule choosing families for numeric='auto': its numeric
    columns would be scored otherwise than when it was saved, so it is refused."""
    path = tmp_path / "mixed.bk"
    meta, entries = _saved(bk.MixedNB(numeric=numeric).fit(MIXED, CAT_Y), path)
    _without_category_alpha(meta)
    seal(path, meta, entries)
    error = refused(path, "MixedNB", "category_alpha", "format version 1", "fit the model again")
    assert isinstance(error, ModelFileVersionError)


def test_a_mixed_file_of_categories_from_before_its_stored_pseudo_count_loads(
    tmp_path: Path,
) -> None:
    words = CATS.astype(str)  # categories only: no numeric column
    laplace = bk.MixedNB(options={"categorical": {"alpha": 1.0}}).fit(words, CAT_Y)
    path = tmp_path / "mixed.bk"
    meta, entries = _saved(bk.MixedNB().fit(words, CAT_Y), path)
    _without_category_alpha(meta)
    seal(path, meta, entries)
    np.testing.assert_allclose(
        bk.load(path).predict_proba(words), laplace.predict_proba(words), rtol=1e-12, atol=0
    )


def test_a_poisson_file_of_moments_is_refused_as_an_earlier_versions(tmp_path: Path) -> None:
    """PoissonNB and BinomialNB kept moments before their counts: such a file is refused by
    version (a crafted mismatch of another kind stays a plain ModelFileError)."""
    X = np.random.default_rng(5).poisson(3, size=(30, 3)).astype(float)
    y = np.array(["a", "b", "c"] * 10)
    path = tmp_path / "poisson.bk"
    meta, entries = _saved(bk.PoissonNB().fit(X, y), path)
    gaussian, gaussian_entries = _saved(bk.GaussianNB().fit(X, y), tmp_path / "g.bk")
    meta["blocks"] = gaussian["blocks"]  # moments, as PoissonNB wrote them
    entries = {**{k: v for k, v in entries.items() if not k.startswith("block")}}
    entries |= {k: v for k, v in gaussian_entries.items() if k.startswith("block")}
    seal(path, meta, entries)
    error = refused(path, "PoissonNB", "'moments'", "format version 1", "fit the model again")
    assert isinstance(error, ModelFileVersionError)
    meta["estimator"], meta["params"] = "GaussianMixtureClassifier", {}
    seal(path, meta, entries)
    error = refused(path)
    assert not isinstance(error, ModelFileVersionError)


DOCS = ["cheap pills now", "meeting at noon", "win money free", "project report lunch"] * 3
LABELS = ["spam", "ham", "spam", "ham"] * 3


@pytest.mark.parametrize("cls", [bk.text.TextClassifier, bk.text.SpamFilter])
def test_a_version_2_text_file_of_unrecorded_defaults_is_refused(tmp_path: Path, cls: type) -> None:
    """A text classifier of format version 2 saved with vectorizer=None or model=None holds
    the defaults of the bayeskit that wrote it, which changed within version 2: refused. With
    its settings written out it loads as saved (tests/io/test_text_state_files.py)."""
    from bayeskit.io import _text_state

    source = next(Path(__file__).parent.glob("text_state_files/v2-spam-filter.bkm"))
    meta, entries = parts(source)
    assert meta["format_version"] == _text_state.TEXT_FORMAT_VERSION
    meta["estimator"] = cls.__name__
    params = cls().get_params(deep=False)
    meta["params"] = {k: v for k, v in meta["params"].items() if k in params}
    meta["params"]["vectorizer"] = None
    if cls is bk.text.TextClassifier:
        meta["state"].pop("score_counts", None)
        entries = {k: v for k, v in entries.items() if "score_counts" not in k}
    path = tmp_path / "v2.bk"
    seal(path, meta, entries)
    error = refused(path, "vectorizer=None", "format version 2", "fit the model again")
    assert isinstance(error, ModelFileVersionError)
    assert isinstance(error, ModelFileError)
