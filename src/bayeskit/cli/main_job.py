"""The main job: train a spam filter on the bundled SMS Spam Collection and report its
cross-validated quality (``bayeskit quickstart``; plain ``python -m bayeskit`` runs it as
:func:`main`, without typer: there is no command line to parse, so neither typer nor its value
checks, pydantic, are imported — a tenth of the job's start-up)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .._version import __version__

if TYPE_CHECKING:
    import numpy as np


def main() -> int:
    """``python -m bayeskit`` without arguments: the main job with the defaults, its outcome
    an exit code as every command's (:func:`~bayeskit.cli.errors.run_guarded`)."""
    from .errors import run_guarded

    return run_guarded(run, debug=False)


def run(folds: int = 10, alpha: float | None = None, words: bool = False) -> None:
    """Cross-validate (``folds`` folds, stratified, seed 0) SpamFilter()'s defaults, or with
    ``words`` scikit-learn's pipeline (a bag of words and MultinomialNB), on the SMS Spam
    Collection and print the report (``alpha``: the smoothing, when given)."""
    import numpy as np

    from .._folds import StratifiedKFold
    from .._params import clone
    from ..datasets import load_sms_spam
    from ..io.describe import describe
    from ..naive_bayes import MultinomialNB
    from ..text import SpamFilter, TextVectorizer
    from .output import progress

    if words:
        alpha = 1.0 if alpha is None else alpha
        vectorizer, model = TextVectorizer(), MultinomialNB(alpha=alpha)
        described = f"bag of words + MultinomialNB(alpha={alpha:g})"
    else:
        # SpamFilter()'s defaults, chosen by cross-validation (benchmarks/accuracy.md).
        vectorizer, model = SpamFilter.default_vectorizer(), SpamFilter.default_model()
        if alpha is not None:
            model.set_params(alpha=alpha)
        described = describe(SpamFilter(vectorizer=vectorizer, model=model)).partition(": ")[2]

    start = time.perf_counter()
    texts, labels = load_sms_spam()
    predicted = np.empty_like(labels)
    verdict = np.empty(len(labels), dtype="<U6")
    splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0).split(texts, labels)
    # Every message is counted once, for all folds: a fold's training terms are the columns
    # its rows use, and its test messages are looked up among them, which is what fitting
    # on the fold's texts and scoring the others' texts count (the same numbers). Counted in
    # Python: for these 0.45 MB that is 0.2-0.3 s, where loading numba and the compiled
    # scanner into a fresh process costs more (the same terms and counts either way).
    terms, counts = clone(vectorizer).count(texts, compiled=False)
    with progress("cross-validating", folds) as update:
        for k, (train, test) in enumerate(splits, start=1):
            spam_filter = SpamFilter(vectorizer=clone(vectorizer), model=clone(model))
            if words:  # scikit-learn's pipeline: its own probabilities
                spam_filter.set_params(calibration_folds=None)
            rows = counts[train]
            used = np.flatnonzero(rows.getnnz(axis=0))
            seen = terms[used]
            spam_filter.fit_counted(seen, rows[:, used], labels[train])  # = fit
            p_spam = spam_filter.spam_probability_counted(seen, counts[test][:, used])
            predicted[test] = spam_filter.decisions(p_spam)  # = predict
            verdict[test] = spam_filter.verdicts(p_spam)  # = classify
            update(k)
    elapsed = time.perf_counter() - start

    spam = labels == "spam"
    print(f"bayeskit {__version__} — spam filter on the SMS Spam Collection")
    print(f"messages: {len(labels)} (ham {int((~spam).sum())}, spam {int(spam.sum())})")
    print(f"model: SpamFilter, {described}; {folds}-fold stratified cross-validation (seed 0)")
    print(f"accuracy: {float(np.mean(labels == predicted)):.4f}")
    print(f"macro-F1: {_macro_f1(labels, predicted):.4f}")
    caught = (predicted[spam] == "spam").mean()
    false_alarm = (predicted[~spam] == "spam").mean()
    print(f"spam caught: {caught:.1%}   ham flagged as spam: {false_alarm:.2%}")
    print(
        f"three-way (ham ≤ 0.20 < unsure < 0.90 ≤ spam): {(verdict == 'unsure').mean():.1%} "
        f"unsure, {(verdict[~spam] == 'spam').mean():.2%} of ham filed as spam"
    )
    print(f"time: {elapsed:.2f} s")
    print("next: bayeskit example sms   (writes sms.csv: the same messages as a table), then")
    print("      bayeskit train sms.csv --target label -o sms.bk   (or your own .csv/.tsv/.jsonl/")
    print("      .parquet table, or a folder with one sub-folder per class of texts or e-mails);")
    print("      then bayeskit evaluate, predict, explain, inspect and report (bayeskit --help)")


def _macro_f1(truth: np.ndarray, predicted: np.ndarray) -> float:
    """The mean over the labels of ``2 tp / (2 tp + fp + fn)`` (scikit-learn's macro F1, 0 for a
    label never true nor predicted), in numpy: ``sklearn.metrics`` costs the main job 0.05 s
    of imports."""
    import numpy as np

    scores = []
    for label in np.union1d(truth, predicted):
        said, true = predicted == label, truth == label
        hits = 2.0 * np.sum(said & true)
        total = hits + np.sum(said & ~true) + np.sum(~said & true)
        scores.append(hits / total if total else 0.0)
    return float(np.mean(scores))
