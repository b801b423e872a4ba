"""The names the server answers to: a request whose Host header names another (a page of
another site whose name was rebound to 127.0.0.1: DNS rebinding) is refused with 421 before
any route reads it, by a real ``bayeskit serve`` reached with raw requests."""

from __future__ import annotations

import json
import socket

import pytest

from bayeskit.serve import ServeConfig
from bayeskit.serve.hosts import split_host

from .conftest import SPAMMY, ServerProcess, ThreadServer, served_copy


def _ask(port: int, host: str | None, path: str = "/metadata", body: bytes = b"",
         version: str = "1.1") -> tuple[int, dict | bytes]:  # fmt: skip
    """One raw request (its Host header exactly as given, none for None): status, answer."""
    method = "POST" if body else "GET"
    head = f"{method} {path} HTTP/{version}\r\n"
    head += f"Host: {host}\r\n" if host is not None else ""
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode("latin-1") + body)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    status_line, _, rest = answer.partition(b"\r\n")
    headers, _, content = rest.partition(b"\r\n\r\n")
    is_json = b"content-type: application/json" in headers.lower()
    return int(status_line.split()[1]), json.loads(content) if is_json else content


def test_a_request_naming_another_host_is_refused(sms_file, tmp_path):
    model = served_copy(tmp_path, sms_file)
    server = ServerProcess(model, "--allow-host", "mail.example.org",
                           "--allow-host", "proxy.example:8443")  # fmt: skip
    port = server.port
    try:
        # a rebinding page's requests carry its own name: refused, saying why and what to do
        status, answer = _ask(port, f"attacker.example:{port}")
        assert status == 421
        error = answer["error"]
        assert f"names 'attacker.example:{port}'" in error
        assert "DNS rebinding" in error
        assert "restart it with --allow-host attacker.example" in error
        answered = f"localhost, 127.0.0.1, [::1] on port {port}, and mail.example.org, "
        assert answered + "proxy.example:8443)" in error
        assert _ask(port, "attacker.example", "/check", SPAMMY.encode())[0] == 421
        assert _ask(port, f"localhost:{port + 1 if port < 65535 else 1}")[0] == 421
        assert _ask(port, "proxy.example")[0] == 421  # allowed on port 8443 only
        assert _ask(port, "a b")[0] == 421
        # this machine's names, with the server's port or without one; the names allowed
        for host in (f"localhost:{port}", "localhost", f"127.0.0.1:{port}", "127.0.0.1",
                     f"[::1]:{port}", f"LocalHost.:{port}", "mail.example.org",
                     "mail.example.org:80", "proxy.example:8443"):  # fmt: skip
            status, answer = _ask(port, host)
            assert status == 200, (host, answer)
            assert answer["estimator"] == "SpamFilter"
        status, answer = _ask(port, f"127.0.0.1:{port}", "/check", SPAMMY.encode())
        assert status == 200
        assert answer["verdict"] == "spam"
        # HTTP/1.0 without a Host header (no browser sends one)
        assert _ask(port, None, "/ping", version="1.0")[0] == 200
        code, err = _bad_allow_host()
        assert code == 2
        assert "'a b' is not a host name" in err
    finally:
        server.kill()


def _bad_allow_host() -> tuple[int, str]:
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    result = CliRunner().invoke(app, ["serve", "model.bk", "--allow-host", "a b"])
    return result.exit_code, result.stderr


def test_the_help_names_the_option():
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "--allow-host" in result.stdout
    assert "DNS rebinding" in result.stdout


def test_a_star_answers_every_name(sms_file, tmp_path):
    model = served_copy(tmp_path, sms_file)
    server = ThreadServer(ServeConfig(model=str(model), allow_hosts=("*",)))
    try:
        assert _ask(server.port, "anything.example:1")[0] == 200
    finally:
        server.kill()


def test_the_address_a_request_arrived_at_is_answered(sms_file, tmp_path):
    """Listening on every address (--host 0.0.0.0), the server answers a request sent to the
    address it arrived at (a browser's Host for http://ADDRESS:PORT/): no rebinding page can
    send an address as its Host."""
    model = served_copy(tmp_path, sms_file)
    server = ThreadServer(ServeConfig(model=str(model), host="0.0.0.0"))
    try:
        assert _ask(server.port, f"127.0.0.1:{server.port}")[0] == 200
        assert _ask(server.port, f"0.0.0.0:{server.port}")[0] == 200
        assert _ask(server.port, f"192.0.2.1:{server.port}")[0] == 421
    finally:
        server.kill()


@pytest.mark.parametrize(
    ("host", "parsed"),
    [
        ("localhost", ("localhost", None)),
        ("LOCALHOST:8000", ("localhost", 8000)),
        ("localhost.", ("localhost", None)),
        ("[::1]:8000", ("::1", 8000)),
        ("[::1]", ("::1", None)),
        ("::1:8000", None),  # an IPv6 address without its brackets
        ("[::1", None),
        ("[::1]x", None),
        ("host:port", None),
        ("host:0", None),
        ("host:70000", None),
        ("", None),
        ("a/b", None),
        ("a\x00b", None),
        ("user@host", None),
    ],
)
def test_host_headers_are_read(host, parsed):
    assert split_host(host) == parsed


def test_bayeskit_filter_writes_an_ipv6_server_in_brackets(monkeypatch):
    """``Host: ::1:8000`` (what it sent) is no host: the server refused it."""
    from bayeskit.cli import filter_fast

    sent: list[bytes] = []

    class Socket:
        def sendall(self, data: bytes) -> None:
            sent.append(data)

        def recv(self, size: int) -> bytes:
            answer, self.recv = b"HTTP/1.1 200 OK\r\n\r\nspam 0.99\n", lambda size: b""  # type: ignore[method-assign]
            return answer

        def close(self) -> None:
            pass

    monkeypatch.setattr(filter_fast, "_connect", lambda host, port, timeout: Socket())
    assert filter_fast.ask_server("http://[::1]:8000/", b"Subject: hi\n\nhi\n") == (0.99, "spam")
    assert b"\r\nHost: [::1]:8000\r\n" in sent[0]
    filter_fast.ask_server("http://127.0.0.1:8000", b"Subject: hi\n\nhi\n")
    assert b"\r\nHost: 127.0.0.1:8000\r\n" in sent[1]
