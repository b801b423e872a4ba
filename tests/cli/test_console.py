"""The command as a user runs it: the installed console script and ``python -m`` in a real
process (exit codes, standard streams, no traceback), and the quickstart."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bayeskit.__main__ import main as module_main
from bayeskit.cli import main

SCRIPT = Path(sys.executable).with_name("bayeskit")


def _run(*args: object, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("BAYESKIT_DEBUG", None)
    return subprocess.run(
        [str(a) for a in args], input=stdin, capture_output=True, text=True, timeout=120, env=env
    )


def _command() -> list[str]:
    """The installed console script when this environment has it, else the module."""
    if SCRIPT.exists():
        return [str(SCRIPT)]
    found = shutil.which("bayeskit")
    return [found] if found else [sys.executable, "-m", "bayeskit.cli"]


def test_console_script_trains_and_predicts(sms_tsv, tmp_path):
    model = tmp_path / "sms.bk"
    trained = _run(*_command(), "train", sms_tsv, "--target", "label", "-o", model)
    assert trained.returncode == 0, trained.stderr
    assert f"wrote {model}" in trained.stdout
    predicted = _run(
        sys.executable,
        "-m",
        "bayeskit.cli",
        "predict",
        model,
        "-",
        stdin="WINNER!! Claim your free prize now\nhi mum\n",
    )
    assert predicted.returncode == 0, predicted.stderr
    lines = predicted.stdout.splitlines()
    assert lines[0] == "line,label,verdict,p_ham,p_spam"
    assert [line.split(",")[1] for line in lines[1:]] == ["spam", "ham"]


def test_console_script_user_mistake_is_one_line(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n3\n")
    run = _run(*_command(), "train", tmp_path / "bad.csv", "-t", "b", "-o", tmp_path / "m.bk")
    assert run.returncode == 2
    assert run.stdout == ""
    assert (
        run.stderr == f"bayeskit: error: {tmp_path / 'bad.csv'}, line 3: 1 field where the "
        "header has 2; give every row one value per column (an empty field is a missing value)\n"
    )
    assert not (tmp_path / "m.bk").exists()


def test_usage_errors_are_one_line(cli):
    usage = cli("evaluate")
    assert usage.exit_code == 2
    assert usage.stderr.splitlines() == [
        "bayeskit evaluate: error: Missing argument 'DATA'. (see 'bayeskit evaluate --help')"
    ]
    bare = cli()  # no command: the help, and nothing more
    assert bare.exit_code == 2
    assert "Usage: bayeskit [OPTIONS] COMMAND" in bare.stdout
    assert bare.stderr == ""


def test_python_m_bayeskit_runs_subcommands_and_the_quickstart(tmp_path, capsys):
    assert module_main(["inspect", str(tmp_path / "none.bk")]) == 2
    assert "none.bk: no such model file" in capsys.readouterr().err
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("bayeskit ")
    assert module_main(["--folds", "1"]) == 2
    assert "--folds must be at least 2" in capsys.readouterr().err


@pytest.mark.parametrize("entry", ["cli", "module"])
def test_quickstart_reports_cross_validated_quality(cli, capsys, entry):
    if entry == "cli":
        result = cli("quickstart", "--folds", 2, "--words")
        assert result.exit_code == 0, result.stderr
        out = result.stdout
    else:
        assert module_main(["--folds", "2", "--words"]) == 0
        out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1] == "messages: 5574 (ham 4827, spam 747)"
    assert "bag of words + MultinomialNB(alpha=1); 2-fold" in lines[2]
    accuracy = float(lines[3].removeprefix("accuracy: "))
    assert 0.97 < accuracy < 1.0
    assert lines[-4].startswith("next: bayeskit example sms")
