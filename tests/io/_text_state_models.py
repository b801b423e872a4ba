"""The text models of the committed format-version-2 files in ``text_state_files/``: each
file holds the model ``MODELS[name]()`` fitted as ``fit_model`` fits it, written by the
bayeskit named in the file name (``v0.1-`` by commit 8946332, the code 0.1.0 was released
from; ``v2-`` by the last code that wrote text models in that state). Loading a file must
give a model that predicts bitwise as the same model fitted today. ``write_files`` made the
files (``python -m tests.io._text_state_models PREFIX`` with that code on the path)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

FILES = Path(__file__).parent / "text_state_files"
TEXTS, LABELS = load_sms_spam()
TRAIN, TRAIN_Y = TEXTS[:300], LABELS[:300]
TEST = [*TEXTS[4000:4300], "", "zzzz unseen words only", "free entry", "é ü 中文 words"]

MODELS: dict[str, Callable[[], Any]] = {
    "spam-filter": lambda: SpamFilter(
        vectorizer=TextVectorizer(min_df=2), model=bk.MultinomialNB(alpha=0.5)
    ),
    "spam-filter-cutoffs": lambda: SpamFilter(
        ham_cutoff=0.05, spam_cutoff=0.8, lost_ham_cost=9.0, passed_spam_cost=2.0
    ),
    "min-df-oov": lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2, oov_token="<oov>")),
    "bigrams-stop-words": lambda: TextClassifier(
        vectorizer=TextVectorizer(ngram_range=(1, 2), stop_words=["the", "to", "a"]),
        model=bk.MultinomialNB(alpha=0.5),
    ),
    "bernoulli-binary": lambda: TextClassifier(
        vectorizer=TextVectorizer(output="binary", max_features=500),
        model=bk.BernoulliNB(alpha=0.5),
    ),
    "complement-int-labels": lambda: TextClassifier(
        model=bk.ComplementNB(alpha=0.3, class_weight={0: 2.0, 1: 1.0})
    ),
    "batches-unlearning": lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2)),
    "twcnb": lambda: TextClassifier.twcnb(min_df=2),
    "twcnb-spam-filter": lambda: SpamFilter.twcnb(ngram_range=(1, 2), min_df=2, spam_cutoff=0.7),
    "hashed": lambda: TextClassifier(vectorizer=TextVectorizer(output="hashed", n_features=2**10)),
    "given-vocabulary": lambda: TextClassifier(
        vectorizer=TextVectorizer(vocabulary={"free", "call", "txt", "win", "ok"}, oov_token="?")
    ),
    "vectorizer": lambda: TextVectorizer(min_df=2, ngram_range=(1, 2)),
}


def fit_model(name: str) -> Any:
    """``MODELS[name]()`` fitted on the first 300 SMS messages."""
    model = MODELS[name]()
    if name == "vectorizer":
        return model.fit(TRAIN)
    if name == "complement-int-labels":
        return model.fit(TRAIN, (TRAIN_Y == "spam").astype(int))
    if name == "batches-unlearning":  # weight-0 documents, a declared class never seen, unlearning
        weights = np.ones(150)
        weights[:20] = 0.0
        model.partial_fit(
            TRAIN[:150], TRAIN_Y[:150], classes=["eggs", "ham", "spam"], sample_weight=weights
        )
        model.partial_fit(TRAIN[150:], TRAIN_Y[150:])
        return model.unlearn(TRAIN[30:80], TRAIN_Y[30:80])
    return model.fit(TRAIN, TRAIN_Y)


def write_files(prefix: str) -> None:
    FILES.mkdir(exist_ok=True)
    for name in MODELS:
        bk.save(fit_model(name), FILES / f"{prefix}-{name}.bkm")


if __name__ == "__main__":
    write_files(sys.argv[1])
