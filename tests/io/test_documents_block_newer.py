"""A text model's documents block holding a field or an array this bayeskit does not write (a
newer bayeskit's) is refused by name, as every other statistic block of a model file is:
the block's own meta and its count statistic's meta and arrays were read without looking at
what else they held."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bayeskit as bk
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from ._refusal import parts, refused, seal

TRAIN = ["free prize call now", "win cash now", "see you at lunch", "lunch at noon ok"] * 5
LABELS = ["spam", "spam", "ham", "ham"] * 5


def _per_term(path: Path) -> None:
    model = SpamFilter(vectorizer=TextVectorizer(), model=bk.MultinomialNB(alpha=0.5))
    bk.save(model.fit(TRAIN, LABELS), path)


def _fixed(path: Path) -> None:
    bk.save(TextClassifier.twcnb().fit(TRAIN, LABELS), path)


def _meta(field: str) -> Any:
    def edit(meta: dict[str, Any], entries: dict[str, bytes]) -> None:
        block = meta["blocks"][0]["meta"]
        node = block if field == "" else block[field]
        node["future"] = 1

    return edit


def _array(prefix: str) -> Any:
    def edit(meta: dict[str, Any], entries: dict[str, bytes]) -> None:
        arrays = meta["blocks"][0]["arrays"]
        some = next(k for k in arrays if k.startswith(prefix))
        arrays[prefix + "future"] = "block0.future.npy"
        entries["block0.future.npy"] = entries[arrays[some]]

    return edit


CASES = {
    "per-term block meta": (_per_term, _meta(""), "'future'"),
    "per-term count statistic meta": (_per_term, _meta("keyed"), "'meta keyed.future'"),
    "per-term count statistic array": (_per_term, _array("keyed."), "'keyed.future'"),
    "fixed block meta": (_fixed, _meta(""), "'future'"),
    "fixed count statistic meta": (_fixed, _meta("count"), "'meta count.future'"),
    "fixed count statistic array": (_fixed, _array("count."), "'count.future'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_part_this_version_does_not_write_is_refused(tmp_path: Path, case: str) -> None:
    write, edit, named = CASES[case]
    path = tmp_path / "newer.bkm"
    write(path)
    bk.load(path)  # as written, it loads
    meta, entries = parts(path)
    edit(meta, entries)
    seal(path, meta, entries)
    refused(path, named, "does not write")
