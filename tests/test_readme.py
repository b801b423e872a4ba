"""The examples of the README and of the documentation's pages (``docs/**/*.md``) run, from a
copy of the repository as a fresh clone has it, and print what the page shows.

Blocks the test runs (other fences, such as ``bash`` or ``python``, are illustrations):

- ```` ```console ````: a shell session. ``$ `` starts a command (``> `` continues it), and
  the lines up to the next command are its output, standard error included. A line ``...``
  stands for any number of lines. Timings (``0.43 s``) are compared as ``<T> s``; other
  numbers to 1e-9 relative (a probability's last digits differ between machines), and file
  sizes (``4.5 KB``) to 1 % or one step of their last digit (a compressed model file's size
  moves with them).
- ```` ```pycon ````: a Python session, run by doctest (``...`` elides within a line too).

The blocks of one ``## `` section of one page are one session, run in order in one fresh
clone (files a command writes, names a Python block defines, are there for the next block);
sections run apart (in parallel under xdist).

A block preceded by ``<!-- readme-test: needs FOLDER ... -->`` uses the public datasets:
it runs with ``BAYESKIT_DATA`` set to the shared data folder when that folder holds every
FOLDER, and is skipped otherwise (printed paths under it read ``$BAYESKIT_DATA``). Every
other block runs without it, as on a machine that has only the clone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bayeskit.datasets.shared import data_dir

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The README, then every Markdown page of the documentation (not its build or generated pages).
PAGES = [
    README,
    *sorted(
        path
        for path in DOCS.rglob("*.md")
        if not path.relative_to(DOCS).parts[0].startswith(("_build", "auto_examples", "api"))
    ),
]
# a code fence: ```console, ```pycon, ```python…, or a MyST directive (```{toctree})
_FENCE = re.compile(r"^```(\w*|\{[\w:-]+\}.*)\s*$")
_NEEDS = re.compile(r"^<!--\s*readme-test:\s*needs\s+(.+?)\s*-->$")
_TIMING = re.compile(r"\b\d+(?:\.\d+)? s\b")
# a number, and the unit of a size when one follows it (the split keeps both groups)
_NUMBER = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)( (?:B|KB|MB|GB)\b)?")
_DIGITS = 1e-9
_SIZE = 0.01
_COMPILING = "bayeskit: first run: compiling kernels"


@dataclass
class Block:
    kind: str  # "console" or "pycon"
    line: int  # where it starts in its page
    text: str
    needs: list[str] = field(default_factory=list)
    section: str = ""  # the "## " heading it is under
    source: str = "README.md"  # the page, relative to the repository


def readme_blocks(text: str, source: str = "README.md") -> list[Block]:
    blocks: list[Block] = []
    lines = text.splitlines()
    section = ""
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            if lines[i].startswith("## "):
                section = lines[i][3:].strip()
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        if fence.group(1) in ("console", "pycon"):
            needs = _NEEDS.match(lines[i - 1].strip()) if i else None
            body = "\n".join(lines[i + 1 : end]) + "\n"
            found = needs.group(1).split() if needs else []
            blocks.append(Block(fence.group(1), i + 2, body, found, section, source))
        i = end + 1
    return blocks


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console block."""
    found: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif line.startswith("> ") and found and not found[-1][1]:
            found[-1] = (found[-1][0] + "\n" + line[2:], [])
        elif found:
            found[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"{block.source}:{block.line}: output before any '$ ' command")
    for _, expected in found:
        while expected and not expected[-1].strip():
            expected.pop()
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """``actual`` equals ``expected``, where an expected line ``...`` is any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and same_line(expected[0], actual[0]) and matches(expected[1:], actual[1:])


def same_line(expected: str, actual: str) -> bool:
    """The same text, and the same numbers to ``_DIGITS`` relative (a file size to
    ``_SIZE``): the last digits of a probability printed in full, and a compressed model
    file's size, differ between machines (the SIMD paths of exp and log, the BLAS kernels),
    while a number rounded for the page (an accuracy, a count) must match as written. A
    size may differ by 1 % or by one step of its last printed digit."""
    if expected == actual:
        return True
    want, got = _NUMBER.split(expected), _NUMBER.split(actual)
    if len(want) != len(got) or want[0::3] != got[0::3] or want[2::3] != got[2::3]:
        return False
    for a, unit, b in zip(want[1::3], want[2::3], got[1::3], strict=True):
        x, y = float(a), float(b)
        allowed = _DIGITS * max(abs(x), abs(y))
        if unit:  # a size: 1 %, or one step of its last printed digit
            step = 10.0 ** -len(a.partition(".")[2])
            allowed = max(_SIZE * max(abs(x), abs(y)), step)
        if abs(x - y) > allowed * (1 + 1e-12):
            return False
    return True


def _normal(text: str, data: Path | None) -> list[str]:
    if data is not None:
        text = text.replace(str(data), "$BAYESKIT_DATA")
    lines = [line.rstrip() for line in _TIMING.sub("<T> s", text).splitlines()]
    return [line for line in lines if not line.startswith(_COMPILING)]


# ------------------------------------------------------------------ a fresh clone
@pytest.fixture
def clone(tmp_path) -> Path:
    """The repository's files as a clone has them (tracked, plus new files not ignored), in
    a folder with no shared data beside it."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    target = tmp_path / "clone" / "bayeskit"
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _environment(data: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAYESKIT_", "PYTEST"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    # progress lines (stderr is not a terminal here) depend on how busy the machine is
    env["BAYESKIT_PROGRESS_SECONDS"] = "1e9"
    env.pop("PYTHONPATH", None)
    if data is not None:
        env["BAYESKIT_DATA"] = str(data)
    return env


def _data_for(blocks: list[Block]) -> Path | None:
    needed = sorted({folder for block in blocks for folder in block.needs})
    if not needed:
        return None
    root = data_dir()
    if root is None or not all((root / folder).is_dir() for folder in needed):
        pytest.skip(f"the README's examples with {', '.join(needed)} need the shared data")
    return root


def _run_console(blocks: list[Block], cwd: Path) -> None:
    data = _data_for(blocks)
    env = _environment(data)
    failures = []
    for block in blocks:
        for command, expected in commands(block):
            run = subprocess.run(
                ["bash", "-c", command],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,  # one stream, in the order written, as on a terminal
                text=True,
                timeout=600,
            )
            actual = _normal(run.stdout, data)
            if not matches(_normal("\n".join(expected), data), actual):
                failures.append(
                    f"{block.source}:{block.line}: $ {command}\n--- the page shows:\n"
                    + "\n".join(expected)
                    + "\n--- the command printed:\n"
                    + "\n".join(actual)
                )
    assert not failures, "\n\n".join(failures)


_DOCTEST_RUNNER = """
import doctest, json, sys
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
parser = doctest.DocTestParser()
runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
names = {"__name__": "__readme__"}  # one session: the blocks share their names
for line, text, source in blocks:
    test = parser.get_doctest(text, names, source, source, line - 1)
    runner.run(test, clear_globs=False)
    names = test.globs  # (a DocTest copies the names it is given)
sys.exit(1 if runner.failures else 0)
"""


def _run_pycon(blocks: list[Block], cwd: Path) -> None:
    data = _data_for(blocks)
    session = cwd.parent / "readme-session.json"
    session.write_text(json.dumps([(b.line, b.text, b.source) for b in blocks]), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_DOCTEST_RUNNER), str(session)],
        cwd=cwd,
        env=_environment(data),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr


BLOCKS = [
    block
    for page in PAGES
    for block in readme_blocks(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())
]
SESSIONS: dict[tuple[str, str, str, bool], list[Block]] = {}
for _block in BLOCKS:
    _key = (_block.source, _block.kind, _block.section, bool(_block.needs))
    SESSIONS.setdefault(_key, []).append(_block)


def _name(key: tuple[str, str, str, bool]) -> str:
    source, kind, section, data = key
    return f"{source} {kind}: {section}" + (" (public datasets)" if data else "")


def test_the_readme_has_runnable_examples():
    readme = [b for b in BLOCKS if b.source == "README.md"]
    assert {b.kind for b in readme if not b.needs} == {"console", "pycon"}
    assert sum(len(commands(b)) for b in readme if b.kind == "console" and not b.needs) >= 5
    assert all(commands(b) for b in BLOCKS if b.kind == "console")


# The user guide's topics: each page shows examples the test runs.
GUIDE_TOPICS = [
    "decision-rule",
    "event-models",
    "estimation",
    "discriminant",
    "mixtures",
    "text",
    "incremental",
    "model-files",
    "cli",
    "service",
    "dask",
]


@pytest.mark.parametrize("topic", GUIDE_TOPICS)
def test_each_guide_topic_has_runnable_examples(topic):
    source = f"docs/guide/{topic}.md"
    assert (ROOT / source).is_file(), f"{source} is missing"
    assert any(b.source == source for b in BLOCKS), f"{source} has no console or pycon example"


def _session(key: tuple[str, str, str, bool]) -> Any:
    """The README's sessions run in the default suite; the guide pages' command-line sessions
    (a fresh process per command, 10-80 s each) are marked ``tour``: .ci/run runs them after
    the default suite (``python -m pytest -m tour``)."""
    source, kind = key[0], key[1]
    marks = [pytest.mark.tour] if source != "README.md" and kind == "console" else []
    return pytest.param(key, id=_name(key), marks=marks)


@pytest.mark.parametrize("key", [_session(k) for k in SESSIONS])
def test_readme_session_runs_as_shown(clone, key):
    """Each page section's examples, from a fresh clone (with BAYESKIT_DATA only for the blocks
    marked as needing the public datasets)."""
    blocks = SESSIONS[key]
    if key[1] == "console":
        _run_console(blocks, clone)
    else:
        _run_pycon(blocks, clone)


# ------------------------------------------------------------------ the checker itself
def test_the_block_parser_and_the_matcher():
    text = textwrap.dedent(
        """\
        ```console
        $ echo one
        one

        $ printf 'a\\nb\\nc\\n'
        a
        ...
        ```

        <!-- readme-test: needs uci-spambase -->
        ```pycon
        >>> 1 + 1
        2
        ```

        ```bash
        pip install .
        ```
        """
    )
    blocks = readme_blocks(text)
    assert [(b.kind, b.needs) for b in blocks] == [("console", []), ("pycon", ["uci-spambase"])]
    assert commands(blocks[0]) == [("echo one", ["one"]), ("printf 'a\\nb\\nc\\n'", ["a", "..."])]
    assert matches(["a", "..."], ["a", "b", "c"])
    assert matches(["a", "...", "c"], ["a", "b", "c"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])
    assert matches(["1,spam,0.0008555724406502188"], ["1,spam,0.0008555724406502172"])
    assert matches(["p 1.852784109024231e-41"], ["p 1.8527841090247576e-41"])
    assert not matches(["accuracy: 0.9905"], ["accuracy: 0.9906"])
    assert not matches(["1,spam,0.00085557"], ["1,ham,0.00085557"])
    assert not matches(["caught 3 of 4"], ["caught 3 of 4 rows"])
    assert matches(["wrote gmm.bk (4.5 KB)"], ["wrote gmm.bk (4.6 KB)"])
    assert not matches(["wrote gmm.bk (4.5 KB)"], ["wrote gmm.bk (4.7 KB)"])
    assert matches(["sms.bk (345.5 KB)"], ["sms.bk (348.9 KB)"])
    assert not matches(["sms.bk (345.5 KB)"], ["sms.bk (350.5 KB)"])
    assert not matches(["4.5 KB"], ["4.6 MB"])
    assert not matches(["4.5 files"], ["4.6 files"])
    assert _normal("wrote m.bk in 0.43 s\ntime: 12 s\n", None) == [
        "wrote m.bk in <T> s",
        "time: <T> s",
    ]
    continued = Block("console", 1, "$ cat > f <<'EOF'\n> x,y\n> EOF\n$ cat f\nx,y\n")
    assert commands(continued) == [("cat > f <<'EOF'\nx,y\nEOF", []), ("cat f", ["x,y"])]
