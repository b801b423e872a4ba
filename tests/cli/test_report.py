"""``bayeskit report``: the page written from cross-validation, atomically; it renders in
Debian's chromium (skipped where chromium is absent)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bayeskit.cli.models import describe
from bayeskit.text import SpamFilter

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _report(cli, *args) -> str:
    result = cli("report", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_report_on_a_table(cli, mushroom_csv, tmp_path):
    page = tmp_path / "mushroom.html"
    out = _report(cli, mushroom_csv, "-t", "class", "--missing", "?", "--folds", 3, "-o", page)
    assert f"wrote {page} (" in out
    text = page.read_text("utf-8")
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert "<title>bayeskit report: mushroom.csv</title>" in text
    assert "3-fold stratified cross-validation (seed 0)" in text
    found = re.search(r"accuracy ([01]\.\d{4})", out)  # every row right (1.0000) is possible
    assert found is not None, out
    accuracy = found.group(1)
    assert accuracy in text  # the page shows the cross-validated accuracy the command printed
    assert "<svg" in text
    assert not re.search(r"""(src|href)=["']https?://""", text)  # self-contained
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mushroom.html"]


def test_report_on_text_with_a_title(cli, sms_tsv, tmp_path):
    page = tmp_path / "sms.html"
    _report(
        cli, sms_tsv, "-t", "label", "--cv", 3, "--title", "SMS <spam>", "-o", page
    )  # --cv: --folds' old name
    text = page.read_text("utf-8")
    assert f"<title>{html.escape('SMS <spam>')}</title>" in text
    assert html.escape(describe(SpamFilter())) in text


def test_report_replaces_an_old_page_only_when_done(cli, mushroom_csv, tmp_path):
    page = tmp_path / "r.html"
    page.write_text("old page")
    result = cli("report", mushroom_csv, "-t", "no-such-column", "-o", page)
    assert result.exit_code == 2
    assert page.read_text() == "old page"


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_page_renders_in_chromium(cli, newsgroups, tmp_path):
    train, _ = newsgroups
    page = tmp_path / "ng.html"
    _report(cli, train, "--cv", 3, "-o", page)
    profile = tmp_path / "profile"
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            "--dump-dom",
            Path(page).as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    ).stdout
    assert "<title>bayeskit report: train</title>" in dom
    assert dom.count("<svg") >= 3
    for group in ("comp.graphics", "rec.autos", "sci.space"):
        assert group in dom


def _small_table(folder: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(0)
    path = folder / "small.csv"
    rows = ["a,b,label"] + [
        f"{rng.normal() + k:.3f},{rng.normal():.3f},{'yn'[k]}" for k in (0, 1) for _ in range(30)
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_report_dash_writes_the_page_to_standard_output(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = _small_table(tmp_path)
    result = cli("report", data, "-t", "label", "--folds", 2, "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>")
    assert result.stdout.rstrip().endswith("</html>")
    assert "wrote standard output (" in result.stderr  # the summary is not in the page
    assert "wrote" not in result.stdout.split("</html>")[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.csv"]  # no file named '-'
    assert "standard output" in cli("report", "--help").stdout


def test_report_to_dev_stdout_on_a_pipe_does_not_hang(tmp_path):
    import os
    import sys

    data = _small_table(tmp_path)
    import bayeskit

    env = {**os.environ, "PYTHONPATH": str(Path(bayeskit.__file__).parents[1])}
    run = subprocess.run(
        [sys.executable, "-m", "bayeskit.cli", "report", str(data), "-t", "label", "--folds",
         "2", "-o", "/dev/stdout"],
        capture_output=True, timeout=120, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(b"<!DOCTYPE html>")
    assert run.stdout.rstrip().endswith(b"</html>")  # the summary went to standard error


def test_is_report_never_opens_a_fifo(tmp_path):
    import os

    from bayeskit.cli.report import is_report, is_stream

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert not is_report(fifo)  # opening it to peek would block: no writer
    assert is_stream(str(fifo))
    assert is_stream("-")
    assert is_stream("/dev/null")
    assert not is_stream(str(tmp_path / "new.html"))


def test_a_folder_as_output_is_refused_before_the_cross_validation(cli, tmp_path, monkeypatch):
    # A folder is neither a stream nor a file to replace: the refusal comes before any fold
    # is fitted, and names the folder.
    import bayeskit.cli.measure as measure

    def must_not_run(*args, **kwargs):
        raise AssertionError("cross-validated although the output was refused")

    monkeypatch.setattr(measure, "cross_validate", must_not_run)
    data = _small_table(tmp_path)
    folder = tmp_path / "pages"
    folder.mkdir()
    result = cli("report", data, "-t", "label", "--folds", 2, "-o", folder)
    assert result.exit_code != 0
    assert f"{folder}: is a folder; give a file name" in result.stderr
    assert list(folder.iterdir()) == []
