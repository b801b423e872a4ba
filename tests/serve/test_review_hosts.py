"""The Host check against requests a browser does not send but a client can: a port in
non-ASCII digits, two Host headers, a request target in absolute form (whose name is the
request's host: RFC 9112, section 3.2.2), and an internationalized name given to
--allow-host (a browser sends its ASCII form). A real ``bayeskit serve``, raw requests."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest

from bayeskit.serve.hosts import HostCheck, allow_host_entry, split_host

from .conftest import ServerProcess, served_copy


def _raw(port: int, head: bytes, address: str = "127.0.0.1") -> tuple[int, dict | bytes]:
    with socket.create_connection((address, port), timeout=30) as sock:
        sock.sendall(head + b"Connection: close\r\n\r\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    status_line, _, rest = b"".join(chunks).partition(b"\r\n")
    headers, _, content = rest.partition(b"\r\n\r\n")
    is_json = b"content-type: application/json" in headers.lower()
    return int(status_line.split()[1]), json.loads(content) if is_json else content


@pytest.fixture(scope="module")
def server(sms_file, tmp_path_factory):
    model = served_copy(tmp_path_factory.mktemp("hosts"), sms_file)
    process = ServerProcess(model, "--allow-host", "bücher.example")
    yield process
    process.kill()
    assert not [line for line in process.lines if "Traceback" in line], process.lines


def test_a_port_of_digits_that_are_not_ascii_is_refused(server):
    # "²" is a digit to str.isdigit, not to int(): refused, not an internal error
    status, answer = _raw(server.port, b"GET /metadata HTTP/1.1\r\nHost: localhost:\xb2\r\n")
    assert status == 421
    assert isinstance(answer, dict)
    assert "names 'localhost:²'" in answer["error"]


@pytest.mark.parametrize("hosts", [(b"localhost", b"attacker.example"),
                                   (b"attacker.example", b"localhost")])  # fmt: skip
def test_two_host_headers_are_refused(server, hosts):
    head = b"GET /metadata HTTP/1.1\r\nHost: " + hosts[0] + b"\r\nHost: " + hosts[1] + b"\r\n"
    status, answer = _raw(server.port, head)
    assert status == 421
    assert isinstance(answer, dict)
    assert answer["error"].startswith("the request has 2 Host headers")
    assert "attacker.example" in answer["error"]


def test_the_name_of_a_target_in_absolute_form_is_checked(server):
    head = b"GET http://attacker.example/metadata HTTP/1.1\r\nHost: localhost\r\n"
    status, answer = _raw(server.port, head)
    assert status == 421
    assert isinstance(answer, dict)
    assert "names 'attacker.example'" in answer["error"]
    head = f"GET http://localhost:{server.port}/metadata HTTP/1.1\r\nHost: attacker.example\r\n"
    assert _raw(server.port, head.encode())[0] == 200


def test_an_internationalized_name_allowed_answers_its_ascii_form(server):
    head = b"GET /metadata HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n"
    assert _raw(server.port, head)[0] == 200


def test_what_was_answered_still_is(server):
    port = server.port
    for host in (f"localhost:{port}", "LOCALHOST.", f"[::1]:{port}", "127.0.0.1"):
        status, answer = _raw(port, f"GET /metadata HTTP/1.1\r\nHost: {host}\r\n".encode())
        assert status == 200, (host, answer)
    assert _raw(port, b"GET /ping HTTP/1.0\r\n")[0] == 200  # no Host header


@pytest.mark.parametrize("port", ["\xb2", "\xb9", "\u0663", "８０"])
def test_a_port_of_other_digits_is_no_port(port):
    assert split_host(f"localhost:{port}") is None


def test_an_internationalized_name_is_allowed_in_its_ascii_form():
    check = HostCheck(lambda *a: None, "127.0.0.1", ["Bücher.example:8443", "münchen.de"])
    assert check.extra == [("xn--bcher-kva.example", 8443), ("xn--mnchen-3ya.de", None)]
    with pytest.raises(ValueError, match="is not a host name"):
        allow_host_entry("a..ü")  # no ASCII form: an empty label


def _an_address_of_this_machine() -> str | None:
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = [a for a in out.stdout.split() if "." in a and not a.startswith("127.")]
    return found[0] if found else None


def test_bound_to_an_address_of_the_network(sms_file, tmp_path):
    """--host ADDRESS (a LAN address): that address is answered, with its port or none; other
    names are not."""
    address = _an_address_of_this_machine()
    if address is None:
        pytest.skip("this machine has no IPv4 address besides the loopback")
    model = served_copy(tmp_path, sms_file)
    server = ServerProcess(model, "--host", address)
    port = server.port
    try:
        for host, status in ((f"{address}:{port}", 200), (address, 200),
                             (f"{address}:{port + 1}", 421),
                             (f"attacker.example:{port}", 421)):  # fmt: skip
            head = f"GET /metadata HTTP/1.1\r\nHost: {host}\r\n".encode()
            assert _raw(port, head, address)[0] == status, host
    finally:
        server.kill()


def test_an_ipv4_client_of_a_dual_stack_server_is_answered_by_its_address():
    """Listening on ``::`` (every address, IPv4 clients too), the server sees an IPv4 client's
    request arrive at ``::ffff:192.0.2.7``; the browser's Host is ``192.0.2.7:PORT``."""
    check = HostCheck(lambda *a: None, "::", [])
    scope = {"server": ("::ffff:192.0.2.7", 8000), "scheme": "http"}
    assert check.answers("192.0.2.7:8000", scope)
    assert check.answers("192.0.2.7", scope)
    assert not check.answers("192.0.2.8:8000", scope)
    assert not check.answers("attacker.example:8000", scope)
    assert "192.0.2.7 on port 8000" in check.refusal("attacker.example", scope)


def test_bound_to_every_address_of_both_families(sms_file, tmp_path):
    address = _an_address_of_this_machine()
    if address is None or not socket.has_ipv6:
        pytest.skip("this machine has no IPv4 address besides the loopback, or no IPv6")
    model = served_copy(tmp_path, sms_file)
    try:
        server = ServerProcess(model, "--host", "::")
    except Exception as exc:  # an IPv6 socket refused by this machine
        pytest.skip(f"cannot listen on '::' here ({exc})")
    try:
        head = f"GET /metadata HTTP/1.1\r\nHost: {address}:{server.port}\r\n".encode()
        assert _raw(server.port, head, address)[0] == 200
        head = f"GET /metadata HTTP/1.1\r\nHost: attacker.example:{server.port}\r\n".encode()
        assert _raw(server.port, head, address)[0] == 421
    finally:
        server.kill()


def test_two_origin_headers_are_refused(server):
    """Only the first was checked: a second, cross-site one went through to the app."""
    for origins in ((b"http://localhost", b"http://attacker.example"),
                    (b"http://localhost", b"http://localhost")):  # fmt: skip
        head = b"GET /metadata HTTP/1.1\r\nHost: localhost\r\n" + b"".join(
            b"Origin: " + origin + b"\r\n" for origin in origins
        )
        status, answer = _raw(server.port, head)
        assert status == 403
        assert isinstance(answer, dict)
        assert answer["error"].startswith("the request has 2 Origin headers")
    one = b"GET /metadata HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost\r\n"
    assert _raw(server.port, one)[0] == 200
