"""Time bayeskit against scikit-learn, side by side in one process.

Usage (from the project root)::

    python benchmarks/run.py             # full run, a few minutes at most
    python benchmarks/run.py --quick     # smoke run: fewer repeats, smaller synthetic data
    python benchmarks/run.py --only cat-wide
    python benchmarks/run.py --only lda-fit-predict qda-fit-predict   # several

The two libraries run interleaved (A B A B ...) after one untimed warm-up each; fit and predict
are timed with ``time.perf_counter`` and medians are reported. Progress goes to stderr, the
Markdown report to stdout. Start-up and the main job (``python -m bayeskit``) are fresh
processes: the ``quickstart`` and ``startup`` rows time them warm through
``benchmarks/startup.py`` (which also measures the cold first runs; benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import sys
import time
from statistics import median
from typing import Any

import numpy as np
import scipy
import sklearn
from threadpoolctl import threadpool_info

import bayeskit
from startup import process_rows
from workloads import WORKLOADS as TABLE_AND_TEXT_WORKLOADS
from workloads import Side, Skip, Workload
from workloads_da import WORKLOADS as DA_WORKLOADS
from workloads_em import WORKLOADS as EM_WORKLOADS
from workloads_kde import WORKLOADS as KDE_WORKLOADS

WORKLOADS = TABLE_AND_TEXT_WORKLOADS + KDE_WORKLOADS + DA_WORKLOADS + EM_WORKLOADS
#: Rows timed as fresh processes (benchmarks/startup.py), not side by side.
PROCESS_ROWS = ("quickstart", "startup")


def run_once(side: Side) -> tuple[Any, np.ndarray, float, float]:
    """(fitted model, predictions, fit seconds, predict seconds)."""
    gc.collect()
    start = time.perf_counter()
    model = side.make().fit(side.X_fit, side.y)
    fitted = time.perf_counter()
    pred = model.predict(side.X_pred)
    done = time.perf_counter()
    return model, pred, fitted - start, done - fitted


def check(work: Workload, sides: tuple[Side, Side], results: list[tuple]) -> str:
    """Do the last runs' predictions agree, and how far apart are their probabilities?
    (Or the workload's own comparison of the two fitted models.)"""
    (sk_model, sk_pred, *_), (bk_model, bk_pred, *_) = results
    if work.compare is not None:
        return work.compare(sk_model, bk_model)
    same = int(np.sum(sk_pred == bk_pred))
    delta = np.abs(
        sk_model.predict_proba(sides[0].X_pred) - bk_model.predict_proba(sides[1].X_pred)
    ).max()
    verdict = "agree" if same == len(sk_pred) else "DISAGREE"
    return f"predictions {verdict} ({same}/{len(sk_pred)}); max \\|Δproba\\| {delta:.1e}"


def measure(work: Workload, quick: bool, repeats: int, min_seconds: float) -> dict[str, Any]:
    sides = work.build(quick)
    last = [run_once(side) for side in sides]  # warm-up, untimed
    times: list[list[tuple[float, float]]] = [[], []]
    began = time.perf_counter()
    rounds = 0
    while rounds < repeats or (time.perf_counter() - began < min_seconds and rounds < 10 * repeats):
        for i, side in enumerate(sides):
            last[i] = run_once(side)
            times[i].append(last[i][2:])
        rounds += 1
    row: dict[str, Any] = {
        "work": work,
        "rounds": rounds,
        "check": check(work, sides, last),
        "megabytes": sides[1].megabytes,
    }
    for lib, samples in zip(("sk", "bk"), times, strict=True):
        row[f"{lib}_fit"] = median(f for f, _ in samples)
        row[f"{lib}_predict"] = median(p for _, p in samples)
        row[f"{lib}_total"] = median(f + p for f, p in samples)
    return row


def machine_facts() -> list[str]:
    blas = sorted({f"{p['internal_api']} ({p['num_threads']} threads)" for p in threadpool_info()})
    return [
        f"- date: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        f"- CPUs: {os.cpu_count()} (usable: {len(os.sched_getaffinity(0))}); "
        f"load average at start: {', '.join(f'{v:.2f}' for v in os.getloadavg())}",
        f"- {platform.platform()}; Python {platform.python_version()}",
        f"- numpy {np.__version__}, scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
        f"bayeskit {bayeskit.__version__}; thread pools: {', '.join(blas) or 'none'}",
    ]


def speedup(row: dict[str, Any]) -> float:
    """scikit-learn time / bayeskit time, of the workload's phase."""
    phase = row["work"].phase
    return float(row[f"sk_{phase}"] / row[f"bk_{phase}"])


def throughput(row: dict[str, Any], lib: str) -> float:
    """MB of X_fit per second of fitting (text workloads)."""
    return float(row["megabytes"] / row[f"{lib}_fit"])


def met(row: dict[str, Any]) -> bool:
    work = row["work"]
    fast_enough = not work.min_mb_per_s or throughput(row, "bk") >= work.min_mb_per_s
    return speedup(row) >= work.target and fast_enough


def tables(rows: list[dict[str, Any]]) -> list[str]:
    out = [
        "| workload | timed | scikit-learn median (s) | bayeskit median (s) "
        "| speed-up (sklearn/bayeskit) | check |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        phase = r["work"].phase
        timed = "fit + predict" if phase == "total" else phase
        out.append(
            f"| {r['work'].name} | {timed} | {r[f'sk_{phase}']:.4f} | {r[f'bk_{phase}']:.4f} "
            f"| {speedup(r):.2f}x | {r['check']} |"
        )
    out += [
        "",
        "Phases (medians, s), repeats and targets:",
        "",
        "| workload | sklearn fit | bayeskit fit | sklearn predict | bayeskit predict | repeats "
        "| target | met |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        work = r["work"]
        target = f">= {work.target:g}x" + (
            f", >= {work.min_mb_per_s:g} MB/s" if work.min_mb_per_s else ""
        )
        out.append(
            f"| {work.name} | {r['sk_fit']:.4f} | {r['bk_fit']:.4f} | {r['sk_predict']:.4f} "
            f"| {r['bk_predict']:.4f} | {r['rounds']} | {target} | "
            f"{'yes' if met(r) else '**no**'} |"
        )
    text_rows = [r for r in rows if r["megabytes"]]
    if text_rows:
        out += [
            "",
            "Throughput of fitting (MB of training text per second, medians):",
            "",
            "| workload | text (MB) | scikit-learn (MB/s) | bayeskit (MB/s) |",
            "|---|---:|---:|---:|",
        ]
        for r in text_rows:
            out.append(
                f"| {r['work'].name} | {r['megabytes']:.2f} | {throughput(r, 'sk'):.1f} "
                f"| {throughput(r, 'bk'):.1f} |"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller data")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=[w.name for w in WORKLOADS] + list(PROCESS_ROWS),
        help="run these workloads",
    )
    args = parser.parse_args(argv)
    repeats, min_seconds = (3, 0.0) if args.quick else (9, 3.0)
    mode = "quick" if args.quick else "full"

    print(f"# bayeskit vs scikit-learn ({mode} run)\n")
    print("\n".join(machine_facts()) + "\n", flush=True)
    rows, notes, began = [], [], time.perf_counter()
    for work in WORKLOADS:
        if args.only and work.name not in args.only:
            continue
        print(f"running {work.name} ...", file=sys.stderr, flush=True)
        try:
            rows.append(measure(work, args.quick, repeats, min_seconds))
        except Skip as why:
            notes.append(f"- skipped {work.name}: {why}")
    processes = [n for n in PROCESS_ROWS if not args.only or n in args.only]
    if rows or not processes:
        print("\n".join(tables(rows)) if rows else "No workload ran.")
    if processes:
        print(f"\nFresh processes ({', '.join(processes)}; warm, medians, wall and CPU):\n")
        print("\n".join(process_rows(processes, rounds=3 if args.quick else 5)))
    if notes:
        print("\n" + "\n".join(notes))
    print(f"\nWall time of the whole run: {time.perf_counter() - began:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
