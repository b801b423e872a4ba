"""SemiSupervisedNB in model files.

meta.json holds the header of every model file (estimator ``"SemiSupervisedNB"``), the
wrapper's ``params`` (its ``estimator`` a nested estimator, as text models nest theirs) and
``state``::

    state   {"inner": <the meta.json a file of the fitted wrapped estimator would have,
                       without its checksum>,
             "classes": <labels>, "n_iter": int, "converged": bool, "lower_bounds": [float]}

The wrapped estimator's entries are stored under ``inner.<name>``; its manifest must match
them (names and sha256) exactly, and it is checked and built as the file it would be on its
own (a generative classifier: a model of :data:`~bayeskit.io.model_file.ESTIMATORS` or a text
classifier, in a file of version 2 a text classifier of the "text" state; never another
SemiSupervisedNB). The settings are checked before anything is built, so no file can ask a
later ``fit`` for an unbounded EM run. The training rows' ``transduction_`` and
``label_distributions_`` are not stored.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._params import is_classifier
from .._values import values_from_json, values_to_json
from .._version import __version__
from ..errors import BayeskitError, ModelFileError
from ..semi_supervised import SemiSupervisedNB
from . import _text_state
from ._format import DOCUMENTS_VERSION, FORMAT_NAME, HEADER_FIELDS, Budget
from ._format import build as _build
from ._format import check_fields as _check_fields
from ._format import check_manifest as _check_manifest
from ._format import check_meta as _check_meta
from ._format import decode_more as _decode_more
from ._format import decode_params as _decode_params
from ._format import encode as _encode
from ._format import encode_more as _encode_more
from ._format import section_contents as _section_contents

_INNER = "inner."
#: The newest format version the wrapper needs itself (its inner model may need its own).
_VERSION = 2
#: What semi_contents writes in ``state``.
_STATE_FIELDS = frozenset({"inner", "classes", "n_iter", "converged", "lower_bounds"})


def semi_contents(model: SemiSupervisedNB) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (without checksum) and the entries of a fitted SemiSupervisedNB."""
    # a generative classifier (a subclass no file names is refused when it is read back)
    inner_meta, inner_entries = _section_contents(model.fitted_estimator())
    params = {k: _encode(v, k, 0, _encode_more) for k, v in model.get_params(deep=False).items()}
    state = {
        "inner": inner_meta,
        "classes": values_to_json(model.classes_),
        "n_iter": int(model.n_iter_),
        "converged": bool(model.converged_),
        "lower_bounds": [float(v) for v in model.lower_bounds_],
    }
    entries = {_INNER + name: data for name, data in inner_entries.items()}
    meta = {
        "format": FORMAT_NAME,
        "format_version": max(_VERSION, int(inner_meta["format_version"])),
        "bayeskit_version": __version__,
        "estimator": type(model).__name__,
        "params": params,
        "state": state,
        "entries": {_INNER + k: v for k, v in inner_meta["entries"].items()},
    }
    return meta, entries


def check_semi_meta(meta: dict[str, Any]) -> dict[str, str]:
    """Check the wrapper's fields; return the manifest {entry name: sha256}."""
    _check_fields(meta, HEADER_FIELDS | {"state"}, "meta.json")
    for key in ("params", "state"):
        if type(meta.get(key)) is not dict:
            raise ModelFileError(f"meta.json: {key} must be a dict")
    inner = meta["state"].get("inner")
    if type(inner) is not dict:
        raise ModelFileError("meta.json: state.inner must be the wrapped model's meta.json")
    manifest = _check_manifest(meta)
    inner_manifest = _check_manifest(inner)
    expected = {_INNER + k: v for k, v in inner_manifest.items()}
    if expected != manifest:
        raise ModelFileError(
            "meta.json: the wrapped model's manifest does not match the file's inner entries"
        )
    return manifest


def build_semi(
    meta: dict[str, Any], arrays: dict[str, np.ndarray], budget: Budget | None = None
) -> SemiSupervisedNB:
    """The SemiSupervisedNB a checked meta.json and its arrays describe; the wrapped model's
    parameters are taken from the load ``budget`` before they are computed, as a file of that
    model on its own would have them."""
    params = _decode_params(SemiSupervisedNB, meta["params"], _decode_more)
    model = SemiSupervisedNB(**params)
    try:
        model.check_params()
    except BayeskitError as exc:
        raise ModelFileError(f"the stored settings are invalid: {exc}") from None
    state = meta["state"]
    # A part this version does not write (a newer bayeskit's, of the same format version) is
    # refused, not ignored, as a statistic block's is: the model would be rebuilt without it.
    unknown = sorted(set(state) - _STATE_FIELDS, key=str)
    if unknown:
        raise ModelFileError(
            f"meta.json: state holds {unknown[0]!r}, which this bayeskit does not write for a "
            f"SemiSupervisedNB (its parts: {', '.join(sorted(_STATE_FIELDS))}; a file of a "
            "newer bayeskit? load it with the version that wrote it)"
        )
    inner = state["inner"]
    estimator = inner.get("estimator")
    if inner.get("format") != FORMAT_NAME or type(inner.get("format_version")) is not int:
        raise ModelFileError("meta.json: state.inner is not a bayeskit model's meta.json")
    if inner["format_version"] > meta["format_version"]:
        raise ModelFileError("meta.json: the wrapped model needs a newer format than the file")
    n_iter, converged, bounds = (
        state.get("n_iter"),
        state.get("converged"),
        state.get("lower_bounds"),
    )
    if (
        type(n_iter) is not int
        or type(converged) is not bool
        or not isinstance(bounds, list)
        or not all(type(b) in (int, float) for b in bounds)
    ):
        raise ModelFileError("meta.json: state.n_iter, converged and lower_bounds are malformed")
    if n_iter < 0:
        raise ModelFileError(f"meta.json: state.n_iter is {n_iter}; EM runs 0 iterations or more")
    if len(bounds) != n_iter:
        raise ModelFileError(
            f"meta.json: state.lower_bounds holds {len(bounds)} values for n_iter={n_iter} "
            "iterations (one log-likelihood each)"
        )
    for i, bound in enumerate(bounds):
        if not math.isfinite(bound):
            # (JSON as Python reads it takes NaN and Infinity; no iteration gives them)
            raise ModelFileError(
                f"meta.json: state.lower_bounds[{i}] is {bound}; a log-likelihood per row is "
                "a finite number"
            )
    # the kind the settings name (None: MultinomialNB, as fit takes it) is the kind stored
    named = "MultinomialNB" if model.estimator is None else type(model.estimator).__name__
    if named != estimator:
        raise ModelFileError(
            f"params.estimator is a {named}, but the wrapped model stored is a {estimator!r}"
        )
    inner_arrays = {k[len(_INNER) :]: v for k, v in arrays.items() if k.startswith(_INNER)}
    text = isinstance(estimator, str) and estimator in _text_state.TEXT_ESTIMATORS
    if text and inner["format_version"] < DOCUMENTS_VERSION:  # the "text" state of version 2
        _text_state.check_text_meta(inner)
        fitted = _text_state.build_text(inner, inner_arrays, budget)
    else:
        _check_meta(inner, "state.inner")
        fitted = _build(inner, inner_arrays, budget)
    classes = values_from_json(state.get("classes"))
    if not is_classifier(fitted):  # (a file whose wrapped section is a vectorizer's)
        raise ModelFileError(
            f"the wrapped model is a {type(fitted).__name__}, not a classifier; a "
            "SemiSupervisedNB wraps a naive Bayes classifier"
        )
    k = int(model.n_components)
    inner_classes = np.asarray(fitted.classes_)
    expected = classes if k == 1 else np.arange(len(classes) * k)
    if len(inner_classes) != len(expected) or not all(
        a == b for a, b in zip(inner_classes.tolist(), expected.tolist(), strict=True)
    ):
        raise ModelFileError(
            "the wrapped model's classes do not match the classes and n_components stored"
        )
    model.set_fitted_estimator(fitted, classes)
    model.n_iter_ = n_iter
    model.converged_ = converged
    model.lower_bounds_ = np.asarray(bounds, dtype=np.float64)
    model.lower_bound_ = float(bounds[-1]) if bounds else float("-inf")
    return model
