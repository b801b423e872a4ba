"""Labels of a semi-supervised fit: which rows are labelled (``-1`` or a missing value marks
an unlabelled row) and the classes the labelled rows name. Below both the estimator
(:mod:`.nb`) and its rounds (:mod:`._rounds`), which read labels alike."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._labels import check_label_type, check_y
from .._validation import is_missing
from .._values import unique_sorted
from ..errors import DataError, ShapeError


def marked_labels(y: Any) -> tuple[np.ndarray, np.ndarray]:
    """(y as an array, which rows are labelled): ``-1`` (scikit-learn's marker) or a missing
    value (``None``, NaN, pandas ``NA``, a polars null) marks an unlabelled row. NaN is no
    class label (``fit`` refuses it in every model), so float labels may mark with it too;
    ±inf is refused. The labelled rows' labels go through the checks every model's ``fit``
    makes of labels (no bytes, no values that are not class labels)."""
    if y is None:
        raise DataError(
            "SemiSupervisedNB requires y to be passed, but the target y is None (give one label "
            "per row, -1 or None if unlabelled)"
        )
    from sklearn.utils.validation import column_or_1d  # its conversions and warnings

    y = _nullable_as_objects(y)
    if type(y) in (list, tuple):
        # as given: numpy would turn the marker -1 beside text labels into the text "-1",
        # a class of its own
        as_given = np.empty(len(y), dtype=object)
        as_given[:] = list(y)
        if any(isinstance(v, str) for v in as_given.tolist()):
            y = as_given
    try:
        y = column_or_1d(y, warn=True)
    except (ValueError, TypeError) as exc:
        raise DataError(
            f"{exc} (y must hold one label per row, -1 or None if unlabelled)"
        ) from None
    if not len(y):
        raise ShapeError("y is empty; give one label per row of X (-1 or None if unlabelled)")
    if y.dtype.kind == "O":
        marked = np.fromiter(
            (is_missing(v) or (_is_number(v) and v == -1) for v in y.tolist()),
            dtype=bool,
            count=len(y),
        )
    elif y.dtype.kind in "iuf":
        if y.dtype.kind == "f" and np.isinf(y).any():
            row = int(np.flatnonzero(np.isinf(y))[0])
            raise DataError(
                f"y holds {y[row]} at row {row}; labels are finite, and an unlabelled row is "
                "marked with -1 or a missing value (NaN, None)"
            )
        marked = (y == -1) | np.isnan(y) if y.dtype.kind == "f" else y == -1
    else:
        marked = np.zeros(len(y), dtype=bool)
    check_y(y[~marked])
    return y, ~marked


def _nullable_as_objects(y: Any) -> Any:
    """The labels of a nullable column that holds a missing value — a pandas extension
    array or Series (Int64, boolean, string, category) or a polars Series — as Python values,
    the missing ones as they are (pandas ``NA``, None): numpy's conversion would make each
    missing label NaN and booleans or integers floats (classes 0.0 and 1.0 for ``True`` and
    ``False``). Any other ``y`` as it is."""
    dtype = getattr(y, "dtype", None)
    as_list = getattr(y, "to_list", None) or getattr(y, "tolist", None)  # (a pandas array's)
    if dtype is None or isinstance(dtype, np.dtype) or as_list is None:
        return y
    values = list(as_list())
    if not any(is_missing(v) for v in values):
        return y
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def labelled_classes(y: np.ndarray, labelled: np.ndarray, declared: Any = None) -> np.ndarray:
    """The sorted distinct labels of the labelled rows, checked to be class labels.

    The text ``"-1"`` is refused as a label unless ``declared`` (the classes given to fit)
    names it: it is the marker -1 turned into text (``np.array(["spam", -1])`` holds
    ``"-1"``; so does a column of text labels read from a file), and taken as a class of its
    own it would turn every unlabelled row into a labelled one."""
    given = y[labelled]
    found = unique_sorted(given.astype(object) if y.dtype.kind == "O" else given)
    if "-1" in found.tolist() and "-1" not in _as_list(declared):
        row = int(np.flatnonzero(labelled)[given.astype(object) == "-1"][0])
        raise DataError(
            f"y[{row}] is the text '-1', which reads as the unlabelled marker -1 turned into "
            "text, not a class; mark unlabelled rows with None (or the number -1 in a list or "
            "an object array), or declare '-1' a class with fit(..., classes=[...])"
        )
    # the check every model's fit makes of its distinct labels (which, all unique, must not
    # be taken for a regression target)
    check_label_type(found, "class labels, -1 or None if unlabelled")
    return found


def _as_list(classes: Any) -> list[Any]:
    return [] if classes is None else np.asarray(classes, dtype=object).ravel().tolist()
