"""A cluster that fails under a fit: a worker killed mid-fit is replaced and the model is the
in-memory one; a partition that kills every worker running it, a cluster with no worker left
and a scheduler that goes away end the fit with a ClusterError naming the partition (the
command line: the batch, and no model file), never a hang, and the estimator is left as it
was.

These tests kill worker processes, so they run on clusters of their own: a module's
LocalCluster (two processes of one thread, topped up to two workers before each test) and,
for a scheduler that goes away, a cluster in a process of its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask.array as da
import distributed
import numpy as np
import pytest
from distributed.diagnostics.plugin import WorkerPlugin
from typer.testing import CliRunner

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.cli.app import app
from bayeskit.dask import ClusterError

pytestmark = pytest.mark.xdist_group("dask")

ROOT = Path(__file__).resolve().parents[2]
ROWS, PARTS = 40, 24


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.CRITICAL,  # the deaths below are on purpose
    ) as cluster:
        yield cluster


@pytest.fixture
def client(cluster):
    """A client of the module's cluster, as dask's scheduler, with two workers (a worker a
    test killed is replaced first: a nanny does not always bring it back)."""
    with distributed.Client(cluster, set_as_default=False) as client:
        missing = 2 - len(cluster.scheduler.workers)
        if missing > 0:  # new workers beside the dead ones' nannies (which may not recover)
            cluster.scale(len(cluster.worker_spec) + missing)
        client.wait_for_workers(2, timeout=120)
        with dask.config.set(scheduler=client):
            yield client


def _rows(i: int) -> np.ndarray:
    return np.random.default_rng(i).normal(i % 3, 1.0, size=(ROWS, 3))


def _slow_rows(i: int, started: str) -> np.ndarray:
    """Partition ``i``'s rows after a pause; partition 3 says it has started (a file)."""
    if i == 3:
        Path(started).touch()
    time.sleep(0.05)
    return _rows(i)


def _deadly_rows(i: int) -> np.ndarray:
    """Partition 7 ends the worker process that reads it (as an out-of-memory kill does)."""
    if i == 7:
        os._exit(1)
    return _rows(i)


def _collection(read, *args) -> da.Array:
    blocks = [
        da.from_delayed(dask.delayed(read, pure=False)(i, *args), (ROWS, 3), np.float64)
        for i in range(PARTS)
    ]
    return da.concatenate(blocks)


def _data():
    X = np.vstack([_rows(i) for i in range(PARTS)])
    y = np.arange(len(X)) % 3  # every partition holds every class
    return X, y


def test_a_worker_killed_mid_fit_is_replaced_and_the_model_is_the_in_memory_one(client, tmp_path):
    X, y = _data()
    started = tmp_path / "started"
    victim = sorted(client.scheduler_info()["workers"])[0]

    def kill_once_started():
        while not started.exists():
            time.sleep(0.01)
        with contextlib.suppress(Exception):  # the worker dies before it answers
            client.run(os._exit, 1, workers=[victim])

    killer = threading.Thread(target=kill_once_started)
    killer.start()
    model = bkd.fit(bk.GaussianNB(), _collection(_slow_rows, str(started)), y)
    killer.join()
    assert victim not in client.scheduler_info()["workers"]  # it did die
    whole = bk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.theta_, whole.theta_, rtol=1e-12)


def test_a_partition_that_kills_its_workers_is_a_cluster_error_and_the_model_kept(
    client, cluster, monkeypatch
):
    # give up at the first death (the tasks that were on the worker with partition 7 die
    # with it: any of them may be the one named — a partition, the task holding the
    # model's state, named by its key, or one adding partitions' summaries)
    monkeypatch.setattr(cluster.scheduler, "allowed_failures", 0)
    X, y = _data()
    model = bk.GaussianNB().fit(X[:100], y[:100])
    before = model.stats_
    ran = (
        r"^every Dask worker that ran (partition \d+ of X|the task 'bayeskit-state-\w+'"
        r"|the task adding up the partitions' summaries)"
    )
    with pytest.raises(ClusterError, match=ran) as e:
        bkd.fit(model, _collection(_deadly_rows), y)
    assert "died while running it (1 worker, the last at tcp://" in str(e.value)
    assert str(e.value).endswith("; the estimator is as it was")
    assert isinstance(e.value, ConnectionError)
    assert model.stats_ is before
    with pytest.raises(ClusterError, match=ran):
        bkd.partial_fit(model, _collection(_deadly_rows), y)
    assert model.stats_ is before


def test_the_task_a_cluster_lost_is_named_by_its_partition():
    """The key dask reports (a loader's, deep in X's graph; a partition's summary) is named
    as the partition of X it computes."""
    from distributed.scheduler import KilledWorker, NoWorkerError

    from bayeskit.dask._cluster import cluster_failure
    from bayeskit.dask._partitions import split

    _, y = _data()
    parts = split(_collection(_deadly_rows), da.from_array(y, chunks=ROWS * 2))
    graph = dict(parts.X[7].__dask_graph__())
    loader = next(k for k in graph if str(k).startswith("_deadly_rows") and _index(graph[k]) == 7)
    worker = type("Worker", (), {"address": "tcp://10.0.0.1:4000"})()
    failure = cluster_failure(KilledWorker(loader, worker, 3), parts.where, "then")
    assert str(failure) == (
        "every Dask worker that ran partition 7 of X died while running it (4 workers, the "
        "last at tcp://10.0.0.1:4000): a worker process ends when it runs out of memory or "
        "crashes (its log says which); then"
    )
    y_piece = parts.y[3].key  # y's partition, re-split like X
    failure = cluster_failure(NoWorkerError(y_piece, 60.0), parts.where, "then")
    assert str(failure).startswith(
        "no Dask worker was left to run partition 3 of X (it waited 60 s)"
    )
    assert cluster_failure(ValueError("a loader's own error"), parts.where, "then") is None


def _index(task) -> int | None:
    """The first argument of a dask task (the partition a loader reads), if a plain int."""
    args = getattr(task, "args", ())
    first = args[0] if args else None
    value = getattr(first, "value", first)
    return value if isinstance(value, int) else None


def test_a_cluster_with_no_worker_left_fails_the_fit_instead_of_waiting(
    client, cluster, monkeypatch
):
    # what a cluster started by bayeskit.dask.connect (the command line's --workers) sets
    monkeypatch.setattr(cluster.scheduler, "no_workers_timeout", 1.0)
    cluster.scale(0)  # every worker leaves, and none comes back
    deadline = time.monotonic() + 60
    while cluster.scheduler.workers and time.monotonic() < deadline:
        time.sleep(0.05)
    X, y = _data()
    with pytest.raises(ClusterError, match=r"^no Dask worker was left to run (partition \d+|the)"):
        bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=ROWS), y)


def test_a_local_cluster_of_connect_gives_up_when_no_worker_is_left():
    from bayeskit.dask._cluster import NO_WORKERS_SECONDS

    with bkd.connect(workers=1) as client:
        timeout = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.no_workers_timeout)
    assert timeout == NO_WORKERS_SECONDS


def test_a_fit_inside_the_clients_as_current_runs_on_the_cluster():
    """connect's documented use: the client is no default, as_current sends a fit to it."""
    X = da.from_array(np.random.default_rng(0).normal(size=(80, 3)), chunks=20)
    y = da.from_array(np.repeat([0, 1], 40), chunks=20)

    def tasks(client):
        return client.run_on_scheduler(lambda dask_scheduler: set(dask_scheduler.task_prefixes))

    with bkd.connect(workers=1) as client:
        bkd.fit(bk.GaussianNB(), X, y)
        assert "summarize_partition" not in tasks(client)  # (dask's local threads ran it)
        with client.as_current():
            model = bkd.fit(bk.GaussianNB(), X, y)
        assert "summarize_partition" in tasks(client)
    expected = bk.GaussianNB().fit(X.compute(), y.compute())
    np.testing.assert_allclose(model.theta_, expected.theta_, rtol=1e-12)


SCHEDULER = """
import logging, time, distributed
cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
    host="127.0.0.1", dashboard_address=":0", silence_logs=logging.CRITICAL)
print(cluster.scheduler_address, flush=True)
time.sleep(300)
"""


@contextlib.contextmanager
def scheduler_in_a_process():
    """The address of a one-worker cluster running in a new process group (which a task
    can end: the scheduler goes away mid-fit)."""
    paths = [str(ROOT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    process = subprocess.Popen(
        [sys.executable, "-c", SCHEDULER],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _end_the_cluster(i: int) -> np.ndarray:
    """Partition 3 ends the cluster's process group: scheduler, nanny and worker."""
    if i == 3:
        os.killpg(os.getpgid(0), signal.SIGKILL)
    return _rows(i)


def test_a_scheduler_that_goes_away_mid_fit_is_a_cluster_error_and_the_model_kept():
    X, y = _data()
    model = bk.GaussianNB().fit(X, y)
    before = model.stats_
    with (
        scheduler_in_a_process() as address,
        distributed.Client(address, set_as_default=False, timeout=10) as client,
        dask.config.set(scheduler=client),
        pytest.raises(ClusterError, match=r"^the connection to the Dask scheduler was lost"),
    ):
        bkd.fit(model, _collection(_end_the_cluster), y)
    assert model.stats_ is before


class EndWhenSummarizing(WorkerPlugin):
    """Ends the worker (``group``: its whole process group) when it starts summarizing a
    batch of the command line."""

    name = "bayeskit-review-end"

    def __init__(self, group: bool = False):
        self.group = group

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("_summarize_on_worker"):
            if self.group:
                os.killpg(os.getpgid(0), signal.SIGKILL)
            os._exit(1)


def _table(path: Path) -> Path:
    rng = np.random.default_rng(0)
    lines = ["x,count,label"] + [
        f"{rng.normal():.4f},{rng.poisson(2)},{rng.choice(['a', 'b'])}" for _ in range(200)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _train(data: Path, out: Path, address: str):
    args = ["train", data, "-t", "label", "--batch-size", 50, "-o", out, "--scheduler", address]
    return CliRunner().invoke(app, [str(a) for a in args])


def _unplug(client, name: str) -> None:
    """Unregister a worker plugin while the workers it ended are restarting: the scheduler
    drops it first, then tells the workers, one of which may close its connection mid-way
    (CommClosedError, an OSError); the new workers get the scheduler's list, without it."""
    try:
        client.unregister_worker_plugin(name)
    except OSError:
        # dropped by the scheduler already; off each worker that may still hold it. A worker
        # the scheduler removed meanwhile ("Address removed") is dead and holds nothing.
        client.run(_drop_plugin, name, on_error="ignore")


def _drop_plugin(name: str, dask_worker=None) -> None:
    dask_worker.plugins.pop(name, None)


def test_the_command_line_names_the_batch_that_killed_its_workers_and_writes_nothing(
    client, cluster, monkeypatch, tmp_path
):
    monkeypatch.setattr(cluster.scheduler, "allowed_failures", 0)
    client.register_plugin(EndWhenSummarizing())
    try:
        out = tmp_path / "m.bk"
        result = _train(_table(tmp_path / "t.csv"), out, cluster.scheduler_address)
    finally:
        _unplug(client, EndWhenSummarizing.name)
    assert result.exit_code == 2, result.output
    *progress, line = result.stderr.strip().splitlines()  # (a progress line every 10 s)
    assert all(p.startswith("training: ") for p in progress)
    assert line.startswith("bayeskit: error: every Dask worker that ran batch 1 of DATA died")
    assert line.endswith("nothing was written")
    assert not out.exists()


@pytest.mark.slow  # a cluster of its own, started in a process: the library's test is enough
def test_the_command_line_says_the_scheduler_went_away_and_writes_nothing(tmp_path):
    out = tmp_path / "m.bk"
    with scheduler_in_a_process() as address:
        with distributed.Client(address, set_as_default=False, timeout=10) as plugins:
            plugins.register_plugin(EndWhenSummarizing(group=True))
        result = _train(_table(tmp_path / "t.csv"), out, address)
    assert result.exit_code == 2, result.output
    *progress, line = result.stderr.strip().splitlines()
    assert all(p.startswith("training: ") for p in progress)
    assert line.startswith("bayeskit: error: the connection to the Dask scheduler was lost")
    assert not out.exists()
