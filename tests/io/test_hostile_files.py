"""A model file cannot exhaust the machine (issue 10 §3): crafted files with valid checksums
are refused before the loader allocates what they ask for, each in a bounded amount of memory
(measured in a subprocess); statistics no model could have are refused naming the array; and a
generator of mutated files finds nothing that loads into a model predicting NaN."""

from __future__ import annotations

import hashlib
import io
import math
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import ModelFileError, SingularCovarianceError
from bayeskit.stats.scatter import Scatter
from bayeskit.text import TextClassifier, TextVectorizer

from ._refusal import measured_loads, npy, parts, refused, seal

RNG = np.random.default_rng(0)
COUNTS = RNG.poisson(1.5, size=(30, 3)).astype(np.float64)
REALS = RNG.normal(size=(30, 3))
Y = np.array(["ham", "spam"])[RNG.integers(0, 2, size=30)]
WORDS = np.array(["cash", "prize", "lunch", "noon", "free", "meeting", "win", "see", "you", "é"])
DOCS = [" ".join(RNG.choice(WORDS, size=5)) for _ in range(30)]


def npy_header(dtype: str, shape: tuple[int, ...]) -> bytes:
    """A .npy header declaring ``shape`` without the data."""
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}"
    header = header.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()


def saved_model(tmp_path: Path, model: bk.GenerativeClassifier, X: Any) -> Path:
    path = tmp_path / "model.bkm"
    bk.save(model.fit(X, Y), path)
    return path


def patch_declared_size(path: Path, name: str, size: int) -> None:
    """Make the zip directory and local header of entry ``name`` declare ``size`` bytes
    uncompressed (the deflate stream stays as it was)."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, offset in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
        start = 0
        while True:
            at = data.find(signature, start)
            if at < 0:
                break
            name_at = at + (46 if signature == b"PK\x01\x02" else 30)
            if data[name_at : name_at + len(encoded)] == encoded:
                data[at + offset : at + offset + 4] = size.to_bytes(4, "little")
            start = at + 4
    # The whole-file digest at the end, recomputed: an attacker can.
    digest = hashlib.sha256(bytes(data[:-64])).hexdigest().encode()
    data[-64:] = digest
    path.write_bytes(bytes(data))


def raw_meta(path: Path, meta_text: bytes) -> None:
    """A model file whose meta.json is the given bytes (refused before its checksum is read)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("meta.json", meta_text)


# ---------------------------------------------------------------------------------- the files
def bomb_declared(tmp_path: Path) -> Path:
    """2.3 GB of zeros declared by an array entry of a 1 MB file."""
    path = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    entries["block0.total.npy"] = npy_header("<f8", (2, 143_750_000)) + bytes(1 << 20)
    seal(path, meta, entries)
    patch_declared_size(path, "block0.total.npy", 2_300_000_000)
    return path


def bomb_stream(tmp_path: Path) -> Path:
    """An entry whose .npy header and zip directory declare 1 MB but whose deflate stream
    inflates to 64 MB: the reader must stop where the declaration does."""
    path = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    header = npy_header("<f8", (1, 1 << 17))
    entries["block0.total.npy"] = header + bytes(64 << 20)
    seal(path, meta, entries)
    patch_declared_size(path, "block0.total.npy", len(header) + (1 << 20))
    return path


def header_lies(tmp_path: Path) -> Path:
    """A .npy header declaring 4 GB in front of 48 bytes of data."""
    path = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    entries["block0.total.npy"] = npy_header("<f8", (2, 1 << 28)) + bytes(48)
    seal(path, meta, entries)
    return path


def wide_labels(tmp_path: Path) -> Path:
    """Class labels declared as S2000000000 in a file of about a kilobyte."""
    path = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    meta["classes"] = {"dtype": "S2000000000", "values": ["ham", "spam"]}
    seal(path, meta, entries)
    return path


def many_bins(tmp_path: Path) -> Path:
    """DiscretizedNB with n_bins = 10^8."""
    path = saved_model(tmp_path, bk.DiscretizedNB(method="width"), REALS)
    meta, entries = parts(path)
    meta["params"]["n_bins"] = 10**8
    seal(path, meta, entries)
    return path


def wide_sample(tmp_path: Path) -> Path:
    """A DiscretizedNB whose few rows have 50 000 features, with n_bins = 65 536 (allowed):
    finalize would allocate tens of gigabytes of interval probabilities."""
    X = RNG.normal(size=(4, 50_000))
    path = tmp_path / "model.bkm"
    bk.save(bk.DiscretizedNB(method="width", n_bins=2).fit(X, Y[:4]), path)
    meta, entries = parts(path)
    meta["params"]["n_bins"] = 65_536
    seal(path, meta, entries)
    return path


def text_model(tmp_path: Path, vectorizer: TextVectorizer) -> tuple[Path, dict[str, Any], Any]:
    path = tmp_path / "model.bkm"
    bk.save(TextClassifier(vectorizer=vectorizer).fit(DOCS, Y), path)
    meta, entries = parts(path)
    return path, meta, entries


def documents_bomb(tmp_path: Path) -> Path:
    """A text model's term counts (its documents block) declaring 2.3 GB in a 1 MB file."""
    path, meta, entries = text_model(tmp_path, TextVectorizer())
    name = meta["blocks"][0]["arrays"]["keyed.total"]
    entries[name] = npy_header("<f8", (2, 143_750_000)) + bytes(1 << 20)
    seal(path, meta, entries)
    patch_declared_size(path, name, 2_300_000_000)
    return path


def documents_terms(tmp_path: Path) -> Path:
    """A fixed vocabulary's term list declaring 10^9 terms by a .npy header (offsets of 8 GB)
    in front of 48 bytes."""
    path, meta, entries = text_model(tmp_path, TextVectorizer(output="tfidf"))
    name = meta["blocks"][0]["arrays"]["vocabulary.terms.offsets"]
    entries[name] = npy_header("<i8", (1_000_000_001,)) + bytes(48)
    seal(path, meta, entries)
    return path


def documents_ngrams(tmp_path: Path) -> Path:
    """A text model whose settings ask for n-grams of up to 100 000 words."""
    path, meta, entries = text_model(tmp_path, TextVectorizer())
    params = {"ngram_range": {"type": "tuple", "items": [1, 100_000]}}
    meta["params"]["vectorizer"] = {
        "type": "estimator",
        "class": "TextVectorizer",
        "params": params,
    }
    seal(path, meta, entries)
    return path


def long_hyperparameter(tmp_path: Path) -> Path:
    """A 25-million-float alpha list in meta.json (100 MB of JSON, deflated to 100 KB)."""
    path = tmp_path / "model.bkm"
    items = b"1.0," * 25_000_000
    raw_meta(path, b'{"format": "bayeskit-model", "params": {"alpha": [' + items + b"1.0]}}")
    return path


def many_values(tmp_path: Path) -> Path:
    """A 5-million-value list in 39 MB of meta.json (under the size and ratio limits)."""
    path = tmp_path / "model.bkm"
    digits = RNG.integers(ord("0"), ord("9") + 1, size=(5_000_000, 8), dtype=np.uint8)
    digits[:, 0], digits[:, 1:5], digits[:, -1] = ord("1"), ord("0"), ord(",")
    items = digits.tobytes() + b"1"
    raw_meta(path, b'{"format": "bayeskit-model", "stop": [' + items + b"]}")
    return path


HOSTILE = {
    "bomb_declared": (bomb_declared, "beyond the 1073741824 bytes this load may use"),
    "bomb_stream": (bomb_stream, "corrupted entry 'block0.total.npy'"),
    "header_lies": (header_lies, "shape does not match its data"),
    "wide_labels": (wide_labels, "far wider than its values"),
    "many_bins": (many_bins, "n_bins must be an integer >= 1 and at most 65536"),
    "wide_sample": (wide_sample, "discretized parameters needs"),
    "long_hyperparameter": (long_hyperparameter, "meta.json declares"),
    "many_values": (many_values, "values (limit 4000000)"),
    "documents_bomb": (documents_bomb, "beyond the 1073741824 bytes this load may use"),
    "documents_terms": (documents_terms, "shape does not match its data"),
    "documents_ngrams": (documents_ngrams, "ngram_range=(1, 100000)"),
}


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for name, (make, _) in HOSTILE.items():
        folder = tmp_path_factory.mktemp(name)
        out[name] = make(folder)
    return out


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_file_is_refused_by_name(name: str, hostile_files: dict[str, Path]) -> None:
    path = hostile_files[name]
    assert path.stat().st_size < 16_000_000  # each fits in an e-mail
    refused(path, HOSTILE[name][1])


def test_hostile_files_load_in_bounded_memory_and_time(
    hostile_files: dict[str, Path], tmp_path: Path
) -> None:
    """Peak RSS grows by less than 150 MB and each refusal takes under 10 s, measured in a
    fresh process (before: the 2.3 GB bomb reached 2.3 GB, S2000000000 allocated 4 GB)."""
    valid = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    names = list(HOSTILE)
    for name, (outcome, grown_kb, seconds) in zip(
        names, measured_loads(valid, [hostile_files[n] for n in names]), strict=True
    ):
        assert outcome == "refused", name
        assert grown_kb < 150 * 1024, (name, grown_kb // 1024, "MB")
        assert seconds < 10, (name, seconds)


def test_max_bytes_bounds_what_a_trusted_model_may_take(tmp_path: Path) -> None:
    path = saved_model(tmp_path, bk.KernelNB(), REALS)
    refused_by = refused_with(path, max_bytes=1000)
    assert "load(..., max_bytes=...)" in refused_by
    np.testing.assert_array_equal(
        bk.load(path, max_bytes=10**9).predict_proba(REALS),
        bk.KernelNB().fit(REALS, Y).predict_proba(REALS),
    )
    with pytest.raises(TypeError, match="max_bytes must be a whole number"):
        bk.load(path, max_bytes="lots")


def test_covariances_beyond_the_budget_are_refused_before_finalize(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A QDA file with 2 000 columns: its scatter matrices (64 MB, zeros that deflate to a
    small file) fit in the budget, the covariances, factors and work matrices computed from
    them would not: refused by the multivariate normal family's parameter size, before even
    the O(d^3) check that each matrix is a scatter matrix runs."""
    path = saved_model(tmp_path, bk.QuadraticDiscriminantAnalysis(), REALS)
    meta, entries = parts(path)
    d = 2000
    entries["block0.mean.npy"] = npy(np.zeros((2, d)))
    entries["block0.scatter.npy"] = npy(np.zeros((2, d, d)))
    meta["n_features_in"] = d
    meta.pop("feature_names_in", None)
    seal(path, meta, entries)
    assert path.stat().st_size < 1_000_000
    with monkeypatch.context() as patch:
        patch.setattr(Scatter, "invalid", lambda self: pytest.fail("checked before the budget"))
        refused(path, "the mvnormal parameters needs", "load(..., max_bytes=...)")
    model = bk.QuadraticDiscriminantAnalysis(reg_param=0.5).fit(REALS, Y)
    bk.save(model, path)  # and a real model loads within the same budget
    np.testing.assert_array_equal(bk.load(path).predict_proba(REALS), model.predict_proba(REALS))


def refused_with(path: Path, **kwargs: Any) -> str:
    with pytest.raises(ModelFileError) as info:
        bk.load(path, **kwargs)
    return str(info.value)


# ---------------------------------------------------------------------------------- statistics
@pytest.mark.parametrize(
    ("make", "X", "entry", "value", "words"),
    [
        (bk.MultinomialNB, COUNTS, "block0.total.npy", np.nan, "'total' holds nan"),
        (bk.MultinomialNB, COUNTS, "block0.total.npy", np.inf, "'total' holds inf"),
        (bk.MultinomialNB, COUNTS, "block0.total.npy", -3.0, "'total' holds -3.0"),
        (bk.MultinomialNB, COUNTS, "block0.weight.npy", -1.0, "'weight' holds -1.0"),
        (bk.MultinomialNB, COUNTS, "class_count.npy", np.nan, "'class_count' holds nan"),
        (bk.GaussianNB, REALS, "block0.m2.npy", -1.0, "'m2' holds -1.0"),
        (bk.GaussianNB, REALS, "block0.mean.npy", np.inf, "'mean' holds inf"),
        (bk.KernelNB, REALS, "block0.values.npy", -np.inf, "'values' holds -inf"),
        (bk.KernelNB, REALS, "block0.weight.npy", np.nan, "'weight' holds nan"),
        (bk.CategoricalNB, COUNTS, "block0.counts.npy", -2.0, "'counts' holds -2.0"),
    ],
)
def test_impossible_statistics_are_refused_naming_the_array(
    tmp_path: Path, make: Any, X: np.ndarray, entry: str, value: float, words: str
) -> None:
    path = saved_model(tmp_path, make(), X)
    meta, entries = parts(path)
    array = np.load(io.BytesIO(entries[entry]))
    array.flat[0] = value
    entries[entry] = npy(array)
    seal(path, meta, entries)
    refused(path, words)


def test_missing_values_in_a_sample_are_allowed(tmp_path: Path) -> None:
    X = REALS.copy()
    X[0, 0] = np.nan
    path = saved_model(tmp_path, bk.KernelNB(), X)
    assert np.isfinite(bk.load(path).predict_proba(X)).all()


@pytest.mark.parametrize(
    ("labels", "words"),
    [
        (["spam", "ham"], "not sorted and distinct"),
        (["ham", "ham"], "not sorted and distinct"),
    ],
)
def test_unsorted_or_repeated_class_labels(tmp_path: Path, labels: list[str], words: str) -> None:
    path = saved_model(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    meta["classes"] = {"dtype": "<U4", "values": labels}
    seal(path, meta, entries)
    refused(path, words)


def test_unsorted_categories(tmp_path: Path) -> None:
    path = saved_model(tmp_path, bk.CategoricalNB(), COUNTS.astype(int))
    meta, entries = parts(path)
    values = meta["blocks"][0]["meta"]["categories"][0]["values"]
    values[0], values[1] = values[1], values[0]
    seal(path, meta, entries)
    refused(path, "categories of feature 0 are not sorted and distinct")


def test_presence_counts_above_the_row_count(tmp_path: Path) -> None:
    path = saved_model(tmp_path, bk.BernoulliNB(), COUNTS)
    meta, entries = parts(path)
    total = np.load(io.BytesIO(entries["block0.total.npy"]))
    total[0, 0] = 1000.0
    entries["block0.total.npy"] = npy(total)
    seal(path, meta, entries)
    refused(path, "cannot be present in more rows than there are")


# ---------------------------------------------------------------------------------- generator
MODELS = {
    "multinomial": (lambda: bk.MultinomialNB(alpha=np.array([0.5, 1.0, 2.0])), COUNTS),
    "gaussian": (lambda: bk.GaussianNB(priors=[0.4, 0.6]), REALS),
    "categorical": (lambda: bk.CategoricalNB(min_categories=5), COUNTS.astype(int)),
    "kernel": (bk.KernelNB, REALS),
    "discretized": (lambda: bk.DiscretizedNB(method="frequency", n_bins=4), REALS),
    "mixed": (bk.MixedNB, REALS),
    "poisson": (lambda: bk.PoissonNB(beta=1.0), COUNTS),
    "bernoulli": (bk.BernoulliNB, (COUNTS > 1).astype(np.float64)),
    "complement": (lambda: bk.ComplementNB(norm=True), COUNTS),
    "binomial": (lambda: bk.BinomialNB(n_trials=8), COUNTS),
    "lda": (lambda: bk.LinearDiscriminantAnalysis(shrinkage="auto", priors=[0.3, 0.7]), REALS),
    "qda": (lambda: bk.QuadraticDiscriminantAnalysis(reg_param=0.1), REALS),
    "rda": (lambda: bk.RegularizedDiscriminantAnalysis(gamma=0.1), REALS),
    # text classifiers: a documents block per term, and over a fixed vocabulary
    "text-per-term": (lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2)), DOCS),
    "text-fixed": (lambda: TextClassifier(vectorizer=TextVectorizer(output="tfidf")), DOCS),
}

_ODD = [
    None, True, -1, 0, 1, 2**31, 2**63, 10**30, -1e308, 1e308, 0.5, "", "x", "float64", "S9",
    "<U2000000000", "object", "O", "V8", [], {}, [None], {"type": "list", "items": [1e308] * 3},
    {"type": "ndarray", "shape": [10**9], "values": {"dtype": "float64", "values": []}},
    {"type": "family", "name": "gaussian", "config": {}}, {"dtype": "object", "values": [1]},
]  # fmt: skip


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document."""
    out = [prefix]
    if isinstance(obj, dict):
        for key, value in obj.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj[:6]):
            out += _paths(value, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[head] = _set(obj[head], tuple(rest), value)
    return copy


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, list[tuple[str, Any]]]:
    name = draw(st.sampled_from(sorted(MODELS)))
    kinds = st.sampled_from(["meta", "meta", "array", "array", "entry"])
    return name, [
        (draw(kinds), draw(st.integers(0, 10**6))) for _ in range(draw(st.integers(1, 3)))
    ]


def _mutate_array(data: bytes, pick: int) -> bytes:
    with np.errstate(all="ignore"):  # casts and products meant to overflow
        return _mutated(data, pick)


def _mutated(data: bytes, pick: int) -> bytes:
    try:
        array = np.load(io.BytesIO(data))
    except (ValueError, MemoryError):  # an entry an earlier step broke
        return data[::-1]
    rng = np.random.default_rng(pick)
    choice = pick % 7
    if choice == 0 and array.size:
        array = array.astype(np.float64)
        array.flat[rng.integers(array.size)] = rng.choice([np.nan, np.inf, -np.inf, -1.0, 1e308])
    elif choice == 1:
        array = array.reshape(-1)
    elif choice == 2:
        array = array.astype(rng.choice(["<f4", ">f8", "<i8", "<u1", "<f2", "bool"]))
    elif choice == 3:
        array = np.concatenate([array.reshape(-1), array.reshape(-1)])
    elif choice == 4 and array.ndim == 2:
        array = array.T.copy()
    elif choice == 5:
        array = array[:0]
    else:
        array = np.asarray(array, dtype=np.float64) * rng.choice([-1.0, 1e300, 1e-300, 0.0])
    return npy(array)


@given(mutations())
# A sample value of 1e308: every class's Gaussian density underflows in MixedNB's choice.
@example(mutation=("mixed", [("array", 0)]))
# RDA's tol set to 1e308: the refusal's message squared it (a float overflow, not an error).
@example(mutation=("rda", [("meta", 346), ("meta", 347)]))
# a binomial model's n_trials set to 1e308 for every feature: ln C(k, x) overflowed into NaN
@example(mutation=("binomial", [("meta", 724)]))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mutated_files_load_finitely_or_are_refused(tmp_path: Path, mutation: Any) -> None:
    check_mutant(tmp_path, mutation)


@pytest.mark.slow
@given(mutations())
@settings(
    max_examples=max(2000, settings.default.max_examples),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_mutated_files_load_finitely_or_are_refused_thoroughly(
    tmp_path: Path, mutation: Any
) -> None:
    check_mutant(tmp_path, mutation)


def check_mutant(tmp_path: Path, mutation: Any) -> None:
    """Load a mutant of a valid file (checksums recomputed): a model with finite
    probabilities, or a one-line ModelFileError naming the path."""
    name, steps = mutation
    make, X = MODELS[name]
    path = tmp_path / f"{name}.bkm"
    bk.save(make().fit(X, Y), path)
    meta, entries = parts(path)
    for kind, pick in steps:
        if kind == "meta":
            where = _paths(meta)
            meta = _set(meta, where[pick % len(where)], _ODD[pick % len(_ODD)])
        elif kind == "array":
            key = sorted(entries)[pick % len(entries)]
            entries[key] = _mutate_array(entries[key], pick)
        else:
            key = sorted(entries)[pick % len(entries)]
            entries[key] = npy_header("<f8", (1 << 40,)) if pick % 2 else entries[key][:20]
    if not isinstance(meta, dict):
        meta = {"format": meta}
    seal(path, meta, entries)
    try:
        model = bk.load(path)
    except ModelFileError as exc:
        message = str(exc)
        assert "\n" not in message
        assert str(path) in message
        return
    assert math.isfinite(float(np.sum(model.class_count_)))
    try:
        P = model.predict_proba(X)
    except SingularCovarianceError:
        # Statistics a stream may save (partial_fit of fewer rows than features): loaded,
        # and prediction refuses them by name.
        return
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize(
    ("name", "setting"), [("categorical", "unseen"), ("bernoulli", "binarize")]
)
def test_a_setting_predict_would_refuse_is_refused_at_load(tmp_path: Path, name: str, setting: str):
    # Found by the thorough generator: unseen=1e30 (CategoricalNB) and a text binarize
    # (BernoulliNB) loaded, and every predict then failed.
    make, X = MODELS[name]
    path = saved_model(tmp_path, make(), X)
    meta, entries = parts(path)
    meta["params"][setting] = 10**30 if setting == "unseen" else "x"
    seal(path, meta, entries)
    refused(path, setting)


def _files_of_every_kind(tmp: Path) -> dict[str, Path]:
    """A saved model of every estimator of the registry (GMMs of every covariance type)."""
    from bayeskit._estimators import ESTIMATORS

    made = {}
    for name, cls in ESTIMATORS.items():
        settings_: list[dict[str, Any]] = [{}]
        if name == "BinomialNB":
            settings_ = [{"n_trials": 6}]
        if name == "GaussianMixtureClassifier":
            settings_ = [
                {"n_components": 2, "covariance_type": c, "random_state": 0}
                for c in ("diag", "spherical", "full", "tied")
            ]
        for params in settings_:
            data = REALS if name in ("GaussianNB", "KernelNB", "DiscretizedNB") else COUNTS
            if name.endswith("Analysis") or name in ("GaussianMixtureClassifier", "MixedNB"):
                data = REALS
            if name == "BinomialNB":
                data = np.minimum(COUNTS, 6)
            label = f"{name}-{params.get('covariance_type', '')}"
            path = tmp / f"{label}.bkm"
            bk.save(cls(**params).fit(data, Y), path)
            made[label] = path
    return made


def test_declared_settings_are_checked_against_the_statistics(tmp_path: Path) -> None:
    # Each file's statistics with every other file's estimator and settings: the loader
    # refuses by name, or the settings fit the statistics (diagonal and spherical mixtures
    # share moments) and the model predicts probabilities.
    files = _files_of_every_kind(tmp_path)
    metas = {label: parts(path)[0] for label, path in files.items()}
    loaded = 0
    for label, path in files.items():
        for other, other_meta in metas.items():
            if other == label:
                continue
            meta, entries = parts(path)
            meta["estimator"], meta["params"] = other_meta["estimator"], other_meta["params"]
            crafted = tmp_path / "crafted.bkm"
            seal(crafted, meta, entries)
            try:
                model = bk.load(crafted)
            except ModelFileError as exc:
                message = str(exc)
                assert str(crafted) in message
                continue
            data = REALS if meta["n_features_in"] == 3 else COUNTS
            try:
                P = model.predict_proba(data)
            except bk.errors.BayeskitError:
                continue
            assert np.isfinite(P).all()
            np.testing.assert_allclose(P.sum(axis=1), 1.0)
            loaded += 1
    assert loaded  # the checks refuse what does not fit, not every swap


@pytest.mark.parametrize("saved", ["diag", "spherical", "full", "tied"])
@pytest.mark.parametrize("declared", ["diag", "spherical", "full", "tied"])
def test_a_mixture_file_declaring_another_covariance_type(tmp_path, saved, declared):
    path = tmp_path / "gmm.bkm"
    model = bk.GaussianMixtureClassifier(n_components=2, covariance_type=saved, random_state=0)
    bk.save(model.fit(REALS, Y), path)
    meta, entries = parts(path)
    meta["params"]["covariance_type"] = declared
    seal(path, meta, entries)
    diagonal = {"diag", "spherical"}
    if (saved in diagonal) != (declared in diagonal):
        refused(path, f"covariance_type={declared!r}", "statistics")
    else:
        P = bk.load(path).predict_proba(REALS)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
