"""Stages of the default text models on 20 Newsgroups: reading, the count model's weights, fit
and predict.

Usage (from the project root)::

    python benchmarks/text_stages.py            # medians of 3 rounds
    python benchmarks/text_stages.py --rounds 5

Prints, each a median over the rounds, in one process:

- reading the 11,314 training posts as ``analyzer="auto"`` reads them
  (``bayeskit.text._auto_read.read_auto``), on two processes and on one;
- the count model's weights made from the fitted statistic, for the default
  ``TextClassifier()`` (a complement model) and for ``MultinomialNB(alpha=0.01)``: as the fit
  makes them (``finalize``: one weight a term, one a class and the cells with counts, for a
  model of 2^22 cells or more) and as one full array (``dense``, what ``feature_log_prob_``
  makes on first use);
- ``TextClassifier()`` and ``TextClassifier(model=MultinomialNB(alpha=0.01))``: fit on the
  training posts, predict the 7,532 test posts, accuracy.

Repeated rounds reuse the memory the last one freed, so the full array's figure leaves out the
first touch of fresh memory a fit in a new process pays (``fit_memory.py`` shows that).

The posts come from the shared data folder (``BAYESKIT_DATA``); without them the script says so
and exits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def _median(rounds: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _model_rows(name: str, make: Callable[[], Any], data: tuple[Any, ...], n: int) -> None:
    """The weights, fit, predict and accuracy rows of one text model."""
    import numpy as np

    train, y_train, test, y_test = data
    model = make().fit(train, y_train)
    count_model = model.fitted_parts()[1]
    family = count_model.configured_families()[0]
    stats = count_model.stats_.blocks[0]
    family.finalize(stats)  # kernels loaded, not timed
    made = _median(n, lambda: family.finalize(stats))
    cells = stats.n_classes * stats.n_features
    print(f"| {name}: weights as the fit makes them ({cells:,} cells) | {made:.3f} |")
    print(f"| {name}: weights as one full array | {_median(n, lambda: family.dense(stats)):.3f} |")
    print(f"| {name}: fit | {_median(n, lambda: make().fit(train, y_train)):.3f} |")
    print(f"| {name}: predict | {_median(n, lambda: model.predict(test)):.3f} |")
    print(f"| {name}: accuracy | {float(np.mean(model.predict(test) == y_test)):.4f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    from bayeskit import MultinomialNB
    from bayeskit.text import TextClassifier
    from bayeskit.text._auto_read import read_auto
    from bayeskit.text._count_matrices import mail_mask
    from workloads import Skip, newsgroups_test_labels, newsgroups_texts

    try:
        train, y_train, test, _ = newsgroups_texts()
        y_test = newsgroups_test_labels()
    except Skip as why:
        print(f"{why}: nothing to measure")
        return 0
    n = args.rounds
    mail = mail_mask(train)
    read_auto(train[:2500], mail[:2500], True, "utf-8")  # kernels loaded, not timed
    print("| stage | median s |")
    print("|---|---:|")
    for processes in (2, 1):
        seconds = _median(n, lambda p=processes: read_auto(train, mail, True, "utf-8", processes=p))
        print(f"| reading the training posts, {processes} process(es) | {seconds:.3f} |")
    models = {
        "TextClassifier()": lambda: TextClassifier(),
        "TextClassifier(model=MultinomialNB(alpha=0.01))": lambda: TextClassifier(
            model=MultinomialNB(alpha=0.01)
        ),
    }
    for name, make in models.items():
        _model_rows(name, make, (train, y_train, test, y_test), n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
