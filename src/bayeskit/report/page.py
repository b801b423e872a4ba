"""The report page: one self-contained HTML document (inline CSS and inline SVG)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._version import __version__
from ..contract import contract_of, declares
from ..errors import ParameterError
from .categories import CategoryColumn, category_columns
from .charts import (
    MAX_COLOURED,
    calibration_chart,
    class_balance,
    curve_chart,
    curve_styles,
    fmt_score,
    roc_log_chart,
)
from .components import components_section
from .confusion import MAX_DRAWN_CLASSES, confusion_section
from .densities import FeatureDensity, FeatureScore, feature_densities
from .evaluation import LOG_LOSS_EPS, Calibration, Evaluation, evaluate
from .network import network_section
from .panels import density_panel, legend_strip, term_panel
from .projection import discriminant_projection
from .style import CSS
from .svg import ACCENT, GREY, bounded, clip_text, colour, esc, header_row, percent

#: terms shown per class.
TOP_TERMS = 12
#: In every page's head: ``bayeskit report`` recognises a page it may replace by it.
GENERATOR = '<meta name="generator" content="bayeskit report">'
#: numeric features listed in the ranking table.
TOP_FEATURES = 15


def build_report(
    *,
    title: str,
    classes: Any,
    y_true: Any,
    proba: Any,
    model: Any,
    X: Any = None,
    y: Any = None,
    notes: Mapping[str, str] | None = None,
    log_proba: Any = None,
    predicted: Any = None,
) -> str:
    """A complete, self-contained HTML page describing a classifier's measured quality.

    Parameters
    ----------
    title : str
        Page title (escaped like every other string).
    classes : sequence of labels, length K
        The class labels, in the column order of ``proba``.
    y_true : array-like of shape (n_samples,)
        True labels of the evaluated rows (out-of-fold or a held-out set).
    proba : array-like of shape (n_samples, K)
        Predicted class probabilities for those rows.
    model : a fitted bayeskit model
        Its decision rule gives the predicted labels (a loss matrix, class weights or a spam
        filter's costs count, as in ``model.predict``); text models add their top words,
        density models the class-conditional densities of their best numeric features.
    X, y : the model's training data, optional
        Needed for the density pictures (pandas or polars DataFrame, or an array).
    notes : mapping of str to str, optional
        Extra lines for the set-up box (data file, settings, cross-validation scheme).
    log_proba : array-like of shape (n_samples, K), optional
        The log-probabilities ``proba`` came from: with two classes the curves rank rows by
        log-odds, so rows whose probability rounds to exactly 0 or 1 stay apart.
    predicted : array-like of shape (n_samples,), optional
        The decisions already made for those rows (each fold's own ``predict`` in a
        cross-validation): the scores are of them. By default ``model``'s rule decides from
        ``proba``, which under class weights fitted on all the data can differ from each
        fold's model near the boundary.

    Returns
    -------
    str
        The HTML document. It makes no network request: styles are inline and every chart is
        inline SVG.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import MultinomialNB
    >>> from bayeskit.report import build_report
    >>> X = np.array([[3, 0], [2, 1], [0, 3], [1, 2]])
    >>> y = np.array(["ham", "ham", "spam", "spam"])
    >>> model = MultinomialNB().fit(X, y)
    >>> page = build_report(title="demo", classes=model.classes_, y_true=y,
    ...                     proba=model.predict_proba(X), model=model)
    >>> page.startswith("<!DOCTYPE html>"), "Confusion matrix" in page
    (True, True)
    """
    if not isinstance(title, str):
        raise ParameterError(f"title must be a str; got {type(title).__name__}")
    ev = evaluate(classes, y_true, proba, model, predicted=predicted, log_proba=log_proba)
    sections = [
        ("glance", "At a glance", _glance(ev)),
        ("setup", "Set-up", _setup(ev, model, notes)),
        ("classes", "Per class", _per_class(ev)),
        ("confusion", "Confusion matrix", confusion_section(ev)),
        ("curves", "ROC and precision–recall", _curves(ev)),
        ("calibration", "Calibration", _calibration(ev)),
    ]
    # beyond MAX_DRAWN_CLASSES classes a density panel would overlay that many curves and
    # histograms (600 classes: 12 MB of SVG nobody can read): the ranking table only
    drawn = 0 if len(ev.classes) > MAX_DRAWN_CLASSES else 6
    scores, densities = (
        ([], []) if X is None or y is None else feature_densities(model, X, y, limit=drawn)
    )
    if densities or (scores and not drawn):
        sections.append(("densities", "Feature densities", _densities(scores, densities, model)))
    categorical = [] if X is None or y is None else category_columns(model, X, y)
    if categorical:
        sections.append(("categories", "Categorical features", _categories(categorical, ev)))
    mixture = components_section(model, X, y)
    if mixture is not None:
        sections.append(("components", "Mixture components", mixture))
    projection = discriminant_projection(model, X, y)
    if projection is not None:
        classes_drawn = list(np.asarray(model.classes_).tolist())
        sections.append(
            ("projection", "Discriminant projection", _projection(projection, classes_drawn))
        )
    structure = network_section(model)
    if structure is not None:
        sections.append(("structure", "Network structure", structure))
    terms = top_terms(model)
    if terms is not None:
        heading, table = terms
        sections.append(("terms", heading, _terms(table, ev, heading)))
    return _page(title, ev, sections)


def top_terms(model: Any, n: int = TOP_TERMS) -> tuple[str, dict[Any, list]] | None:
    """The terms (text models) or one-hot features (linear table models) that most favour
    each class, with a heading; None for models that are not linear in their features."""
    from ..inspection import top_features

    declared = contract_of(model) if declares(model) else None
    if declared is not None and declared.input == "documents":
        return "Top words per class", model.top_terms(n)
    if declared is not None and declared.state == "generative":
        try:
            return "Most telling features per class", top_features(model, n)
        except (ParameterError, NotImplementedError):
            return None
    return None


# ---------------------------------------------------------------------------- sections
def _glance(ev: Evaluation) -> str:
    cards = [
        _card(
            "accuracy",
            "Accuracy",
            ev.accuracy,
            f"always guessing the largest class: {ev.majority_accuracy:.4f}",
        ),
        _card("macro_f1", "Macro-F1", ev.macro_f1, "F1 averaged over classes, each counts alike"),
        _card(
            "balanced_accuracy",
            "Balanced accuracy",
            ev.balanced_accuracy,
            "recall averaged over classes, each counts alike",
        ),
        _card(
            "log_loss",
            "Log-loss",
            ev.log_loss,
            (
                f"lower is better; class frequencies alone: {ev.prior_log_loss:.4f}"
                if ev.log_loss <= ev.prior_log_loss
                else f"worse than the class frequencies alone ({ev.prior_log_loss:.4f}): "
                "some probabilities are confidently wrong"
            )
            + (f". {clipped_note(ev.clipped)}" if ev.clipped else ""),
        ),
    ]
    cards.append(
        _card(
            "brier",
            "Brier score",
            ev.brier,
            "mean squared error of "
            + (
                f"P({ev.classes[ev.positive]})"
                if ev.positive is not None
                else "the probabilities, summed over the classes"
            )
            + "; lower is better",
        )
    )
    if ev.roc_auc is not None:
        what = (
            f"P({ev.classes[ev.positive]}) ranks a random one above a random other"
            if ev.positive is not None
            else "one class against the rest, averaged"
        )
        cards.append(_card("roc_auc", ev.roc_auc_kind, ev.roc_auc, what))
    return f'<div class="metrics">{"".join(cards)}</div>'


def clipped_note(rows: int) -> str:
    """What the log-loss did with ``rows`` rows whose true class had probability 0."""
    return (
        f"{rows:,} row{'s' if rows != 1 else ''} gave the true class a probability below "
        f"{LOG_LOSS_EPS:.3g} (0 once rounded): counted as −ln {LOG_LOSS_EPS:.3g} = "
        f"{-np.log(LOG_LOSS_EPS):.2f} each, the probability clipped as scikit-learn's log_loss "
        "does; the true loss is larger"
    )


#: The headline scores that are shares (in [0, 1]); the others (log-loss, Brier) only ≥ 0.
_SHARES = ("accuracy", "macro_f1", "balanced_accuracy", "roc_auc")


def _card(key: str, label: str, value: float, context: str) -> str:
    shown = bounded(value, 4, 1.0 if key in _SHARES else np.inf)
    return (
        f'<div class="metric" data-metric="{key}"><div class="label">{esc(label)}</div>'
        f'<div class="value">{shown}</div><div class="context">{esc(context)}</div></div>'
    )


def _setup(ev: Evaluation, model: Any, notes: Mapping[str, str] | None) -> str:
    rows = [
        ("model", f"<code>{esc(clip_text(repr(model), 400))}</code>"),
        ("rows evaluated", f"{ev.n:,}"),
        (
            "classes",
            esc(
                ", ".join(clip_text(c, 40) for c in ev.classes[:30])
                + (f" … ({len(ev.classes)} in all)" if len(ev.classes) > 30 else "")
            ),
        ),
        ("decision", esc(ev.rule)),
    ]
    for key, value in (notes or {}).items():
        rows.append((esc(key), esc(value)))
    items = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    if len(ev.classes) > MAX_COLOURED:  # the per-class table shows the balance instead
        return f'<dl class="setup">{items}</dl>'
    return (
        f'<dl class="setup">{items}</dl><h3>Class balance</h3><figure>{class_balance(ev)}</figure>'
    )


def class_colour(ev: Evaluation, k: int) -> str:
    """The colour class ``k`` has in the charts (grey when there are too many classes to
    colour them all and it is not among the hardest)."""
    if len(ev.classes) <= MAX_COLOURED:
        return colour(k)
    return curve_styles(ev).get(k, (GREY, "", 1.0))[0]


def _per_class(ev: Evaluation) -> str:
    head = header_row("class", "rows", "predicted", "precision", "recall", "F1", "ROC-AUC", "AP")
    body = []
    most = max(max(r.support, r.predicted) for r in ev.per_class)
    for r in ev.per_class:
        scores = "".join(
            f'<td data-col="{a}" data-undefined="0/0" title="{esc(_UNDEFINED[a])}">–</td>'
            if a in r.undefined
            else f'<td data-col="{a}">{getattr(r, a):.4f}</td>'
            for a in ("precision", "recall", "f1")
        )
        body.append(
            f'<tr data-class="{r.k}"><td><span class="swatch" '
            f'style="background:{class_colour(ev, r.k)}"></span>'
            f"{esc(clip_text(ev.classes[r.k], 60))}</td>"
            f'<td data-col="support"{_databar(r.support, most)}>{r.support}</td>'
            f'<td data-col="predicted"{_databar(r.predicted, most)}>{r.predicted}</td>'
            f"{scores}"
            f'<td data-col="auc">{fmt_score(r.auc)}</td><td data-col="ap">{fmt_score(r.ap)}</td>'
            "</tr>"
        )
    # scikit-learn's macro averages: over the classes among the true labels or the decisions,
    # a 0/0 score counted as 0 (zero_division=0)
    seen = [r for r in ev.per_class if r.support or r.predicted]
    mean = [np.mean([getattr(r, a) for r in seen]) for a in ("precision", "recall", "f1")]
    body.append(
        f'<tr class="total"><td>macro average</td><td>{ev.n}</td><td>{ev.n}</td>'
        + "".join(f'<td data-col="{a}">{m:.4f}</td>' for a, m in zip(_SCORES, mean, strict=True))
        + "<td></td><td></td></tr>"
    )
    undefined = [r for r in ev.per_class if r.undefined]
    never = sum(1 for r in undefined if r.predicted == 0 and r.support)
    absent = sum(1 for r in undefined if r.support == 0)
    said = []
    if never:
        said.append(
            f"{never} class{'es were' if never > 1 else ' was'} never decided, so precision is 0/0"
        )
    if absent:
        said.append(
            f"{absent} class{'es have' if absent > 1 else ' has'} no rows here, so recall is "
            "0/0 (and F1 too when never decided)"
        )
    note = (
        f'<p class="how" data-undefined="{len(undefined)}">– : undefined. '
        + "; ".join(said)
        + ". The macro averages count such a score as 0, as scikit-learn's "
        "<code>zero_division=0</code> does, and leave out a class neither true nor decided "
        "for any row.</p>"
        if undefined
        else ""
    )
    return (
        '<p class="how">Precision: of the rows given this class, the share that had it. '
        "Recall: of the rows that had it, the share found. ROC-AUC and average precision "
        "(AP) score the class's probability against all others.</p>"
        f'<div class="scroll"><table class="perclass">{head}{"".join(body)}</table></div>'
        f"{note}"
    )


_SCORES = ("precision", "recall", "f1")
_UNDEFINED = {
    "precision": "undefined: no row was given this class (0/0)",
    "recall": "undefined: no row has this class (0/0)",
    "f1": "undefined: no row has this class and none was given it (0/0)",
}


def _databar(value: float, most: float) -> str:
    """A light bar behind a table cell, growing from the right where the number sits."""
    share = 100.0 * value / most if most > 0 else 0.0
    return (
        f' style="background:linear-gradient(to left,#dbe9f6 {share:.1f}%,'
        f'transparent {share:.1f}%)"'
    )


def _curves(ev: Evaluation) -> str:
    which = (
        f"for {esc(ev.classes[ev.positive])}"
        if ev.positive is not None
        else "one class against the rest, for each class"
    )
    many = len(ev.roc) > 8
    log = roc_log_chart(ev)
    return (
        f'<p class="how">Every threshold on the probability, {which}. ROC: hits against false '
        "alarms; the area (AUC) is the chance that a random row of the class outranks a "
        "random other. Precision–recall: how many flagged are right against how many are "
        "found; AP summarises it"
        + (", and the dotted line is the class's base rate" if ev.positive is not None else "")
        + (". The hardest classes are coloured, the rest grey" if many else "")
        + (
            ". The middle chart stretches the false alarms on a log scale, where a filter "
            "is actually used"
            if log
            else ""
        )
        + ".</p>"
        f'<div class="grid2"><figure>{curve_chart(ev, "roc")}</figure>'
        + (f"<figure>{log}</figure>" if log else "")
        + f"<figure>{curve_chart(ev, 'pr')}</figure></div>"
    )


def _calibration(ev: Evaluation) -> str:
    cal = ev.calibration
    return (
        f'<p class="how">When the model gives {esc(cal.what)} = 0.7, is it right 70% of the '
        "time? Dots are bins of predictions (mean predicted against observed, with 95% "
        "intervals); on the dotted diagonal the probabilities can be taken at face value. "
        "Bars count the rows in each bin (log scale). Expected calibration error: "
        f'<strong data-metric="ece">{cal.ece:.4f}</strong>.</p>'
        f'<div class="grid2"><figure>{calibration_chart(cal)}</figure>'
        f'<div class="scroll">{_bins(cal)}</div></div>'
    )


def _bins(cal: Calibration) -> str:
    rows = "".join(
        f'<tr data-bin="{b}"><td>{cal.edges[b]:.1f}–{cal.edges[b + 1]:.1f}</td>'
        f'<td data-col="count">{cal.count[b]:,}</td>'
        + (
            f"<td>{bounded(cal.predicted[b])}</td><td>{bounded(cal.observed[b])}</td>"
            f"<td>{bounded(cal.low[b])}–{bounded(cal.high[b])}</td>"
            if cal.count[b]
            else "<td>–</td><td>–</td><td></td>"
        )
        + "</tr>"
        for b in range(len(cal.count))
    )
    return (
        '<table class="bins">'
        + header_row("bin", "rows", "mean predicted", "observed", "95% interval")
        + f"{rows}</table>"
    )


_NO_VALUE = "the class has no observed value of this feature in the training data"


def _mean_cell(mean: float) -> str:
    """A class's mean of a feature, or – where the class observed no value of it."""
    if np.isnan(mean):
        return f'<td data-undefined="no value" title="{_NO_VALUE}">–</td>'
    return f"<td>{mean:.4g}</td>"


def _densities(scores: list[FeatureScore], densities: list[FeatureDensity], model: Any) -> str:
    classes = list(np.asarray(model.classes_).tolist())
    panels = "".join(f"<figure>{density_panel(fd, classes)}</figure>" for fd in densities)
    show_means = len(classes) <= 4
    means = [f"mean, {esc(clip_text(c, 16))}" for c in classes] if show_means else []
    head = header_row("feature", "family", "AUC alone", "bits", *means)
    rows = "".join(
        f'<tr data-feature="{s.j}"><td>{esc(clip_text(s.name, 60))}</td><td>{esc(s.family)}</td>'
        f'<td data-col="auc">{bounded(s.auc)}</td><td data-col="bits">{s.bits:.3f}</td>'
        + ("".join(_mean_cell(m) for m in s.means) if show_means else "")
        + "</tr>"
        for s in scores[:TOP_FEATURES]
    )
    more = len(scores) - TOP_FEATURES
    pictures = (
        '<p class="how">The numeric features that tell the classes apart best, by the ROC-AUC '
        "of the model's densities of that feature alone. Lines: the model's density "
        "p(x | class); shaded steps: the training data of each class. Where the lines part, "
        "the feature decides; where they overlap, it cannot. A bar cut at the top is "
        "labelled with its height. A feature with a long right tail is drawn on a log(1 + x) "
        "axis, its densities per unit of log(1 + x), so areas still read as shares.</p>"
        f'{legend_strip(classes)}<div class="multiples">{panels}</div>'
        if densities
        else f'<p class="how" data-summarised="{len(classes)}">With {len(classes):,} classes '
        "the densities are not drawn (a panel would overlay a curve per class; they are drawn "
        f"for up to {MAX_DRAWN_CLASSES} classes). The numeric features are ranked by the "
        "ROC-AUC of the model's densities of that feature alone.</p>"
    )
    return (
        pictures + '<h3 style="margin-top:14px">Numeric features ranked</h3>'
        '<p class="how">Bits: the drop in log-loss (base 2) from the class frequencies to this '
        "feature's densities alone. Below zero, the density gives some rows a very wrong "
        "answer: a sign that its family fits the feature badly."
        + (
            " – : the class has no observed value of the feature."
            if show_means and any(np.isnan(s.means).any() for s in scores[:TOP_FEATURES])
            else ""
        )
        + "</p>"
        f'<div class="scroll"><table class="features">{head}{rows}</table></div>'
        + (f'<p class="how">… and {more} more.</p>' if more > 0 else "")
    )


def _categories(columns: list[CategoryColumn], ev: Evaluation) -> str:
    """Each categorical or boolean column as a table of each class's share of each value."""
    head = header_row(
        "value",
        *(
            f'<span class="swatch" style="background:{class_colour(ev, k)}"></span>'
            f"{esc(clip_text(c, 16))}"
            for k, c in enumerate(ev.classes)
        ),
    )
    tables = []
    for col in columns:
        last = len(col.values) - 1 if col.folded else -1
        rows = "".join(
            (
                # the folded values' row has no data-value: no real value can be taken for it
                f'<tr class="folded" data-folded="{col.folded}"><td><em>{esc(value)}</em></td>'
                if i == last
                else f'<tr data-value="{esc(value)}"><td>{esc(clip_text(value, 40))}</td>'
            )
            + "".join(
                f"<td{_databar(float(share), 1.0)}>{percent(float(share))}</td>"
                for share in col.shares[:, i]
            )
            + "</tr>"
            for i, value in enumerate(col.values)
        )
        counted = "".join(f"<td>{int(n):,} rows</td>" for n in col.observed)
        tables.append(
            f'<div class="scroll" data-feature="{col.j}"><h3>{esc(clip_text(col.name, 60))} '
            f'<small>({esc(col.family)}; Cramér\'s V <span data-col="cramers-v">'
            f"{col.cramers_v:.3f}</span>)</small></h3>"
            f'<table class="categories">{head}{rows}'
            f'<tr class="total"><td>observed</td>{counted}</tr></table></div>'
        )
    return (
        '<p class="how">The columns of categories and yes/no values, strongest first by '
        "Cramér's V of the class × value table (0: every class holds the values in the same "
        "shares; 1: the value tells the class). Each cell is the share of the class's rows, "
        "among those where the column is observed, holding the value: where a value's shares "
        "differ between the classes, the model's categorical factor tells them apart.</p>"
        + "".join(tables)
    )


def _projection(chart: str, classes: list[Any]) -> str:
    return (
        '<p class="how">The training rows on Fisher\'s discriminant axes: the directions along '
        "which the class means lie furthest apart, measured against the spread within the "
        "classes (one axis per class beyond the first, at most two drawn). Separate clouds are "
        "classes the model tells apart; where clouds overlap, its mistakes lie.</p>"
        f"{legend_strip(classes)}<figure>{chart}</figure>"
    )


def _terms(table: dict[Any, list], ev: Evaluation, heading: str) -> str:
    scale = max((w for terms in table.values() for _, w in terms), default=0.0)
    order = {repr(c): k for k, c in enumerate(ev.classes)}
    many = len(table) > MAX_COLOURED
    panels = []
    for i, (label, terms) in enumerate(table.items()):
        ink = ACCENT if many else colour(order.get(repr(label), i))
        panels.append(f"<figure>{term_panel(label, ink, terms, scale)}</figure>")
    how = (
        "The words that most favour each class. Weight: how much one occurrence of the word "
        "moves the log-odds toward the class, compared with the average class"
        if heading.startswith("Top words")
        else "The features (a column=value pair for a category) that most favour each class. "
        "Weight: how much one unit of the feature moves the log-odds toward the class, "
        "compared with the average class"
    )
    return (
        f'<p class="how">{how} (the model\'s own weights, the same for every row).</p>'
        f'<div class="multiples">{"".join(panels)}</div>'
    )


def _page(title: str, ev: Evaluation, sections: list[tuple[str, str, str]]) -> str:
    nav = "".join(f'<a href="#{key}">{esc(name)}</a>' for key, name, _ in sections)
    body = "".join(
        f'<section id="{key}"><h2>{esc(name)}</h2>{html}</section>'
        if key != "glance"
        else f'<div id="{key}">{html}</div>'
        for key, name, html in sections
    )
    K = len(ev.classes)
    subtitle = f"{ev.n:,} rows evaluated · {K} classes · bayeskit {__version__}"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{GENERATOR}<title>{esc(title)}</title><style>{CSS}</style></head><body><main>"
        f'<header><h1>{esc(title)}</h1><p class="subtitle">{esc(subtitle)}</p>'
        f"<nav>{nav}</nav></header>{body}"
        "<footer>Made by bayeskit. Every number and chart comes from the evaluated rows' "
        "true labels and predicted probabilities; nothing on this page is fetched from the "
        "network."
        "</footer></main></body></html>\n"
    )
