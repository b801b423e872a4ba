"""Nothing a command writes can cost the user a file: never an input, an existing file only
when it is what the command writes (or with --force), errors name the path given (never a
temporary file), a model is written only if it loads back, and Ctrl-C — starting up, reading,
fitting or saving — ends with exit code 130, one line, and nothing half-written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bayeskit.cli.output
import bayeskit.cli.streaming
import bayeskit.cli.train
import bayeskit.io.model_file
import bayeskit.io.stream
from bayeskit.errors import ModelFileError

from .test_errors import _one_line_error


@pytest.fixture
def table(tmp_path) -> Path:
    path = tmp_path / "data.csv"
    path.write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n2,2,x\n8,9,y\n")
    return path


def test_refuses_to_write_over_its_input(cli, table):
    before = table.read_bytes()
    for extra in ([], ["--force"]):
        line = _one_line_error(
            cli("train", table, "-t", "label", "-o", table, *extra), f"{table}: is the input"
        )
        assert "write the output to another file" in line
    assert table.read_bytes() == before


def test_refuses_to_replace_a_file_it_did_not_write_unless_forced(cli, table, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    _one_line_error(
        cli("train", table, "-t", "label", "-o", notes),
        f"{notes}: the file exists and is not a bayeskit model file",
        "pass --force to replace it",
    )
    assert notes.read_text() == "my notes"
    forced = cli("train", table, "-t", "label", "-o", notes, "--force")
    assert forced.exit_code == 0, forced.stderr
    assert bayeskit.cli.output.is_model_file(notes)


def test_replaces_its_own_kind_of_file(cli, table, tmp_path):
    model = tmp_path / "m.bk"
    for _ in range(2):  # a model file is replaced by a model file without --force
        result = cli("train", table, "-t", "label", "-o", model)
        assert result.exit_code == 0, result.stderr
    predictions = tmp_path / "p.csv"
    for _ in range(2):
        result = cli("predict", model, table, "--ignore", "label", "-o", predictions)
        assert result.exit_code == 0, result.stderr
    assert predictions.read_text().startswith("label,p_x,p_y\n")
    page = tmp_path / "r.html"
    for _ in range(2):
        result = cli("report", table, "-t", "label", "--folds", 2, "-o", page)
        assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("command", ["predict", "report"])
def test_other_outputs_are_protected_too(cli, table, tmp_path, command):
    model = tmp_path / "m.bk"
    assert cli("train", table, "-t", "label", "-o", model).exit_code == 0
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    args = {
        "predict": ["predict", model, table, "--ignore", "label", "-o"],
        "report": ["report", table, "-t", "label", "-o"],
    }[command]
    _one_line_error(cli(*args, other), f"{other}: the file exists", "--force")
    assert other.read_text() == "a,b\n1,2\n"
    _one_line_error(cli(*args, table), f"{table}: is the input")
    if command == "predict":
        _one_line_error(cli(*args, model, "--to", "csv"), f"{model}: is the input")


def test_refuses_a_path_inside_an_input_folder(cli, tmp_path):
    for label, words in (("ham", "see you at lunch then"), ("spam", "win a free prize now")):
        (tmp_path / "mail" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "mail" / label / f"{i}.txt").write_text(f"{words} {i}")
    inside = tmp_path / "mail" / "ham" / "model.bk"
    _one_line_error(cli("train", tmp_path / "mail", "-o", inside), "is inside the input")
    assert not inside.exists()


def test_errors_name_the_path_given_not_a_temporary_file(cli, table, tmp_path, monkeypatch):
    target = tmp_path / "m.bk"

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".m.bk.x1y2.tmp"))

    monkeypatch.setattr(bayeskit.cli.output.tempfile, "mkstemp", refused)
    line = _one_line_error(cli("train", table, "-t", "label", "-o", target))
    assert line == f"bayeskit: error: {target}: cannot be written (permission denied)"
    assert ".tmp" not in line


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs a /sys folder (Linux)")
def test_a_read_only_system_folder(cli, table):
    line = _one_line_error(cli("train", table, "-t", "label", "-o", "/sys/x.bk"), "/sys/x.bk:")
    assert ".tmp" not in line
    assert not Path("/sys/x.bk").exists()


def test_a_model_that_would_not_load_back_is_not_written(cli, table, tmp_path, monkeypatch):
    def unreadable(path):
        raise ModelFileError(f"cannot load model file {os.fspath(path)!r}: arrays hold NaN")

    monkeypatch.setattr(bayeskit.io.model_file, "load", unreadable)
    target = tmp_path / "m.bk"
    _one_line_error(
        cli("train", table, "-t", "label", "-o", target),
        f"{target}: not written: the trained model does not load back (arrays hold NaN)",
    )
    assert sorted(os.listdir(tmp_path)) == ["data.csv"]


def test_a_table_of_extreme_numbers_trains_a_model_predict_reads(cli, tmp_path):
    """1e308 in a column: the model is written only if predict can read it (issue 10 §5)."""
    path = tmp_path / "big.csv"
    path.write_text("a,b,label\n1e308,2,x\n3,4,y\n-1e308,6,x\n7,8,y\n")
    model = tmp_path / "big.bk"
    trained = cli("train", path, "-t", "label", "-o", model)
    if trained.exit_code == 0:
        predicted = cli("predict", model, "-", input="a,b\n1,2\n")
        assert predicted.exit_code == 0, predicted.stderr
    else:
        # The library refuses 1e308 in a Gaussian column at fit, naming the cell (issue 10
        # §1); the command line's own check is the net behind it.
        line = _one_line_error(trained)
        named = "big.csv, row 1: column 'a' holds 1e+308"
        assert named in line or "does not load back" in line, line
        assert not model.exists()


# ------------------------------------------------------------------ Ctrl-C, in this process
def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("phase", ["reading", "fitting", "later batch", "saving"])
def test_ctrl_c_writes_nothing_and_says_so(cli, table, tmp_path, monkeypatch, phase):
    target = tmp_path / "m.bk"
    if phase == "reading":  # parsing a block of the table
        monkeypatch.setattr(bayeskit.io.stream.TableStream, "_parse", _interrupt)
    elif phase == "fitting":  # the first batch fits the model
        real = bayeskit.cli.streaming.build_model

        def interrupted_model(*args, **kwargs):
            model = real(*args, **kwargs)
            model.partial_fit = _interrupt
            return model

        monkeypatch.setattr(bayeskit.cli.streaming, "build_model", interrupted_model)
    elif phase == "later batch":  # summarizing a batch after the first
        monkeypatch.setattr(bayeskit.cli.streaming, "summarize_batch", _interrupt)
    else:  # in the middle of writing the archive
        monkeypatch.setattr(bayeskit.io.model_file, "_write_archive", _interrupt)
    result = cli("train", table, "-t", "label", "-o", target, "--batch-size", 2)
    assert result.exit_code == 130
    assert result.stderr == "bayeskit: interrupted; nothing written\n"
    assert result.stdout == ""
    assert sorted(os.listdir(tmp_path)) == ["data.csv"]  # no model, no temporary file


def test_ctrl_c_after_the_model_is_written_says_what_was_written(cli, table, tmp_path, monkeypatch):
    target = tmp_path / "m.bk"
    monkeypatch.setattr(bayeskit.cli.output, "out_console", _interrupt)  # train prints
    result = cli("train", table, "-t", "label", "-o", target)
    assert result.exit_code == 130
    assert result.stderr == f"bayeskit: interrupted; wrote {target} before that\n"
    assert bayeskit.cli.output.is_model_file(target)


# ------------------------------------------------------------------ Ctrl-C, a real signal
def _mapped(pid: int, needle: str) -> bool:
    try:
        return needle in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(
    "stage",
    [
        # starting up: importing numpy (the command's own modules load next)
        "_multiarray_umath",
        # reading the table (polars' library is mapped when the reader starts)
        "polars",
    ],
)
def test_sigint_at_any_stage_exits_130_with_one_line(tmp_path, stage):
    rows = "\n".join(f"{i % 97},{(i * 7) % 13},{'xy'[i % 2]}" for i in range(200_000))
    data = tmp_path / "big.csv"
    data.write_text("a,b,label\n" + rows + "\n")
    target = tmp_path / "m.bk"
    child = subprocess.Popen(
        [sys.executable, "-m", "bayeskit.cli", "train", data, "-t", "label", "-o", target],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not _mapped(child.pid, stage) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    if child.returncode == 0:
        pytest.skip("the command finished before the signal arrived")
    assert child.returncode == 130, err
    assert err == "bayeskit: interrupted; nothing written\n"
    assert out == ""
    assert sorted(os.listdir(tmp_path)) == ["big.csv"]
