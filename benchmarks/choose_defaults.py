"""Choose ``TextClassifier()``'s and ``SpamFilter()``'s defaults by cross-validation on training
data only; prints the search (grid, folds, scores) as Markdown.

Usage (from the project root)::

    python benchmarks/choose_defaults.py                  # all three sets, about an hour
    python benchmarks/choose_defaults.py --only sms       # one of: 20ng, sms, spamassassin
    python benchmarks/choose_defaults.py --cache DIR      # keep each set's scores in DIR (JSON),
                                                          # reuse them when run again (and score
                                                          # only what the grid added since)
    python benchmarks/choose_defaults.py --only 20ng --tokens auto --cache DIR
                                                          # score a part of the grid into DIR
    python benchmarks/choose_defaults.py --cache DIR --cached   # report from DIR, score nothing

The data: 20 Newsgroups *train* (never its test half), the SMS Spam Collection, and the
SpamAssassin *training* folders easy_ham + spam (never easy_ham_2, hard_ham or spam_2). SMS and
SpamAssassin are cut into 5 stratified folds (seed 0); every setting is trained on four and
scored on the fifth, in turn. 20 Newsgroups' test half was written *after* its train half
("bydate"), and random folds of train reward what does not carry over to later posts (one
thread's words, one-off names). Its settings are therefore scored as the test half scores
them, forward in time, on three folds: trained on the earliest 40 %, 60 % and 80 % of each
group's training posts (by article number; the posts carry no dates), validated on the 20 %
that follow each. (One fold, the earlier 80 % against the later 20 %, scored the best
settings alike, 0.905-0.907, and ranked them otherwise than the later test posts do; three
folds validate on three times as many posts, two of them after a gap.) The vocabulary is
always learned on the training part only.

The grid: tokenizations x min_df x weighting x model x alpha (``TOKENIZATIONS`` ... ``ALPHAS``
below; "addresses": e-mail addresses, host names and dotted names kept whole; "auto": raw
e-mails and news posts, known by their headers, read as e-mails, header and URL tokens and the
decoded body's word n-grams, other texts as words, ``TextVectorizer(analyzer="auto")``).
Weightings:
``counts``; ``binary`` (presence); ``log-tf, L2`` (1 + ln tf, each document scaled to unit
length: a per-document weight, so the statistics still add exactly); ``log-tf idf, L2``
(scikit-learn's ``TfidfVectorizer(sublinear_tf=True)``). Models: MultinomialNB, ComplementNB,
TWCNB (ComplementNB with Rennie et al.'s weight normalisation, ``norm=True``), on presence
only BernoulliNB, and, on the "auto" tokenizations (those the choice takes), CorpusMNB and
CorpusCNB: MultinomialNB and ComplementNB with ``smoothing="corpus"``, a Dirichlet prior
centred on the pooled term distribution of all classes instead of the uniform one
(``θ_cj = (N_cj + αD q_j) / (N_c + αD)``, Dirichlet smoothing from language-model retrieval;
``q_j ∝ N_j^γ``, the pooled counts tempered by ``corpus_power`` γ = 1, 0.75 or 0.5: at γ = 1 a
word seen in one class only weighs the same however often it was seen, below 1 its weight
grows with its count; ``N_j`` is the sum of the class statistics, so they still add), with α
up to 10 (the prior spreads its weight by how common a term is, and wants more of it).

The rule: a setting qualifies when, on every set it is chosen for, it is at least as accurate
as the best of scikit-learn's three usual pipelines (counts + MultinomialNB, sublinear tf-idf +
ComplementNB(α=0.3), presence + BernoulliNB) on the same folds, and when its statistics add
(no idf: ``partial_fit`` must grow the vocabulary, two models merge exactly, ``unlearn``
works, and the command line's streaming ``train`` keeps counts), and when it reads raw e-mails
as e-mails (the "auto" tokenizations: on the training folders word n-grams of raw e-mails
score as well, but on later e-mails they read base64 attachments and HTML as words and
collapse on the long ones, benchmarks/accuracy.md, by length). ``TextClassifier()`` takes the
qualifying setting with the best accuracy averaged over the three sets, ``SpamFilter()`` the
best averaged over the two spam sets. Of settings that tie, the cheaper (fewer n-grams, words
before characters, min_df 1) is taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.datasets.shared import data_dir
from bayeskit.text import TextVectorizer
from bayeskit.text.analyze import ADDRESS_TOKEN_PATTERN, decode

TOKENIZATIONS: dict[str, dict[str, Any]] = {
    "words": {},
    "words, addresses": {"token_pattern": ADDRESS_TOKEN_PATTERN},
    "words 1-2": {"ngram_range": (1, 2)},
    "words 1-2, addresses": {"ngram_range": (1, 2), "token_pattern": ADDRESS_TOKEN_PATTERN},
    "words 1-2, 1-char tokens": {"ngram_range": (1, 2), "token_pattern": r"(?u)\b\w+\b"},
    "words 1-3": {"ngram_range": (1, 3)},
    "words 1-3, 1-char tokens": {"ngram_range": (1, 3), "token_pattern": r"(?u)\b\w+\b"},
    "char_wb 2-4": {"analyzer": "char_wb", "ngram_range": (2, 4)},
    # Raw e-mails (by their headers) read as e-mails, other texts as words: see analyzer="auto".
    "auto 1, 1-char tokens": {"analyzer": "auto", "token_pattern": r"(?u)\b\w+\b"},
    "auto 1-2, 1-char tokens": {
        "analyzer": "auto",
        "ngram_range": (1, 2),
        "token_pattern": r"(?u)\b\w+\b",
    },
    "auto 1-3, 1-char tokens": {
        "analyzer": "auto",
        "ngram_range": (1, 3),
        "token_pattern": r"(?u)\b\w+\b",
    },
    "auto 1-2, addresses": {
        "analyzer": "auto",
        "ngram_range": (1, 2),
        "token_pattern": ADDRESS_TOKEN_PATTERN,
    },
}
WEIGHTINGS = ["counts", "binary", "log-tf, L2", "log-tf idf, L2"]
#: "TWCNB": ComplementNB with weight normalisation (Rennie et al. 2003, ``norm=True``).
#: The models with smoothing="corpus" (scored on the "auto" tokenizations only): the prior's
#: mean is the pooled counts raised to the power γ (``corpus_power``); γ = 1 (no suffix) is
#: Zhai & Lafferty's prior, under which a word of one class weighs the same however often it
#: was seen, γ < 1 the tempered one.
CORPUS_MODELS = {
    f"Corpus{short}{suffix}": (model, power)
    for short, model in (("MNB", "MultinomialNB"), ("CNB", "ComplementNB"))
    for suffix, power in (("", 1.0), (" γ=0.75", 0.75), (" γ=0.5", 0.5))
}
MODELS = ["MultinomialNB", "ComplementNB", "TWCNB", "BernoulliNB", *CORPUS_MODELS]
ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0]
CORPUS_ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
MIN_DF = [1, 2]
FOLDS = 5
#: 20 Newsgroups: train on the posts before each cut (a share of each group's posts in
#: article-number order), validate on the next 20 %.
TEMPORAL_CUTS = (0.4, 0.6, 0.8)
#: How much worse a cheaper setting may score and still be preferred (0: ties only).
TOLERANCE = 0.0
#: scikit-learn's three usual text pipelines, as settings of the grid.
SKLEARN_SETTINGS = [
    ("words", 1, "counts", "MultinomialNB", 1.0),
    ("words", 1, "log-tf idf, L2", "ComplementNB", 0.3),
    ("words", 1, "binary", "BernoulliNB", 1.0),
]
#: Cheaper first: fewer and shorter terms.
COST = {name: i for i, name in enumerate(TOKENIZATIONS)}


Split = list[tuple[np.ndarray, np.ndarray]]
#: What --cached found unscored (set, tokenization): left out of the report and the choice.
MISSING: list[str] = []


def datasets(
    root: Path | None, only: str | None
) -> Iterator[tuple[str, list[str], np.ndarray, Split]]:
    """(name, texts, labels, the (train, validation) index pairs)."""
    wanted = [only] if only else ["20ng", "sms", "spamassassin"]
    if "sms" in wanted:
        texts, labels = load_sms_spam()
        yield "sms", texts, labels, folds(labels)
    if root is None:
        return
    if "20ng" in wanted:
        base = root / "20newsgroups-bydate" / "20news-bydate-train"
        texts, labels, place = [], [], []
        for group in sorted(p for p in base.iterdir() if p.is_dir()):
            posts = sorted(group.iterdir(), key=lambda p: int(p.name))  # by article number
            for k, path in enumerate(posts):
                texts.append(path.read_bytes().decode("latin-1"))
                labels.append(group.name)
                place.append(k / len(posts))  # the post's place in its group, 0 = earliest
        at = np.asarray(place)
        split = [
            (np.flatnonzero(at < cut), np.flatnonzero((at >= cut) & (at < cut + 0.2)))
            for cut in TEMPORAL_CUTS
        ]
        yield "20ng", texts, np.asarray(labels), split
    if "spamassassin" in wanted:
        corpus = root / "spamassassin-public-corpus"
        docs, labels = [], []
        for group in ("easy_ham", "spam"):
            for path in sorted((corpus / group).iterdir()):
                docs.append(decode(path.read_bytes()))  # as TextVectorizer decodes bytes
                labels.append("spam" if group == "spam" else "ham")
        y = np.asarray(labels)
        yield "spamassassin", docs, y, folds(y)


def folds(labels: np.ndarray) -> Split:
    cut = StratifiedKFold(FOLDS, shuffle=True, random_state=0)
    return list(cut.split(np.zeros(len(labels)), labels))


def weigh(counts: sp.csr_matrix, weighting: str, idf: np.ndarray) -> sp.csr_matrix:
    """What ``TextVectorizer(output=...)`` makes of counts (see ``setting_params``)."""
    out = counts.astype(np.float64, copy=True)
    if weighting == "binary":
        out.data[:] = 1.0
    elif weighting.startswith("log-tf"):
        np.log(out.data, out=out.data)
        out.data += 1.0
        if "idf" in weighting:
            out.data *= idf[out.indices]
        size = np.sqrt(np.asarray(out.multiply(out).sum(axis=1)).ravel())
        size[size == 0] = 1.0
        out.data /= np.repeat(size, np.diff(out.indptr))
    return out


def setting_params(tokens: str, min_df: int, weighting: str) -> dict[str, Any]:
    """The TextVectorizer parameters of a setting."""
    params = {**TOKENIZATIONS[tokens], "min_df": min_df}
    if weighting == "counts":
        return params
    if weighting == "binary":
        return {**params, "output": "binary"}
    return {**params, "output": "tfidf", "sublinear_tf": True, "use_idf": "idf" in weighting}


def models(weighting: str, tokens: str) -> list[tuple[str, float]]:
    """The (model, alpha) pairs of a weighting and tokenization."""
    plain = MODELS[:4] if weighting == "binary" else MODELS[:3]
    pairs = [(model, alpha) for model in plain for alpha in ALPHAS]
    if tokens.startswith("auto"):
        pairs += [(model, alpha) for model in CORPUS_MODELS for alpha in CORPUS_ALPHAS]
    return pairs


def make_model(model: str, alpha: float) -> Any:
    if model == "TWCNB":
        return bk.ComplementNB(alpha=alpha, norm=True)
    if model in CORPUS_MODELS:
        name, power = CORPUS_MODELS[model]
        return getattr(bk, name)(alpha=alpha, smoothing="corpus", corpus_power=power)
    return getattr(bk, model)(alpha=alpha)


def search(
    name: str,
    texts: list[str],
    labels: np.ndarray,
    split: Split,
    tokens: str,
    known: frozenset[tuple] = frozenset(),
) -> dict[tuple, list[dict[str, float]]]:
    """Scores of every setting of one tokenization on every fold: {setting: [fold scores]}.
    Settings in ``known`` (already scored) are skipped."""
    docs = np.asarray(texts, dtype=object)
    scores: dict[tuple, list[dict[str, float]]] = {}
    for k, (train, test) in enumerate(split):
        y_train, y_test = labels[train], labels[test]
        for min_df in MIN_DF:
            start = time.perf_counter()
            vec = TextVectorizer(**TOKENIZATIONS[tokens], min_df=min_df)
            X_train = vec.fit_transform(docs[train].tolist())
            X_test = vec.transform(docs[test].tolist())
            df = np.diff(X_train.tocsc().indptr)
            idf = np.log((1.0 + len(train)) / (1.0 + df)) + 1.0
            for weighting in WEIGHTINGS:
                A, B = weigh(X_train, weighting, idf), weigh(X_test, weighting, idf)
                for model, alpha in models(weighting, tokens):
                    if (tokens, min_df, weighting, model, alpha) in known:
                        continue
                    predicted = make_model(model, alpha).fit(A, y_train).predict(B)
                    scores.setdefault((tokens, min_df, weighting, model, alpha), []).append(
                        rates(predicted, y_test)
                    )
            print(
                f"{name} fold {k + 1}/{len(split)} {tokens} min_df={min_df}: "
                f"{X_train.shape[1]:,} terms, {time.perf_counter() - start:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    return scores


def grid(tokens: str) -> list[tuple]:
    """Every setting of one tokenization."""
    return [
        (tokens, min_df, weighting, model, alpha)
        for min_df in MIN_DF
        for weighting in WEIGHTINGS
        for model, alpha in models(weighting, tokens)
    ]


def rates(predicted: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    out = {"accuracy": float(np.mean(predicted == truth))}
    if set(np.unique(truth)) == {"ham", "spam"}:
        ham, spam = truth == "ham", truth == "spam"
        out["ham_fp"] = float(np.mean(predicted[ham] == "spam"))
        out["spam_recall"] = float(np.mean(predicted[spam] == "spam"))
    return out


def mean(fold_scores: list[dict[str, float]], key: str = "accuracy") -> float:
    return float(np.mean([s[key] for s in fold_scores]))


def describe(setting: tuple) -> str:
    tokens, min_df, weighting, model, alpha = setting
    return f"{tokens}, min_df={min_df}, {weighting}, {model}(α={alpha:g})"


def cost(setting: tuple) -> tuple[int, int]:
    return COST[setting[0]], setting[1]


def candidates(
    per_set: dict[str, dict[tuple, list]], names: list[str], tokens: str = ""
) -> dict[tuple, float]:
    """The qualifying settings (additive, at least scikit-learn's best on each of ``names``,
    a tokenization starting with ``tokens``) and their accuracy averaged over ``names``."""
    common = set.intersection(*(set(per_set[n]) for n in names))
    floor = {n: max(mean(per_set[n][s]) for s in SKLEARN_SETTINGS) for n in names}
    return {
        s: float(np.mean([mean(per_set[n][s]) for n in names]))
        for s in common
        if s[0].startswith(tokens)
        and "idf" not in s[2]
        and all(mean(per_set[n][s]) >= floor[n] for n in names)
    }


def choose(
    per_set: dict[str, dict[tuple, list]], names: list[str], tokens: str = ""
) -> tuple[tuple, float]:
    """The best of :func:`candidates`, or a cheaper one within TOLERANCE of it."""
    average = candidates(per_set, names, tokens)
    best = max(average.values())
    near = [s for s in average if average[s] >= best - TOLERANCE]
    chosen = min(near, key=lambda s: (cost(s), -average[s]))
    return chosen, average[chosen]


def print_candidates(per_set: dict[str, dict[tuple, list]], names: list[str], tokens: str) -> None:
    average = candidates(per_set, names, tokens)
    print(f"| qualifying setting | mean | {' | '.join(names)} |")
    print("|---|---:|" + "---:|" * len(names))
    for setting in sorted(average, key=lambda s: -average[s])[:10]:
        cells = " | ".join(f"{mean(per_set[n][setting]):.4f}" for n in names)
        print(f"| {describe(setting)} | {average[setting]:.4f} | {cells} |")
    print()


def report(per_set: dict[str, dict[tuple, list]]) -> None:
    print("# How the text defaults were chosen (cross-validation on training data only)\n")
    for paragraph in __doc__.split("\n\n")[3:]:
        print(" ".join(paragraph.split()) + "\n")
    n = sum(len(grid(tokens)) for tokens in TOKENIZATIONS)
    if MISSING:
        print(f"Not scored (left out of the tables and the choice): {'; '.join(MISSING)}.\n")
    print(
        f"Grid: tokenizations {'; '.join(TOKENIZATIONS)}; min_df {MIN_DF}; weightings "
        f"{'; '.join(WEIGHTINGS)}; models {', '.join(MODELS)} (BernoulliNB on presence only, "
        f"{', '.join(CORPUS_MODELS)} on the auto tokenizations); α {ALPHAS} "
        f"({CORPUS_ALPHAS} with the corpus prior): {n} settings.\n"
    )
    for name, scores in per_set.items():
        ranked = sorted(scores, key=lambda s: -mean(scores[s]))
        spam = "ham_fp" in scores[ranked[0]][0]
        how = f"{len(TEMPORAL_CUTS)} folds forward in time" if name == "20ng" else f"{FOLDS}-fold"
        print(f"## {name} ({how}): the 15 best settings of {len(scores)}\n")
        header = "| setting | mean accuracy | fold accuracies |"
        print(header + (" ham false positives | spam recall |" if spam else ""))
        print("|---|---:|---|" + ("---:|---:|" if spam else ""))
        for setting in ranked[:15]:
            folds = " ".join(f"{s['accuracy']:.4f}" for s in scores[setting])
            row = f"| {describe(setting)} | {mean(scores[setting]):.4f} | {folds} |"
            if spam:
                row += f" {mean(scores[setting], 'ham_fp'):.4f} | "
                row += f"{mean(scores[setting], 'spam_recall'):.4f} |"
            print(row)
        print()
        print(f"scikit-learn's usual settings on {name} (same folds):\n")
        print("| setting | mean accuracy |")
        print("|---|---:|")
        for setting in SKLEARN_SETTINGS:
            print(f"| {describe(setting)} | {mean(scores[setting]):.4f} |")
        print()
    names = list(per_set)
    if len(names) > 1:
        print("## The choice\n")
        spam_sets = [n for n in names if n in ("sms", "spamassassin")]
        for estimator, sets in (("TextClassifier", names), ("SpamFilter", spam_sets)):
            if not sets:
                continue
            chosen, average = choose(per_set, sets, "auto")
            print(
                f"- `{estimator}()`: **{describe(chosen)}** (mean accuracy over "
                f"{', '.join(sets)}: {average:.4f}). The best qualifying settings:\n"
            )
            print_candidates(per_set, sets, "auto")


def cached_search(
    name: str,
    texts: list[str],
    labels: np.ndarray,
    split: Split,
    cache: Path | None,
    prefix: str = "",
    compute: bool = True,
) -> dict[tuple, list[dict[str, float]]]:
    """Every tokenization's scores (the one named ``prefix``, else those whose name starts
    with it), each kept in ``cache`` (when given) once computed."""
    scores: dict[tuple, list[dict[str, float]]] = {}
    named = (
        [prefix] if prefix in TOKENIZATIONS else [t for t in TOKENIZATIONS if t.startswith(prefix)]
    )
    for tokens in named:
        path = cache / f"{name}-{tokens.replace(' ', '_').replace(',', '')}.json" if cache else None
        part = {}
        if path is not None and path.exists():
            part = {tuple(k): v for k, v in json.loads(path.read_text())}
        if set(grid(tokens)) - set(part) and not compute:
            MISSING.append(f"{name}: {tokens} ({len(set(grid(tokens)) - set(part))} settings)")
        elif set(grid(tokens)) - set(part):  # scored before the grid grew: add the rest
            part.update(search(name, texts, labels, split, tokens, frozenset(part)))
            if path is not None:
                path.write_text(json.dumps([[list(k), v] for k, v in part.items()]))
        scores.update(part)
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["20ng", "sms", "spamassassin"])
    parser.add_argument("--cache", type=Path, help="folder keeping each set's scores")
    parser.add_argument(
        "--tokens",
        default="",
        help="score only the tokenization so named, or those whose name starts so",
    )
    parser.add_argument(
        "--cached", action="store_true", help="report from --cache only, scoring nothing"
    )
    args = parser.parse_args()
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    per_set = {
        name: cached_search(name, texts, labels, split, args.cache, args.tokens, not args.cached)
        for name, texts, labels, split in datasets(data_dir(), args.only)
    }
    if args.tokens:  # a part of the grid: the report needs all of it
        print(f"scored the tokenizations starting with {args.tokens!r}", file=sys.stderr)
        return 0
    report(per_set)
    return 0


if __name__ == "__main__":
    sys.exit(main())
