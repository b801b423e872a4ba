"""``bayeskit explain`` (the contributions behind one decision) and ``bayeskit inspect`` (what a
model file holds). What they compute is in :mod:`.explaining`, imported when they run: their
``--help`` needs neither numpy nor the models."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

ROW_HELP = """For a text model: the text itself, @FILE (or the name of an existing file) to
read a file (an e-mail for an e-mail model), or - for standard input. For a table model: the
row as a JSON object ('{"odor": "f", "age": 41}') or as COLUMN=VALUE pairs separated by commas
('odor=f,age=41'), given the same ways; numbers, true/false and null are read as such,
anything else as text; a column left out is a missing value."""


# ------------------------------------------------------------------ commands
def explain(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    item: Annotated[str, typer.Argument(metavar="TEXT|ROW", help=ROW_HELP)],
    label: Annotated[str | None, typer.Option("--label", help="Class to explain.")] = None,
    versus: Annotated[str | None, typer.Option("--versus", help="Class compared.")] = None,
    top: Annotated[int, typer.Option("--top", min=0, help="Features to show.")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The contributions behind one decision: the log-odds of the predicted class against the
    runner-up, split exactly into the prior and one term per feature (and, for a Bernoulli,
    Poisson or LDA model, the (intercept): the rest of its bias; a TAN or KDB network's
    term of a feature is read given its parents' values, shown after '|'). Where the features
    interact within a class (AODE, a Gaussian mixture) no such split exists: each term is
    then the log-odds less the log-odds with that one value missing, and '(interactions)'
    the rest; the output says so."""
    from .explaining import (
        class_index,
        decide,
        parse_row,
        plain_value,
        read_document,
        read_input,
        row_frame,
    )
    from .models import is_text_model, load_model
    from .output import out_console

    model = load_model(model_file)
    if label is not None:
        label = plain_value(model.classes_[class_index(model.classes_, label)])
    if versus is not None:
        versus = plain_value(model.classes_[class_index(model.classes_, versus)])
    if is_text_model(model):
        x = read_document(model, item)
    else:
        content = read_input(item)
        row = content.decode("utf-8", errors="replace") if isinstance(content, bytes) else content
        x = row_frame(model, parse_row(row))
    d = decide(model, x, label, versus)
    if as_json:
        out = {
            "label": d.label,
            "versus": d.versus,
            "probability": d.probability,
            "log_odds": d.log_odds,
            "prior": d.prior,
            # the rest of a linear model's bias: log_odds == prior + intercept + contributions
            "intercept": d.intercept,
            "contributions": [{"feature": f, "log_odds": w} for f, w in d.contributions],
            # False: the terms are each value's own effect, and the interactions the rest
            "exact": d.exact,
            "interactions": d.interactions,
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
    if not d.exact:
        console.print(
            f"  {type(model).__name__}'s features interact within a class: its log-odds has no "
            "exact share per feature. Each term is the log-odds less the log-odds with that "
            "one value missing; (interactions) is the rest.",
            markup=False,
        )
    console.print(f"  {'(prior)':<28} {d.prior:+8.3f}")
    if d.intercept != 0.0:
        console.print(f"  {'(intercept)':<28} {d.intercept:+8.3f}")
    for feature, weight in d.contributions[:top]:
        console.print(f"  {feature:<28} {weight:+8.3f}", markup=False)
    rest = d.contributions[top:]
    if rest:
        console.print(f"  … {len(rest)} more features, together {sum(w for _, w in rest):+.3f}")
    if not d.exact:
        console.print(f"  {'(interactions)':<28} {d.interactions:+8.3f}")


def inspect(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    top: Annotated[int, typer.Option("--top", min=0, help="Features per class.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """What a model file holds: the model, its classes and priors, the family of each column
    and why it has it, a Bayesian network's structure (each feature's parents) and the
    features that most favour each class."""
    import numpy as np

    from .explaining import class_means, plain_value, top_features_of, vocabulary_size
    from .models import describe, is_text_model, load_model, training_columns
    from .output import out_console
    from .train import column_families, families_line

    model = load_model(model_file)
    shown = _shown_model(model)
    classes = [plain_value(c) for c in model.classes_]
    priors = np.exp(shown.class_log_prior_)
    counts = shown.class_count_
    tops = top_features_of(shown, top)
    means = class_means(shown, top)
    parents = _structure(shown)
    per_class = _class_table(shown)
    if as_json:
        out: dict[str, Any] = {
            "model": describe(model),
            "classes": [
                {"label": c, "prior": float(p), "count": float(n)}
                for c, p, n in zip(classes, priors, counts, strict=True)
            ],
            "families": column_families(model),
            "family_reasons": _family_reasons(model),
            "columns": training_columns(model) if not is_text_model(model) else None,
            "vocabulary": vocabulary_size(model),
            "top_features": {
                str(c): [{"feature": f, "weight": w} for f, w in v] for c, v in (tops or {}).items()
            },
        }
        if per_class is not None:  # what the model declares of each class (a mixture's)
            out["per_class"] = {str(c): row for c, row in per_class.items()}
        if parents is not None:  # a network's structure: each feature's parents by name
            out["parents"] = {f: list(p) for f, p in parents.items()}
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
    reasons = _family_reasons(model)
    if reasons:
        chosen = column_families(model) or {}
        console.print("why each column has its family:")
        for column, reason in list(reasons.items())[:_REASONS_SHOWN]:
            console.print(f"  {column}: {chosen.get(column)} — {reason}", markup=False)
        if len(reasons) > _REASONS_SHOWN:
            console.print(f"  … {len(reasons) - _REASONS_SHOWN} more columns (--json lists all)")
    if per_class is not None:
        _print_class_table(console, per_class)
    if is_text_model(model):
        console.print(f"vocabulary: {vocabulary_size(model)} terms")
    if parents is not None:
        _print_structure(console, parents)
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
    if not any(tops.values()):  # --top 0
        return
    unit = "unit" if means is not None else "occurrence"
    console.print(f"top features per class (log-odds one {unit} adds, vs the mean class):")
    for c, features in tops.items():
        shown = ", ".join(f"{f} {w:+.2f}" for f, w in features)
        console.print(f"  {c}: {shown}", markup=False)


def _structure(model: Any) -> dict[str, tuple[str, ...]] | None:
    """A Bayesian network's declared structure, ``parents_`` (each feature's parents besides
    the class, by name), or None for a model without one."""
    parents = getattr(model, "parents_", None)
    return parents if isinstance(parents, dict) and parents else None


def _class_table(model: Any) -> dict[Any, dict[str, Any]] | None:
    """What the model declares of each class (its contract's ``class_table``: a mixture's
    components, covariance type and BIC), or None."""
    from ..contract import contract_of

    name = contract_of(model).class_table
    return None if name is None else dict(getattr(model, name))


def _print_class_table(console: Any, table: dict[Any, dict[str, Any]]) -> None:
    """One line per class of a mixture: its components, covariance type and BIC (scikit-learn's
    sign, −2 ln L + p ln n: lower is better; mclust's BIC is its negative)."""
    console.print(
        "mixture per class (BIC = −2 ln L + p ln n, lower is better; mclust's is its negative):",
        markup=False,
    )
    for label, row in table.items():
        k, bic, choice = row["n_components"], row["bic"], row["bic_choice"]
        line = f"  {label}: {k} {row['covariance_type']} component{'s' if k != 1 else ''}"
        if choice is not None and choice != k:
            line += f" (GaussianNB, which the check kept over BIC's {choice})"
        if bic is not None:
            line += f", BIC {bic:.6g}"
        tried = row["bic_by_k"]
        if len(tried) > 1:
            line += "; BIC by k: " + ", ".join(f"{j}: {v:.6g}" for j, v in tried.items())
        console.print(line, markup=False)


def _print_structure(console: Any, parents: dict[str, tuple[str, ...]]) -> None:
    """Each feature with its parents besides the class (Weka's "nodes followed by parents");
    an averaged model, every feature the parent of every other (AODE), in one line."""
    d = len(parents)
    if d > 1 and all(len(p) == d - 1 for p in parents.values()):
        console.print(
            f"structure: each of the {d} features in turn the parent of all the others "
            "(averaged one-dependence estimators)",
            markup=False,
        )
        return
    console.print("structure (each feature <- its parents besides the class):")
    for feature, ps in parents.items():
        console.print(f"  {feature} <- {', '.join(ps) or '(the class only)'}", markup=False)


#: columns whose family's reason ``inspect`` prints (``--json`` gives every one)
_REASONS_SHOWN = 40


def _family_reasons(model: Any) -> dict[str, str] | None:
    """Why each column has its family (a model that chooses them per column says so in
    ``feature_family_reasons_``), or None."""
    reasons = getattr(model, "feature_family_reasons_", None)
    return {str(c): str(r) for c, r in reasons.items()} if reasons is not None else None


def _shown_model(model: Any) -> Any:
    """The model whose classes, priors and features ``inspect`` shows: a wrapper's
    (SemiSupervisedNB's) fitted model, whose classes are the wrapper's."""
    from ..contract import contract_of
    from ..io.readers import ReadError

    if contract_of(model).input != "wrapped":
        return model
    inner = model.fitted_estimator()
    if len(inner.classes_) != len(model.classes_):
        raise ReadError(
            f"inspect shows a {type(model).__name__} of one component per class; this one "
            f"has {len(inner.classes_)} components for {len(model.classes_)} classes (predict "
            "and explain read it)"
        )
    return inner
