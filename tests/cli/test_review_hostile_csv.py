"""Hostile table files on the command line: what a spreadsheet, R or a text editor writes
(blank lines before the header, a byte-order mark alone, ...) trains the model the same
file without them trains, or is refused by one line naming the file and the fix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.io.readers import read_table
from bayeskit.io.stream import TableStream

_ROWS = "".join(
    f"{x},{c},{y}\n"
    for x, c, y in [
        (0.1, "red", "a"),
        (0.3, "red", "a"),
        (-0.2, "blue", "a"),
        (2.9, "blue", "b"),
        (3.4, "green", "b"),
        (3.1, "green", "b"),
    ]
)
_TABLE = "x,color,label\n" + _ROWS


def _probabilities(path):
    model = bk.load(path)
    X = read_table(_TABLE.encode(), format="csv").drop("label")
    return model.classes_.tolist(), model.predict_proba(X)


@pytest.mark.parametrize(
    "padded",
    [
        "\n" + _TABLE,
        "\n\n" + _TABLE,
        "\r\n" + _TABLE.replace("\n", "\r\n"),
        "\ufeff\n" + _TABLE,
        _TABLE.replace("label\n", "label\n\n"),
        _TABLE.replace("label\n", "label\r\n\r\n").replace("b\n", "b\r\n"),
    ],
)
@pytest.mark.parametrize("batch", [None, "2"])
def test_blank_lines_around_the_header_train_the_same_model(cli, tmp_path, padded, batch):
    """train reads a CSV in batches. Blank lines before the header: it took the block after
    the first one for the rows, so the header became a row of class 'label' (or an internal
    error); a blank line after the header: polars' 'column names specified in schema not
    found', where predict read the file."""
    plain, blank = tmp_path / "plain.csv", tmp_path / "padded.csv"
    plain.write_text(_TABLE)
    blank.write_bytes(padded.encode())
    size = ["--batch-size", batch] if batch else []
    for path in (plain, blank):
        result = cli("train", path, "-t", "label", "-o", path.with_suffix(".bk"), *size)
        assert result.exit_code == 0, result.output
        assert "classes: a 3, b 3" in result.output
    classes, expected = _probabilities(plain.with_suffix(".bk"))
    got_classes, got = _probabilities(blank.with_suffix(".bk"))
    assert got_classes == classes == ["a", "b"]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    leading=st.integers(0, 3),
    lines=st.lists(
        st.one_of(st.just(None), st.sampled_from(["1,a,x", "2,,y", "NA,b,x", "4,,y"])),
        min_size=1,
        max_size=10,
    ),
    header=st.booleans(),
    batch_size=st.integers(1, 4),
)
def test_training_in_batches_reads_the_rows_read_table_reads(
    tmp_path_factory, leading, lines, header, batch_size
):
    if all(line is None for line in lines):
        return
    body = "".join("\n" if line is None else line + "\n" for line in lines)
    data = "\n" * leading + ("a,b,label\n" if header else "") + body
    path = tmp_path_factory.mktemp("blank") / "t.csv"
    path.write_text(data)
    options = {} if header else {"header": False}
    target = "label" if header else "column_3"
    expected = read_table(path, **options)
    stream = TableStream(path, target=target, batch_size=batch_size, **options)
    rows, labels = [], []
    for batch in stream:
        rows += batch.X.rows()
        labels += batch.y.tolist()
    assert rows == expected.drop(target).rows()
    assert labels == expected.get_column(target).to_list()


def test_a_ragged_row_after_blank_lines_is_named_by_its_line(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("\n\nx,color,label\n1,red,a\n2,red\n3,blue,b\n")
    for command in (["train", path, "-t", "label", "-o", tmp_path / "m.bk"], ["predict"]):
        if command == ["predict"]:
            model = tmp_path / "base.bk"
            (tmp_path / "base.csv").write_text(_TABLE)
            assert cli("train", tmp_path / "base.csv", "-t", "label", "-o", model).exit_code == 0
            command = ["predict", model, path]
        result = cli(*command)
        assert result.exit_code == 2, result.output
        assert "t.csv, line 5: 2 fields where the header has 3" in result.output
    headless = tmp_path / "h.csv"
    headless.write_text("\n\n1,red,a\n2,red\n3,blue,b\n")
    result = cli("train", headless, "--no-header", "-t", "column_3", "-o", tmp_path / "h.bk")
    assert result.exit_code == 2, result.output
    assert "h.csv, line 4: 2 fields where line 3 has 3" in result.output


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n\r\n"])
def test_a_byte_order_mark_alone_is_an_empty_file(cli, tmp_path, data):
    """Excel saves an empty sheet as "CSV UTF-8" as the mark alone: an internal error."""
    path = tmp_path / "empty.csv"
    path.write_bytes(data)
    (tmp_path / "base.csv").write_text(_TABLE)
    model = tmp_path / "m.bk"
    assert cli("train", tmp_path / "base.csv", "-t", "label", "-o", model).exit_code == 0
    runs = [
        (cli("train", path, "-t", "label", "-o", tmp_path / "x.bk"), "empty.csv"),
        (cli("train", path, "-t", "label", "-o", tmp_path / "x.bk", "--batch-size", "2"), None),
        (cli("predict", model, path), "empty.csv"),
        (cli("predict", model, "-", input=data), "<stdin>"),
    ]
    for result, name in runs:
        assert result.exit_code == 2, result.output
        assert f"{name or 'empty.csv'}: the file is empty" in result.output
    assert not (tmp_path / "x.bk").exists()


@pytest.mark.parametrize("module", ["bayeskit", "bayeskit.cli"])
def test_ctrl_c_ends_python_m_bayeskit_with_status_130(tmp_path, module):
    """Run as ``python -m``, CPython ended the process by SIGINT (status -2 to a parent, not
    130) when the KeyboardInterrupt the command caught had ended a string ``exec`` (as it does
    in the dataclasses and named tuples built while a command imports its libraries). Here
    the interrupt is raised inside such an ``exec`` while predict reads its input."""
    import os
    import subprocess
    import sys

    import bayeskit

    (tmp_path / "base.csv").write_text(_TABLE)
    model = tmp_path / "m.bk"
    X = read_table(_TABLE.encode(), format="csv")
    bk.save(bk.MixedNB().fit(X.drop("label").to_pandas(), X["label"].to_numpy()), model)
    (tmp_path / "sitecustomize.py").write_text(
        "import bayeskit.io.readers as readers\n"
        "def _interrupted(*args, **kwargs):\n"
        "    exec('raise KeyboardInterrupt')\n"
        "readers.read_table = _interrupted\n"
    )
    source = os.path.dirname(os.path.dirname(bayeskit.__file__))
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(tmp_path), source])}
    run = subprocess.run(
        [sys.executable, "-m", module, "predict", model, tmp_path / "base.csv"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 130, run.stderr
    assert run.stderr.strip().endswith("bayeskit: interrupted; nothing written")


def test_a_number_column_with_wekas_question_mark_is_named_not_dropped_as_an_id(cli, tmp_path):
    """Weka writes a missing value '?'. Read as text, a column of distinct decimals with one
    '?' was taken for a row ID ('a different value in every row') and left out of the model."""
    rng = np.random.default_rng(0)
    rows = [(f"{rng.normal(3 * (i % 2)):.4f}", "ab"[i % 2]) for i in range(40)]
    rows[6] = ("?", rows[6][1])
    path = tmp_path / "weka.csv"
    path.write_text("x,label\n" + "".join(f"{x},{y}\n" for x, y in rows))
    result = cli("train", path, "-t", "label", "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.output
    assert "looks like a row ID" not in result.output
    assert (
        "note: column 'x' holds numbers and '?' (1 row, the first data row 7): read as text, "
        "each value a category, not a number; if '?' marks a missing value, pass --missing '?'"
    ) in result.output
    assert bk.load(tmp_path / "m.bk").n_features_in_ == 1
    named = cli("train", path, "-t", "label", "--missing", "?", "-o", tmp_path / "n.bk")
    assert named.exit_code == 0, named.output
    assert "holds numbers and" not in named.output
    assert "families: gaussian (1): x" in named.output


def test_a_latin1_byte_in_the_header_is_named_by_its_line(cli, tmp_path):
    """The header was decoded with replacement characters: a column named 'caf\ufffd' (and
    two Latin-1 names differing only in their accents, 'the header names a column twice')."""
    path = tmp_path / "latin1.csv"
    path.write_bytes("x,café,label\n1,2,a\n3,4,b\n1,3,a\n".encode("latin-1"))
    (tmp_path / "base.csv").write_text(_TABLE)
    model = tmp_path / "m.bk"
    assert cli("train", tmp_path / "base.csv", "-t", "label", "-o", model).exit_code == 0
    message = "line 1: byte 0xe9 at column 6 is not UTF-8 text; save the file as UTF-8"
    runs = {
        "train": cli("train", path, "-t", "label", "-o", tmp_path / "l.bk"),
        "train in batches": cli(
            "train", path, "-t", "label", "-o", tmp_path / "l.bk", "--batch-size", "1"
        ),
        "predict": cli("predict", model, path),
        "predict standard input": cli("predict", model, "-", input=path.read_bytes()),
    }
    for what, result in runs.items():
        assert result.exit_code == 2, (what, result.output)
        assert message in result.output, (what, result.output)
    assert not (tmp_path / "l.bk").exists()
