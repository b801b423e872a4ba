"""The benchmark workloads: data prepared once, then one estimator factory per library.

Each workload builds a pair of :class:`Side` (scikit-learn first, bayeskit second). A side says
how to make an unfitted estimator and which data it is fitted on and predicts; the harness in
``run.py`` times ``make().fit(X_fit, y)`` and ``model.predict(X_pred)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

import bayeskit as bk
from bayeskit.datasets import shared


class Skip(Exception):  # noqa: N818 - a signal, not an error
    """The workload's data is not on this machine."""


@dataclass(frozen=True)
class Side:
    make: Callable[[], Any]
    X_fit: Any
    y: Any
    X_pred: Any


@dataclass(frozen=True)
class Workload:
    name: str
    target: float  # wanted speed-up, scikit-learn time / bayeskit time
    build: Callable[[bool], tuple[Side, Side]]  # quick -> (scikit-learn side, bayeskit side)


def _require_data() -> None:
    if shared.data_dir() is None:
        raise Skip("shared data folder not found (set BAYESKIT_DATA)")


@cache
def newsgroups() -> tuple[Any, np.ndarray, Any]:
    """20 Newsgroups bydate as CSR counts: (X_train, y_train, X_test), vectorized once."""
    _require_data()
    try:
        train, y_train = shared.load_20newsgroups("train")
        test, _ = shared.load_20newsgroups("test")
    except FileNotFoundError as exc:
        raise Skip(f"20 Newsgroups not found: {exc}") from None
    vectorizer = CountVectorizer()
    return vectorizer.fit_transform(train), y_train, vectorizer.transform(test)


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


WORKLOADS = [
    Workload("mnb-20ng", 1.0, _sparse(sk.MultinomialNB, bk.MultinomialNB)),
    Workload("bnb-20ng", 1.0, _sparse(sk.BernoulliNB, bk.BernoulliNB)),
    Workload("cnb-20ng", 1.0, _sparse(sk.ComplementNB, bk.ComplementNB)),
    Workload("cat-nursery", 5.0, _nursery_codes),
    Workload("cat-nursery-raw", 5.0, _nursery_raw),
    Workload("cat-wide", 5.0, _wide),
]
