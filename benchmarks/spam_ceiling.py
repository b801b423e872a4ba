"""How much spam can any cutoff file on the SpamAssassin split while it keeps the ham safe?

The ham-safety target asks a filter trained on easy_ham + spam to file at least 75 % of the
test spam (spam_2) as spam while it files at most 0.5 % of the test ham (easy_ham_2 +
hard_ham) and 5 % of hard_ham as spam. Whatever the cutoffs, no filter can do better than
its score's *ceiling* (``spam_peers.figures``): the share of spam above the highest cut that
keeps both ham limits. This script measures the ceiling and the recall at 0.1 % of ham lost
for every scoring the filter offers over a grid of its parameters — Robinson's strength ``s``,
the telling tokens' ``min_dev``, the blend weight of the count model's log-odds
(``nb_weight``) — with the default tokens and with word 1-grams, and prints where the binding
limit is: the cut that hard_ham allows against the one the whole ham allows, and how many
of the ham messages at the top of the score are hard_ham.

The training messages are counted once per tokenization and a filter fitted from those counts
for each scoring setting (``fit_counted``: a scoring setting changed on a fitted filter waits
for a fit, since its probability scale was calibrated on that scoring); the test messages are
transformed once per tokenization (the settings do not change the vocabulary). Nothing here is
tuned on the test folders: it is a measurement of what any tuning could reach.

    python benchmarks/spam_ceiling.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from accuracy_text import load_spamassassin
from bayeskit.datasets.shared import data_dir
from bayeskit.text import SpamFilter
from spam_peers import TEST, TRAIN, _cut, figures

GRID = [
    {"scoring": "naive_bayes"},
    *({"scoring": "fisher", "min_dev": d} for d in (0.1, 0.2, 0.3, 0.375, 0.45)),
    *({"scoring": "fisher", "token_strength": s} for s in (0.1, 0.5, 1.0)),
    *({"scoring": "fisher", "nb_weight": w} for w in (0.03, 0.3, 1.0)),
]


#: the filter's Fisher settings (bogofilter's), which each row of the grid changes one of
FISHER = {"scoring": "fisher", "min_dev": 0.375, "token_strength": 0.0178, "nb_weight": 0.0}


class Scorer:
    """Filters of one tokenization (``settings`` of the default vectorizer), each fitted for
    its scoring setting from the training messages counted once, scoring the test messages
    transformed once."""

    def __init__(self, train: list, y_train: np.ndarray, test: list, settings: dict) -> None:
        self.vectorizer = SpamFilter.default_vectorizer().set_params(**settings)
        self.terms, self.counts = self.vectorizer.count(train)
        self.y_train = y_train
        self.test = test
        self.rows: Any = None

    def log_odds(self, params: dict) -> np.ndarray:
        """The test messages' log-odds by a filter fitted with ``params``."""
        f = SpamFilter(vectorizer=self.vectorizer, **params)
        f.fit_counted(self.terms, self.counts, self.y_train)
        if self.rows is None:
            self.rows = f.transform(self.test)
        return f.log_odds_of_rows(self.rows)


def main() -> None:
    root = data_dir()
    if root is None or not (root / "spamassassin-public-corpus").is_dir():
        print("the SpamAssassin corpus is not in the shared data folder: skipped")
        return
    train, y_train, _ = load_spamassassin(root, TRAIN)
    test, y_test, groups = load_spamassassin(root, TEST)
    ham, hard = y_test == "ham", groups == "hard_ham"
    tokens = {"default tokens": {}, "word 1-grams": {"ngram_range": (1, 1)}}
    print("| tokens | scoring | recall at 0.1 % ham lost | ceiling | binding limit |")
    print("|---|---|---|---|---|")
    best = 0.0
    for name, settings in tokens.items():
        start = time.perf_counter()
        scored = Scorer(train, y_train, test, settings)
        for params in GRID:
            score = scored.log_odds({**FISHER, **params})
            row = figures(y_test, np.where(score > 0, "spam", "ham"), score, groups)
            by_ham, by_hard = _cut(score[ham], 0.005), _cut(score[hard], 0.05)
            binding = "hard_ham (5 %)" if by_hard >= by_ham else "all ham (0.5 %)"
            top = np.argsort(-score[ham], kind="stable")[: int(0.005 * ham.sum()) + 1]
            binding += f", {int(hard[ham][top].sum())} of the {len(top)} top ham hard_ham"
            ceiling = row["ceiling at 0.5% ham (5% hard)"]
            best = max(best, ceiling)
            label = ", ".join(f"{k}={v}" for k, v in params.items())
            print(
                f"| {name} | {label} | {100 * row['recall at 0.1% ham lost']:.1f} % | "
                f"{100 * ceiling:.1f} % | {binding} |",
                flush=True,
            )
        print(f"<!-- {name}: {time.perf_counter() - start:.0f} s -->", flush=True)
    print(f"\nbest ceiling over the grid: {100 * best:.1f} % (the target asks for 75 %)")
    two_scores(train, y_train, test, y_test, groups)


def two_scores(
    train: list, y_train: np.ndarray, test: list, y_test: np.ndarray, groups: np.ndarray
) -> None:
    """The ceiling of rules on two scores of the default tokens at once: spam when both
    exceed their cuts (a second opinion must agree), or when either does (one catches what
    the other leaves unsure), each pair of cuts searched over the test ham's scores."""
    ham, hard, spam = y_test == "ham", groups == "hard_ham", y_test == "spam"
    scored = Scorer(train, y_train, test, {})
    scores = {
        label: scored.log_odds(params)
        for label, params in {
            "naive Bayes": {"scoring": "naive_bayes"},
            "Fisher, min_dev=0.1": {"scoring": "fisher", "min_dev": 0.1, "nb_weight": 0.0},
            "Fisher, min_dev=0.375": {"scoring": "fisher", "min_dev": 0.375, "nb_weight": 0.0},
        }.items()
    }
    allowed_ham, allowed_hard = int(0.005 * ham.sum()), int(0.05 * hard.sum())

    def above(values: np.ndarray, k: int) -> float:
        """The cut that leaves at most ``k`` of ``values`` above it (NaN when k < 0: none can)."""
        if k < 0:
            return np.nan
        return float(np.sort(values)[::-1][k]) if k < len(values) else -np.inf

    def ceiling(a: np.ndarray, b: np.ndarray, both: bool) -> float:
        """For each cut on ``a`` (at a ham's score, or none), the lowest cut on ``b`` that
        keeps both ham limits; the most spam filed over them."""
        best = 0.0
        for cut_a in np.append(np.unique(a[ham]), -np.inf if both else np.inf):
            by_a = a > cut_a
            if both:  # filed: by_a and b > cut_b
                limits = [above(b[ham & by_a], allowed_ham), above(b[hard & by_a], allowed_hard)]
            else:  # filed: by_a or b > cut_b
                limits = [
                    above(b[ham & ~by_a], allowed_ham - int((ham & by_a).sum())),
                    above(b[hard & ~by_a], allowed_hard - int((hard & by_a).sum())),
                ]
            if np.isnan(limits).any():
                continue
            by_b = b > max(limits)
            filed = (by_a & by_b) if both else (by_a | by_b)
            best = max(best, float(filed[spam].mean()))
        return best

    print("\n| scores | both must exceed their cuts | either may |")
    print("|---|---|---|")
    labels = list(scores)
    for i, first in enumerate(labels):
        for second in labels[i + 1 :]:
            a, b = scores[first], scores[second]
            print(
                f"| {first} and {second} | {100 * ceiling(a, b, True):.1f} % | "
                f"{100 * ceiling(a, b, False):.1f} % |",
                flush=True,
            )


if __name__ == "__main__":
    main()
