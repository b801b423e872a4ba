"""Where the compiled scanner spends its time: the phases of the vectorize rows on 20 Newsgroups.

Usage (from the project root)::

    python benchmarks/profile_scan.py                      # the three vectorize rows
    python benchmarks/profile_scan.py vectorize-20ng-bigrams --threads 1 --repeats 5

For each row: scikit-learn's ``CountVectorizer.fit_transform`` and bayeskit's
``TextVectorizer.fit_transform`` (wall-clock medians), and bayeskit's time split into the
phases of :func:`bayeskit.text._scan.count_terms` (``_scan.PHASES``): encoding the texts into
one byte array, scanning (the compiled kernels, one table per thread), merging the threads'
tables, sorting the terms, then rewriting the rows over the sorted terms (with the column totals
the vocabulary statistics take), spelling the terms and making their ``str`` objects (one
overlapped phase when there are two threads; ``fit_transform`` leaves the names to be made
when first read, so its phase is "rows") — and "rest of fit", what ``fit_transform`` does
after counting (vocabulary statistics and selection). Then the time ``terms_`` takes when first
read after the fit (making the names), and fit and names together against scikit-learn's fit
(which makes its ``vocabulary_`` of ``str`` terms while fitting). ``--threads 1``
runs the scanner on one thread; ``--cpu`` reports CPU time of the process (all threads)
instead of wall-clock time, which a busy machine inflates much less. The load average is
printed with each row. Garbage is collected before each timed fit and each side's previous
matrix kept meanwhile, as ``run.py`` does: without that, freeing the previous scikit-learn
vocabulary (a million strings for 1-2-grams) at odd moments doubled the 1-2-gram row's time.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time

from sklearn.feature_extraction.text import CountVectorizer

from bayeskit.text import TextVectorizer, _scan
from workloads import newsgroups_texts

CLOCK = time.perf_counter
ROWS = {
    "vectorize-20ng": {},
    "vectorize-20ng-bigrams": {"ngram_range": (1, 2)},
    "vectorize-20ng-char-wb": {"analyzer": "char_wb", "ngram_range": (2, 4)},
}


def profile(name: str, repeats: int) -> None:
    texts, _, _, mb = newsgroups_texts()
    settings = ROWS[name]
    sk_times, bk_times, name_times = [], [], []
    phases: list[dict[str, float]] = []
    TextVectorizer(**settings).fit_transform(texts)  # compiled kernels loaded
    kept: list[object] = [None, None]
    for _ in range(repeats):
        # As run.py times them: garbage collected first, each side's previous vectorizer and
        # matrix kept until its next ones are made (freeing them is not timed).
        gc.collect()
        start = CLOCK()
        sk_vectorizer = CountVectorizer(**settings)
        sk_result = sk_vectorizer, sk_vectorizer.fit_transform(texts)
        sk_times.append(CLOCK() - start)
        kept[0] = sk_result
        gc.collect()
        _scan.PHASES = {}
        start = CLOCK()
        bk_vectorizer = TextVectorizer(**settings)
        bk_result = bk_vectorizer, bk_vectorizer.fit_transform(texts)
        bk_times.append(CLOCK() - start)
        kept[1] = bk_result
        _scan.PHASES["rest of fit"] = bk_times[-1] - sum(_scan.PHASES.values())
        phases.append(_scan.PHASES)
        _scan.PHASES = None
        start = CLOCK()
        bk_vectorizer.terms_  # noqa: B018 (the names made when first read)
        name_times.append(CLOCK() - start)
    sk, bk = statistics.median(sk_times), statistics.median(bk_times)
    print(f"\n{name}: {mb:.1f} MB, load {os.getloadavg()[0]:.2f}")
    kind = "CPU" if CLOCK is time.process_time else "wall"
    print(f"  ({kind} time) scikit-learn {sk:.3f} s   bayeskit {bk:.3f} s   {sk / bk:.2f}x")
    for phase in phases[0]:
        print(f"  {phase:<16} {statistics.median(p[phase] for p in phases):.4f} s")
    names = statistics.median(name_times)
    with_names = statistics.median(b + n for b, n in zip(bk_times, name_times, strict=True))
    print(
        f"  names when first read {names:.4f} s; fit and names {with_names:.4f} s, "
        f"{sk / with_names:.2f}x scikit-learn's fit"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", nargs="*", help=f"rows to profile (default: all of {list(ROWS)})")
    parser.add_argument("--threads", type=int, default=None, help="scanner threads")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--cpu", action="store_true", help="CPU time of the process instead of wall-clock time"
    )
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = _scan.PHASE_CLOCK = time.process_time
    if args.threads is not None:
        threads = args.threads
        _scan._usable_cpus = lambda: threads  # type: ignore[assignment]
        _scan.PARALLEL_MIN_BYTES = 0
    unknown = set(args.rows) - set(ROWS)
    if unknown:
        parser.error(f"unknown rows {sorted(unknown)}; choose among {list(ROWS)}")
    for name in args.rows or list(ROWS):
        profile(name, args.repeats)


if __name__ == "__main__":
    main()
