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
