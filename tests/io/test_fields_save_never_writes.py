"""A model file holding what ``save`` never writes for its model is refused, as the model-files
guide says: before, a ``state`` on a model without a column layout, a ``fitted`` record on a
model without one, and extra keys in a value list (the classes) were read past in silence.
And a path naming no file is refused by name before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import SaveError

from ._refusal import parts, refused, seal


def _saved(tmp_path):
    path = tmp_path / "g.bkm"
    rng = np.random.default_rng(0)
    bk.save(bk.GaussianNB().fit(rng.random((10, 2)), [0, 1] * 5), path)
    return path


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda m: m.__setitem__("state", {"type": "list", "items": [1, 2]}), ["column layout"]),
        (lambda m: m.__setitem__("fitted", {"type": "list", "items": ["x"]}), ["fitted record"]),
        (lambda m: m["classes"].__setitem__("junk", 1), ["'junk'", "not written by save"]),
    ],
    ids=["state", "fitted", "classes-key"],
)
def test_a_field_save_never_writes_is_refused(tmp_path, change, words):
    path = _saved(tmp_path)
    meta, entries = parts(path)
    change(meta)
    crafted = tmp_path / "crafted.bkm"
    seal(crafted, meta, entries)
    refused(crafted, *words)
    bk.load(path)  # the file as saved loads


@pytest.mark.parametrize(
    ("target", "why"), [("", "it is empty"), ("sub/", "it ends in a folder separator")]
)
def test_a_path_naming_no_file_is_refused_by_name(tmp_path, monkeypatch, target, why):
    """``""`` named the folder above the working one: the save failed saying that folder did
    not exist."""
    monkeypatch.chdir(tmp_path)
    model = bk.GaussianNB().fit(np.random.default_rng(0).random((10, 2)), [0, 1] * 5)
    with pytest.raises(SaveError, match=f"the path names no file .{why}"):
        bk.save(model, target)
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary file


def test_a_text_models_layout_must_be_its_vectorizers(tmp_path):
    """A TextClassifier's column layout is its fitted vectorizer's (idf weights here); a file
    whose stored layout says other columns is refused."""
    from bayeskit.text import TextClassifier

    docs = ["cheap pills now", "meeting at noon", "cheap watches", "lunch at noon"]
    path = tmp_path / "t.bkm"
    bk.save(TextClassifier.twcnb().fit(docs, ["s", "h", "s", "h"]), path)
    meta, entries = parts(path)
    meta["state"]["items"][1] = "0" * 64  # another digest of the columns
    crafted = tmp_path / "crafted.bkm"
    seal(crafted, meta, entries)
    refused(crafted, "column layout", "not its vectorizer's")
    bk.load(path)
