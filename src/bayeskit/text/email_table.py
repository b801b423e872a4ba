"""A mixed-type table of e-mail metadata: numbers, counts, flags and categories per message,
with real missing values — the kind of table :class:`~bayeskit.MixedNB` is for."""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.utils import parseaddr, parsedate_tz
from typing import Any

from .email import Message

#: the columns of :func:`email_table`, with the type of each.
COLUMNS = {
    "body_chars": "float",  # length of the readable text
    "urls": "integer",  # distinct links
    "attachments": "integer",
    "html": "bool",  # has a text/html part
    "charset": "category",  # first declared charset (missing when none is declared)
    "sender_tld": "category",  # top-level domain of the From address (missing when unparsable)
    "subject_words": "integer",
    "subject_caps": "float",  # share of capital letters in the subject (missing: no letters)
    "exclamations": "integer",  # "!" in subject and text
    "hour": "integer",  # hour of the Date header in the sender's time zone (missing: no date)
}

_LETTER = re.compile(r"[^\W\d_]")


def _tld(sender: str) -> str | None:
    address = parseaddr(sender)[1]
    domain = address.rpartition("@")[2].strip(" .>").lower()
    if "." not in domain:
        return None
    return domain.rpartition(".")[2] or None


def _caps(subject: str) -> float | None:
    letters = _LETTER.findall(subject)
    if not letters:
        return None
    return sum(ch.isupper() for ch in letters) / len(letters)


def _hour(date: str) -> int | None:
    parsed = parsedate_tz(date) if date else None
    if parsed is None or not 0 <= parsed[3] <= 23:
        return None
    return int(parsed[3])


def email_row(message: Message) -> dict[str, Any]:
    """The :data:`COLUMNS` of one message (None where a value is missing)."""
    charsets = [charset for _, charset in message.parts if charset]
    return {
        "body_chars": float(len(message.text)),
        "urls": len(message.urls),
        "attachments": len(message.attachments),
        "html": any(ctype == "text/html" for ctype, _ in message.parts),
        "charset": charsets[0].lower() if charsets else None,
        "sender_tld": _tld(message.sender),
        "subject_words": len(message.subject.split()),
        "subject_caps": _caps(message.subject),
        "exclamations": message.subject.count("!") + message.text.count("!"),
        "hour": _hour(message.header("date")),
    }


def email_table(messages: Iterable[Message]) -> dict[str, list[Any]]:
    """Columns of :data:`COLUMNS` for ``messages``: a dict of equal-length lists, ready for
    ``pandas.DataFrame`` or ``polars.DataFrame``.

    Examples
    --------
    >>> from bayeskit.text.email import read_message
    >>> msg = read_message(
    ...     b"From: Ann <ann@example.org>\\nSubject: WIN now!\\n"
    ...     b"Date: Tue, 3 Sep 2002 14:05:00 +0100\\n\\nSee http://x.example/ !\\n"
    ... )
    >>> table = email_table([msg])
    >>> table["sender_tld"], table["urls"], table["exclamations"], table["hour"]
    (['org'], [1], [2], [14])
    >>> table["charset"], table["subject_caps"]
    ([None], [0.5])
    """
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for message in messages:
        for name, value in email_row(message).items():
            columns[name].append(value)
    return columns
