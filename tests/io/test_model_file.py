"""Model files: exact round trips, atomic writes and refusal of every bad file without running
code from it."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import pickle
import stat
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import BayeskitError, InputTypeError, ModelFileError, NotFittedError
from bayeskit.io import model_file

from ._refusal import parts, refused

RNG = np.random.default_rng(0)
COUNTS = RNG.poisson(1.5, size=(40, 3)).astype(np.float64)
BINARY = (RNG.random((40, 3)) < 0.4).astype(np.float64)
STR_Y = np.array(["ham", "spam"])[RNG.integers(0, 2, size=40)]
INT_Y = RNG.integers(0, 3, size=40)
BOOL_Y = RNG.random(40) < 0.5
MIXED = np.array(
    [["red", 1, "s"], ["blue", 2, None], [None, 1, "m"], ["red", 3, "l"], ["green", None, "s"],
     ["blue", 2, "m"], ["red", 1, "xl"], ["green", 3, None]], dtype=object,
)  # fmt: skip
MIXED_Y = np.array(["a", "b", "a", "c", "b", "c", "a", "b"])


# ---------------------------------------------------------------------------------- helpers
def roundtrip(model: bk.GenerativeClassifier, path: Path) -> bk.GenerativeClassifier:
    bk.save(model, path)
    return bk.load(path)


def assert_params_equal(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key, va in a.items():
        vb = b[key]
        assert type(va) is type(vb), key
        if isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype, key
            np.testing.assert_array_equal(va, vb)
        elif isinstance(va, dict):
            assert va == vb, key
            assert [type(k) for k in va] == [type(k) for k in vb], key
        else:
            assert va == vb, key


def assert_same(original: bk.GenerativeClassifier, loaded: bk.GenerativeClassifier, X: Any) -> None:
    assert type(loaded) is type(original)
    assert_params_equal(original.get_params(), loaded.get_params())
    np.testing.assert_array_equal(loaded.classes_, original.classes_)
    assert loaded.classes_.dtype == original.classes_.dtype
    assert loaded.n_features_in_ == original.n_features_in_
    names = getattr(original, "feature_names_in_", None)
    if names is None:
        assert not hasattr(loaded, "feature_names_in_")
    else:
        assert loaded.feature_names_in_.dtype == object
        np.testing.assert_array_equal(loaded.feature_names_in_, names)
    np.testing.assert_array_equal(loaded.predict_proba(X), original.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), original.predict(X))


def seal(
    path: Path, meta: dict[str, Any], entries: dict[str, bytes], manifest: bool = True
) -> None:
    """Write a crafted file with valid checksums, so that the checks behind them are reached."""
    if manifest:
        meta["entries"] = {n: hashlib.sha256(d).hexdigest() for n, d in entries.items()}
    with open(path, "w+b") as f:
        model_file._write_archive(f, meta, entries)


def raw_zip(path: Path, entries: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "model.bkm"
    bk.save(bk.MultinomialNB(alpha=0.5).fit(COUNTS, STR_Y), path)
    return path


# ---------------------------------------------------------------------------------- round trips
def _partial_fit_later_classes() -> tuple[bk.GenerativeClassifier, Any]:
    model = bk.MultinomialNB(class_weight={"ham": 1.0, "spam": 3.0, "eggs": 2.0})
    # a declared class with no rows ("zzz"), then a later call declaring one more ("eggs")
    model.partial_fit(COUNTS[:20], STR_Y[:20], classes=["ham", "spam", "zzz"])
    model.partial_fit(COUNTS[20:25], np.array(["eggs"] * 5), classes=["eggs", "ham", "spam", "zzz"])
    return model, COUNTS


def _dataframe(cls: Callable[..., bk.GenerativeClassifier]) -> tuple[bk.GenerativeClassifier, Any]:
    if cls is bk.CategoricalNB:
        X = pd.DataFrame(MIXED, columns=["colour", "count", "size"])
        return cls(alpha=0.5).fit(X, MIXED_Y), X
    X = pd.DataFrame(COUNTS, columns=["free", "win", "meeting"])
    return cls().fit(X, STR_Y), X


CASES: dict[str, Callable[[], tuple[bk.GenerativeClassifier, Any]]] = {
    "multinomial-str-labels": lambda: (
        bk.MultinomialNB(
            alpha=np.array([0.5, 1.0, 2.0]), class_weight={"ham": 1.0, "spam": 5.0}
        ).fit(COUNTS, STR_Y),
        COUNTS,
    ),
    "multinomial-map-prior": lambda: (
        bk.MultinomialNB(alpha=2.0, estimate="map", prior_alpha=1.5, class_prior=[0.25, 0.75]).fit(
            COUNTS, STR_Y
        ),
        COUNTS,
    ),
    "complement-int-labels-loss": lambda: (
        bk.ComplementNB(
            alpha=0.3, norm=True, loss=[[0, 1, 2], [1, 0, 1], [4.5, 1, 0]], class_weight={0: 2.0}
        ).fit(COUNTS, INT_Y),
        COUNTS,
    ),
    "bernoulli-bool-labels": lambda: (
        bk.BernoulliNB(
            binarize=None, fit_prior=False, alpha=np.float64(0.7), loss=((0.0, 2.0), (1.0, 0.0))
        ).fit(BINARY, BOOL_Y),
        BINARY,
    ),
    "bernoulli-class-prior-array": lambda: (
        bk.BernoulliNB(class_prior=np.array([0.4, 0.6]), class_weight="balanced").fit(
            COUNTS, STR_Y
        ),
        COUNTS,
    ),
    "categorical-mixed": lambda: (
        bk.CategoricalNB(
            alpha=np.array([0.5, 2.0, 1.0]),
            min_categories=np.array([4, 3, 5]),
            unseen="ignore",
            class_weight={"a": 1.0, "b": 2.0, "c": 0.5},
        ).fit(MIXED, MIXED_Y),
        MIXED,
    ),
    "categorical-int-labels": lambda: (
        bk.CategoricalNB(min_categories=6, estimate="mle").fit(MIXED, [1, 2, 1, 3, 2, 3, 1, 2]),
        MIXED,
    ),
    "multinomial-dataframe": lambda: _dataframe(bk.MultinomialNB),
    "categorical-dataframe": lambda: _dataframe(bk.CategoricalNB),
    "partial-fit-classes-added-later": _partial_fit_later_classes,
}


@pytest.mark.parametrize("case", CASES)
def test_round_trip_is_exact(case: str, tmp_path: Path) -> None:
    model, X = CASES[case]()
    assert_same(model, roundtrip(model, tmp_path / "m.bkm"), X)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB, bk.BernoulliNB])
def test_round_trip_defaults_and_pathlike(
    cls: type[bk.GenerativeClassifier], tmp_path: Path
) -> None:
    model = cls().fit(COUNTS, INT_Y)
    assert_same(model, roundtrip(model, str(tmp_path / "m.bkm")), COUNTS)
    assert_same(model, roundtrip(model, tmp_path / "m.bkm"), COUNTS)


def test_same_model_gives_same_bytes(tmp_path: Path) -> None:
    model, _ = CASES["categorical-mixed"]()
    bk.save(model, tmp_path / "a.bkm")
    bk.save(copy.deepcopy(model), tmp_path / "b.bkm")
    assert (tmp_path / "a.bkm").read_bytes() == (tmp_path / "b.bkm").read_bytes()


@pytest.mark.parametrize("case", ["multinomial-str-labels", "categorical-dataframe"])
def test_loaded_model_keeps_learning_and_merges(case: str, tmp_path: Path) -> None:
    model, X = CASES[case]()
    loaded = roundtrip(model, tmp_path / "m.bkm")
    y = model.predict(X)
    np.testing.assert_array_equal(
        bk.merge(model, loaded).predict_proba(X),
        bk.merge(model, copy.deepcopy(model)).predict_proba(X),
    )
    twin = copy.deepcopy(model)
    loaded.partial_fit(X, y)
    twin.partial_fit(X, y)
    np.testing.assert_array_equal(loaded.predict_proba(X), twin.predict_proba(X))


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.GaussianNB, bk.MixedNB])
def test_declared_classes_stay_declared_after_load(
    cls: type[bk.GenerativeClassifier], tmp_path: Path
) -> None:
    """partial_fit(classes=...) is scikit-learn's contract that these are all the classes: a
    loaded model refuses a label outside them as the saved one does; one whose classes were
    never declared (or a file written before the flag was stored) still takes new labels."""
    X = pd.DataFrame(COUNTS, columns=["a", "b", "c"]) if cls is bk.MixedNB else COUNTS
    declared = cls().partial_fit(X[:20], STR_Y[:20], classes=["ham", "spam"])
    loaded = roundtrip(declared, tmp_path / "declared.bkm")
    assert loaded.classes_declared()
    for model in (declared, loaded):
        before = model.predict_proba(X)
        with pytest.raises(bk.errors.UnknownClassError, match=r"'eggs'.*not in the classes"):
            model.partial_fit(X[20:25], np.array(["eggs"] * 5))
        np.testing.assert_array_equal(model.predict_proba(X), before)  # refused: unchanged
    free = cls().partial_fit(X[:20], STR_Y[:20])
    bk.save(free, tmp_path / "free.bkm")
    meta, _ = parts(tmp_path / "free.bkm")
    assert "classes_declared" not in meta  # the files written before the flag look like this
    grown = bk.load(tmp_path / "free.bkm").partial_fit(X[20:25], np.array(["eggs"] * 5))
    assert "eggs" in grown.classes_
    # fit starts over: the declaration does not outlive it, in memory or in the file
    refit = roundtrip(
        cls().partial_fit(X, STR_Y, classes=["ham", "spam"]).fit(X, STR_Y), tmp_path / "r.bkm"
    )
    assert not refit.classes_declared()


def test_a_stored_declared_flag_must_be_a_bool(tmp_path: Path) -> None:
    path = tmp_path / "declared.bkm"
    bk.save(bk.MultinomialNB().partial_fit(COUNTS, STR_Y, classes=["ham", "spam"]), path)
    meta, entries = parts(path)
    assert meta["classes_declared"] is True
    meta["classes_declared"] = "yes"
    seal(path, meta, entries)
    refused(path, "classes_declared must be true or false")


# ---------------------------------------------------------------------------------- saving
def test_failed_write_leaves_old_file_and_no_temp(
    saved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = saved.read_bytes()

    def boom(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(np, "save", boom)
    with pytest.raises(OSError, match="disk full"):
        bk.save(bk.BernoulliNB().fit(BINARY, STR_Y), saved)
    assert saved.read_bytes() == before
    assert os.listdir(saved.parent) == [saved.name]
    monkeypatch.undo()
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        bk.save(bk.BernoulliNB().fit(BINARY, STR_Y), saved.parent / "new.bkm")
    assert os.listdir(saved.parent) == [saved.name]
    assert isinstance(bk.load(saved), bk.MultinomialNB)


def test_new_file_follows_umask_and_overwrite_keeps_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        path = tmp_path / "m.bkm"
        bk.save(bk.MultinomialNB().fit(COUNTS, STR_Y), path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        path.chmod(0o600)
        bk.save(bk.MultinomialNB().fit(COUNTS, STR_Y), path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        os.umask(umask)


def test_refuses_unfitted_and_foreign_models(tmp_path: Path) -> None:
    from sklearn.naive_bayes import MultinomialNB as SklearnNB

    class Custom(bk.MultinomialNB):
        pass

    with pytest.raises(NotFittedError):
        bk.save(bk.CategoricalNB(), tmp_path / "m.bkm")
    for model in (SklearnNB().fit(COUNTS, STR_Y), Custom().fit(COUNTS, STR_Y), "model"):
        with pytest.raises(InputTypeError, match="bayeskit estimator") as info:
            bk.save(model, tmp_path / "m.bkm")  # type: ignore[arg-type]
        assert isinstance(info.value, TypeError)
        assert isinstance(info.value, BayeskitError)
    model = bk.MultinomialNB().fit(COUNTS, STR_Y)
    model.class_weight = {"ham": object()}  # past set_params and fit, which refuse it
    with pytest.raises(ModelFileError, match="class_weight"):
        bk.save(model, tmp_path / "m.bkm")
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------------------- refusals
def test_refuses_what_is_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "m.bkm"
    for content in (b"", b"hello world", pickle.dumps({"a": 1})):
        path.write_bytes(content)
        refused(path, "not a bayeskit model file", "not a zip")
    with pytest.raises(FileNotFoundError):
        bk.load(tmp_path / "missing.bkm")


def test_refuses_other_zips(tmp_path: Path) -> None:
    path = tmp_path / "m.bkm"
    raw_zip(path, {"data.csv": b"a,b\n1,2\n"})
    refused(path, "not a bayeskit model file", "no meta.json")
    raw_zip(path, {"meta.json": json.dumps({"format": "other", "format_version": 1}).encode()})
    refused(path, "not a bayeskit model file", "format")
    raw_zip(path, {"meta.json": b"{not json"})
    refused(path, "meta.json is not valid JSON")
    raw_zip(path, {"meta.json": b"[" * 100_000})
    refused(path, "meta.json is not valid JSON")


def test_refuses_truncated_file(saved: Path) -> None:
    data = saved.read_bytes()
    for cut in (len(data) // 2, len(data) - 30, len(data) - 10):
        saved.write_bytes(data[:cut])
        refused(saved, "truncated")


def _file_bytes(model: bk.GenerativeClassifier) -> bytes:
    buffer = io.BytesIO()
    model_file._write_archive(buffer, *model_file._model_contents(model))
    return buffer.getvalue()


SMALL_FILE = _file_bytes(bk.CategoricalNB(alpha=np.array([1.0, 0.5, 2.0])).fit(MIXED, MIXED_Y))


def test_written_bytes_are_a_loadable_file(tmp_path: Path) -> None:
    (tmp_path / "m.bkm").write_bytes(SMALL_FILE)
    assert isinstance(bk.load(tmp_path / "m.bkm"), bk.CategoricalNB)


@given(position=st.integers(min_value=0), flip=st.integers(min_value=1, max_value=255))
def test_any_modified_byte_is_refused(position: int, flip: int) -> None:
    data = bytearray(SMALL_FILE)
    data[position % len(data)] ^= flip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.bkm"
        path.write_bytes(bytes(data))
        refused(path)


@given(cut=st.integers(min_value=0))
def test_any_truncation_is_refused(cut: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.bkm"
        path.write_bytes(SMALL_FILE[: cut % len(SMALL_FILE)])
        refused(path)


def test_refuses_modified_bytes_with_checksum_message(saved: Path) -> None:
    data = bytearray(saved.read_bytes())
    data[-1] ^= 1  # the whole-file digest
    saved.write_bytes(bytes(data))
    refused(saved, "checksum mismatch")
    meta, entries = parts(saved)
    entries["class_count.npy"] = entries["class_count.npy"][:-8] + np.float64(99).tobytes()
    seal(saved, meta, entries, manifest=False)  # array changed, manifest not updated
    refused(saved, "checksum mismatch", "class_count.npy")
    meta, entries = parts(saved)
    with zipfile.ZipFile(saved, "a") as zf:
        zf.comment = b"bayeskit-sha256:" + hashlib.sha256(b"forged").hexdigest().encode()
    refused(saved, "checksum mismatch")


def test_refuses_newer_format_version(saved: Path) -> None:
    meta, entries = parts(saved)
    newer = model_file.FORMAT_VERSION + 1
    seal(saved, {**meta, "format_version": newer}, entries)
    refused(saved, f"format_version {newer}", "newer bayeskit", f"up to {newer - 1}")
    seal(saved, {**meta, "format_version": "1"}, entries)
    refused(saved, "format_version must be a positive int")


@pytest.mark.parametrize("name", ["../evil.npy", "sub/x.npy", "..\\x.npy", "/abs.npy", "a..npy"])
def test_refuses_unsafe_entry_names(saved: Path, name: str) -> None:
    meta, entries = parts(saved)
    seal(saved, meta, {**entries, name: entries["class_count.npy"]})
    refused(saved, "not allowed", repr(name))


def test_refuses_extra_missing_and_duplicate_entries(saved: Path) -> None:
    meta, entries = parts(saved)
    seal(saved, meta, {**entries, "extra.npy": entries["class_count.npy"]}, manifest=False)
    refused(saved, "'extra.npy' is not in the manifest")
    seal(saved, meta, {k: v for k, v in entries.items() if k != "block0.total.npy"}, manifest=False)
    refused(saved, "'block0.total.npy' of the manifest is missing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw_zip(saved, {"meta.json": b"{}"})
        with zipfile.ZipFile(saved, "a") as zf:
            zf.writestr("meta.json", b"{}")
    refused(saved, "appears twice")


class Exploit:
    """Unpickling this creates the directory ``marker``: proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (str(self.marker),))


def test_pickle_in_npy_entry_never_runs(saved: Path, tmp_path: Path) -> None:
    marker, proof = tmp_path / "pwned", tmp_path / "proof"

    def npy_exploit(target: Path) -> bytes:
        payload = np.empty(1, dtype=object)
        payload[0] = Exploit(target)
        buffer = io.BytesIO()
        np.save(buffer, payload, allow_pickle=True)
        return buffer.getvalue()

    # The crafted entry is a live exploit: loading it with pickle allowed runs its code.
    np.load(io.BytesIO(npy_exploit(proof)), allow_pickle=True)
    assert proof.exists()
    exploit = npy_exploit(marker)
    meta, entries = parts(saved)
    for entry, words in [
        (exploit, ("object/pickle arrays are refused", "block0.total.npy")),
        (pickle.dumps(Exploit(marker)), ("not a .npy array", "block0.total.npy")),
    ]:
        seal(saved, meta, {**entries, "block0.total.npy": entry})
        refused(saved, *words)
        assert not marker.exists()
    # Unsealed variant (checksums not updated): refused all the same, still without running it.
    with zipfile.ZipFile(saved, "w") as zf:
        zf.writestr("meta.json", json.dumps(meta))
        zf.writestr("class_count.npy", exploit)
    refused(saved)
    assert not marker.exists()


def test_refuses_npy_whose_header_lies_about_its_size(saved: Path) -> None:
    meta, entries = parts(saved)
    lie = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": (10**12,)}
    np.lib.format.write_array_header_1_0(lie, header)
    seal(saved, meta, {**entries, "class_count.npy": lie.getvalue() + bytes(16)})
    refused(saved, "shape does not match its data")
    seal(saved, meta, {**entries, "class_count.npy": b"\x93NUMPY\x09\x00junk"})
    refused(saved, "not a .npy array")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"estimator": "os.system"}, ("unknown estimator class 'os.system'",)),
        ({"estimator": "LogisticRegression"}, ("unknown estimator class 'LogisticRegression'",)),
        ({"n_features_in": "3"}, ("n_features_in must be a int",)),
        ({"n_features_in": 7}, ("do not match",)),
        ({"params": [1, 2]}, ("params must be a dict",)),
        ({"params": {"alpha": [1.0]}}, ("malformed value of hyperparameter alpha",)),
        ({"params": {"alpha": {"type": "pickle"}}}, ("hyperparameter alpha",)),
        ({"params": {"alpha": -1.0}}, ("alpha",)),
        ({"params": {"evil": 1}}, ("no hyperparameter 'evil'",)),
        ({"classes": {"dtype": "object", "values": [["code", 1]]}}, ("malformed",)),
        ({"classes": {"dtype": "O", "values": ["x"]}}, ("dtype",)),
        ({"blocks": [42]}, ("each block needs",)),
        ({"blocks": [{"kind": "os.system", "meta": {}, "arrays": {}}]}, ("unknown statistic",)),
        ({"feature_names_in": [1, 2, 3]}, ("feature_names_in",)),
        ({"class_count": "block0.total.npy"}, ("manifest does not match",)),
        # fields and values save never writes (they loaded: the 1.5 as a label of 1)
        ({"comment": "hi"}, ("meta.json holds the field 'comment'",)),
        (
            {"classes": {"dtype": "object", "values": [["int", 1.5], ["int", 2]]}},
            ("the value 1.5 tagged 'int'",),
        ),
        ({"classes": {"dtype": "int64", "values": [1.5, 2]}}, ("1.5 in a int64 list",)),
        ({"classes": {"dtype": "bool", "values": [0, 1]}}, ("0 in a bool list",)),
    ],
)
def test_refuses_wrong_metadata(saved: Path, change: dict[str, Any], words: tuple[str]) -> None:
    meta, entries = parts(saved)
    seal(saved, {**meta, **change}, entries)
    refused(saved, *words)


def test_refuses_zip_bombs(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    meta, entries = parts(saved)
    raw_zip(saved, {"meta.json": json.dumps(meta).encode()})
    data = bytearray(saved.read_bytes())
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = (3 * 1024**3).to_bytes(4, "little")  # declared size
    saved.write_bytes(bytes(data))
    refused(saved, "zip bomb", "meta.json")
    seal(saved, meta, entries)
    monkeypatch.setattr(model_file, "MAX_TOTAL_SIZE", 1000)
    refused(saved, "zip bomb", "limit 1000")
