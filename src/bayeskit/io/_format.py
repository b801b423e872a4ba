"""The parts of the model-file format every kind of model shares: the estimators a file can
name, hyperparameters as JSON (the codec), a fitted model as metadata + arrays (a *section*:
the top level of a version-1 file, or a text model's count model) and the manifest.

:mod:`bayeskit.io.model_file` (the archive: saving, loading, checksums),
:mod:`bayeskit.io._text_state` (the text models of format version 2) and
:mod:`bayeskit.io._semi_state` (SemiSupervisedNB, wrapping either) build on this module; it
imports none of them, so imports point one way.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._base import GenerativeClassifier
from .._estimators import ESTIMATORS as _ESTIMATORS
from .._values import is_sorted_unique, values_from_json, values_to_json
from .._version import __version__
from ..discriminant._common import covariance_estimators
from ..errors import BayeskitError, ModelFileError
from ..families import Family, family_from_config
from ..stats import STATISTIC_KINDS, Summary
from ..stats._base import check_arrays

FORMAT_NAME = "bayeskit-model"
#: The format version of a model of ESTIMATORS (text models and wrappers need newer ones).
FIRST_VERSION = 1
#: The only classes a model file can name (listed once, in :mod:`bayeskit._estimators`), with
#: the text models of ``_text_state``: nothing else is ever constructed by
#: :func:`~bayeskit.io.model_file.load`.
ESTIMATORS: dict[str, type[GenerativeClassifier]] = _ESTIMATORS
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
MAX_DEPTH = 32
#: Encodes (or decodes) a hyperparameter value the basic types do not cover: (value, name, depth).
Codec = Callable[[Any, str, int], Any]


#: The memory :func:`~bayeskit.io.model_file.load` may spend on a file's arrays and on the
#: parameters computed from them, unless its ``max_bytes`` says otherwise: checked against the
#: sizes the file declares before anything is allocated. A hostile file can make load allocate
#: at most this much.
DEFAULT_MAX_BYTES = 1024**3


class Budget:
    """The bytes a load may still allocate; every array and parameter block takes its share
    before it is allocated."""

    def __init__(self, limit: int):
        self.limit = limit
        self.used = 0

    def take(self, nbytes: int, what: str) -> None:
        if nbytes > self.limit - self.used:
            raise ModelFileError(
                f"{what} needs {nbytes} bytes, beyond the {self.limit} bytes this load may use "
                f"({self.used} taken): refusing it before allocating (load(..., max_bytes=...) "
                "raises the limit for a model you trust)"
            )
        self.used += nbytes


def assemble(
    version: int, fields: dict[str, Any], arrays: dict[str, np.ndarray]
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (fields, format header and manifest; no checksum yet) and the entries."""
    entries = {name: npy_bytes(array, name) for name, array in arrays.items()}
    meta = {
        "format": FORMAT_NAME,
        "format_version": version,
        "bayeskit_version": __version__,
        **fields,
        "entries": {name: hashlib.sha256(data).hexdigest() for name, data in entries.items()},
    }
    return meta, entries


def section_contents(model: GenerativeClassifier) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (without checksum) and the entries of a fitted model of ESTIMATORS."""
    return assemble(FIRST_VERSION, *model_section(model))


def model_section(
    model: GenerativeClassifier, prefix: str = ""
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A fitted model of ESTIMATORS as metadata fields and arrays (entry names start with
    ``prefix``): the top level of a version-1 file, or a text model's count model."""
    summary = model.statistics()  # raises NotFittedError
    arrays: dict[str, np.ndarray] = {f"{prefix}class_count.npy": summary.class_count}
    blocks = []
    for i, block in enumerate(summary.blocks):
        block_arrays, block_meta = block.to_arrays()
        names = {key: f"{prefix}block{i}.{key}.npy" for key in block_arrays}
        arrays.update({names[key]: array for key, array in block_arrays.items()})
        blocks.append({"kind": block.kind, "meta": block_meta, "arrays": names})
    names_in = getattr(model, "feature_names_in_", None)
    section = {
        "estimator": type(model).__name__,
        "params": {k: encode(v, k, 0) for k, v in model.get_params(deep=False).items()},
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "classes": values_to_json(summary.classes),
        "class_count": f"{prefix}class_count.npy",
        "blocks": blocks,
    }
    if model.classes_declared():
        # partial_fit(classes=...)'s contract outlives the file: a label outside the
        # declared classes stays refused after load (files without the field: not declared).
        section["classes_declared"] = True
    state = model.layout_state()
    if state is not None:
        # Fitted choices that are neither hyperparameters nor statistics (MixedNB's column
        # layout): plain JSON, checked by the estimator when read back.
        section["state"] = encode(state, "state", 0)
    fitted = model.fitted_record()
    if fitted is not None:
        # Fitted results that would cost more than the budget bounds to recompute at load
        # (a Parzen window's O(n²) width search): stored, and checked by the estimator.
        section["fitted"] = encode(fitted, "fitted", 0)
    return section, arrays


def npy_bytes(array: np.ndarray, name: str) -> bytes:
    array = np.asarray(array)
    if array.dtype.hasobject or array.dtype.kind not in "biuf" or not SAFE_NAME.fullmatch(name):
        raise ModelFileError(f"refusing to store the {array.dtype} array {name!r}")
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def encode(value: Any, name: str, depth: int, more: Codec | None = None) -> Any:
    """A hyperparameter value as JSON; labels go through values_to_json so types survive.

    ``more`` encodes the other values a format version allows, or raises ModelFileError."""
    if isinstance(value, (np.ndarray, np.generic)):
        kind, flat = "ndarray" if isinstance(value, np.ndarray) else "scalar", np.ravel(value)
        return {"type": kind, "shape": list(np.shape(value)), "values": values_to_json(flat)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Family):
        return {"type": "family", "name": value.name, "config": encode(value.config(), name, 0)}
    if covariance_estimators().get(type(value).__name__) is type(value):
        # A scikit-learn covariance estimator of the allow-list: stored by name and settings.
        estimator: Any = value
        params = encode(estimator.get_params(deep=False), name, depth + 1)
        return {"type": "covariance_estimator", "name": type(value).__name__, "params": params}
    if isinstance(value, (Mapping, list, tuple)) and depth < MAX_DEPTH:
        out: dict[str, Any] = {"type": "tuple" if type(value) is tuple else "list"}
        if isinstance(value, Mapping):
            keys = np.empty(len(value), dtype=object)
            for i, key in enumerate(value):
                keys[i] = key
            out = {"type": "dict", "keys": values_to_json(keys)}
            value = list(value.values())
        return {**out, "items": [encode(v, name, depth + 1, more) for v in value]}
    if more is not None and depth < MAX_DEPTH:
        return more(value, name, depth)
    raise ModelFileError(
        f"cannot store the hyperparameter {name}={value!r} of type {type(value).__name__}; "
        "model files hold numbers, strings, bools, None, lists, dicts and numpy arrays"
    )


def check_section(section: dict[str, Any], where: str) -> list[str]:
    """Check the fields of a model of ESTIMATORS (see _model_section); return its entries."""
    if type(section.get("estimator")) is not str or section["estimator"] not in ESTIMATORS:
        raise ModelFileError(f"unknown estimator class {section.get('estimator')!r}")
    for key, kind in [
        ("params", dict), ("n_features_in", int), ("classes", dict), ("class_count", str),
        ("blocks", list),
    ]:  # fmt: skip
        if type(section.get(key)) is not kind:
            raise ModelFileError(f"{where}: {key} must be a {kind.__name__}")
    if type(section.get("classes_declared", False)) is not bool:
        raise ModelFileError(f"{where}: classes_declared must be true or false")
    names = section.get("feature_names_in")
    if names is not None and not (isinstance(names, list) and all(type(n) is str for n in names)):
        raise ModelFileError(f"{where}: feature_names_in must be n_features_in strings or null")
    for block in section["blocks"]:
        arrays = block.get("arrays") if isinstance(block, dict) else None
        if not isinstance(arrays, dict) or not isinstance(block.get("meta"), dict):
            raise ModelFileError(f"{where}: each block needs a kind, meta and arrays")
        if not all(isinstance(v, str) for v in arrays.values()):
            raise ModelFileError(f"{where}: block arrays must name entries")
        if block.get("kind") not in STATISTIC_KINDS:
            raise ModelFileError(f"unknown statistic kind {block.get('kind')!r}")
    return [section["class_count"]] + [n for b in section["blocks"] for n in b["arrays"].values()]


def check_meta(meta: dict[str, Any]) -> dict[str, str]:
    """Check the meta.json of a model of ESTIMATORS; return the manifest {entry: sha256}."""
    used = check_section(meta, "meta.json")
    manifest = check_manifest(meta)
    if sorted(used) != sorted(manifest):
        raise ModelFileError("meta.json: the manifest does not match the arrays the model uses")
    return manifest


def check_manifest(meta: dict[str, Any]) -> dict[str, str]:
    manifest = meta.get("entries")
    if type(manifest) is not dict:
        raise ModelFileError("meta.json: entries must be a dict")
    if not all(isinstance(v, str) for v in manifest.values()):
        raise ModelFileError("meta.json: entries must map names to sha256 digests")
    return manifest


def build(
    meta: dict[str, Any], arrays: dict[str, np.ndarray], budget: Budget | None = None
) -> GenerativeClassifier:
    """The model a section checked by check_section describes; what finalize will allocate
    is taken from ``budget`` first."""
    cls = ESTIMATORS[meta["estimator"]]
    params = decode_params(cls, meta["params"])
    blocks = []
    for block in meta["blocks"]:
        stat_cls = STATISTIC_KINDS[block["kind"]]
        block_arrays = {key: arrays[name] for key, name in block["arrays"].items()}
        blocks.append(stat_cls.from_arrays(block_arrays, block["meta"]))
    classes = values_from_json(meta["classes"])
    if not is_sorted_unique(classes):
        raise ModelFileError("the class labels 'classes' are not sorted and distinct")
    class_count = check_arrays("class_count", {"class_count": arrays[meta["class_count"]]})[
        "class_count"
    ]
    n_features = meta["n_features_in"]
    names = meta.get("feature_names_in")
    if (
        class_count.shape != classes.shape
        or any(b.n_classes != len(classes) for b in blocks)
        or sum(b.n_features for b in blocks) != n_features
        or (names is not None and len(names) != n_features)
    ):
        raise ModelFileError("the statistics do not match the class list or n_features_in")
    model = cls(**params)
    model.n_features_in_ = n_features
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model.set_layout_state(decode(meta["state"], "state", 0) if "state" in meta else None)
    model.set_classes_declared(meta.get("classes_declared", False))
    try:
        summary = Summary(classes, class_count, tuple(blocks))
        model.set_fitted_record(decode(meta.get("fitted"), "fitted", 0), summary)
        # Each statistic of the kind its family (under the stored settings) keeps: a
        # file declaring covariance_type="full" over diagonal moments is refused here.
        for family, stat in zip(model.configured_families(), blocks, strict=True):
            wrong = family.check_statistic(stat)
            if wrong is not None:
                raise ModelFileError(f"the settings do not fit the statistics stored: {wrong}")
        if budget is not None:
            # What finalize will allocate, from the hyperparameters and the statistics' sizes,
            # before it does: n_bins = 10^8 is refused here, not by a MemoryError.
            for family, stat in zip(model.configured_families(), blocks, strict=True):
                budget.take(8 * family.parameter_size(stat), f"the {family.name} parameters")
        # Statistics no data could give (a scatter that is not positive semi-definite), named
        # as a file's fault; only now, since the check itself costs what the budget bounds.
        for stat in blocks:
            invalid = stat.invalid()
            if invalid is not None:
                name, c, why = invalid
                raise ModelFileError(
                    f"the {stat.kind} statistic's array {name!r} of class index {c} {why}"
                )
        return model.fit_summary(summary)
    except BayeskitError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"the stored model is invalid: {exc}") from None


def decode_params(
    cls: type, raw: Any, more: Codec | None = None, depth: int = 0, prefix: str = ""
) -> dict[str, Any]:
    """Decoded hyperparameters of ``cls``, refusing names its constructor does not take."""
    if type(raw) is not dict:
        raise ModelFileError(f"meta.json: the params of a {cls.__name__} must be a dict")
    params = {k: decode(v, f"{prefix}{k}", depth, more) for k, v in raw.items()}
    unknown = sorted(set(params) - set(cls().get_params(deep=False)))
    if unknown:
        raise ModelFileError(f"{cls.__name__} has no hyperparameter {unknown[0]!r}")
    return params


def decode(obj: Any, name: str, depth: int, more: Codec | None = None) -> Any:
    """Inverse of :func:`_encode` (``more`` decodes the other types it wrote); refuses
    anything it would not write."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    kind = obj.get("type") if isinstance(obj, dict) else None
    bad = ModelFileError(f"meta.json: malformed value of hyperparameter {name}")
    if depth > MAX_DEPTH:
        raise bad
    if kind == "family":
        config = decode(obj.get("config"), name, depth + 1)
        if not isinstance(obj.get("name"), str) or not isinstance(config, dict):
            raise bad
        try:
            return family_from_config(obj["name"], config)
        except BayeskitError as exc:
            raise ModelFileError(f"meta.json: hyperparameter {name}: {exc}") from None
    if kind == "covariance_estimator":
        estimator = covariance_estimators().get(obj.get("name"))
        params = decode(obj.get("params"), name, depth + 1)
        if estimator is None or type(params) is not dict:
            raise bad
        if set(params) - set(estimator().get_params(deep=False)):
            raise bad
        return estimator(**params)
    if kind not in ("scalar", "ndarray", "dict", "list", "tuple"):
        if more is None or kind is None:
            raise bad
        return more(obj, name, depth)
    if kind in ("scalar", "ndarray"):
        flat = values_from_json(obj.get("values"))
        shape = obj.get("shape")
        if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
            raise bad
        if math.prod(shape) != flat.size or (kind == "scalar" and shape != []):
            raise bad
        return flat.reshape(shape)[()] if kind == "scalar" else flat.reshape(shape)
    items = obj.get("items")
    if not isinstance(items, list):
        raise bad
    decoded = [decode(v, name, depth + 1, more) for v in items]
    if kind == "dict":
        keys = values_from_json(obj.get("keys")).tolist()
        if len(keys) != len(decoded):
            raise bad
        return dict(zip(keys, decoded, strict=True))
    return tuple(decoded) if kind == "tuple" else decoded
