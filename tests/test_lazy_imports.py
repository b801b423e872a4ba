"""Cold start: what each entry point imports (issue 12 §4). Import sets, not timings — the
timings are measured by benchmarks/startup.py."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import bayeskit
import bayeskit.naive_bayes

HEAVY = ("numba", "polars", "sklearn", "scipy", "numpy", "pandas", "rich", "pydantic")


def _probe(code: str, report: str, stdin: str | None, cwd: Path | None) -> set[str]:
    """Run ``code`` in a fresh interpreter, then the expression ``report`` (a set of module
    names, printed last as JSON): what it gives."""
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json, sys
        print("\\n" + json.dumps(sorted({report})))
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


def _loaded(code: str, stdin: str | None = None, cwd: Path | None = None) -> set[str]:
    """The heavy top-level packages imported after ``code`` runs in a fresh interpreter."""
    return _probe(code, f'{{m.split(".")[0] for m in sys.modules}} & {set(HEAVY)!r}', stdin, cwd)


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
        from bayeskit.cli import main, mail_headers
        # at a terminal (the filter's help goes to standard error, and the message through,
        # when standard input is not one)
        mail_headers.at_a_terminal = lambda: True
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


#: what importing scikit-learn brings (``sklearn.base`` loads SciPy's statistics and pandas):
#: seconds, many times what a small fit takes
SKLEARN_AND_WHAT_IT_LOADS = {"sklearn", "scipy.stats", "pandas"}


def _modules_after(code: str, stdin: str | None = None, cwd: Path | None = None) -> set[str]:
    """Which of scikit-learn, SciPy's statistics and pandas ``code`` imports in a fresh
    interpreter."""
    return _probe(code, f"set(sys.modules) & {SKLEARN_AND_WHAT_IT_LOADS!r}", stdin, cwd)


@pytest.mark.parametrize(
    ("model", "data"),
    [
        ("TANClassifier()", "rng.choice(np.array(['lo', 'mid', 'hi'], dtype=object), (80, 4))"),
        ("TANClassifier()", "rng.integers(0, 3, (80, 4))"),
        ("MultinomialNB()", "rng.integers(0, 5, (80, 6))"),
        ("MultinomialNB()", "sp.csr_matrix(rng.integers(0, 2, (80, 6)))"),
        ("GaussianNB()", "rng.normal(size=(80, 3))"),
        ("MixedNB()", "rng.integers(0, 4, (80, 3))"),
        ("MixedNB()", "rng.normal(size=(80, 3))"),
    ],
)
def test_fit_and_predict_on_arrays_import_no_sklearn(model, data):
    """A fit and a prediction on arrays (labels a list, a numpy array of numbers or of
    strings) import neither scikit-learn nor what it loads: a one-shot script pays only for
    the work."""
    code = f"""
        import numpy as np
        import scipy.sparse as sp
        import bayeskit
        rng = np.random.default_rng(0)
        X = {data}
        for y in (rng.integers(0, 2, 80), list(rng.choice(["ham", "spam"], 80)),
                  rng.choice(["a", "b", "c"], 80), rng.integers(0, 2, 80).astype(float)):
            m = bayeskit.{model}.fit(X, y)
            assert len(m.predict(X)) == 80
            assert 0 <= m.predict_proba(X).min()
            repr(m), m.get_params(), m.set_params(**m.get_params(deep=False))
        """
    assert _modules_after(code) == set()


def test_main_job_and_one_line_predict_import_no_sklearn(tmp_path):
    """The main job (cross-validating the spam filter, its folds scikit-learn's) and the
    one-line prediction of a text model import neither scikit-learn nor what it loads."""
    from bayeskit.datasets import load_sms_spam
    from bayeskit.text import SpamFilter

    code = "from bayeskit.cli.main_job import run; run(folds=3)"
    assert _modules_after(code, cwd=tmp_path) == set()
    texts, labels = load_sms_spam()
    bayeskit.save(SpamFilter().fit(texts[:500], labels[:500]), tmp_path / "sms.bk")
    code = "from bayeskit.cli import main; main(['predict', 'sms.bk', '-'])"
    assert _modules_after(code, stdin="WINNER!! free prize\n", cwd=tmp_path) == set()


@pytest.mark.parametrize("model", ["auto", "gaussian", "lda"])
def test_the_command_line_on_a_numeric_table_imports_no_sklearn(tmp_path, model):
    """Training on a CSV of numbers, predicting and evaluating from the command line: the
    table's names are checked as scikit-learn checks them (tests/test_params.py), without
    importing it (its import is most of a small table's wall time)."""
    rng = np.random.default_rng(0)
    rows = [f"{a:.3f},{b:.3f},{c:.3f},{'yn'[int(a > 0)]}" for a, b, c in rng.normal(size=(60, 3))]
    (tmp_path / "t.csv").write_text("a,b,c,label\n" + "\n".join(rows) + "\n")
    for args in (
        ["train", "t.csv", "-t", "label", "-m", model, "-o", "t.bk"],
        ["predict", "t.bk", "t.csv"],
        ["evaluate", "t.bk", "t.csv"],
    ):
        code = f"from bayeskit.cli import main; main({args!r})"
        assert _modules_after(code, cwd=tmp_path) == set(), args


def test_gaussian_nb_on_a_small_table_imports_no_numba():
    """Fitting and predicting GaussianNB on a small table runs numpy's version of the
    compiled loops (the same numbers, tests/stats/test_small_tables.py): numba's import and
    compiler, half a second, are not paid for microseconds of work."""
    code = """
        import numpy as np
        import bayeskit
        rng = np.random.default_rng(0)
        X = rng.normal(size=(150, 4))
        X[::7, 1] = np.nan
        m = bayeskit.GaussianNB().fit(X, rng.integers(0, 3, 150))
        m.predict_proba(X * 1e-9)  # rows the expansion cannot score: rescored
        """
    assert "numba" not in _loaded(code)


@pytest.mark.parametrize("model", ["CategoricalNB", "MixedNB"])
def test_a_small_categorical_table_imports_no_numba(model):
    """Categories as text or as integer codes (MixedNB reads integers as numbers), a fit and
    a prediction: numpy counts and scores a small table's categories (the same numbers,
    tests/stats/test_small_tables.py)."""
    code = f"""
        import numpy as np
        import bayeskit
        rng = np.random.default_rng(0)
        words = rng.choice(np.array(["lo", "mid", "hi"], dtype=object), (100, 4))
        ints = rng.integers(0, 4, (100, 3))
        y = rng.integers(0, 2, 100)
        for X in (words, ints) if "{model}" == "CategoricalNB" else (words,):
            bayeskit.{model}().fit(X, y).predict_proba(X)
        """
    assert "numba" not in _loaded(code)


def test_models_and_errors_are_sklearns_once_sklearn_is_imported():
    """Before scikit-learn is imported nobody can name its BaseEstimator or NotFittedError,
    and raising bayeskit's does not import it; after, every model is a BaseEstimator
    (``check_estimator`` says nothing about it) and the error raised is one of
    scikit-learn's too (as every refusal of an unfitted model was)."""
    code = """
        import sys
        import numpy as np
        import bayeskit
        from bayeskit.errors import NotFittedError
        model = bayeskit.GaussianNB()
        try:
            model.predict(np.ones((2, 2)))
        except NotFittedError as e:
            assert isinstance(e, (ValueError, AttributeError)), type(e).__mro__
        assert not hasattr(model, "classes_")
        assert "sklearn" not in sys.modules
        from sklearn.exceptions import NotFittedError as Theirs
        try:
            model.predict(np.ones((2, 2)))
        except Theirs as e:
            assert isinstance(e, NotFittedError)
            assert type(e).__name__ == "NotFittedError"
        import warnings
        from sklearn.base import BaseEstimator
        from sklearn.utils.estimator_checks import check_estimator
        assert isinstance(model, BaseEstimator)
        assert isinstance(bayeskit.TANClassifier(), BaseEstimator)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*inherit from")
            check_estimator(bayeskit.GaussianNB())
        """
    assert _modules_after(code) == {"sklearn", "scipy.stats", "pandas"}


#: SciPy's modules the models import where they use them (``bayeskit._lazy``): each costs
#: 0.25-0.35 s of CPU to import, most of it SciPy's array-API layer
SCIPY_PARTS = {"scipy.sparse", "scipy.linalg", "scipy.special", "scipy.fft"}


def _scipy_after(code: str) -> set[str]:
    """Which of ``scipy`` itself and :data:`SCIPY_PARTS` ``code`` imports in a fresh
    interpreter."""
    return _probe(code, f"set(sys.modules) & {SCIPY_PARTS | {'scipy'}!r}", None, None)


def test_importing_a_model_imports_no_scipy():
    """Every model but the semi-supervised wrapper (whose views build sparse matrices) is
    importable without SciPy."""
    names = sorted(set(bayeskit._LAZY) - {"SemiSupervisedNB"})
    assert _scipy_after(f"from bayeskit import {', '.join(names)}") == set()


NETWORK_TABLES = [
    "rng.choice(np.array(['lo', 'mid', 'hi'], dtype=object), (300, 5))",
    "np.where(rng.random((300, 5)) < 0.1, None, rng.choice(np.array(['a', 'b'], dtype=object), (300, 5)))",  # noqa: E501
    "rng.choice(np.array(['lo', 'mid', 'hi']), (300, 5))",
    "rng.integers(0, 4, (300, 5))",
]


@pytest.mark.parametrize("data", NETWORK_TABLES)
@pytest.mark.parametrize(
    "model",
    [
        "TANClassifier()",  # the Bayesian Dirichlet edge weight: lnΓ is Python's math.lgamma
        "TANClassifier(edge_weight='cmi')",
        "AODEClassifier()",
        "KDBClassifier(k=2)",
    ],
)
def test_network_classifiers_on_a_categorical_table_import_no_scipy(model, data):
    """TAN (with either edge weight), AODE and KDB fit, update and predict a dense table of
    categories (text, text with missing cells, integers) with numpy alone: no SciPy (the
    class weights are each row's class and weight, the informations' ``x ln y`` is numpy's
    and the Bayesian edge weight's lnΓ Python's), no numba (small tables are counted by
    numpy) and no scikit-learn."""
    code = f"""
        import sys
        import numpy as np
        import bayeskit
        rng = np.random.default_rng(0)
        X = {data}
        y = rng.choice(["a", "b", "c"], 300)
        m = bayeskit.{model}.fit(X, y)
        m.partial_fit(X[:50], y[:50])
        assert len(m.predict(X)) == 300
        assert np.allclose(m.predict_proba(X).sum(axis=1), 1.0)
        assert not {{"numba", "sklearn"}} & set(sys.modules)
        """
    assert _scipy_after(code) == set()


@pytest.mark.parametrize("model", ["MultinomialNB()", "BernoulliNB()", "ComplementNB()"])
def test_count_models_on_a_dense_table_import_only_scipy_sparse(model):
    """The count models summarize with the sparse one-hot matrix of class weights, so they
    load ``scipy.sparse``; the linear algebra, special functions and FFT they do not call
    stay unloaded."""
    code = f"""
        import numpy as np
        import bayeskit
        rng = np.random.default_rng(0)
        X, y = rng.integers(0, 5, (80, 6)), rng.choice(["a", "b"], 80)
        m = bayeskit.{model}.fit(X, y)
        assert len(m.predict(X)) == 80 and m.predict_proba(X).shape == (80, 2)
        """
    assert _scipy_after(code) == {"scipy", "scipy.sparse"}


def test_gaussian_nb_on_a_dense_table_imports_no_special_functions():
    """GaussianNB loads ``scipy.sparse`` (the class weights) and, through numba's kernels,
    ``scipy.linalg``; SciPy's special functions and FFT it does not call stay unloaded."""
    code = """
        import numpy as np
        import bayeskit
        rng = np.random.default_rng(0)
        X, y = rng.normal(size=(80, 3)), rng.choice(["a", "b"], 80)
        assert len(bayeskit.GaussianNB().fit(X, y).predict(X)) == 80
        """
    assert not _scipy_after(code) & {"scipy.special", "scipy.fft"}


def test_sparse_input_is_still_seen_once_scipy_is_imported():
    """``bayeskit._lazy`` answers "is it sparse" without importing SciPy only while no sparse
    matrix can exist; once a caller imports scipy.sparse, sparse input is read (the count
    models: the same model as from the dense table) or refused by name (the networks) as
    before."""
    code = """
        import sys
        import numpy as np
        from bayeskit._lazy import issparse, sparse
        assert not issparse(np.ones((2, 2))) and "scipy.sparse" not in sys.modules
        import scipy.sparse as sp
        import bayeskit
        from bayeskit.errors import InputTypeError
        assert issparse(sp.csr_matrix(np.eye(2))) and issparse(sp.csr_array(np.eye(2)))
        assert not issparse(np.eye(2))
        assert sparse.csr_matrix is sp.csr_matrix and sparse.issparse is issparse
        rng = np.random.default_rng(0)
        X, y = rng.integers(0, 5, (80, 6)), rng.choice(["a", "b"], 80)
        dense = bayeskit.MultinomialNB().fit(X, y)
        ours = bayeskit.MultinomialNB().fit(sp.csr_matrix(X), y)
        np.testing.assert_array_equal(ours.feature_count_, dense.feature_count_)
        np.testing.assert_array_equal(ours.predict_proba(sp.csr_matrix(X)), dense.predict_proba(X))
        for model in (bayeskit.TANClassifier(), bayeskit.AODEClassifier()):
            try:
                model.fit(sp.csr_matrix(X), y)
            except InputTypeError as e:
                assert "sparse matrix" in str(e), e
            else:
                raise AssertionError("a sparse table was not refused")
        """
    assert _scipy_after(code) == {"scipy", "scipy.sparse"}
