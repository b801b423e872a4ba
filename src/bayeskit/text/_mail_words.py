"""The e-mail tokens' words: what ``re.findall(r"(?u)\\b\\w\\w+\\b", text.lower())`` finds,
in order, with SpamBayes' ``skip:`` tokens for long words; and when the reader turns to its
compiled stages.

:func:`words` lowercases the text with ``str.lower`` (so final sigma and U+0130 are
Python's). A long text is read by a kernel (:mod:`bayeskit.text._mail_kernels`), on its
latin-1 bytes when every character fits, else UTF-8 with ``surrogatepass``. Short texts (a
subject, a sender's name) are left to the regular expression: a kernel call costs more there;
so is a process's first megabyte of text (:func:`use_kernels`), unless numba is loaded, and
this module imports neither numpy nor the kernels until then.
"""

from __future__ import annotations

import re
import sys

__all__ = ["WARM_UP_CHARS", "WORD_PATTERN", "kernels_in_use", "use_kernels", "words"]

#: The words' pattern, as scikit-learn's ``CountVectorizer`` has it by default.
WORD_PATTERN = re.compile(r"(?u)\b\w\w+\b")
#: Texts shorter than this many characters are read by :data:`WORD_PATTERN` itself.
KERNEL_MIN_CHARS = 64
#: Characters a process reads by regular expressions before the reader turns to its kernels,
#: unless numba is loaded already: reading one message (a mail filter's run) costs less so
#: than importing numba and loading the kernels (~0.3-0.5 s); a corpus is past it at once.
WARM_UP_CHARS = 1 << 20
_warm_up = 0


def _numba_loaded() -> bool:
    return "numba" in sys.modules


def kernels_in_use() -> bool:
    """Whether the reader reads by its kernels now (:func:`use_kernels`, without counting
    characters)."""
    return _warm_up >= WARM_UP_CHARS or _numba_loaded()


def use_kernels(n_chars: int) -> bool:
    """Whether the reader reads ``n_chars`` characters more by its kernels (else by the
    regular expressions they implement: the same result either way): once numba is loaded,
    or once this process has read :data:`WARM_UP_CHARS` characters."""
    global _warm_up
    if _warm_up >= WARM_UP_CHARS or _numba_loaded():
        return True
    _warm_up += n_chars  # a race between threads only moves the switch a little
    return False


def _skip(word: str, max_length: int) -> str:
    """A word as a token: itself, or ``skip:<first character> <length in tens>`` when longer
    than ``max_length`` (as SpamBayes does)."""
    return word if len(word) <= max_length else f"skip:{word[0]} {len(word) // 10 * 10}"


def words(text: str, max_length: int) -> list[str]:
    """The words of ``text``, lowercased, in order, each longer than ``max_length``
    characters replaced by ``skip:<first character> <length in tens>``.

    Examples
    --------
    >>> words("Grüße from CAFÉ a1 " + "x" * 45 + ", again and again", 40)
    ['grüße', 'from', 'café', 'a1', 'skip:x 40', 'again', 'and', 'again']
    """
    if len(text) >= KERNEL_MIN_CHARS and use_kernels(len(text)):
        from ._mail_kernels import kernel_words

        return kernel_words(text, max_length)
    found = WORD_PATTERN.findall(text.lower())
    if found and max(map(len, found)) > max_length:
        return [_skip(word, max_length) for word in found]
    return found
