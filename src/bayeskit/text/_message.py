"""The :class:`Message` that :func:`~bayeskit.text.email.read_message` returns: a frozen
dataclass, in a module of its own, imported on first use, so that a mail filter reading one
message (which tokenizes its :class:`~bayeskit.text.email.MessageFields` and never builds a
Message) does not import :mod:`dataclasses`. ``bayeskit.text.Message`` and
``bayeskit.text.email.Message`` are this class."""

from __future__ import annotations

from dataclasses import dataclass

from ._mailread import first_headers, header_names

__all__ = ["Message"]


@dataclass(frozen=True)
class Message:
    """What :func:`~bayeskit.text.email.read_message` read from one e-mail.

    Attributes
    ----------
    headers : list of (str, str)
        Every header as (name, value), in order, unfolded, RFC 2047 encoded-words decoded.
    subject, sender, to : str
        The decoded ``Subject``, ``From`` and ``To`` headers (``''`` when absent).
    text : str
        The readable body: text/plain parts decoded with their charset and text/html parts
        converted to text, joined by blank lines. Of a multipart/alternative the text/plain
        version is used when it has text, else the richest (last) version with text.
    urls : list of str
        Distinct http/https/ftp/www URLs of the body text and of HTML ``href``/``src``
        attributes (of every alternative, even one whose text was not used), in order.
    attachments : list of (str, str)
        (file name or ``''``, content type) of every non-text part and of text parts sent as
        attachments. Their content is not decoded.
    parts : list of (str, str)
        (content type, declared charset or ``''``) of every MIME part, containers included.
    defects : list of str
        Human-readable problems met while reading: malformed MIME, truncated base64, charset
        fallbacks, cuts of huge messages, and why the text is empty when it is.

    Examples
    --------
    >>> from bayeskit.text import read_message
    >>> msg = read_message(b"From: Ann <ann@example.com>\\nSubject: Hi\\n\\nHello there.\\n")
    >>> msg.sender, msg.subject, msg.text, msg.defects
    ('Ann <ann@example.com>', 'Hi', 'Hello there.', [])
    >>> msg.header("subject")
    'Hi'
    """

    headers: list[tuple[str, str]]
    subject: str
    sender: str
    to: str
    text: str
    urls: list[str]
    attachments: list[tuple[str, str]]
    parts: list[tuple[str, str]]
    defects: list[str]

    def header(self, name: str, default: str = "") -> str:
        """The first header called ``name`` (any case), or ``default``."""
        found = first_headers(self.headers, (name.lower(),), header_names(self.headers))[0]
        return default if found is None else found
