"""An mbox file in a class folder of a text collection holds one document per message, as it
does in an e-mail collection (it was read as one document, all its messages together)."""

from __future__ import annotations

import numpy as np

import bayeskit as bk
from bayeskit.io.documents import read_class_folders
from bayeskit.io.stream import DocumentStream

BOX = (
    b"From a@example.org  Mon Jan  1 00:00:00 2024\nSubject: one\n\nwin cash prize now\n\n"
    b"From b@example.org  Tue Jan  2 00:00:00 2024\nSubject: two\n\nfree cash today\n\n"
    b"From c@example.org  Wed Jan  3 00:00:00 2024\nSubject: three\n\nclaim your prize\n"
)


def _collection(root):
    for label, texts in {
        "spam": ["win a free prize", "cash now", "free cash prize"],
        "ham": ["lunch at noon", "see you at lunch", "the meeting moved", "notes attached"],
    }.items():
        (root / label).mkdir(parents=True)
        for i, text in enumerate(texts):
            (root / label / f"{i}.txt").write_text(text)
    (root / "spam" / "archive").write_bytes(BOX)
    return root


def test_read_whole(tmp_path):
    docs = read_class_folders(_collection(tmp_path / "c"))
    assert docs.kind == "text"
    assert len(docs.docs) == 7 + 3
    boxed = [n for n in docs.names if n.startswith("spam/archive#")]
    assert boxed == ["spam/archive#1", "spam/archive#2", "spam/archive#3"]
    texts = dict(zip(docs.names, docs.docs, strict=True))
    assert "free cash today" in texts["spam/archive#2"]
    assert "win cash prize" not in texts["spam/archive#2"]
    assert np.sum(docs.labels == "spam") == 6


def test_read_in_batches_as_whole(tmp_path):
    root = _collection(tmp_path / "c")
    whole = read_class_folders(root)
    docs, labels = [], []
    for batch in DocumentStream(root, batch_size=2):
        docs.extend(batch.X)
        labels.extend(batch.y)
    assert sorted(docs) == sorted(whole.docs)
    assert sorted(labels) == sorted(whole.labels.tolist())


def test_train_counts_each_message(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    runner = CliRunner()

    def cli(*args):
        return runner.invoke(app, [str(a) for a in args])

    root = _collection(tmp_path / "c")
    for batch in ([], ["--batch-size", "2"]):
        out = tmp_path / f"m{len(batch)}.bk"
        result = cli("train", root, "-o", out, *batch)
        assert result.exit_code == 0, result.stderr
        assert "10 documents" in result.stdout
        assert bk.load(out).fitted_parts()[1].class_count_.sum() == 10
