"""CPU and wall seconds of reading a batch of e-mails on one process and on two.

analyzer="auto" reads a batch of at least ``PARALLEL_MIN_MAILS`` e-mails on two processes (a
forked child reads every other block), whether it is being fitted or classified. This
measures what the child costs and saves: the reading of the SpamAssassin test messages
(easy_ham_2 + hard_ham + spam_2, the messages ``spam_cpu.py`` classifies) by ``read_auto``
with ``processes=1`` and ``processes=2``, in rounds that alternate which goes first; CPU is
user + system time of this process and the child. The two read the same header tokens and
texts (checked). Medians are printed.

    python benchmarks/read_processes.py [--rounds 6]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).parent))
from bayeskit.datasets.shared import data_dir
from bayeskit.text._auto_read import read_auto
from bayeskit.text._count_matrices import mail_mask
from spam_cpu import cpu
from spam_peers import TEST, paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    root = data_dir()
    if root is None or not (root / "spamassassin-public-corpus").is_dir():
        print("the SpamAssassin corpus is not in the shared data folder: skipped")
        return
    docs = [p.read_bytes() for p in paths(root, TEST)]
    mail = mail_mask(docs)
    first = read_auto(docs, mail, False, "utf-8", processes=1)  # code loaded, caches warm
    seconds: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for r in range(args.rounds):
        for processes in (1, 2) if r % 2 == 0 else (2, 1):
            began, wall = cpu(), time.perf_counter()
            read = read_auto(docs, mail, False, "utf-8", processes=processes)
            seconds[processes].append((cpu() - began, time.perf_counter() - wall))
            assert read.heads == first.heads
            assert read.texts == first.texts
    print(f"{len(docs)} messages, {args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    print("\n| processes | CPU s | wall s |\n|---:|---:|---:|")
    for processes, times in seconds.items():
        print(
            f"| {processes} | {median(t[0] for t in times):.2f} "
            f"| {median(t[1] for t in times):.2f} |"
        )


if __name__ == "__main__":
    main()
