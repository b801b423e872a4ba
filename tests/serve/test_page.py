"""The page, used as a person would: Debian's chromium, headless, driven by Selenium through
chromium-driver, against ``bayeskit serve`` on 127.0.0.1 — with the keyboard alone, files
chosen and dropped, teaching the filter, a phone's width, a character n-gram model.

The spam filter's page is used against a ``bayeskit serve`` process, in one test of two
steps on one server (xdist spreads a module's tests over its workers, where a module-scoped
server would start once per worker), while chromium starts in a background thread. The
table and character models' pages, which test the page rather than the command, are served
by the same app and uvicorn in a thread of this process (``ThreadServer``), which starts in
a fraction of a second.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.serve import ServeConfig

from .conftest import TOKEN, ServerProcess, ThreadServer, served_copy, wine_frame, write_token

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
# A prize e-mail in latin-1 (the é is not UTF-8), with a long URL a phone must wrap.
PRIZE_EML = (
    b"From: Prize Desk <win@prizes.example>\nSubject: You have WON a FREE prize\n"
    b"Content-Type: text/plain; charset=iso-8859-1\n\nCongratulations! You have won a free "
    b"prize, call now to claim your cash. R\xe9ponse urgente: http://www.claim-your-prize-"
    b"now-before-it-expires.example/winners/2024/claim?reference=0123456789abcdef\n"
)
LUNCH_EML = (
    b"From: Ann <ann@work.example>\nSubject: lunch tomorrow\n\nAre we still on for lunch "
    b"tomorrow at noon? I will bring the meeting notes.\n"
)
PHONE = {"width": 375, "height": 740, "deviceScaleFactor": 2, "mobile": True}


def _start_chromium(profile: Path):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", "--window-size=1100,1400",
        "--lang=en-US",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def chrome(tmp_path_factory):
    """The module's browser, as a getter: it starts in the background meanwhile."""
    pool = ThreadPoolExecutor(1)
    future = pool.submit(_start_chromium, tmp_path_factory.mktemp("chromium-profile"))
    yield lambda: future.result(120)
    pool.shutdown()
    if future.exception() is None:
        future.result().quit()


# ---------------------------------------------------------------------------------- helpers
def _wait(driver, condition, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def _text(driver, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).text


def _open(driver, server, ready: str = "training messages") -> None:
    driver.get(server.url + "/")
    _wait(driver, lambda d: ready in _text(d, "about"))


def _api(server, path: str, body: bytes | None = None, content_type: str = "text/plain"):
    """The server's own answer, asked directly (the numbers the page must show)."""
    headers = {"Content-Type": content_type} if body is not None else {}
    request = urllib.request.Request(server.url + path, data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _log_odds(driver) -> str:
    found = re.search(r"log-odds (-?\d+\.\d\d)", _text(driver, "summary"))
    assert found, _text(driver, "summary")
    return found.group(1)


def _percent(p: float) -> str:
    """A probability as the page writes it: never rounded onto 0% or 100% when not there."""
    for d in range(1 if 0.001 < p < 0.999 else 3, 7):
        text = f"{100 * p:.{d}f}"
        if not ((p > 0 and float(text) == 0) or (p < 1 and float(text) == 100)):
            return text + "%"
    return "< 0.000001%" if p < 0.5 else "> 99.999999%"


def _drop(driver, path: Path, target_id: str) -> bool:
    """Drop a file on an element as a person's drag from the desktop does: the file is read
    from disk by the browser (a staging file input), put in a DataTransfer and delivered by
    dragenter, dragover and drop events to the page's own handlers. True when the element
    showed it was a drop target during the drag, and not after."""
    from selenium.webdriver.common.by import By

    driver.execute_script(
        "const input = document.createElement('input'); input.type = 'file';"
        "input.id = 'test-staging'; input.hidden = true; document.body.appendChild(input);"
    )
    driver.find_element(By.ID, "test-staging").send_keys(str(path))
    return driver.execute_script(
        """
        const staging = document.getElementById('test-staging');
        const target = document.getElementById(arguments[0]);
        const data = new DataTransfer();
        data.items.add(staging.files[0]);
        staging.remove();
        const fire = (type) => target.dispatchEvent(
            new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        fire('dragenter');
        const accepted = !fire('dragover');  // the page cancels dragover: a drop target
        const shown = target.classList.contains('dragging');
        fire('drop');
        return accepted && shown && !target.classList.contains('dragging');
        """,
        target_id,
    )


def _as_phone(driver) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)


def _as_desktop(driver) -> None:
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _fits_a_phone(driver) -> None:
    """At 375 CSS pixels: nothing wider than the screen, and every button on screen, big
    enough for a finger and not covered by anything, once scrolled to."""
    from selenium.webdriver.common.by import By

    width, scroll_width, outside = driver.execute_script(
        """
        const width = document.documentElement.clientWidth;
        const outside = [...document.querySelectorAll('body *')].filter((e) => {
          const r = e.getBoundingClientRect();
          return r.width > 0 && (r.left < -0.5 || r.right > width + 0.5);
        }).map((e) => e.id || e.tagName + '.' + e.className);
        return [width, document.documentElement.scrollWidth, outside];
        """
    )
    assert width == PHONE["width"]
    assert scroll_width <= width
    assert outside == []
    buttons = [b for b in driver.find_elements(By.TAG_NAME, "button") if b.is_displayed()]
    assert {"check", "learn-spam", "learn-ham"} <= {b.get_attribute("id") for b in buttons}
    for button in buttons:
        reachable = driver.execute_script(
            """
            const b = arguments[0];
            b.scrollIntoView({block: 'center'});
            const r = b.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return [r.left >= 0 && r.right <= document.documentElement.clientWidth,
                    r.height >= 44, hit === b || b.contains(hit)];
            """,
            button,
        )
        assert reachable == [True, True, True], button.get_attribute("id")


def _is_accessible(driver, server) -> None:
    """Every control has a label or a name; nothing is loaded from anywhere else."""
    unlabelled = driver.execute_script(
        "return [...document.querySelectorAll('input, textarea')]"
        ".filter(e => !e.labels || e.labels.length === 0).map(e => e.id)"
    )
    assert unlabelled == []
    nameless = driver.execute_script(
        "return [...document.querySelectorAll('button')].filter(b => !b.textContent.trim()).length"
    )
    assert nameless == 0
    origins = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin)"
    )
    assert set(origins) <= {server.url}


# ---------------------------------------------------------------------------------- tests
def test_a_person_uses_the_spam_filters_page(chrome, sms_file, tmp_path):
    server = ServerProcess(served_copy(tmp_path, sms_file), "--token-file",
                           str(write_token(tmp_path)))  # fmt: skip
    browser = chrome()
    try:
        _keyboard_alone(browser, server)
        _files_and_ham_on_a_phone(browser, server, tmp_path)
    finally:
        server.kill()


def _keyboard_alone(browser, server) -> None:
    """Type a message, check it and teach the filter with the keyboard alone."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _open(browser, server)

    def press(*keys: str) -> None:
        ActionChains(browser).send_keys(*keys).perform()

    def back() -> None:
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()

    def focused() -> str:
        return browser.switch_to.active_element.get_attribute("id")

    # the focus order follows the page: message, file, Check
    press(Keys.TAB)
    assert focused() == "message"
    press(MESSAGE)
    press(Keys.TAB)
    assert focused() == "file"
    press(Keys.TAB)
    assert focused() == "check"
    press(Keys.ENTER)
    _wait(browser, lambda d: _text(d, "verdict") in ("HAM", "SPAM", "UNSURE"))
    assert _text(browser, "verdict") == "HAM"
    summary = _text(browser, "summary")
    assert summary.startswith("P(spam) = ")
    p_before = float(summary.split("= ")[1].split("%")[0])
    # the filter's probability is calibrated; the log-odds beside it are its model's, before
    # that (they may point the other way), and say so
    assert "(the model's, before calibration)" in summary
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
    assert "Each word shows its share" in _text(browser, "legend")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#reasons tbody tr")) >= 5
    bar = browser.find_element(By.ID, "bar")
    assert bar.get_attribute("aria-label").startswith("Probability of spam: ")
    _is_accessible(browser, server)
    # then the result's controls, in order: token, This is spam, This is ham
    press(Keys.TAB)
    assert focused() == "token"
    press(Keys.TAB)
    assert focused() == "learn-spam"
    press(Keys.TAB)
    assert focused() == "learn-ham"
    back()
    assert focused() == "learn-spam"
    # without the token the page asks for it, and takes the focus there
    press(Keys.SPACE)
    _wait(browser, lambda d: "Enter the token" in _text(d, "status"))
    assert focused() == "token"
    press(TOKEN, Keys.TAB)
    assert focused() == "learn-spam"
    before = _api(server, "/metadata")
    press(Keys.SPACE)
    _wait(browser, lambda d: "Learned as spam" in _text(d, "status"))
    _wait(browser, lambda d: "already learned as spam" in _text(d, "summary"))
    after = _api(server, "/metadata")
    assert after["class_count"]["spam"] == before["class_count"]["spam"] + 1
    assert after["training_rows"] == before["training_rows"] + 1
    assert f"spam {after['class_count']['spam']:.0f}" in _text(browser, "status")
    assert f"{after['training_rows']:,.0f} training messages" in _text(browser, "about")
    p_after = float(_text(browser, "summary").split("= ")[1].split("%")[0])
    assert p_after > p_before
    assert focused() == "learn-spam"  # the focus stays where the person is
    press(Keys.SPACE)
    _wait(browser, lambda d: "not counted twice" in _text(d, "status"))
    assert _api(server, "/metadata")["training_rows"] == after["training_rows"]
    token = browser.find_element(By.ID, "token")
    token.clear()
    token.send_keys("wrong-token-123")
    browser.find_element(By.ID, "learn-ham").click()
    _wait(browser, lambda d: _text(d, "status").startswith("The server refused the token"))


def _files_and_ham_on_a_phone(browser, server, tmp_path) -> None:
    """On a phone: drop an e-mail, correct it as ham, choose another with the file input."""
    from selenium.webdriver.common.by import By

    _as_phone(browser)
    try:
        _open(browser, server)
        prize = tmp_path / "prize.eml"
        prize.write_bytes(PRIZE_EML)
        assert _drop(browser, prize, "message")
        _wait(browser, lambda d: _text(d, "verdict") == "SPAM")
        # the page sent the file's bytes as an e-mail: the server's numbers for those bytes
        expected = _api(server, "/check", PRIZE_EML, "message/rfc822")
        assert _log_odds(browser) == f"{expected['log_odds']:.2f}"
        box = browser.find_element(By.ID, "message")
        assert box.get_attribute("value").startswith("From: Prize Desk")
        assert "Réponse" in _text(browser, "words")  # latin-1, decoded by the server
        _fits_a_phone(browser)
        # "this is ham": the model moves, and says so
        before = _api(server, "/metadata")
        log_odds_before = float(_log_odds(browser))
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        browser.find_element(By.ID, "learn-ham").click()
        _wait(browser, lambda d: "Learned as ham" in _text(d, "status"))
        _wait(browser, lambda d: "already learned as ham" in _text(d, "summary"))
        after = _api(server, "/metadata")
        assert after["class_count"]["ham"] == before["class_count"]["ham"] + 1
        assert after["class_count"]["spam"] == before["class_count"]["spam"]
        assert after["training_rows"] == before["training_rows"] + 1
        assert float(_log_odds(browser)) < log_odds_before
        assert f"ham {after['class_count']['ham']:.0f}" in _text(browser, "status")
        assert f"{after['training_rows']:,.0f} training messages" in _text(browser, "about")
        now = _api(server, "/check", PRIZE_EML, "message/rfc822")
        assert now["learned_as"] == "ham"
        assert _log_odds(browser) == f"{now['log_odds']:.2f}"
        _fits_a_phone(browser)
        # choosing a file with the page's file input
        lunch = tmp_path / "lunch.eml"
        lunch.write_bytes(LUNCH_EML)
        browser.find_element(By.ID, "file").send_keys(str(lunch))
        _wait(browser, lambda d: _text(d, "verdict") == "HAM")
        expected = _api(server, "/check", LUNCH_EML, "message/rfc822")
        assert _log_odds(browser) == f"{expected['log_odds']:.2f}"
        assert "meeting notes" in _text(browser, "words")
    finally:
        _as_desktop(browser)


def test_a_table_model_reads_a_chosen_and_a_dropped_csv(chrome, wine_file, tmp_path):
    from selenium.webdriver.common.by import By

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, wine_file))))
    browser = chrome()
    try:
        model = bk.load(wine_file)
        frame, _ = wine_frame()
        rows, one = frame.slice(60, 3), frame.slice(140, 1)
        first, other = model.predict(rows)[0], model.predict(one)[0]
        assert first != other  # so the page's answer shows which file it read
        _open(browser, server, "training rows")
        assert browser.find_element(By.ID, "teach").get_attribute("hidden") is not None
        chosen = tmp_path / "rows.csv"
        rows.write_csv(chosen)
        browser.find_element(By.ID, "file").send_keys(str(chosen))
        _wait(browser, lambda d: _text(d, "verdict") == str(first))
        assert _text(browser, "summary") == "(first of 3 rows)"
        bars = browser.find_elements(By.CSS_SELECTOR, "#class-bars .bar")
        proba = model.predict_proba(rows)[0]
        assert [b.get_attribute("aria-label") for b in bars] == [
            f"Probability of {c}: {_percent(p)}" for c, p in zip(model.classes_, proba, strict=True)
        ]
        dropped = tmp_path / "one.csv"
        one.write_csv(dropped)
        assert _drop(browser, dropped, "message")
        _wait(browser, lambda d: _text(d, "verdict") == str(other))
        assert _text(browser, "summary") == ""
        assert browser.find_element(By.ID, "message").get_attribute("value") == one.write_csv()
    finally:
        server.kill()


def test_a_character_model_colours_characters_on_a_phone(chrome, char_file, tmp_path):
    from selenium.webdriver.common.by import By

    model, token = served_copy(tmp_path, char_file), write_token(tmp_path)
    server = ThreadServer(ServeConfig(model=str(model), token_file=str(token)))
    browser = chrome()
    _as_phone(browser)
    text = "WINNER!! Claim your FREE prize now: call 09061701461 to collect it"
    try:
        _open(browser, server)
        browser.find_element(By.ID, "message").send_keys(text)
        browser.find_element(By.ID, "check").click()
        _wait(browser, lambda d: _text(d, "verdict") == "SPAM")
        assert _text(browser, "words-title") == "The message, character by character"
        legend = _text(browser, "legend")
        assert "character n-grams" in legend
        assert "shared equally among the characters it covers" in legend
        # each character of every word is coloured with the server's weight for it
        expected = _api(server, "/check?words=1", text.encode())
        words = browser.find_element(By.ID, "words")
        assert words.text == text
        spans = words.find_elements(By.CSS_SELECTOR, "span.w")
        assert len(spans) == len(text.replace(" ", ""))
        assert [s.text for s in spans] == [t for t, w in expected["words"] if w is not None]
        shown = [float(s.get_attribute("data-weight")) for s in spans]
        assert shown == pytest.approx([w for _, w in expected["words"] if w is not None], abs=6e-5)
        assert spans[0].value_of_css_property("padding-left") == "0px"  # letters stay together
        # the reasons show a character n-gram's spaces (a word's edges): " 09" is not "09"
        tokens = [r["token"] for r in expected["reasons"]]
        cells = browser.find_elements(By.CSS_SELECTOR, "#reasons tbody tr td:first-child")
        assert [c.text for c in cells] == [t.replace(" ", "\u2423") for t in tokens]
        assert any(" " in t for t in tokens)
        _fits_a_phone(browser)
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        browser.find_element(By.ID, "learn-spam").click()
        _wait(browser, lambda d: "already learned as spam" in _text(d, "summary"))
        assert float(_log_odds(browser)) > expected["log_odds"]
    finally:
        _as_desktop(browser)
        server.kill()


# ---------------------------------------------------------------- policy, learning, errors
def _sha256_source(text: str) -> str:
    """A script's or style's CSP source expression, 'sha256-<base64>'."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def _set_box(driver, text: str) -> None:
    """Put ``text`` in the box as a paste does (one input event)."""
    driver.execute_script(
        "arguments[0].value = arguments[1];"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        driver.find_element("id", "message"),
        text,
    )


def _check(driver) -> None:
    driver.find_element("id", "check").click()


def _no_earlier_result(driver) -> None:
    """An error is shown alone: no verdict, bars, coloured words, reasons or learn buttons
    of an earlier answer beside it."""
    from selenium.webdriver.common.by import By

    assert _text(driver, "verdict") == ""
    assert "error" in driver.find_element(By.ID, "summary").get_attribute("class")
    for hidden in ("bar", "explain", "teach"):
        assert not driver.find_element(By.ID, hidden).is_displayed(), hidden
    assert driver.find_elements(By.CSS_SELECTOR, "#class-bars > *") == []
    assert driver.execute_script("return document.getElementById('words').textContent") == ""
    assert driver.find_elements(By.CSS_SELECTOR, "#reasons tbody tr") == []


def _count(n: float) -> str:
    """A count as the page writes it: whole, or to three significant digits."""
    rounded = float(f"{n:.3g}")
    return str(int(rounded)) if rounded.is_integer() else repr(rounded)


def test_the_page_runs_its_own_script_and_style_and_no_other(chrome, sms_file, tmp_path):
    """The Content-Security-Policy names the page's inline script and style by their sha256
    (no 'unsafe-inline'): they run and apply, and a script injected into the page does not."""
    from selenium.webdriver.common.by import By

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file))))
    browser = chrome()
    try:
        with urllib.request.urlopen(server.url + "/", timeout=30) as response:
            page = response.read().decode("utf-8")
            policy = response.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert "unsafe-inline" not in policy
        (script,) = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
        (style,) = re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)
        assert directives["script-src"] == _sha256_source(script)
        assert directives["style-src"] == _sha256_source(style)
        _open(browser, server)  # the script ran: it read the model
        background = "return getComputedStyle(document.body).backgroundColor"
        assert browser.execute_script(background) == "rgb(250, 250, 250)"  # the style applies
        ran = browser.execute_script(
            "const s = document.createElement('script');"
            "s.textContent = 'window.injected = true;';"
            "document.body.appendChild(s); return window.injected === true;"
        )
        assert ran is False
        browser.find_element(By.ID, "message").send_keys(MESSAGE)
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "HAM")
    finally:
        server.kill()


def test_the_learn_buttons_teach_the_message_shown_once_checked(chrome, sms_file, tmp_path):
    """An edited message (or a chosen file typed over) is not the one checked: the learn
    buttons wait for Check, then teach what the box shows. They taught the last message
    checked, whatever the box held."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    model, token = served_copy(tmp_path, sms_file), write_token(tmp_path)
    server = ThreadServer(ServeConfig(model=str(model), token_file=str(token)))
    browser = chrome()

    def learnable() -> bool:
        buttons = [browser.find_element(By.ID, f"learn-{label}") for label in ("spam", "ham")]
        assert len({b.is_enabled() for b in buttons}) == 1
        return buttons[0].is_enabled()

    try:
        _open(browser, server)
        box = browser.find_element(By.ID, "message")
        box.send_keys(MESSAGE)
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "HAM")
        assert learnable()
        assert _text(browser, "learn-note") == ""
        edited = "WINNER!! Claim your FREE prize now, call 09061701461"
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(edited)
        _wait(browser, lambda d: not learnable(), timeout=10)
        assert "changed since it was checked: press Check" in _text(browser, "learn-note")
        # the earlier verdict is not shown as the edited message's: dimmed, and said so
        assert browser.find_element(By.ID, "stale").is_displayed()
        assert "stale" in browser.find_element(By.ID, "result").get_attribute("class")
        dimmed = browser.find_element(By.ID, "verdict").find_element(By.XPATH, "..")
        assert float(dimmed.value_of_css_property("opacity")) < 0.5
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "SPAM")
        assert learnable()
        assert _text(browser, "learn-note") == ""
        assert not browser.find_element(By.ID, "stale").is_displayed()
        assert float(dimmed.value_of_css_property("opacity")) == 1.0
        browser.find_element(By.ID, "learn-spam").click()
        _wait(browser, lambda d: "Learned as spam" in _text(d, "status"))
        assert _api(server, "/check", edited.encode())["learned_as"] == "spam"
        assert _api(server, "/check", MESSAGE.encode())["learned_as"] is None
        # a file chosen, then typed over: the typed text is checked and learned, not the file
        lunch = tmp_path / "lunch.eml"
        lunch.write_bytes(LUNCH_EML)
        browser.find_element(By.ID, "file").send_keys(str(lunch))
        _wait(browser, lambda d: "meeting notes" in _text(d, "words"))
        assert learnable()
        box.send_keys(" Bring the slides too.")
        _wait(browser, lambda d: not learnable(), timeout=10)
        typed = box.get_attribute("value")
        assert typed.endswith(" Bring the slides too.")
        _check(browser)
        _wait(browser, lambda d: "slides" in _text(d, "words"))
        assert learnable()
        browser.find_element(By.ID, "learn-ham").click()
        _wait(browser, lambda d: "Learned as ham" in _text(d, "status"))
        assert _api(server, "/check", typed.encode())["learned_as"] == "ham"
        assert _api(server, "/check", LUNCH_EML, "message/rfc822")["learned_as"] is None
    finally:
        server.kill()


def test_an_error_takes_the_place_of_the_last_result(chrome, sms_file, tmp_path):
    """A body over --max-body (413), an empty box, a file that is not UTF-8 or is empty, and
    a server that stopped: each error is shown without the last answer's verdict, bars,
    words and reasons (they stayed, as if they answered the new message). A file that is not
    UTF-8 is refused naming the byte, as the server refuses such a body: it was read with
    U+FFFD in place of each bad byte, checked and could be learned."""
    from selenium.webdriver.common.by import By

    model, token = served_copy(tmp_path, sms_file), write_token(tmp_path)
    config = ServeConfig(model=str(model), token_file=str(token), max_body_bytes=4096)
    server = ThreadServer(config)
    browser = chrome()

    def answered() -> None:
        _set_box(browser, MESSAGE)
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "HAM")
        assert browser.find_element(By.ID, "explain").is_displayed()

    try:
        _open(browser, server)
        answered()
        _set_box(browser, "free prize " * 500)
        _check(browser)
        _wait(browser, lambda d: "this server accepts at most 4096" in _text(d, "summary"))
        _no_earlier_result(browser)
        answered()
        _set_box(browser, "  \n ")
        _check(browser)
        _wait(browser, lambda d: _text(d, "summary") == "Paste a message first.")
        _no_earlier_result(browser)
        answered()
        latin = tmp_path / "latin.txt"
        latin.write_bytes(b"Caf\xe9 au lait at noon? I will bring the notes")
        browser.find_element(By.ID, "file").send_keys(str(latin))
        said = "latin.txt is not UTF-8 text (byte 0xe9 at offset 3): save it as UTF-8"
        _wait(browser, lambda d: _text(d, "summary").startswith(said))
        _no_earlier_result(browser)
        assert browser.find_element(By.ID, "message").get_attribute("value") == MESSAGE
        answered()
        empty = tmp_path / "empty.txt"
        empty.write_bytes(b"")
        browser.find_element(By.ID, "file").send_keys(str(empty))
        _wait(browser, lambda d: _text(d, "summary").startswith("empty.txt is empty"))
        _no_earlier_result(browser)
        answered()
        server.kill()
        _check(browser)
        said = f"The service at {server.url} did not answer; is it running?"
        _wait(browser, lambda d: _text(d, "summary") == said)
        _no_earlier_result(browser)
    finally:
        server.kill()


def test_the_model_is_read_again_when_it_could_not_be_read_at_load(chrome, topics_file, tmp_path):
    """/metadata unreachable when the page loads: the page says so, in words (Check showed
    "Cannot read properties of null (reading 'mode')"), and reads it at the next Check. The
    reasons' counts (tf-idf weights here) are shown to three significant digits."""
    from selenium.webdriver.common.by import By

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, topics_file))))
    browser = chrome()
    text = "the striker scored a late goal"
    try:
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/metadata"]})
        browser.get(server.url + "/")
        said = f"Cannot read the model: The service at {server.url} did not answer; is it running?"
        _wait(browser, lambda d: _text(d, "about") == said)
        browser.find_element(By.ID, "message").send_keys(text)
        _check(browser)
        _wait(browser, lambda d: _text(d, "summary") == said)
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "sport")
        assert "training messages" in _text(browser, "about")
        expected = _api(server, "/check", text.encode())["reasons"]
        assert any(not float(r["count"]).is_integer() for r in expected)
        cells = browser.find_elements(By.CSS_SELECTOR, "#reasons tbody td:nth-child(2)")
        assert [c.text for c in cells] == [_count(r["count"]) for r in expected]
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        browser.execute_cdp_cmd("Network.disable", {})
        server.kill()


def test_a_table_models_columns_are_shown_as_a_csv_header(chrome, tmp_path):
    """Column names holding a comma or a quote are shown as a CSV header writes them (they
    were joined by commas as they are: 'a,q,c,say "hi"' reads as four columns), and that
    header, pasted with a row, is read as the model's columns. A row of the wrong width is
    refused without the last answer's bars."""
    import polars as pl
    from selenium.webdriver.common.by import By

    frame = pl.DataFrame({"a": [1.0, 2.0, 1.2, 2.2], "q,c": [2.0, 3.0, 2.1, 3.3],
                          'say "hi"': [5.0, 6.0, 5.1, 6.2]})  # fmt: skip
    model = bk.GaussianNB().fit(frame, ["x", "y", "x", "y"])
    path = tmp_path / "quoted.bk"
    bk.save(model, path)
    server = ThreadServer(ServeConfig(model=str(path)))
    browser = chrome()
    try:
        _open(browser, server, "training rows")
        header = 'a,"q,c","say ""hi"""'
        box = browser.find_element(By.ID, "message")
        assert box.get_attribute("placeholder") == header
        assert f"Columns: {header} (a header line)." in _text(browser, "input-hint")
        _set_box(browser, header + "\n2.1,3.2,6.1\n")
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "y")
        assert browser.find_elements(By.CSS_SELECTOR, "#class-bars .bar")
        _set_box(browser, "1,2\n")
        _check(browser)
        _wait(browser, lambda d: "2 fields where the model reads 3" in _text(d, "summary"))
        _no_earlier_result(browser)
    finally:
        server.kill()


def test_an_emails_preview_is_decoded_in_the_charset_it_declares(chrome, sms_file, tmp_path):
    """A chosen .eml that is not UTF-8 is shown in the box in the charset its headers declare
    (it was shown as Windows-1252 whatever it declared: KOI8-R Russian as Latin letters), as
    the server reads it; one of a charset the browser does not know, as Windows-1252."""
    from selenium.webdriver.common.by import By

    russian = "Привет, это важное сообщение о встрече завтра"
    koi8 = (
        b"From: Ivan <ivan@example.ru>\nSubject: meeting\n"
        b'Content-Type: text/plain; charset="koi8-r"\n\n' + russian.encode("koi8-r") + b"\n"
    )
    unknown = b"Subject: x\nContent-Type: text/plain; charset=x-no-such\n\nR\xe9ponse\n"
    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file))))
    browser = chrome()
    try:
        _open(browser, server)
        box = browser.find_element(By.ID, "message")
        for name, data, shown in (("koi8.eml", koi8, russian), ("odd.eml", unknown, "Réponse")):
            path = tmp_path / name
            path.write_bytes(data)
            browser.find_element(By.ID, "file").send_keys(str(path))
            _wait(browser, lambda d, shown=shown: shown in box.get_attribute("value"))
            expected = _api(server, "/check", data, "message/rfc822")
            _wait(browser, lambda d, e=expected: _log_odds(d) == f"{e['log_odds']:.2f}")
    finally:
        server.kill()
