"""CPU seconds of training and of classifying: ``SpamFilter()`` beside bogofilter.

The same messages on both sides: the SpamAssassin split of ``spam_peers.py`` (train on the
raw files of easy_ham + spam, classify those of easy_ham_2 + hard_ham + spam_2). bogofilter
(Debian's) trains with ``-s -B`` and ``-n -B`` on the files into an empty word list and
classifies them with ``-T -B``; bayeskit reads the same files as bytes and runs
``SpamFilter().fit`` (its calibration included) and ``spam_probability``. CPU is user +
system time of everything that ran (bogofilter's processes; this process and the child that
reads half of a large batch of e-mails), so the load of the shared machine moves it less than
wall time. Rounds alternate the two systems; medians are printed with the ratios the targets
judge (training ≤ 3× bogofilter's CPU, classifying ≤ 1×). Skips cleanly when bogofilter or
the corpus is absent.

    python benchmarks/spam_cpu.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).parent))
from bayeskit.datasets.shared import data_dir
from bayeskit.text import SpamFilter
from spam_peers import TEST, TRAIN, paths

TARGETS = {"train": 3.0, "classify": 1.0}


def cpu() -> float:
    """User + system seconds of this process and its waited-for children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(work: Callable[[], object]) -> float:
    before = cpu()
    work()
    return cpu() - before


def bogofilter_round(train: list[Path], labels: list[str], test: list[Path]) -> dict[str, float]:
    spam = [str(p) for p, y in zip(train, labels, strict=True) if y == "spam"]
    ham = [str(p) for p, y in zip(train, labels, strict=True) if y == "ham"]
    with tempfile.TemporaryDirectory() as home:

        def run(*args: str) -> None:
            subprocess.run(["bogofilter", "-d", home, *args], check=True, capture_output=True)

        learn = timed(lambda: (run("-s", "-B", *spam), run("-n", "-B", *ham)))
        classify = timed(lambda: run("-o", "0.99,0.45", "-T", "-B", *map(str, test)))
    return {"train": learn, "classify": classify}


def bayeskit_round(train: list[Path], labels: list[str], test: list[Path]) -> dict[str, float]:
    fitted: list[SpamFilter] = []
    learn = timed(lambda: fitted.append(SpamFilter().fit([p.read_bytes() for p in train], labels)))
    classify = timed(lambda: fitted[0].spam_probability([p.read_bytes() for p in test]))
    return {"train": learn, "classify": classify}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = data_dir()
    if root is None or not (root / "spamassassin-public-corpus").is_dir():
        print("the SpamAssassin corpus is not in the shared data folder: skipped")
        return
    if shutil.which("bogofilter") is None:
        print("bogofilter is not installed (apt-get install bogofilter): skipped")
        return
    train, test = paths(root, TRAIN), paths(root, TEST)
    labels = ["spam" if p.parent.name.startswith("spam") else "ham" for p in train]
    bayeskit_round(train[:200], labels[:200], test[:50])  # compiled code loaded, files cached
    rounds: dict[str, list[dict[str, float]]] = {"bogofilter": [], "bayeskit": []}
    for _ in range(args.rounds):
        rounds["bogofilter"].append(bogofilter_round(train, labels, test))
        rounds["bayeskit"].append(bayeskit_round(train, labels, test))
    print(f"{len(train)} messages to train on, {len(test)} to classify; {args.rounds} rounds, "
          f"load average {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    print("\n| phase | bogofilter CPU s | bayeskit CPU s | ratio | target | met |")
    print("|---|---:|---:|---:|---:|---|")
    for phase, target in TARGETS.items():
        bogo = median(r[phase] for r in rounds["bogofilter"])
        ours = median(r[phase] for r in rounds["bayeskit"])
        ratio = ours / bogo
        print(
            f"| {phase} | {bogo:.2f} | {ours:.2f} | {ratio:.2f}x | ≤ {target:g}x | "
            f"{'yes' if ratio <= target else 'no'} |"
        )


if __name__ == "__main__":
    main()
