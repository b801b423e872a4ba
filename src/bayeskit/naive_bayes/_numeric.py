"""Input handling shared by the estimators that take numeric matrices (dense or CSR)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._base import GenerativeClassifier
from .._lazy import sparse as sp
from .._validation import (
    as_float_array,
    check_features,
    check_not_infinite,
    complex_refusal,
    feature_names_of,
    frame_values,
    is_data_frame,
)
from ..contract import Contract
from ..errors import DataError, InputTypeError, ShapeError


def wrap_sklearn_errors(exc: Exception, what: str = "the model") -> Exception:
    """Re-raise scikit-learn's input errors as bayeskit errors, keeping their message (on one
    line: a message is printed as one line by the command line)."""
    msg = " ".join(str(exc).split())
    if msg.startswith("Complex data not supported"):  # its message goes on with the array
        return DataError(complex_refusal(what))
    if isinstance(exc, TypeError):
        return InputTypeError(msg)
    if "features" in msg or "shape" in msg or "Reshape" in msg or "sample" in msg:
        return ShapeError(msg)
    return DataError(msg)


def refuse_dated_columns(X: Any, what: str) -> None:
    """Refuse a data frame's column of dates or durations by name (numpy's own refusal, "The
    DType Float64DType could not be promoted by DateTime64DType", names none)."""
    if not is_data_frame(X):
        return
    for j, (name, dtype) in enumerate(zip(list(X.columns), list(X.dtypes), strict=True)):
        temporal = getattr(dtype, "kind", None) in ("M", "m")  # pandas and numpy dtypes
        temporal = temporal or bool(getattr(dtype, "is_temporal", lambda: False)())  # polars
        if temporal:
            raise InputTypeError(
                f"column {j} ({str(name)!r}) has dtype {dtype}; {what} takes numbers: turn "
                "dates and durations into numbers (e.g. days since a date) or drop the column"
            )


def _plain(X: Any) -> bool:
    """A 2-D float64 ndarray (not a subclass) with at least one row and one column."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.dtype == np.float64
        and X.shape[0] > 0
        and X.shape[1] > 0
    )


def _numeric(X: Any) -> bool:
    """A non-empty 2-D ndarray (not a subclass) or CSR matrix of numbers: what scikit-learn's
    ``check_array(X, accept_sparse="csr", dtype=None)`` returns unchanged."""
    if type(X) is np.ndarray:
        return X.ndim == 2 and X.dtype.kind in "biuf" and X.shape[0] > 0 and X.shape[1] > 0
    return (
        sp.issparse(X)
        and X.format == "csr"
        and X.dtype.kind in "biuf"
        and X.shape[0] > 0
        and X.shape[1] > 0
    )


class NumericNB(GenerativeClassifier):
    """A generative classifier over a numeric matrix (dense ndarray or CSR sparse).

    NaN is a missing value: the feature drops out of the product for that row, in training
    and in prediction (Duda, Hart & Stork 2001, §2.10). ±inf is refused.
    """

    #: a numeric matrix, dense or sparse (:mod:`bayeskit.contract`)
    contract: ClassVar[Contract] = Contract(input="matrix")
    #: whether NaN marks a missing value; a model that refuses NaN leaves the check of every
    #: value (NaN, ±inf, magnitude) to its family, which names its own rule, in one pass
    _nan_is_missing: ClassVar[bool] = True

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        if _plain(X) and (reset or self._fits(X)):
            # What scikit-learn's checks come to for a float64 ndarray (about 40 µs a call):
            # no names, so none are kept; the number of columns recorded or compared.
            if reset:
                self.n_features_in_ = X.shape[1]
                self.__dict__.pop("feature_names_in_", None)
            if self._nan_is_missing:
                check_not_infinite(X, None, type(self).__name__)
            return X
        names = feature_names_of(X)
        what = type(self).__name__
        try:
            if _numeric(X):  # what scikit-learn's check returns it as: only the columns to check
                check_features(self, X, reset=reset)
            elif (values := frame_values(X)) is not None:  # a data frame of numbers
                check_features(self, X, reset=reset)
                X = values
            else:  # lists, data frames, …: scikit-learn's check (imported on first use)
                from sklearn.utils.validation import validate_data

                refuse_dated_columns(X, what)

                X = validate_data(
                    self,
                    X,
                    accept_sparse="csr",
                    reset=reset,
                    dtype=None,
                    ensure_all_finite=False,
                )
        except (ValueError, TypeError) as exc:
            raise wrap_sklearn_errors(exc, what) from None
        X = as_float_array(X, what, names)
        if self._nan_is_missing:
            check_not_infinite(X, names, what)
        return X

    def _fits(self, X: np.ndarray) -> bool:
        """Whether a plain array has the columns the model was fitted on and the model no
        feature names (scikit-learn warns about an array without them)."""
        return X.shape[1] == getattr(self, "n_features_in_", None) and not hasattr(
            self, "feature_names_in_"
        )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True
        return tags
