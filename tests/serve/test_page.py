"""The page, used as a person would: Debian's chromium, headless, driven by Selenium through
chromium-driver, against ``bayeskit serve`` on 127.0.0.1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import SPAMMY, TOKEN, ServerProcess

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
DRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="Debian's chromium and chromium-driver are not installed "
    "(apt-get install chromium chromium-driver)",
)
MESSAGE = "Hi Ann, are we still on for lunch at noon tomorrow? I will bring the notes."


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", "--window-size=1100,1400",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def server(sms_file, model_copy, token_file):
    process = ServerProcess(model_copy(sms_file), "--token-file", str(token_file))
    yield process
    process.kill()


def _wait(driver, condition, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def test_check_a_message_then_teach_the_filter(browser, server):
    from selenium.webdriver.common.by import By

    browser.get(server.url + "/")
    _wait(browser, lambda d: "training messages" in d.find_element(By.ID, "about").text)
    box = browser.find_element(By.ID, "message")
    box.send_keys(MESSAGE)
    browser.find_element(By.ID, "check").click()
    verdict = browser.find_element(By.ID, "verdict")
    _wait(browser, lambda d: verdict.text in ("HAM", "SPAM", "UNSURE"))
    assert verdict.text == "HAM"
    summary = browser.find_element(By.ID, "summary").text
    assert summary.startswith("P(spam) = ")
    p_before = float(summary.split("= ")[1].split("%")[0])
    # the words, coloured by their contribution: the message is all there, in spans
    words = browser.find_element(By.ID, "words")
    assert words.text == MESSAGE
    spans = words.find_elements(By.CSS_SELECTOR, "span.w")
    coloured = {s.text.lower(): float(s.get_attribute("data-weight")) for s in spans}
    assert {"lunch", "noon", "notes"} <= coloured.keys()
    assert coloured["lunch"] < 0  # toward ham
    toward_ham = spans[[s.text.lower() for s in spans].index("lunch")]
    assert "rgba(0, 114, 178" in toward_ham.value_of_css_property("background-color")
    assert toward_ham.get_attribute("title").endswith("toward ham")
    reasons = browser.find_elements(By.CSS_SELECTOR, "#reasons tbody tr")
    assert len(reasons) >= 5
    bar = browser.find_element(By.ID, "bar")
    assert bar.get_attribute("aria-label").startswith("Probability of spam: ")
    # teach it: without the token it asks for it; with it, the model changes
    browser.find_element(By.ID, "learn-spam").click()
    status = browser.find_element(By.ID, "status")
    _wait(browser, lambda d: "token" in status.text)
    browser.find_element(By.ID, "token").send_keys(TOKEN)
    browser.find_element(By.ID, "learn-spam").click()
    _wait(browser, lambda d: "Learned as spam" in status.text)
    assert "spam 748" in status.text  # the class counts after learning
    _wait(browser, lambda d: "already learned as spam" in d.find_element(By.ID, "summary").text)
    summary = browser.find_element(By.ID, "summary").text
    p_after = float(summary.split("= ")[1].split("%")[0])
    assert p_after > p_before
    browser.find_element(By.ID, "learn-spam").click()
    _wait(browser, lambda d: "not counted twice" in status.text)
    browser.find_element(By.ID, "token").clear()
    browser.find_element(By.ID, "token").send_keys("wrong-token-123")
    browser.find_element(By.ID, "learn-ham").click()
    _wait(browser, lambda d: "needs the server's token" in status.text)


def test_spam_is_flagged_and_the_page_fits_a_phone(browser, server):
    from selenium.webdriver.common.by import By

    browser.set_window_size(375, 740)
    try:
        browser.get(server.url + "/")
        _wait(browser, lambda d: "training messages" in d.find_element(By.ID, "about").text)
        browser.find_element(By.ID, "message").send_keys(SPAMMY)
        browser.find_element(By.ID, "check").click()
        _wait(browser, lambda d: d.find_element(By.ID, "verdict").text == "SPAM")
        assert "action: junk" in browser.find_element(By.ID, "summary").text
        spans = browser.find_elements(By.CSS_SELECTOR, "#words span.toward-a")
        assert {"prize", "claim"} <= {s.text.lower() for s in spans}
        # nothing wider than the screen; every control has a label; nothing loaded elsewhere
        assert browser.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth"
        )
        unlabelled = browser.execute_script(
            "return [...document.querySelectorAll('input, textarea')]"
            ".filter(e => !e.labels || e.labels.length === 0).map(e => e.id)"
        )
        assert unlabelled == []
        nameless = browser.execute_script(
            "return [...document.querySelectorAll('button')]"
            ".filter(b => !b.textContent.trim()).length"
        )
        assert nameless == 0
        origins = browser.execute_script(
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)"
        )
        assert set(origins) <= {server.url}
        buttons = browser.find_elements(By.CSS_SELECTOR, "#learn-buttons button")
        assert all(b.size["height"] >= 44 for b in buttons)  # big enough for a finger
    finally:
        browser.set_window_size(1100, 1400)


def test_a_csv_row_for_a_table_model(browser, wine_file, model_copy):
    from selenium.webdriver.common.by import By

    import bayeskit as bk

    from .conftest import wine_frame

    frame, _ = wine_frame()
    row = frame.slice(60, 1)
    expected = bk.load(wine_file).predict_proba(row)[0]
    server = ServerProcess(model_copy(wine_file))
    try:
        browser.get(server.url + "/")
        _wait(browser, lambda d: "training rows" in d.find_element(By.ID, "about").text)
        assert browser.find_element(By.ID, "teach").get_attribute("hidden") is not None
        browser.find_element(By.ID, "message").send_keys(row.write_csv())
        browser.find_element(By.ID, "check").click()
        _wait(browser, lambda d: d.find_element(By.ID, "verdict").text != "")
        bars = browser.find_elements(By.CSS_SELECTOR, "#class-bars .bar")
        assert len(bars) == 3
        shown = [b.get_attribute("aria-label") for b in bars]
        assert shown[0].startswith("Probability of 0: ")
        best = max(range(3), key=lambda k: expected[k])
        assert browser.find_element(By.ID, "verdict").text == str(best)
    finally:
        server.kill()
