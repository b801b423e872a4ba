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


def marked_labels(y: Any, declared: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """(y as an array, which rows are labelled): ``-1`` (scikit-learn's marker) or a missing
    value (``None``, NaN, pandas ``NA``, a polars null) marks an unlabelled row. NaN is no
    class label (``fit`` refuses it in every model), so float labels may mark with it too;
    ±inf is refused. The labelled rows' labels go through the checks every model's ``fit``
    makes of labels (no bytes, no values that are not class labels).

    Classes ``declared`` to fit that hold the number -1 make it a class: then only a missing
    value marks an unlabelled row (labels -1 and 1, as sentiment data often has them)."""
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
    minus_one = not any(_is_number(v) and v == -1 for v in declared_list(declared))
    if y.dtype.kind == "O":
        marked = np.fromiter(
            (is_missing(v) or (minus_one and _is_number(v) and v == -1) for v in y.tolist()),
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
        marked = (y == -1) & minus_one
        if y.dtype.kind == "f":
            marked |= np.isnan(y)
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


def labelled_classes(y: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """The sorted distinct labels of the labelled rows, checked to be class labels."""
    given = y[labelled]
    found = unique_sorted(given.astype(object) if y.dtype.kind == "O" else given)
    # the check every model's fit makes of its distinct labels (which, all unique, must not
    # be taken for a regression target)
    check_label_type(found, "class labels, -1 or None if unlabelled")
    return found


def refuse_text_marker(y: np.ndarray, labelled: np.ndarray, declared: Any) -> None:
    """Refuse the text ``"-1"`` as a label unless ``declared`` (the classes given to fit)
    names it: it is the marker -1 turned into text (``np.array(["spam", -1])`` holds
    ``"-1"``), and taken as a class of its own it would turn every row meant to be unlabelled
    into a labelled one."""
    if y.dtype.kind not in "OUS" or "-1" in declared_list(declared):
        return
    text = np.asarray(y[labelled], dtype=object) == "-1"
    if text.any():
        row = int(np.flatnonzero(labelled)[text][0])
        raise DataError(
            f"y[{row}] is the text '-1', which reads as the unlabelled marker -1 turned into "
            "text, not a class; mark unlabelled rows with None (or the number -1 in a list or "
            "an object array), or declare '-1' a class with fit(..., classes=[...])"
        )


def declared_list(classes: Any) -> list[Any]:
    """The classes given to fit as a list of Python values ([] for None)."""
    if classes is None:
        return []
    return [
        v.item() if isinstance(v, np.generic) else v
        for v in np.asarray(classes, dtype=object).ravel().tolist()
    ]
