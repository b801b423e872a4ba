"""Model files of text models: exact round trips of TextVectorizer, TextClassifier and SpamFilter
in both modes (format version 3: a generative classifier whose block is of kind "documents"),
term lists stored as UTF-8 bytes, and refusal of every bad file, of version 3 and of the "text"
state of version 2 (files written by bayeskit 0.1 and later, still read)."""

from __future__ import annotations

import copy
import io
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import InputTypeError, ModelFileError, NotFittedError
from bayeskit.io import _documents_block, model_file
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from ._refusal import npy, parts, refused, seal
from ._text_state_models import FILES

TEXTS, LABELS = load_sms_spam()
TRAIN, TRAIN_Y = TEXTS[:1500], LABELS[:1500]
MORE, MORE_Y = TEXTS[1500:1700], LABELS[1500:1700]
TEST = [*TEXTS[4000:4500], "", "zzzz unseen words only", "free entry", "é ü 中文 words"]

Text = TextClassifier | TextVectorizer


# ---------------------------------------------------------------------------------- helpers
def roundtrip(model: Any, path: Path) -> Any:
    bk.save(model, path)
    return bk.load(path)


def assert_params_equal(a: BaseEstimator, b: BaseEstimator) -> None:
    """Same class and hyperparameters, nested estimators included, types and all."""
    assert type(a) is type(b)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert pa.keys() == pb.keys()
    for key, va in pa.items():
        vb = pb[key]
        assert type(va) is type(vb), key
        if isinstance(va, BaseEstimator):
            assert va is not vb
            assert_params_equal(va, vb)
        elif isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype, key
            np.testing.assert_array_equal(va, vb)
        else:
            assert va == vb, key


def assert_same(original: Text, loaded: Text, docs: list[Any]) -> None:
    assert_params_equal(original, loaded)
    if isinstance(original, TextVectorizer):
        assert isinstance(loaded, TextVectorizer)
        np.testing.assert_array_equal(
            loaded.transform(docs).toarray(), original.transform(docs).toarray()
        )
        if original.output != "hashed":
            np.testing.assert_array_equal(
                loaded.get_feature_names_out(), original.get_feature_names_out()
            )
        return
    assert isinstance(loaded, TextClassifier)
    np.testing.assert_array_equal(loaded.classes_, original.classes_)
    assert loaded.classes_.dtype == original.classes_.dtype
    np.testing.assert_array_equal(loaded.predict_proba(docs), original.predict_proba(docs))
    np.testing.assert_array_equal(loaded.predict(docs), original.predict(docs))
    if isinstance(original, SpamFilter):
        assert isinstance(loaded, SpamFilter)
        np.testing.assert_array_equal(loaded.classify(docs), original.classify(docs))


def array_of(entry: bytes) -> np.ndarray:
    return np.load(io.BytesIO(entry), allow_pickle=False)


# ---------------------------------------------------------------------------------- models
def _batches_with_unlearning() -> TextClassifier:
    """Statistics and vocabulary over different term lists: weight-0 documents count in the
    vocabulary, and unlearning drops the terms no weight is left for from the statistics."""
    clf = TextClassifier(vectorizer=TextVectorizer(min_df=2))
    weights = np.ones(500)
    weights[:50] = 0.0
    clf.partial_fit(
        TRAIN[:500], TRAIN_Y[:500], classes=["eggs", "ham", "spam"], sample_weight=weights
    )
    clf.partial_fit(TRAIN[500:1500], TRAIN_Y[500:1500])
    clf.unlearn(TRAIN[100:300], TRAIN_Y[100:300])
    return clf


ADDITIVE: dict[str, Callable[[], TextClassifier]] = {
    "spam-filter-cutoffs": lambda: SpamFilter(
        ham_cutoff=0.05, spam_cutoff=0.8, lost_ham_cost=9.0, passed_spam_cost=2.0
    ),
    "min-df-oov": lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2, oov_token="<oov>")),
    "bigrams-stop-words": lambda: TextClassifier(
        vectorizer=TextVectorizer(ngram_range=(1, 2), stop_words=["the", "to", "a"]),
        model=bk.MultinomialNB(alpha=0.5),
    ),
    "bernoulli-binary": lambda: TextClassifier(
        vectorizer=TextVectorizer(output="binary", max_features=2000),
        model=bk.BernoulliNB(alpha=0.5),
    ),
    "complement-int-labels": lambda: TextClassifier(
        model=bk.ComplementNB(alpha=0.3, class_weight={0: 2.0, 1: 1.0})
    ),
}
FIXED: dict[str, Callable[[], TextClassifier]] = {
    "twcnb": TextClassifier.twcnb,
    "twcnb-spam-filter": lambda: SpamFilter.twcnb(ngram_range=(1, 2), min_df=2, spam_cutoff=0.7),
    "hashed": lambda: TextClassifier(vectorizer=TextVectorizer(output="hashed", n_features=2**16)),
    "given-vocabulary": lambda: TextClassifier(
        vectorizer=TextVectorizer(vocabulary={"free", "call", "txt", "win", "ok"}, oov_token="?")
    ),
}


def labels(name: str, y: np.ndarray) -> np.ndarray:
    return (y == "spam").astype(int) if name == "complement-int-labels" else y


def fitted(factory: Callable[[], TextClassifier], name: str) -> TextClassifier:
    return factory().fit(TRAIN, labels(name, TRAIN_Y))


# ---------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", [*ADDITIVE, *FIXED])
def test_classifier_round_trip_is_exact(name: str, tmp_path: Path) -> None:
    clf = fitted({**ADDITIVE, **FIXED}[name], name)
    loaded = roundtrip(clf, tmp_path / "m.bkm")
    assert loaded.keeps_term_statistics() == (name in ADDITIVE)
    assert_same(clf, loaded, TEST)


def test_round_trip_after_batches_and_unlearning(tmp_path: Path) -> None:
    clf = _batches_with_unlearning()
    block_terms = clf.stats_.blocks[0].terms
    # unlearning drops the terms it empties from the counts and the vocabulary statistics
    # alike (one statistic): one term list, whatever the batches
    np.testing.assert_array_equal(block_terms, clf.vocabulary_stats_.terms)
    loaded = roundtrip(clf, tmp_path / "m.bkm")
    assert_same(clf, loaded, TEST)
    np.testing.assert_array_equal(loaded.stats_.blocks[0].terms, block_terms)
    np.testing.assert_array_equal(
        loaded.stats_.blocks[0].keyed.block.total, clf.stats_.blocks[0].keyed.block.total
    )
    for field in ("terms", "doc_freq", "term_freq"):
        expected = getattr(clf.vocabulary_stats_, field)
        np.testing.assert_array_equal(getattr(loaded.vocabulary_stats_, field), expected)
    assert loaded.vocabulary_stats_.n_docs == clf.vocabulary_stats_.n_docs
    assert "eggs" in loaded.classes_.tolist()


@pytest.mark.parametrize("name", list(ADDITIVE))
def test_loaded_additive_classifier_keeps_learning_unlearns_and_merges(
    name: str, tmp_path: Path
) -> None:
    clf = fitted(ADDITIVE[name], name)
    loaded, twin = roundtrip(clf, tmp_path / "m.bkm"), copy.deepcopy(clf)
    np.testing.assert_array_equal(
        (loaded + clf).predict_proba(TEST), (twin + clf).predict_proba(TEST)
    )
    for model in (loaded, twin):
        model.partial_fit(MORE, labels(name, MORE_Y))
    np.testing.assert_array_equal(loaded.predict_proba(TEST), twin.predict_proba(TEST))
    for model in (loaded, twin):
        model.unlearn(TRAIN[:300], labels(name, TRAIN_Y[:300]))
    np.testing.assert_array_equal(loaded.predict_proba(TEST), twin.predict_proba(TEST))


@pytest.mark.parametrize("name", ["twcnb", "hashed"])
def test_loaded_fixed_classifier_keeps_learning(name: str, tmp_path: Path) -> None:
    clf = fitted(FIXED[name], name)
    loaded, twin = roundtrip(clf, tmp_path / "m.bkm"), copy.deepcopy(clf)
    for model in (loaded, twin):
        model.partial_fit(MORE, MORE_Y)
    np.testing.assert_array_equal(loaded.predict_proba(TEST), twin.predict_proba(TEST))


@pytest.mark.parametrize(
    "vec",
    [
        TextVectorizer(stop_words=frozenset({"the", "to", "a"}), token_pattern=r"(?u)\b\w+\b"),
        TextVectorizer(output="tfidf", min_df=2, sublinear_tf=True, norm="l1", oov_token="<?>"),
        TextVectorizer(output="binary", analyzer="char_wb", ngram_range=(2, 3), max_df=0.5),
        TextVectorizer(output="hashed", n_features=1000, stop_words="english"),
        TextVectorizer(vocabulary=np.array(["free", "win", "call"]), lowercase=False),
    ],
    ids=["counts", "tfidf", "char-binary", "hashed", "given-vocabulary"],
)
def test_vectorizer_round_trip_is_exact(vec: TextVectorizer, tmp_path: Path) -> None:
    vec = vec.fit(TRAIN[:800])
    loaded = roundtrip(vec, tmp_path / "v.bkm")
    assert_same(vec, loaded, TEST)
    if vec.output == "tfidf":
        np.testing.assert_array_equal(loaded.idf_, vec.idf_)


def test_vectorizer_fitted_in_batches(tmp_path: Path) -> None:
    vec = TextVectorizer(min_df=3)
    vec.partial_fit(TRAIN[:400]).partial_fit(TRAIN[400:800])
    loaded = roundtrip(vec, tmp_path / "v.bkm")
    assert_same(vec, loaded, TEST)
    loaded.partial_fit(MORE)
    vec.partial_fit(MORE)
    assert_same(vec, loaded, TEST)


def test_email_analyzer_on_raw_messages(shared_data: Path, tmp_path: Path) -> None:
    root = shared_data / "spamassassin-public-corpus"
    mails = {
        label: [p.read_bytes() for p in sorted((root / folder).glob("0*"))[:14]]
        for label, folder in (("ham", "easy_ham"), ("spam", "spam"))
    }
    train = mails["ham"][:10] + mails["spam"][:10]
    held_out = mails["ham"][10:] + mails["spam"][10:]
    spam_filter = SpamFilter(vectorizer=TextVectorizer(analyzer="email"), ham_cutoff=0.3)
    spam_filter.fit(train, ["ham"] * 10 + ["spam"] * 10)
    loaded = roundtrip(spam_filter, tmp_path / "mail.bkm")
    assert_same(spam_filter, loaded, held_out)
    loaded.train_on_error(held_out, ["ham"] * 4 + ["spam"] * 4)
    spam_filter.train_on_error(held_out, ["ham"] * 4 + ["spam"] * 4)
    np.testing.assert_array_equal(
        loaded.predict_proba(held_out), spam_filter.predict_proba(held_out)
    )


def test_large_vocabulary_is_stored_as_bytes_and_loads_fast(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    words = np.array(
        [
            f"w{i:06d}" + ("é" if i % 3 else "") + ("中" if i % 7 == 0 else "")
            for i in range(100_000)
        ]
    )
    docs = [" ".join(chunk) for chunk in np.array_split(rng.permutation(words), 1000)]
    y = rng.choice(["ham", "spam"], size=len(docs))
    clf = TextClassifier(vectorizer=TextVectorizer()).fit(docs, y)  # unigrams
    assert len(clf.vocabulary_stats_) == 100_000
    path = tmp_path / "big.bkm"
    bk.save(clf, path)
    start = time.perf_counter()
    loaded = bk.load(path)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0, f"loading a 100k-term model took {elapsed:.2f}s"
    assert_same(clf, loaded, docs[:50] + TEST[:50])
    meta, entries = parts(path)
    assert len(json.dumps(meta)) < 10_000  # the terms are not JSON
    # one term list for both the statistics and the vocabulary
    assert meta["blocks"][0]["meta"]["vocabulary_terms"] == "same"
    assert sum(name.endswith(".utf8.npy") for name in entries) == 1


def test_file_layout_and_versions(tmp_path: Path) -> None:
    bk.save(bk.MultinomialNB().fit(np.eye(3), ["a", "b", "a"]), tmp_path / "n.bkm")
    assert parts(tmp_path / "n.bkm")[0]["format_version"] == 1  # older bayeskit reads these
    assert model_file.FORMAT_VERSION == 4  # (4: a count statistic kept as its cells)
    bk.save(TextVectorizer().fit(TRAIN[:20]), tmp_path / "v.bkm")
    assert parts(tmp_path / "v.bkm")[0]["format_version"] == 2  # bayeskit 0.1 reads these
    bk.save(fitted(ADDITIVE["spam-filter-cutoffs"], ""), tmp_path / "t.bkm")
    meta, entries = parts(tmp_path / "t.bkm")
    assert meta["format_version"] == 3
    assert meta["estimator"] == "SpamFilter"
    assert meta["params"]["vectorizer"] is None
    assert meta["params"]["ham_cutoff"] == 0.05
    assert meta["n_features_in"] is None
    assert ["str", "score_counts"] in meta["fitted"]["keys"]["values"]  # calibration
    (block,) = meta["blocks"]
    assert (block["kind"], block["meta"]["mode"]) == ("documents", "per_term")
    assert block["meta"]["keyed"]["kind"] == "counts"
    blob = array_of(entries[block["arrays"]["terms.utf8"]])
    offsets = array_of(entries[block["arrays"]["terms.offsets"]])
    assert (blob.dtype, offsets.dtype) == (np.uint8, np.int64)
    assert offsets[0] == 0
    assert offsets[-1] == len(blob)
    bk.save(fitted(FIXED["twcnb"], ""), tmp_path / "f.bkm")
    meta, entries = parts(tmp_path / "f.bkm")
    (block,) = meta["blocks"]
    assert (block["kind"], block["meta"]["mode"]) == ("documents", "fixed")
    assert "vocabulary.terms.utf8" in block["arrays"]


def test_same_model_gives_same_bytes(tmp_path: Path) -> None:
    clf = fitted(ADDITIVE["bigrams-stop-words"], "")
    bk.save(clf, tmp_path / "a.bkm")
    bk.save(copy.deepcopy(clf), tmp_path / "b.bkm")
    assert (tmp_path / "a.bkm").read_bytes() == (tmp_path / "b.bkm").read_bytes()


# ---------------------------------------------------------------------------------- refusals
def test_refuses_to_save_code_unfitted_and_foreign_models(tmp_path: Path) -> None:
    path = tmp_path / "m.bkm"

    def analyzer(doc: str) -> list[str]:
        return doc.split()

    for model in (
        TextVectorizer(analyzer=analyzer).fit(TRAIN[:20]),
        TextClassifier(vectorizer=TextVectorizer(analyzer=analyzer)).fit(TRAIN[:20], TRAIN_Y[:20]),
        SpamFilter(vectorizer=TextVectorizer(analyzer=str.split, output="tfidf")).fit(
            TRAIN[:20], TRAIN_Y[:20]
        ),
    ):
        with pytest.raises(ModelFileError, match="analyzer is a callable"):
            bk.save(model, path)
    for unfitted in (TextVectorizer(), TextClassifier(), SpamFilter()):
        with pytest.raises(NotFittedError):
            bk.save(unfitted, path)

    class MyFilter(SpamFilter):
        pass

    with pytest.raises(InputTypeError, match="bayeskit estimator"):
        bk.save(MyFilter().fit(TRAIN[:20], TRAIN_Y[:20]), path)
    assert os.listdir(tmp_path) == []


# The refusals of the "text" state of version 2 (what bayeskit wrote before version 3) take a
# file of that state: SpamFilter(vectorizer=TextVectorizer(min_df=2),
# model=MultinomialNB(alpha=0.5)) and TextClassifier.twcnb(min_df=2) fitted on 300 messages
# (see _text_state_models).
@pytest.fixture
def saved(tmp_path: Path) -> Path:
    return Path(shutil.copy(FILES / "v2-spam-filter.bkm", tmp_path / "text.bkm"))


@pytest.fixture
def saved_fixed(tmp_path: Path) -> Path:
    return Path(shutil.copy(FILES / "v2-twcnb.bkm", tmp_path / "fixed.bkm"))


def test_refuses_truncated_and_modified_files(saved: Path) -> None:
    data = saved.read_bytes()
    for cut in (len(data) // 3, len(data) - 40, len(data) - 1):
        saved.write_bytes(data[:cut])
        refused(saved)
    for position in (40, len(data) // 2, len(data) - 100):
        changed = bytearray(data)
        changed[position] ^= 0x20
        saved.write_bytes(bytes(changed))
        refused(saved)
    saved.write_bytes(data)
    assert isinstance(bk.load(saved), SpamFilter)


def _terms_of(meta: dict[str, Any]) -> tuple[str, str]:
    ref = meta["state"]["vocabulary"]["terms"]
    return ref["utf8"], ref["offsets"]


def _with_terms(saved: Path, blob: bytes, offsets: list[int]) -> None:
    meta, entries = parts(saved)
    utf8, offs = _terms_of(meta)
    entries[utf8] = npy(np.frombuffer(blob, dtype=np.uint8))
    entries[offs] = npy(np.asarray(offsets, dtype=np.int64))
    seal(saved, meta, entries)


@pytest.mark.parametrize(
    ("blob", "offsets", "words"),
    [
        (b"abcd", [0, 2, 5], ("offsets must run from 0", "4 bytes")),
        (b"abcd", [1, 2, 4], ("offsets must run from 0",)),
        (b"abcd", [], ("offsets must run from 0",)),
        (b"abcd", [0, 3, 2, 4], ("offsets decrease",)),
        (b"ab\xffd", [0, 2, 4], ("not valid UTF-8",)),
        ("é".encode() + b"b", [0, 1, 3], ("not valid UTF-8",)),  # a character cut in two
        (b"xyab", [0, 2, 4], ("not sorted and distinct",)),
        (b"abab", [0, 2, 4], ("not sorted and distinct",)),
    ],
)
def test_refuses_bad_term_lists(
    saved: Path, blob: bytes, offsets: list[int], words: tuple[str, ...]
) -> None:
    _with_terms(saved, blob, offsets)
    refused(saved, "bad term list", *words)


def test_refuses_term_arrays_of_other_types(saved: Path) -> None:
    meta, entries = parts(saved)
    utf8, offs = _terms_of(meta)
    blob = array_of(entries[utf8])
    seal(saved, copy.deepcopy(meta), {**entries, utf8: npy(blob.astype(np.int64))})
    refused(saved, utf8, "must be a 1-D uint8 array")
    offsets = array_of(entries[offs]).astype(np.float64)
    seal(saved, copy.deepcopy(meta), {**entries, offs: npy(offsets)})
    refused(saved, offs, "int64")
    payload = np.empty(2, dtype=object)
    payload[:] = ["a", "b"]
    buffer = io.BytesIO()
    np.save(buffer, payload, allow_pickle=True)
    seal(saved, meta, {**entries, utf8: buffer.getvalue()})
    refused(saved, "object/pickle arrays are refused", utf8)


def _set(meta: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *parents, last = path.split(".")
    node = meta
    for key in parents:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return meta


_DELETE = object()
_NB = {"type": "estimator", "class": "MultinomialNB", "params": {"alpha": 0.5}}


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("params.model", {**_NB, "class": "os.system"}, ("unknown estimator class 'os.system'",)),
        (
            "params.model",
            {**_NB, "class": "LogisticRegression"},
            ("unknown estimator class 'LogisticRegression'",),
        ),
        ("params.model", {**_NB, "class": ["x"]}, ("unknown estimator class",)),
        ("params.model", {**_NB, "params": {"evil": 1}}, ("no hyperparameter 'evil'",)),
        ("params.model", {**_NB, "params": [1]}, ("params of a MultinomialNB must be a dict",)),
        ("params.model", {"type": "pickle"}, ("malformed value of hyperparameter model",)),
        ("params.model", {**_NB, "class": "CategoricalNB"}, ("model must be",)),
        ("params.vectorizer.params.output", "nonsense", ("output='nonsense'",)),
        ("params.vectorizer.params.stop_words", {"type": "set", "items": [[1]]}, ("stop_words",)),
        ("params.spam_cutoff", {"type": "estimator"}, ("unknown estimator class None",)),
        ("params.evil", 1, ("SpamFilter has no hyperparameter 'evil'",)),
        ("estimator", "TextPipeline", ("unknown estimator class 'TextPipeline'",)),
        ("format_version", 1, ("needs format_version 2",)),
        ("state", [], ("state must be a dict",)),
        ("state.mode", "pickled", ("state.mode must be 'additive' or 'fixed'",)),
        ("state.vocabulary.n_docs", -1, ("n_docs must be an int",)),
        (
            "state.vocabulary.doc_freq",
            "nowhere.npy",
            ("state.vocabulary.doc_freq must name an entry",),
        ),
        ("state.vocabulary.terms", "x", ("state.vocabulary.terms must be a dict",)),
        ("state.counts", _DELETE, ("state.counts must name an entry",)),
        ("state.block", "x", ("state.block must be a dict",)),
        ("state.block", {"kind": "scatter"}, ("'scatter' is no per-column statistic",)),
        ("state.block", {"kind": "os.system"}, ("'os.system' is no per-column statistic",)),
        (
            "state.block",
            {"kind": "counts", "meta": {}, "arrays": {"total": "nowhere.npy"}},
            ("state.block.arrays.total must name an entry",),
        ),
        ("state.classes", {"dtype": "<U4", "values": ["ham"]}, ("do not match",)),
        ("state.classes", {"dtype": "O", "values": ["x"]}, ("dtype",)),
    ],
)
def test_refuses_wrong_metadata(saved: Path, path: str, value: Any, words: tuple[str]) -> None:
    meta, entries = parts(saved)
    meta["params"]["vectorizer"] = {
        "type": "estimator",
        "class": "TextVectorizer",
        "params": {"min_df": 2},
    }
    meta["params"]["model"] = copy.deepcopy(_NB)
    seal(saved, copy.deepcopy(meta), entries)
    assert isinstance(bk.load(saved), SpamFilter)  # the baseline loads
    seal(saved, _set(meta, path, value), entries)
    refused(saved, *words)


_TUPLE = {"type": "tuple"}


@pytest.mark.parametrize(
    ("param", "value", "words"),
    [
        ("ngram_range", {**_TUPLE, "items": [1, 100_000]}, ("ngram_range=(1, 100000)", "at most")),
        ("ngram_range", {**_TUPLE, "items": [3, 1]}, ("min_n <= max_n",)),
        ("token_pattern", "(?:a+)+b", ("token_pattern", "repeat inside a repeat")),
        ("token_pattern", "(a|aa)*b", ("alternation inside a repeat",)),
        ("token_pattern", "(a)(b)", ("2 capturing groups",)),
        ("token_pattern", "(", ("is not a regex",)),
        ("encoding", "no-such-codec", ("encoding='no-such-codec'",)),
        ("encoding", "rot13", ("not a text encoding",)),
        ("n_features", 2**40, ("n_features",)),
        ("analyzer", "shell", ("analyzer='shell'",)),
        ("stop_words", {"type": "set", "items": [1, 2]}, ("stop_words must be strings",)),
    ],
)
def test_refuses_settings_that_would_explode_later(
    saved: Path, saved_fixed: Path, param: str, value: Any, words: tuple[str, ...]
) -> None:
    # In the classifier's own vectorizer (additive mode) and in a fixed-mode state.
    meta, entries = parts(saved)
    meta["params"]["vectorizer"] = {
        "type": "estimator",
        "class": "TextVectorizer",
        "params": {"min_df": 2, param: value},
    }
    seal(saved, meta, entries)
    refused(saved, *words)
    meta, entries = parts(saved_fixed)
    meta["state"]["vectorizer"]["params"][param] = value
    seal(saved_fixed, meta, entries)
    refused(saved_fixed, *words)


def test_refuses_millions_of_stop_words_at_once(saved: Path) -> None:
    meta, entries = parts(saved)
    words = [f"w{i}" for i in range(2_000_000)]
    meta["params"]["vectorizer"] = {
        "type": "estimator",
        "class": "TextVectorizer",
        "params": {"stop_words": {"type": "frozenset", "items": words}},
    }
    seal(saved, meta, entries)
    start = time.perf_counter()
    refused(saved, "2000000 items")
    assert time.perf_counter() - start < 10  # was 39 s; the JSON alone takes a few


def test_refuses_entries_the_model_does_not_use_or_mismatched_arrays(saved: Path) -> None:
    meta, entries = parts(saved)
    df = array_of(entries["vocabulary.doc_freq.npy"])
    for changed, words in [
        ({"extra.npy": npy(np.zeros(3))}, "'extra.npy' is in the manifest but the model does not"),
        ({"stats.counts.npy": npy(np.zeros((2, 3)))}, "do not match"),
        ({"stats.class_count.npy": npy(np.ones((2, 1)))}, "must be a 1-D float64 array"),
        ({"vocabulary.doc_freq.npy": npy(-df)}, "negative frequencies"),
        ({"vocabulary.doc_freq.npy": npy(df[:-1])}, "frequencies do not match the terms"),
    ]:
        seal(saved, copy.deepcopy(meta), {**entries, **changed})
        refused(saved, words)


def test_refuses_wrong_fixed_mode_state(saved_fixed: Path) -> None:
    meta, entries = parts(saved_fixed)
    assert meta["state"]["mode"] == "fixed"
    seal(saved_fixed, _set(copy.deepcopy(meta), "state.vectorizer.params.min_df", 1), entries)
    refused(saved_fixed, "features but the vectorizer")
    seal(saved_fixed, _set(copy.deepcopy(meta), "state.model.estimator", "os.system"), entries)
    refused(saved_fixed, "unknown estimator class 'os.system'")
    changed = _set(copy.deepcopy(meta), "state.model.params", {"evil": 1})
    seal(saved_fixed, changed, entries)
    refused(saved_fixed, "no hyperparameter 'evil'")
    seal(saved_fixed, _set(copy.deepcopy(meta), "state.vectorizer", None), entries)
    refused(saved_fixed, "state.vectorizer must be a dict")
    seal(saved_fixed, meta, entries)
    assert isinstance(bk.load(saved_fixed), TextClassifier)


def test_refuses_newer_format_version(saved: Path) -> None:
    meta, entries = parts(saved)
    newer = model_file.FORMAT_VERSION + 1
    seal(saved, {**meta, "format_version": newer}, entries)
    refused(saved, f"format_version {newer}", "newer bayeskit", f"up to {newer - 1}")


def test_term_codec_round_trips_any_unicode() -> None:
    terms = np.array(sorted(["a", "é", "中文", "emoji😀", "zz", "", "x y"]), dtype=object)
    blob, offsets = _documents_block.encode_terms(terms)
    decoded = _documents_block.decode_terms(blob, offsets)
    assert decoded.dtype == object
    np.testing.assert_array_equal(decoded, terms)
    with pytest.raises(ModelFileError, match="UTF-8"):
        _documents_block.encode_terms(np.array(["ok", "\ud800"], dtype=object))
