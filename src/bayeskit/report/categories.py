"""The categorical and boolean columns of a table, class by class.

A density is drawn for a numeric column (:mod:`.densities`); a column of categories (text,
booleans, or a column the model treats as categories or presence) has none to draw, but how
often each value occurs in each class is what the model's categorical or Bernoulli factor
learns from. Each such column is shown as the share of each class's rows (among those where
the column is observed) that hold each value, and the columns are ranked by Cramér's V
(Cramér, 1946), ``V = sqrt(χ² / (n (min(K, L) − 1)))`` of the class × value table: 0 when
the classes share one distribution of the column, 1 when the value tells the class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import is_missing
from .densities import _column, _is_polars, _n_columns, _n_rows, _name, column_families

#: the families that model a column as categories or presence
CATEGORY_FAMILIES = ("categorical", "bernoulli")
#: values shown per column (the most frequent; the rest are summed in one last row, labelled
#: "(N more values)" and flagged by ``CategoryColumn.folded``: a real value may be "other")
TOP_VALUES = 8
#: columns shown (the strongest by Cramér's V)
TOP_COLUMNS = 8


@dataclass(frozen=True)
class CategoryColumn:
    """One column's values and each class's share of each (among its observed rows)."""

    j: int
    name: str
    family: str
    values: list[str]  # shown values, most frequent first; "(N more values)" last when folded
    shares: np.ndarray  # (K, len(values)): each row sums to 1 (0 for a class with no value)
    observed: np.ndarray  # (K,) rows of each class where the column is observed
    cramers_v: float
    #: how many values the last entry of ``values`` sums (0: every value is shown)
    folded: int = 0


def category_columns(model: Any, X: Any, y: Any) -> list[CategoryColumn]:
    """The categorical and boolean columns of ``X`` (the training table), strongest first
    (at most :data:`TOP_COLUMNS`): columns that hold no numbers, and columns the model
    gives a categorical or Bernoulli family."""
    n = getattr(model, "n_features_in_", None)
    if n is None or _n_columns(X) != n or getattr(model, "classes_", None) is None:
        return []
    labels = np.asarray(y).ravel()
    if len(labels) != _n_rows(X):
        return []
    classes = np.asarray(model.classes_)
    where = {v: k for k, v in enumerate(classes.tolist())}
    code = np.fromiter((where.get(v, -1) for v in labels.tolist()), np.int64, len(labels))
    families = column_families(model, int(n))
    out = []
    for j in range(int(n)):
        family = families[j]
        if _column(X, j) is not None and family not in CATEGORY_FAMILIES:
            continue
        column = _cells(X, j)
        shown = _summary(column, code, len(classes))
        if shown is None:
            continue
        values, shares, observed, v, folded = shown
        name = _name(model, X, j)
        family_name = str(family or "categories")
        out.append(CategoryColumn(j, name, family_name, values, shares, observed, v, folded))
    out.sort(key=lambda c: -c.cramers_v)
    return out[:TOP_COLUMNS]


def _cells(X: Any, j: int) -> list[Any]:
    """Column ``j`` as a list of Python values (None for a missing one)."""
    if _is_polars(X):
        cells = X.to_series(j).to_list()
    elif hasattr(X, "iloc"):
        cells = X.iloc[:, j].astype(object).tolist()
    else:
        cells = np.asarray(X, dtype=object)[:, j].tolist()
    return [None if is_missing(v) else v for v in cells]


def _summary(
    cells: list[Any], code: np.ndarray, K: int
) -> tuple[list[str], np.ndarray, np.ndarray, float, int] | None:
    keep = [i for i, v in enumerate(cells) if v is not None and code[i] >= 0]
    if not keep:
        return None
    text = np.asarray([_label(cells[i]) for i in keep], dtype=object)
    distinct, value_code = np.unique(text, return_inverse=True)
    table = np.zeros((K, len(distinct)))
    np.add.at(table, (code[keep], value_code.ravel()), 1.0)
    v = _cramers_v(table)
    order = np.argsort(-table.sum(axis=0), kind="stable")
    values = [str(distinct[i]) for i in order[:TOP_VALUES]]
    shown = table[:, order[:TOP_VALUES]]
    folded = max(len(order) - TOP_VALUES, 0)
    if folded:
        shown = np.column_stack([shown, table[:, order[TOP_VALUES:]].sum(axis=1)])
        values.append(f"({folded} more value{'s' if folded > 1 else ''})")
    observed = table.sum(axis=1)
    shares = shown / np.maximum(observed, 1.0)[:, None]
    return values, shares, observed, v, folded


def _label(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _cramers_v(table: np.ndarray) -> float:
    """Cramér's V of a class × value count table (0 when either has a single level)."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    levels = min(table.shape) - 1
    n = table.sum()
    if levels < 1 or n <= 0:
        return 0.0
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chi2 = float(np.sum((table - expected) ** 2 / expected))
    return float(np.sqrt(min(chi2 / (n * levels), 1.0)))
