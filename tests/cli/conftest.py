"""Small real datasets for the command line, built once per session from the shared folder."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from bayeskit.cli.app import app
from bayeskit.datasets.shared import load_uci_table

MUSHROOM_COLUMNS = [
    "cap-shape",
    "cap-surface",
    "cap-color",
    "bruises",
    "odor",
    "gill-attachment",
    "gill-spacing",
    "gill-size",
    "gill-color",
    "stalk-shape",
    "stalk-root",
    "stalk-surface-above-ring",
    "stalk-surface-below-ring",
    "stalk-color-above-ring",
    "stalk-color-below-ring",
    "veil-type",
    "veil-color",
    "ring-number",
    "ring-type",
    "spore-print-color",
    "population",
    "habitat",
]


@pytest.fixture
def cli() -> Callable[..., object]:
    """Run ``bayeskit ARGS`` in this process; returns typer's Result (exit_code, stdout,
    stderr)."""
    runner = CliRunner()

    def run(*args: object, input: str | bytes | None = None) -> object:
        return runner.invoke(app, [str(a) for a in args], input=input)

    return run


@pytest.fixture(scope="session")
def sms_tsv(shared_data, tmp_path_factory) -> Path:
    """The first 1,500 messages of the SMS Spam Collection as a TSV with a header."""
    lines = (shared_data / "sms-spam-collection" / "SMSSpamCollection").read_text("utf-8")
    path = tmp_path_factory.mktemp("sms") / "sms.tsv"
    path.write_text("label\ttext\n" + "\n".join(lines.splitlines()[:1500]) + "\n", "utf-8")
    return path


@pytest.fixture(scope="session")
def mushroom_csv(shared_data, tmp_path_factory) -> Path:
    """3,000 rows of UCI mushroom as CSV with named columns; '?' (stalk-root unknown) kept."""
    X, y = load_uci_table("mushroom", shared_data)
    frame = pl.DataFrame({c: X[:3000, j] for j, c in enumerate(MUSHROOM_COLUMNS)})
    path = tmp_path_factory.mktemp("mushroom") / "mushroom.csv"
    frame.with_columns(pl.Series("class", y[:3000])).write_csv(path)
    return path


def _copy_some(source: Path, target: Path, n: int, skip: int = 0) -> None:
    target.mkdir(parents=True)
    for file in sorted(p for p in source.iterdir() if p.is_file())[skip : skip + n]:
        shutil.copy(file, target / file.name)


@pytest.fixture(scope="session")
def newsgroups(shared_data, tmp_path_factory) -> tuple[Path, Path]:
    """(train, test) folders: 3 groups of 20 Newsgroups, 25 training and 10 test posts each."""
    base = shared_data / "20newsgroups-bydate"
    root = tmp_path_factory.mktemp("20ng")
    for group in ("comp.graphics", "rec.autos", "sci.space"):
        _copy_some(base / "20news-bydate-train" / group, root / "train" / group, 25)
        _copy_some(base / "20news-bydate-test" / group, root / "test" / group, 10)
    return root / "train", root / "test"


@pytest.fixture(scope="session")
def mail(shared_data, tmp_path_factory) -> Path:
    """ham/ (16 easy_ham messages) and spam/ (12 spam messages) from SpamAssassin."""
    base = shared_data / "spamassassin-public-corpus"
    root = tmp_path_factory.mktemp("mail") / "mail"
    _copy_some(base / "easy_ham", root / "ham", 16)
    _copy_some(base / "spam", root / "spam", 12)
    return root
