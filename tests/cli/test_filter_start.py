"""``bayeskit filter`` on one message, as a mail delivery agent starts it (a fresh process per
message): what the process imports, by the model's token store and through a running service,
and the service address read as the standard library reads it. Imports, not timings: the
timings are ``benchmarks/filter_speed.py``'s."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.cli.filter_fast import server_address
from bayeskit.cli.mail_headers import header_end, with_headers
from bayeskit.text import SpamFilter

SRC = Path(bk.__file__).resolve().parents[1]
HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"
SPAM = b"From: win@prize.example\nSubject: WIN\n\nYou WIN a free prize, click now to claim!!!\n"
#: the models' imports (seconds in all), and what the command line's own machinery imports
HEAVY = ("numpy", "scipy", "sklearn", "pandas", "numba", "polars", "typer", "rich", "pydantic")
#: a fresh process running ``python -m bayeskit filter ARGS``, saying on its last line of
#: standard error which of HEAVY (and of the e-mail parser and urllib) it imported
PROBE = """
import sys
from bayeskit.__main__ import main
status = main(sys.argv[1:])
names = {{m.split(".")[0] for m in sys.modules}} | set(sys.modules)
sys.stderr.write("\\nloaded " + " ".join(sorted(names & {wanted!r})) + "\\n")
sys.exit(status)
"""


def _run(args: list[str], mail: bytes, wanted: set[str]) -> tuple[int, bytes, str, set[str]]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    code = PROBE.format(wanted=set(wanted))
    done = subprocess.run(
        [sys.executable, "-c", code, "filter", *args],
        input=mail,
        capture_output=True,
        env=env,
        timeout=300,
    )
    err = done.stderr.decode()
    said, _, loaded = err.rpartition("\nloaded ")
    return done.returncode, done.stdout, said, set(loaded.split())


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("filter-start") / "spam.bk"
    bk.save(SpamFilter().fit([HAM, SPAM] * 6, ["ham", "spam"] * 6), path)
    return path


def test_one_message_by_the_token_store_imports_no_model(model):
    """The first message finds no store, is scored by the full model, and writes the store;
    every later one is scored from it, importing none of numpy, SciPy, scikit-learn (nor
    typer, rich or pydantic, nor what a mail filter's start-up need not pay for), with the
    library's verdict."""
    expected = {"spam": 0, "ham": 1, "unsure": 2}[str(bk.load(model).classify([SPAM])[0])]
    first = _run([str(model), "--verbose"], SPAM, set(HEAVY))
    assert first[0] == expected
    assert "scored by the full model" in first[2]
    # nor what reading one message needs not: typing, dataclasses (the Message class),
    # mailbox and pathlib (folders), email.policy (the header registry)
    wanted = {*HEAVY, "typing", "dataclasses", "inspect", "mailbox", "pathlib", "email.policy"}
    status, out, said, loaded = _run([str(model), "--verbose"], SPAM, wanted)
    assert "scored from the token store" in said
    assert status == expected
    assert out.startswith(SPAM.partition(b"\n\n")[0])
    assert loaded == set()


class _Check(BaseHTTPRequestHandler):
    """``POST /verdict`` as ``bayeskit serve`` answers it, for one verdict (keeping what it
    was sent)."""

    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, self.headers["Content-Type"], body))
        answer = b"spam 0.9876543\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_asking_a_running_service_imports_the_c_socket_only():
    """``bayeskit filter --server URL`` is a small standard-library client: one request on
    the C socket module, no model, no command-line machinery, not even the e-mail parser,
    urllib, json or the regular expressions (nor the socket module's enums, nor the IDNA
    codec for a host name)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Check)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://localhost:{server.server_address[1]}"  # each address in turn
        wanted = {*HEAVY, "email", "urllib", "http", "typing", "json", "re", "enum", "socket"}
        wanted |= {"encodings.idna", "collections", "dataclasses"}
        status, out, said, loaded = _run(["--server", url, "--verbose"], SPAM, wanted)
    finally:
        server.shutdown()
        server.server_close()
    assert _Check.received == [("/verdict", "message/rfc822", SPAM)]
    assert f"scored by {url}" in said
    assert status == 0
    assert b"X-Bayeskit-Spam: Yes\nX-Bayeskit-Score: 0.987654\n" in out
    assert loaded == set()


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000", "127.0.0.1:8000", "localhost", "http://LocalHost:80/",
     "http://[::1]:9000/x/", "http://h:1/a/b?q=1#f", "http://u:p@h:5/", "HTTP://h:12"],
)  # fmt: skip
def test_the_service_address_is_read_as_urllib_reads_it(url):
    where = urlsplit(url if "://" in url else f"http://{url}")
    assert server_address(url) == (where.hostname, where.port or 80, where.path)


@given(
    host=st.sampled_from(["127.0.0.1", "localhost", "mail.Example.org", "[::1]", "[fe80::2]"]),
    port=st.none() | st.integers(1, 65535),
    path=st.sampled_from(["", "/", "/bk", "/bk/", "/a/b?x=1", "/#top"]),
    scheme=st.sampled_from(["http://", "HTTP://", ""]),
)
def test_any_service_address_is_read_as_urllib_reads_it(host, port, path, scheme):
    url = f"{scheme}{host}{'' if port is None else f':{port}'}{path}"
    where = urlsplit(url if "://" in url else f"http://{url}")
    assert server_address(url) == (where.hostname, where.port or 80, where.path)


@pytest.mark.parametrize(
    "url", ["ftp://example.org", "http://:80", "http://h:x", "http://h:99999", "http://", "h:-1"]
)
def test_a_service_address_that_is_not_one_is_refused(url):
    with pytest.raises(ValueError, match="--server"):
        server_address(url)


# The header block's grammar, which mail_headers reads with bytes methods (re would be a third
# of the --server client's start-up): a field name is printable ASCII but the colon, blanks
# may come before the colon (RFC 5322's obsolete syntax); a continuation line starts with a
# blank; the block ends at the first line that is neither (an empty line, or a body line of a
# message without one before its body). Lines end in LF or CRLF; in a message whose lines end
# in a bare CR (its first one does, after an mbox envelope line), in a bare CR too.
_FIELD = re.compile(rb"[\x21-\x39\x3b-\x7e]+[ \t]*:")
_OURS = re.compile(rb"(?i)x-bayeskit-(spam|score)[ \t]*:")


def _lines_by_grammar(raw: bytes) -> list[tuple[int, bytes, int]]:
    """(start, text, next start) of each line of ``raw``, its line ending left out."""
    envelope = re.match(rb"From [^\n]*\n", raw)
    after = envelope.end() if envelope else 0
    bare_cr = re.match(rb"[^\r\n]*\r(?!\n)", raw[after:]) is not None
    ending = rb"\r\n|\r|\n" if bare_cr else rb"\r?\n"
    pattern = re.compile(rb"(.*?)(?:" + ending + rb"|\Z)", re.S)
    out, pos = [], 0
    while pos < len(raw):
        line = pattern.match(raw, pos)
        assert line is not None
        out.append((pos, line.group(1), line.end()))
        pos = line.end()
    return out


def _header_end_by_grammar(raw: bytes) -> int | None:
    if not (raw.startswith(b"From ") or _FIELD.match(raw)):
        return None
    for start, text, _ in _lines_by_grammar(raw):
        if start and not (text[:1] in (b" ", b"\t") or _FIELD.match(text)):
            return start
    return len(raw)


_NAMES = [b"Subject", b"x-bayeskit-spam", b"X-BAYESKIT-Score", b"X-Bayeskit-Spamx", b"From",
          b"a b", b"\xff", b"", b" ", b"\t", b"-", b"\x7f"]  # fmt: skip
_LINE = st.tuples(
    st.sampled_from(_NAMES),
    st.sampled_from([b"", b" ", b"\t "]),
    st.sampled_from([b":", b": v", b"", b" x"]),
    st.sampled_from([b"\n", b"\r\n", b"\r", b""]),
).map(b"".join)


@settings(max_examples=400)
@given(st.lists(_LINE, max_size=6).map(b"".join))
@example(b"Subject: x\n\r\n\nbody")  # a CRLF empty line just before an LF one
def test_the_header_block_is_read_as_its_grammar_says(raw):
    head = header_end(raw)
    assert head == _header_end_by_grammar(raw)
    if head is None:
        return
    out = with_headers(raw, head, [(b"X-Bayeskit-Spam", b"Yes")])
    # Every field of ours dropped, with its continuation lines, up to the first empty line
    # by LF (where procmail and maildrop end the header block, past ``head`` when a line
    # that is no field comes first); in a bare-CR message, past the first empty line read
    # at CRs only those that start after an LF (what an MDA, reading by LF, matches).
    empty = re.search(rb"\n(?=\r?\n)", raw)  # (a first line that is empty: no header_end)
    mda_end = len(raw) if empty is None else empty.end()
    assert out.endswith(raw[mda_end:])  # the body untouched
    lines = _lines_by_grammar(raw)
    reader_end = next((s for s, text, _ in lines if s >= head and not text), len(raw))
    before, after, dropping = [], [], False
    for start, _, end in lines:
        if start >= mda_end:
            break
        line = raw[start : min(end, mda_end)]
        if not (line[:1] in (b" ", b"\t") and dropping):
            seen = start < reader_end or raw[start - 1 : start] == b"\n"
            dropping = seen and _OURS.match(line) is not None
        if not dropping:
            (before if start < head else after).append(line)
    ours = out.index(b"X-Bayeskit-Spam: Yes")
    assert out[:ours].startswith(b"".join(before).rstrip(b"\r\n"))
    rest = out[ours + len(b"X-Bayeskit-Spam: Yes") :]
    rest = rest[2:] if rest.startswith(b"\r\n") else rest[1:]
    assert rest == b"".join(after) + raw[mda_end:]
