"""Text classifiers in model files of format version 3: a generative classifier whose one block
is of kind "documents". Round trips are bitwise for every count model in both modes (per term,
and a fixed vocabulary: idf, hashed columns or a given vocabulary) and for SpamFilter's
calibration; the classes ``partial_fit(classes=...)`` declared outlive the file; every bad
block is refused by name."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import BayeskitError
from bayeskit.io._format import encode
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from ._refusal import decoded_terms, npy, parts, refused, seal
from ._text_state_models import TEST, TRAIN, TRAIN_Y

#: every count model of the registry (what a text model takes: input="counts")
COUNT_MODELS = sorted(
    name
    for name in bk.__all__
    if isinstance(getattr(bk, name), type)
    and hasattr(getattr(bk, name), "contract")
    and contract_of(getattr(bk, name)).input == "counts"
)
#: the vectorizer of each mode (the fixed ones: idf, hashed columns, a given vocabulary)
VECTORIZERS = {
    "per-term": lambda: TextVectorizer(min_df=2),
    "per-term-tfidf-no-idf": lambda: TextVectorizer(output="tfidf", use_idf=False, min_df=2),
    "idf": lambda: TextVectorizer(output="tfidf", min_df=2),
    "hashed": lambda: TextVectorizer(output="hashed", n_features=2**9),
    "given-vocabulary": lambda: TextVectorizer(
        vocabulary=["free", "call", "txt", "win", "ok", "you"], oov_token="<?>"
    ),
}


def count_model(name: str) -> Any:
    cls = getattr(bk, name)
    return cls(n_trials=1000) if name == "BinomialNB" else cls()


def assert_same(loaded: Any, model: Any) -> None:
    assert type(loaded) is type(model)
    assert repr(loaded) == repr(model)
    assert loaded.keeps_term_statistics() == model.keeps_term_statistics()
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(TEST), model.predict_joint_log_proba(TEST)
    )
    np.testing.assert_array_equal(loaded.predict_proba(TEST), model.predict_proba(TEST))
    np.testing.assert_array_equal(loaded.predict(TEST), model.predict(TEST))
    assert loaded.classes_declared() == model.classes_declared()


#: a binomial model takes whole counts, not tf-idf weights (refused at fit, nothing to store)
CASES = [
    (name, mode)
    for name in COUNT_MODELS
    for mode in VECTORIZERS
    if not (name == "BinomialNB" and mode in ("per-term-tfidf-no-idf", "idf"))
]


@pytest.mark.parametrize(("name", "mode"), CASES)
def test_every_count_model_round_trips_bitwise_in_every_mode(
    name: str, mode: str, tmp_path: Path
) -> None:
    vectorizer = VECTORIZERS[mode]()
    if mode == "given-vocabulary" and not contract_of(getattr(bk, name)).sums_columns:
        vectorizer.set_params(oov_token=None)
    model = TextClassifier(vectorizer=vectorizer, model=count_model(name)).fit(TRAIN, TRAIN_Y)
    bk.save(model, tmp_path / "m.bkm")
    meta = parts(tmp_path / "m.bkm")[0]
    assert meta["format_version"] == 3
    assert meta["blocks"][0]["kind"] == "documents"
    loaded = bk.load(tmp_path / "m.bkm")
    assert_same(loaded, model)
    more, more_y = TEXTS_MORE
    for m in (loaded, model):  # and the loaded model goes on learning alike
        m.partial_fit(more, more_y)
    np.testing.assert_array_equal(loaded.predict_proba(TEST), model.predict_proba(TEST))


TEXTS_MORE = (TEST[:60], ["ham", "spam"] * 30)


@pytest.mark.parametrize("mode", ["per-term", "idf", "hashed"])
@pytest.mark.parametrize("folds", [5, None])
def test_spam_filter_round_trips_its_calibration_and_cutoffs(
    mode: str, folds: int | None, tmp_path: Path
) -> None:
    spam_filter = SpamFilter(
        vectorizer=VECTORIZERS[mode](),
        calibration_folds=folds,
        ham_cutoff=0.1,
        spam_cutoff=0.7,
        lost_ham_cost=5.0,
    ).fit(TRAIN, TRAIN_Y)
    spam_filter.partial_fit(TEST[:30], ["ham"] * 30)  # scores of new messages kept too
    bk.save(spam_filter, tmp_path / "f.bkm")
    loaded = bk.load(tmp_path / "f.bkm")
    assert_same(loaded, spam_filter)
    np.testing.assert_array_equal(loaded.score_counts(), spam_filter.score_counts())
    assert loaded.probability_scale() == spam_filter.probability_scale()
    assert loaded.decision_rule() == spam_filter.decision_rule()
    np.testing.assert_array_equal(loaded.spam_probability(TEST), spam_filter.spam_probability(TEST))
    np.testing.assert_array_equal(loaded.classify(TEST), spam_filter.classify(TEST))


@pytest.mark.parametrize("mode", ["per-term", "idf"])
def test_declared_classes_outlive_the_file(mode: str, tmp_path: Path) -> None:
    model = TextClassifier(vectorizer=VECTORIZERS[mode]())
    model.partial_fit(TRAIN, TRAIN_Y, classes=["eggs", "ham", "spam"])
    bk.save(model, tmp_path / "m.bkm")
    loaded = bk.load(tmp_path / "m.bkm")
    assert loaded.classes_declared()
    assert model.classes_declared()
    refusals = []
    for m in (model, loaded):
        with pytest.raises(BayeskitError) as info:
            m.partial_fit(["a new label's message"], ["bacon"])
        refusals.append((type(info.value), str(info.value)))
    assert refusals[0] == refusals[1]
    assert "bacon" in refusals[0][1]
    assert_same(loaded, model)  # the refused calls left both as they were
    for m in (model, loaded):  # a declared class never seen is learned alike
        m.partial_fit(["eggs and bacon"], ["eggs"])
    assert_same(loaded, model)
    # a model fitted without declaring its classes learns a new one, before and after a file
    fitted = TextClassifier(vectorizer=VECTORIZERS[mode]()).fit(TRAIN, TRAIN_Y)
    bk.save(fitted, tmp_path / "f.bkm")
    again = bk.load(tmp_path / "f.bkm")
    assert not again.classes_declared()
    for m in (fitted, again):
        m.partial_fit(["eggs and bacon"], ["eggs"])
    assert_same(again, fitted)


def test_semi_supervised_text_model_round_trips(tmp_path: Path) -> None:
    y = np.array(TRAIN_Y, dtype=object)
    y[100:] = None
    model = bk.SemiSupervisedNB(estimator=TextClassifier(vectorizer=TextVectorizer())).fit(TRAIN, y)
    bk.save(model, tmp_path / "s.bkm")
    meta = parts(tmp_path / "s.bkm")[0]
    assert (meta["format_version"], meta["state"]["inner"]["format_version"]) == (3, 3)
    loaded = bk.load(tmp_path / "s.bkm")
    np.testing.assert_array_equal(loaded.predict_proba(TEST), model.predict_proba(TEST))


# ---------------------------------------------------------------------------------- refusals
@pytest.fixture
def per_term(tmp_path: Path) -> Path:
    path = tmp_path / "per_term.bkm"
    model = SpamFilter(vectorizer=TextVectorizer(min_df=2), model=bk.MultinomialNB(alpha=0.5))
    bk.save(model.fit(TRAIN, TRAIN_Y), path)
    return path


@pytest.fixture
def fixed(tmp_path: Path) -> Path:
    path = tmp_path / "fixed.bkm"
    bk.save(TextClassifier.twcnb(min_df=2).fit(TRAIN, TRAIN_Y), path)
    return path


def _set(meta: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *parents, last = path.split(".")
    node: Any = meta
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    node[last] = value
    return meta


_VEC = {"type": "estimator", "class": "TextVectorizer", "params": {"min_df": 2}}


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("blocks.0.kind", "counts", ("unknown statistic kind 'counts'",)),
        ("blocks.0.meta.mode", "pickled", ("mode must be 'per_term' or 'fixed'",)),
        ("blocks.0.meta.mode", "fixed", ("settings keep statistics per term",)),
        ("blocks.0.meta.keyed", {"kind": "scatter"}, ("'scatter' is not kept per column",)),
        ("blocks.0.meta.keyed", {"kind": "os.system"}, ("'os.system' is not kept per column",)),
        ("blocks.0.meta.keyed", "x", ("None is not kept per column",)),
        ("blocks.0.meta.n_docs", -1, ("n_docs must be an int >= 0",)),
        ("blocks.0.meta.n_docs", 3, ("more than n_docs",)),
        ("blocks.0.meta.vocabulary_terms", "x", ("'same' or 'own'",)),
        ("blocks.0.meta.vocabulary_terms", "own", ("no array 'vocabulary_terms.utf8'",)),
        ("n_features_in", 5, ("n_features_in must be a NoneType",)),
        ("feature_names_in", ["a"], ("no feature_names_in",)),
        ("classes_declared", "yes", ("classes_declared must be true or false",)),
        ("fitted", encode({"x": 1}, "fitted", 0), ("fitted record holds its score counts",)),
        (
            "fitted",
            encode({"score_counts": -np.ones((2, 800))}, "fitted", 0),
            ("finite float64 counts >= 0",),
        ),
        ("params.vectorizer", {**_VEC, "class": "os.system"}, ("unknown estimator class",)),
        (
            "params.vectorizer",
            {**_VEC, "params": {"token_pattern": "(?:a+)+b"}},
            ("repeat inside a repeat",),
        ),
        (
            "params.vectorizer",
            {**_VEC, "params": {"ngram_range": {"type": "tuple", "items": [1, 100_000]}}},
            ("ngram_range=(1, 100000)", "at most"),
        ),
        ("params.vectorizer", {**_VEC, "params": {"output": "tfidf"}}, ("fix its vocabulary",)),
        (
            "params.model",
            {"type": "estimator", "class": "CategoricalNB", "params": {}},
            ("model must be",),
        ),
        ("estimator", "TextPipeline", ("unknown estimator class 'TextPipeline'",)),
    ],
)
def test_refuses_a_wrong_per_term_block(
    per_term: Path, path: str, value: Any, words: tuple[str, ...]
) -> None:
    meta, entries = parts(per_term)
    meta["params"]["vectorizer"] = copy.deepcopy(_VEC)
    seal(per_term, copy.deepcopy(meta), entries)
    assert isinstance(bk.load(per_term), SpamFilter)  # the baseline loads
    seal(per_term, _set(meta, path, value), entries)
    refused(per_term, *words)


def _entry(meta: dict[str, Any], key: str) -> str:
    name: str = meta["blocks"][0]["arrays"][key]
    return name


def test_refuses_wrong_arrays_of_a_per_term_block(per_term: Path) -> None:
    meta, entries = parts(per_term)
    df = np.load(io.BytesIO(entries[_entry(meta, "doc_freq")]))
    utf8, offsets = _entry(meta, "terms.utf8"), _entry(meta, "terms.offsets")
    for changed, words in [
        ({_entry(meta, "doc_freq"): npy(-df)}, ("negative frequencies",)),
        ({_entry(meta, "doc_freq"): npy(df[:-1])}, ("frequencies do not match its terms",)),
        ({_entry(meta, "doc_freq"): npy(df.astype(np.float64))}, ("1-D int64",)),
        ({utf8: npy(np.frombuffer(b"xyab", np.uint8)), offsets: npy(np.array([0, 2, 4]))},
         ("bad term list terms", "not sorted and distinct")),
        ({utf8: npy(np.frombuffer(b"ab\xff", np.uint8)), offsets: npy(np.array([0, 2, 3]))},
         ("not valid UTF-8",)),
        ({offsets: npy(np.array([0, 5]))}, ("offsets must run from 0",)),
        ({_entry(meta, "keyed.total"): npy(np.zeros((2, 3)))}, ("does not match",)),
    ]:  # fmt: skip
        seal(per_term, copy.deepcopy(meta), {**entries, **changed})
        refused(per_term, *words)
    extra = copy.deepcopy(meta)
    extra["blocks"][0]["arrays"]["spare"] = "block0.spare.npy"
    seal(per_term, extra, {**entries, "block0.spare.npy": npy(np.zeros(3))})
    refused(per_term, "'spare' is not used")


def test_refuses_a_wrong_fixed_block(fixed: Path) -> None:
    meta, entries = parts(fixed)
    assert meta["blocks"][0]["meta"]["mode"] == "fixed"
    wider = copy.deepcopy(meta)
    wider["params"]["vectorizer"]["params"]["min_df"] = 1  # other columns than stored
    seal(fixed, wider, entries)
    refused(fixed, "columns but the vectorizer")
    seal(fixed, _set(copy.deepcopy(meta), "blocks.0.meta.mode", "per_term"), entries)
    refused(fixed, "the model's settings fix its vocabulary")
    seal(fixed, _set(copy.deepcopy(meta), "blocks.0.meta.count", {"kind": "moments"}), entries)
    refused(fixed, "'moments' is not kept per column")
    seal(fixed, meta, entries)
    assert isinstance(bk.load(fixed), TextClassifier)


@pytest.mark.parametrize("output", ["counts", "tfidf"])
def test_a_text_model_is_built_within_the_load_budget(tmp_path: Path, output: str) -> None:
    """What fitting the stored statistics computes (the selected columns and the count
    model's class x term tables) is taken from the load budget before it is computed."""
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(3000)])
    docs = [" ".join(rng.choice(words, 400)) for _ in range(8)]
    model = TextClassifier(vectorizer=TextVectorizer(output=output)).fit(docs, ["a", "b"] * 4)
    path = tmp_path / "text.bkm"
    bk.save(model, path)
    # (the arrays, and the terms decoded: taken before the parameters)
    arrays = sum(len(data) for data in parts(path)[1].values()) + decoded_terms(path)
    refused_by = refused_with_budget(path, arrays + 1000)
    assert "the documents parameters needs" in refused_by
    np.testing.assert_array_equal(
        bk.load(path, max_bytes=4 * arrays).predict_proba(docs), model.predict_proba(docs)
    )


def refused_with_budget(path: Path, max_bytes: int) -> str:
    with pytest.raises(bk.errors.ModelFileError) as info:
        bk.load(path, max_bytes=max_bytes)
    assert "load(..., max_bytes=...)" in str(info.value)
    return str(info.value)
