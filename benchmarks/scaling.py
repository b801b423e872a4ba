"""Training beyond one process: Dask clusters against in-memory bayeskit (and dask-ml), and the
command line streaming a large file.

Usage (from the project root, with ``bayeskit[dask]`` installed; dask-ml is optional)::

    python benchmarks/scaling.py                 # all three workloads, ~15 minutes
    python benchmarks/scaling.py --quick         # 10x smaller, a smoke run
    python benchmarks/scaling.py --only dask-gnb-1e7
    python benchmarks/scaling.py > benchmarks/scaling.md
    python benchmarks/scaling.py --where-time-goes 2   # dask-gnb-1e7's tasks, one fit

Every configuration runs in a process of its own (``--run WORKLOAD CONFIG``: a fresh
interpreter, a fresh cluster), so one cannot warm or tax another. A configuration runs its
workload once untimed (workers import bayeskit, load compiled code) and then ``--repeats``
times; the median is reported. Workloads:

``dask-gnb-1e7``
    GaussianNB on 10^7 rows × 20 features, 10 classes, generated in 40 chunks of 250,000 rows
    by the tasks themselves (each chunk's rows and labels from its own seed, in two tasks):
    generating and summarizing are both compute-bound. Configurations: a LocalCluster of 2
    worker processes (1 thread each), of 1, dask-ml's GaussianNB on the same two clusters,
    and in-memory bayeskit (the same chunks generated in the process, then ``fit``; its time
    is generation + fit, and fit alone).
``dask-mnb-20ng``
    TextClassifier (word counts + MultinomialNB) on the 20 Newsgroups train posts repeated 8
    times (90,000 posts, 176 MB), a dask bag of file paths in 8 partitions: the workers read,
    decode and tokenize the files. 2 workers, 1 worker, in memory (read, then ``fit``).
    dask-ml has no multinomial naive Bayes.
``stream-10m``
    ``bayeskit train FILE.csv --target label --text text`` on 10^6 and on 10^7 generated short
    documents (~100 bytes each; 10^7 is about 1 GB): peak RSS of the process
    (``resource.getrusage``), the training time and MB/s, and the ratio of the two times. The
    command's fixed start (its imports and compiled code, ~1–2 s) is taken first on 10^4
    documents in the same process and reported apart, with the wall time including it.

The machine is shared: the load average is printed before and after each configuration.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
WORK = Path(os.environ.get("BAYESKIT_BENCH_DIR", tempfile.gettempdir())) / "bayeskit-bench"

# ---------------------------------------------------------------------------------- gnb
GNB_FEATURES, GNB_CLASSES = 20, 10


def gnb_rows(quick: bool) -> tuple[int, int]:
    """(rows, rows per chunk)."""
    return (10**6, 25_000) if quick else (10**7, 250_000)


def gnb_labels(index: int, rows: int) -> np.ndarray:
    """The labels of chunk ``index`` (its own seed)."""
    return np.random.default_rng(index).integers(0, GNB_CLASSES, size=rows)


def gnb_rows_of(index: int, rows: int) -> np.ndarray:
    """The features of chunk ``index``: normal around class means shared by every chunk. The
    rows and the labels of a chunk are separate tasks, as if read from storage apart (one task
    yielding both would be moved between workers whole)."""
    means = np.random.default_rng(12345).normal(0, 2, size=(GNB_CLASSES, GNB_FEATURES))
    X = np.random.default_rng([index, 1]).standard_normal(size=(rows, GNB_FEATURES))
    X += means[gnb_labels(index, rows)]
    return X


def gnb_block(index: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    return gnb_rows_of(index, rows), gnb_labels(index, rows)


def gnb_collections(quick: bool) -> tuple[Any, Any]:
    import dask.array as da

    import dask

    n, rows = gnb_rows(quick)
    chunks = range(n // rows)
    X = da.concatenate(
        [
            da.from_delayed(dask.delayed(gnb_rows_of)(i, rows), (rows, GNB_FEATURES), np.float64)
            for i in chunks
        ]
    )
    y = da.concatenate(
        [da.from_delayed(dask.delayed(gnb_labels)(i, rows), (rows,), np.int64) for i in chunks]
    )
    return X, y


def run_gnb(config: str, quick: bool, repeats: int) -> dict[str, Any]:
    from bayeskit import GaussianNB

    if config == "bayeskit-memory":
        n, rows = gnb_rows(quick)

        def generate() -> tuple[np.ndarray, np.ndarray]:
            parts = [gnb_block(i, rows) for i in range(n // rows)]
            return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

        return _in_memory(generate, lambda X, y: GaussianNB().fit(X, y), repeats)
    workers = 2 if config.endswith("2w") else 1
    with _cluster(workers):
        X, y = gnb_collections(quick)
        if config.startswith("dask-ml"):
            try:
                from dask_ml.naive_bayes import GaussianNB as DaskMLGaussianNB
            except ImportError as exc:
                return {"skipped": f"dask-ml is not installed ({exc})"}

            def fit() -> Any:
                # dask-ml leaves the parameters lazy: computing them is part of fitting.
                import dask

                model = DaskMLGaussianNB().fit(X, y)
                model.theta_, model.sigma_, model.class_prior_ = dask.compute(
                    model.theta_, model.sigma_, model.class_prior_
                )
                return model
        else:
            from bayeskit.dask import fit as dask_fit

            def fit() -> Any:
                return dask_fit(GaussianNB(), X, y)

        def once() -> tuple[float, Any]:
            start = time.perf_counter()
            model = fit()
            return time.perf_counter() - start, model

        return _repeat(once, repeats)


def gnb_params(model: Any) -> tuple[np.ndarray, np.ndarray]:
    theta = model.theta_
    var = model.var_ if hasattr(model, "var_") else model.sigma_  # dask-ml's older name
    if hasattr(theta, "compute"):
        theta, var = theta.compute(), var.compute()
    return np.asarray(theta), np.asarray(var)


# ---------------------------------------------------------------------------------- mnb
MNB_REPEAT = 8


def newsgroup_files(quick: bool) -> tuple[list[str], list[str]]:
    from bayeskit.datasets.shared import data_dir

    root = data_dir()
    if root is None:
        raise SystemExit("the shared data folder is not found (set BAYESKIT_DATA)")
    base = root / "20newsgroups-bydate" / "20news-bydate-train"
    paths, labels = [], []
    for group in sorted(p for p in base.iterdir() if p.is_dir()):
        for file in sorted(group.iterdir(), key=lambda p: p.name):
            paths.append(str(file))
            labels.append(group.name)
    times = 1 if quick else MNB_REPEAT
    return paths * times, labels * times


def read_post(pair: tuple[str, str]) -> tuple[str, str]:
    path, label = pair
    return Path(path).read_bytes().decode("latin-1"), label


def run_mnb(config: str, quick: bool, repeats: int) -> dict[str, Any]:
    from bayeskit.text import TextClassifier

    paths, labels = newsgroup_files(quick)
    if config == "bayeskit-memory":

        def read() -> tuple[list[str], list[str]]:
            pairs = [read_post(p) for p in zip(paths, labels, strict=True)]
            return [d for d, _ in pairs], [c for _, c in pairs]

        return _in_memory(read, lambda docs, y: TextClassifier().fit(docs, y), repeats)
    if config.startswith("dask-ml"):
        return {"skipped": "dask-ml has no multinomial naive Bayes (only GaussianNB)"}
    import dask.bag as db

    from bayeskit.dask import fit as dask_fit

    with _cluster(2 if config.endswith("2w") else 1):
        pairs = db.from_sequence(list(zip(paths, labels, strict=True)), npartitions=8)
        bag = pairs.map(read_post)

        def once() -> tuple[float, Any]:
            start = time.perf_counter()
            model = dask_fit(TextClassifier(), bag)
            return time.perf_counter() - start, model

        return _repeat(once, repeats)


# ---------------------------------------------------------------------------------- stream
def stream_file(n_docs: int) -> Path:
    """A CSV of ``n_docs`` short generated documents (written once, kept for reruns)."""
    path = WORK / f"stream-{n_docs}.csv"
    if path.exists():
        return path
    WORK.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocabulary = np.array(
        ["".join(rng.choice(letters, size=rng.integers(3, 10))).encode() for _ in range(20_000)],
        dtype=object,
    )
    spam_order = rng.permutation(len(vocabulary))  # spam favours other words
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(b"text,label\n")
        for start in range(0, n_docs, 100_000):
            count = min(100_000, n_docs - start)
            spam = rng.random(count) < 0.3
            lengths = rng.integers(8, 21, size=count)
            ids = (rng.zipf(1.2, size=int(lengths.sum())) - 1) % len(vocabulary)
            owner = np.repeat(spam, lengths)
            ids[owner] = spam_order[ids[owner]]
            words = vocabulary[ids]
            ends = np.cumsum(lengths)
            labels = np.where(spam, b",spam\n", b",ham\n").astype(object)
            docs = np.split(words, ends[:-1])
            f.write(b"".join(b" ".join(d) + lab for d, lab in zip(docs, labels, strict=True)))
    tmp.rename(path)
    return path


#: documents of the warm-up run that takes the command's fixed start before the timed run
WARM_DOCS = 10_000


def run_stream(config: str, quick: bool, repeats: int) -> dict[str, Any]:
    import bayeskit.cli.app  # noqa: F401  (imports are not part of the time)
    from bayeskit.cli import main

    def train(path: Path, out: Path) -> float:
        start = time.perf_counter()
        code = main(["train", str(path), "--target", "label", "--text", "text", "-o", str(out)])
        if code != 0:
            raise SystemExit(f"bayeskit train failed with exit code {code}")
        return time.perf_counter() - start

    n_docs = int(float(config)) // (10 if quick else 1)
    path, warm = stream_file(n_docs), stream_file(WARM_DOCS)
    out = WORK / f"stream-{n_docs}.bk"
    # The fixed start (the train command's own imports: scikit-learn, polars, numba; the
    # compiled scanner loaded from numba's cache) is paid once per process: taken on a small
    # file first, so the timed run is the training itself and its ratio judges linearity.
    start_seconds = train(warm, out)
    cpu = _cpu_seconds()
    seconds = train(path, out)
    cpu = _cpu_seconds() - cpu
    size = path.stat().st_size
    return {
        "seconds": seconds,
        "times": [seconds],
        "start_seconds": start_seconds,
        "wall_seconds": start_seconds + seconds,
        "docs": n_docs,
        "megabytes": size / 1e6,
        "mb_per_s": size / 1e6 / seconds,
        "cpu_seconds": cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
    }


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------------------------- running
def _cluster(workers: int) -> Any:
    import contextlib

    import dask
    from bayeskit.dask import connect

    @contextlib.contextmanager
    def cluster() -> Any:
        with connect(workers=workers) as client, dask.config.set(scheduler=client):
            yield client

    return cluster()


def _in_memory(load: Any, fit: Any, repeats: int) -> dict[str, Any]:
    """Time ``load()`` then ``fit(*loaded)`` in this process; the fit alone is reported too."""
    fit_times: list[float] = []

    def once() -> tuple[float, Any]:
        start = time.perf_counter()
        data = load()
        loaded = time.perf_counter()
        model = fit(*data)
        fit_times.append(time.perf_counter() - loaded)
        return time.perf_counter() - start, model

    result = _repeat(once, repeats)
    result["fit_only"] = median(fit_times[1:] or fit_times)
    return result


def _repeat(once: Any, repeats: int) -> dict[str, Any]:
    warm, model = once()  # untimed: imports and compiled code on the workers
    times = []
    for _ in range(repeats):
        seconds, model = once()
        times.append(seconds)
    _repeat.model = model  # type: ignore[attr-defined]
    return {"seconds": median(times), "times": times, "first": warm}


WORKLOADS: dict[str, tuple[Any, list[str]]] = {
    "dask-gnb-1e7": (
        run_gnb,
        ["bayeskit-memory", "bayeskit-2w", "bayeskit-1w", "dask-ml-2w", "dask-ml-1w"],
    ),
    "dask-mnb-20ng": (run_mnb, ["bayeskit-memory", "bayeskit-2w", "bayeskit-1w", "dask-ml-2w"]),
    "stream-10m": (run_stream, ["1e6", "1e7"]),
}


def child(workload: str, config: str, quick: bool, repeats: int, save: str) -> None:
    """One configuration in this process; its numbers as JSON on stdout, its model's
    parameters in ``save`` (to check the configurations against each other)."""
    run, _ = WORKLOADS[workload]
    result = run(config, quick, repeats)
    model = getattr(_repeat, "model", None)
    if model is not None and workload == "dask-gnb-1e7":
        theta, var = gnb_params(model)
        np.savez(save, theta=theta, var=var)
    elif model is not None and workload == "dask-mnb-20ng":
        np.savez(
            save,
            log_prob=model._fitted()[1].feature_log_prob_,
            terms=np.asarray(model.get_feature_names_out(), dtype=str),
        )
    print(json.dumps(result))


def _load() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def parent(
    only: list[str] | None, quick: bool, repeats: int, configs: list[str] | None = None
) -> None:
    import dask

    print(f"# Training beyond one process{' (quick run)' if quick else ''}\n")
    print(f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"- CPUs: {os.cpu_count()}; {platform.platform()}; Python {platform.python_version()}")
    try:
        import dask_ml

        dask_ml_version = f"dask-ml {dask_ml.__version__}"
    except ImportError:
        dask_ml_version = "dask-ml not installed"
    print(f"- dask {dask.__version__}; {dask_ml_version}; {repeats} timed runs per configuration")
    print("- the machine is shared with other jobs: load average before/after each run shown\n")
    chosen = configs
    for workload, (_, all_configs) in WORKLOADS.items():
        if only and workload not in only:
            continue
        print(f"## {workload}\n")
        print("| configuration | median (s) | runs (s) | load before → after | notes |")
        print("|---|---:|---|---|---|")
        results: dict[str, dict[str, Any]] = {}
        for config in all_configs:
            if chosen and config not in chosen:
                continue
            save = str(WORK / f"{workload}-{config}.npz")
            WORK.mkdir(parents=True, exist_ok=True)
            before = _load()
            print(f"running {workload} {config} ...", file=sys.stderr, flush=True)
            command = [sys.executable, __file__, "--run", workload, config, "--save", save]
            command += ["--repeats", str(repeats)] + (["--quick"] if quick else [])
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            after = _load()
            if done.returncode != 0:
                tail = " ".join(done.stderr.strip().splitlines()[-1:])
                print(f"| {config} | — | — | {before} → {after} | failed: {tail} |")
                continue
            result = json.loads(done.stdout.strip().splitlines()[-1])
            results[config] = result
            if "skipped" in result:
                print(f"| {config} | — | — | {before} → {after} | {result['skipped']} |")
                continue
            runs = ", ".join(f"{t:.2f}" for t in result["times"])
            print(f"| {config} | {result['seconds']:.2f} | {runs} | {before} → {after} | "
                  f"{_notes(workload, config, result, save)} |")  # fmt: skip
        print()
        _ratios(workload, results)


def _notes(workload: str, config: str, result: dict[str, Any], save: str) -> str:
    notes = []
    if "fit_only" in result:
        what = "fit alone (after generating)" if workload == "dask-gnb-1e7" else "fit alone"
        notes.append(f"{what}: {result['fit_only']:.2f} s")
    if workload == "stream-10m":
        notes.append(
            f"training after the start: {result['seconds']:.2f} s; fixed start (imports, "
            f"compiled code; {WARM_DOCS:,} docs) {result['start_seconds']:.2f} s; wall with "
            f"the start {result['wall_seconds']:.2f} s"
        )
        notes.append(
            f"{result['docs']:,} docs, {result['megabytes']:.0f} MB, "
            f"{result['mb_per_s']:.1f} MB/s, CPU {result['cpu_seconds']:.1f} s "
            f"({result['megabytes'] / result['cpu_seconds']:.1f} MB per CPU-second), "
            f"peak RSS {result['peak_rss_mb']:.0f} MB"
        )
    reference = Path(save).with_name(f"{workload}-bayeskit-memory.npz")
    if workload != "stream-10m" and "memory" not in config and Path(save).exists():
        notes.append(_difference(workload, np.load(save), reference))
    return "; ".join(notes)


def _difference(workload: str, mine: Any, reference: Path) -> str:
    if not reference.exists():
        return ""
    ref = np.load(reference)
    if workload == "dask-mnb-20ng":
        same = np.array_equal(mine["terms"], ref["terms"])
        delta = np.abs(mine["log_prob"] - ref["log_prob"]).max() if same else np.inf
        return f"vocabulary {'identical' if same else 'DIFFERS'}; max |Δ log θ| {delta:.1e}"
    rel = max(np.abs(mine[k] - ref[k]).max() / np.abs(ref[k]).max() for k in ("theta", "var"))
    return f"max relative |Δ| of theta_, var_ vs in memory: {rel:.1e}"


def _ratios(workload: str, results: dict[str, dict[str, Any]]) -> None:
    def seconds(config: str) -> float | None:
        found = results.get(config, {})
        return found.get("seconds") if "skipped" not in found else None

    lines = []
    if workload == "stream-10m":
        small, large = seconds("1e6"), seconds("1e7")
        if small and large:
            lines.append(
                f"- training time (after the fixed start) 10^7 / 10^6 documents: "
                f"{large / small:.2f} (linear: 10)"
            )
            walls = results["1e7"]["wall_seconds"] / results["1e6"]["wall_seconds"]
            lines.append(f"- wall time with the start 10^7 / 10^6 documents: {walls:.2f}")
            cpu = large and results["1e7"]["cpu_seconds"] / results["1e6"]["cpu_seconds"]
            lines.append(f"- CPU time 10^7 / 10^6 documents: {cpu:.2f} (linear: 10)")
    else:
        one, two = seconds("bayeskit-1w"), seconds("bayeskit-2w")
        if one and two:
            lines.append(f"- bayeskit 2 workers vs 1 worker: {one / two:.2f}x faster")
        memory = seconds("bayeskit-memory")
        if memory and two:
            lines.append(f"- bayeskit 2 workers vs in memory: {memory / two:.2f}x faster")
        ml = seconds("dask-ml-2w")
        if ml and two:
            lines.append(f"- bayeskit vs dask-ml, 2 workers: {ml / two:.2f}x faster")
        ml_one = seconds("dask-ml-1w")
        if ml and ml_one:
            lines.append(f"- dask-ml 2 workers vs 1 worker: {ml_one / ml:.2f}x faster")
    print("\n".join(lines) + "\n")


def where_time_goes(workers: int, quick: bool) -> None:
    """One bayeskit fit of dask-gnb-1e7 under distributed's task stream: the compute time of
    each kind of task summed, the transfers between workers, and the wall time (their ratio is
    how many tasks ran at once on average)."""
    from distributed import get_task_stream

    from bayeskit import GaussianNB
    from bayeskit.dask import fit

    with _cluster(workers) as client:
        X, y = gnb_collections(quick)
        fit(GaussianNB(), X, y)  # warm-up
        with get_task_stream(client=client) as stream:
            start = time.perf_counter()
            fit(GaussianNB(), X, y)
            wall = time.perf_counter() - start
    spent: dict[str, float] = {}
    moved = [0, 0.0]
    for task in stream.data:
        name = str(task["key"][0] if isinstance(task["key"], tuple) else task["key"])
        for step in task.get("startstops", ()):
            seconds = step["stop"] - step["start"]
            if step["action"] == "compute":
                spent[name.split("-")[0]] = spent.get(name.split("-")[0], 0.0) + seconds
            elif step["action"] == "transfer":
                moved[0] += 1
                moved[1] += seconds
    busy = sum(spent.values())
    print(
        f"{workers} worker(s): wall {wall:.2f} s; task compute {busy:.2f} s in all "
        f"({busy / wall:.2f} tasks at once on average); {moved[0]} transfers, {moved[1]:.2f} s"
    )
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        if seconds >= 0.01:
            print(f"  {name}: {seconds:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="*", choices=list(WORKLOADS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--configs", nargs="*", help="run only these configurations")
    parser.add_argument(
        "--where-time-goes", type=int, metavar="WORKERS", help="task breakdown of dask-gnb-1e7"
    )
    parser.add_argument("--run", nargs=2, metavar=("WORKLOAD", "CONFIG"))
    parser.add_argument("--save", default=os.devnull)
    args = parser.parse_args()
    if args.where_time_goes:
        where_time_goes(args.where_time_goes, args.quick)
    elif args.run:
        child(*args.run, args.quick, args.repeats, args.save)
    else:
        parent(args.only, args.quick, args.repeats, args.configs)


if __name__ == "__main__":
    main()
