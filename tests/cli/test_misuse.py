"""The command line misused: generated bad option values for every command, numbers that are
not numbers, files that are not what an option needs, options checked before DATA is read,
output to a reader that went away. Each ends with exit code 2 and one line saying what to fix
(or works), never with "internal error" or a traceback."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import SaveError

BAD_VALUES = ["nan", "inf", "-inf", "NaN", "-1", "0", "1e400", "abc", "", "1" + "0" * 30,
              "-0", "0x10", "1e-400", "\u00e9", "--", "2.5", " 3"]  # fmt: skip
OPTIONS = {
    "train": ["--alpha", "--batch-size", "--max-terms", "--workers", "--model", "--integers",
              "--format", "--separator", "--target", "--merge", "--missing", "--columns",
              "--text", "--id", "--keep", "--unlabeled"],
    "evaluate": ["--alpha", "--folds", "--seed", "--model", "--integers", "--test", "--cv"],
    "predict": ["--to", "--format", "--separator", "--text", "--id", "--ignore", "-o"],
    "inspect": ["--top"],
    "explain": ["--top"],
    "report": ["--alpha", "--folds", "--seed", "--model", "--integers"],
    "serve": ["--port", "--workers", "--timeout", "--save-interval", "--max-body",
              "--max-in-flight", "--max-header", "--token-file"],
    "merge": ["-o"],
}  # fmt: skip
CASES = [(c, o, v) for c, options in OPTIONS.items() for o in options for v in BAD_VALUES]


@pytest.fixture(scope="module")
def iris(tmp_path_factory) -> tuple[Path, Path]:
    from sklearn.datasets import load_iris

    folder = tmp_path_factory.mktemp("iris")
    data = folder / "iris.csv"
    pl.from_pandas(load_iris(as_frame=True).frame).write_csv(data)
    model = folder / "iris.bk"
    bk.save(bk.GaussianNB().fit(pl.read_csv(data).drop("target"), pl.read_csv(data)["target"]),
            model)  # fmt: skip
    return data, model


def _base(command: str, data: Path, model: Path, out: Path) -> list[str]:
    return {
        "train": ["train", data, "-t", "target", "-o", out / "m.bk", "--force"],
        "evaluate": ["evaluate", data, "-t", "target"],
        "predict": ["predict", model, data, "--ignore", "target"],
        "inspect": ["inspect", model],
        "explain": ["explain", model, "sepal length (cm)=5"],
        "report": ["report", data, "-t", "target", "-o", out / "r.html", "--force"],
        # a model file that is not there: a setting that passes its checks never starts one
        "serve": ["serve", out / "no-model.bk"],
        "merge": ["merge", model, model, "-o", out / "merged.bk", "--force"],
    }[command]


def _clean(result, args) -> None:
    err = result.stderr
    assert result.exit_code in (0, 2), (args, result.exit_code, err)
    assert "internal error" not in err, (args, err)
    assert "Traceback" not in err, (args, err)
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), (args, repr(result.exception))
    if result.exit_code:
        lines = [line for line in err.strip().splitlines() if not line.startswith("note: ")]
        assert len(lines) == 1, (args, err)
        assert lines[0].startswith("bayeskit"), (args, err)
        assert " error: " in lines[0], (args, err)


def _run_cases(cli, iris, tmp_path, cases) -> None:
    data, model = iris
    for command, option, value in cases:
        args = [*_base(command, data, model, tmp_path), option, value]
        _clean(cli(*args), args)


def test_generated_misuses_end_cleanly(cli, iris, tmp_path, monkeypatch):
    """60 of the commands × options × bad values, drawn with a fixed seed (in a folder of its
    own: a bad value of ``-o`` is a file name)."""
    monkeypatch.chdir(tmp_path)
    _run_cases(cli, iris, tmp_path, random.Random(141).sample(CASES, 60))


@pytest.mark.slow
def test_every_misuse_ends_cleanly(cli, iris, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_cases(cli, iris, tmp_path, CASES)


# ------------------------------------------------------------------ numbers
@pytest.mark.parametrize("command", ["serve", "train", "evaluate", "report"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "Infinity", "1e999"])
def test_no_float_option_takes_a_non_finite_number(cli, iris, tmp_path, command, value):
    data, model = iris
    option = {"serve": "--timeout", "train": "--alpha", "evaluate": "--alpha",
              "report": "--alpha"}[command]  # fmt: skip
    base = _base(command, data, model, tmp_path)
    if command == "serve":
        base = ["serve", model, "--port", "0"]  # a real model: only the number stops it
    result = cli(*base, option, value)
    assert result.exit_code == 2
    number = float(value)  # what the command was given, as Python reads it
    assert f"Invalid value for {option}: {number!r} is not a finite number" in result.stderr
    assert "press Ctrl+C" not in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--save-interval", "inf"], "Invalid value for --save-interval"),
        (["--save-interval", "0"], "must be more than 0 and at most 604800 seconds"),
        (["--save-interval", "1e7"], "at most 604800 seconds, got 1e+07"),
        (["--timeout", "7200"], "at most 3600 seconds"),
        (["--timeout", "-1"], "must be more than 0"),
        (["--workers", "100000"], "at most 256 worker processes"),
        (["--max-header", "100"], "at least 1024 bytes"),
    ],
)
def test_serve_settings_are_checked_before_it_starts(cli, iris, args, says):
    result = cli("serve", iris[1], "--port", "0", *args)
    assert result.exit_code == 2
    assert says in result.stderr
    assert "press Ctrl+C" not in result.stderr + result.stdout  # no banner: nothing started


def test_a_binary_token_file_is_named(cli, iris, tmp_path):
    for content, says in (
        (os.urandom(64) + b"\xff\xfe", "is not UTF-8 text"),
        (b"\x00\x01\x02\x03\x04\x05\x06\x07\x08\n", "printable ones"),
        (b"short\n", "at least 8 characters"),
    ):
        token = tmp_path / "token"
        token.write_bytes(content)
        result = cli("serve", iris[1], "--port", "0", "--token-file", token)
        assert result.exit_code == 2, result.stderr
        assert f"{token}: the token file" in result.stderr
        assert says in result.stderr
        assert "internal error" not in result.stderr


# ------------------------------------------------------------------ options before data
def test_options_are_checked_before_data_is_read(cli, tmp_path):
    """A data path that does not exist: the option's error comes first, so nothing was read."""
    missing = tmp_path / "nowhere.csv"
    for args, says in (
        (["train", missing, "-t", "y", "-o", tmp_path / "m.bk", "--model", "naive-bayes"],
         "'naive-bayes' is not a model"),
        (["train", missing, "-t", "y", "-o", tmp_path / "m.bk", "--model", "gausian"],
         "did you mean gaussian?"),
        (["train", missing, "-t", "y", "-o", tmp_path / "m.bk", "--integers", "ints"],
         "choose gaussian, poisson or categorical"),
        (["train", missing, "-t", "y", "-o", tmp_path / "m.pkl"], "name it m.bkm"),
        (["evaluate", missing, "-t", "y", "--model", "bayes"], "'bayes' is not a model"),
        (["report", missing, "-t", "y", "-o", tmp_path / "r.html", "--model", "nb"],
         "'nb' is not a model"),
    ):  # fmt: skip
        result = cli(*args)
        assert result.exit_code == 2, (args, result.stderr)
        assert says in result.stderr, (args, result.stderr)
        assert "nowhere.csv" not in result.stderr.replace(str(missing), "")


def test_a_missing_target_suggests_the_likely_column(cli, tmp_path):
    rng = random.Random(32)
    for label in ("class", "Label", "target", "y", None):
        names = [f"feature_{j}" for j in range(31)]
        position = rng.randrange(32)
        last = label or "verdict"
        names.insert(position if label else 31, last)
        frame = pl.DataFrame({n: [rng.random() for _ in range(6)] for n in names})
        frame = frame.with_columns(pl.Series(last, ["a", "b"] * 3))
        path = tmp_path / "wide.csv"
        frame.write_csv(path)
        result = cli("train", path, "-o", tmp_path / "m.bk")
        assert result.exit_code == 2
        line = result.stderr.strip()
        assert f"for example --target {last} (" in line, line
        assert ("named like class labels" if label else "the last column") in line
        assert "the table has 32 columns" in line
        assert "feature_30" not in line  # the columns are not all listed


@given(
    stem=st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8),
    suffix=st.sampled_from([".pkl", ".PKL", ".pickle", ".Pickle", ".joblib", ".p", ".pck"]),
)
@settings(max_examples=40, deadline=None)
def test_a_model_file_is_never_named_like_a_pickle(tmp_path_factory, stem, suffix):
    model = bk.GaussianNB().fit([[0.0], [1.0]], [0, 1])
    folder = tmp_path_factory.mktemp("pickle")
    with pytest.raises(SaveError, match=r"invites pickle\.load.*name it .*\.bkm"):
        bk.save(model, folder / f"{stem}{suffix}")
    assert list(folder.iterdir()) == []


# ------------------------------------------------------------------ --unlabeled
def test_unlabelled_documents_that_cannot_be_are_refused(cli, tmp_path):
    data = tmp_path / "docs"
    for label, words in (("ham", "see you at lunch"), ("spam", "win free cash now")):
        (data / label).mkdir(parents=True)
        for i in range(3):
            (data / label / f"{i}.txt").write_text(f"{words} {i}\n")
    garbage = tmp_path / "garbage.bin"
    rng = random.Random(0)  # random bytes without a NUL: their control bytes tell
    garbage.write_bytes(bytes(rng.randrange(1, 256) for _ in range(20000)))
    binary = tmp_path / "binary"
    binary.mkdir()
    for i in range(3):
        (binary / f"{i}.dat").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0" + os.urandom(500))
    table = tmp_path / "texts.csv"
    table.write_text("label,text\n" + "".join(
        f"{'spam' if i % 2 else 'ham'},{'win free cash' if i % 2 else 'see you at lunch'} {i}\n"
        for i in range(8)
    ))  # fmt: skip
    for source, labelled, says in (
        (garbage, data, "holds binary data"),
        (binary, data, "as in all 3 files looked at"),
        (data, data, "--unlabeled is DATA itself"),
        (data / "ham", data, "--unlabeled is inside DATA"),
        (tmp_path, data, "--unlabeled holds DATA"),
        (table, table, "--unlabeled is DATA itself"),
        (garbage, table, "holds binary data"),
    ):
        args = ["train", labelled, "-o", tmp_path / "m.bk", "--force", "--unlabeled", source]
        if labelled == table:
            args += ["-t", "label"]
        result = cli(*args)
        assert result.exit_code == 2, (source, result.stderr, result.stdout)
        assert says in result.stderr, (source, result.stderr)
        assert not (tmp_path / "m.bk").exists()


@given(st.binary(min_size=512, max_size=4096))
@settings(max_examples=200, deadline=None)
def test_random_bytes_look_binary(data):
    from bayeskit.cli.semi_supervised import looks_binary

    # random bytes: a NUL, or not UTF-8 with about 1 control byte in 9 (the odds that 512
    # uniform bytes hold fewer than 1 in 20 are below 1e-6; hypothesis also tries
    # hand-picked runs, so only those that look like random data are asserted)
    controls = sum(b < 8 or (13 < b < 32 and b != 27) or b == 127 for b in data)
    if b"\0" in data or controls > len(data) / 10:
        assert looks_binary(data)


@given(st.text(min_size=1, max_size=3000), st.sampled_from(["utf-8", "latin-1", "cp1252"]))
@settings(max_examples=200, deadline=None)
def test_text_never_looks_binary(text, encoding):
    from bayeskit.cli.semi_supervised import looks_binary

    printable = "".join(c for c in text if c.isprintable() or c in "\t\n\r\f")
    data = printable.encode(encoding, errors="ignore")
    assert not looks_binary(data)


# ------------------------------------------------------------------ pipes
@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "{model}"],
        ["predict", "{model}", "{data}", "--ignore", "target"],
        ["evaluate", "{data}", "-t", "target", "--folds", "2"],
    ],
)
def test_a_reader_that_went_away_ends_the_command_quietly(iris, command):
    """``bayeskit … | head -1``: the reader has gone when the command writes; it ends at once,
    status 0, with no error on standard error (no traceback, no "Exception ignored")."""
    data, model = iris
    args = [a.format(model=model, data=data) for a in command]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bayeskit", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            env=env,
            timeout=300,
            check=False,
        )
    finally:
        os.close(write)
    # (progress lines may go to standard error on a slow machine: nothing else does)
    assert b"Traceback" not in done.stderr
    assert b"Exception ignored" not in done.stderr
    assert b"error" not in done.stderr.lower(), done.stderr
    assert done.returncode == 0


# ------------------------------------------------------------------ the Dask dashboard
def _listening(process) -> set[tuple[str, int]]:
    found = set()
    for proc in [process, *process.children(recursive=True)]:
        try:
            connections = proc.net_connections(kind="tcp")
        except (OSError, AttributeError):  # gone meanwhile; psutil < 6 calls it connections
            connections = getattr(proc, "connections", lambda kind: [])(kind="tcp")
        found |= {(c.laddr.ip, c.laddr.port) for c in connections if c.status == "LISTEN"}
    return found


def test_the_local_cluster_listens_on_this_machine_only():
    """``train --workers N``: the scheduler, the workers and the dashboard (when bokeh is
    installed) of the local cluster listen on 127.0.0.1 only, never on every interface."""
    pytest.importorskip("distributed")
    import psutil

    from bayeskit.dask._cluster import connect

    pytest.importorskip("bokeh")  # the dashboard's own dependency (in the test extra)
    me = psutil.Process()
    before = _listening(me)
    with connect(workers=1) as client:
        opened = _listening(me) - before
        assert client.scheduler.address.startswith("tcp://127.0.0.1:")
        dashboard = client.dashboard_link
    assert opened, "the cluster listens nowhere?"
    assert {ip for ip, _ in opened} == {"127.0.0.1"}, opened
    # the dashboard is one of those sockets: its page is served from 127.0.0.1
    port = int(dashboard.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
    assert ("127.0.0.1", port) in opened, (dashboard, opened)


@pytest.mark.parametrize("command", ["train", "evaluate", "report"])
def test_a_target_of_fractional_numbers_is_named_as_not_classes(cli, tmp_path, command):
    # A measured quantity given as the target: the column and its values are named, where
    # scikit-learn's check said "Unknown label type: continuous".
    rows = ["a,b,price"] + [f"{i},{i % 3},{i * 0.5 + 0.25}" for i in range(20)]
    data = tmp_path / "prices.csv"
    data.write_text("\n".join(rows) + "\n")
    out = {"train": ["-o", tmp_path / "m.bkm"], "report": ["-o", tmp_path / "r.html"]}
    result = cli(command, data, "-t", "price", *out.get(command, []))
    assert result.exit_code == 2, result.stderr
    assert (
        "the target column 'price' is continuous, numbers with a fractional part "
        "(0.25, 0.75, 1.25, …; "
        "20 distinct values)" in result.stderr
    )
    assert "Unknown label type" not in result.stderr
    assert "--target" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prices.csv"]


def test_a_target_of_distinct_whole_numbers_gets_a_note_that_it_looks_like_a_quantity(
    cli, tmp_path
):
    # 300 prices, each a class of one row: trained as asked, with a note saying so.
    rng = np.random.default_rng(0)
    rows = ["a,b,price"] + [
        f"{x:.3f},{z:.3f},{p}"
        for x, z, p in zip(
            rng.normal(size=300), rng.normal(size=300), rng.permutation(300) * 7, strict=True
        )
    ]
    data = tmp_path / "prices.csv"
    data.write_text("\n".join(rows) + "\n")
    result = cli("train", data, "-t", "price", "-o", tmp_path / "m.bkm")
    assert result.exit_code == 0, result.stderr
    assert (
        "the target column 'price' holds 300 different values (numbers) for 300 rows; each is "
        "a class, learned from 1.0 rows on average" in result.stderr
    )
    labels = ["a,label"] + [f"{v:.3f},{'xyz'[i % 3]}" for i, v in enumerate(rng.normal(size=300))]
    data.write_text("\n".join(labels) + "\n")
    result = cli("train", data, "-t", "label", "-o", tmp_path / "m2.bkm")
    assert result.exit_code == 0, result.stderr
    assert "different values" not in result.stderr
