"""Reading e-mail: the reader's compiled fast path against Python's ``email`` parser.

Usage (from the project root)::

    python benchmarks/email_reading.py              # 5 interleaved rounds
    python benchmarks/email_reading.py --rounds 3 --skip-20ng

Two rows, each timed side by side in one process, interleaved (A B A B ...) after one untimed
warm-up each, ``gc.collect()`` before every timed call, medians reported (for the first row,
of the process's CPU seconds too, which other jobs on a shared machine inflate less):

1. **Every SpamAssassin message read into its spam-filter tokens** (``read_message`` then
   ``email_tokens``), from bytes already in memory: by the reader as it was before the fast
   path, forced (``email.message_from_bytes`` with the ``compat32`` policy, the reader's walk
   of the parsed tree, :class:`html.parser.HTMLParser` for HTML, and the tokenizer's words
   and URLs found by the regular expressions it used before its compiled kernel), and by the
   fast path (the default). The tokens of every message are checked equal, and
   ``reader_counts()`` tells how many messages the fast path read. Also shown: the same
   parser path with the reader's header-only shortcut (what ``read_message`` did just before
   the fast path).
2. **20 Newsgroups**: ``TextClassifier()`` fit on the 11,314 training posts and predict on the
   7,532 test posts (analyzer="auto": posts are read as e-mail), with the fast path and with it
   turned off, against scikit-learn's ``CountVectorizer`` + ``MultinomialNB`` (defaults).

The data come from the shared data folder (``BAYESKIT_DATA``); a row whose data are absent is
skipped with a note. The machine is shared: the load average is printed; rerun a surprising row.
"""

from __future__ import annotations

import argparse
import email
import gc
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.policy import compat32
from statistics import median
from typing import Any

import numpy as np

from bayeskit.datasets.shared import data_dir, load_20newsgroups
from bayeskit.text import _fasthtml, _mime
from bayeskit.text import email as email_module
from bayeskit.text.email import email_tokens, reader_counts, reset_reader_counts

OFF = "the fast path is turned off"


_WORD = re.compile(r"(?u)\b\w\w+\b")


def regex_words(text: str, max_length: int) -> list[str]:
    """The tokenizer's words as regular expressions found them before the compiled kernel."""
    return [
        word if len(word) <= max_length else f"skip:{word[0]} {len(word) // 10 * 10}"
        for word in _WORD.findall(text.lower())
    ]


def regex_urls(text: str) -> list[str]:
    """The URL search before its faster pattern."""
    if "://" not in text and "www." not in text.lower():
        return []
    urls = []
    for match in _mime._URL_RE.finditer(text):
        url = match.group().rstrip(_mime._TRAILING_PUNCT)
        if len(url) > 7:
            urls.append(url)
    return urls


@contextmanager
def parser_only(header_shortcut: bool = False) -> Iterator[None]:
    """Every message read by Python's ``email`` parser, HTML by ``HTMLParser``, words and
    URLs by the regular expressions the tokenizer used before its compiled kernel."""
    saved = (
        email_module.parse, email_module._parse, _fasthtml.fast_html_to_text, email_module._words,
        email_module.find_urls,
    )  # fmt: skip
    email_module.parse = lambda data: OFF
    if not header_shortcut:
        email_module._parse = lambda data: email.message_from_bytes(data, policy=compat32)
    _fasthtml.fast_html_to_text = lambda *args: None
    email_module._words, email_module.find_urls = regex_words, regex_urls
    try:
        yield
    finally:
        (
            email_module.parse, email_module._parse, _fasthtml.fast_html_to_text,
            email_module._words, email_module.find_urls,
        ) = saved  # fmt: skip


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """What ``run()`` returns, its wall seconds and this process's CPU seconds."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - start, time.process_time() - cpu


def interleave(
    sides: dict[str, Callable[[], Any]],
    rounds: int,
    cpu: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Wall seconds of each side per round, after one untimed warm-up of each (and the CPU
    seconds in ``cpu``, when given: other jobs on a shared machine inflate them less)."""
    for run in sides.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in sides}
    for number in range(rounds):
        for name, run in sides.items():
            _, wall, used = timed(run)
            times[name].append(wall)
            if cpu is not None:
                cpu.setdefault(name, []).append(used)
        print(f"  round {number + 1}: " + ", ".join(f"{n} {t[-1]:.2f} s" for n, t in times.items()),
              file=sys.stderr)  # fmt: skip
    return times


def spamassassin_row(rounds: int) -> None:
    root = data_dir()
    corpus = None if root is None else root / "spamassassin-public-corpus"
    if corpus is None or not corpus.is_dir():
        print("SpamAssassin corpus not found (set BAYESKIT_DATA): row skipped\n")
        return
    paths = [p for p in sorted(corpus.glob("*/*")) if p.is_file() and p.name != "cmds"]
    raws = [p.read_bytes() for p in paths]
    size = sum(map(len, raws)) / 1e6

    def tokens() -> list[list[str]]:
        return [email_tokens(email_module._read_bytes(raw)) for raw in raws]

    def old() -> list[list[str]]:
        with parser_only():
            return tokens()

    def shortcut() -> list[list[str]]:
        with parser_only(header_shortcut=True):
            return tokens()

    reset_reader_counts()
    fast_tokens = tokens()
    counts = reader_counts()
    assert old() == fast_tokens, "the two paths gave different tokens"
    cpu: dict[str, list[float]] = {}
    sides = {"parser": old, "parser+shortcut": shortcut, "fast": tokens}
    times = interleave(sides, rounds, cpu)
    mid = {name: median(t) for name, t in times.items()}
    mid_cpu = {name: median(t) for name, t in cpu.items()}
    print(f"## Reading {len(raws):,} SpamAssassin messages ({size:.1f} MB) into tokens\n")
    print("| path | median s | MB/s | speed-up of the fast path | median CPU s | CPU speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    labels = {
        "parser": "`email.message_from_bytes` + reader + HTMLParser (before)",
        "parser+shortcut": "parser with the header-only shortcut",
        "fast": "fast path (default)",
    }
    for name, label in labels.items():
        ratio, cpu_ratio = mid[name] / mid["fast"], mid_cpu[name] / mid_cpu["fast"]
        print(f"| {label} | {mid[name]:.2f} | {size / mid[name]:.1f} | {ratio:.2f}x | "
              f"{mid_cpu[name]:.2f} | {cpu_ratio:.2f}x |")  # fmt: skip
    print(f"\ntokens equal for all {len(raws):,} messages; reader_counts(): fast "
          f"{counts['fast']:,}, fallback {counts['fallback']:,} {counts['reasons']}; HTML "
          f"parts by the fast reader {counts['html_fast']:,}, by HTMLParser "
          f"{counts['html_parser']:,}\n")  # fmt: skip


def newsgroups_row(rounds: int) -> None:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    from bayeskit.text import TextClassifier

    try:
        train, y_train = load_20newsgroups("train")
        test, y_test = load_20newsgroups("test")
    except FileNotFoundError as exc:
        print(f"20 Newsgroups not found ({exc}): row skipped\n")
        return
    results: dict[str, np.ndarray] = {}

    def fit_predict(make: Callable[[], Any], name: str) -> Callable[[], None]:
        def run() -> None:
            results[name] = make().fit(train, y_train).predict(test)

        return run

    def bayeskit_off() -> None:
        with parser_only(header_shortcut=True):
            fit_predict(TextClassifier, "TextClassifier, fast path off")()

    reset_reader_counts()
    sides = {
        "scikit-learn": fit_predict(lambda: make_pipeline(CountVectorizer(), MultinomialNB()),
                                    "scikit-learn"),
        "TextClassifier, fast path off": bayeskit_off,
        "TextClassifier()": fit_predict(TextClassifier, "TextClassifier()"),
    }  # fmt: skip
    times = interleave(sides, rounds)
    counts = reader_counts()
    base = median(times["scikit-learn"])
    print("## 20 Newsgroups: fit on 11,314 train posts + predict 7,532 test posts\n")
    print("| pipeline | median s | speed-up over scikit-learn | accuracy |")
    print("|---|---:|---:|---:|")
    for name, seconds in times.items():
        accuracy = float(np.mean(results[name] == y_test))
        print(f"| {name} | {median(seconds):.2f} | {base / median(seconds):.2f}x | "
              f"{accuracy:.4f} |")  # fmt: skip
    reasons = {k: v for k, v in counts["reasons"].items() if k != OFF}
    print(f"\nreader_counts() over the TextClassifier() runs (fast path on): fast "
          f"{counts['fast']:,}, fallback {sum(reasons.values()):,} {reasons}\n")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-20ng", action="store_true")
    args = parser.parse_args(argv)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    spamassassin_row(args.rounds)
    if not args.skip_20ng:
        newsgroups_row(args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
