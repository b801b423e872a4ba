"""``python -m bayeskit``: train a spam filter on the bundled SMS Spam Collection and report its
10-fold cross-validated quality and how long that took."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from sklearn.base import clone
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold

from ._version import __version__
from .datasets import load_sms_spam
from .naive_bayes import BernoulliNB, MultinomialNB
from .text import SpamFilter, TextVectorizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bayeskit",
        description="Train and cross-validate a Naive Bayes spam filter on the bundled "
        "SMS Spam Collection (Almeida et al., 2011; CC BY 4.0).",
    )
    parser.add_argument("--folds", type=int, default=10, help="cross-validation folds (≥ 2)")
    parser.add_argument("--alpha", type=float, default=None, help="additive smoothing")
    parser.add_argument(
        "--words",
        action="store_true",
        help="bag of words + MultinomialNB (faster) instead of character 2-4-grams + BernoulliNB",
    )
    args = parser.parse_args(argv)
    if args.folds < 2 or (args.alpha is not None and args.alpha < 0):
        parser.error("--folds must be at least 2 and --alpha at least 0")
    if args.words:
        alpha = 1.0 if args.alpha is None else args.alpha
        vectorizer, model = TextVectorizer(), MultinomialNB(alpha=alpha)
        described = f"bag of words + MultinomialNB(alpha={alpha:g})"
    else:
        # Character 2-4-grams within words, present or not: robust to SMS spelling (seed 000's
        # presence model); the best setting measured by benchmarks/accuracy.py.
        alpha = 0.01 if args.alpha is None else args.alpha
        vectorizer = TextVectorizer(output="binary", analyzer="char_wb", ngram_range=(2, 4))
        model = BernoulliNB(alpha=alpha)
        described = f"character 2-4-grams + BernoulliNB(alpha={alpha:g})"

    start = time.perf_counter()
    texts, labels = load_sms_spam()
    docs = np.asarray(texts, dtype=object)
    predicted = np.empty_like(labels)
    verdict = np.empty(len(labels), dtype="<U6")
    folds = StratifiedKFold(n_splits=args.folds, shuffle=True, random_state=0)
    for train, test in folds.split(docs, labels):
        spam_filter = SpamFilter(vectorizer=clone(vectorizer), model=clone(model))
        spam_filter.fit(docs[train].tolist(), labels[train])
        predicted[test] = spam_filter.predict(docs[test].tolist())
        verdict[test] = spam_filter.classify(docs[test].tolist())
    elapsed = time.perf_counter() - start

    spam = labels == "spam"
    print(f"bayeskit {__version__} — spam filter on the SMS Spam Collection")
    print(f"messages: {len(labels)} (ham {int((~spam).sum())}, spam {int(spam.sum())})")
    print(f"model: SpamFilter, {described}; {args.folds}-fold stratified cross-validation (seed 0)")
    print(f"accuracy: {accuracy_score(labels, predicted):.4f}")
    print(f"macro-F1: {f1_score(labels, predicted, average='macro'):.4f}")
    caught = (predicted[spam] == "spam").mean()
    false_alarm = (predicted[~spam] == "spam").mean()
    print(f"spam caught: {caught:.1%}   ham flagged as spam: {false_alarm:.2%}")
    print(
        f"three-way (ham ≤ 0.20 < unsure < 0.90 ≤ spam): {(verdict == 'unsure').mean():.1%} "
        f"unsure, {(verdict[~spam] == 'spam').mean():.2%} of ham filed as spam"
    )
    print(f"time: {elapsed:.2f} s")
    print("next: python benchmarks/accuracy.py measures 20 Newsgroups, SpamAssassin and the UCI")
    print("      tables; the README's tour shows the Python API")
    return 0


if __name__ == "__main__":
    sys.exit(main())
