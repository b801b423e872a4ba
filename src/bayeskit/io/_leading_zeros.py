"""Whole numbers written with leading zeros (``02134``, ``007``) read as text: they are codes
— ZIP codes, account or product codes, factor levels such as ``01`` — whose zeros are part of
the value. Read as integers, ``02134`` would become 2134 and the levels ``01`` and ``1`` one
category."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["leading_zero_columns"]

#: a field that may start with a leading zero: after a separator, a quote or a line's start
_MAYBE = re.compile(rb'(?:^|[,;\t|"])[ \t]*[+-]?0[0-9]', re.MULTILINE)
_LEADING_ZERO = r"^\s*[+-]?0\d"


def leading_zero_columns(
    frame: Any, data: bytes, as_text: Callable[[Sequence[str]], Any]
) -> tuple[list[str], Any]:
    """(the integer columns of ``frame``, parsed from the CSV/TSV ``data``, in which a field is
    written with a leading zero; those columns as text), or ``([], None)``. ``as_text(columns)``
    parses ``data`` again with ``columns`` read as text; it is called only when a field of
    ``data`` may start with a zero."""
    integers = [str(c) for c, t in frame.schema.items() if t.is_integer()]
    if not integers or _MAYBE.search(data) is None:
        return [], None
    text = as_text(integers)
    import polars as pl

    found = [
        c
        for c in integers
        if c in text.columns
        and text.schema[c] == pl.String
        and bool(text.get_column(c).str.contains(_LEADING_ZERO).any())
    ]
    return found, text
