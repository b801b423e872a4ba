"""``bayeskit example``: write a dataset that ships with bayeskit or scikit-learn as a CSV, so that
every command can be tried (and the README followed) without downloading anything."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from .options import ForceOpt


@dataclass(frozen=True)
class Example:
    """A dataset: what it is, its class column, and how to build its rows."""

    about: str
    target: str
    rows: Callable[[], tuple[list[str], list[list[Any]]]]  # (header, rows)


def _sms() -> tuple[list[str], list[list[Any]]]:
    from ..datasets import load_sms_spam

    texts, labels = load_sms_spam()
    return ["label", "text"], [[label, text] for label, text in zip(labels, texts, strict=True)]


def _sklearn(loader: str, target: str, *, ids: bool = False) -> Callable[[], Any]:
    def rows() -> tuple[list[str], list[list[Any]]]:
        from sklearn import datasets

        bunch = getattr(datasets, loader)()
        names = [str(n) for n in bunch.feature_names]
        labels = [str(bunch.target_names[k]) for k in bunch.target]
        header = [*(["id"] if ids else []), *names, target]
        values = bunch.data.tolist()
        body = [
            [*([i + 1] if ids else []), *row, label]
            for i, (row, label) in enumerate(zip(values, labels, strict=True))
        ]
        return header, body

    return rows


EXAMPLES: dict[str, Example] = {
    "sms": Example(
        "the SMS Spam Collection v.1 (Almeida et al., 2011; CC BY 4.0), shipped with bayeskit",
        "label",
        _sms,
    ),
    "breast-cancer": Example(
        "Wisconsin diagnostic breast cancer (scikit-learn's load_breast_cancer), with the row "
        "number as an id column",
        "diagnosis",
        _sklearn("load_breast_cancer", "diagnosis", ids=True),
    ),
    "wine": Example(
        "UCI wine recognition (scikit-learn's load_wine)",
        "cultivar",
        _sklearn("load_wine", "cultivar"),
    ),
    "iris": Example(
        "Fisher's iris (scikit-learn's load_iris)", "species", _sklearn("load_iris", "species")
    ),
    "digits": Example(
        "8x8 handwritten digits (scikit-learn's load_digits)",
        "digit",
        _sklearn("load_digits", "digit"),
    ),
}


def example(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help=f"The dataset: {', '.join(EXAMPLES)}."),
    ],
    output: Annotated[
        str | None,
        typer.Option(
            "--output", "-o", metavar="FILE", help="CSV file to write (default: NAME.csv)."
        ),
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Write an example dataset to try the commands on: the bundled SMS Spam Collection or one
    of scikit-learn's tables, as CSV."""
    from .output import check_output_path, human_size, out_console, write_atomic

    found = EXAMPLES.get(name)
    if found is None:
        raise typer.BadParameter(
            f"{name!r} is not an example; choose one of: {', '.join(EXAMPLES)}",
            param_hint="NAME",
        )
    path = output if output is not None else f"{name}.csv"
    header, rows = found.rows()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    payload = buffer.getvalue()
    check_output_path(
        path,
        force=force,
        replaceable=lambda p: _holds(p, payload),
        what=f"this example ({name})",
    )
    write_atomic(path, payload)
    console = out_console()
    console.print(
        f"wrote {path} ({human_size(len(payload.encode()))}): {len(rows)} rows × "
        f"{len(header)} columns, {found.about}"
    )
    console.print(f"next: bayeskit train {path} --target {found.target} -o {name}.bk")


def _holds(path: Path, payload: str) -> bool:
    try:
        return path.read_text("utf-8") == payload
    except (OSError, UnicodeDecodeError):
        return False
