"""What ``bayeskit explain`` and ``bayeskit inspect`` compute: the input read as the model reads
it, one decision split into the prior and one term per feature, and a model's class means and
top features (the commands themselves, in :mod:`.inspect_cmd`, import this when they run)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..contract import contract_of
from ..errors import BayeskitError, ParameterError
from ..io.readers import ReadError, list_names
from .models import column_kinds, conform, is_email_model, is_text_model, training_columns
from .output import note


@dataclass
class Decision:
    """The log-odds of ``label`` against ``versus`` for one input, feature by feature.

    ``exact``: ``log_odds == prior + intercept + sum of the contributions``, ``prior`` the
    log-odds of the classes' priors and ``intercept`` the rest of a linear model's bias (a
    Bernoulli model's every observed feature absent, LDA's class means; see
    :class:`bayeskit.inspection.Explanation`). Otherwise (a model whose features interact
    within a class) each contribution is the log-odds less the log-odds with that one value
    missing, and ``interactions`` the part no single value accounts for."""

    label: Any
    versus: Any
    probability: float  # P(label | x)
    log_odds: float
    prior: float
    contributions: list[tuple[str, float]]  # (feature, share of the log-odds), largest first
    exact: bool = True
    interactions: float = 0.0
    intercept: float = 0.0


def plain_value(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ------------------------------------------------------------------ reading the input
def read_input(raw: str) -> bytes | str:
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


def read_document(model: Any, raw: str) -> Any:
    content = read_input(raw)
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


def row_frame(model: Any, row: dict[str, Any]) -> Any:
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
    absent = [c for c in columns if row.get(c) is None]
    takes_missing = model.__sklearn_tags__().input_tags.allow_nan
    # (a model explain refuses anyway, QDA, says why whatever the row)
    if absent and not takes_missing and contract_of(model).feature_terms:
        raise ReadError(
            f"the row has no value for {list_names([repr(c) for c in absent], 10)}; "
            f"{type(model).__name__} takes no missing values: give every column ("
            f"{list_names(columns)})",
            column=absent[0],
        )
    kinds = column_kinds(model)
    families = getattr(model, "feature_families_", None) or {}
    values = {c: [_as_read(c, row.get(c), kinds.get(c), families.get(c))] for c in columns}
    return conform(pl.DataFrame(values, strict=False), model, "the row")


def _as_read(column: str, value: Any, kind: str | None, family: str | None) -> Any:
    """A row's value as a table file's reader reads its field: ``true``/``false`` in any case
    (``True``, ``FALSE``) a boolean outside a column of text categories. A boolean column
    (the Bernoulli family's) refuses any other text, naming what it takes."""
    if not isinstance(value, str) or kind == "text":
        return value
    word = value.strip().lower()
    if word in ("true", "false"):
        return word == "true"
    if family == "bernoulli":
        raise ReadError(
            f"the row's column {column!r} holds {value!r}; it takes true or false (in any "
            "case), 1 or 0, or null for a missing value",
            column=column,
        )
    return value


# ------------------------------------------------------------------ computing the decision
def decide(model: Any, x: Any, label: Any = None, versus: Any = None) -> Decision:
    """Explain one input (a document, or a one-row DataFrame for a table model)."""
    if is_text_model(model):
        e = model.explain(x, label=label, versus=versus)
        proba = model.predict_proba([x])[0]
        return _decision(model, e, proba, table=False)
    model = _explained(model)
    if hasattr(model, "feature_log_factors"):  # a network's exact split (TAN, KDB)
        return _by_factors(model, x, label, versus)
    from ..inspection import explain as explain_linear

    try:
        getattr(model, "linear_discriminant", _not_linear)()
    except BayeskitError:
        exact = contract_of(model).feature_terms
        if not model.__sklearn_tags__().input_tags.allow_nan:
            raise ParameterError(
                f"{type(model).__name__}'s log-odds is not a sum of one term per feature (its "
                "features interact within a class, and it takes no missing values to leave "
                "one out); explain splits the decisions of linear models (--model lda), naive "
                "Bayes models and TAN/KDB networks; 'bayeskit inspect' shows what it holds"
            ) from None
        return _by_missing(model, x, label, versus, exact=exact)
    e = explain_linear(model, x, label=label, versus=versus)
    return _decision(model, e, model.predict_proba(x)[0], table=True)


def _not_linear() -> None:
    raise ParameterError("the model has no linear form")


def _explained(model: Any) -> Any:
    """The model whose decision is split: a wrapper's (SemiSupervisedNB's) fitted model when
    it has one component per class (the same decision), else the model itself."""
    if contract_of(model).input != "wrapped":
        return model
    inner = model.fitted_estimator()
    return inner if len(inner.classes_) == len(model.classes_) else model


def _by_factors(model: Any, row: Any, label: Any, versus: Any) -> Decision:
    """A network's exact split (:func:`bayeskit.inspection.explain`): feature ``i``'s term is
    the difference of the two classes' ``ln P(x_i | y, x_pa(i))``, so it reads the values of
    the parents it was given (named after ``|``; a missing parent is not one, nor is a value
    the model never saw, which it reads as missing)."""
    from ..inspection import explain

    e = explain(model, row, label=label, versus=versus)
    values = dict(zip(row.columns, row.row(0), strict=True))
    read = dict(zip(row.columns, model.observed_values(row)[0].tolist(), strict=True))
    parents = model.parents_

    def named(feature: str) -> str:
        given = [f"{p}={values[p]}" for p in parents.get(feature, ()) if read[p]]
        return f"{feature}={values[feature]}" + (f" | {', '.join(given)}" if given else "")

    shares = [(named(c.feature), c.weight) for c in e.contributions if c.weight != 0.0]
    k = class_index(model.classes_, e.label)
    proba = float(model.predict_proba(row)[0][k])
    return Decision(e.label, e.versus, proba, e.log_odds, e.prior, shares)


def _decision(model: Any, e: Any, proba: np.ndarray, *, table: bool) -> Decision:
    """A Decision from an inspection.Explanation; terms that move nothing (a column of the
    linear form the classes share) are left out, and a table's numbers show their value."""
    k = int(np.flatnonzero(model.classes_ == e.label)[0])
    shares = [
        (f"{c.feature}={c.value:g}" if table and "=" not in c.feature else c.feature, c.weight)
        for c in e.contributions
        if c.weight != 0.0
    ]
    return Decision(
        e.label, e.versus, float(proba[k]), e.log_odds, e.prior, shares, intercept=e.intercept
    )


def _by_missing(model: Any, row: Any, label: Any, versus: Any, *, exact: bool) -> Decision:
    """For a model that is not linear in its features: each value's own effect, the log-odds
    less the log-odds with that value missing (:func:`bayeskit.inspection.split_by_leaving_out`:
    exact for naive Bayes; where the features interact within a class, ``exact`` False, the
    rest of the log-odds is the interactions')."""
    from ..inspection import split_by_leaving_out

    e, rest = split_by_leaving_out(model, row, label=label, versus=versus)
    shares = [(f"{c.feature}={c.value}", c.weight) for c in e.contributions]
    proba = model.predict_proba(row)[0][class_index(model.classes_, e.label)]
    return Decision(
        e.label,
        e.versus,
        float(proba),
        e.log_odds,
        e.prior,
        shares,
        exact=exact,
        interactions=rest if not exact else 0.0,
    )


def class_index(classes: np.ndarray, label: Any) -> int:
    """The index of the class ``label`` names, as written (booleans of a model file written
    before labels were kept as text: true/false in any case)."""
    hits = np.flatnonzero(classes.astype(str) == str(label))
    if len(hits) == 0 and classes.dtype == bool:
        hits = np.flatnonzero(np.char.lower(classes.astype(str)) == str(label).strip().lower())
    if len(hits) == 0:
        raise ReadError(
            f"{label!r} is not a class; the classes are: {list_names(classes.tolist())}"
        )
    return int(hits[0])


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


def vocabulary_size(model: Any) -> int | None:
    if not is_text_model(model):
        return None
    return len(model.get_feature_names_out())


def top_features_of(model: Any, n: int) -> dict[Any, list[tuple[str, float]]] | None:
    if is_text_model(model):
        return dict(model.top_terms(n))
    try:
        from ..inspection import top_features

        return top_features(model, n)
    except BayeskitError:
        return None
