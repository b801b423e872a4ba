"""CPU time of one learn inside the model service, by step, without HTTP or other clients.

Usage (from the project root)::

    python benchmarks/serve_learn_cpu.py            # 100 learns of SMS messages, one at a time

It trains a SpamFilter on the bundled SMS Spam Collection, saves it, opens it as ``bayeskit
serve`` does (:class:`bayeskit.serve.state.ModelState`, learning on) and learns messages one at
a time as the load test (``serve_load.py``) sends them. It reports the medians of the CPU time
of each step, in the thread that runs it: the model update (``apply_ops``) and the new
snapshot (the scorer of the new model) in the thread that submits the learn (the event loop,
in the server), the journal (write + fsync) in the journal thread; and of the whole learn.
CPU time, unlike the load test's latencies, hardly depends on what else runs on a shared
machine.
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
    args = parser.parse_args(argv)

    import bayeskit as bk
    from bayeskit.datasets import load_sms_spam
    from bayeskit.serve import state
    from bayeskit.text import SpamFilter

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

    texts, labels = load_sms_spam()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sms.bk"
        bk.save(SpamFilter().fit(texts, labels), path)
        served = state.ModelState(str(path), learning=True, save_interval=1e9)
        rng = random.Random(0)
        try:
            for i in range(10):  # warm-up, not counted
                served.submit(f"warm-up {i}: {rng.choice(texts)}", "ham", unlearn=False).result()
            spent.clear()
            for i in range(args.learns):
                doc, label = f"load test 0-{i}: {rng.choice(texts)}", rng.choice(["spam", "ham"])
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
