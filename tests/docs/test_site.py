"""The built documentation site (``make -C docs html``) in a real browser: Debian's chromium,
headless, driven through chromium-driver. The search finds pages, the navigation's links load,
the gallery's figures load, and pages have no horizontal overflow at a phone's width.

Skips, saying why, when the site is not built or chromium / chromedriver are absent; CI builds
the site first (.ci/run), then runs this file.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

SITE = Path(__file__).resolve().parents[2] / "docs" / "_build" / "html"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
DRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None
)
pytestmark = [
    pytest.mark.skipif(
        not (SITE / "index.html").is_file(),
        reason="the documentation is not built (pip install -e '.[docs]' && make -C docs html)",
    ),
    pytest.mark.skipif(
        CHROMIUM is None or DRIVER is None,
        reason="Debian's chromium and chromium-driver are not installed "
        "(apt-get install chromium chromium-driver)",
    ),
]
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

PHONE = {"width": 375, "height": 740, "deviceScaleFactor": 2, "mobile": True}
# Pages a reader lands on: the front page, a guide page with math and tables, an API page, a
# gallery page with a figure, and the widest benchmark tables.
PAGES = [
    "index.html",
    "guide/decision-rule.html",
    "guide/cli.html",
    "api/index.html",
    "api/generated/bayeskit.MultinomialNB.html",
    "auto_examples/index.html",
    "auto_examples/plot_decision_boundaries.html",
    "benchmarks/accuracy.html",
]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (as a reader's browser gets it)."""
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-sync", f"--user-data-dir={profile}", "--window-size=1200,1000",
    ):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def test_search_returns_results(browser, site):
    from selenium.webdriver.common.by import By

    for query, page in [("MultinomialNB", "MultinomialNB"), ("loss matrix", "decision")]:
        browser.get(f"{site}search.html?q={query.replace(' ', '+')}")
        results = _wait(
            browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#search-results ul li a")
        )
        hrefs = [a.get_attribute("href") for a in results]
        assert any(page in href for href in hrefs), (query, hrefs)


def _internal_links(driver, base: str) -> set[str]:
    from selenium.webdriver.common.by import By

    links = set()
    for a in driver.find_elements(By.CSS_SELECTOR, "nav a[href], .bd-sidebar a[href]"):
        href = a.get_attribute("href") or ""
        if href.startswith(base):
            links.add(href.split("#")[0])
    return links


def test_navigation_links_load(browser, site):
    """Every link of the header and the sidebars of the front page and of the guide's index
    answers 200 and has a title; following the first guide link by a click lands on it."""
    from selenium.webdriver.common.by import By

    links: set[str] = set()
    for page in ("index.html", "guide/index.html", "api/index.html"):
        browser.get(site + page)
        links |= _internal_links(browser, site)
    assert len(links) >= 15, links
    for link in sorted(links):
        with urllib.request.urlopen(link, timeout=30) as answer:  # the local server
            assert answer.status == 200, link
            assert b"<title>" in answer.read(), link
    browser.get(site + "guide/index.html")
    target = browser.find_element(By.CSS_SELECTOR, "article a.reference.internal[href*='decision']")
    target.click()
    _wait(browser, lambda d: "decision-rule" in d.current_url)
    assert "decision rule" in browser.title.lower()


def test_gallery_images_load(browser, site):
    from selenium.webdriver.common.by import By

    browser.get(site + "auto_examples/index.html")
    thumbs = browser.find_elements(By.CSS_SELECTOR, ".sphx-glr-thumbcontainer")
    assert len(thumbs) >= 10
    pages = {
        urljoin(site + "auto_examples/", urlparse(a.get_attribute("href")).path.split("/")[-1])
        for a in browser.find_elements(By.CSS_SELECTOR, ".sphx-glr-thumbcontainer a")
    }
    for page in [site + "auto_examples/index.html", *sorted(pages)]:
        browser.get(page)
        _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
        images = browser.execute_script(
            "return Array.from(document.querySelectorAll('article img'))"
            ".map(i => [i.currentSrc, i.complete, i.naturalWidth])"
        )
        assert images, f"{page}: no images"
        broken = [src for src, complete, width in images if not (complete and width > 0)]
        assert not broken, f"{page}: images that did not load: {broken}"


def test_pages_fit_a_phone(browser, site):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        for page in PAGES:
            browser.get(site + page)
            _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
            width, viewport = browser.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]"
            )
            assert viewport <= PHONE["width"] + 1, viewport
            assert width <= viewport + 1, f"{page}: {width} px wide in a {viewport} px window"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_formulas_render_from_the_site_itself(browser, site):
    """The guide's formulas are typeset by the MathJax copied into the site: every script a
    page loads comes from the site (none from a CDN), and the display math of the decision
    rule's page becomes MathJax's output."""
    browser.get(site + "guide/decision-rule.html")
    scripts = browser.execute_script(
        "return Array.from(document.scripts).map(s => s.src).filter(s => s)"
    )
    outside = [src for src in scripts if not src.startswith(site)]
    assert not outside, f"scripts loaded from outside the site: {outside}"
    assert any("mathjax" in src for src in scripts), scripts
    typeset = _wait(
        browser,
        lambda d: d.execute_script("return document.querySelectorAll('mjx-container').length"),
    )
    assert typeset >= 3, typeset
