"""The report renders in a real browser: Debian's chromium, headless, offline."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from bayeskit.datasets import load_sms_spam
from bayeskit.report import build_report
from bayeskit.text import TextClassifier

from ._dom import parse
from ._png import read_png

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    texts, labels = load_sms_spam()
    model = TextClassifier()
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    P = cross_val_predict(model, texts, labels, cv=cv, method="predict_proba")
    model.fit(texts, labels)
    page = build_report(
        title="SMS spam filter", classes=model.classes_, y_true=labels, proba=P, model=model
    )
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    )


def test_the_browser_builds_every_chart(report, tmp_path):
    dom = parse(
        _chromium(tmp_path, "--dump-dom", report.as_uri()).stdout.replace(
            "<html", "<!DOCTYPE html><html", 1
        )
    )
    assert dom.find("title").text == "SMS spam filter"
    ids = {n.attrs.get("id") for n in dom.iter()}
    assert {"glance", "confusion", "curves", "calibration", "terms"} <= ids
    charts = dom.find_all("svg", class_="chart")
    assert len(charts) >= 6
    assert len(dom.find("section", id="confusion").find_all("rect", class_="cell")) == 4
    assert dom.find_all("polyline")


def test_the_screenshot_shows_the_charts(report, tmp_path):
    shot = tmp_path / "report.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2200", report.as_uri())
    assert shot.exists()
    assert shot.stat().st_size > 20_000
    pixels = read_png(shot.read_bytes())[..., :3].astype(np.int32)
    assert pixels.shape[:2] == (2200, 1200)
    assert pixels.std() > 20  # a blank or single-colour page has (almost) none

    def near(rgb: str, tol: int = 24) -> int:
        target = np.array([int(rgb[i : i + 2], 16) for i in (1, 3, 5)])
        return int((np.abs(pixels - target).max(axis=-1) <= tol).sum())

    # the class balance in Okabe-Ito blue (ham, 87%) and orange (spam, 13%) on a 640 x 34
    # bar, spam's curves in orange, the confusion matrix's darkest blue cell: the SVG was
    # drawn, not just the text
    assert near("#0072B2") > 10_000
    assert near("#E69F00") > 2_000
    assert near("#08306b", tol=30) > 5_000
