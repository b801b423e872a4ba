"""From a document to its terms: decoding, lowercasing, tokens, stop words, n-grams.

The default rule is scikit-learn's ``CountVectorizer``: lowercase, then every run of two or
more Unicode word characters (``(?u)\\b\\w\\w+\\b``), so vocabularies and counts can be
compared one to one. Character n-grams serve text without spaces.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable
from functools import lru_cache, partial

from ..errors import InputTypeError, ParameterError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from typing import Any

try:  # the parser behind re.compile (Python 3.11 moved it)
    from re import _parser as _sre_parse  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef,unused-ignore]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
#: Words, keeping e-mail addresses, host names, dotted names and hyphenated words whole
#: (``joe@example.com``, ``comp.sys.mac``, ``e-mail``), and one-character words.
ADDRESS_TOKEN_PATTERN = r"(?u)\b\w[\w.@-]*\w\b|\b\w\b"
_WHITE_SPACES = re.compile(r"\s\s+")
#: The longest n-grams a vectorizer forms (a setting loaded from a model file included): each
#: character or token starts up to max_n - min_n + 1 of them.
MAX_NGRAM = 10
#: The most stop words a vectorizer takes (English has about 300).
MAX_STOP_WORDS = 100_000
ANALYZERS = ("word", "char", "char_wb", "email", "auto")
#: How much of a document :func:`is_raw_email` reads.
EMAIL_HEAD_CHARS = 4096
_MAIL_HEADER = re.compile(
    r"^(from|subject|received|return-path|delivered-to|message-id|mime-version|content-type):",
    re.IGNORECASE | re.MULTILINE,
)
_HEADER_LINE = re.compile(r"^([!-9;-~]+:|[ \t])")
#: Lines joined by line breaks, each of which :data:`_HEADER_LINE` matches (one match where a
#: match per line cost half of telling a news post from a text).
_HEADER_LINES = re.compile(r"(?:[!-9;-~]+:|[ \t])[^\n]*(?:\n(?:[!-9;-~]+:|[ \t])[^\n]*)*")
#: An mbox "From_" line: sender then a ctime date ("From a@b  Thu Aug 22 12:36:23 2002").
_MBOX_FROM_LINE = re.compile(r"From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ")

# A compact English stop-word list (function words only): pronouns, articles, auxiliaries,
# prepositions and conjunctions. Selecting features by usefulness (Vorontsov's lectures) is the
# data-driven alternative; see bayeskit.inspection.feature_usefulness.
ENGLISH_STOP_WORDS = frozenset(
    # A word list reads best as text; the split runs once at import.
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()  # noqa: SIM905
)


#: Byte-order marks of the encodings that :func:`decode` recognises by their first bytes
#: (UTF-32's first, as UTF-32-LE's mark starts with UTF-16-LE's).
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode(doc: Any, *, encoding: str = "utf-8", fallback: str = "latin-1") -> str:
    """A document as text: ``str`` as is; ``bytes`` decoded with ``encoding``; bytes that are
    not valid in it and start with a UTF-16 or UTF-32 byte-order mark (a text saved as
    "Unicode" on Windows) decoded by that mark; other bytes not valid in ``encoding`` decoded
    with ``fallback`` (latin-1 maps every byte, so this never fails).

    Examples
    --------
    >>> decode("café".encode("utf-16"))
    'café'
    >>> decode(b"caf\\xe9")  # not UTF-8: latin-1
    'café'
    """
    if isinstance(doc, str):
        return doc
    if isinstance(doc, (bytes, bytearray, memoryview)):
        raw = bytes(doc)
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            for mark, marked in _BYTE_ORDER_MARKS:
                if raw.startswith(mark):
                    try:
                        return raw.decode(marked)
                    except UnicodeDecodeError:
                        break
            return raw.decode(fallback, errors="replace")
    if doc is None or _missing(doc):
        return ""
    raise InputTypeError(
        f"documents must be str or bytes, got {type(doc).__name__} ({doc!r:.60}); pass an "
        "iterable of texts, not a single string or a matrix"
    )


def missing_as_none(docs: list[Any]) -> list[Any]:
    """``docs`` with NaN and pandas' NA as None: missing documents, as None is (a text column
    of a frame read with empty cells holds NaN); each scores by the prior alone."""
    return [d if type(d) in _TEXT or not _missing(d) else None for d in docs]


_TEXT = (str, bytes)


def _missing(doc: Any) -> bool:
    return (isinstance(doc, float) and doc != doc) or type(doc).__name__ in ("NAType", "NaTType")


def stop_word_set(stop_words: Any) -> frozenset[str]:
    """The stop words of a ``stop_words`` setting: None, "english" or up to
    :data:`MAX_STOP_WORDS` words (str)."""
    if stop_words is None:
        return frozenset()
    if isinstance(stop_words, str):
        if stop_words == "english":
            return ENGLISH_STOP_WORDS
        raise ParameterError(
            f"stop_words={stop_words!r}; accepted: None, 'english' or a list of words"
        )
    try:
        n_words = len(stop_words)
    except TypeError:
        raise ParameterError(
            f"stop_words must be None, 'english' or a list of words, not {stop_words!r:.60}"
        ) from None
    if n_words > MAX_STOP_WORDS:
        raise ParameterError(f"stop_words has {n_words} words; at most {MAX_STOP_WORDS} are taken")
    words = frozenset(stop_words)
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise ParameterError(f"stop_words must be strings; got {bad!r} ({type(bad).__name__})")
    return words


def check_ngram_range(ngram_range: Any) -> tuple[int, int]:
    """``(min_n, max_n)`` with ``1 <= min_n <= max_n <= MAX_NGRAM``."""
    try:
        low, high = ngram_range
        if not all(isinstance(v, int) or hasattr(v, "__index__") for v in (low, high)):
            raise TypeError
        low, high = int(low), int(high)
    except (TypeError, ValueError):
        raise ParameterError(
            f"ngram_range must be a pair of ints (min_n, max_n); got {ngram_range!r}"
        ) from None
    if not 1 <= low <= high:
        raise ParameterError(f"ngram_range={ngram_range!r} needs 1 <= min_n <= max_n")
    if high > MAX_NGRAM:
        raise ParameterError(
            f"ngram_range={ngram_range!r}: max_n is at most {MAX_NGRAM} (each character or "
            "token starts max_n - min_n + 1 n-grams)"
        )
    return low, high


def check_encoding(encoding: Any) -> str:
    """A text encoding Python knows, by name (``codecs.lookup``)."""
    if not isinstance(encoding, str):
        raise ParameterError(f"encoding must be a str such as 'utf-8', not {encoding!r}")
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise ParameterError(
            f"encoding={encoding!r} is not an encoding Python knows; e.g. 'utf-8', 'latin-1', "
            "'cp1252'"
        ) from None
    if not getattr(info, "_is_text_encoding", True):
        raise ParameterError(f"encoding={encoding!r} is not a text encoding")
    return encoding


def check_token_pattern(token_pattern: Any) -> re.Pattern[str]:
    """The compiled token pattern: at most one group (its text is the token, as in
    scikit-learn), and no construct that can make matching take exponential time
    (catastrophic backtracking, e.g. ``(?:a+)+b``): a repeat inside a repeat, an alternation
    inside a repeat, a back-reference. Python's ``re`` cannot be stopped once it runs, so such
    patterns are refused rather than bounded."""
    if not isinstance(token_pattern, str):
        raise ParameterError(f"token_pattern must be a str, not {token_pattern!r}")
    return _checked_pattern(token_pattern)


@lru_cache(maxsize=64)
def _checked_pattern(token_pattern: str) -> re.Pattern[str]:
    """:func:`check_token_pattern` of a str, once per pattern: parsing it to look for
    backtracking costs ~1 ms, and every fit, count and fitted copy checks its parameters."""
    try:
        compiled = re.compile(token_pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise ParameterError(f"token_pattern {token_pattern!r} is not a regex: {exc}") from None
    if compiled.groups > 1:
        raise ParameterError(
            f"token_pattern {token_pattern!r} has {compiled.groups} capturing groups; at most "
            "one is allowed (its text is the token). Use (?:...) for the others"
        )
    problem = _backtracking_risk(_sre_parse.parse(token_pattern), 0)
    if problem:
        raise ParameterError(
            f"token_pattern {token_pattern!r} has {problem}, which can make matching take "
            "exponential time on some text (catastrophic backtracking); write it without "
            "(e.g. \\w+ instead of (?:\\w+)+), or pass a callable analyzer"
        )
    return compiled


def _backtracking_risk(pattern: Any, repeats: int) -> str:
    """What in a parsed pattern can backtrack exponentially, or "": ``repeats`` is how many
    unbounded repeats enclose ``pattern``."""
    constants = _sre_parse
    repeat_ops = {constants.MAX_REPEAT, constants.MIN_REPEAT}
    repeat_ops |= {getattr(constants, "POSSESSIVE_REPEAT", constants.MAX_REPEAT)}
    for op, arg in pattern:
        if op == constants.GROUPREF or op == getattr(constants, "GROUPREF_EXISTS", None):
            return "a back-reference"
        if op in repeat_ops:
            _, high, body = arg
            many = high is constants.MAXREPEAT or high > 1
            if many and repeats:
                return "a repeat inside a repeat"
            found = _backtracking_risk(body, repeats + many)
            if found:
                return found
        elif op == constants.BRANCH:
            if repeats:
                return "an alternation inside a repeat"
            for branch in arg[1]:
                found = _backtracking_risk(branch, repeats)
                if found:
                    return found
        elif op == constants.SUBPATTERN:
            found = _backtracking_risk(arg[-1], repeats)
            if found:
                return found
        elif op in (constants.ASSERT, constants.ASSERT_NOT):
            found = _backtracking_risk(arg[1], repeats)
            if found:
                return found
        elif op == getattr(constants, "ATOMIC_GROUP", None):
            found = _backtracking_risk(arg, repeats)
            if found:
                return found
    return ""


def make_analyzer(
    *,
    analyzer: str | Callable[[str], Iterable[str]] = "word",
    lowercase: bool = True,
    token_pattern: str = DEFAULT_TOKEN_PATTERN,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: frozenset[str] = frozenset(),
    subject_in_text: bool = False,
    encoding: str = "utf-8",
) -> Callable[[str], list[str]]:
    """A function from a document to its list of terms (``subject_in_text``: analyzer="auto"
    reads an e-mail's subject line as the first line of its text too). A document given as
    bytes is decoded by :func:`decode` with ``encoding`` first, as the vectorizer decodes the
    documents it counts (before a callable analyzer too, as scikit-learn's vectorizers do;
    a missing document reaches it as None)."""
    low, high = check_ngram_range(ngram_range)
    if callable(analyzer):
        user = analyzer

        def custom(text: str) -> list[str]:
            if isinstance(text, (bytes, bytearray, memoryview)):
                text = decode(bytes(text), encoding=encoding)
            terms = user(text)
            if isinstance(terms, (str, bytes)) or not isinstance(terms, Iterable):
                # a str would be read as its characters, None not at all
                raise ParameterError(
                    f"the analyzer {getattr(user, '__name__', user)!r:.60} returned "
                    f"{terms!r:.60} for the document {text!r:.40}; a callable analyzer "
                    "returns a list (or any iterable) of terms"
                )
            return [str(t) for t in terms]

        return custom
    if analyzer == "word":
        find = check_token_pattern(token_pattern).findall

        def words(text: str) -> list[str]:
            if type(text) is not str:  # bytes (or a missing document): decoded as counted
                text = decode(text, encoding=encoding)
            tokens = find(text.lower() if lowercase else text)
            if stop_words:
                tokens = [t for t in tokens if t not in stop_words]
            if high == 1:
                return tokens
            return _word_ngrams(tokens, low, high)

        return words
    if analyzer == "email":
        if subject_in_text:
            return partial(email_analyzer, subject_in_text=True)
        return email_analyzer
    if analyzer == "auto":
        words_of = make_analyzer(
            analyzer="word",
            lowercase=lowercase,
            token_pattern=token_pattern,
            ngram_range=ngram_range,
            stop_words=stop_words,
        )

        def auto(doc: Any) -> list[str]:
            if not is_raw_email(doc):
                return words_of(decode(doc, encoding=encoding))

            from .email import tokens_of

            message = _message(doc)  # header tokens, then the body's word n-grams
            return tokens_of(message, text="") + words_of(email_text(message, subject_in_text))

        return auto
    if analyzer in ("char", "char_wb"):
        wb = analyzer == "char_wb"

        def chars(text: str) -> list[str]:
            if type(text) is not str:  # bytes (or a missing document): decoded as counted
                text = decode(text, encoding=encoding)
            text = _WHITE_SPACES.sub(" ", text.lower() if lowercase else text)
            if wb:
                return _char_wb_ngrams(text, low, high)
            return [text[i : i + n] for n in range(low, high + 1) for i in range(len(text) - n + 1)]

        return chars
    raise ParameterError(
        f"analyzer={analyzer!r:.60}; accepted: 'word', 'char', 'char_wb', 'email' or a callable"
    )


def email_analyzer(doc: Any, subject_in_text: bool = False) -> list[str]:
    """Tokens of a raw email (bytes, text or a parsed ``Message``): SpamBayes-style header
    tokens, URL hosts and body words (see :func:`bayeskit.text.email.email_tokens`); with
    ``subject_in_text`` the subject line's words count as body words too."""
    from .email import tokens_of

    if doc is None or _missing(doc):  # a missing message, as a missing text: no tokens
        return []
    if not isinstance(doc, (str, bytes, bytearray, memoryview)):
        from .email import Message  # (a filter reading raw messages never imports it)

        if not isinstance(doc, Message):
            raise InputTypeError(
                f"an email must be bytes, text or a bayeskit Message, not {type(doc).__name__}"
            )
    message = _message(doc)
    return tokens_of(message, text=email_text(message, True) if subject_in_text else None)


def is_raw_email(doc: Any) -> bool:
    """Whether a document is a raw e-mail (or news post): it starts with an mbox ``From ``
    line or with a block of at least two ``Name: value`` header lines (up to the first blank
    line) among which ``From``, ``Subject`` or a transport header (``Received``,
    ``Return-Path``, ``Delivered-To``, ``Message-ID``, ``MIME-Version``, ``Content-Type``):
    what a mail client, server or news reader writes, and what a short text (a ``Note: ...``
    line) is not. (Reading a folder, :func:`bayeskit.io.documents.is_email` asks for more —
    a transport header or a mail suffix — before it parses the files as messages.)

    Examples
    --------
    >>> is_raw_email("From: ann@example.org\\nSubject: hi\\n\\nHello")
    True
    >>> is_raw_email("Note: call me at noon")
    False
    """
    if isinstance(doc, (bytes, bytearray, memoryview)):
        head = bytes(doc[:EMAIL_HEAD_CHARS]).decode("latin-1")
    elif isinstance(doc, str):
        head = doc[:EMAIL_HEAD_CHARS]
    else:  # an e-mail already parsed (read_message, a folder of e-mails) is one
        from .email import Message

        return isinstance(doc, Message)
    if _MBOX_FROM_LINE.match(head):
        return True
    if not _HEADER_LINE.match(head):
        # The first line is no header line (neither pattern reaches past a line's end): the
        # answer for most texts that are not e-mails, without splitting them.
        return False
    block = head[: _blank_line(head)]
    lines = block.splitlines()
    return (
        len(lines) >= 2
        # (splitlines leaves no line break inside a line: joined, the lines part again exactly)
        and _HEADER_LINES.fullmatch("\n".join(lines[:20])) is not None
        and _MAIL_HEADER.search(block) is not None
    )


def _blank_line(head: str) -> int:
    r"""Where the first blank line of ``head`` starts, as splitting it at ``\r?\n\r?\n``
    finds it (at the ``\r`` of a first break ``\r\n``: another ``\r`` before it ends one
    more, empty, line), or its length. ``str.find`` where a regular expression tried a match
    at every character (half of the test's time on a news post); ``\n\r\n`` looked for only
    before the first ``\n\n``."""
    end = head.find("\n\n")
    end = len(head) if end < 0 else end
    crlf = head.find("\n\r\n", 0, end + 2)
    end = end if crlf < 0 else min(crlf, end)
    return end - 1 if end < len(head) and end > 0 and head[end - 1] == "\r" else end


def _message(doc: Any) -> Any:
    """A raw e-mail (bytes or text) read (its :class:`~bayeskit.text.email.MessageFields`),
    or a Message as it is."""
    from .email import read_fields

    raw = raw_email(doc)
    return doc if raw is None else read_fields(raw)


def raw_email(doc: Any) -> bytes | None:
    """A raw e-mail's bytes (a text as latin-1 when it can be, else UTF-8), or None for a
    Message read already."""
    if isinstance(doc, str):
        try:
            return doc.encode("latin-1")
        except UnicodeEncodeError:
            return doc.encode("utf-8", "surrogatepass")
    if isinstance(doc, (bytes, bytearray, memoryview)):
        return bytes(doc)
    return None


def email_text(message: Any, subject_in_text: bool) -> str:
    """The text analyzer="auto" reads words from in a parsed e-mail: its decoded body, after
    its subject line when ``subject_in_text``."""
    return f"{message.subject}\n{message.text}" if subject_in_text else message.text


def _word_ngrams(tokens: list[str], low: int, high: int) -> list[str]:
    out = list(tokens) if low == 1 else []
    for n in range(max(low, 2), high + 1):
        # the n shifted copies zipped: the same n-grams in the same order as joining each
        # slice tokens[i : i + n], without building a list per n-gram (a third of the time
        # of a message's tokens in the token store's and the service's scoring)
        out.extend(map(" ".join, zip(*(tokens[k:] for k in range(n)), strict=False)))
    return out


def _char_wb_ngrams(text: str, low: int, high: int) -> list[str]:
    out: list[str] = []
    for word in text.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            out.extend(padded[i : i + n] for i in range(max(len(padded) - n + 1, 1)))
            if len(padded) <= n:  # a short word counts once, as a whole
                break
    return out
