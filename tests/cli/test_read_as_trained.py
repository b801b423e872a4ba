"""New data read as the training data was: a string category that looks like a number
(``0123``) stays the string at predict and in a held-out test file whatever the other rows
hold, and a file without a header row that lacks the training target's column is read by the
model's own columns, not shifted one place."""

from __future__ import annotations

import csv
import io
import os
import threading

import numpy as np
import pytest
from typer.testing import CliRunner

from bayeskit.cli.app import app


def _run(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _probabilities(out: str) -> list[list[str]]:
    return [row[1:] for row in csv.reader(io.StringIO(out))][1:]


@pytest.fixture
def codes(tmp_path):
    """Codes with leading zeros beside one that is no number: the column is text."""
    rows = ["code,x,y"]
    for i in range(40):
        y = "ab"[i % 2]
        code = "X9" if i % 10 == 0 else ("0123" if y == "a" else "0456")
        rows.append(f"{code},{(i * 7) % 5},{y}")
    (tmp_path / "codes.csv").write_text("\n".join(rows) + "\n")
    _run("train", tmp_path / "codes.csv", "-t", "y", "-o", tmp_path / "codes.bk")
    return tmp_path


def test_a_string_category_that_looks_like_a_number_stays_a_string(codes):
    (codes / "two.csv").write_text("code,x\n0123,2\n0456,2\n")
    (codes / "three.csv").write_text("code,x\n0123,2\n0456,2\nX9,2\n")
    two = _probabilities(_run("predict", codes / "codes.bk", codes / "two.csv"))
    three = _probabilities(_run("predict", codes / "codes.bk", codes / "three.csv"))
    assert two == three[:2]  # a row's prediction does not depend on the file's other rows
    assert float(two[0][0]) > 0.99  # 0123 is class a's code (read as 123 it was unseen: 0.5)


def test_a_held_out_file_reads_the_training_files_string_columns_as_strings(codes):
    (codes / "test.csv").write_text("code,x,y\n0123,2,a\n0456,1,b\n0123,3,a\n0456,0,b\n")
    out = _run("evaluate", codes / "codes.csv", "-t", "y", "--test", codes / "test.csv", "--json")
    assert '"accuracy": 1.0' in out


def test_a_headerless_file_without_the_target_is_read_by_the_models_columns(tmp_path):
    rows = "p,a,a,c\ne,c,a,a\np,c,c,c\ne,a,b,a\np,c,c,b\ne,a,a,c\np,b,c,c\ne,a,a,b\n"
    (tmp_path / "m.data").write_text(rows)
    (tmp_path / "new.data").write_text("".join(r.split(",", 1)[1] + "\n" for r in rows.split()))
    model = tmp_path / "m.bk"
    _run("train", tmp_path / "m.data", "-f", "csv", "--no-header", "-t", "column_1", "-o", model)
    labelled = _run("predict", model, tmp_path / "m.data", "-f", "csv")
    unlabelled = _run("predict", model, tmp_path / "new.data", "-f", "csv")
    assert unlabelled == labelled


def test_integers_beyond_64_bits_are_read_as_codes(tmp_path):
    # 20-digit account or SIM card numbers: polars reads them as 128-bit integers, which
    # numpy cannot hold (an internal error before)
    rng = np.random.default_rng(1)
    accounts = [89000000000000000000 + int(v) for v in rng.integers(0, 10**9, 40)]
    rows = ["account,amount,y"]
    rows += [f"{a},{(i * 37) % 11 / 10},{'ab'[i % 2]}" for i, a in enumerate(accounts)]
    (tmp_path / "acct.csv").write_text("\n".join(rows) + "\n")
    _run("train", tmp_path / "acct.csv", "-t", "y", "-o", tmp_path / "acct.bk")
    _run("evaluate", tmp_path / "acct.csv", "-t", "y")
    (tmp_path / "new.csv").write_text(f"account,amount\n{accounts[0]},0.3\n")
    out = _run("predict", tmp_path / "acct.bk", tmp_path / "new.csv", "--id", "account")
    assert out.splitlines()[1].startswith(f"{accounts[0]},")  # the row ID, as written


def test_a_headerless_file_is_read_by_the_training_files_columns_less_the_target(tmp_path):
    # an ID column left out of the model, and names given by --columns: the file without
    # the target still lines up with the training file's columns
    rows = [f"{1000 + i},{'ep'[i % 2]},{'abc'[i % 3]},{'ab'[(i // 2) % 2]}" for i in range(24)]
    (tmp_path / "m.data").write_text("\n".join(rows) + "\n")
    (tmp_path / "new.data").write_text(
        "\n".join(r.split(",")[0] + "," + ",".join(r.split(",")[2:]) for r in rows) + "\n"
    )
    for naming in (
        ["--no-header", "-t", "column_2"],
        ["--columns", "id,y,a,b", "-t", "y"],
    ):
        model = tmp_path / "m.bk"
        _run("train", tmp_path / "m.data", "-f", "csv", *naming, "-o", model)
        labelled = _run("predict", model, tmp_path / "m.data", "-f", "csv")
        unlabelled = _run("predict", model, tmp_path / "new.data", "-f", "csv")
        assert unlabelled == labelled


def test_a_held_out_file_reads_string_labels_that_look_like_numbers_as_strings(tmp_path):
    rows = ["x,y"] + [f"{i % 7},{['01', '02', 'X9'][i % 3]}" for i in range(30)]
    (tmp_path / "train.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "test.csv").write_text("x,y\n1,01\n2,02\n4,01\n")
    _run("evaluate", tmp_path / "train.csv", "-t", "y", "--test", tmp_path / "test.csv")


@pytest.fixture
def target_first(tmp_path):
    """A model trained on a file without a header whose first column is the target, and the
    same rows without it (every column one place to the left of the training file's)."""
    rows = [f"{'ep'[i % 2]},{'abc'[i % 3]},{(i * 7) % 5},{'ab'[(i // 2) % 2]}" for i in range(24)]
    (tmp_path / "m.data").write_text("\n".join(rows) + "\n")
    new = "".join(r.split(",", 1)[1] + "\n" for r in rows)
    (tmp_path / "new.data").write_text(new)
    model = tmp_path / "m.bk"
    _run("train", tmp_path / "m.data", "-f", "csv", "--no-header", "-t", "column_1", "-o", model)
    return model, new, _run("predict", model, tmp_path / "new.data", "-f", "csv")


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd (a shell's <(...))")
def test_a_headerless_pipe_is_read_once(target_first):
    # `bayeskit predict m.bk <(zcat new.gz)`: a pipe gives its bytes once; a second read of
    # it finds nothing (and a FIFO's second open waits for a writer that never comes)
    model, new, from_file = target_first
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=_write_and_close, args=(write_end, new.encode()))
    writer.start()
    try:
        result = CliRunner().invoke(
            app, ["predict", str(model), f"/dev/fd/{read_end}", "-f", "csv"]
        )
    finally:
        writer.join()
        os.close(read_end)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == from_file


def test_a_headerless_standard_input_is_read_by_the_models_columns(target_first):
    # standard input, read once, gets the file's reading: not shifted one place
    model, new, from_file = target_first
    result = CliRunner().invoke(app, ["predict", str(model), "-"], input=new)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == from_file
    assert "training target" not in result.stderr


def _write_and_close(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as pipe:
        pipe.write(data)
