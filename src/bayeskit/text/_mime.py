"""Decoding helpers of :mod:`bayeskit.text.email`: HTML to text, URLs, the charset rule.

Standard library only.

:func:`html_to_text` drops ``<script>`` and ``<style>`` content and comments, removes tags,
unescapes entities and turns block tags (``<p>``, ``<div>``, ``<br>``, ``<tr>``, ``<li>``…)
into line breaks. The markup is fed to :class:`html.parser.HTMLParser` in one piece (feeding
it in chunks re-scans unclosed constructs, which can be quadratic); callers cap its size.
:func:`find_urls`, :func:`url_host` and :func:`url_tokens` find links and reduce them to hosts.
:func:`decode_bytes` applies the charset rule documented in :mod:`bayeskit.text.email`.
"""

from __future__ import annotations

import codecs
import re
from email.header import decode_header
from functools import lru_cache

from bayeskit.text._mailread import count

__all__ = [
    "codec_of",
    "decode_bytes",
    "decode_header_value",
    "find_urls",
    "html_to_text",
    "url_host",
    "url_tokens",
]

_URL_RE = re.compile(r"""(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>"'`{}|\\^\[\]()]+""", re.IGNORECASE)


_FIRST_CHARS = "".join(map(chr, range(0x180)))


def _any_case(letter: str) -> str:
    """A class of the characters ``re.IGNORECASE`` matches ``letter`` with (``s``: also
    U+017F, the long s; none beyond it: tests/text/test_mail_kernels.py checks all Unicode)."""
    return "[" + "".join(re.findall(letter, _FIRST_CHARS, re.IGNORECASE)) + "]"


# _URL_RE, the same matches found faster: it starts with a class (the first letters), so
# ``re`` jumps from one candidate letter to the next instead of trying both branches and a
# word boundary at every character; the boundary is checked behind the letter found.
_H, _T, _P, _S, _F, _W = map(_any_case, "htpsfw")
_URL_FAST = re.compile(
    rf"[{_H[1:-1]}{_F[1:-1]}{_W[1:-1]}]"
    rf"(?:(?<=\b{_H}){_T}{_T}{_P}{_S}?://|(?<=\b{_F}){_T}{_P}://|(?<=\b{_W}){_W}{_W}\.)"
    r"""[^\s<>"'`{}|\\^\[\]()]+"""
)
_S_CHARS, _P_CHARS, _F_CHARS, _W_CHARS = _S[1:-1], _P[1:-1], _F[1:-1], _W[1:-1]
_W_DOTS = [w + "." for w in _W_CHARS]
_TRAILING_PUNCT = ".,;:!?*'\"=-"
_HOST_END = re.compile(r"[/?#\\]")
_LINK_START = re.compile(r"(?:https?|ftp)://|www\.", re.IGNORECASE)
_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "gov", "ne", "net", "or", "org"})
_IP = re.compile(r"[\d.]+|.*:.*")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r" ?\n[\s]*")
_TAG_RE = re.compile(r"<[^>]*>?")
_SURROGATES = re.compile("[\udc80-\udcff]")
_SPACE_RUNS = re.compile(r"\s+")
_SKIP_RE = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)


def find_urls(text: str) -> list[str]:
    """The ``http``, ``https``, ``ftp`` and ``www.`` URLs in plain text, in order.

    Trailing punctuation (a sentence's full stop, a closing quote) is not part of the URL.

    Examples
    --------
    >>> find_urls("See http://www.example.com/a?b=1, or www.test.org.")
    ['http://www.example.com/a?b=1', 'www.test.org']
    """
    # Where a match may start: before a "://" (by the letter before it, "https", "http" or
    # "ftp"), or at "www." in any case (found by its "w." or "W."). The pattern is tried at
    # each, left to right, and a match's end is where the next may start: what findall
    # gives, where the search tried every "h", "f" and "w" of the text.
    starts = []
    at = text.find("://")
    while at >= 0:
        if at < 3:
            pass
        elif text[at - 1] in _S_CHARS:
            starts.append(at - 5)
        elif text[at - 1] in _P_CHARS:
            starts.append(at - 3 if text[at - 3] in _F_CHARS else at - 4)
        at = text.find("://", at + 3)
    if text.isascii():
        # "www." in any case is "www." in the lowercased text, at the same places (ASCII
        # keeps its length): one search, where "w." and "W." also stop at every "now."
        low = text.lower()
        at = low.find("www.")
        while at >= 0:
            starts.append(at)
            at = low.find("www.", at + 4)
    else:
        for dot in _W_DOTS:
            at = text.find(dot, 2)
            while at >= 0:
                if text[at - 2] in _W_CHARS and text[at - 1] in _W_CHARS:
                    starts.append(at - 2)
                at = text.find(dot, at + 2)
    if not starts:
        return []
    urls = []
    end = 0
    for start in sorted(starts):
        if start < end:
            continue
        match = _URL_FAST.match(text, start)
        if match is not None:
            end = match.end()
            url = match.group().rstrip(_TRAILING_PUNCT)
            if len(url) > 7:
                urls.append(url)
    return urls


def url_host(url: str) -> str:
    """The host of a URL, lowercased, without user, password or port ('' when there is none).

    Examples
    --------
    >>> url_host("HTTP://user@WWW.Example.com:8080/x")
    'www.example.com'
    >>> url_host("www.test.org/page")
    'www.test.org'
    """
    rest = url.split("://", 1)[1] if "://" in url else url
    host = _HOST_END.split(rest, maxsplit=1)[0]
    host = host.rpartition("@")[2]
    if host.startswith("["):  # IPv6 literal
        return host.partition("]")[0][1:].lower()
    return host.partition(":")[0].strip(".").lower()


def _is_link(value: str) -> bool:
    return _LINK_START.match(value.strip()) is not None


def _opens_value(markup: str, at: int, start: int) -> bool:
    """Whether the quote at ``at`` follows a ``=`` and blanks (``str.isspace``, as ``re``'s
    ``\\s`` in html.parser's patterns) after ``start``: whether it may open a quoted
    attribute value.

    A ``<`` of ``markup[start:]`` lies inside a quoted value, as html.parser reads it, only
    if the last quote of that kind before it opens one: the value runs from its opening
    quote to the next one of the same kind, and opens after ``=`` and blanks. Checking the
    last ``"`` and the last ``'`` before a ``<`` so may find quotes that open no value (in
    text, in a comment), never misses one that does."""
    k = at - 1
    while k >= start and markup[k].isspace():
        k -= 1
    return k >= start and markup[k] == "="


def _read_in_runs(markup: str) -> tuple[str, list[str]] | None:
    """(untidied text, links) of markup the fast reader declines as a whole: its well-formed
    runs read by the fast reader, and only what lies between them by the parser; or None
    (the parser then reads it all) where the parser gives up or a run is declined.

    A newsletter with one malformed tag need not go through the parser's per-tag Python
    from its first byte to its last. The parser is fed from the ``<`` that ends a run, one
    ``<`` at a time, until it has consumed all it was given and holds no open element: then
    it is where a fresh parser would be, and the fast reader takes the next run. The parser
    reads the data given in pieces as it reads it given at once (it waits for more data
    rather than decide a construct early) save for one construct: a quoted attribute value
    cut short, after blanks or before them around its ``=``, is read as a bare (empty)
    value or as attribute names, and the tag ends at a ``>`` inside it (given
    ``<td title= "a > b `` it reads ``<td title= "a >`` as the tag, then `` b `` as text).
    So the pieces here end only before a ``<``, never inside a text run or a character
    reference, and not before a ``<`` that may lie inside a quoted value
    (:func:`_opens_value`)."""
    from bayeskit.text._fasthtml import TextExtractor, fast_html_to_text, well_formed_end

    if "\x00" in markup or "\x01" in markup or "\x02" in markup:
        return None
    pieces: list[str] = []
    urls: list[str] = []
    n, at = len(markup), 0
    while at < n:
        end = well_formed_end(markup, at)
        if end > at:
            found = fast_html_to_text(markup[at:end], None, _is_link)
            if found is None:
                return None
            pieces.append(found[0])
            urls.extend(found[1])
        if end >= n:
            break
        parser = TextExtractor(_is_link)
        start, scanned, opens = end, end, {'"': False, "'": False}
        try:
            while True:
                after = markup.find("<", end + 1)
                while after >= 0:  # the next "<" that is no doubt outside a quoted value
                    for quote in opens:
                        last = markup.rfind(quote, scanned, after)
                        if last >= 0:
                            opens[quote] = _opens_value(markup, last, start)
                    scanned = after
                    if not (opens['"'] or opens["'"]):
                        break
                    after = markup.find("<", after + 1)
                after = n if after < 0 else after
                parser.feed(markup[end:after])
                end = after
                if end >= n:
                    parser.close()
                    break
                if parser.at_rest():
                    break
        except Exception:  # html.parser gives up: the whole markup takes the parser's path
            return None
        pieces.extend(parser.pieces)
        urls.extend(parser.urls)
        at = end
    return "".join(pieces), urls


def _tidy(text: str) -> str:
    """Each run of white space to one line break if it holds one, else to one blank; the ends
    stripped. (What ``_BLANK_LINES.sub("\\n", _SPACES.sub(" ", text)).strip()`` gives, by
    splits and joins in C: ``str.split()`` and ``re``'s ``\\s`` both take ``str.isspace``.)"""
    return "\n".join(filter(None, [" ".join(line.split()) for line in text.split("\n")]))


def html_to_text(markup: str, *, fast: bool = True) -> tuple[str, list[str], str]:
    """Readable text of an HTML document, the links of its ``href``/``src`` attributes, a problem.

    Parameters
    ----------
    markup : str
        HTML, possibly malformed (unclosed tags, stray ``<``, bad entities).

    Returns
    -------
    text : str
        The text: no tags, no script or style content, entities unescaped, block tags turned
        into line breaks, runs of spaces collapsed and blank lines removed.
    urls : list of str
        The absolute (``http``, ``https``, ``ftp`` or ``www.``) links of ``href``, ``src``,
        ``action`` and ``background`` attributes, in document order. URLs written in the text
        itself are not included (use :func:`find_urls` on the text).
    problem : str
        ``''``, or why :class:`~html.parser.HTMLParser` gave up, in which case the text was
        taken by dropping ``<...>`` tags with a regular expression instead.

    Markup made only of well-formed tags, comments and script/style elements is read by
    regular expressions and compiled code (:mod:`bayeskit.text._fasthtml`), with the same
    result; ``fast=False`` always feeds the parser.

    Examples
    --------
    >>> text, urls, problem = html_to_text(
    ...     '<html><head><style>p {color: red}</style><script>var x = 1;</script></head>'
    ...     '<body><p>Fish &amp; chips&nbsp;&pound;5</p><p><a href="http://example.com/">'
    ...     'Order</a> now!<br>Today</p></body></html>'
    ... )
    >>> print(text)
    Fish & chips £5
    Order now!
    Today
    >>> urls, problem
    (['http://example.com/'], '')
    """
    # Both readers (and html.parser, the html module's entities) are imported for the first
    # HTML part: a one-message mail filter reading plain text needs none of them.
    from bayeskit.text._fasthtml import TextExtractor, fast_html_to_text

    if fast:
        found = fast_html_to_text(markup, _tidy, _is_link)
        count("html: fast" if found is not None else "html: parser")
        if found is not None:
            return found[0], found[1], ""
        found = _read_in_runs(markup)
        if found is not None:
            return _tidy(found[0]), found[1], ""
    parser = TextExtractor(_is_link)
    try:
        parser.feed(markup)
        parser.close()
    except Exception as error:  # html.parser gives up on a few odd constructs
        import html

        text = html.unescape(_TAG_RE.sub(" ", _SKIP_RE.sub(" ", markup)))
        return _tidy(text), parser.urls, f"{type(error).__name__}: {error}"
    return _tidy("".join(parser.pieces)), parser.urls, ""


# --- charsets -----------------------------------------------------------------------------


@lru_cache(maxsize=512)
def codec_of(charset: str) -> str | None:
    """Python's codec for a declared charset, or None when it is unknown or not a text codec.

    Common spellings Python lacks are mapped: ``x-`` prefixes, ``windows-874``/``win-1251``
    to ``cp…``, ``iso-8859-8-i``/``-e`` to ``iso-8859-8``.

    Examples
    --------
    >>> codec_of('"ISO-8859-1"'), codec_of("windows-874"), codec_of("x-mac-roman")
    ('iso8859-1', 'cp874', 'mac-roman')
    >>> codec_of("x-unknown"), codec_of("base64")
    (None, None)
    """
    name = charset.strip().strip("\"'").strip().lower()
    candidates = [name, name.removeprefix("x-")]
    if match := re.fullmatch(r"(?:x-)?(?:windows|win)-?(\d{3,4})", name):
        candidates.append("cp" + match.group(1))
    if match := re.fullmatch(r"(iso-?8859-\d+)-[ie]", name):
        candidates.append(match.group(1))
    for candidate in candidates:
        try:
            info = codecs.lookup(candidate)
        except (LookupError, ValueError):
            continue
        if getattr(info, "_is_text_encoding", True):
            return info.name
    return None


def _try_decode(data: bytes, codec: str, final: bool, errors: str = "strict") -> str | None:
    try:
        if final:
            return data.decode(codec, errors)
        return codecs.getincrementaldecoder(codec)(errors).decode(data, final=False)
    except Exception:  # UnicodeError, or an odd codec failing in its own way
        return None


def decode_bytes(
    data: bytes, charset: str, where: str, defects: list[str], final: bool = True
) -> str:
    """Decode bytes by the charset rule, recording any fallback in ``defects``; never fails.

    The declared ``charset`` when Python knows it (:func:`codec_of`); else, or when the bytes
    are invalid in it, UTF-8 when they are valid UTF-8, else the known declared charset with
    U+FFFD for bad bytes (not for us-ascii), else cp1252 (latin-1 if cp1252 cannot). ``final=False``
    means ``data`` was cut, so an incomplete character at its end is dropped, not an error.

    Examples
    --------
    >>> defects = []
    >>> decode_bytes(b"caf\\xe9", "x-unknown", "part", defects), defects
    ('café', ["part: unknown charset 'x-unknown'; decoded as cp1252"])
    >>> decode_bytes("café".encode(), "", "part", []), decode_bytes(b"\\xe9", "latin1", "", [])
    ('café', 'é')
    """
    codec = codec_of(charset) if charset else None
    if codec is not None:
        text = _try_decode(data, codec, final)
        if text is not None:
            return text
        problem = f"bytes are invalid in the declared charset {charset!r}"
    elif charset:
        problem = f"unknown charset {charset!r}"
    else:
        problem = "no charset declared and the bytes are not UTF-8"
    text = _try_decode(data, "utf-8", final)
    used = "utf-8"
    if text is None and codec is not None and codec != "ascii":
        text = _try_decode(data, codec, final, "replace")
        used = f"{charset} with invalid bytes replaced by U+FFFD"
    if text is None:
        text = _try_decode(data, "cp1252", True)
        used = "cp1252"
        if text is None:
            text, used = data.decode("latin-1"), "latin-1"
    if charset or used != "utf-8":
        defects.append(f"{where}: {problem}; decoded as {used}")
    return text


# --- url tokens ---------------------------------------------------------------------------


def url_tokens(url: str) -> list[str]:
    """``url:<host>`` and, when shorter, ``url:<registered-domain-ish part>`` of a URL.

    The short part is the last two labels of the host, or three for ``xx.co.uk``-style names
    (a two-letter top-level domain after ``co``, ``com``, ``ac``, ``org``…). IP addresses are
    kept whole.

    Examples
    --------
    >>> url_tokens("http://www.example.com/path?x")
    ['url:www.example.com', 'url:example.com']
    >>> url_tokens("https://shop.example.co.uk"), url_tokens("http://10.0.0.1:80/")
    (['url:shop.example.co.uk', 'url:example.co.uk'], ['url:10.0.0.1'])
    """
    host = url_host(url)
    if not host:
        return []
    labels = host.split(".")
    if _IP.fullmatch(host) or len(labels) <= 2:
        return ["url:" + host]
    keep = 3 if len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL else 2
    short = ".".join(labels[-keep:])
    return ["url:" + host] if short == host else ["url:" + host, "url:" + short]


# --- headers ------------------------------------------------------------------------------


def decode_header_value(value: str, name: str, defects: list[str]) -> str:
    """Unfold a raw header value, decode its raw 8-bit bytes and RFC 2047 encoded-words.

    Raw 8-bit bytes arrive from :mod:`email`'s parser as surrogate escapes; they and the
    encoded-words are decoded by the charset rule (:func:`decode_bytes`), recording fallbacks.

    Examples
    --------
    >>> defects = []
    >>> value = "=?utf-8?q?Gr=C3=BC=C3=9Fe?= and =?iso-8859-1?b?Y2Fm6Q==?="
    >>> decode_header_value(value, "Subject", defects), defects
    ('Grüße and café', [])
    """
    value = _SPACE_RUNS.sub(" ", str(value)).strip()
    where = f"header {name}"
    if _SURROGATES.search(value):  # raw 8-bit bytes, carried as surrogates by the parser
        raw = value.encode("ascii", "surrogateescape")
        value = decode_bytes(raw, "", f"{where} (raw 8-bit bytes)", defects)
    if "=?" not in value:
        return value
    try:
        chunks = decode_header(value)
    except Exception:
        defects.append(f"{where}: malformed RFC 2047 encoded-word; kept as written")
        return value
    out = []
    for chunk, charset in chunks:
        if isinstance(chunk, str):
            out.append(chunk)
        elif charset:
            out.append(decode_bytes(chunk, charset.split("*")[0], where, defects))
        else:  # decode_header turns the plain text between encoded-words into raw-unicode-escape
            out.append(chunk.decode("raw-unicode-escape", "replace"))
    return "".join(out)
