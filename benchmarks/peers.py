"""What the benchmarks against other programs share: the folds every program gets, the UCI
tables with their missing values, and Weka (where it is, how it reads a table).

Imported by ``accuracy_peers.py`` and ``accuracy_gmm_tables.py`` (run from the project root as
``python benchmarks/<name>.py``, which puts this folder on the path).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold

#: Weka's jar as Debian/Ubuntu's ``weka`` package installs it.
WEKA_JAR = Path("/usr/share/java/weka.jar")


def stratified_folds(X: Any, y: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) of ``k`` stratified folds, shuffled with seed 0: the folds every
    program is given."""
    return list(StratifiedKFold(k, shuffle=True, random_state=0).split(X, y))


def weka_available() -> bool:
    """Whether ``java`` and :data:`WEKA_JAR` are installed."""
    return shutil.which("java") is not None and WEKA_JAR.exists()


def uci_with_missing(name: str, root: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A categorical UCI table (``load_uci_table``) as (X, y) with each ``?`` a missing value:
    X an object array holding None there."""
    from bayeskit.datasets.shared import load_uci_table

    X, y = load_uci_table(name, root)
    X = X.astype(object)
    X[X == "?"] = None
    return X, y


def arff_value(v: Any, number: bool) -> str:
    """One ARFF field: ``?`` for a missing value (None or NaN), a number, or a quoted
    nominal value."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "?"
    if number:
        return repr(float(v))
    return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(
    path: Path,
    rows: Iterable[Sequence[Any]],
    y: Iterable[Any],
    levels: Sequence[Sequence[Any] | None],
    classes: Sequence[Any],
) -> None:
    """An ARFF file of ``rows`` and their labels ``y``: column ``j`` numeric where
    ``levels[j]`` is None, else nominal over ``levels[j]``; the class last, over ``classes``."""
    lines = ["@relation fold"]
    for j, values in enumerate(levels):
        kind = "numeric"
        if values is not None:
            kind = "{" + ",".join(arff_value(v, False) for v in values) + "}"
        lines.append(f"@attribute v{j} {kind}")
    lines.append("@attribute class {" + ",".join(arff_value(c, False) for c in classes) + "}")
    lines.append("@data")
    for row, label in zip(rows, y, strict=True):
        cells = [arff_value(v, levels[j] is None) for j, v in enumerate(row)]
        lines.append(",".join([*cells, arff_value(label, False)]))
    path.write_text("\n".join(lines) + "\n")
