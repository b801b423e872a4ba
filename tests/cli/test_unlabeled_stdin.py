"""``--unlabeled -`` reads the unlabelled documents from standard input, as a file of the same
bytes is read (EM reads them at every iteration: they are copied to a private file first)."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import bayeskit as bk

UNLABELLED = "cash prize now\nlunch at noon today\nfree cash\nmeeting at lunch\n\nprize prize\n"
PROBES = ["cash prize", "lunch meeting", "free noon", "today now"]


@pytest.fixture
def labelled(tmp_path):
    folder = tmp_path / "labelled"
    for label, texts in {
        "spam": ["win cash now", "free prize now", "cash prize"],
        "ham": ["lunch at noon", "see you at lunch", "meeting at noon"],
    }.items():
        (folder / label).mkdir(parents=True)
        for i, text in enumerate(texts):
            (folder / label / f"{i}.txt").write_text(text)
    return folder


def _leftovers() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "bayeskit-unlabeled-*")))


@pytest.mark.parametrize("batch", [[], ["--batch-size", "2"]])
def test_standard_input_is_read_as_the_same_file(cli, labelled, tmp_path, batch, monkeypatch):
    # a temporary folder of this test's own: another process's copy in the shared /tmp
    # would come and go during the test
    own = tmp_path / "tmp"
    own.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    made = []
    real = tempfile.TemporaryDirectory

    def recorded(*args, **kwargs):
        folder = real(*args, **kwargs)
        made.append(folder.name)
        return folder

    monkeypatch.setattr(tempfile, "TemporaryDirectory", recorded)
    file = tmp_path / "unlabelled.txt"
    file.write_text(UNLABELLED)
    before = _leftovers()
    assert before == set()
    from_file = cli("train", labelled, "--unlabeled", file, "-o", tmp_path / "f.bkm", *batch)
    assert from_file.exit_code == 0, from_file.stderr
    piped = cli(
        "train", labelled, "--unlabeled", "-", "-o", tmp_path / "p.bkm", *batch,
        input=UNLABELLED.encode(),
    )  # fmt: skip
    assert piped.exit_code == 0, piped.stderr
    assert "unlabelled: standard input — 5 documents" in piped.stdout
    expected = bk.load(tmp_path / "f.bkm").predict_proba(PROBES)
    np.testing.assert_allclose(bk.load(tmp_path / "p.bkm").predict_proba(PROBES), expected)
    assert _leftovers() == before  # the copy is removed
    assert not any(own.iterdir())
    copies = [m for m in made if os.path.basename(m).startswith("bayeskit-unlabeled-")]
    assert copies, "the piped documents were not copied where this test looks"
    assert all(m.startswith(str(own)) for m in copies)


def test_a_table_of_text_takes_standard_input(cli, tmp_path):
    table = tmp_path / "labelled.csv"
    table.write_text(
        "label,text\nspam,win cash now\nspam,free prize now\nham,lunch at noon\n"
        "ham,see you at lunch\n"
    )
    file = tmp_path / "unlabelled.txt"
    file.write_text(UNLABELLED)
    assert (
        cli(
            "train", table, "--target", "label", "--unlabeled", file, "-o", tmp_path / "f.bkm"
        ).exit_code
        == 0
    )
    piped = cli(
        "train",
        table,
        "--target",
        "label",
        "--unlabeled",
        "-",
        "-o",
        tmp_path / "p.bkm",
        input=UNLABELLED,
    )
    assert piped.exit_code == 0, piped.stderr
    np.testing.assert_allclose(
        bk.load(tmp_path / "p.bkm").predict_proba(PROBES),
        bk.load(tmp_path / "f.bkm").predict_proba(PROBES),
    )


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"", "standard input (--unlabeled -) is empty"),
        (b"  \n\n", "standard input (--unlabeled -) is blank"),
        (b"\0\1\2" * 100, "binary"),
    ],
)
def test_empty_or_binary_standard_input_is_refused(cli, labelled, tmp_path, stdin, message):
    out = tmp_path / "m.bkm"
    result = cli("train", labelled, "--unlabeled", "-", "-o", out, input=stdin)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "internal error" not in result.stderr
    assert not out.exists()


def test_standard_input_cannot_be_both_inputs(cli, tmp_path):
    out = tmp_path / "m.bkm"
    result = cli("train", "-", "--unlabeled", "-", "-o", out, input="label,text\nham,hi\n")
    assert result.exit_code == 2
    # DATA is never standard input (training reads it more than once): said before --unlabeled
    assert "-: DATA is read from a file or folder, not from standard input" in result.stderr
    assert not out.exists()


def test_a_real_pipe(labelled, tmp_path):
    out = tmp_path / "m.bkm"
    done = subprocess.run(
        [sys.executable, "-m", "bayeskit", "train", str(labelled), "--unlabeled", "-", "-o",
         str(out)],
        input=UNLABELLED.encode(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert bk.load(out).predict(["cash prize", "lunch meeting"]).tolist() == ["spam", "ham"]
