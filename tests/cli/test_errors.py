"""Every bad input: exit code 2, one line on standard error naming the file, line or column and
the fix, nothing on standard output, no output file left behind; a traceback only with
--debug."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bayeskit.cli.output
from bayeskit.cli.output import write_atomic
from bayeskit.io.readers import ReadError


def _one_line_error(result, *words: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ragged.csv").write_text("a,b,label\n1,2,x\n3,4,y\n5,6\n7,8,x\n")
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "one.csv").write_text("a,label\n1,x\n2,x\n3,x\n")
    (tmp_path / "ok.csv").write_text("a,b,label\nr,s,x\nr,t,y\nq,s,x\nq,t,y\n")
    (tmp_path / "data.xlsx").write_text("not a table bayeskit reads")
    (tmp_path / "fake.bk").write_text("hello, I am not a model")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["train", "{d}/absent.csv", "-t", "label"], ["absent.csv: no such file or folder"]),
        (["train", "{d}/data.xlsx", "-t", "label"], ["data.xlsx: unknown format", ".csv"]),
        (
            ["train", "{d}/ok.csv", "-t", "klass"],
            ["ok.csv: no column 'klass'", "columns are: a, b, label (if the first line"],
        ),
        (["train", "{d}/one.csv", "-t", "label"], ["one.csv: the target column 'label' has one"]),
        (
            ["train", "{d}/ragged.csv", "-t", "label"],
            ["ragged.csv, line 4: 2 fields where the header has 3"],
        ),
        (["train", "{d}/empty.csv", "-t", "label"], ["empty.csv: the file is empty"]),
        (["train", "{d}/ok.csv"], ["--target", "for example --target label (named like"]),
        (
            ["train", "{d}/ok.csv", "-t", "label", "--model", "nonsense"],
            ["bayeskit train: error:", "'nonsense' is not a model"],
        ),
        (["train", "{d}/ok.csv", "-t", "label", "--bogus"], ["No such option: --bogus"]),
        (["evaluate", "{d}/ok.csv", "-t", "label", "--folds", "1"], ["--folds 1", "at least 2"]),
        (["evaluate", "{d}/ok.csv", "-t", "label", "--cv", "1"], ["--folds 1", "at least 2"]),
        (
            ["evaluate", "{d}/ok.csv", "-t", "label", "--folds", "5"],
            ["largest class has 2 rows", "--folds 2"],
        ),
        (["report", "{d}/ragged.csv", "-t", "label"], ["ragged.csv, line 4"]),
    ],
)
def test_bad_data_fails_in_one_line_and_writes_nothing(cli, files, args, words):
    target = files / "out.file"
    args = [a.replace("{d}", str(files)) for a in args]
    if args[0] != "evaluate":
        args += ["-o", str(target)]
    _one_line_error(cli(*args), *words)
    assert not target.exists()
    assert not [p for p in os.listdir(files) if p.startswith(".")]  # no temporary file


def test_model_files_that_are_not_models(cli, files):
    line = _one_line_error(cli("predict", files / "fake.bk", files / "ok.csv"))
    assert "fake.bk" in line
    assert "not a bayeskit model file" in line
    assert "written by 'bayeskit train'" in line
    line = _one_line_error(cli("inspect", files / "absent.bk"))
    assert "absent.bk: no such model file" in line
    _one_line_error(cli("explain", files / "ok.csv", "a=1"), "ok.csv", "not a bayeskit model")


def test_predicting_with_other_columns_names_them(cli, files, tmp_path):
    model = tmp_path / "m.bk"
    assert cli("train", files / "ok.csv", "-t", "label", "-o", model).exit_code == 0
    (tmp_path / "other.csv").write_text("a,c\nr,1\n")
    out = tmp_path / "p.csv"
    line = _one_line_error(cli("predict", model, tmp_path / "other.csv", "-o", out))
    assert "the columns differ from the model's: missing 'b'; not in training 'c'" in line
    assert not out.exists()
    (tmp_path / "more.csv").write_text("a,b,extra\nr,1,2\n")
    line = _one_line_error(cli("predict", model, tmp_path / "more.csv"))
    assert "not in training 'extra'; leave them out (pass --ignore extra)" in line
    # the training target is the one extra column predict drops by itself (with a note)
    result = cli("predict", model, files / "ok.csv")
    assert result.exit_code == 0
    assert "column 'label' is the training target: ignored" in result.stderr
    assert cli("predict", model, files / "ok.csv", "--ignore", "label").exit_code == 0
    _one_line_error(cli("explain", model, "z=1"), "the model has no column 'z'", "a, b")
    _one_line_error(cli("explain", model, "{oops"), "not valid JSON")


def test_text_and_folder_mistakes(cli, tmp_path, sms_tsv):
    (tmp_path / "root" / "only").mkdir(parents=True)
    (tmp_path / "root" / "only" / "1.txt").write_text("hello")
    _one_line_error(
        cli("train", tmp_path / "root", "-o", tmp_path / "m.bk"), "one class folder ('only')"
    )
    _one_line_error(
        cli("train", sms_tsv, "-t", "label", "--model", "gaussian", "-o", tmp_path / "m.bk"),
        "'gaussian' does not read text",
    )
    _one_line_error(
        cli("train", sms_tsv, "-t", "label", "--text", "body", "-o", tmp_path / "x"),
        "no column 'body' for --text",
    )
    assert not (tmp_path / "m.bk").exists()


def test_empty_standard_input(cli, sms_tsv, files, tmp_path):
    model = tmp_path / "sms.bk"
    assert cli("train", sms_tsv, "-t", "label", "-o", model).exit_code == 0
    _one_line_error(cli("predict", model, "-", input=""), "<stdin>: no text to classify")
    table = tmp_path / "t.bk"
    assert cli("train", files / "ok.csv", "-t", "label", "-o", table).exit_code == 0
    _one_line_error(cli("predict", table, "-", input=""), "<stdin>: the file is empty")


def test_output_to_a_missing_folder(cli, files):
    line = _one_line_error(cli("train", files / "ok.csv", "-t", "label", "-o", files / "no/m.bk"))
    assert "the folder" in line
    assert "does not exist" in line


def test_debug_shows_the_traceback(cli, files):
    result = cli("train", files / "ragged.csv", "-t", "label", "-o", files / "m.bk", "--debug")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("bayeskit: error: ")


def test_a_bug_is_reported_as_one(cli, files, monkeypatch):
    def broken(model, path, **options):
        raise RuntimeError("boom")

    monkeypatch.setattr(bayeskit.cli.output, "save_model", broken)  # train saves by it
    result = cli("train", files / "ok.csv", "-t", "label", "-o", files / "m.bk")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "bayeskit: internal error: RuntimeError: boom — this is a bug in bayeskit, please "
        "report it; run again with --debug for the traceback"
    ]
    assert not (files / "m.bk").exists()


def test_atomic_write_leaves_nothing_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    write_atomic(target, "old")

    def failing(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(ReadError, match=f"{target}: cannot be written \\(disk full\\)"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["report.html"]


def test_a_row_value_that_is_not_one_value(cli, files, tmp_path):
    model = tmp_path / "m.bk"
    assert cli("train", files / "ok.csv", "-t", "label", "-o", model).exit_code == 0
    _one_line_error(cli("explain", model, '{"a": ["r"]}'), "'a' is a JSON array")
    _one_line_error(cli("explain", model, '{"a": {"x": 1}}'), "'a' is a JSON object")


@pytest.mark.parametrize("command", ["train", "predict", "report"])
def test_output_to_a_folder_that_cannot_be_written(cli, files, tmp_path, monkeypatch, command):
    model = tmp_path / "m.bk"
    assert cli("train", files / "ok.csv", "-t", "label", "-o", model).exit_code == 0
    locked = files / "locked"
    locked.mkdir()
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: access(p, mode) and Path(p) != locked)
    out = locked / ("p.csv" if command == "predict" else "out.file")
    args = {
        "train": ["train", files / "ok.csv", "-t", "label", "-o", out],
        "predict": ["predict", model, files / "ok.csv", "--ignore", "label", "-o", out],
        "report": ["report", files / "ok.csv", "-t", "label", "--folds", "2", "-o", out],
    }[command]
    _one_line_error(cli(*args), f"{out}: cannot write in the folder", "permission denied")
    assert os.listdir(locked) == []


def test_a_stray_quote_that_swallows_rows_is_one_line(cli, tmp_path):
    # polars reads this file without an error, 30 messages short: every command refuses it
    from bayeskit.datasets import load_sms_spam

    texts, labels = load_sms_spam()
    rows = [f"{y},{t}" for y, t in zip(labels, texts, strict=True) if not set(t) & set(',"\r\n')]
    rows = rows[:300]
    rows[99] = rows[99].replace(",", ',"', 1)
    rows[129] += '"'
    (tmp_path / "sms.csv").write_text("label,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    for command in (
        ["train", tmp_path / "sms.csv", "-t", "label", "-o", tmp_path / "m.bk"],
        ["evaluate", tmp_path / "sms.csv", "-t", "label"],
    ):
        line = _one_line_error(cli(*command), "sms.csv, line 101: the double quote at column")
        assert "lines 102-131 would be read into that one field" in line
    assert not (tmp_path / "m.bk").exists()
