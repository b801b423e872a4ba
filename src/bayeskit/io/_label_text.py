"""Class labels kept as the file writes them. A target column of booleans or numbers is read
as the text of its fields when its values would not be written back as the file writes them:
booleans always (``true``, ``True`` and ``TRUE`` are all polars' True, written back as
``True`` or ``true``), numbers when two distinct labels would become one (``01``, ``1`` and
``1.0``: the number 1) or a label would be rewritten (``1`` among ``2.5``-free floats becomes
``1.0``, ``1e3`` becomes ``1000.0``, ``+1`` becomes ``1``). Whole numbers written plainly
(``0``, ``1``; or ``0.0``, ``1.0`` throughout) stay numbers. A target with a fractional
number stays numbers too: it is refused as regression (:func:`~.target.labels_of`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["label_texts", "labels_kept_as_text"]


def label_texts(column: Any) -> set[str]:
    """The distinct labels of a column read as text, without surrounding spaces or the
    missing ones."""
    import polars as pl

    values = column.cast(pl.String).str.strip_chars().drop_nulls()
    return {str(v) for v in values.unique().to_list() if v != ""}


def labels_kept_as_text(dtype: Any, texts: Iterable[str]) -> bool:
    """Whether a target column of type ``dtype`` whose fields are ``texts`` (as
    :func:`label_texts` gives them) is read as text (see the module docstring)."""
    import polars as pl

    written = [t.replace(",", ".") for t in texts]  # (a ';' file's decimal commas)
    if dtype == pl.Boolean:
        return True
    if dtype.is_integer():
        return any(text != _canonical(text, int) for text in written)
    if dtype.is_float():
        canonical = [_canonical(text, float) for text in written]
        numbers = [float(c) for c in canonical if c is not None]
        if any(n != int(n) for n in numbers if n == n and abs(n) != float("inf")):
            return False  # fractional: refused as regression, as numbers
        return any(text != c for text, c in zip(written, canonical, strict=True))
    return False


def _canonical(text: str, kind: type) -> str | None:
    """How Python writes the number ``text`` holds (``1`` for ``+1``, ``1.0`` for ``1`` as a
    float); None when it is not one."""
    try:
        return str(kind(text))
    except ValueError:
        return None
