"""The report's confusion matrix: drawn cell by cell for a few dozen classes, summarised
beyond that.

A heat-map of K classes has K² cells, each a shaded square with its count and a tooltip: 600
classes made 360,000 cells, a 113 MB drawing no browser shows usefully (a cell is smaller than
a pixel at any readable size). Beyond :data:`MAX_DRAWN_CLASSES` classes the section lists what
the picture would have been read for instead: the most common confusions between two classes,
and each class's recall with its most frequent wrong decision. Both grow with the classes at
most linearly, so the page stays a few megabytes for thousands of classes.
"""

from __future__ import annotations

import numpy as np

from .charts import confusion_heatmap
from .evaluation import Evaluation
from .svg import clip_text, esc, header_row, percent

#: the most classes whose confusion matrix is drawn in full (40² = 1,600 cells, about 0.5 MB
#: of SVG; cells stay at least 26 units wide, readable when the page is zoomed).
MAX_DRAWN_CLASSES = 40
#: confusions (true class, decision) listed when the matrix is summarised.
TOP_CONFUSIONS = 30


def confusion_section(ev: Evaluation) -> str:
    """The confusion section's content: the heat-map, or its summary for many classes."""
    K = len(ev.classes)
    if K <= MAX_DRAWN_CLASSES:
        return (
            '<p class="how">Rows are the true class, columns the decision; the diagonal is '
            "what the model got right. Each cell shows its count, shaded by its share of the "
            "true class (the percentage), so a dark cell off the diagonal is a common "
            f'mistake.</p><figure class="confusion">{confusion_heatmap(ev)}</figure>'
        )
    return (
        f'<p class="how" data-summarised="{K}">With {K:,} classes the matrix has '
        f"{K * K:,} cells, too many to draw (the full matrix is drawn for up to "
        f"{MAX_DRAWN_CLASSES} classes). Listed instead: the {TOP_CONFUSIONS} most common "
        "mistakes (a true class and the class decided in its place), then each class's recall "
        "and the class it was most often mistaken for.</p>"
        f"{_top_confusions(ev)}{_per_class_mistakes(ev)}"
    )


def _top_confusions(ev: Evaluation) -> str:
    cm = np.asarray(ev.confusion)
    rows = cm.sum(axis=1)
    off = cm.copy()
    np.fill_diagonal(off, 0)
    flat = np.flatnonzero(off)
    if flat.size == 0:
        return '<p class="how">Every row was given its true class: no mistakes to list.</p>'
    order = flat[np.argsort(-off.ravel()[flat], kind="stable")][:TOP_CONFUSIONS]
    body = "".join(
        f'<tr data-true="{i}" data-pred="{j}"><td>{esc(clip_text(ev.classes[i], 40))}</td>'
        f"<td>{esc(clip_text(ev.classes[j], 40))}</td>"
        f'<td data-col="count">{int(cm[i, j]):,}</td>'
        f"<td>{percent(cm[i, j] / max(int(rows[i]), 1))}</td></tr>"
        for i, j in (divmod(int(k), cm.shape[1]) for k in order)
    )
    more = flat.size - len(order)
    return (
        '<h3>Most common mistakes</h3><div class="scroll"><table class="confusions">'
        + header_row("true class", "decided", "rows", "share of the true class")
        + f"{body}</table></div>"
        + (f'<p class="how">… and {more:,} other pairs of classes.</p>' if more > 0 else "")
    )


def _per_class_mistakes(ev: Evaluation) -> str:
    cm = np.asarray(ev.confusion)
    off = cm.copy()
    np.fill_diagonal(off, 0)
    worst = off.argmax(axis=1)
    body = []
    for r in ev.per_class:
        j, n = int(worst[r.k]), int(off[r.k, worst[r.k]])
        mistaken = (
            f"<td>{esc(clip_text(ev.classes[j], 40))}</td><td>{n:,}</td>"
            if n > 0
            else "<td>–</td><td>0</td>"
        )
        body.append(
            f'<tr data-class="{r.k}"><td>{esc(clip_text(ev.classes[r.k], 40))}</td>'
            f'<td>{r.support:,}</td><td data-col="recall">{r.recall:.4f}</td>{mistaken}</tr>'
        )
    return (
        '<h3>Each class</h3><div class="scroll"><table class="mistakes">'
        + header_row("class", "rows", "recall", "most often decided instead", "rows")
        + f"{''.join(body)}</table></div>"
    )
