"""The benchmark workloads: data prepared once, then one estimator factory per library.

Each workload builds a pair of :class:`Side` (scikit-learn first, bayeskit second). A side says
how to make an unfitted estimator and which data it is fitted on and predicts; the harness in
``run.py`` times ``make().fit(X_fit, y)`` and ``model.predict(X_pred)``. A workload's ``phase``
says which of the two its speed-up and target are about ("total": both).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

import bayeskit as bk
from bayeskit.datasets import shared
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer
from bayeskit.text.analyze import decode


class Skip(Exception):  # noqa: N818 - a signal, not an error
    """The workload's data is not on this machine."""


@dataclass(frozen=True)
class Side:
    make: Callable[[], Any]
    X_fit: Any
    y: Any
    X_pred: Any
    megabytes: float = 0.0  # size of the text X_fit, for a throughput in MB/s (0: none)


@dataclass(frozen=True)
class Workload:
    name: str
    target: float  # wanted speed-up, scikit-learn time / bayeskit time
    build: Callable[[bool], tuple[Side, Side]]  # quick -> (scikit-learn side, bayeskit side)
    phase: str = "total"  # what the speed-up is of: "fit", "predict" or "total" (both)
    min_mb_per_s: float = 0.0  # wanted bayeskit throughput on X_fit, MB/s (0: none)
    # How to compare the fitted models (default: predictions and predict_proba).
    compare: Callable[[Any, Any], str] | None = None


def _require_data() -> None:
    if shared.data_dir() is None:
        raise Skip("shared data folder not found (set BAYESKIT_DATA)")


@cache
def newsgroups() -> tuple[Any, np.ndarray, Any]:
    """20 Newsgroups bydate as CSR counts: (X_train, y_train, X_test), vectorized once."""
    train, y_train, test, _ = newsgroups_texts()
    vectorizer = CountVectorizer()
    return vectorizer.fit_transform(train), y_train, vectorizer.transform(test)


@cache
def newsgroups_texts() -> tuple[list[str], np.ndarray, list[str], float]:
    """20 Newsgroups bydate raw posts: (train texts, train labels, test texts, train MB)."""
    _require_data()
    try:
        train, y_train = shared.load_20newsgroups("train")
        test, _ = shared.load_20newsgroups("test")
    except FileNotFoundError as exc:
        raise Skip(f"20 Newsgroups not found: {exc}") from None
    # The posts are read as latin-1: one byte per character, so this is the files' size.
    return train, y_train, test, sum(map(len, train)) / 1e6


@cache
def nursery() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """uci-nursery as (raw strings, ordinal int64 codes, labels)."""
    _require_data()
    try:
        X, y = shared.load_uci_table("nursery")
    except FileNotFoundError as exc:
        raise Skip(f"uci-nursery not found: {exc}") from None
    codes = OrdinalEncoder(dtype=np.int64).fit_transform(X)
    return X, codes, y


def wide(
    n_rows: int, n_features: int, n_values: int = 10, n_classes: int = 5
) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic int64 codes 0..n_values-1; each class prefers one value per feature."""
    rng = np.random.default_rng(20240601)
    y = rng.integers(0, n_classes, n_rows)
    X = rng.integers(0, n_values, (n_rows, n_features))
    preferred = rng.integers(0, n_values, (n_classes, n_features))
    rows, cols = np.nonzero(rng.random((n_rows, n_features)) < 0.05)
    X[rows, cols] = preferred[y[rows], cols]
    return X, y


def _sparse(sk_cls: type, bk_cls: type) -> Callable[[bool], tuple[Side, Side]]:
    def build(quick: bool) -> tuple[Side, Side]:
        X_train, y_train, X_test = newsgroups()
        return Side(sk_cls, X_train, y_train, X_test), Side(bk_cls, X_train, y_train, X_test)

    return build


def _nursery_codes(quick: bool) -> tuple[Side, Side]:
    _, codes, y = nursery()
    return Side(sk.CategoricalNB, codes, y, codes), Side(bk.CategoricalNB, codes, y, codes)


def _nursery_raw(quick: bool) -> tuple[Side, Side]:
    X, _, y = nursery()

    def sk_pipeline() -> Any:
        return make_pipeline(OrdinalEncoder(), sk.CategoricalNB())

    return Side(sk_pipeline, X, y, X), Side(bk.CategoricalNB, X, y, X)


def _wide(quick: bool) -> tuple[Side, Side]:
    X, y = wide(20_000, 50) if quick else wide(100_000, 200)
    return Side(sk.CategoricalNB, X, y, X), Side(bk.CategoricalNB, X, y, X)


class FitTransform:
    """A vectorizer as an estimator for the harness: ``fit`` is ``fit_transform`` (the timed
    work) and keeps the matrix; ``predict`` does nothing."""

    def __init__(self, vectorizer: Any):
        self.vectorizer = vectorizer

    def fit(self, X: Any, y: Any = None) -> FitTransform:
        self.X_ = self.vectorizer.fit_transform(X)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(0)


class Fitted:
    """An estimator fitted once, before the timings: ``fit`` returns it as it is, so only
    ``predict`` is timed."""

    def __init__(self, model: Any):
        self.model = model

    def fit(self, X: Any, y: Any = None) -> Any:
        return self.model


def _same_matrix(sk_model: FitTransform, bk_model: FitTransform) -> str:
    """Same vocabulary and the same counts, entry for entry?"""
    names = sk_model.vectorizer.get_feature_names_out().tolist()
    same_names = names == bk_model.vectorizer.get_feature_names_out().tolist()
    X, Y = sk_model.X_.tocsr(), bk_model.X_
    X.sort_indices()
    same_counts = (
        X.shape == Y.shape
        and np.array_equal(X.indptr, Y.indptr)
        and np.array_equal(X.indices, Y.indices)
        and np.array_equal(X.data, Y.data)
    )
    verdict = "same" if same_names and same_counts else "DIFFERENT"
    return f"{verdict} vocabulary ({len(names):,} terms) and counts ({X.nnz:,} entries)"


def sklearn_pipeline(clf: TextClassifier) -> Any:
    """scikit-learn's pipeline with the same settings as a TextClassifier (its vectorizer's
    parameters that both libraries have, and the same count model)."""
    vec, model = clf.prototypes()
    shared = {
        k: v
        for k, v in vec.get_params().items()
        if k in ("lowercase", "token_pattern", "analyzer", "ngram_range", "stop_words")
        or k in ("max_features", "min_df", "max_df", "vocabulary")
    }
    if vec.output == "tfidf":
        tfidf = {k: vec.get_params()[k] for k in ("sublinear_tf", "use_idf", "smooth_idf", "norm")}
        sk_vec: Any = TfidfVectorizer(**shared, **tfidf)
    else:
        sk_vec = CountVectorizer(**shared, binary=vec.output == "binary")
    params = {k: v for k, v in model.get_params().items() if k in ("alpha", "norm")}
    return make_pipeline(sk_vec, getattr(sk, type(model).__name__)(**params))


def _vectorize(settings: dict[str, Any]) -> Callable[[bool], tuple[Side, Side]]:
    def build(quick: bool) -> tuple[Side, Side]:
        train, _, _, mb = newsgroups_texts()

        def sk_side() -> FitTransform:
            return FitTransform(CountVectorizer(**settings))

        def bk_side() -> FitTransform:
            return FitTransform(TextVectorizer(**settings))

        return Side(sk_side, train, None, None, mb), Side(bk_side, train, None, None, mb)

    return build


def _default_words() -> TextClassifier:
    """The default TextClassifier's settings with the word analyzer: the default reads
    e-mails (and news posts, which have mail headers) with bayeskit's e-mail analyzer
    (``analyzer="auto"``), which scikit-learn does not have, so the side-by-side rows compare
    everything else the default does. The default's corpus prior (``smoothing="corpus"``)
    has no scikit-learn counterpart either: both sides smooth uniformly (the same α), so their
    predictions can be compared; the prior costs one power of the pooled counts when the model
    is finalized (about 0.015 s of a 20 x 1.15 M complement, against 0.075 s without it). The
    default's term weights (2-grams weighted 0.7, an e-mail's subject line read as text and its
    ``subject:`` tokens weighted 1.5) have no counterpart either and are left out."""
    vec, model = TextClassifier().prototypes()
    if "smoothing" in model.get_params():
        model.set_params(smoothing="uniform")
    vec.set_params(analyzer="word", subject_in_text=False, subject_weight=1.0, ngram_weights=None)
    return TextClassifier(vectorizer=vec, model=model)


def _text_model(quick: bool) -> tuple[Side, Side]:
    """The default TextClassifier (word analyzer) against scikit-learn's pipeline with the
    same settings."""
    train, y, test, mb = newsgroups_texts()
    return (
        Side(lambda: sklearn_pipeline(_default_words()), train, y, test, mb),
        Side(_default_words, train, y, test, mb),
    )


def _text_predict(quick: bool) -> tuple[Side, Side]:
    train, y, test, _ = newsgroups_texts()
    sk_model = sklearn_pipeline(_default_words()).fit(train, y)
    bk_model = _default_words().fit(train, y)
    return (
        Side(lambda: Fitted(sk_model), train, y, test),
        Side(lambda: Fitted(bk_model), train, y, test),
    )


@cache
def newsgroups_test_labels() -> np.ndarray:
    """20 Newsgroups bydate: the test posts' labels (in :func:`newsgroups_texts`' order)."""
    _require_data()
    return shared.load_20newsgroups("test")[1]


@cache
def spamassassin_split() -> tuple[list[bytes], np.ndarray, list[bytes], np.ndarray]:
    """The SpamAssassin corpus as the accuracy tables split it: trained on easy_ham + spam,
    tested on easy_ham_2 + hard_ham + spam_2, raw messages (bytes) and their labels."""
    _require_data()
    root = shared.data_dir()
    assert root is not None
    corpus = root / "spamassassin-public-corpus"
    if not corpus.is_dir():
        raise Skip(f"SpamAssassin corpus not found under {root}")

    def load(groups: list[str]) -> tuple[list[bytes], np.ndarray]:
        docs, labels = [], []
        for group in groups:
            for path in sorted((corpus / group).iterdir()):
                docs.append(path.read_bytes())
                labels.append("spam" if group.startswith("spam") else "ham")
        return docs, np.asarray(labels)

    train, y_train = load(["easy_ham", "spam"])
    test, y_test = load(["easy_ham_2", "hard_ham", "spam_2"])
    return train, y_train, test, y_test


def _accuracies(y_true: np.ndarray, X: tuple[Any, Any]) -> Callable[[Any, Any], str]:
    """A comparison of two models that make different predictions by design: each one's
    accuracy on its side's test documents ``X``."""

    def compare(sk_model: Any, bk_model: Any) -> str:
        sk_acc = np.mean(sk_model.predict(X[0]) == y_true)
        bk_acc = np.mean(bk_model.predict(X[1]) == y_true)
        return f"accuracy scikit-learn {sk_acc:.4f}, bayeskit {bk_acc:.4f}"

    return compare


def _default_text_20ng(quick: bool) -> tuple[Side, Side]:
    """The default ``TextClassifier()`` (raw posts read as e-mails, word 1-2-grams) end to end
    against scikit-learn's default pipeline, CountVectorizer + MultinomialNB, on the same raw
    posts."""
    train, y, test, mb = newsgroups_texts()
    return (
        Side(lambda: make_pipeline(CountVectorizer(), sk.MultinomialNB()), train, y, test, mb),
        Side(TextClassifier, train, y, test, mb),
    )


def _default_spam(quick: bool) -> tuple[Side, Side]:
    """The default ``SpamFilter()`` (calibrated, from the raw messages' bytes) end to end
    against scikit-learn's default pipeline on the same messages decoded as text
    (CountVectorizer reads str; the decoding, UTF-8 else latin-1, is not timed)."""
    train, y, test, _ = spamassassin_split()
    text_train, text_test = [decode(d) for d in train], [decode(d) for d in test]
    mb = sum(map(len, train)) / 1e6
    sk_side = Side(
        lambda: make_pipeline(CountVectorizer(), sk.MultinomialNB()), text_train, y, text_test, mb
    )
    return sk_side, Side(SpamFilter, train, y, test, mb)


def _text_accuracies(sk_model: Any, bk_model: Any) -> str:
    test = newsgroups_texts()[2]
    return _accuracies(newsgroups_test_labels(), (test, test))(sk_model, bk_model)


def _spam_accuracies(sk_model: Any, bk_model: Any) -> str:
    _, _, test, y_test = spamassassin_split()
    return _accuracies(y_test, ([decode(d) for d in test], test))(sk_model, bk_model)


def _poisson_length(quick: bool) -> tuple[Side, Side]:
    X_train, y_train, X_test = newsgroups()
    return (
        Side(lambda: sk.MultinomialNB(alpha=1.0), X_train, y_train, X_test),
        Side(lambda: bk.PoissonNB(alpha=1.0, given_length=True), X_train, y_train, X_test),
    )


@cache
def gaussian_blobs(n_rows: int, n_features: int, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic real features: class centres N(0, 2²) per feature, unit-variance noise scaled
    per class and feature, seeded ``numpy.random.Generator``."""
    rng = np.random.default_rng(20240607)
    y = rng.integers(0, n_classes, n_rows)
    centres = rng.normal(0.0, 2.0, (n_classes, n_features))
    scales = rng.uniform(0.5, 2.0, (n_classes, n_features))
    X = centres[y] + rng.normal(size=(n_rows, n_features)) * scales[y]
    return X, y


def _gaussian_size(quick: bool) -> tuple[int, int, int]:
    return (20_000, 100, 100) if quick else (100_000, 100, 100)


def _gnb_predict(quick: bool) -> tuple[Side, Side]:
    X, y = gaussian_blobs(*_gaussian_size(quick))
    sk_model, bk_model = sk.GaussianNB().fit(X, y), bk.GaussianNB().fit(X, y)
    return (
        Side(lambda: Fitted(sk_model), X, y, X),
        Side(lambda: Fitted(bk_model), X, y, X),
    )


def _gnb_fit(quick: bool) -> tuple[Side, Side]:
    X, y = gaussian_blobs(*_gaussian_size(quick))
    return Side(sk.GaussianNB, X, y, X), Side(bk.GaussianNB, X, y, X)


@cache
def spambase() -> tuple[np.ndarray, np.ndarray]:
    """UCI Spambase: 4,601 rows × 57 real features."""
    _require_data()
    try:
        X, y, _ = shared.load_spambase()
    except FileNotFoundError as exc:
        raise Skip(f"uci-spambase not found: {exc}") from None
    return X, y


@cache
def shifted_reals(
    n_rows: int, n_features: int, n_classes: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic real features without ties; each class shifts every feature a little."""
    rng = np.random.default_rng(20240602)
    y = rng.integers(0, n_classes, n_rows)
    shift = rng.normal(scale=0.5, size=(n_classes, n_features))
    return rng.normal(size=(n_rows, n_features)) + shift[y], y


def _kbins(strategy: str) -> Callable[[], Any]:
    def make() -> Any:
        return make_pipeline(
            KBinsDiscretizer(
                n_bins=10, encode="ordinal", strategy=strategy, quantile_method="inverted_cdf"
            ),
            sk.CategoricalNB(min_categories=10),
        )

    return make


def _spambase_width(quick: bool) -> tuple[Side, Side]:
    X, y = spambase()
    return (
        Side(_kbins("uniform"), X, y, X),
        Side(lambda: bk.DiscretizedNB(method="width"), X, y, X),
    )


def _binned_wide(method: str, strategy: str) -> Callable[[bool], tuple[Side, Side]]:
    def build(quick: bool) -> tuple[Side, Side]:
        # 100,003 rows: no quantile level falls exactly on a row, so the cuts agree.
        X, y = shifted_reals(20_003, 20) if quick else shifted_reals(100_003, 50)
        return Side(_kbins(strategy), X, y, X), Side(
            lambda: bk.DiscretizedNB(method=method), X, y, X
        )

    return build


WORKLOADS = [
    Workload("mnb-20ng", 1.0, _sparse(sk.MultinomialNB, bk.MultinomialNB)),
    Workload("bnb-20ng", 1.0, _sparse(sk.BernoulliNB, bk.BernoulliNB)),
    Workload("cnb-20ng", 1.0, _sparse(sk.ComplementNB, bk.ComplementNB)),
    Workload("poisson-length-20ng", 0.5, _poisson_length),
    Workload("gnb-predict", 10.0, _gnb_predict, phase="predict"),
    Workload("gnb-fit", 1.0, _gnb_fit, phase="fit"),
    Workload("disc-width-spambase", 1.0, _spambase_width),
    Workload("disc-width-wide", 1.0, _binned_wide("width", "uniform")),
    Workload("disc-frequency-wide", 1.0, _binned_wide("frequency", "quantile")),
    Workload("cat-nursery", 5.0, _nursery_codes),
    Workload("cat-nursery-raw", 5.0, _nursery_raw),
    Workload("cat-wide", 5.0, _wide),
    Workload(
        "vectorize-20ng",
        20.0,
        _vectorize({}),
        phase="fit",
        min_mb_per_s=200.0,
        compare=_same_matrix,
    ),
    Workload(
        "vectorize-20ng-bigrams",
        20.0,
        _vectorize({"ngram_range": (1, 2)}),
        phase="fit",
        compare=_same_matrix,
    ),
    Workload(
        "vectorize-20ng-char-wb",
        10.0,
        _vectorize({"analyzer": "char_wb", "ngram_range": (2, 4)}),
        phase="fit",
        compare=_same_matrix,
    ),
    Workload("text-model-20ng", 10.0, _text_model, phase="fit"),
    Workload("text-predict-20ng", 10.0, _text_predict, phase="predict"),
    Workload(
        "text-default-20ng",
        3.0,
        _default_text_20ng,
        compare=_text_accuracies,
    ),
    Workload(
        "spam-default-spamassassin",
        3.0,
        _default_spam,
        compare=_spam_accuracies,
    ),
]
