"""SpamFilter beside bogofilter on the SpamAssassin split, the figures mail users care about.

Train on easy_ham + spam, test on easy_ham_2 + hard_ham + spam_2 (the raw e-mails), defaults
on both sides, nothing tuned on the test folders. For each system: two-way accuracy, spam
recall (spam filed as spam), ham filed as spam (and hard_ham's share), unsure, and three
measures of the score's ranking alone, whatever the cutoffs (Cormack & Lynam's TREC spam track
measures, 2005): the spam recall at 0.1 % of ham lost (spam strictly above the second-highest
ham of the 1,650); the *ceiling* of the three-way spam recall, the most spam any spam cutoff
on the score can file while it files at most 0.5 % of the ham and 5 % of hard_ham as spam;
and ``1 - ROCA`` (the area above the ROC curve, in %). bogofilter (Debian's 1.2.5) runs with
its documented three-way cutoffs (``-o 0.99,0.45``), trained with ``-s``/``-n`` on the same
files; it is skipped when absent.

    python benchmarks/spam_peers.py                 # bogofilter and SpamFilter(scoring=...)
    python benchmarks/spam_peers.py --sms           # and SMS stratified 10-fold accuracy
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from accuracy_text import load_spamassassin
from bayeskit.datasets.shared import data_dir
from bayeskit.text import SpamFilter

CORPUS = "spamassassin-public-corpus"
TRAIN, TEST = ["easy_ham", "spam"], ["easy_ham_2", "hard_ham", "spam_2"]


def _cut(ham_scores: np.ndarray, share: float) -> float:
    """The score spam must exceed so that at most ``share`` of ``ham_scores`` lie above it
    (ties count against the cut: a ham at the cut is filed as spam with the spam above it)."""
    k = int(np.floor(share * len(ham_scores)))
    return float(np.sort(ham_scores)[::-1][k]) if k < len(ham_scores) else -np.inf


def figures(
    truth: np.ndarray, verdict: np.ndarray, score: np.ndarray, groups: np.ndarray
) -> dict[str, float]:
    """The row of the table: ``verdict`` in spam/ham/unsure, ``score`` higher = spammier."""
    from sklearn.metrics import roc_auc_score

    ham, spam, hard = truth == "ham", truth == "spam", groups == "hard_ham"
    two_way = np.where(verdict == "spam", "spam", "ham")
    ceiling = max(_cut(score[ham], 0.005), _cut(score[hard], 0.05))
    return {
        "accuracy": float((two_way == truth).mean()),
        "spam recall": float((verdict[spam] == "spam").mean()),
        "ham as spam": float((verdict[ham] == "spam").mean()),
        "hard_ham as spam": float((verdict[hard] == "spam").mean()),
        "unsure": float((verdict == "unsure").mean()),
        "recall at 0.1% ham lost": float((score[spam] > _cut(score[ham], 0.001)).mean()),
        "ceiling at 0.5% ham (5% hard)": float((score[spam] > ceiling).mean()),
        "1-ROCA": 1.0 - float(roc_auc_score(spam, score)),
    }


def bogofilter(train: list[Path], y_train: np.ndarray, test: list[Path]) -> tuple[Any, ...]:
    """bogofilter's verdicts and spamicities, trained and run on the same files."""
    with tempfile.TemporaryDirectory() as home:
        spam = [str(p) for p, y in zip(train, y_train, strict=True) if y == "spam"]
        ham = [str(p) for p, y in zip(train, y_train, strict=True) if y == "ham"]
        subprocess.run(["bogofilter", "-d", home, "-s", "-B", *spam], check=True)
        subprocess.run(["bogofilter", "-d", home, "-n", "-B", *ham], check=True)
        start = time.perf_counter()
        out = subprocess.run(
            ["bogofilter", "-d", home, "-o", "0.99,0.45", "-T", "-B", *map(str, test)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        seconds = time.perf_counter() - start
    verdicts, scores = [], []
    for line in out.splitlines():
        _, mark, value = line.rsplit(" ", 2)
        verdicts.append({"S": "spam", "H": "ham", "U": "unsure"}[mark])
        scores.append(float(value))
    return np.asarray(verdicts), np.asarray(scores), seconds


def paths(root: Path, groups: list[str]) -> list[Path]:
    return [p for g in groups for p in sorted((root / CORPUS / g).iterdir())]


SYSTEMS = {
    "SpamFilter()": {},
    'SpamFilter(scoring="fisher")': {"scoring": "fisher"},
    # the blend weight of least held-out log-loss on the training folds (see the guide)
    'SpamFilter(scoring="fisher", nb_weight=1)': {"scoring": "fisher", "nb_weight": 1.0},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sms", action="store_true", help="also SMS 10-fold accuracy")
    args = parser.parse_args()
    root = data_dir()
    train, y_train, _ = load_spamassassin(root, TRAIN)
    test, y_test, groups = load_spamassassin(root, TEST)
    rows: list[tuple[str, dict[str, float]]] = []
    if shutil.which("bogofilter"):
        verdict, score, seconds = bogofilter(paths(root, TRAIN), y_train, paths(root, TEST))
        rows.append(("bogofilter 1.2.5 (-o 0.99,0.45)", figures(y_test, verdict, score, groups)))
        print(f"bogofilter: {seconds:.2f} s for {len(test)} messages", flush=True)
    else:
        print("bogofilter not installed: its row is skipped", flush=True)
    for name, params in SYSTEMS.items():
        start = time.perf_counter()
        f = SpamFilter(**params).fit(train, y_train)
        p = f.spam_probability(test)
        score = f.log_odds(test)
        rows.append((name, figures(y_test, f.verdicts(p), score, groups)))
        print(f"{name}: {time.perf_counter() - start:.1f} s", flush=True)
    keys = list(rows[0][1])
    print("\n| system | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, row in rows:
        cells = [f"{row[k]:.3f}" if k == "accuracy" else f"{100 * row[k]:.2f} %" for k in keys]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.sms:
        sms()


def sms() -> None:
    from sklearn.model_selection import StratifiedKFold

    from bayeskit.datasets import load_sms_spam

    texts, labels = load_sms_spam()
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    for name, params in SYSTEMS.items():
        right = 0
        for train, test in folds.split(texts, labels):
            f = SpamFilter(**params).fit([texts[i] for i in train], labels[train])
            right += int((f.predict([texts[i] for i in test]) == labels[test]).sum())
        print(f"SMS 10-fold accuracy, {name}: {right / len(texts):.4f}", flush=True)


if __name__ == "__main__":
    main()
