"""Text from the data shown so that what it holds is what a reader sees.

Characters that change how the text around them is shown without showing themselves: C0 and
C1 controls (NUL among them; tab and line breaks are left as whitespace), the Unicode
bidirectional embeddings, overrides, isolates and marks (one class name holding U+202E would
reverse the names after it), the line/paragraph separators and the BOM. They are shown as
Python-style escapes (``\\u202e``, ``\\x00``), in a report's page and on a terminal alike.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character that hides itself shown as its escape.

    >>> visible("invoice\\u202egpj.exe")
    'invoice\\\\u202egpj.exe'
    """
    return _HIDDEN.sub(_escape, text)
