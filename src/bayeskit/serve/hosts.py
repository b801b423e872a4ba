"""The names the server answers to: a Host allow-list against DNS rebinding.

A page on another site cannot read a local server's answers (the same-origin policy), unless
its own name comes to point at this machine: the attacker's DNS answers the name with
127.0.0.1 once the page is loaded (DNS rebinding), and the page's requests, same-origin for
the browser, reach this server carrying the attacker's name in their Host header. Answering
only the names this server is reached by closes that door, as Django's ``ALLOWED_HOSTS`` does
(C. Jackson, A. Barth, A. Bortz, W. Shao and D. Boneh, "Protecting browsers from DNS rebinding
attacks", ACM CCS 2007: a server defends itself by checking the Host header).

By default the server answers to ``localhost``, ``127.0.0.1`` and ``[::1]``, to the address it
listens on (``--host``), and to the address a request arrived at (an IP address, which a
rebinding page cannot send: its Host is the attacker's name), each without a port or with
the server's own; ``--allow-host NAME`` adds a name (any port) or ``NAME:PORT`` (that port),
and ``--allow-host '*'`` turns the check off (behind a proxy that checks the name itself). A
request without a Host header (HTTP/1.0; browsers always send one) is answered.

A page of another site can also send requests to this server under its own name without
reading the answers (a form's POST, a ``fetch`` in ``no-cors`` mode): each would make the
server check a message or read a table for nobody. A request whose ``Origin`` header (which
browsers send with every such request, RFC 6454) names another site than the one it was
sent to is answered 403, unless the Host check is off (``--allow-host '*'``: a proxy in front
may rewrite the Host header). Programs send no ``Origin`` and are answered as before.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from collections.abc import Sequence

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOCAL_NAMES", "HostCheck", "allow_host_entry", "split_host"]

#: The names of this machine that a rebinding page cannot take over.
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
_MAX_SHOWN = 100  # characters of a refused Host header quoted back
_NOT_IN_A_NAME = frozenset(" /\\@?#[]\"'")


# (a pure function of the header, which a client repeats on every request: remembered for the
# last few hundred values, so a request costs a lookup, and a flood of odd ones no memory)
@functools.lru_cache(maxsize=256)
def split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a Host header or an ``--allow-host`` entry: the name in lower case,
    without an IPv6 address's brackets or a trailing dot (``localhost.`` is ``localhost``);
    the port None when absent. None when it is no host: empty, a port that is not a number,
    an IPv6 address without its brackets, a space, a slash or a control character."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port_text: str | None = rest[1:] if rest else None
    elif value.count(":") > 1:  # an IPv6 address is written in brackets in a Host header
        return None
    else:
        name, colon, after = value.partition(":")
        port_text = after if colon else None
    name = name.removesuffix(".")
    if not name or not name.isprintable() or _NOT_IN_A_NAME & set(name):
        return None
    if port_text is None:
        return name, None
    # ASCII digits only: str.isdigit holds for "²" too, which int() refuses
    if not (port_text.isascii() and port_text.isdigit()) or not 0 < int(port_text) <= 65535:
        return None
    return name, int(port_text)


def _bare(address: str) -> str:
    """An address as :func:`split_host` gives names: ``::1`` and ``[::1]`` alike."""
    return address.strip().lower().removeprefix("[").removesuffix("]").removesuffix(".")


@functools.lru_cache(maxsize=64)  # (the addresses this server listens on: parsed once)
def _unmapped(address: str) -> str:
    """An address as a client wrote it: ``192.0.2.7`` for the IPv4-mapped ``::ffff:192.0.2.7``
    a dual-stack socket (``--host ::``) reports for an IPv4 client (RFC 4291, section
    2.5.5.2)."""
    try:
        mapped = ipaddress.ip_address(address)
    except ValueError:
        return address
    v4 = getattr(mapped, "ipv4_mapped", None)
    return str(v4) if v4 is not None else address


def _shown(name: str) -> str:
    return f"[{name}]" if ":" in name else name


def _entry(entry: str) -> tuple[str, int | None] | None:
    """An ``--allow-host`` entry as :func:`split_host` reads a Host header: an internationalized
    name in its ASCII form (``bücher.example`` is ``xn--bcher-kva.example``, what a browser
    sends: RFC 5890), None when it has none."""
    parsed = split_host(entry)
    if parsed is None or parsed[0].isascii():
        return parsed
    try:
        return parsed[0].encode("idna").decode("ascii"), parsed[1]
    except UnicodeError:
        return None


def allow_host_entry(entry: str) -> str:
    """An ``--allow-host`` entry, checked: a name or an address, either with ``:PORT``, or
    ``*``; raises ValueError saying what is expected."""
    if entry.strip() == "*" or _entry(entry) is not None:
        return entry.strip()
    raise ValueError(
        f"{entry!r} is not a host name: give a name (mail.example.org), an address "
        "(192.0.2.7, [2001:db8::7]), either with :PORT, or * to answer every name"
    )


class HostCheck:
    """ASGI middleware answering 421 (Misdirected Request: RFC 9110, section 15.5.20) to a
    request whose Host header names none of the names the server answers to."""

    def __init__(self, app: ASGIApp, bound: str, allowed: Sequence[str]) -> None:
        self.app = app
        self.off = any(entry.strip() == "*" for entry in allowed)
        self.names = [*LOCAL_NAMES, *([_bare(bound)] if _bare(bound) not in LOCAL_NAMES else [])]
        self.extra = [p for p in map(_entry, allowed) if p is not None]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.off:
            hosts = [value for key, value in scope["headers"] if key == b"host"]
            if hosts:
                # two Host headers are refused (RFC 9112, section 3.2), else the first
                # might be checked and the second read by what is behind
                text = ", ".join(host.decode("latin-1") for host in hosts)
                if len(hosts) > 1 or not self.answers(text, scope):
                    error = (
                        self.refusal(text, scope)
                        if len(hosts) == 1
                        else f"the request has {len(hosts)} Host headers "
                        f"({text[:_MAX_SHOWN]!r}); send one"
                    )
                    body = json.dumps(
                        {"error": error},
                        ensure_ascii=False,
                        separators=(",", ":"),
                    )
                    response = Response(body, 421, media_type="application/json")
                    await response(scope, receive, send)
                    return
            origins = [
                value.decode("latin-1") for key, value in scope["headers"] if key == b"origin"
            ]
            refusal = None
            if len(origins) > 1:
                # refused as two Host headers are: the first would be checked and the other
                # left to whatever reads it
                shown = ", ".join(origins)[:_MAX_SHOWN]
                refusal = (
                    f"the request has {len(origins)} Origin headers ({shown!r}); a browser "
                    "sends one"
                )
            elif origins and hosts and not same_origin(origins[0], scope):
                refusal = cross_site(origins[0])
            if refusal is not None:
                body = json.dumps(
                    {"error": refusal},
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
                response = Response(body, 403, media_type="application/json")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def answers(self, host: str, scope: Scope) -> bool:
        """Whether a request that arrived as ``scope`` with this Host header is answered."""
        parsed = split_host(host)
        if parsed is None:
            return False
        name, port = parsed
        server = scope.get("server")
        default_port = 443 if scope.get("scheme") == "https" else 80
        for allowed_name, allowed_port in self.extra:
            if allowed_name == name and allowed_port in (None, port or default_port):
                return True
        arrived = _unmapped(_bare(server[0])) if server and server[0] else None
        if name in self.names or name == arrived:
            # without a port (a client that leaves it out) or with this server's own
            return port is None or server is None or port == server[1]
        return False

    def refusal(self, host: str, scope: Scope) -> str:
        """The 421's message: the name refused, the names answered, and how to add one."""
        server = scope.get("server")
        names = [_shown(n) for n in self.names]
        if server and server[0] and _unmapped(_bare(server[0])) not in self.names:
            names.append(_shown(_unmapped(_bare(server[0]))))
        answered = ", ".join(names) + (f" on port {server[1]}" if server else "")
        if self.extra:
            extra = [_shown(n) + (f":{p}" if p else "") for n, p in self.extra]
            answered += f", and {', '.join(extra)}"
        quoted = repr(host[:_MAX_SHOWN]) + ("…" if len(host) > _MAX_SHOWN else "")
        parsed = split_host(host)
        remedy = (
            f"if {_shown(parsed[0])} is a name of this server, restart it with "
            f"--allow-host {_shown(parsed[0])}"
            if parsed is not None
            else "send the name the server was reached by"
        )
        return (
            f"the request's Host header names {quoted}, which is not a name of this server "
            f"(it answers to {answered}): a page on another site could reach "
            f"a server on this machine under a name of its own (DNS rebinding), so other "
            f"names are refused; {remedy}"
        )


def same_origin(origin: str, scope: Scope) -> bool:
    """Whether a browser's ``Origin`` header names the site the request was sent to (its Host
    header, already answered): the scheme, the name and the port alike (RFC 6454)."""
    from urllib.parse import urlsplit

    hosts = [value for key, value in scope["headers"] if key == b"host"]
    host = split_host(hosts[0].decode("latin-1")) if hosts else None
    if host is None or origin.strip() == "null":
        return False
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return False
    scheme = scope.get("scheme", "http")
    defaults = {"http": 80, "https": 443}
    if parts.scheme != scheme or not parts.hostname:
        return False
    return (_bare(parts.hostname), port or defaults.get(parts.scheme)) == (
        host[0],
        host[1] or defaults.get(scheme),
    )


def cross_site(origin: str) -> str:
    """The 403's message for a request a page of another site sent."""
    quoted = repr(origin[:_MAX_SHOWN]) + ("…" if len(origin) > _MAX_SHOWN else "")
    return (
        f"the request comes from a page of another site (its Origin header names {quoted}), "
        "and pages of other sites may not use this server: it answers its own page and "
        "programs (which send no Origin header)"
    )
