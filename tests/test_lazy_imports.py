"""Cold start: what each entry point imports (issue 12 §4). Import sets, not timings — the
timings are measured by benchmarks/startup.py."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bayeskit
import bayeskit.naive_bayes

HEAVY = ("numba", "polars", "sklearn", "scipy", "numpy", "pandas", "rich", "pydantic")


def _loaded(code: str, stdin: str | None = None, cwd: Path | None = None) -> set[str]:
    """The heavy top-level packages imported after ``code`` runs in a fresh interpreter."""
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json, sys
        print("\\n" + json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {set(HEAVY)!r})))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=300,
        input=stdin,
        cwd=cwd,
    )
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout.splitlines()[-1]))


def test_import_bayeskit_imports_nothing_heavy():
    assert _loaded("import bayeskit") == set()


def test_version_and_help_import_nothing_heavy():
    assert _loaded("from bayeskit.cli import main; main(['--version'])") == set()
    assert _loaded("from bayeskit.cli import main; main(['--help'])") == set()
    assert _loaded("from bayeskit.__main__ import main; main(['--version'])") == set()
    assert _loaded("from bayeskit.__main__ import main; main(['--help'])") == set()


@pytest.mark.parametrize(
    "command",
    ["quickstart", "example", "train", "evaluate", "predict", "explain", "inspect", "serve",
     "filter", "merge", "report"],
)  # fmt: skip
def test_a_commands_help_imports_no_model(command):
    """``bayeskit COMMAND --help`` builds its page from the options alone, in a fresh process:
    none of numpy, SciPy, scikit-learn, pandas, numba or polars (the models' imports, seconds
    in all), nor rich or pydantic (typer's rich pages and its value checks: most of a 0.3 s
    budget). The page is the command's: its usage line and its own options."""
    code = f"""
        import contextlib, io
        from bayeskit.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                main([{command!r}, "--help"])
            except SystemExit:
                pass
        page = out.getvalue()
        assert page.startswith("Usage: bayeskit {command} [OPTIONS]"), page
        assert "-h, --help" in page, page
        """
    assert _loaded(code) == set()


def test_every_command_is_in_the_help_import_test():
    from bayeskit.cli.app import COMMANDS

    listed = test_a_commands_help_imports_no_model.pytestmark[0].args[1]
    assert sorted(COMMANDS) == sorted(listed)


def test_estimators_do_not_import_numba_or_polars_until_needed():
    loaded = _loaded("from bayeskit import MultinomialNB, GaussianNB, save, load")
    assert "numba" not in loaded
    assert "polars" not in loaded


def test_one_line_predict_with_a_text_model_runs_no_compiled_code(tmp_path):
    from bayeskit.datasets import load_sms_spam
    from bayeskit.text import SpamFilter

    texts, labels = load_sms_spam()
    bayeskit.save(SpamFilter().fit(texts[:500], labels[:500]), tmp_path / "sms.bk")
    code = "from bayeskit.cli import main; main(['predict', 'sms.bk', '-'])"
    loaded = _loaded(code, stdin="WINNER!! free prize\n", cwd=tmp_path)
    assert "numba" not in loaded
    assert "polars" not in loaded


def test_lazy_names_are_the_public_names():
    """The table of lazy names, the TYPE_CHECKING re-exports, __all__ and dir() agree, and
    each name is the object its module defines."""
    source = Path(bayeskit.__file__).read_text()
    tree = ast.parse(source)
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    typed = {
        alias.name: "." * node.level + (node.module or "")
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == bayeskit._LAZY
    assert set(bayeskit.__all__) == {"__version__", *bayeskit._LAZY}
    assert set(bayeskit.__all__) <= set(dir(bayeskit))
    assert set(bayeskit.naive_bayes.__all__) <= set(bayeskit.__all__)
    for name in bayeskit.naive_bayes.__all__:
        assert getattr(bayeskit, name) is getattr(bayeskit.naive_bayes, name)
    namespace: dict[str, object] = {}
    exec("from bayeskit import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(bayeskit.__all__)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        bayeskit.NoSuchThing  # noqa: B018
    assert bayeskit.text.__name__ == "bayeskit.text"  # subpackages load on first use
