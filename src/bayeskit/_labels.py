"""Class labels and sample weights as every estimator checks them: one label per row, no
missing or bytes label, class labels rather than a continuous target (scikit-learn's check),
declared classes (scikit-learn's ``partial_fit(classes=...)`` contract), and one non-negative
finite weight per row; and the one-hot, weighted matrix ``R`` every family summarizes with."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._lazy import sparse as sp
from ._validation import check_lengths, float_values, is_missing
from ._values import union_sorted, unique_sorted
from .errors import DataError, ParameterError, ShapeError, UnknownClassError


def label_kinds(labels: np.ndarray) -> set[str]:
    """The kinds of label an array holds: "numeric" (numbers and bools) and/or "text"."""
    kind = labels.dtype.kind
    if kind in "biuf":
        return {"numeric"}
    if kind in "US":
        return {"text"}
    return {"text" if isinstance(v, str) else "numeric" for v in labels.tolist()}


def preview(values: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit].tolist())
    return f"[{shown}{', …' if len(values) > limit else ''}]"


def class_weights(
    y: Any, sample_weight: Any, n: int, classes: Any = None, *, part: bool = False
) -> tuple[np.ndarray, sp.csr_matrix]:
    """Sorted class labels (with any declared ``classes``) and the (n, n_classes) matrix R of
    one-hot labels times sample weights that every family summarizes with (``part``: of a
    part of the data, whose weights may all be zero)."""
    labels, codes, weight = _checked(y, sample_weight, n, classes, part)
    R = sp.csr_matrix((weight, codes, np.arange(n + 1)), shape=(n, len(labels)), dtype=np.float64)
    return labels, R


def hard_class_weights(
    y: Any, sample_weight: Any, n: int, classes: Any = None, *, part: bool = False
) -> tuple[np.ndarray, OneHot]:
    """:func:`class_weights` with ``R`` held as each row's class and weight
    (:class:`OneHot`), for a model that reads hard labels that way anyway: building SciPy's
    sparse matrix would import ``scipy.sparse``, which costs more than fitting a table of a
    few thousand rows."""
    labels, codes, weight = _checked(y, sample_weight, n, classes, part)
    return labels, OneHot(codes, np.asarray(weight, dtype=np.float64), len(labels))


@dataclass(frozen=True)
class OneHot:
    """Hard class labels times sample weights: the (n, n_classes) matrix ``R`` with one entry
    per row, ``R[i, codes[i]] = weight[i]`` (a zero weight is still an entry), as
    :func:`class_weights` builds it in CSR, without SciPy."""

    codes: np.ndarray
    weight: np.ndarray
    n_classes: int

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.codes), self.n_classes)

    def class_totals(self) -> np.ndarray:
        """Each class's total weight, summed in row order (as the CSR's column sums)."""
        return np.bincount(self.codes, weights=self.weight, minlength=self.n_classes)

    def tocsr(self) -> sp.csr_matrix:
        """The CSR matrix :func:`class_weights` builds."""
        n = len(self.codes)
        return sp.csr_matrix(
            (self.weight, self.codes, np.arange(n + 1)), shape=self.shape, dtype=np.float64
        )


def _checked(
    y: Any, sample_weight: Any, n: int, classes: Any, part: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted class labels, each row's class code and its weight, checked (no rows: only
    for a ``part`` of the data, which may be empty)."""
    check_lengths(n, y, "y")
    if n == 0 and not part:
        # (a table's reader refuses it first; documents reach this: their empty labels were
        # refused as text beside numbers)
        raise ShapeError("no rows to learn from: X and y are empty; give at least one row")
    labels, codes = encode_labels(check_y(y), classes)
    weight = check_sample_weight(sample_weight, n, part=part)
    return labels, codes, weight


def row_count(X: Any) -> int:
    n = getattr(X, "n_rows", None)
    if n is not None:
        return int(n)
    return int(X.shape[0])


LABEL_TYPES = (str, bool, int, float, np.bool_, np.integer, np.floating, np.str_)
#: labels a list holds that numpy reads as scikit-learn's check would (an array of them)
_PLAIN_LABELS = (str, int, float, np.str_, np.integer, np.floating, np.bool_)


def _unmasked(y: Any) -> Any:
    """pandas' nullable integers, booleans and floats ("Int64", "boolean", "Float64") as the
    numpy labels they hold: scikit-learn's check makes floats of all of them, so the classes of
    a label column 1, 2 would be 1.0, 2.0 and of True/False 0.0, 1.0."""
    numpy_dtype = getattr(getattr(y, "dtype", None), "numpy_dtype", None)
    if not isinstance(numpy_dtype, np.dtype) or numpy_dtype.kind not in "biuf":
        return y
    if getattr(y, "ndim", 1) != 1 or not callable(getattr(y, "isna", None)):
        return y
    missing = np.flatnonzero(np.asarray(y.isna(), dtype=bool))
    if len(missing):
        raise DataError(
            f"Input y contains a missing label (NA) at row {int(missing[0])}; every row needs a "
            "class label"
        )
    return np.asarray(y.to_numpy(dtype=numpy_dtype))


def check_y(y: Any) -> np.ndarray:
    # A contiguous 1-D array of numbers or strings is what scikit-learn's check returns it
    # as (it costs 25-145 µs a call)
    plain = type(y) is np.ndarray and y.ndim == 1 and y.flags.c_contiguous
    if not plain and type(y) in (list, tuple):
        # a list of numbers or strings: what scikit-learn's check makes of it, without
        # importing scikit-learn (1-4 s) for it
        as_array = np.asarray(y) if all(isinstance(v, _PLAIN_LABELS) for v in y) else None
        # (strings beside numbers become strings, and a NaN among them the class "nan": such
        # a list is checked value by value below, as an object array, which refuses it)
        texts = as_array is not None and as_array.dtype.kind == "U"
        if texts and any(isinstance(v, (float, np.floating)) and v != v for v in y):
            as_array = np.asarray(y, dtype=object)
        if texts:
            refuse_mixed_labels(y)
        if as_array is not None and as_array.ndim == 1 and as_array.dtype.kind in "biufU":
            y, plain = as_array, True
        elif as_array is not None and as_array.ndim == 1:
            y = as_array
    if not plain:
        y = _unmasked(y)
        plain = type(y) is np.ndarray and y.ndim == 1
    if not (plain and y.dtype.kind in "biufU"):
        from sklearn.utils.validation import column_or_1d

        try:
            y = column_or_1d(y, warn=True)
        except (ValueError, TypeError) as exc:
            raise DataError(f"{exc} (y must hold one class label per row)") from None
    if y.dtype.kind == "S":  # (bytes in an object array are refused below, by row)
        raise DataError(
            "y holds bytes; class labels must be strings, integers, floats or bools: decode "
            "them first (y.astype(str) or [v.decode() for v in y])"
        )
    if y.dtype.kind in "cmMV":
        raise DataError(
            f"y holds values of dtype {y.dtype}; class labels must be strings, integers, floats "
            "or bools"
        )
    if y.dtype.kind == "f" and np.isnan(y).any():
        row = int(np.flatnonzero(np.isnan(y))[0])
        raise DataError(f"Input y contains NaN at row {row}; every row needs a class label")
    if y.dtype.kind == "O":
        values = y.tolist()
        missing = [i for i, v in enumerate(values) if is_missing(v)]
        if missing:
            raise DataError(
                f"Input y contains a missing label (None/NaN/NA) at row {missing[0]}; every row "
                "needs a class label"
            )
        for i, v in enumerate(values):
            if not isinstance(v, LABEL_TYPES):
                raise DataError(
                    f"y[{i}] is a {type(v).__name__} ({v!r}); class labels must be strings, "
                    "integers, floats or bools"
                )
        refuse_mixed_labels(values)
    return y


def refuse_mixed_labels(values: Any, name: str = "y") -> None:
    """Refuse labels that mix text and numbers (``1`` beside ``"1"``): read as text they
    would be one class, read as given two, and a model would learn whichever its input path
    chose; so, as scikit-learn's label encoders do, neither is guessed."""
    text = [i for i, v in enumerate(values) if isinstance(v, str)]
    # (a missing label is refused as missing, by the caller)
    others = [i for i, v in enumerate(values) if not isinstance(v, str) and not is_missing(v)]
    if text and others:
        number = others[0]
        raise DataError(
            f"{name} mixes text and numbers: {name}[{text[0]}] = {values[text[0]]!r} beside "
            f"{name}[{number}] = {values[number]!r}; give every label one type (all text, "
            f"e.g. [str(v) for v in {name}], or all numbers)"
        )


def true_labels(y: Any, classes: np.ndarray, what: str) -> np.ndarray:
    """``y`` checked as the true labels of rows a model with ``classes`` predicts (``score``
    of every model): the checks ``fit`` makes of labels (given, one per row, no missing or
    bytes label), and labels of the classes' type, not numbers against text."""
    if y is None:
        raise DataError(f"{what} needs the true labels y; got None")
    y = check_y(y)
    theirs, ours = label_kinds(y), label_kinds(classes)
    if not theirs <= ours:
        raise DataError(
            f"{what}: y holds {' and '.join(sorted(theirs))} labels but the model's classes "
            f"are {' and '.join(sorted(ours))} ({preview(classes)}); give labels of the "
            "classes' type"
        )
    return y


def mean_accuracy(model: Any, X: Any, y: Any, sample_weight: Any) -> float:
    """Every model's ``score``: the (weighted) share of ``model.predict(X)`` equal to the
    true labels ``y``, checked first (:func:`true_labels`)."""
    y = true_labels(y, model.classes_, f"{type(model).__name__}.score")
    predicted = model.predict(X)
    check_lengths(len(predicted), y, "y")
    weight = None if sample_weight is None else check_sample_weight(sample_weight, len(y))
    if not len(y):
        raise DataError("no rows to score: X and y are empty")
    if weight is not None and not weight.sum() > 0:
        raise DataError("every sample_weight is zero; the accuracy of no rows is undefined")
    return float(np.average(np.asarray(predicted) == y, weights=weight))


def encode_labels(y: np.ndarray, classes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Sorted class labels (with any declared ``classes``) and each row's class index."""
    codes: np.ndarray | None = None
    if y.dtype.kind != "O":
        labels, codes = np.unique(y, return_inverse=True)
    else:
        labels = unique_sorted(y)
    # Integers, bools and strings are always class labels (scikit-learn's check says
    # "binary" or "multiclass" for them, in about 75 µs per fit); floats (a continuous
    # target?) and objects go through it.
    if not len(labels) or labels.dtype.kind not in "biuU":
        check_label_type(labels)
    if classes is not None:
        declared = declared_classes(classes)
        refuse_unknown(labels, declared, "classes")
        merged = union_sorted(labels, declared)
        if len(merged) != len(labels):
            labels, codes = merged, None
    if codes is None:
        codes = label_positions(labels, y)
    return labels, codes.astype(np.int64, copy=False)


def declared_classes(classes: Any) -> np.ndarray:
    """The sorted classes of ``partial_fit(classes=...)``; each may be given once."""
    given = np.asarray(classes)
    if given.ndim != 1:
        raise ParameterError(f"classes must be a 1-D list of class labels; got shape {given.shape}")
    # (the values as given: numpy turns a NaN among strings into the string "nan")
    values = list(classes) if type(classes) in (list, tuple) else given.tolist()
    if any(is_missing(v) for v in values):
        raise ParameterError(
            "classes holds a missing value (None or NaN); every class must be a label"
        )
    refuse_mixed_labels(values, "classes")
    declared = unique_sorted(given)
    if len(declared) != len(given):
        values = given.tolist()
        twice = sorted({v for v in values if values.count(v) > 1}, key=str)
        raise ParameterError(
            f"classes holds {preview(np.asarray(twice))} more than once; give each class once"
        )
    return declared


def refuse_unknown(
    labels: np.ndarray,
    known: np.ndarray,
    where: str,
    *,
    what: str = "y holds",
    fix: str = "declare every class in partial_fit's classes, or leave classes out to let new "
    "labels become classes",
) -> None:
    """Refuse labels outside ``known`` (scikit-learn's ``partial_fit(classes=...)`` contract)."""
    allowed = set(known.tolist())
    outside = [v for v in labels.tolist() if v not in allowed]
    if outside:
        shown = preview(np.asarray(outside))
        said = f"y holds {shown}," if what == "y holds" else f"{shown}, which {what}, is"
        raise UnknownClassError(f"{said} not in {where} ({preview(known)}); {fix}")


def check_label_type(labels: np.ndarray, hint: str = "one class label per row") -> None:
    """scikit-learn's check that the distinct labels are class labels, not a continuous or
    multi-output target (a refusal ends "(y must hold {hint})")."""
    if labels.dtype.kind == "O" and len(labels):
        # numbers held as Python objects (a column of an object frame, a Dask partition's
        # labels): class labels when whole numbers, as they are in a numeric array
        values = labels.tolist()
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
            return
        if all(isinstance(v, (bool, np.bool_)) for v in values):
            return  # (beside None, an unlabelled row's marker, booleans are held as objects)
        if all(isinstance(v, (float, np.floating)) for v in values):
            labels = np.asarray(values, dtype=np.float64)
    if labels.dtype.kind == "f" and len(labels):
        # whole numbers are class labels (scikit-learn's rule, without importing it)
        finite = np.isfinite(labels).all() and np.abs(labels).max() < 2.0**63
        if finite and (labels == np.trunc(labels)).all():
            return
        if finite:
            raise DataError(
                f"y {fractional_labels(labels)}; numbers that name classes can be given as "
                f"text, y.astype(str) (y must hold {hint})"
            )
    from sklearn.utils.multiclass import check_classification_targets

    try:
        # The label type is a property of the distinct labels: checking them, not every row,
        # avoids sorting y again. Distinct labels are all unique, which scikit-learn's check
        # would take for a regression target and warn about: that warning is meaningless here.
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore", message="The number of unique classes", category=UserWarning
            )
            check_classification_targets(labels)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{exc} (y must hold {hint})") from None


def fractional_labels(labels: np.ndarray) -> str:
    """What is wrong with distinct float labels some of which have a fractional part."""
    odd = labels[labels != np.trunc(labels)]
    shown = ", ".join(f"{v:g}" for v in odd[:3].tolist()) + (", …" if len(odd) > 3 else "")
    return (
        f"is continuous, numbers with a fractional part ({shown}; {len(labels)} distinct "
        "values): a classifier needs class labels (strings, booleans or whole numbers), and "
        "a measured quantity is a regression target"
    )


def label_positions(labels: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Index of each value of ``y`` in the sorted ``labels`` (which contain them all)."""
    if labels.dtype.kind != "O" and y.dtype.kind != "O":
        return np.searchsorted(labels, y)
    where = {v: i for i, v in enumerate(labels.tolist())}
    return np.fromiter((where[v] for v in y.tolist()), dtype=np.int64, count=len(y))


def scalar_weight(weight: Any) -> float:
    """One ``sample_weight`` given for every row, refused (:class:`DataError` naming it)
    unless it is a finite number >= 0: as a weight of one row would be."""
    w = float_values(
        weight, DataError, "sample_weight must hold numbers, one non-negative weight per row"
    )
    if w.ndim != 0:
        raise DataError(f"sample_weight has shape {w.shape}; one weight for every row is a number")
    if not (np.isfinite(w) and w >= 0):
        raise DataError(
            f"sample_weight = {float(w)}; a weight must be a finite number >= 0 (one for every "
            "row, or one per row)"
        )
    return float(w)


def check_sample_weight(sample_weight: Any, n: int, *, part: bool = False) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = float_values(
        sample_weight, DataError, "sample_weight must hold numbers, one non-negative weight per row"
    )
    if w.ndim == 0:  # one weight for every row
        w = np.full(n, scalar_weight(w))
    elif w.ndim != 1 or w.shape[0] != n:
        raise DataError(
            f"sample_weight has shape {w.shape}; expected ({n},), one non-negative weight per row"
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(f"sample_weight[{row}] = {w[row]}; weights must be finite and >= 0")
    if n and not part and not w.any():
        raise DataError(
            "every sample_weight is zero; at least one row needs a positive weight to learn from"
        )
    return w
