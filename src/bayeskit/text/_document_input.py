"""Documents given as a table: the one column of a pandas or polars DataFrame or a 2-D array.

Iterating over a DataFrame gives its column names, so a frame of twelve documents read as an
iterable would be one document, its column's name, and classified without a word of warning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import is_data_frame
from ..errors import InputTypeError


def one_column(X: Any) -> Any:
    """The documents of ``X``: its column when it is a table of one column (a pandas or
    polars DataFrame, a 2-D array of one column), ``X`` itself when it is no table; a table
    of more columns is refused, naming them."""
    if is_data_frame(X):
        columns = X.columns
        names = [str(n) for n in columns]
        if len(names) == 1:
            return X[columns[0]]
        if not names:
            raise InputTypeError("X is a table with no columns; a text model reads one column")
        shown = ", ".join(map(repr, names[:6])) + (", …" if len(names) > 6 else "")
        raise InputTypeError(
            f"X is a table of {len(names)} columns ({shown}); a text model reads one column "
            f"of documents: pass that column, e.g. X[{names[0]!r}]"
        )
    if isinstance(X, np.ndarray) and X.ndim == 2:
        if X.shape[1] == 1:
            return X[:, 0]
        raise InputTypeError(
            f"X is an array of {X.shape[1]} columns; a text model reads one column of "
            "documents (a list of str or bytes): pass that column, e.g. X[:, 0]"
        )
    return X
