"""A review of train, predict, evaluate and explain: the columns predict copies (a column
named as an output column, a training --id, an --id the model uses, an --ignore DATA lacks),
the files predict replaces, --to against -o, evaluate --test with fold options, class labels
kept as the file writes them (booleans, number-like labels), --set numeric=… and explain's
boolean spellings. Every mistake is one line with exit code 2, and nothing is written."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import bayeskit as bk


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _refused(result: object, *words: str) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)  # type: ignore[attr-defined]
    lines = _lines(result.stderr)  # type: ignore[attr-defined]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    assert "TypeError" not in lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> tuple[Path, Path]:
    """A table with an ID, numbers, categories, booleans written True/False and labels that
    need quoting, and a model trained on it."""
    folder = tmp_path_factory.mktemp("mixed")
    rng = np.random.default_rng(1)
    labels = ["a,b", "say hi", "01"]
    lines = ["cust_id,x,color,flag,label"]
    for i in range(90):
        k = i % 3
        flag = "True" if rng.random() < 0.3 + 0.2 * k else "False"
        color = ["red", "green", "blue"][int(rng.integers(0, 3))]
        label = f'"{labels[k]}"' if "," in labels[k] else labels[k]
        lines.append(f"c{i:04d},{rng.normal() + k:.4f},{color},{flag},{label}")
    data = folder / "mixed.csv"
    data.write_text("\n".join(lines) + "\n")
    model = folder / "mixed.bk"
    return data, model


@pytest.fixture(scope="module")
def trained(mixed) -> tuple[Path, Path]:
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    data, model = mixed
    result = CliRunner().invoke(app, ["train", str(data), "--target", "label", "-o", str(model)])
    assert result.exit_code == 0, result.stderr
    return data, model


# ------------------------------------------------------------------ 1. --id label
def test_an_id_named_as_an_output_column_is_copied_beside_the_prediction(cli, trained):
    data, model = trained
    result = cli("predict", model, data, "--id", "cust_id", "--id", "label")
    assert result.exit_code == 0, result.stderr
    header = result.stdout.splitlines()[0]
    assert header.startswith("cust_id,data_label,label,p_01,")
    rows = _rows(result.stdout)
    given = [r["label"] for r in _rows(data.read_text())]
    assert [r["data_label"] for r in rows] == given  # the true labels, kept
    assert {r["label"] for r in rows} <= {"a,b", "say hi", "01"}  # the predictions
    assert "copied as 'data_label'" in result.stderr
    assert "is the training target: ignored" not in result.stderr


# ------------------------------------------------------------------ 2. boolean labels
@pytest.mark.parametrize(("true", "false"), [("true", "false"), ("True", "False"), ("YES", "NO")])
def test_boolean_labels_are_shown_and_taken_as_written(cli, tmp_path, true, false):
    rng = np.random.default_rng(2)
    data = tmp_path / "churn.csv"
    rows = [f"{rng.normal() + (i % 2):.3f},{true if i % 2 else false}" for i in range(60)]
    data.write_text("x,churn\n" + "\n".join(rows) + "\n")
    model = tmp_path / "churn.bk"
    result = cli("train", data, "--target", "churn", "-o", model)
    assert result.exit_code == 0, result.stderr
    first = sorted([true, false])
    assert f"classes: {first[0]} 30, {first[1]} 30" in result.stdout
    assert bk.load(model).classes_.tolist() == first
    predicted = cli("predict", model, data, "--ignore", "churn")
    assert predicted.stdout.splitlines()[0] == f"label,p_{first[0]},p_{first[1]}"
    assert _rows(predicted.stdout)[0]["label"] in (true, false)
    explained = cli("explain", model, "x=1", "--label", true)
    assert explained.exit_code == 0, explained.stderr
    assert explained.stdout.startswith(f"'{true}' (P = ")
    evaluated = cli("evaluate", data, "--target", "churn", "--folds", "3")
    assert f"classes: {first[0]} 30, {first[1]} 30" in evaluated.stdout
    inspected = cli("inspect", model)
    assert f"classes: {first[0]} (prior" in inspected.stdout


def test_json_booleans_are_labels_true_and_false(cli, tmp_path):
    data = tmp_path / "churn.jsonl"
    data.write_text(
        "".join(
            json.dumps({"x": i % 2 + 0.1 * (i % 5), "churn": bool(i % 2)}) + "\n" for i in range(40)
        )
    )
    model = tmp_path / "churn.bk"
    result = cli("train", data, "--target", "churn", "-o", model)
    assert "classes: false 20, true 20" in result.stdout, result.stderr
    predicted = cli("predict", model, data, "--ignore", "churn")
    assert predicted.stdout.splitlines()[0] == "label,p_false,p_true"


def test_a_model_file_of_boolean_classes_takes_their_written_spelling(cli, tmp_path):
    model = tmp_path / "old.bk"
    import polars as pl

    X = pl.DataFrame({"x0": [0.0, 0.2, 1.0, 1.2]})
    bk.save(bk.GaussianNB().fit(X, np.array([False, False, True, True])), model)
    explained = cli("explain", model, "x0=1", "--label", "true")
    assert explained.exit_code == 0, explained.stderr
    predicted = cli("predict", model, "-", input="x0\n1.1\n")
    assert predicted.stdout.splitlines()[0] == "label,p_false,p_true"


# ------------------------------------------------------------------ 3. what -o replaces
@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("results.csv", "gene,p_value,label\nBRCA1,0.001,significant\n"),
        ("results.csv", "id,label,p_a,notes\n1,a,0.5,x\n"),
        ("results.csv", "label,p_a,p_b\nc,0.5,0.5\n"),  # no class c
        ("results.csv", "label,p_a,p_b\na,0.9,0.9\n"),  # not probabilities
        ("mine.jsonl", '{"label": "cat", "p_x": 1, "note": "my own data"}\n'),
    ],
)
def test_predict_replaces_only_a_file_it_wrote(cli, trained, tmp_path, name, content):
    data, model = trained
    out = tmp_path / name
    out.write_text(content)
    _refused(cli("predict", model, data, "-o", out), "--force")
    assert out.read_text() == content


@pytest.mark.parametrize("name", ["out.csv", "out.jsonl"])
def test_predict_replaces_its_own_prediction_file(cli, trained, tmp_path, name):
    data, model = trained
    out = tmp_path / name
    for ids in ([], [], ["--id", "cust_id", "--id", "label"]):  # (a guard: it still is)
        result = cli("predict", model, data, "-o", out, *ids)
        assert result.exit_code == 0, result.stderr


# ------------------------------------------------------------------ 4. --to against -o
@pytest.mark.parametrize(("name", "to"), [("out.jsonl", "csv"), ("out.csv", "jsonl")])
def test_to_contradicting_the_file_name_is_refused(cli, trained, tmp_path, name, to):
    data, model = trained
    out = tmp_path / name
    _refused(cli("predict", model, data, "-o", out, "--to", to), "--to", name)
    assert not out.exists()
    fine = tmp_path / "out.txt"
    assert cli("predict", model, data, "-o", fine, "--to", to).exit_code == 0


# ------------------------------------------------------------------ 5. --test and folds
@pytest.mark.parametrize("options", [["--folds", "5"], ["--seed", "3"], ["--folds", "10"]])
def test_evaluate_test_refuses_fold_options(cli, trained, options):
    data, _ = trained
    line = _refused(cli("evaluate", data, "--target", "label", "--test", data, *options))
    assert options[0] in line
    assert "--test" in line
    assert cli("evaluate", data, "--target", "label", "--test", data).exit_code == 0


# ------------------------------------------------------------------ 6. train --id
def test_predict_copies_the_id_columns_training_left_out(cli, trained, tmp_path):
    data, _ = trained
    rows = data.read_text().splitlines()
    batched = tmp_path / "batched.csv"
    batched.write_text(
        "\n".join(["batch," + rows[0], *(f"B{i % 7}," + r for i, r in enumerate(rows[1:]))]) + "\n"
    )
    model = tmp_path / "batched.bk"
    trained_now = cli("train", batched, "--target", "label", "--id", "batch", "-o", model)
    assert trained_now.exit_code == 0, trained_now.stderr
    result = cli("predict", model, batched)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("batch,cust_id,label,")
    assert _rows(result.stdout)[0]["batch"] == "B0"
    # --id names what is copied; the model's ID columns are still left out
    only = cli("predict", model, batched, "--id", "cust_id")
    assert only.exit_code == 0, only.stderr
    assert only.stdout.splitlines()[0].startswith("cust_id,label,")
    assert "train --id" in cli("predict", "--help").stdout


# ------------------------------------------------------------------ 7. number-like labels
def _numbered(path: Path, labels: list[str], n: int = 90) -> None:
    rng = np.random.default_rng(0)
    k = len(labels)
    path.write_text(
        "x,y,cls\n"
        + "".join(
            f"{rng.normal() + i % k:.3f},{rng.normal():.3f},{labels[i % k]}\n" for i in range(n)
        )
    )


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_number_like_labels_are_kept_as_written(cli, tmp_path, command):
    data = tmp_path / "numbered.csv"
    _numbered(data, ["01", "1", "1.0"])
    extra = ["-o", tmp_path / "m.bk"] if command == "train" else ["--folds", "3"]
    result = cli(command, data, "--target", "cls", *extra)
    assert result.exit_code == 0, result.stderr
    assert "classes: 01 30, 1 30, 1.0 30" in result.stdout
    _numbered(data, ["1", "1.0", "2"])
    result = cli(command, data, "--target", "cls", *extra, *(["--force"] * (command == "train")))
    assert "classes: 1 30, 1.0 30, 2 30" in result.stdout, result.stderr


def test_plain_whole_number_labels_stay_numbers(cli, tmp_path):
    data = tmp_path / "numbered.csv"
    model = tmp_path / "m.bk"
    for labels, classes in (
        (["0", "1", "2"], [0, 1, 2]),
        (["0.0", "1.0"], [0.0, 1.0]),
        (["+1", "-1"], ["+1", "-1"]),  # +1 would be written 1
        (["1e3", "2e3"], ["1e3", "2e3"]),  # 1e3 would be written 1000.0
    ):
        _numbered(data, labels)
        result = cli("train", data, "--target", "cls", "-o", model, "--force")
        assert result.exit_code == 0, result.stderr
        assert bk.load(model).classes_.tolist() == classes
    _numbered(data, ["0.5", "1.5"])  # fractional: regression, refused as before
    _refused(cli("train", data, "--target", "cls", "-o", model, "--force"), "cls")


# ------------------------------------------------------------------ 8. --set numeric=
@pytest.mark.parametrize("value", ["documents", "banana", "bernoulli", "binomial"])
def test_set_numeric_names_the_families_numeric_columns_take(cli, trained, value):
    data, _ = trained
    line = _refused(cli("evaluate", data, "--target", "label", "--set", f"numeric={value}"))
    assert "--set numeric=" in line
    assert "gaussian" in line
    assert "kernel" in line
    listed = line.split("takes one of:")[1]
    for other in ("documents", "bernoulli", "categorical", "binomial"):
        assert other not in listed


def test_mixed_nb_names_the_families_numeric_takes():
    import polars as pl

    X = pl.DataFrame({"a": [0.1, 0.5, 1.2, 1.9] * 5})
    y = [0, 0, 1, 1] * 5
    with pytest.raises(bk.errors.ParameterError, match="not a family of real-valued") as caught:
        bk.MixedNB(numeric="bernoulli").fit(X, y)
    assert "gaussian" in str(caught.value)
    assert "categorical" not in str(caught.value)


# ------------------------------------------------------------------ 9. explain's booleans
def test_explain_reads_booleans_as_the_training_file_writes_them(cli, trained):
    _, model = trained
    written = cli("explain", model, "x=0.5,flag=True")
    assert written.exit_code == 0, written.stderr
    assert written.stdout == cli("explain", model, "x=0.5,flag=true").stdout
    line = _refused(cli("explain", model, "x=0.5,flag=maybe"), "'flag'", "true or false")
    assert "row 0" not in line
    assert "column 3" not in line


@pytest.mark.parametrize("choice", ["gaussian", "bernoulli"])
def test_numeric_models_read_a_boolean_column_in_predict_and_explain(cli, tmp_path, choice):
    data = tmp_path / "flags.csv"
    data.write_text(
        "x,flag,y\n"
        + "".join(
            f"{i % 2 + 0.1 * (i % 7)},{'True' if i % 3 else 'False'},{'ab'[i % 2]}\n"
            for i in range(40)
        )
    )
    model = tmp_path / "flags.bk"
    assert cli("train", data, "--target", "y", "-m", choice, "-o", model).exit_code == 0
    assert cli("predict", model, data).exit_code == 0
    explained = cli("explain", model, "x=0.5,flag=True")
    assert explained.exit_code == 0, explained.stderr
    first = explained.stdout.splitlines()[0]  # the decision (a term shows its value as read)
    assert first == cli("explain", model, "x=0.5,flag=1").stdout.splitlines()[0]


# ------------------------------------------------------------------ 10. --id x, --ignore
def test_an_id_the_model_uses_is_copied_and_still_used(cli, trained):
    data, model = trained
    plain = _rows(cli("predict", model, data).stdout)
    result = cli("predict", model, data, "--id", "cust_id", "--id", "x")
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    assert result.stdout.startswith("cust_id,x,label,")
    assert [r["p_01"] for r in rows] == [r["p_01"] for r in plain]
    assert rows[0]["x"] == _rows(data.read_text())[0]["x"]


def test_ignore_of_a_column_data_lacks_is_refused_as_id_is(cli, trained):
    data, model = trained
    _refused(
        cli("predict", model, data, "--ignore", "no_such_column"), "'no_such_column'", "--ignore"
    )
    _refused(cli("predict", model, data, "--id", "no_such_column"), "'no_such_column'", "--id")
