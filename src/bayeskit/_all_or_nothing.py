"""Every call that changes a model is all or nothing: the statistics it would adopt are checked
(no sum overflowed float64), then the parameters finalized from them (no NaN, no +inf), and a
call that raises puts the model back as it was. The checks name the class and feature."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .errors import DataError, MergeError
from .families import Family
from .stats import Summary
from .stats._base import first_true


@contextlib.contextmanager
def unchanged_on_error(model: Any) -> Iterator[None]:
    """Run a model-changing call all or nothing: if it raises, the model's attributes are put
    back exactly as they were (attributes are replaced, never changed in place, so a shallow
    copy of them is the whole state)."""
    saved = dict(model.__dict__)
    try:
        yield
    except BaseException:
        model.__dict__.clear()
        model.__dict__.update(saved)
        raise


def check_statistics(summary: Summary, names: Sequence[Sequence[str]]) -> None:
    """Refuse statistics that overflowed float64 (a sum of weights times values beyond
    1.8e308) or that float64 cannot resolve, naming the class and feature (``names``: each
    block's feature names): no finite parameters can be made of them."""
    with np.errstate(over="ignore"):  # an overflow is what is looked for
        total = float(np.sum(summary.class_count)) if len(summary.class_count) else 0.0
    if not np.isfinite(total):
        raise DataError(
            f"the total sample weight overflows float64 (class weights "
            f"{summary.class_count.tolist()}): the sample weights are too large; scale "
            "them down"
        )
    if not total > 0:
        raise DataError("the statistics hold no data: every class has weight 0")
    for block, block_names in zip(summary.blocks, names, strict=True):
        with np.errstate(over="ignore", invalid="ignore"):
            bad = block.overflow()
        if bad is not None:
            array, index, value = bad
            arrays = block.to_arrays()[0]
            # (an array kept in another layout, a SparseCounts' total: the (class, feature)
            # array it stands for)
            full = (len(summary.classes), block.n_features)
            shape = np.shape(arrays[array]) if array in arrays else full
            where = (
                f"at {_entry(index, shape, summary.classes, block_names)}"
                if index
                else "summed over the classes"
            )
            raise DataError(
                f"the {block.kind} statistic {array!r} is {value} {where}: the weighted "
                "sums of the training data overflow float64 (beyond 1.8e308); scale down "
                "the sample weights or the values"
            )
        twice = block.spelled_twice()
        if twice is not None:
            j, number, text = twice
            column = f"column {block_names[j]!r}" if j < len(block_names) else f"feature {j}"
            raise DataError(
                f"{column} holds both the number {number!r} and the text {text!r}: one value "
                "read two ways (a batch or a part whose column was read as text beside one "
                "read as numbers) would be learned as two categories; pass the column as "
                "numbers or as text throughout"
            )
        invalid = _invalid(block, summary.classes, block_names)
        if invalid is not None:
            raise DataError(
                f"{invalid}: the training numbers are beyond what float64 resolves (sample "
                "weights near 1e-308 or below, or values near its limits); rescale them"
            )


def check_removal(summary: Summary, names: Sequence[Sequence[str]]) -> None:
    """Refuse statistics left invalid by removing rows (``unlearn``): what a subtraction of
    rows never learned (or learned with another label or weight) leaves, a scatter matrix
    that is no scatter matrix of any rows, is named as that, not as float64's limits."""
    for block, block_names in zip(summary.blocks, names, strict=True):
        invalid = _invalid(block, summary.classes, block_names)
        if invalid is not None:
            raise MergeError(
                f"cannot unlearn these rows: {invalid} once they are removed, which no rows "
                "give; were they learned, with these labels and weights? Only rows the model "
                "was trained on can be unlearned"
            )


def _invalid(block: Any, classes: np.ndarray, block_names: Sequence[str]) -> str | None:
    """The block's statistic no data can give, in words (``None`` when it is valid)."""
    invalid = block.invalid()
    if invalid is None:
        return None
    array, c, why = invalid
    where = _entry((c,), (len(classes),), classes, block_names)
    return f"the {block.kind} statistic {array!r} of {where} {why}"


def check_parameters(
    families: Sequence[Family],
    params: Sequence[Any],
    classes: np.ndarray,
    names: Sequence[Sequence[str]],
) -> None:
    """Refuse fitted parameters holding NaN or +inf (−inf is a probability of 0), naming the
    family, the parameter, the class and the feature."""
    for family, p, block_names in zip(families, params, names, strict=True):
        bad = _bad_parameter(p)
        if bad is not None:
            field, index, value, shape = bad
            raise DataError(
                f"the {family.name} family's fitted {field} is {value} at "
                f"{_entry(index, shape, classes, block_names)}: the training numbers "
                "are too extreme for float64 (sample weights or values near its limits, "
                "1e-308 to 1e308); rescale them"
            )


def _bad_parameter(
    params: Any,
) -> tuple[str, tuple[int, ...], float, tuple[int, ...]] | None:
    """(field, index, value, the field's shape) of the first NaN or +inf in a family's
    fitted parameters (a dataclass of arrays, and of the parameters of the family it wraps
    in the fields its class names in ``wraps``: a text block's count family); −inf is a
    probability of 0 and allowed."""
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        return None
    for field in dataclasses.fields(params):
        value = getattr(params, field.name)
        # a wrapped family's parameters (named by the dataclass's ``wraps``) are checked as
        # its own would be
        inner = _bad_parameter(value) if field.name in getattr(params, "wraps", ()) else None
        name = field.metadata.get("name", field.name)  # the name users know the array by
        if inner is not None:
            return (f"{name}.{inner[0]}", *inner[1:])
        if isinstance(value, (float, np.floating)) or (
            isinstance(value, np.ndarray) and value.dtype.kind == "f"
        ):
            array = np.asarray(value)
            # One pass without a temporary first (max is NaN or +inf exactly when some
            # entry is): three boolean arrays of a large model's size cost more.
            if array.size == 0 or np.max(array) < np.inf:
                continue
            with np.errstate(invalid="ignore"):
                bad = np.isnan(array) | np.isposinf(array)
            if bad.any():
                index = first_true(bad)
                return name, index, float(array[index]), array.shape
    return None


def _entry(
    index: tuple[int, ...], shape: tuple[int, ...], classes: np.ndarray, names: Sequence[str]
) -> str:
    """An entry of an array in words: class label and feature name where its axes are
    (class,) or (class, feature)."""
    if not index:
        return "its only entry"
    if len(shape) in (1, 2) and shape[0] == len(classes):
        label = classes[index[0]]
        parts = [f"class {label.item() if isinstance(label, np.generic) else label!r}"]
        if len(shape) == 2:
            j = index[1]
            parts.append(f"feature {names[j]!r}" if shape[1] == len(names) else f"column {j}")
        return ", ".join(parts)
    return f"index {list(index)}"
