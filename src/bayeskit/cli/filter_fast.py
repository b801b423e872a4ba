"""``bayeskit filter MODEL`` on one message without numpy, scikit-learn or typer.

A mail delivery agent starts the filter once per message, so its start-up is the cost: this
module (standard library only, with :mod:`bayeskit.text.token_store` and the e-mail reader)
scores the message from the token store beside the model file. When the store cannot give the
model's own answer (missing, stale, a filter it cannot score), the message is scored by the
full model instead (:func:`bayeskit.cli.filter_full.classify_message`) and the store is
rebuilt for the next message, when no learner holds the model's lock. Either way the message
goes out unchanged but for the two verdict headers, and whatever fails, it goes out as it
came in with status 3.
"""

from .mail_headers import (
    ERROR,
    SCORED_BYTES,
    UNSURE,
    content_problem,
    deliver,
    fail,
    failed,
    message_head,
    model_file,
    read_input,
    stamped,
    unsure,
    unsure_of_content,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    import _socket
    from collections.abc import Sequence


def fast_args(args: "Sequence[str]") -> tuple[str | None, str | None, bool, bool] | None:
    """``(MODEL, --server URL, --exit-zero, --verbose)`` when ``args`` (after ``filter``)
    ask to classify one message, else None (learning, help, anything else: the full command
    line)."""
    rest = list(args)
    server = None
    if "--server" in rest:
        at = rest.index("--server")
        if at + 1 >= len(rest):
            return None
        server = rest[at + 1]
        del rest[at : at + 2]
    flags = [a for a in rest if a.startswith("-")]
    plain = [a for a in rest if not a.startswith("-")]
    if len(plain) > 1 or (not plain and server is None):
        return None
    if not set(flags) <= {"--exit-zero", "--verbose"}:
        return None
    return (plain[0] if plain else None), server, "--exit-zero" in flags, "--verbose" in flags


def ask_server(url: str, raw: bytes, timeout: float = 30.0) -> tuple[float | None, str]:
    """``(P(spam|x), verdict)`` of one message from a running ``bayeskit serve``: its
    ``POST /verdict`` with the raw message as ``message/rfc822``, answered by one line of
    text, ``"spam 0.987…"``; ``(None, reason)`` when its filter has learned one class only
    (it answers ``"unsure - REASON"``). One HTTP/1.1 request on a plain socket, read without
    json (which imports the regular expressions): this client's start-up is most of a
    message's time, and ``http.client`` alone imports the e-mail parser, a third of it."""
    host, port, path = server_address(url)
    path = path.rstrip("/") + "/verdict"
    named = f"[{host}]" if ":" in host else host  # an IPv6 address in brackets (RFC 3986, 3.2.2)
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {named}:{port}\r\nContent-Type: message/rfc822\r\n"
        f"Content-Length: {len(raw)}\r\nConnection: close\r\n\r\n"
    ).encode("ascii") + raw
    chunks: list[bytes] = []
    try:
        sock = _connect(host, port, timeout)
        try:
            sock.sendall(request)
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        finally:
            sock.close()
    except OSError as exc:  # named by the server's address ("[Errno 111]" alone says little)
        reason = exc.strerror or exc or type(exc).__name__
        raise OSError(f"--server {url}: the server cannot be reached ({reason})") from None
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        raise ValueError(f"{url}: not an HTTP server")
    if any(line.lower().replace(" ", "") == "transfer-encoding:chunked" for line in lines):
        body = _unchunked(body)
    if parts[1] != "200":
        raise ValueError(f"{url}: {parts[1]} {body[:200].decode('utf-8', 'replace')}")
    answer = body.decode("utf-8", "replace").split(maxsplit=2)
    if answer[:2] == ["unsure", "-"] and len(answer) == 3:
        # a filter that has learned one class: no score; its reason goes into a header (one
        # line of printable ASCII, as RFC 5322 holds it)
        return None, "".join(c for c in answer[2].strip() if " " <= c <= "~")[:200]
    if len(answer) != 2 or answer[0] not in ("spam", "ham", "unsure"):
        raise ValueError(f"{url}: not a verdict ({body[:80]!r}); is it bayeskit serve?")
    return float(answer[1]), answer[0]


def _connect(host: str, port: int, timeout: float) -> "_socket.socket":
    """A connected TCP socket, as :func:`socket.create_connection` makes one (each address
    of the host in turn), from the C module itself: ``socket`` imports enum and selectors,
    and a host name given as text is encoded by the IDNA codec (unicodedata, stringprep),
    together more than the request's own time; an ASCII name is passed as bytes instead."""
    import _socket

    try:
        name: str | bytes = host.encode("ascii")
    except UnicodeEncodeError:
        name = host
    failure: OSError = OSError(f"{host}: no address")
    for family, kind, proto, _, address in _socket.getaddrinfo(name, port, 0, _socket.SOCK_STREAM):
        sock = _socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError as exc:
            sock.close()
            failure = exc
            continue
        return sock
    raise failure


def server_address(url: str) -> tuple[str, int, str]:
    """``(host, port, path)`` of ``--server``'s ``http://HOST[:PORT][/PATH]`` (or
    ``HOST[:PORT]``; an IPv6 host in brackets), read as :func:`urllib.parse.urlsplit` reads it,
    without importing it (urllib.parse and ipaddress are a sixth of this client's start-up)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "http", url
    netloc, slash, path = rest.partition("/")
    netloc = netloc.split("?")[0].split("#")[0].rpartition("@")[2]  # no query, no user
    path = (slash + path).split("?")[0].split("#")[0]
    if netloc.startswith("["):
        host, _, tail = netloc[1:].partition("]")
        port_text = tail[1:] if tail.startswith(":") else tail
    else:
        host, _, port_text = netloc.partition(":")
    if scheme.lower() != "http" or not host or (port_text and not port_text.isdigit()):
        raise ValueError(f"--server {url!r}: an http://HOST:PORT address")
    port = int(port_text) if port_text else 80
    if port > 65535:
        raise ValueError(f"--server {url!r}: port {port} is out of range 0-65535")
    return host.lower(), port, path


def _unchunked(body: bytes) -> bytes:
    out: list[bytes] = []
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(body[:size])
        body = body[size + 2 :]
    return b"".join(out)


def classify(model_path: str, raw: bytes, verbose: bool = False) -> tuple[int, bytes]:
    """(exit status, the message with the verdict headers) for one raw message: by the token
    store when it can, else by the full model (and the store rebuilt)."""
    from ..text import token_store

    head = message_head(raw)
    if head is None:
        return ERROR, raw
    model_path = model_file(model_path)
    try:
        p_spam, verdict = token_store.score_message(model_path, raw[:SCORED_BYTES])
    except token_store.DeclinedError as why:
        reason = str(why)
    except Exception as exc:
        reason = f"the token store failed ({exc or type(exc).__name__})"
    else:
        if verbose:
            fail("scored from the token store")
        return stamped(raw, head, p_spam, verdict)
    if verbose:
        fail(f"scored by the full model: {reason}")
    from .filter_full import classify_message

    return classify_message(model_path, raw, rebuild_store=True)


def main(args: "Sequence[str]") -> int | None:
    """Run ``bayeskit filter`` on standard input when ``args`` ask to classify one message;
    None when they ask for anything else (the full command line handles it)."""
    parsed = fast_args(args)
    if parsed is None:
        return None
    return pass_through(*parsed)


def pass_through(model_path: str | None, server: str | None, exit_zero: bool, verbose: bool) -> int:
    """Classify the message on standard input into standard output (unchanged but for the
    verdict headers; as it came in whatever fails) and return the exit status. A message
    that cannot be scored (empty, no header lines) is an error (3), passed through unchanged;
    with ``exit_zero`` it goes out Unsure, with the reason, and the status is 0. With
    ``--server URL`` a running ``bayeskit serve`` scores it (and MODEL, when given too, if
    the server cannot)."""
    try:
        raw = read_input()
    except OSError as exc:
        failed(exc)
        return ERROR
    status, out = ERROR, raw
    try:
        problem = content_problem(raw)
        if problem is None:
            status, out = _one(raw, model_path, server, verbose)
        elif exit_zero:
            # The message's own problem, which no retry mends: delivered, as Unsure with
            # the reason in a header (an error would have maildrop defer it, and the mail
            # server retry it until it bounces). A problem of the model or the installation
            # stays an error: mail waits in the queue until it is mended.
            fail(f"<stdin>: {problem}; passed on as Unsure")
            status, out = UNSURE, unsure_of_content(raw, problem)
        else:
            fail(f"<stdin>: {problem}; passed through unchanged")
    except Exception as exc:  # a filter passes the mail on whatever failed
        failed(exc)
    finally:
        if not deliver(out):
            status = ERROR
    return 0 if exit_zero and status != ERROR else status


def _one(
    raw: bytes, model_path: str | None, server: str | None, verbose: bool
) -> tuple[int, bytes]:
    if server is not None:
        head = message_head(raw)
        if head is None:
            return ERROR, raw
        try:
            p_spam, verdict = ask_server(server, raw[:SCORED_BYTES])
        except Exception as exc:
            why = str(exc) or type(exc).__name__
            if server not in why:  # (what it says names the server already, mostly)
                why = f"{server}: {why}"
            if model_path is None:
                raise RuntimeError(why) from None
            fail(f"{why}; scoring with {model_path}")
        else:
            if p_spam is None:  # unsure of every message: the reason, no score, as MODEL's
                fail(f"{server}: {verdict}, so it is unsure of every message")
                return UNSURE, unsure(raw, head, verdict)
            if verbose:
                fail(f"scored by {server}")
            return stamped(raw, head, p_spam, verdict)
    assert model_path is not None
    return classify(model_path, raw, verbose)
