"""CPU time of one learn inside the model service, by step, without HTTP or other clients.

Usage (from the project root)::

    python benchmarks/serve_learn_cpu.py            # 100 learns of SMS messages, one at a time
    python benchmarks/serve_learn_cpu.py --newsgroups --learns 30
                                                    # TextClassifier() on 20 Newsgroups

It trains a SpamFilter on the bundled SMS Spam Collection, saves it, opens it as ``bayeskit
serve`` does (:class:`bayeskit.serve.state.ModelState`, learning on) and learns messages one at
a time as the load test (``serve_load.py``) sends them. It reports the medians of the CPU time
of each step, in the thread that runs it: the model update (``apply_ops``) and the new
snapshot (the scorer of the new model) in the thread that submits the learn (the event loop,
in the server), the journal (write + fsync) in the journal thread; and of the whole learn.
CPU time, unlike the load test's latencies, hardly depends on what else runs on a shared
machine.

``--newsgroups`` serves ``TextClassifier()`` fitted on the 11,314 training posts of 20 Newsgroups
instead (20 classes, about 1.2 million 1-2-grams whose counts are kept as their cells) and
learns test posts under their training labels: a large model, where a learn's cost grows with
the vocabulary (the shared data folder, ``BAYESKIT_DATA``, must hold the posts).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learns", type=int, default=100)
    parser.add_argument("--newsgroups", action="store_true")
    args = parser.parse_args(argv)

    import bayeskit as bk
    from bayeskit.datasets import load_sms_spam
    from bayeskit.serve import state
    from bayeskit.text import SpamFilter, TextClassifier

    spent: dict[str, list[float]] = {}

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            start = time.thread_time()
            try:
                return f(*a, **k)
            finally:
                spent.setdefault(name, []).append(1000 * (time.thread_time() - start))

        return run

    state.apply_ops = timed("model update", state.apply_ops)
    state.ModelState._snapshot = staticmethod(timed("snapshot", state.ModelState._snapshot))  # type: ignore[method-assign]
    state.Journal.append = timed("journal", state.Journal.append)  # type: ignore[method-assign]

    if args.newsgroups:
        from workloads import Skip, newsgroups_texts

        try:
            train, y_train, texts, _ = newsgroups_texts()
        except Skip as why:
            print(f"{why}: nothing to measure")
            return
        model: Any = TextClassifier().fit(train, y_train)
        label_names = sorted({str(label) for label in y_train})
    else:
        texts, labels = load_sms_spam()
        model = SpamFilter().fit(texts, labels)
        label_names = ["spam", "ham"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.bk"
        bk.save(model, path)
        del model
        served = state.ModelState(str(path), learning=True, save_interval=1e9)
        rng = random.Random(0)
        try:
            for i in range(10):  # warm-up, not counted
                doc = f"warm-up {i}: {rng.choice(texts)}"
                served.submit(doc, label_names[0], unlearn=False).result()
            spent.clear()
            for i in range(args.learns):
                doc, label = f"load test 0-{i}: {rng.choice(texts)}", rng.choice(label_names)
                served.submit(doc, label, unlearn=False).result()
        finally:
            served.close()
    steps = ["model update", "snapshot", "journal"]
    whole = [sum(parts) for parts in zip(*(spent[s] for s in steps), strict=True)]
    print(f"CPU per learn, median of {args.learns} (ms)")
    print("| step | ms |\n| --- | ---: |")
    for step in steps:
        print(f"| {step} | {statistics.median(spent[step]):.2f} |")
    print(f"| learn | {statistics.median(whole):.2f} |")


if __name__ == "__main__":
    main()
