"""The e-mail tokens' sender and recipient count read by one regular expression for the common
address forms ("user@host", "user@host (Real Name)", "Real Name <user@host>", a quoted name,
lists of them): what ``parseaddr`` and ``getaddresses`` give, for generated headers and for
every From and To header of the shared corpora; any other form is left to them."""

from __future__ import annotations

import re
import subprocess
import sys
from email.utils import getaddresses, parseaddr

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayeskit.datasets.shared import load_20newsgroups
from bayeskit.text import email as mail


def sender(header: str) -> tuple[str, str]:
    return mail._parse_sender.__wrapped__(header)


def recipients(header: str) -> int:
    return mail._count_recipients.__wrapped__(header)


def by_stdlib(header: str) -> int:
    return sum("@" in address for _, address in getaddresses([header]))


ATOM = st.text(alphabet="abcXYZ019_+-.!#'=?", min_size=1, max_size=5)
ADDRESS = st.builds(
    lambda local, domain: f"{local}@{domain}",
    st.lists(ATOM, min_size=1, max_size=3).map(".".join),
    st.lists(st.text(alphabet="abZ09-.", min_size=1, max_size=4), min_size=1, max_size=3).map(
        ".".join
    ),
)
COMMENT = st.text(alphabet=" \tabXY.,;:@<>[]'\"!?-_&*019()\\", max_size=12)
SPACE = st.text(alphabet=" \t", max_size=2)
PHRASE = st.lists(
    st.text(alphabet="abXY09!#'_+-.=?\"", min_size=1, max_size=5), min_size=1, max_size=4
).map(" ".join)
QUOTED = st.text(alphabet=" \tabXY.,;:@<>[]'!?-_\\\"", max_size=10).map(lambda q: f'"{q}"')
WITH_COMMENT = st.builds(
    lambda a, address, b, comment, c: (
        a + address + b + ("" if comment is None else f"({comment}){c}")
    ),
    SPACE, ADDRESS, SPACE, st.none() | COMMENT, SPACE,
)  # fmt: skip
IN_BRACKETS = st.builds(
    lambda a, name, b, address, c: a + (name or "") + b + f"<{address}>" + c,
    SPACE, st.none() | PHRASE | QUOTED, SPACE, ADDRESS, SPACE,
)  # fmt: skip
ONE = WITH_COMMENT | IN_BRACKETS


@given(ONE)
def test_a_sender_is_what_parseaddr_gives(header):
    assert sender(header) == parseaddr(header)


@given(st.lists(ONE, min_size=1, max_size=4).map(",".join))
def test_a_recipient_count_is_what_getaddresses_gives(header):
    assert recipients(header) == by_stdlib(header)


@pytest.mark.parametrize(
    ("header", "name", "address"),
    [
        ("ann@example.org", "", "ann@example.org"),
        (
            " ann.lee@mail.example.org (Ann  Lee, Esq.) ",
            "Ann  Lee, Esq.",
            "ann.lee@mail.example.org",
        ),
        ("a_b+c@x-y.example (<not> an @ddress)", "<not> an @ddress", "a_b+c@x-y.example"),
        ("Ann  Q. Lee <ann@x.org>", "Ann Q. Lee", "ann@x.org"),
        ('"Lee, Ann " <ann@x.org>', "Lee, Ann ", "ann@x.org"),
        ("<Online#3.1@newsletter.example.com>", "", "Online#3.1@newsletter.example.com"),
    ],
)
def test_the_common_forms_take_the_regular_expression(header, name, address):
    assert mail._SIMPLE_SENDER.fullmatch(header) is not None  # not left to parseaddr
    assert sender(header) == parseaddr(header) == (name, address)


@pytest.mark.parametrize(
    "header",
    ['Ann "Q" Lee <a@b.org>', "a@b (x (nested))", "a@b.", "@b", "", "a@b.org, c@d.org"],
)
def test_other_forms_are_left_to_parseaddr(header):
    assert mail._SIMPLE_SENDER.fullmatch(header) is None
    assert sender(header) == parseaddr(header)


def test_a_comma_inside_a_comment_or_quotes_is_left_to_getaddresses():
    for header in ("a@x.org (Lee, Ann), b@y.org", '"Lee, Ann" <a@x.org>, b@y.org'):
        assert mail._SIMPLE_RECIPIENTS.fullmatch(header) is None
        assert recipients(header) == by_stdlib(header) == 2
    assert recipients('a@x.org (Ann), "B" <b@y.org>,c@z.org, <d@w.org>') == 4


def _headers(raw: str, name: str) -> list[str]:
    head = raw[: raw.find("\n\n")]
    return re.findall(rf"^{name}:[ \t]*(.*)$", head, re.MULTILINE | re.IGNORECASE)


def test_every_sender_and_recipient_list_of_the_corpora(shared_data):
    texts = []
    try:
        for split in ("train", "test"):
            texts += load_20newsgroups(split, shared_data)[0]
    except FileNotFoundError:
        pass
    root = shared_data / "spamassassin-public-corpus"
    if root.is_dir():
        texts += [
            p.read_bytes().decode("latin-1")
            for p in sorted(root.glob("*/*"))
            if p.is_file() and p.name != "cmds"
        ]
    if not texts:
        pytest.skip("neither 20 Newsgroups nor the SpamAssassin corpus is in the shared data")
    senders = {h for t in texts for h in _headers(t, "From")}
    lists = {h for t in texts for h in _headers(t, "To")}
    simple = [h for h in senders if mail._SIMPLE_SENDER.fullmatch(h)]
    assert len(simple) > len(senders) // 2  # most take the regular expression
    assert [sender(h) for h in senders] == [parseaddr(h) for h in senders]
    assert [recipients(h) for h in lists] == [by_stdlib(h) for h in lists]


def test_a_long_list_that_does_not_match_is_given_up_at_once():
    # Each run of blanks can be taken one way only: a list of 300 addresses whose last item
    # is no address is refused in one pass (with two ways per blank, as a first version of
    # the pattern had, the search doubled with every item: 2^300 steps). Run apart, so that
    # such a search would fail this test by its time limit rather than hang the suite.
    script = (
        "from bayeskit.text import email as m\n"
        "item = ' <zen5@example.com>, \"Zofia\" <z@example.jp>, a@b.org (A), Ann Lee <x@y.org>'\n"
        "h = ','.join([item] * 300) + ', x'\n"
        "assert m._SIMPLE_RECIPIENTS.fullmatch(h) is None\n"
        "assert m._SIMPLE_RECIPIENTS.fullmatch(h[: -len(', x')]) is not None\n"
        "assert m._count_recipients.__wrapped__(h) == 1200\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
