"""--unlabeled documents that hold no term (empty files) are learnt from as such."""

from __future__ import annotations

import pytest

import bayeskit as bk


@pytest.mark.parametrize("batch", [[], ["--batch-size", "1"]])
def test_unlabelled_files_that_are_all_empty(cli, tmp_path, batch):
    labelled = tmp_path / "labelled"
    for label, texts in {
        "spam": ["win cash now", "free prize now", "cash prize"],
        "ham": ["lunch at noon", "see you at lunch", "meeting at noon"],
    }.items():
        (labelled / label).mkdir(parents=True)
        for i, text in enumerate(texts):
            (labelled / label / f"{i}.txt").write_text(text)
    empty = tmp_path / "empty"
    empty.mkdir()
    for name in ("a.txt", "b.txt"):
        (empty / name).write_text("")
    out = tmp_path / "m.bkm"
    # a folder of nothing but empty files: refused by name, nothing written
    result = cli("train", labelled, "--unlabeled", empty, "-o", out, *batch)
    assert result.exit_code == 2
    assert "every file in the folder is empty" in result.stderr
    assert "internal error" not in result.stderr
    assert not out.exists()
    # beside one document: batches of empty files alone are learnt from (evidence of nothing)
    (empty / "c.txt").write_text("cash prize lunch")
    result = cli("train", labelled, "--unlabeled", empty, "-o", out, *batch)
    assert result.exit_code == 0, result.stderr
    model = bk.load(out)
    assert model.predict(["cash prize", "lunch meeting"]).tolist() == ["spam", "ham"]
