"""``bayeskit explain`` (the contributions behind one decision) and ``bayeskit inspect`` (what a
model file holds)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..errors import BayeskitError, ParameterError
from ..io.readers import ReadError, list_names
from .models import (
    conform,
    describe,
    is_email_model,
    is_text_model,
    load_model,
    training_columns,
)
from .output import note, out_console
from .train import families_line

ROW_HELP = """For a text model: the text itself, @FILE (or the name of an existing file) to
read a file (an e-mail for an e-mail model), or - for standard input. For a table model: the
row as a JSON object ('{"odor": "f", "age": 41}') or as COLUMN=VALUE pairs separated by commas
('odor=f,age=41'), given the same ways; numbers, true/false and null are read as such,
anything else as text; a column left out is a missing value."""


@dataclass
class Decision:
    """The log-odds of ``label`` against ``versus`` for one input, feature by feature."""

    label: Any
    versus: Any
    probability: float  # P(label | x)
    log_odds: float
    prior: float
    contributions: list[tuple[str, float]]  # (feature, share of the log-odds), largest first


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ------------------------------------------------------------------ reading the input
def _read_input(raw: str) -> bytes | str:
    """The input itself: standard input for ``-``, the file for ``@FILE`` or for the name of
    an existing file (with a note: a text that happens to name a file is read from the
    file), else the argument."""
    if raw == "-":
        return sys.stdin.buffer.read()
    if raw.startswith("@"):
        path = Path(raw[1:])
        if not path.is_file():
            raise ReadError(f"{raw[1:]}: no such file (after @); check the path", path=raw[1:])
        return path.read_bytes()
    if "\n" not in raw and len(raw) < 4096 and Path(raw).is_file():
        note(
            f"{raw} is a file: explaining what it holds (@{raw} says so; to explain the words "
            f"'{raw}' themselves, pipe them in: echo '{raw}' | bayeskit explain MODEL -)"
        )
        return Path(raw).read_bytes()
    return raw


def _document(model: Any, raw: str) -> Any:
    content = _read_input(raw)
    if is_email_model(model):
        from ..text.email import read_message

        return read_message(content if isinstance(content, bytes) else content.encode())
    if isinstance(content, bytes):
        return content.decode("utf-8", errors="replace")
    return content


def _scalar(text: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if value is None or isinstance(value, (bool, int, float, str)) else text


def parse_row(raw: str) -> dict[str, Any]:
    """A row given as a JSON object or as ``column=value,…`` pairs."""
    text = raw.strip()
    if text.startswith("{"):
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReadError(
                f"the row is not valid JSON ({exc.msg} at column {exc.colno}); write it as "
                "'{\"column\": value, ...}' or column=value,..."
            ) from None
        if not isinstance(row, dict):
            raise ReadError('the row must be a JSON object: {"column": value, ...}')
        nested = [k for k, v in row.items() if isinstance(v, (list, dict))]
        if nested:
            raise ReadError(
                f"the row's value for {nested[0]!r} is a JSON "
                f"{'array' if isinstance(row[nested[0]], list) else 'object'}; "
                "give each column one number, true/false, text or null",
                column=str(nested[0]),
            )
        return {str(k): v for k, v in row.items()}
    row = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        column, sep, value = pair.partition("=")
        if not sep or not column.strip():
            raise ReadError(
                f"{pair!r} is not COLUMN=VALUE; write the row as column=value,... or as a "
                "JSON object"
            )
        row[column.strip()] = _scalar(value.strip())
    if not row:
        raise ReadError("the row is empty; give column=value pairs or a JSON object")
    return row


def _row_frame(model: Any, row: dict[str, Any]) -> Any:
    """A one-row DataFrame in the model's column order and value types."""
    import polars as pl

    columns = training_columns(model)
    if columns is None:
        raise ReadError("this model was trained without column names; it cannot take a row")
    unknown = [c for c in row if c not in columns]
    if unknown:
        raise ReadError(
            f"the model has no column {list_names([repr(c) for c in unknown], 10)}; its "
            f"columns are: {list_names(columns)}",
            column=unknown[0],
        )
    values = {c: [row.get(c)] for c in columns}
    return conform(pl.DataFrame(values, strict=False), model, "the row")


# ------------------------------------------------------------------ computing the decision
def decide(model: Any, x: Any, label: Any = None, versus: Any = None) -> Decision:
    """Explain one input (a document, or a one-row DataFrame for a table model)."""
    if is_text_model(model):
        e = model.explain(x, label=label, versus=versus)
        proba = model.predict_proba([x])[0]
        return _decision(model, e, proba, table=False)
    try:
        model.linear_discriminant()
    except BayeskitError:
        if not model.__sklearn_tags__().input_tags.allow_nan:
            raise ParameterError(
                f"{type(model).__name__}'s log-odds is not a sum of one term per feature (its "
                "covariances differ between classes, so features interact); explain splits "
                "the decisions of linear models (--model lda) and naive Bayes models; "
                "'bayeskit inspect' shows this model's class means"
            ) from None
        return _by_missing(model, x, label, versus)
    from ..inspection import explain as explain_linear

    e = explain_linear(model, x, label=label, versus=versus)
    return _decision(model, e, model.predict_proba(x)[0], table=True)


def _decision(model: Any, e: Any, proba: np.ndarray, *, table: bool) -> Decision:
    """A Decision from an inspection.Explanation; terms that move nothing (a column of the
    linear form the classes share) are left out, and a table's numbers show their value."""
    k = int(np.flatnonzero(model.classes_ == e.label)[0])
    shares = [
        (f"{c.feature}={c.value:g}" if table and "=" not in c.feature else c.feature, c.weight)
        for c in e.contributions
        if c.weight != 0.0
    ]
    return Decision(e.label, e.versus, float(proba[k]), e.log_odds, e.prior, shares)


def _by_missing(model: Any, row: Any, label: Any, versus: Any) -> Decision:
    """For a model that is not linear in its features: a Naive Bayes log-odds is the prior's
    plus one term per feature, and a missing value contributes nothing, so each feature's term
    is the log-odds minus the log-odds with that one value missing (exact, not a
    sensitivity)."""
    import polars as pl

    columns = list(row.columns)
    blanked = [row] + [row.with_columns(pl.lit(None).cast(row.schema[c]).alias(c)) for c in columns]
    blanked.append(row.select(pl.lit(None).cast(row.schema[c]).alias(c) for c in columns))
    jll = model.predict_joint_log_proba(pl.concat(blanked))
    classes = model.classes_
    order = np.argsort(-jll[0])
    a = int(order[0]) if label is None else _index(classes, label)
    b = (int(order[1]) if a == int(order[0]) else int(order[0])) if versus is None else None
    b = _index(classes, versus) if b is None else b
    odds = jll[:, a] - jll[:, b]
    terms = odds[0] - odds[1 : len(columns) + 1]
    present = [j for j, c in enumerate(columns) if row.get_column(c).null_count() == 0]
    rank = sorted(present, key=lambda j: -abs(terms[j]))
    values = row.row(0)
    shares = [(f"{columns[j]}={values[j]}", float(terms[j])) for j in rank]
    proba = model.predict_proba(row)[0]
    return Decision(
        _plain(classes[a]),
        _plain(classes[b]),
        float(proba[a]),
        float(odds[0]),
        float(odds[-1]),
        shares,
    )


def _index(classes: np.ndarray, label: Any) -> int:
    hits = np.flatnonzero(classes.astype(str) == str(label))
    if len(hits) == 0:
        raise ReadError(
            f"{label!r} is not a class; the classes are: {list_names(classes.tolist())}"
        )
    return int(hits[0])


# ------------------------------------------------------------------ commands
def explain(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    item: Annotated[str, typer.Argument(metavar="TEXT|ROW", help=ROW_HELP)],
    label: Annotated[str | None, typer.Option("--label", help="Class to explain.")] = None,
    versus: Annotated[str | None, typer.Option("--versus", help="Class compared.")] = None,
    top: Annotated[int, typer.Option("--top", help="Features to show.")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The contributions behind one decision: the log-odds of the predicted class against the
    runner-up, split exactly into the prior and one term per feature."""
    model = load_model(model_file)
    if label is not None:
        label = _plain(model.classes_[_index(model.classes_, label)])
    if versus is not None:
        versus = _plain(model.classes_[_index(model.classes_, versus)])
    if is_text_model(model):
        x = _document(model, item)
    else:
        content = _read_input(item)
        row = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
        x = _row_frame(model, parse_row(row))
    d = decide(model, x, label, versus)
    if as_json:
        out = {
            "label": d.label,
            "versus": d.versus,
            "probability": d.probability,
            "log_odds": d.log_odds,
            "prior": d.prior,
            "contributions": [{"feature": f, "log_odds": w} for f, w in d.contributions],
        }
        print(json.dumps(out, indent=2, ensure_ascii=False, default=str))
        return
    console = out_console()
    # A calibrated SpamFilter's P is Platt's map of the count model's log-odds, which the
    # terms below add up to.
    calibrated = tuple(model.__dict__.get("calibration_", (1.0, 0.0))) != (1.0, 0.0)
    p_of = f"P = {d.probability:.4f}{', calibrated' if calibrated else ''}"
    odds = "the model's log-odds" if calibrated else "log-odds"
    console.print(f"{d.label!r} ({p_of}) vs {d.versus!r}: {odds} {d.log_odds:+.3f}")
    console.print(f"  {'(prior)':<28} {d.prior:+8.3f}")
    for feature, weight in d.contributions[:top]:
        console.print(f"  {feature:<28} {weight:+8.3f}", markup=False)
    rest = d.contributions[top:]
    if rest:
        console.print(f"  … {len(rest)} more features, together {sum(w for _, w in rest):+.3f}")


def inspect(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    top: Annotated[int, typer.Option("--top", help="Features per class.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """What a model file holds: the model, its classes and priors, the family of each column
    and the features that most favour each class."""
    model = load_model(model_file)
    classes = [_plain(c) for c in model.classes_]
    priors = np.exp(model.class_log_prior_)
    counts = model.class_count_
    tops = _top(model, top)
    means = class_means(model, top)
    if as_json:
        out = {
            "model": describe(model),
            "classes": [
                {"label": c, "prior": float(p), "count": float(n)}
                for c, p, n in zip(classes, priors, counts, strict=True)
            ],
            "families": getattr(model, "feature_families_", None),
            "columns": training_columns(model) if not is_text_model(model) else None,
            "vocabulary": _vocabulary_size(model),
            "top_features": {
                str(c): [{"feature": f, "weight": w} for f, w in v] for c, v in (tops or {}).items()
            },
        }
        if means is not None:
            out["class_means"] = {
                str(c): dict(zip(means[0], row, strict=True))
                for c, row in zip(classes, means[1], strict=True)
            }
        print(json.dumps(out, indent=2, ensure_ascii=False, default=str))
        return
    console = out_console()
    console.print(f"model: {model_file} — {describe(model)}")
    shown_classes = [
        f"{c} (prior {p:.3f}, {n:g} training rows)"
        for c, p, n in zip(classes, priors, counts, strict=True)
    ]
    console.print("classes: " + ", ".join(shown_classes))
    families = families_line(model)
    if families:
        console.print(f"families: {families}", markup=False)
    if is_text_model(model):
        console.print(f"vocabulary: {_vocabulary_size(model)} terms")
    if means is not None:
        columns, table = means
        console.print(f"class means (the {len(columns)} columns whose means differ most):")
        console.print("  " + "  ".join(f"{c:>12}" for c in ["class", *columns]), markup=False)
        for c, row in zip(classes, table, strict=True):
            cells = [f"{v:>12.4g}" for v in row]
            console.print("  " + "  ".join([f"{c!s:>12}", *cells]), markup=False)
    if tops is None and means is not None:
        console.print("top features: none, the decision is quadratic (a covariance per class)")
        return
    if tops is None:
        console.print("top features: the model is not linear in its features; explain shows")
        console.print("  each feature's share of one decision")
        return
    unit = "unit" if means is not None else "occurrence"
    console.print(f"top features per class (log-odds one {unit} adds, vs the mean class):")
    for c, features in tops.items():
        shown = ", ".join(f"{f} {w:+.2f}" for f, w in features)
        console.print(f"  {c}: {shown}", markup=False)


def class_means(model: Any, n: int) -> tuple[list[str], np.ndarray] | None:
    """A discriminant model's class means on the ``n`` columns whose means differ most
    between classes (in within-class standard deviations): (column names, (K, n) means)."""
    means = getattr(model, "means_", None) if hasattr(model, "covariance_") else None
    if means is None:
        return None
    cov = np.asarray(model.covariance_)
    var = np.diagonal(cov, axis1=-2, axis2=-1)
    spread = np.sqrt(var.mean(axis=0) if var.ndim == 2 else var)
    score = np.std(means, axis=0) / np.where(spread > 0, spread, 1.0)
    order = np.argsort(-score, kind="stable")[:n]
    names = training_columns(model) or [f"x{j}" for j in range(means.shape[1])]
    return [names[j] for j in order], means[:, order]


def _vocabulary_size(model: Any) -> int | None:
    if not is_text_model(model):
        return None
    return len(model.get_feature_names_out())


def _top(model: Any, n: int) -> dict[Any, list[tuple[str, float]]] | None:
    if is_text_model(model):
        return dict(model.top_terms(n))
    try:
        from ..inspection import top_features

        return top_features(model, n)
    except BayeskitError:
        return None
