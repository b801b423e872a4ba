"""Measure bayeskit's accuracy on the shared real datasets; prints Markdown tables.

Usage (from the project root)::

    python benchmarks/accuracy.py                 # everything, about two minutes
    python benchmarks/accuracy.py --only sms      # one of: 20ng, sms, spamassassin, uci,
                                                  # spambase, email-table, discriminant,
                                                  # em, em-kde, em-gmm, 20ng-semi,
                                                  # corpus-power, 20ng-candidates,
                                                  # text-weights, peers
                                                  # (accuracy_peers.py: R and Weka)
                                                  # (accuracy_text.py)

The README quotes this command's output. scikit-learn's numbers for the same data (from
shared/data/README.md) are shown beside bayeskit's where they exist.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn import naive_bayes as sk_nb
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.datasets.shared import data_dir, load_20newsgroups, load_spambase, load_uci_table
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer
from bayeskit.text.analyze import ADDRESS_TOKEN_PATTERN, decode


def sklearn_settings() -> list[tuple[str, Callable[[], Any]]]:
    """scikit-learn's three usual Naive Bayes text pipelines (its own classes)."""
    return [
        (
            "scikit-learn: CountVectorizer + MultinomialNB()",
            lambda: make_pipeline(CountVectorizer(), sk_nb.MultinomialNB()),
        ),
        (
            "scikit-learn: TfidfVectorizer(sublinear_tf) + ComplementNB(α=0.3)",
            lambda: make_pipeline(
                TfidfVectorizer(sublinear_tf=True), sk_nb.ComplementNB(alpha=0.3)
            ),
        ),
        (
            "scikit-learn: CountVectorizer(binary) + BernoulliNB()",
            lambda: make_pipeline(CountVectorizer(binary=True), sk_nb.BernoulliNB()),
        ),
    ]


def describe(clf: Any) -> str:
    """A TextClassifier's vectorizer and model, in short."""
    vec, model = clf.prototypes()
    changed = {k: v for k, v in vec.get_params().items() if v != TextVectorizer().get_params()[k]}
    return f"{', '.join(f'{k}={v!r}' for k, v in changed.items()) or 'words, counts'} + {model!r}"


def newsgroups(root: Path) -> list[tuple[str, str, float, float]]:
    """(setting, scikit-learn's accuracy with it or '—', bayeskit accuracy, seconds)."""
    train, y_train = load_20newsgroups("train", root)
    test, y_test = load_20newsgroups("test", root)
    settings: list[tuple[str, str, Callable[[], Any]]] = [
        (f"**TextClassifier()** (default: {describe(TextClassifier())})", "—", TextClassifier),
        *((name, "", make) for name, make in sklearn_settings()),
        ("TextClassifier.sklearn_defaults()", "0.773", TextClassifier.sklearn_defaults),
        (
            "tf-idf + MultinomialNB(α=0.01)",
            "0.835",
            lambda: TextClassifier(
                vectorizer=TextVectorizer(output="tfidf"), model=bk.MultinomialNB(alpha=0.01)
            ),
        ),
        (
            "tf-idf (sublinear) + ComplementNB(α=0.3)",
            "0.842",
            lambda: TextClassifier(
                vectorizer=TextVectorizer(output="tfidf", sublinear_tf=True),
                model=bk.ComplementNB(alpha=0.3),
            ),
        ),
        (
            "binary + BernoulliNB",
            "0.631",
            lambda: TextClassifier(
                vectorizer=TextVectorizer(output="binary"), model=bk.BernoulliNB()
            ),
        ),
        (
            "TWCNB(α=0.1), 1–2-grams, min_df=2, address tokens",
            "—",
            lambda: TextClassifier.twcnb(
                alpha=0.1, ngram_range=(1, 2), min_df=2, token_pattern=ADDRESS_TOKEN_PATTERN
            ),
        ),
    ]
    rows = []
    for name, theirs, make in settings:
        start = time.perf_counter()
        accuracy = accuracy_score(y_test, make().fit(train, y_train).predict(test))
        rows.append((name, theirs, accuracy, time.perf_counter() - start))
    return rows


def sms_cross_validation(make: Callable[[], Any]) -> tuple[float, float, float, str]:
    """Stratified 10-fold (seed 0) pooled accuracy and macro-F1, seconds, and a SpamFilter's
    three-way summary (see :func:`three_way`)."""
    texts, labels = load_sms_spam()
    docs = np.asarray(texts, dtype=object)
    predicted = np.empty_like(labels)
    verdict = np.empty(len(labels), dtype="<U6")
    start = time.perf_counter()
    for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(docs, labels):
        model = make().fit(docs[train].tolist(), labels[train])
        predicted[test] = model.predict(docs[test].tolist())
        if isinstance(model, SpamFilter):
            verdict[test] = model.classify(docs[test].tolist())
    seconds = time.perf_counter() - start
    summary = three_way(verdict, predicted, labels) if verdict[0] else "—"
    return (
        accuracy_score(labels, predicted),
        f1_score(labels, predicted, average="macro"),
        seconds,
        summary,
    )


def three_way(verdict: np.ndarray, predicted: np.ndarray, truth: np.ndarray) -> str:
    """``unsure share; error of the two-way decision inside the band / of the verdicts
    outside it``: how much the "unsure" band holds, and whether it holds the mistakes."""
    unsure = verdict == "unsure"
    inside = (predicted[unsure] != truth[unsure]).mean() if unsure.any() else 0.0
    outside = (verdict[~unsure] != truth[~unsure]).mean()
    return f"{unsure.mean():.4f}; {inside:.4f} / {outside:.4f}"


def sms_settings() -> list[tuple[str, str, Callable[[], Any]]]:
    return [
        (f"**SpamFilter()** (default: {describe(SpamFilter())})", "—", SpamFilter),
        (UNCALIBRATED, "—", uncalibrated),
        (UNTEMPERED_SPAM_DEFAULT, "—", untempered_spam_default),
        (PREVIOUS_SPAM_DEFAULT, "—", previous_spam_default),
        (f"**TextClassifier()** (default: {describe(TextClassifier())})", "—", TextClassifier),
        *((name, "", make) for name, make in sklearn_settings()),
        ("TextClassifier.sklearn_defaults()", "0.987", TextClassifier.sklearn_defaults),
        (FORMER_DEFAULT, "—", former_default),
        (
            "tf-idf (sublinear), 1–2-grams, 1-char tokens + MultinomialNB(α=0.01)",
            "—",
            lambda: TextClassifier(
                vectorizer=TextVectorizer(
                    output="tfidf",
                    sublinear_tf=True,
                    ngram_range=(1, 2),
                    token_pattern=r"(?u)\b\w+\b",
                ),
                model=bk.MultinomialNB(alpha=0.01),
            ),
        ),
        (
            "binary char_wb 2–4-grams + BernoulliNB(α=0.01) (the former quick start)",
            "—",
            char_wb_bernoulli,
        ),
    ]


def former_default() -> SpamFilter:
    """SpamFilter() before analyzer="auto" and calibration: word 1-3-grams of raw text."""
    return SpamFilter(
        vectorizer=TextVectorizer(
            ngram_range=(1, 3), token_pattern=r"(?u)\b\w+\b", output="binary"
        ),
        model=bk.MultinomialNB(alpha=0.1),
        calibration_folds=None,
    )


def uncalibrated() -> SpamFilter:
    """SpamFilter() with the count model's own probabilities: what calibration costs or
    gains in the two-way decision."""
    return SpamFilter(calibration_folds=None)


UNCALIBRATED = "SpamFilter(calibration_folds=None): the default, uncalibrated"


def previous_spam_default() -> SpamFilter:
    """SpamFilter() before the corpus prior: e-mails as e-mails, word 1-2-gram counts."""
    return SpamFilter(
        vectorizer=TextVectorizer(
            analyzer="auto", ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b"
        ),
        model=bk.MultinomialNB(alpha=0.3),
    )


PREVIOUS_SPAM_DEFAULT = (
    "auto 1–2-grams, counts + MultinomialNB(α=0.3), calibrated (the SpamFilter() before "
    "the corpus prior)"
)


def untempered_spam_default() -> SpamFilter:
    """SpamFilter() with Zhai & Lafferty's corpus prior (corpus_power=1): e-mails as e-mails,
    word 1-2-grams, log-tf at unit length."""
    return SpamFilter(
        vectorizer=TextVectorizer(
            analyzer="auto",
            ngram_range=(1, 2),
            token_pattern=r"(?u)\b\w+\b",
            output="tfidf",
            sublinear_tf=True,
            use_idf=False,
        ),
        model=bk.MultinomialNB(alpha=0.03, smoothing="corpus", corpus_power=1.0),
    )


UNTEMPERED_SPAM_DEFAULT = (
    "auto 1–2-grams, log-tf, L2 + MultinomialNB(α=0.03, corpus prior, γ=1), calibrated "
    "(the previous SpamFilter())"
)
FORMER_DEFAULT = "word 1–3-grams, binary + MultinomialNB(α=0.1), uncalibrated (the former default)"


def char_wb_bernoulli() -> SpamFilter:
    return SpamFilter(
        vectorizer=TextVectorizer(output="binary", analyzer="char_wb", ngram_range=(2, 4)),
        model=bk.BernoulliNB(alpha=0.01),
    )


#: Document length buckets (bytes of the raw e-mail) for the SpamAssassin table.
LENGTH_BUCKETS = [(0, 2_000), (2_000, 5_000), (5_000, 20_000), (20_000, None)]


def spamassassin(root: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Train on easy_ham + spam, test on easy_ham_2 + hard_ham + spam_2 (raw e-mails): the
    table of settings, and accuracy by document length."""
    from accuracy_text import load_spamassassin

    train, y_train, _ = load_spamassassin(root, ["easy_ham", "spam"])
    test, y_test, groups = load_spamassassin(root, ["easy_ham_2", "hard_ham", "spam_2"])
    # scikit-learn reads text: the bytes decoded as bayeskit decodes them (UTF-8, else latin-1).
    train_text, test_text = [decode(d) for d in train], [decode(d) for d in test]
    spam, ham = y_test == "spam", y_test == "ham"
    hard = groups == "hard_ham"
    size = np.asarray([len(d) for d in test])
    settings: list[tuple[str, Callable[[], Any], bool]] = [
        (f"**SpamFilter()** (default: {describe(SpamFilter())})", SpamFilter, False),
        (UNCALIBRATED, uncalibrated, False),
        (UNTEMPERED_SPAM_DEFAULT, untempered_spam_default, False),
        (PREVIOUS_SPAM_DEFAULT, previous_spam_default, False),
        (f"**TextClassifier()** (default: {describe(TextClassifier())})", TextClassifier, False),
        *((name, make, True) for name, make in sklearn_settings()),
        (FORMER_DEFAULT, former_default, False),
        (
            "e-mail tokens, counts + MultinomialNB(α=1)",
            lambda: SpamFilter(
                vectorizer=TextVectorizer(analyzer="email"), model=bk.MultinomialNB()
            ),
            False,
        ),
        (
            "e-mail tokens, tf-idf + ComplementNB(α=0.01)",
            lambda: SpamFilter(
                vectorizer=TextVectorizer(analyzer="email", output="tfidf"),
                model=bk.ComplementNB(alpha=0.01),
            ),
            False,
        ),
        ("binary char_wb 2–4-grams + BernoulliNB(α=0.01)", char_wb_bernoulli, False),
    ]
    rows, by_length = [], []
    for name, make, is_sklearn in settings:
        start = time.perf_counter()
        model = make()
        if is_sklearn:
            predicted = model.fit(train_text, y_train).predict(test_text)
            verdict = None
        else:
            model.fit(train, y_train)
            predicted = model.predict(test)
            verdict = model.classify(test) if isinstance(model, SpamFilter) else None
        seconds = time.perf_counter() - start
        summary = three_way(verdict, predicted, y_test) if verdict is not None else "—"
        rows.append(
            (
                name,
                f"{accuracy_score(y_test, predicted):.4f}",
                f"{(predicted[spam] == 'spam').mean():.4f}",
                f"{(predicted[ham] == 'spam').mean():.4f} "
                f"({(predicted[ham & ~hard] == 'spam').mean():.4f} / "
                f"{(predicted[ham & hard] == 'spam').mean():.4f})",
                summary,
                f"{seconds:.1f}",
            )
        )
        cells = []
        for low, high in LENGTH_BUCKETS:
            inside = (size >= low) & (size < high if high else True)
            cells.append(f"{accuracy_score(y_test[inside], predicted[inside]):.4f}")
        by_length.append((name, *cells))
    counts = []
    for low, high in LENGTH_BUCKETS:
        inside = (size >= low) & (size < high if high else True)
        counts.append(f"{int(inside.sum())} ({int((inside & spam).sum())} spam)")
    by_length.insert(0, ("e-mails in the bucket", *counts))
    return rows, by_length


def uci(root: Path) -> list[tuple[str, str, float, float]]:
    """CategoricalNB, stratified 10-fold (seed 0), from the raw strings."""
    reference = {"mushroom": "0.955", "car": "0.854", "nursery": "0.902", "voting": "0.904"}
    rows = []
    # nursery's rarest class has 2 rows, fewer than the 10 folds: expected, not news.
    warnings.filterwarnings("ignore", message="The least populated class")
    for name, theirs in reference.items():
        X, y = load_uci_table(name, root)
        for missing in (False, True) if name in ("mushroom", "voting") else (False,):
            data = np.where(X == "?", None, X).astype(object) if missing else X
            predicted = np.empty_like(y)
            folds = StratifiedKFold(10, shuffle=True, random_state=0)
            for train, test in folds.split(data, y):
                model = bk.CategoricalNB().fit(data[train], y[train])
                predicted[test] = model.predict(data[test])
            label = f"{name} ('?' as missing)" if missing else f"{name} ('?' as a value)"
            rows.append(
                (
                    label,
                    theirs if not missing else "—",
                    accuracy_score(y, predicted),
                    f1_score(y, predicted, average="macro"),
                )
            )
    return rows


def cross_validated(make: Callable[[], Any], X: Any, y: np.ndarray) -> tuple[float, float, float]:
    """Stratified 10-fold (seed 0) pooled accuracy and macro-F1 of ``make()``, and seconds."""
    predicted = np.empty_like(y)
    start = time.perf_counter()
    for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
        take = (lambda rows: X.iloc[rows]) if hasattr(X, "iloc") else (lambda rows: X[rows])
        predicted[test] = make().fit(take(train), y[train]).predict(take(test))
    return (
        accuracy_score(y, predicted),
        f1_score(y, predicted, average="macro"),
        time.perf_counter() - start,
    )


def spambase(root: Path) -> list[tuple[str, ...]]:
    """Continuous and count features: every numeric family on UCI Spambase."""
    import pandas as pd
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    X, y, names = load_spambase(root)
    frame = pd.DataFrame(X, columns=names)
    # The three capital_run_length columns are whole numbers: counts for the Poisson family.
    for name in names[-2:]:
        frame[name] = frame[name].astype(np.int64)
    settings: list[tuple[str, str, Callable[[], Any], Any]] = [
        ("scikit-learn GaussianNB", "0.821", SkGaussianNB, X),
        ("GaussianNB", "0.821", bk.GaussianNB, X),
        ("KernelNB (Gaussian kernel, Silverman)", "—", bk.KernelNB, X),
        ("DiscretizedNB (MDL)", "—", lambda: bk.DiscretizedNB(method="mdl"), X),
        ("DiscretizedNB (equal frequency, 10 bins)", "—",
         lambda: bk.DiscretizedNB(method="frequency"), X),
        ("MixedNB: floats kernel, integer run lengths discretized (MDL)", "—",
         lambda: bk.MixedNB(numeric="kernel", integers="discretized"), frame),
        ("MixedNB: floats kernel, integer run lengths categorical", "—",
         lambda: bk.MixedNB(numeric="kernel", integers="categorical"), frame),
        # Run lengths are far more spread than a Poisson allows: an overconfident fit.
        ("MixedNB: floats kernel, integer run lengths Poisson", "—",
         lambda: bk.MixedNB(numeric="kernel", integers="poisson"), frame),
    ]  # fmt: skip
    rows = []
    for name, theirs, make, data in settings:
        accuracy, f1, seconds = cross_validated(make, data, y)
        rows.append((name, theirs, f"{accuracy:.4f}", f"{f1:.4f}", f"{seconds:.1f}"))
    return rows


def email_metadata(root: Path) -> list[tuple[str, ...]]:
    """MixedNB on a real mixed table: metadata of the SpamAssassin e-mails (no words)."""
    import pandas as pd

    from bayeskit.text.email import iter_folder
    from bayeskit.text.email_table import email_table

    corpus = root / "spamassassin-public-corpus"
    messages, labels = [], []
    for group in ["easy_ham", "easy_ham_2", "hard_ham", "spam", "spam_2"]:
        for _, message in iter_folder(corpus / group):
            messages.append(message)
            labels.append("spam" if group.startswith("spam") else "ham")
    frame = pd.DataFrame(email_table(messages))
    y = np.asarray(labels)
    majority = max(np.mean(y == "spam"), np.mean(y == "ham"))
    rows = [("majority class", f"{majority:.4f}", "—", "—", "—")]
    for name, make in [
        ("MixedNB(), auto families", bk.MixedNB),
        ('MixedNB(integers="poisson")', lambda: bk.MixedNB(integers="poisson")),
        ('MixedNB(numeric="kernel")', lambda: bk.MixedNB(numeric="kernel")),
        (
            'MixedNB(numeric="kernel", integers="poisson")',
            lambda: bk.MixedNB(numeric="kernel", integers="poisson"),
        ),
    ]:
        accuracy, f1, seconds = cross_validated(make, frame, y)
        families = make().fit(frame, y).feature_families_
        used = ", ".join(sorted(set(families.values())))
        rows.append((name, f"{accuracy:.4f}", f"{f1:.4f}", used, f"{seconds:.1f}"))
    return rows


def _table(title: str, header: list[str], rows: list[tuple[str, ...]]) -> None:
    """Print a Markdown section: a title, a table whose first column is text, a blank line."""
    print(f"## {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * (len(header) - 1))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    everything = [
        "20ng",
        "sms",
        "spamassassin",
        "uci",
        "spambase",
        "email-table",
        "discriminant",
        "em",
        "em-kde",
        "em-gmm",
        "20ng-semi",
        "corpus-power",
        "20ng-candidates",
        "text-weights",
        "peers",
    ]
    parser.add_argument("--only", choices=everything)
    args = parser.parse_args()
    root = data_dir()
    wanted = [args.only] if args.only else everything
    print(f"# bayeskit {bk.__version__} accuracy on the shared datasets\n")
    if "sms" in wanted:
        rows = []
        for name, theirs, make in sms_settings():
            accuracy, f1, seconds, unsure = sms_cross_validation(make)
            rows.append((name, theirs, f"{accuracy:.4f}", f"{f1:.4f}", unsure, f"{seconds:.1f}"))
        _table(
            "SMS Spam Collection, stratified 10-fold (seed 0)",
            ["setting", "scikit-learn (data README)", "accuracy", "macro-F1",
             "unsure share; error inside / outside the band", "seconds"],
            rows,
        )  # fmt: skip
    if "peers" in wanted:
        import accuracy_peers

        for title, header, rows in accuracy_peers.tables(root):
            _table(title, header, rows)
    if "discriminant" in wanted:
        from accuracy_da import HEADER, discriminant

        _table(
            "Discriminant analysis, stratified 10-fold (seed 0)"
            + ("" if root is not None else " (spambase skipped: no shared data folder)"),
            HEADER,
            discriminant(root),
        )
    if root is None:
        print(
            "The shared data folder was not found (set BAYESKIT_DATA): the other datasets "
            "are skipped."
        )
        return 0
    if "20ng" in wanted:
        _table(
            "20 Newsgroups bydate, train → test",
            ["setting", "scikit-learn (data README)", "accuracy", "seconds (fit + predict)"],
            [(n, t, f"{a:.4f}", f"{s:.1f}") for n, t, a, s in newsgroups(root)],
        )
    if "spamassassin" in wanted:
        rows, by_length = spamassassin(root)
        _table(
            "SpamAssassin corpus: train easy_ham + spam, test easy_ham_2 + hard_ham + spam_2",
            ["setting", "accuracy", "spam recall",
             "ham false-positive rate (easy_ham_2 / hard_ham)",
             "unsure share; error inside / outside the band",
             "seconds"],
            rows,
        )  # fmt: skip
        _table(
            "SpamAssassin test e-mails by length (bytes): accuracy of each setting",
            ["setting", *(f"{a:,}–{b:,}" if b else f"≥ {a:,}" for a, b in LENGTH_BUCKETS)],
            by_length,
        )
    if "uci" in wanted:
        _table(
            "UCI categorical tables, CategoricalNB, stratified 10-fold (seed 0)",
            ["data", "scikit-learn", "bayeskit accuracy", "macro-F1"],
            [(n, t, f"{a:.4f}", f"{f:.4f}") for n, t, a, f in uci(root)],
        )
    if "spambase" in wanted:
        _table(
            "UCI Spambase (57 numeric columns), stratified 10-fold (seed 0)",
            ["model", "scikit-learn GaussianNB", "bayeskit accuracy", "macro-F1", "seconds"],
            spambase(root),
        )
    if "email-table" in wanted:
        _table(
            "A real mixed table: metadata of the SpamAssassin e-mails (sizes, link "
            "counts, HTML flag, charset, sender TLD, subject shape, hour; no words), "
            "stratified 10-fold (seed 0)",
            ["model", "accuracy", "macro-F1", "families used", "seconds"],
            email_metadata(root),
        )
    if "em" in wanted:
        import accuracy_em

        header, rows = accuracy_em.tables(root)
        _table(
            "Mixtures and Parzen windows beside GaussianNB and QDA, stratified 10-fold "
            "(seed 0): accuracy (seconds for the 10 folds)",
            header,
            rows,
        )
    if "em-gmm" in wanted:
        import accuracy_em

        header, rows = accuracy_em.tables(root, accuracy_em.GMM_TABLE)
        _table(
            "Gaussian mixtures with and without the conjugate prior beside GaussianNB and QDA, "
            "stratified 10-fold (seed 0): accuracy (seconds for the 10 folds)",
            header,
            rows,
        )
    if "em-kde" in wanted:
        import accuracy_em

        header, rows = accuracy_em.tables(None, accuracy_em.KDE_RECIPE)
        _table(
            "scikit-learn's KDE-classifier recipe, stratified 10-fold (seed 0): accuracy "
            "(seconds for the 10 folds)",
            header,
            rows,
        )
    if "20ng-semi" in wanted:
        import accuracy_em

        _table(
            "20 Newsgroups bydate, 20 labelled posts per class + the rest of the training set "
            "unlabelled, test set; 5 random draws (stop words, min_df=3, α=0.1)",
            ["model", "test error, mean ± sd", "error cut vs the better supervised",
             "seconds per draw"],
            accuracy_em.semi_supervised(root),
        )  # fmt: skip
    if "corpus-power" in wanted:
        import accuracy_text

        _table(
            "The corpus prior's power γ alone (SpamAssassin test folders, uncalibrated "
            "two-way decision)",
            ["weighting, γ, α", "accuracy", "spam recall",
             "ham false positives (easy_ham_2 / hard_ham)", "≥ 20,000 bytes"],
            accuracy_text.corpus_power(root),
        )  # fmt: skip
    if "20ng-candidates" in wanted:
        import accuracy_text

        _table(
            "20 Newsgroups: candidates for ≥ 0.87, forward-in-time folds of the training half "
            "and the test half",
            ["candidate", "mean of the 3 folds", "fold accuracies", "test"],
            accuracy_text.newsgroups_candidates(root),
        )
    if "text-weights" in wanted:
        import accuracy_text

        best, choice = accuracy_text.term_weights_search(root)
        _table(
            "Term weights for TextClassifier(): the 15 best settings on the training folds of "
            "the three sets (auto 1-2-grams, log-tf, L2 + ComplementNB, corpus prior)",
            ["setting", "mean", "sms", "20ng", "spamassassin", "qualifies"],
            best,
        )
        _table(
            "The choice (best qualifying mean) on the 20 Newsgroups test half",
            ["setting", "test accuracy"],
            choice,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
