"""What a ``text/csv`` request body holds beside the model's columns, as common writers make
it, and a body separated by something other than commas.

A CSV body is read as the command line reads a CSV file (:mod:`bayeskit.io._header_names`):
an unnamed first column is the row names R's ``write.csv`` and pandas' ``to_csv`` write, and
is left out (so are those of R's ``write.table``, under no name at all); an unnamed last
column that holds nothing (a separator ending every line) is dropped. The media type
``text/csv`` is comma-separated (RFC 4180, section 2): a body whose first line holds no comma
but semicolons or tabs is refused saying so, rather than with the columns its one field does
not name.
"""

from __future__ import annotations

from typing import Any

from ..io._header_names import ROW_NAMES, has_trailing, trailing_dropped
from .refusal import RequestError

#: what a request's messages call it (as :data:`bayeskit.serve.inputs.SOURCE`)
_SOURCE = "the request"


def refuse_other_separator(text: str, names: list[str]) -> None:
    """Refuses a body for a model of two or more columns whose first line holds no comma but
    a semicolon or a tab: one field, where the model reads several."""
    if len(names) < 2:
        return
    end = text.find("\n")
    line = text if end < 0 else text[:end]
    if "," in line:
        return
    for separator, name in ((";", "semicolons"), ("\t", "tabs")):
        if separator in line:
            raise RequestError(
                f"{_SOURCE}, line 1: a text/csv body is separated by commas (RFC 4180), and "
                f"this one's first line holds {name} and no comma; send the fields separated "
                "by commas (bayeskit predict reads a file separated otherwise; it sniffs the "
                "separator)"
            )


def set_aside(first: list[str], names: list[str]) -> list[str]:
    """The header's columns that are none of the model's and are left out: R's and pandas'
    row names (an unnamed first column, named :data:`ROW_NAMES` by ``named_header``) and a
    nameless last column."""
    aside = []
    if first and first[0] == ROW_NAMES and ROW_NAMES not in names:
        aside.append(first[0])
    if has_trailing(first):
        aside.append(first[-1])
    return aside


def without_aside(frame: Any, aside: list[str]) -> Any:
    """``frame`` without the columns :func:`set_aside` named (a nameless last column must be
    empty in every row: refused, naming a row, otherwise)."""
    if not aside:
        return frame
    frame = trailing_dropped(frame, _SOURCE)
    return frame.drop([c for c in aside if c in frame.columns])
