"""A page of another site can send requests to a server on this machine without reading the
answers (a form's POST, ``fetch`` in ``no-cors`` mode): each made the server check a message
for nobody. A request whose Origin header names another site is answered 403; the page's own
requests (same origin) and programs (no Origin) are answered as before."""

from __future__ import annotations

import pytest

TEXT = b"free cash prize now"
PLAIN = {"Content-Type": "text/plain"}


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "null",  # a sandboxed frame, a file:// page
        "https://localhost",  # another scheme is another site
        "http://localhost:8081",  # another port too
        "http://127.0.0.1",  # another name of this machine: another origin (RFC 6454)
        "http://[",  # no origin at all
    ],
)
def test_a_page_of_another_site_is_refused(serve, sms_file, origin):
    client = serve(sms_file)
    answer = client.post("/check", content=TEXT, headers={**PLAIN, "Origin": origin})
    assert answer.status_code == 403
    assert "a page of another site" in answer.json()["error"]
    assert repr(origin) in answer.json()["error"]
    # the learns the page could send are refused before the token is even looked at
    learn = client.post("/learn/spam", content=TEXT, headers={**PLAIN, "Origin": origin})
    assert learn.status_code == 403


@pytest.mark.parametrize("origin", [None, "http://localhost", "http://LOCALHOST:80"])
def test_the_servers_own_page_and_programs_are_answered(serve, sms_file, origin):
    headers = PLAIN | ({"Origin": origin} if origin else {})
    answer = serve(sms_file).post("/check", content=TEXT, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["verdict"] in ("spam", "ham", "unsure")


def test_with_the_host_check_off_the_origin_is_not_checked(serve, sms_file):
    client = serve(sms_file, allow_hosts=["*"])  # behind a proxy that checks names itself
    headers = {**PLAIN, "Origin": "https://mail.example.org"}
    assert client.post("/check", content=TEXT, headers=headers).status_code == 200
