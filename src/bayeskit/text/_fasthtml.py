"""HTML to text by regular expressions and a compiled pass over the tags
(:mod:`bayeskit.text._html_kernels`), for the markup whose reading is unambiguous.

:func:`fast_html_to_text` gives :func:`bayeskit.text._mime.html_to_text`'s answer (which feeds
the markup to :class:`html.parser.HTMLParser`) without the per-tag Python of the parser, for
markup made only of well-formed constructs that every HTML tokenizer reads alike: start tags
``<name attr=value ...>`` with quoted or plain values, end tags ``</name>``, comments
``<!-- ... -->`` without ``--`` inside, ``<!DOCTYPE ...>``, ``<?...>``, closed ``<script>`` and
``<style>`` elements, and a ``<`` that starts no tag (text). For anything else (a ``<`` that
starts a malformed tag, ``<![CDATA[``, a quoted attribute value holding ``<``,
``<template>``, ``<plaintext>``, an element the installed parser reads as raw text (newer
Pythons: ``<title>``, ``<textarea>``...) holding tags, the control characters it uses as
markers) it returns None and the parser reads the markup.

The text is built as the parser's handlers build it: each tag is replaced by a marker (a line
break for block tags, a space for ``<img>`` and ``<input>``, nothing for the others), script and
style content is dropped, entities are unescaped with :func:`html.unescape` (markers end an
entity as the parser's separate text pieces do: none is part of an entity name), and the
links are the ``href``/``src``/... attribute values of the start tags, in document order.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser

from ._mail_words import use_kernels

__all__ = ["BLOCK_TAGS", "URL_ATTRS", "TextExtractor", "fast_html_to_text", "well_formed_end"]

_WS = r"[ \t\n\r\f]"
_NAME = r"[a-zA-Z][-a-zA-Z0-9:_.]*(?=[ \t\n\r\f/>])"
# An attribute value: quoted (no "<" and no marker inside), or plain (up to a blank or ">").
_VALUE = (
    r"(?:\"[^\"<\x00-\x02]*\"|'[^'<\x00-\x02]*'"
    r"|[^\s\"'<>=\x00-\x02][^\s<>\x00-\x02]*(?=[ \t\n\r\f>]))"
)
# An attribute, after blanks or right after a quoted value.
_ATTR_NAME = r"(?:[ \t\n\r\f]+|(?<=[\"']))[^\s\"'<>/=\x00-\x02]+"
_ATTR = rf"{_ATTR_NAME}(?:{_WS}*={_WS}*{_VALUE})?"
_ATTRS = rf"(?:{_ATTR})*{_WS}*"


# First pass, left to right: comments, declarations, processing instructions and whole
# script/style elements (whose content holds "<" freely). A script element's start tag is
# kept, renamed, for its links.
# Names are matched in ASCII case only ("(?a:...)"): html.parser lower-cases them with
# str.lower(), which leaves "ſcript" (long s), "scrıpt" (dotless i) and "scrİpt" as they are,
# where re.IGNORECASE alone would take them for "script".
_OPAQUE = re.compile(
    r"<!--(?!-?>)(?:(?!--(?:\s*|!)>).)*-->"
    r"|<!doctype[^<>]*>"
    r"|<!\[(?a:if|endif)\b[^<>\]]*\]>"
    r"|<\?[^<>]*>"
    rf"|<((?a:script|style))(?=[ \t\n\r\f/>])({_ATTRS})>(.*?)</(?a:\1)>",
    re.IGNORECASE | re.DOTALL,
)
_CLOSE_INSIDE = re.compile(r"</\s*(?:script|style)", re.IGNORECASE)


class _Probe(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def _raw_text_elements() -> list[str]:
    """The elements whose content this Python's :class:`HTMLParser` reads as text, tags
    inside included (newer versions read ``<title>`` and ``<textarea>`` so, as HTML5 does)."""
    found = []
    for name in ("title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"):
        probe = _Probe()
        probe.feed(f"<{name}><b>x</b></{name}>")
        probe.close()
        if "b" not in probe.tags:
            found.append(name)
    return found


# Constructs that change the text's skipping (template) or that the parser reads differently
# from the rest of the markup: left to the parser. The raw-text elements of this Python's
# parser are read here only when they hold no "<".
_RAW = "|".join(_raw_text_elements()) or "(?!)"
_UNUSUAL = re.compile(
    r"<(?:script|style|template|plaintext)(?=[ \t\n\r\f/>])"
    rf"|<({_RAW})(?=[ \t\n\r\f/>])"
    r"[^>]*(?:/>|>[^<]*(?:\Z|<(?!/\1[ \t\n\r\f]*>)))",
    re.IGNORECASE,
)
_BLOCK_NAMES = (
    "address article aside blockquote br caption center dd div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table "
    "tbody td tfoot th thead title tr ul"
)
#: Tags that break a line of the text (start or end), for both HTML readers.
BLOCK_TAGS = frozenset(_BLOCK_NAMES.split())
#: Attributes whose value is a link to fetch or follow, for both HTML readers.
URL_ATTRS = ("href", "src", "action", "background", "lowsrc", "dynsrc")
_BLOCK = BLOCK_TAGS
_START_ANY = re.compile(rf"<{_NAME}{_ATTRS}/?>")
_TAG = re.compile(rf"<({_NAME}){_ATTRS}/?>|</({_NAME}){_WS}*>")
# What a tag adds to the text: a line break for a block tag (start or end), a space for
# an image or input field (start), else nothing; as markers, replaced after unescaping.
_START_MARK = dict.fromkeys(_BLOCK, "\x01") | {"img": "\x02", "input": "\x02"}
_END_MARK = dict.fromkeys(_BLOCK, "\x01")


def _mark(match: re.Match[str]) -> str:
    start = match.group(1)
    if start is not None:
        return _START_MARK.get(start.lower(), "\x00")
    return _END_MARK.get(match.group(2).lower(), "\x00")


def _lowered_to(letters: str) -> dict[str, str]:
    """For each of ``letters``, the characters ``str.lower`` maps to it (itself, its capital,
    and "K", U+212A KELVIN SIGN, for "k"): how html.parser, which lower-cases attribute names
    with ``str.lower``, reads a name. (Not re.IGNORECASE: it also takes "ſ", the long s, for
    "s", and "ı" and "İ" for "i".) None beyond U+2200: tests/text/test_mail_kernels.py checks
    all of Unicode."""
    found = dict.fromkeys(letters, "")
    for code in range(0x2200):
        lowered = chr(code).lower()
        if lowered in found:
            found[lowered] += chr(code)
    return found


_LINK_CASES = _lowered_to("".join(sorted(set("".join(URL_ATTRS)))))
# The link attributes' names in any case as str.lower reads them: "[hH][rR][eE][fF]|...".
_LINK_NAMES = "|".join("".join(f"[{_LINK_CASES[letter]}]" for letter in name) for name in URL_ATTRS)
# Attributes of start tags joined together; the link attributes' values are captured.
_ATTR_LINK = re.compile(
    rf"(?:[ \t\n\r\f]+|(?<=[\"']))(?:(?:{_LINK_NAMES})"
    rf"{_WS}*={_WS}*({_VALUE})|[^\s\"'<>/=\x00-\x02]+(?:{_WS}*={_WS}*{_VALUE})?)"
)
_LEFT_OVER = re.compile(r"<(?:[a-zA-Z/!?]|\Z)")


#: Elements whose content is not text; for :class:`TextExtractor`.
_SKIP_TAGS = frozenset({"script", "style", "template"})
_LINK_ATTRS = frozenset(URL_ATTRS)


class TextExtractor(HTMLParser):
    """The text and the links of markup, as :class:`~html.parser.HTMLParser` reads it: the
    reader of what the fast reader declines (``is_link``: whether an attribute's value is a
    link). In :mod:`._mime`'s reading order, beside the fast reader, so that both are
    imported for a message's first HTML part only."""

    def __init__(self, is_link: Callable[[str], bool]) -> None:
        super().__init__(convert_charrefs=True)
        self._is_link = is_link
        self.pieces: list[str] = []
        self.urls: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth += 1
        elif tag in BLOCK_TAGS:
            self.pieces.append("\n")
        elif tag in ("img", "input", "td"):
            self.pieces.append(" ")
        for name, value in attrs:
            if value and name in _LINK_ATTRS and self._is_link(value):
                self.urls.append(value.strip())

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in BLOCK_TAGS:
            self.pieces.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.pieces.append(data)

    def at_rest(self) -> bool:
        """Whether the parser has read all it was fed and is where a fresh one starts."""
        return not self.rawdata and self.cdata_elem is None and not self._skip_depth


def marked_by_regex(markup: str) -> tuple[str, list[str]]:
    """What :func:`._html_kernels.marked` gives (the tags replaced by their markers, the link
    attributes' values), by the regular expressions it implements in one compiled pass: its
    specification, which the tests compare it with."""
    values = _ATTR_LINK.findall(" ".join(_START_ANY.findall(markup)))
    return _TAG.sub(_mark, markup), [value for value in values if value]


def _opaque(match: re.Match[str]) -> str:
    if match.group(1) is None:  # comment, declaration, processing instruction
        return "\x00"
    if _CLOSE_INSIDE.search(match.group(3)) or (
        "<!--" in match.group(3) and "<script" in match.group(3).lower()
    ):
        return "<script>"  # unusual: the whole markup goes to the parser
    return f"<zzskipped{match.group(2)}>"


# The longest run of markup from a position made of what this reader can read: text, a "<"
# that starts no tag, the opaque constructs above, and start and end tags, but no start tag
# of an element that changes how the parser reads what follows (script, style, template,
# plaintext, the raw-text elements), whose whole elements only the opaque pass may take.
_KEEPS_STATE = f"script|style|template|plaintext|{_RAW}"
_WELL_FORMED_RUN = re.compile(
    rf"(?:[^<]+|<(?![a-zA-Z/!?])|{_OPAQUE.pattern}"
    rf"|<(?!(?:{_KEEPS_STATE})(?=[ \t\n\r\f/>])){_NAME}{_ATTRS}/?>|</{_NAME}{_WS}*>)*",
    re.IGNORECASE | re.DOTALL,
)


def well_formed_end(markup: str, pos: int) -> int:
    """Where the run of well-formed markup starting at ``pos`` ends: ``len(markup)``, or the
    position of a ``<`` that starts something this reader leaves to the parser. Between two
    such runs :class:`html.parser.HTMLParser` is in its initial state (no tag pending, no
    script or raw-text element open), so a document can be read run by run: this reader for
    the runs, the parser for what lies between them."""
    match = _WELL_FORMED_RUN.match(markup, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def fast_html_to_text(
    markup: str, tidy: Callable[[str], str] | None, is_link: Callable[[str], bool]
) -> tuple[str, list[str]] | None:
    """(text, links) as the parser's handlers give them, the text passed through ``tidy``
    (``None``: the text as the handlers' pieces joined, untidied), or None for markup this
    reader leaves to the parser. ``is_link`` tells which attribute values are links."""
    if "\x00" in markup or "\x01" in markup or "\x02" in markup:
        return None
    if "<" not in markup:
        text = html.unescape(markup)
        return (text if tidy is None else tidy(text)), []
    flat = _OPAQUE.sub(_opaque, markup)
    if _UNUSUAL.search(flat):
        return None
    kernels = use_kernels(len(flat))
    if kernels:
        from ._html_kernels import marked, tidied  # numpy and numba only once they pay

        flat, values = marked(flat, BLOCK_TAGS, URL_ATTRS)
    else:  # a process's first HTML: importing numba would cost more
        flat, values = marked_by_regex(flat)
    urls = []
    for value in values:
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        if value:
            value = html.unescape(value)
            if is_link(value):
                urls.append(value.strip())
    if _LEFT_OVER.search(flat):
        return None
    if kernels and tidy is not None:
        return tidied(html.unescape(flat)), urls
    text = html.unescape(flat).replace("\x00", "").replace("\x01", "\n").replace("\x02", " ")
    return (text if tidy is None else tidy(text)), urls
