"""The page under hostile names and careless use, in chromium (as test_page.py drives it):
labels, column names and file names holding markup or a right-to-left override, a model
whose log-odds are infinite, a token that cannot be a token, a file over the server's limit,
many files dropped at once, labels of dots; and the headers every answer carries, and what a
page on another origin can do with the server.
"""

from __future__ import annotations

import http.server
import threading
import urllib.error
import urllib.request

import polars as pl
import pytest

import bayeskit as bk
from bayeskit.serve import ServeConfig
from bayeskit.text import TextClassifier

from .conftest import TOKEN, ThreadServer, write_token
from .test_page import (  # noqa: F401 (chrome: the module's browser, a fixture)
    PHONE,
    _as_desktop,
    _as_phone,
    _check,
    _no_earlier_result,
    _open,
    _set_box,
    _text,
    _wait,
    chrome,
)

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = '"><script>alert(2)</script>'
JS_URL = "javascript:alert(3)"
RLO = "\u202emaps"  # RIGHT-TO-LEFT OVERRIDE: "spam" reversed, and whatever follows it
LONG = "L" * 400
#: set before the page's own script runs: every alert, and every element a script adds
SPY = """
window.__alerts = [];
window.alert = window.confirm = window.prompt = (x) => { window.__alerts.push(String(x)); };
"""


@pytest.fixture
def browser(request):
    driver = request.getfixturevalue("chrome")()
    added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SPY})
    yield driver
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", added)
    _as_desktop(driver)


def _nothing_ran(driver) -> None:
    """No alert, and no element that markup in a name would have made."""
    assert driver.execute_script("return window.__alerts") == []
    made = driver.execute_script(
        "return [...document.querySelectorAll('img, iframe, a, object, embed, svg, b')]"
        ".map(e => e.outerHTML).concat(document.scripts.length === 1 ? [] : ['scripts'])"
    )
    assert made == []


def _reads_left_to_right(driver, element_id: str, word: str) -> bool:
    """Whether ``word``, in the element's text, is laid out left to right as written: each
    letter to the right of the one before (an override before it lays it out reversed)."""
    return driver.execute_script(
        """
        const [id, word] = arguments;
        const walker = document.createTreeWalker(document.getElementById(id),
                                                 NodeFilter.SHOW_TEXT);
        for (let node; (node = walker.nextNode());) {
          const at = node.data.indexOf(word);
          if (at < 0) continue;
          const left = (i) => {
            const range = document.createRange();
            range.setStart(node, at + i); range.setEnd(node, at + i + 1);
            return range.getBoundingClientRect().left;
          };
          for (let i = 1; i < word.length; i++) if (!(left(i) > left(i - 1))) return false;
          return true;
        }
        throw new Error(word + ' is not in #' + id);
        """,
        element_id,
        word,
    )


def _content(driver, element_id: str) -> str:
    """An element's text as written (Selenium's text is the text as laid out)."""
    return driver.find_element("id", element_id).get_attribute("textContent")


def _fits(driver) -> None:
    width, scroll = driver.execute_script(
        "return [document.documentElement.clientWidth, document.documentElement.scrollWidth]"
    )
    assert width == PHONE["width"]
    assert scroll <= width


def test_hostile_labels_show_as_text_in_their_own_run(browser, tmp_path):
    """Labels holding markup, a javascript: URL, a line break, 400 letters and a
    right-to-left override: shown as text, nothing runs, and the override reverses the label
    alone (it reversed the rest of the line: "The model now holds …" read backwards); at a
    phone's width nothing is wider than the screen (the 400 letters made the page 3,626
    pixels wide)."""
    labels = [IMG, SCRIPT, JS_URL, "line1\nline2", LONG, RLO]
    texts = [f"alpha{i} beta{i} {IMG} <b>bold</b> gamma" for i in range(len(labels))]
    path = tmp_path / "hostile.bk"
    bk.save(TextClassifier().fit(texts, labels), path)
    server = ThreadServer(ServeConfig(model=str(path), token_file=str(write_token(tmp_path))))
    try:
        _as_phone(browser)
        _open(browser, server)
        message = f"alpha5 beta5 {IMG} <script>alert(4)</script> gamma"
        _set_box(browser, message)
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == RLO)
        assert browser.execute_script("return document.getElementById('words').textContent") == (
            message
        )
        buttons = browser.find_elements("css selector", "#learn-buttons button")
        shown = {b.get_attribute("textContent") for b in buttons}
        assert shown == {f"This is {label}" for label in labels}
        browser.find_element("id", "token").send_keys(TOKEN)
        browser.find_element("id", f"learn-{RLO}").click()
        _wait(browser, lambda d: "The model now holds" in _content(d, "status"))
        _wait(browser, lambda d: "already learned as" in _content(d, "summary"))
        assert _reads_left_to_right(browser, "status", "model now holds")
        assert _reads_left_to_right(browser, "about", "training messages")
        _nothing_ran(browser)
        _fits(browser)
    finally:
        server.kill()


def test_hostile_column_and_file_names_show_as_text(browser, tmp_path):
    """A table model's column names and labels, and the names of chosen files, holding
    markup or an override: shown as text, and the page's own words after them read left to
    right (the override reversed "Paste one or more rows" and the file's error message)."""
    frame = pl.DataFrame({IMG: [1.0, 2.0, 1.1, 2.1], f"{JS_URL}\n{RLO}": [0.1, 0.2, 0.3, 0.4],
                          SCRIPT: ["a<b", IMG, "a<b", IMG]})  # fmt: skip
    path = tmp_path / "table.bk"
    bk.save(bk.MixedNB().fit(frame, [IMG, RLO, IMG, RLO]), path)
    server = ThreadServer(ServeConfig(model=str(path)))
    try:
        _open(browser, server, "training rows")
        assert _reads_left_to_right(browser, "input-hint", "Paste one or more rows")
        _set_box(browser, "2.1,0.4,a<b\n")
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") or _text(d, "summary"))
        assert _text(browser, "summary") == ""
        assert _text(browser, "verdict") in (IMG, RLO)
        assert f"{IMG}: " in _text(browser, "class-bars")
        for name, data in ((f"{RLO} {IMG}.csv", b""), (f"{RLO}.csv", b"caf\xe9")):
            chosen = tmp_path / name
            chosen.write_bytes(data)
            browser.find_element("id", "file").send_keys(str(chosen))
            _wait(browser, lambda d, name=name: _text(d, "summary").startswith(name))
            assert _reads_left_to_right(browser, "summary", "rows in it" if not data else "UTF-8")
        _nothing_ran(browser)
    finally:
        server.kill()


def test_an_infinite_log_odds_is_shown_not_a_script_error(browser, tmp_path):
    """An unsmoothed model gives some words no probability in a class: its log-odds are
    infinite, null in JSON. The page showed "Cannot read properties of null (reading
    'toFixed')" in place of the result; it shows the verdict, and ±∞."""
    model = TextClassifier(model=bk.MultinomialNB(alpha=0, force_alpha=True))
    model.fit(["free cash prize", "lunch notes meeting", "cash prize win", "lunch meeting"],
              ["spam", "ham", "spam", "ham"])  # fmt: skip
    path = tmp_path / "unsmoothed.bk"
    bk.save(model, path)
    server = ThreadServer(ServeConfig(model=str(path)))
    try:
        _open(browser, server)
        _set_box(browser, "free lunch")
        _check(browser)
        _wait(browser, lambda d: _text(d, "summary") != "")
        assert _text(browser, "summary").endswith("log-odds \u00b1\u221e")
        weights = browser.find_elements("css selector", "#reasons tbody td.num")
        assert [w.text for w in weights] == ["\u00b1\u221e", "\u00b1\u221e"]
    finally:
        server.kill()


def test_a_token_that_cannot_be_the_servers_is_named(browser, tmp_path, sms_file):
    """A token with a character outside Latin-1 cannot be sent in a header: fetch threw, and
    the page said the server "did not answer; is it running?". A wrong token is said to be
    refused, not answered with the API's "send Authorization: Bearer <token>"."""
    from .conftest import served_copy

    model = served_copy(tmp_path, sms_file)
    server = ThreadServer(ServeConfig(model=str(model), token_file=str(write_token(tmp_path))))
    try:
        _open(browser, server)
        _set_box(browser, "see you at lunch tomorrow")
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "HAM")
        token = browser.find_element("id", "token")
        token.send_keys("tok\u20acn-0123456789")
        browser.find_element("id", "learn-spam").click()
        _wait(browser, lambda d: _text(d, "status").startswith('The token holds "\u20ac" (U+20AC)'))
        assert "ASCII" in _text(browser, "status")
        token.clear()
        token.send_keys("wrong-token-0123")
        browser.find_element("id", "learn-spam").click()
        _wait(browser, lambda d: _text(d, "status").startswith("The server refused the token"))
    finally:
        server.kill()


def test_a_file_over_the_servers_limit_is_refused_before_it_is_read(browser, tmp_path, sms_file):
    """A file larger than the server's --max-body is refused on the page, naming its size and
    the limit, and never read into the box (a 20 MB file took the browser most of a minute
    to show, and was then refused by the server)."""
    from .conftest import served_copy

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file)),
                                      max_body_bytes=4096))  # fmt: skip
    big = tmp_path / "big.txt"
    big.write_bytes(b"free prize " * 500)
    try:
        _open(browser, server)
        _set_box(browser, "see you at lunch")
        browser.find_element("id", "file").send_keys(str(big))
        said = "big.txt is 5500 bytes; this server accepts at most 4096 (bayeskit serve --max-body)"
        _wait(browser, lambda d: _text(d, "summary").startswith(said))
        _no_earlier_result(browser)
        assert browser.find_element("id", "message").get_attribute("value") == "see you at lunch"
    finally:
        server.kill()


def test_several_files_dropped_are_refused_not_the_first_checked(browser, tmp_path, sms_file):
    """1,000 files dropped at once: the page checked the first and dropped the others without
    a word; it says it checks one message, and checks none."""
    from .conftest import served_copy

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file))))
    try:
        _open(browser, server)
        browser.execute_script(
            """
            const data = new DataTransfer();
            for (let i = 0; i < 1000; i++)
              data.items.add(new File(['free cash ' + i], 'f' + i + '.txt', {type: 'text/plain'}));
            document.getElementById('message').dispatchEvent(
                new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));
            """
        )
        said = "1,000 files were dropped: the page checks one message at a time; drop one file."
        _wait(browser, lambda d: _text(d, "summary") == said)
        assert browser.find_element("id", "message").get_attribute("value") == ""
    finally:
        server.kill()


def test_a_label_of_dots_is_not_sent_to_another_url(browser, tmp_path):
    """A label "." or ".." cannot be a URL's path segment: the browser removes it, and
    "This is .." posted to / (answered "POST is not allowed on /"), "This is ." to /learn/
    ("unknown label ''"). The page says so, and learns nothing; other labels learn."""
    path = tmp_path / "dots.bk"
    bk.save(TextClassifier().fit(["a b c", "d e f", "g h i"], ["..", ".", "ok"]), path)
    server = ThreadServer(ServeConfig(model=str(path), token_file=str(write_token(tmp_path))))
    try:
        _open(browser, server)
        _set_box(browser, "a b c")
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") == "..")
        browser.find_element("id", "token").send_keys(TOKEN)
        for label in ("..", "."):
            browser.find_element("id", f"learn-{label}").click()
            said = f"This page cannot teach the label {label}: a browser removes"
            _wait(browser, lambda d, said=said: _text(d, "status").startswith(said))
        browser.find_element("id", "learn-ok").click()
        _wait(browser, lambda d: _text(d, "status").startswith("Learned as ok."))
        assert "(. 1, .. 1, ok 2)" in _text(browser, "about")
    finally:
        server.kill()


# ------------------------------------------------------------------- headers and origins
_EXPECTED = {
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
}


def test_every_answer_carries_the_browsers_defences(serve, sms_file):
    """Answers (JSON, refusals, the Host check's 421) said nothing of sniffing, caching or
    framing; each now says nosniff, no-store, DENY and a policy that runs nothing. The page
    keeps its own policy (its script's and style's hashes)."""
    client = serve(sms_file)
    answers = {
        "metadata": client.get("/metadata"),
        "check": client.post(
            "/check", content=b"free prize", headers={"Content-Type": "text/plain"}
        ),
        "no token": client.post("/learn/spam", content=b"x"),
        "missing": client.get("/nosuch"),
        "foreign host": client.get("/metadata", headers={"Host": "evil.example"}),
        "page": client.get("/"),
    }
    assert [a.status_code for a in answers.values()] == [200, 200, 401, 404, 421, 200]
    for name, answer in answers.items():
        for header, value in _EXPECTED.items():
            assert answer.headers.get(header) == value, (name, header)
        policy = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy, name
        if name == "page":
            assert "script-src 'sha256-" in policy
        else:
            assert policy == "default-src 'none'; frame-ancestors 'none'", name


class _Other(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # quiet
        pass


def test_a_page_on_another_origin_can_neither_learn_nor_read(browser, tmp_path, sms_file):
    """A page of another origin (another port) posts to the server as a form or fetch can:
    a simple text/plain POST to /learn is refused (another site's Origin: 403) and the model
    is unchanged; a learn with the token needs a preflight, which the server does not grant
    (403 too); a check's answer cannot be read (no Access-Control-Allow-Origin)."""
    from .conftest import served_copy
    from .test_page import _api

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file)),
                                      token_file=str(write_token(tmp_path))))  # fmt: skip
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!DOCTYPE html><title>elsewhere</title>")

    def handler(*args: object) -> _Other:
        return _Other(*args, directory=str(site))  # type: ignore[arg-type]

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        before = _api(server, "/metadata")["training_rows"]
        browser.get(f"http://127.0.0.1:{other.server_address[1]}/")
        outcome = browser.execute_async_script(
            """
            const [url, token, done] = arguments;
            const tried = async (f) => {
              try { return await f(); } catch (e) { return 'blocked'; }
            };
            const body = 'Free entry to win a prize';
            Promise.all([
              tried(async () => (await fetch(url + '/learn/spam', {method: 'POST', mode: 'no-cors',
                  headers: {'Content-Type': 'text/plain'}, body})).type),
              tried(async () => (await fetch(url + '/learn/spam', {method: 'POST',
                  headers: {'Content-Type': 'text/plain', 'Authorization': 'Bearer ' + token},
                  body})).status),
              tried(async () => (await fetch(url + '/check', {method: 'POST', body})).status),
            ]).then(done);
            """,
            server.url,
            TOKEN,
        )
        # the first was sent (opaque: nothing read), the others never answered to the page
        assert outcome == ["opaque", "blocked", "blocked"]
        assert _api(server, "/metadata")["training_rows"] == before
        request = urllib.request.Request(server.url + "/metadata", method="OPTIONS")
        request.add_header("Origin", "http://evil.example")
        request.add_header("Access-Control-Request-Method", "POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 403  # another site's Origin (405 before: no OPTIONS)
        assert refused.value.headers.get("Access-Control-Allow-Origin") is None
    finally:
        other.shutdown()
        other.server_close()
        server.kill()


def test_the_page_keeps_the_token_out_of_urls_and_storage(browser, tmp_path, sms_file):
    """After a learn, the token is in no URL the page asked, in neither storage nor a
    cookie, and the requests carry no Referer (the page's policy is no-referrer)."""
    from .conftest import served_copy

    server = ThreadServer(ServeConfig(model=str(served_copy(tmp_path, sms_file)),
                                      token_file=str(write_token(tmp_path))))  # fmt: skip
    try:
        _open(browser, server)
        _set_box(browser, "Free entry to win a prize now")
        _check(browser)
        _wait(browser, lambda d: _text(d, "verdict") in ("SPAM", "UNSURE"))
        browser.find_element("id", "token").send_keys(TOKEN)
        browser.find_element("id", "learn-spam").click()
        _wait(browser, lambda d: "Learned as spam" in _text(d, "status"))
        kept = browser.execute_script(
            "return [JSON.stringify(localStorage), JSON.stringify(sessionStorage), "
            "document.cookie, location.href, "
            "performance.getEntriesByType('resource').map(e => e.name).join(' ')]"
        )
        assert all(TOKEN not in text for text in kept)
        assert "/learn/spam" in kept[-1]
        assert browser.execute_script("return document.referrer") == ""
    finally:
        server.kill()


def test_a_probability_is_never_shown_as_a_certainty_it_is_not(browser, tmp_path):
    """P(spam) = 0.9999999895 was shown as "100.000%" (603 messages of the SMS collection
    have 0.9999995 <= p < 1): the page takes more decimals, up to six, then says "> …"."""
    model = TextClassifier().fit(["free cash prize", "lunch notes"], ["spam", "ham"])
    path = tmp_path / "tiny.bk"
    bk.save(model, path)
    server = ThreadServer(ServeConfig(model=str(path)))
    try:
        _open(browser, server)
        shown = browser.execute_script(
            "return [0.9999999895, 0.99999999999, 0.9999987, 1, 0, 1e-12, 0.5, 0.0004].map(fmt)"
        )
        assert shown == [
            "99.999999%", "> 99.999999%", "99.9999%", "100.000%", "0.000%", "< 0.000001%",
            "50.0%", "0.040%",
        ]  # fmt: skip
    finally:
        server.kill()
