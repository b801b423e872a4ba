"""The command line on a cluster: --workers N and --scheduler ADDRESS write the model file a
single-machine run writes (byte for byte), evaluate's folds run on the cluster, and an
unreachable scheduler or a missing dask are one-line errors."""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from bayeskit.cli.app import app

pytestmark = pytest.mark.xdist_group("dask")


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 600
    lines = ["x,colour,count,label"]
    for _ in range(n):
        label = rng.choice(["a", "b", "c"])
        shift = {"a": 0.0, "b": 1.0, "c": 2.0}[label]
        colour = rng.choice(["red", "green", "blue", ""])
        lines.append(f"{rng.normal(shift):.5f},{colour},{rng.poisson(1 + shift)},{label}")
    path = tmp_path_factory.mktemp("table") / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_scheduler_writes_the_single_machine_model_file(table, tmp_path, cluster_client):
    address = cluster_client.scheduler.address
    single, spread = tmp_path / "single.bk", tmp_path / "spread.bk"
    args = ["train", table, "-t", "label", "--batch-size", 50]
    assert cli(*args, "-o", single).exit_code == 0
    result = cli(*args, "-o", spread, "--scheduler", address)
    assert result.exit_code == 0, result.stderr
    assert single.read_bytes() == spread.read_bytes()
    here = cli("evaluate", table, "-t", "label", "--cv", 4, "--json")
    there = cli("evaluate", table, "-t", "label", "--cv", 4, "--json", "--scheduler", address)
    assert there.exit_code == 0, there.stderr
    metrics, cluster_metrics = json.loads(here.stdout), json.loads(there.stdout)
    for found in (metrics, cluster_metrics):
        found.pop("seconds")
    assert metrics == cluster_metrics


def test_two_local_workers_read_a_folder_and_write_the_same_file(tmp_path):
    rng = np.random.default_rng(1)
    words = {"ham": ["lunch", "meeting", "report", "noon"], "spam": ["cash", "prize", "free"]}
    root = tmp_path / "docs"
    for label, vocabulary in words.items():
        (root / label).mkdir(parents=True)
        for i in range(40):
            text = " ".join(rng.choice([*vocabulary, "the", "a", "today"], size=8))
            (root / label / f"{i}.txt").write_text(text)
    single, spread = tmp_path / "single.bk", tmp_path / "spread.bk"
    assert cli("train", root, "-o", single, "--batch-size", 7).exit_code == 0
    result = cli("train", root, "-o", spread, "--batch-size", 7, "--workers", 2)
    assert result.exit_code == 0, result.stderr
    assert "80 documents; classes: ham 40, spam 40" in result.stdout
    assert single.read_bytes() == spread.read_bytes()


def test_gmm_on_two_local_workers_writes_the_single_machine_file(tmp_path):
    """EM over the batches of a file, one reduction per iteration: on a local cluster the
    same model file, byte for byte, as on one machine."""
    rng = np.random.default_rng(2)
    lines = ["a,b,label"]
    for label, centres in (("x", [(0, 0), (4, 4)]), ("y", [(0, 4), (4, 0)])):
        for cx, cy in centres:
            for a, b in rng.normal((cx, cy), 0.5, size=(60, 2)):
                lines.append(f"{a:.6f},{b:.6f},{label}")
    path = tmp_path / "blobs.csv"
    path.write_text("\n".join([lines[0], *rng.permutation(lines[1:])]) + "\n")
    single, spread = tmp_path / "single.bk", tmp_path / "spread.bk"
    args = ["train", path, "-t", "label", "-m", "gmm", "--batch-size", 70]
    assert cli(*args, "-o", single).exit_code == 0
    result = cli(*args, "-o", spread, "--workers", 2)
    assert result.exit_code == 0, result.stderr
    assert "240 rows × 2 columns; classes: x 120, y 120" in result.stdout
    assert single.read_bytes() == spread.read_bytes()


def test_an_unreachable_scheduler_is_one_line_and_quick(table, tmp_path):
    start = time.perf_counter()
    args = ["train", table, "-t", "label", "-o", tmp_path / "m.bk"]
    result = cli(*args, "--scheduler", "tcp://127.0.0.1:9")
    assert time.perf_counter() - start < 10
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in result.stderr
    assert not (tmp_path / "m.bk").exists()
    result = cli(*args, "--scheduler", "tcp://127.0.0.1:9", "--workers", 2)
    assert result.exit_code == 2
    assert "not both" in result.stderr


def test_without_dask_the_options_say_what_to_install(table, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "dask" or m.startswith(("dask.", "bayeskit.dask"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)
    result = cli("train", table, "-t", "label", "-o", tmp_path / "m.bk", "--workers", 2)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith('pip install "bayeskit[dask]"')
