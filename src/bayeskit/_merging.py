"""Whether two fitted models can be merged (:func:`bayeskit.merge`): their statistics add only
when they are of one class with the same settings, features and column layout, and their
contract allows it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from .contract import refuse
from .errors import MergeError


def check_mergeable(a: Any, b: Any) -> None:
    """Refuse (:class:`~bayeskit.errors.MergeError`) to merge fitted models ``a`` and ``b``
    whose statistics do not add."""
    if type(a) is not type(b):
        raise MergeError(f"cannot merge a {type(a).__name__} with a {type(b).__name__}")
    declared = a.contract
    if not declared.mergeable:
        shared = np.intersect1d(a.classes_, b.classes_)
        if not declared.merges_classes or len(shared):
            detail = f" (both have rows of class {shared.tolist()[0]!r})" if len(shared) else ""
            raise refuse(a, "mergeable", detail)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    differ = [k for k in pa if not same_setting(pa[k], pb.get(k))]
    if differ:
        raise MergeError(
            "cannot merge models with different settings: "
            + ", ".join(f"{k}={pa[k]!r} vs {pb[k]!r}" for k in differ)
        )
    for attr in ("n_features_in_",):
        if getattr(a, attr, None) != getattr(b, attr, None):
            raise MergeError(
                f"cannot merge models fitted on {getattr(a, attr, None)} and "
                f"{getattr(b, attr, None)} features"
            )
    if a.layout_state() != b.layout_state():
        fa, fb = getattr(a, "feature_families_", None), getattr(b, "feature_families_", None)
        if fa is not None and fb is not None and fa != fb:
            raise MergeError(
                "cannot merge models that chose different families for their columns "
                f"({fa} vs {fb})"
            )
        # another fitted layout (a network classifier's cut points of its numeric columns)
        raise MergeError(
            "cannot merge models whose fits chose different column layouts (their first fits' "
            f"data differ): {a.layout_state()} vs {b.layout_state()}"
        )
    na, nb = getattr(a, "feature_names_in_", None), getattr(b, "feature_names_in_", None)
    if (na is None) != (nb is None) or (na is not None and nb is not None and list(na) != list(nb)):
        raise MergeError("cannot merge models fitted on differently named features")


def same_setting(x: Any, y: Any) -> bool:
    if isinstance(x, BaseEstimator) or isinstance(y, BaseEstimator):
        # An estimator given as a setting (a covariance estimator): the same by its settings.
        if type(x) is not type(y):
            return False
        px, py = x.get_params(deep=False), y.get_params(deep=False)
        return px.keys() == py.keys() and all(same_setting(px[k], py[k]) for k in px)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return bool(np.array_equal(np.asarray(x), np.asarray(y)))
    seq_x = isinstance(x, Sequence) and not isinstance(x, str)
    seq_y = isinstance(y, Sequence) and not isinstance(y, str)
    if seq_x or seq_y:
        # a list against a number (alpha=[0.5, 0.5] against alpha=0.1) differs; two lists
        # are the same item by item
        return (
            seq_x
            and seq_y
            and len(x) == len(y)
            and all(same_setting(a, b) for a, b in zip(x, y, strict=True))
        )
    return bool(x == y)
