"""A review of the model files' promises (no pickle; loading runs no code and bounds memory
and time before it allocates; never a half-written file; bad input refused by name):

* save, and ``bayeskit train -o PATH --force``, renamed a regular file over a device node or a
  FIFO at the target (run as root, ``bayeskit.save(model, "/dev/null")`` replaced the system's
  /dev/null);
* a load of a device read it without end (/dev/zero until MemoryError), of a FIFO waited for a
  writer for ever, as did ``bayeskit inspect`` (its model-path check let both through);
* one long label among many short ones made the label list padded to the longest (n × longest
  × 4 bytes) before any check: an 11 KB file asked for 3.2 GB, a 48 KB one raised a raw
  MemoryError;
* ``class_count.npy`` contradicting the statistics loaded (priors from it, likelihoods from
  the statistics);
* a SpamFilter whose ham_label/spam_label are not its classes loaded, and every predict failed;
* a ``<U4`` label list holding numbers, or longer strings, was turned into text and cut
  ([2147483648] loaded as ['2147']);
* a meta.json naming a key twice loaded, the last value winning.

Devices and FIFOs are private copies made under the test's folder (``mknod``, ``mkfifo``);
nothing here opens or writes a real device file. Whatever might block or exhaust memory on a
loader without these checks runs in a subprocess with a timeout and a memory limit.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import bayeskit as bk
from bayeskit.cli.app import app
from bayeskit.errors import SaveError
from bayeskit.io import model_file
from bayeskit.text import SpamFilter

from ._refusal import measured_loads, npy, parts, refused, seal

RNG = np.random.default_rng(0)
COUNTS = RNG.poisson(1.5, size=(30, 3)).astype(np.float64)
REALS = RNG.normal(size=(30, 3))
CATS = RNG.integers(0, 3, size=(30, 4))
Y = np.array(["ham", "spam"])[RNG.integers(0, 2, size=30)]
WORDS = ["cash", "prize", "lunch", "noon", "free", "meeting", "win", "see", "you"]
MAILS = [" ".join(RNG.choice(WORDS, size=5)) for _ in range(30)]


def saved(tmp_path: Path, model: Any, X: Any, y: Any = Y, name: str = "model.bkm") -> Path:
    path = tmp_path / name
    bk.save(model.fit(X, y), path)
    return path


def device_copy(path: Path, major: int, minor: int) -> Path:
    """A private character device node (1, 3 is /dev/null's; 1, 5 /dev/zero's; 1, 9
    /dev/urandom's); skipped where nodes cannot be made (not root)."""
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(major, minor))
    except (PermissionError, AttributeError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    return path


def _bounded(code: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``code`` run in a fresh process limited to 2 GB of address space; a process still
    running after ``timeout`` seconds is the test's failure (a load that blocks)."""
    prelude = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
    try:
        return subprocess.run(
            [sys.executable, "-c", prelude + textwrap.dedent(code), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {timeout} s (blocked): {args}")


_LOAD = """
import sys
import bayeskit as bk
try:
    bk.load(sys.argv[1])
    print("LOADED")
except BaseException as exc:
    print(type(exc).__name__, str(exc))
"""


# ------------------------------------------------------------------ 1. save over a device
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_save_refuses_a_target_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    model = bk.MultinomialNB().fit(COUNTS, Y)
    target = tmp_path / "node.bkm"
    if kind == "device":
        device_copy(target, 1, 3)
    else:
        os.mkfifo(target)
    before = os.lstat(target)
    with pytest.raises(SaveError, match="not a regular file") as info:
        bk.save(model, target)
    assert str(target) in str(info.value)
    after = os.lstat(target)  # the node itself is still there, untouched
    assert (after.st_mode, after.st_ino, after.st_rdev) == (
        before.st_mode,
        before.st_ino,
        before.st_rdev,
    )
    assert os.listdir(tmp_path) == ["node.bkm"]  # no temporary file left behind
    # a link to the node is followed and refused too
    link = tmp_path / "link.bkm"
    link.symlink_to(target)
    with pytest.raises(SaveError, match="not a regular file"):
        bk.save(model, link)
    assert link.is_symlink()


def test_save_replaces_a_link_to_a_regular_file_by_the_new_file(tmp_path: Path) -> None:
    # what the docstring says: the link is replaced, the file it named is left as it was
    old = tmp_path / "old.bkm"
    old.write_bytes(b"keep me")
    link = tmp_path / "link.bkm"
    link.symlink_to(old)
    bk.save(bk.MultinomialNB().fit(COUNTS, Y), link)
    assert not link.is_symlink()
    assert old.read_bytes() == b"keep me"
    assert bk.load(link).n_features_in_ == 3


def test_train_force_does_not_replace_a_fifo(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("a,b,label\n" + "".join(f"{i % 3},{i % 5},{'xy'[i % 2]}\n" for i in range(40)))
    fifo = tmp_path / "out.bkm"
    os.mkfifo(fifo)
    result = CliRunner().invoke(
        app, ["train", str(data), "--target", "label", "-o", str(fifo), "--force"]
    )
    assert result.exit_code != 0
    assert "not a regular file" in result.output + (result.stderr or "")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["data.csv", "out.bkm"]


# ------------------------------------------------------------------ 3. load of a device, FIFO
@pytest.mark.parametrize("minor", [5, 9], ids=["zero", "urandom"])
def test_load_refuses_a_device_before_reading_it(tmp_path: Path, minor: int) -> None:
    node = device_copy(tmp_path / "model.bkm", 1, minor)
    out = _bounded(_LOAD, str(node)).stdout
    assert out.startswith("ModelFileError"), out
    assert "character device, not a regular file" in out
    assert str(node) in out


def test_load_and_the_commands_refuse_a_fifo_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "model.bkm"
    os.mkfifo(fifo)
    out = _bounded(_LOAD, str(fifo)).stdout
    assert out.startswith("ModelFileError"), out
    assert "FIFO" in out, out
    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n")
    for command in ("inspect", "predict"):
        args = [command, str(fifo)] + ([str(data)] if command == "predict" else [])
        run = _bounded("import sys\nfrom bayeskit.cli import main\nsys.exit(main())\n", *args)
        assert run.returncode != 0
        assert "not a regular file" in run.stderr, run.stderr


def test_load_checks_what_it_opened_not_only_the_name(tmp_path: Path) -> None:
    # the name swapped between the check and the open: what was opened (without waiting
    # for a writer) is checked again (in a subprocess: a loader without it would wait)
    fifo = tmp_path / "model.bkm"
    os.mkfifo(fifo)
    regular = saved(tmp_path, bk.MultinomialNB(), COUNTS, name="regular.bkm")
    code = """
    import os, sys
    from bayeskit.io import model_file
    fifo, regular = sys.argv[1:]
    real_stat = os.stat
    model_file.os.stat = lambda p, *a, **k: real_stat(regular if str(p) == fifo else p)
    try:
        model_file.load(fifo)
        print("LOADED")
    except BaseException as exc:
        print(type(exc).__name__, str(exc))
    """
    out = _bounded(code, str(fifo), str(regular)).stdout
    assert out.startswith("ModelFileError"), out
    assert "FIFO (named pipe), not a regular file" in out


# ------------------------------------------------------------------ 2. wide label lists
def wide_label_file(tmp_path: Path, n_labels: int, longest: int, width: int) -> Path:
    path = saved(tmp_path, bk.MultinomialNB(), COUNTS, name=f"wide{width}.bkm")
    meta, entries = parts(path)
    labels = sorted(["b" * longest] + [f"a{i:07d}" for i in range(n_labels - 1)])
    meta["classes"] = {"dtype": f"<U{width}", "values": labels}
    seal(path, meta, entries)
    return path


def test_a_label_list_is_not_padded_beyond_the_budget(tmp_path: Path) -> None:
    # 4000 labels, one of 200 000 characters: 3.2 GB padded, from 11 KB
    cut = wide_label_file(tmp_path, 4000, 200_000, 8)
    wide = wide_label_file(tmp_path, 4000, 200_000, 200_000)
    assert cut.stat().st_size < 20_000
    assert wide.stat().st_size < 20_000
    # first in a process limited to 2 GB (a loader that pads first fails there, not here)
    for path, words in [
        (cut, ["200000 characters", "longer than its dtype holds (8)"]),
        (wide, ["a list of 4000 values of dtype '<U200000'", "beyond the 1073741824 bytes"]),
    ]:
        out = _bounded(_LOAD, str(path)).stdout
        assert out.startswith("ModelFileError"), out[:300]
        for word in words:
            assert word in out, out[:300]
        refused(path, *words)
    valid = saved(tmp_path, bk.MultinomialNB(), COUNTS, name="valid.bkm")
    for outcome, grown_kb, seconds in measured_loads(valid, [cut, wide]):
        assert outcome == "refused"
        assert grown_kb < 150 * 1024, grown_kb // 1024
        assert seconds < 10


def test_a_memory_error_while_loading_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = saved(tmp_path, bk.MultinomialNB(), COUNTS)

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(model_file, "_read_meta", exhausted)
    refused(path, "more memory than this machine can give")


# ------------------------------------------------------------------ 4. class counts
CLASS_COUNT_MODELS = {
    "multinomial": (bk.MultinomialNB, COUNTS, "counts"),
    "gaussian": (bk.GaussianNB, REALS, "moments"),
    "kdb": (lambda: bk.KDBClassifier(k=2), CATS, "subset_counts"),
    "categorical": (bk.CategoricalNB, CATS, "category_counts"),
    "lda": (bk.LinearDiscriminantAnalysis, REALS, "scatter"),
    "kernel": (bk.KernelNB, REALS, "sample"),
    "gmm": (lambda: bk.GaussianMixtureClassifier(n_components=2, random_state=0), REALS, "mixture"),
}


@pytest.mark.parametrize("name", CLASS_COUNT_MODELS)
@pytest.mark.parametrize("fake", [[1.0, 1.0], [1e6, 1.0]])
def test_class_counts_the_statistics_contradict(tmp_path: Path, name: str, fake: list) -> None:
    make, X, kind = CLASS_COUNT_MODELS[name]
    path = saved(tmp_path, make(), X)
    meta, entries = parts(path)
    entries["class_count.npy"] = npy(np.array(fake))
    seal(path, meta, entries)
    refused(path, f"the {kind} statistic says the weight of its rows is")


@pytest.mark.parametrize("name", ["multinomial", "lda", "kernel", "gmm"])
def test_class_counts_above_recorded_weights(tmp_path: Path, name: str) -> None:
    # statistics recording the rows' weight itself bound it from above too
    make, X, _ = CLASS_COUNT_MODELS[name]
    path = saved(tmp_path, make(), X)
    meta, entries = parts(path)
    count = np.load(io.BytesIO(entries["class_count.npy"]))
    entries["class_count.npy"] = npy(count * 1000)
    seal(path, meta, entries)
    refused(path, "the class counts are not those of the statistics")


def test_weighted_batched_merged_and_unlearned_models_still_load(tmp_path: Path) -> None:
    # sums of the same float weights taken in other orders: their last digits differ
    w = RNG.random(30) * 7.3 + 1e-3
    for make, X in [(bk.MultinomialNB, COUNTS), (bk.GaussianNB, REALS), (bk.CategoricalNB, CATS)]:
        for step, model in [
            ("fit", make().fit(X, Y, sample_weight=w)),
            (
                "merge",
                bk.merge(make().fit(X[:13], Y[:13], w[:13]), make().fit(X[13:], Y[13:], w[13:])),
            ),
            ("unlearn", make().fit(X, Y, sample_weight=w).unlearn(X[:20], Y[:20], w[:20])),
        ]:
            path = tmp_path / f"{make.__name__}-{step}.bkm"
            bk.save(model, path)
            np.testing.assert_array_equal(bk.load(path).predict_proba(X), model.predict_proba(X))


# ------------------------------------------------------------------ 5. a filter's labels
@pytest.mark.parametrize("setting", ["ham_label", "spam_label"])
def test_filter_labels_predict_would_refuse_are_refused_at_load(tmp_path: Path, setting: str):
    path = saved(tmp_path, SpamFilter(calibration_folds=None), MAILS)
    meta, entries = parts(path)
    meta["params"][setting] = setting.split("_")[0].upper()
    seal(path, meta, entries)
    refused(path, "Set ham_label/spam_label")


# ------------------------------------------------------------------ 6. fixed-width labels
@pytest.mark.parametrize(
    ("values", "words"),
    [
        ([2147483648, 9223372036854775808], "the value 2147483648 in a <U4 list"),
        ([1.5, True], "is not a JSON str"),
        (["hamster", "spammer"], "longer than its dtype holds (4)"),
    ],
)
def test_text_labels_are_json_strings_of_their_width(
    tmp_path: Path, values: list, words: str
) -> None:
    path = saved(tmp_path, bk.MultinomialNB(), COUNTS)
    meta, entries = parts(path)
    meta["classes"] = {"dtype": "<U4", "values": values}
    seal(path, meta, entries)
    refused(path, words)


def test_text_categories_are_json_strings(tmp_path: Path) -> None:
    X = np.array(["red", "blue", "green"], dtype=object)[RNG.integers(0, 3, size=(30, 1))]
    path = saved(tmp_path, bk.CategoricalNB(), X)
    meta, entries = parts(path)
    listed = meta["blocks"][0]["meta"]["categories"][0]
    assert listed["dtype"] == "object"
    meta["blocks"][0]["meta"]["categories"][0] = {"dtype": "<U5", "values": [1, 22, 333]}
    seal(path, meta, entries)
    refused(path, "is not a JSON str")


# ------------------------------------------------------------------ 7. duplicate keys
def with_meta_text(path: Path, text: str) -> None:
    """The file at ``path`` with meta.json replaced by ``text`` (the whole-file digest made
    anew; the meta checksum is whatever the text holds)."""
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist() if n != "meta.json"}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.comment = model_file._TRAILER + b"0" * 64
        for name, data in {"meta.json": text.encode(), **entries}.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    data = bytearray(buffer.getvalue())
    data[-64:] = hashlib.sha256(bytes(data[:-64])).hexdigest().encode()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_name_twice_in_meta_json_is_refused(tmp_path: Path, where: str) -> None:
    path = saved(tmp_path, bk.MultinomialNB(alpha=0.5), COUNTS)
    with zipfile.ZipFile(path) as zf:
        meta = json.loads(zf.read("meta.json"))
    text = json.dumps(meta)
    if where == "top":  # the last value wins in Python: the checksum holds for it
        text = '{"estimator": "GaussianNB", ' + text[1:]
        name = "estimator"
    else:
        text = text.replace('"params": {', '"params": {"alpha": 99.0, ', 1)
        name = "alpha"
    assert json.loads(text) == meta  # what a last-wins reader sees: the valid file
    with_meta_text(path, text)
    refused(path, f"meta.json names {name!r} twice in one object")
