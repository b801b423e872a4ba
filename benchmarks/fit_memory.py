"""Where a text model's fit goes besides computing: CPU in the kernel (page faults) and memory.

Usage (from the project root)::

    python benchmarks/fit_memory.py            # 3 rounds on 20 Newsgroups
    python benchmarks/fit_memory.py --rounds 5

Each round fits scikit-learn's ``CountVectorizer`` + ``MultinomialNB`` and predicts the test
posts, then fits the default ``TextClassifier()`` on the 11,314 training posts, as
``benchmarks/run.py``'s ``text-default-20ng`` row alternates them. For the fit it prints the
wall seconds, this process's user and system CPU seconds, its minor page faults, and the
largest memory traced (``tracemalloc``, which numpy reports its arrays to) with one more fit
traced apart. System time is mostly first touches of fresh memory: on a virtual machine whose
host takes back the memory a guest frees, a fault can cost ~15 µs, and a fit that touches a
gigabyte then spends most of a second in the kernel whatever its own code does.

The 20 Newsgroups posts come from the shared data folder (``BAYESKIT_DATA``); without them the
script says so and exits.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
import tracemalloc

import numpy as np


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    from bayeskit.datasets.shared import load_20newsgroups
    from bayeskit.text import TextClassifier

    try:
        train, y_train = load_20newsgroups("train")
        test, _ = load_20newsgroups("test")
    except FileNotFoundError as exc:
        print(f"20 Newsgroups not found ({exc}): nothing to measure")
        return 0
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    TextClassifier().fit(train[:2000], y_train[:2000])  # kernels loaded, not timed
    print("| round | scikit-learn fit + predict s | TextClassifier() fit s | user s | "
          "system s | minor faults |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|")
    for number in range(1, args.rounds + 1):
        gc.collect()
        start = time.perf_counter()
        make_pipeline(CountVectorizer(), MultinomialNB()).fit(train, y_train).predict(test)
        reference = time.perf_counter() - start
        gc.collect()
        before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        model = TextClassifier().fit(train, y_train)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF)
        del model
        user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
        faults = after.ru_minflt - before.ru_minflt
        print(f"| {number} | {reference:.2f} | {wall:.2f} | {user:.2f} | {system:.2f} "
              f"| {faults:,} |")  # fmt: skip
    gc.collect()
    tracemalloc.start()
    model = TextClassifier().fit(train, y_train)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    block = model.fitted_parts()[1].stats_.blocks[0]  # the count model's statistic
    cells = int(block.cells.nnz) if hasattr(block, "cells") else int(np.count_nonzero(block.total))
    kept_as = f"{cells:,} cells with counts" if hasattr(block, "cells") else "one full array"
    print(f"\nOne more fit, traced: peak {peak / 1e6:,.0f} MB; the fitted model keeps "
          f"{kept / 1e6:,.0f} MB; its class totals ({block.n_classes} x {block.n_features:,}, "
          f"{cells:,} of them not 0) are kept as {kept_as}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
