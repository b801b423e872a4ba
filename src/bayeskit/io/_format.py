"""The parts of the model-file format every kind of model shares: the estimators a file can
name, hyperparameters as JSON (the codec), a fitted generative classifier as metadata + arrays
(a *section*: the top level of its file, or the model a SemiSupervisedNB wraps) and the
manifest.

A section asks the model for what it stores: its statistics (one entry per block), settings,
declared classes, layout and fitted record. A model that reads documents (a text classifier,
format version 3) has one block of kind ``"documents"``, written by
:mod:`bayeskit.io._documents_block`; its settings nest estimators and sets of stop words.

:mod:`bayeskit.io.model_file` (the archive: saving, loading, checksums),
:mod:`bayeskit.io._text_state` (TextVectorizer, and the text classifiers of format version 2,
read only) and :mod:`bayeskit.io._semi_state` (SemiSupervisedNB) build on this module; it
imports none of them, so imports point one way.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._base import GenerativeClassifier
from .._estimators import ESTIMATORS as _ESTIMATORS
from .._estimators import estimator_class
from .._values import is_sorted_unique, values_from_json, values_to_json
from .._version import __version__
from ..contract import contract_of
from ..discriminant._common import covariance_estimators
from ..errors import BayeskitError, ModelFileError, ModelFileVersionError
from ..families import Family, family_from_config
from ..stats import STATISTIC_KINDS, Summary
from ..stats._base import check_arrays
from ._unwritten import unwritten_parts

FORMAT_NAME = "bayeskit-model"
#: The format version of a model of ESTIMATORS (text models and wrappers need newer ones).
FIRST_VERSION = 1
#: The format version of a model that reads documents (its block of kind "documents"); text
#: classifiers were written in the "text" state of version 2 before (still read).
DOCUMENTS_VERSION = 3
#: The format version of a model holding a count statistic kept as its cells (kind
#: "sparse_counts").
CELLS_VERSION = 4
#: The only classes a model file can name (listed once, in :mod:`bayeskit._estimators`, with
#: the text classifiers of its DOCUMENTS and the vectorizer of ``_text_state``): nothing else
#: is ever constructed by :func:`~bayeskit.io.model_file.load`.
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
    """meta.json (without checksum) and the entries of a fitted model of ESTIMATORS (or a
    text classifier)."""
    return assemble(section_version(model), *model_section(model))


def reads_documents(model: Any) -> bool:
    """Whether ``model`` (a class or an instance) declares it reads documents: its one block
    is written as a block of kind "documents"."""
    return contract_of(model).input == "documents"


def section_version(model: GenerativeClassifier) -> int:
    """The oldest format version that holds ``model``'s section."""
    version = DOCUMENTS_VERSION if reads_documents(model) else FIRST_VERSION
    kinds = {kind for block in model.statistics().blocks for kind in _kinds(block)}
    return max(version, CELLS_VERSION) if "sparse_counts" in kinds else version


def _kinds(statistic: Any) -> list[str]:
    """The kinds of a statistic and of those it holds (a text model's count statistic)."""
    inner = [getattr(statistic, name, None) for name in ("keyed", "block", "components")]
    return [statistic.kind] + [k for part in inner if part is not None for k in _kinds(part)]


def model_section(
    model: GenerativeClassifier, prefix: str = ""
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A fitted generative classifier (of ESTIMATORS, or a text classifier) as metadata
    fields and arrays (entry names start with ``prefix``): the top level of its file, or the
    model a SemiSupervisedNB wraps."""
    summary = model.statistics()  # raises NotFittedError
    documents = reads_documents(model)
    if documents:
        from ._documents_block import KIND, documents_arrays

        params = {k: encode(v, k, 0, encode_more) for k, v in model.get_params(deep=False).items()}
    else:
        params = {k: encode(v, k, 0) for k, v in model.get_params(deep=False).items()}
    arrays: dict[str, np.ndarray] = {f"{prefix}class_count.npy": summary.class_count}
    blocks = []
    for i, block in enumerate(summary.blocks):
        if documents:  # the documents family's block (its vocabulary too)
            kind, (block_arrays, block_meta) = KIND, documents_arrays(model)
        else:
            kind, (block_arrays, block_meta) = block.kind, block.to_arrays()
        names = {key: f"{prefix}block{i}.{key}.npy" for key in block_arrays}
        arrays.update({names[key]: array for key, array in block_arrays.items()})
        blocks.append({"kind": kind, "meta": block_meta, "arrays": names})
    names_in = getattr(model, "feature_names_in_", None)
    section = {
        "estimator": type(model).__name__,
        "params": params,
        # documents are no table: a text model has no number of input features
        "n_features_in": None if documents else int(model.n_features_in_),
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
    if not array.flags.c_contiguous:
        # stored in C order whatever the memory layout (a Fortran-ordered array would be
        # stored so, and the same model written as other bytes)
        array = np.array(array, order="C")
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
    if (
        type(value).__module__.startswith("sklearn.covariance")  # asked only then: no import
        and covariance_estimators().get(type(value).__name__) is type(value)
    ):
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
    """Check the fields of a generative classifier (see model_section); return its entries."""
    cls = estimator_class(section.get("estimator"))
    if cls is None:
        raise ModelFileError(f"unknown estimator class {section.get('estimator')!r}")
    documents = reads_documents(cls)
    for key, kind in [
        ("params", dict), ("n_features_in", type(None) if documents else int),
        ("classes", dict), ("class_count", str), ("blocks", list),
    ]:  # fmt: skip
        if type(section.get(key)) is not kind:
            raise ModelFileError(f"{where}: {key} must be a {kind.__name__}")
    if documents and section.get("feature_names_in") is not None:
        raise ModelFileError(f"{where}: a model of documents has no feature_names_in")
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
        known = (
            block.get("kind") == "documents" if documents else block.get("kind") in STATISTIC_KINDS
        )
        if not known:
            raise ModelFileError(f"unknown statistic kind {block.get('kind')!r}")
    return [section["class_count"]] + [n for b in section["blocks"] for n in b["arrays"].values()]


#: The fields of every model file's meta.json (``reading``: a file ``bayeskit train`` wrote);
#: a SemiSupervisedNB's wrapped section holds neither a checksum nor a reading.
HEADER_FIELDS = frozenset(
    {"format", "format_version", "bayeskit_version", "estimator", "params", "entries",
     "checksum", "reading"}
)  # fmt: skip
#: The fields of a generative classifier's section (see model_section).
SECTION_FIELDS = frozenset(
    {"n_features_in", "feature_names_in", "classes", "class_count", "blocks",
     "classes_declared", "state", "fitted"}
)  # fmt: skip


def check_fields(meta: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    """Refuse a field save never writes there: a file holds only what its reader checks."""
    unknown = sorted(set(meta) - allowed)
    if unknown:
        raise ModelFileError(
            f"{where} holds the field {unknown[0]!r}, which bayeskit does not write there "
            f"(its fields: {', '.join(sorted(allowed))})"
        )


def check_meta(meta: dict[str, Any], where: str = "meta.json") -> dict[str, str]:
    """Check the meta.json of a model of ESTIMATORS (or a SemiSupervisedNB's wrapped section,
    ``where``); return the manifest {entry: sha256}."""
    header = HEADER_FIELDS if where == "meta.json" else HEADER_FIELDS - {"checksum", "reading"}
    check_fields(meta, header | SECTION_FIELDS, where)
    used = check_section(meta, where)
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
    cls = estimator_class(meta["estimator"])
    assert cls is not None  # checked by check_section
    documents = reads_documents(cls)
    params = decode_params(cls, meta["params"], decode_more if documents else None)
    model = cls(**params)
    blocks = []
    for block in meta["blocks"]:
        block_arrays = {key: arrays[name] for key, name in block["arrays"].items()}
        if documents:  # the settings checked, a fixed vocabulary's vectorizer given to model
            from ._documents_block import documents_statistic

            try:
                take = None if budget is None else budget.take
                blocks.append(documents_statistic(model, block_arrays, block["meta"], take))
            except BayeskitError as exc:
                if isinstance(exc, ModelFileError):
                    raise
                raise ModelFileError(f"the stored model is invalid: {exc}") from None
            continue
        stat_cls = STATISTIC_KINDS[block["kind"]]
        if budget is not None:  # the copies and masks its checks make of the arrays
            budget.take(stat_cls.read_size(block_arrays), f"reading the {block['kind']} arrays")
        stat = stat_cls.from_arrays(block_arrays, block["meta"])
        # A part this version does not write (a newer bayeskit's, of the same format version)
        # is refused, not ignored: the model would be rebuilt without it.
        unknown = unwritten_parts(stat, block_arrays, block["meta"])
        if unknown:
            raise ModelFileError(
                f"the {block['kind']} block holds {unknown[0]!r}, which this bayeskit does not "
                "write (a file of a newer bayeskit? load it with the version that wrote it)"
            )
        blocks.append(stat)
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
        or (not documents and sum(b.n_features for b in blocks) != n_features)
        or (names is not None and len(names) != n_features)
    ):
        raise ModelFileError("the statistics do not match the class list or n_features_in")
    if not documents:
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
            if wrong is not None and stat.kind == KINDS_BEFORE.get(meta["estimator"]):
                raise ModelFileVersionError(
                    f"this {meta['estimator']} was written by an earlier bayeskit, which kept "
                    f"its statistics as {stat.kind!r}: {wrong}"
                )
            if wrong is not None:
                raise ModelFileError(f"the settings do not fit the statistics stored: {wrong}")
        if budget is not None:
            # What finalize will allocate, from the hyperparameters and the statistics' sizes,
            # before it does: n_bins = 10^8 is refused here, not by a MemoryError.
            for family, stat in zip(model.configured_families(), blocks, strict=True):
                budget.take(8 * family.parameter_size(stat), f"the {family.name} parameters")
        # The priors' numbers and the likelihoods' of the same rows (after the budget: a
        # file beyond it is refused for that first, whatever else it holds)
        check_class_count(classes, class_count, blocks)
        # Statistics no data could give (a scatter that is not positive semi-definite), named
        # as a file's fault; only now, since the check itself costs what the budget bounds.
        for stat in blocks:
            invalid = stat.invalid()
            if invalid is not None:
                name, c, why = invalid
                raise ModelFileError(
                    f"the {stat.kind} statistic's array {name!r} of class index {c} {why}"
                )
        # What fit warned about (collinear columns, priors renormalised, a class_weight
        # naming no class) was said when the model was trained, not at every reading.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return model.fit_summary(summary)
    except BayeskitError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"the stored model is invalid: {exc}") from None


#: How far (relative) a file's class counts may stray from the rows' weight its statistics
#: record: sums of the same weights taken in another order (a fit's, a merge's, an unlearn's)
#: differ in their last digits (measured: 1e-14 at most), a count that is not theirs by far.
CLASS_COUNT_TOLERANCE = 1e-6


def check_class_count(classes: np.ndarray, class_count: np.ndarray, blocks: Any) -> None:
    """Refuse class counts (the priors' numbers) that are not the weight of the rows the
    statistics (the likelihoods' numbers) were made of, as each statistic records it
    (:meth:`~bayeskit.stats.Statistic.class_weight_bounds`): the weight itself (counts, a
    scatter, a sample, mixture components), or at least the weight of the rows in which a
    feature is observed (moments, category and subset counts)."""
    floor = 1e-9 * float(np.max(np.abs(class_count), initial=0.0))  # (near-empty classes)
    for stat in blocks:
        least, most = stat.class_weight_bounds()
        for bound, side, says in ((least, -1.0, "at least"), (most, 1.0, "at most")):
            finite = np.where(np.isfinite(bound), bound, 0.0)
            allowed = CLASS_COUNT_TOLERANCE * np.maximum(np.abs(class_count), np.abs(finite))
            with np.errstate(invalid="ignore"):  # (no bound: -inf beyond, never refused)
                wrong = side * (class_count - bound) > allowed + floor
            if wrong.any():
                c = int(np.argmax(wrong))
                raise ModelFileError(
                    f"the class count of class {classes.tolist()[c]!r} is {class_count[c]:.17g}, "
                    f"but the {stat.kind} statistic says the weight of its rows is "
                    f"{'' if least is most else says + ' '}{float(bound[c]):.17g}: the class "
                    "counts are not those of the statistics"
                )


#: Hyperparameters added after files were written without them, whose default is not what
#: those files were fitted with: the value such a file loads with (a file of a model that
#: predates the setting meant the behaviour it had then). TANClassifier weighed its tree's
#: edges by the conditional mutual information (Friedman, Geiger & Goldszmidt 1997) before
#: edge_weight existed, whose default is now the Bayesian Dirichlet gain.
SETTINGS_BEFORE: dict[str, dict[str, Any]] = {"TANClassifier": {"edge_weight": "cmi"}}
#: The statistic kind earlier files of an estimator hold where it now keeps another (PoissonNB
#: and BinomialNB kept moments before their counts): such a file is refused as one of an
#: earlier version (:class:`~bayeskit.errors.ModelFileVersionError`), to be fitted again.
KINDS_BEFORE: dict[str, str] = {"PoissonNB": "moments", "BinomialNB": "moments"}


def decode_params(
    cls: type, raw: Any, more: Codec | None = None, depth: int = 0, prefix: str = ""
) -> dict[str, Any]:
    """Decoded hyperparameters of ``cls``, refusing names its constructor does not take; a
    setting the file predates takes the value of :data:`SETTINGS_BEFORE`, if it has one."""
    if type(raw) is not dict:
        raise ModelFileError(f"meta.json: the params of a {cls.__name__} must be a dict")
    params = {k: decode(v, f"{prefix}{k}", depth, more) for k, v in raw.items()}
    unknown = sorted(set(params) - set(cls().get_params(deep=False)))
    if unknown:
        raise ModelFileError(f"{cls.__name__} has no hyperparameter {unknown[0]!r}")
    before = SETTINGS_BEFORE.get(cls.__name__, {})
    return {**{k: v for k, v in before.items() if k not in params}, **params}


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


# ---------------------------------------------------------------------------------- nesting
def nested_estimators() -> dict[str, type]:
    """The classes a hyperparameter may be an instance of (a text model's ``vectorizer`` and
    ``model``, the ``estimator`` a SemiSupervisedNB wraps): the estimators of ESTIMATORS,
    the text classifier and the vectorizer."""
    from ..text import TextClassifier, TextVectorizer

    return {
        **ESTIMATORS,
        TextVectorizer.__name__: TextVectorizer,
        TextClassifier.__name__: TextClassifier,
    }


def encode_more(value: Any, name: str, depth: int) -> Any:
    """Sets and estimators of :func:`nested_estimators` as JSON (see :func:`decode_more`)."""
    if isinstance(value, (set, frozenset)):  # sorted, so the same set gives the same file
        items = sorted(value, key=lambda v: (type(v).__name__, repr(v)))
        kind = "frozenset" if isinstance(value, frozenset) else "set"
        return {"type": kind, "items": [encode(v, name, depth + 1, encode_more) for v in items]}
    cls = type(value)
    nested = nested_estimators()
    if nested.get(cls.__name__) is cls:
        params = {
            k: encode(v, f"{name}__{k}", depth + 1, encode_more)
            for k, v in value.get_params(deep=False).items()
        }
        return {"type": "estimator", "class": cls.__name__, "params": params}
    if callable(value):
        raise ModelFileError(
            f"cannot save a model whose {name} is a callable ({value!r}): model files hold no "
            "code. Use a named analyzer ('word', 'char', 'char_wb', 'email') to save the model"
        )
    raise ModelFileError(
        f"cannot store the hyperparameter {name}={value!r} of type {cls.__name__}; model files "
        "hold numbers, strings, bools, None, lists, dicts, sets, numpy arrays and estimators "
        f"of the classes {', '.join(sorted(nested))}"
    )


def decode_more(obj: dict[str, Any], name: str, depth: int) -> Any:
    """Sets and estimators, built only from classes of :func:`nested_estimators`."""
    from ..text.analyze import MAX_STOP_WORDS

    kind = obj.get("type")
    if kind == "estimator":
        cls_name = obj.get("class")
        cls = nested_estimators().get(cls_name) if type(cls_name) is str else None
        if cls is None:
            raise ModelFileError(f"unknown estimator class {cls_name!r} in hyperparameter {name}")
        return cls(**decode_params(cls, obj.get("params"), decode_more, depth + 1, f"{name}__"))
    items = obj.get("items")
    if isinstance(items, list) and len(items) > MAX_STOP_WORDS:  # sets are stop words
        raise ModelFileError(
            f"meta.json: hyperparameter {name} holds {len(items)} items (at most {MAX_STOP_WORDS})"
        )
    if kind in ("set", "frozenset") and isinstance(items, list) and depth < MAX_DEPTH:
        decoded = [decode(v, name, depth + 1, decode_more) for v in items]
        try:
            return set(decoded) if kind == "set" else frozenset(decoded)
        except TypeError:  # an unhashable item: never written
            pass
    raise ModelFileError(f"meta.json: malformed value of hyperparameter {name}")
