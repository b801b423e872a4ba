"""The evaluation charts: confusion heat-map, ROC and precision–recall curves, reliability."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .evaluation import Calibration, Evaluation
from .svg import (
    GREY,
    Frame,
    bounded,
    clip_names,
    clip_text,
    colour,
    dash,
    esc,
    percent,
    svg_element,
)

#: ColorBrewer "Blues": sequential, one hue, readable with every colour vision deficiency.
BLUES = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c",
         "#08306b")  # fmt: skip
#: more curves than this in one chart become grey, except the hardest classes.
MAX_COLOURED = 8


def blue(fraction: float) -> str:
    """The Blues colour of ``fraction`` in [0, 1], interpolated between the nine stops."""
    f = min(max(fraction, 0.0), 1.0) * (len(BLUES) - 1)
    i = min(int(f), len(BLUES) - 2)
    a, b = _rgb(BLUES[i]), _rgb(BLUES[i + 1])
    mix = [round(x + (y - x) * (f - i)) for x, y in zip(a, b, strict=True)]
    return "#" + "".join(f"{v:02x}" for v in mix)


def ink_on(background: str) -> str:
    """Dark or white text, whichever reads better on ``background`` (WCAG luminance)."""
    channels = [c / 255 for c in _rgb(background)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "#1b1f24" if luminance > 0.25 else "#ffffff"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def confusion_heatmap(ev: Evaluation) -> str:
    """Counts in cells, shaded by the share of the true class (row) that lands in each."""
    cm, names = ev.confusion, clip_names(ev.classes, 22)
    K = len(names)
    cell = float(np.clip(440 / K, 26, 110))
    longest = max(len(n) for n in names)
    left = 30 + 6.6 * longest
    rotate = K > 4 or longest > 8
    bottom = 40 + (4.8 * longest if rotate else 14)
    top, right = 16, 64
    width, height = left + K * cell + right, top + K * cell + bottom
    rows = cm.sum(axis=1)
    share = cm / np.maximum(rows, 1)[:, None]
    out = []
    big = cell >= 44
    for i in range(K):
        for j in range(K):
            x, y, c, f = left + j * cell, top + i * cell, int(cm[i, j]), float(share[i, j])
            tip = (
                f"true {ev.classes[i]}, predicted {ev.classes[j]}: {c} "
                f"({percent(f)} of {ev.classes[i]})"
            )
            out.append(
                f'<rect class="cell" x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" '
                f'height="{cell:.1f}" fill="{blue(f)}" data-true="{i}" data-pred="{j}" '
                f'data-count="{c}"><title>{esc(tip)}</title></rect>'
            )
            ink = "#ffffff" if f > 0.55 else "#1b1f24"
            size = 13 if big else max(9.0, cell / 3.2)
            cy = y + cell / 2 + (0 if big else size / 3)
            out.append(
                f'<text class="cellcount" x="{x + cell / 2:.1f}" y="{cy:.1f}" fill="{ink}" '
                f'font-size="{size:.1f}" text-anchor="middle">{c}</text>'
            )
            if big:
                out.append(
                    f'<text class="cellshare" x="{x + cell / 2:.1f}" y="{cy + 14:.1f}" '
                    f'fill="{ink}" text-anchor="middle">{percent(f)}</text>'
                )
    for k, name in enumerate(names):
        y = top + (k + 0.5) * cell
        out.append(
            f'<text class="ticklabel" x="{left - 8:.1f}" y="{y + 4:.1f}" '
            f'text-anchor="end">{esc(name)}</text>'
        )
        out.append(
            f'<text class="ticklabel muted" x="{left + K * cell + 8:.1f}" y="{y + 4:.1f}">'
            f"{int(rows[k])}</text>"
        )
        x, yb = left + (k + 0.5) * cell, top + K * cell + 14
        if rotate:
            out.append(
                f'<text class="ticklabel" transform="translate({x + 4:.1f},{yb - 4:.1f}) '
                f'rotate(-40)" text-anchor="end">{esc(name)}</text>'
            )
        else:
            out.append(
                f'<text class="ticklabel" x="{x:.1f}" y="{yb:.1f}" text-anchor="middle">'
                f"{esc(name)}</text>"
            )
    out.append(
        f'<text class="axislabel" x="{left + K * cell / 2:.1f}" y="{height - 6:.1f}" '
        'text-anchor="middle">predicted class</text>'
    )
    out.append(
        f'<text class="axislabel" transform="translate(12,{top + K * cell / 2:.1f}) '
        'rotate(-90)" text-anchor="middle">true class</text>'
    )
    out.append(
        f'<text class="axislabel" x="{left + K * cell + 8:.1f}" y="{top - 4:.1f}">rows</text>'
    )
    return svg_element(width, height, "Confusion matrix", "".join(out))


def curve_styles(ev: Evaluation) -> dict[int, tuple[str, str, float]]:
    """Colour, dash and width of each class's curves. Up to MAX_COLOURED classes each get a
    colour; with more, the hardest classes (lowest ROC-AUC) are coloured and the rest drawn
    thin and grey, since a dozen colours cannot be told apart."""
    ks = [c.k for c in ev.roc]
    if len(ks) <= MAX_COLOURED:
        return {k: (colour(k), dash(k), 2.2) for k in ks}
    hardest = sorted(ev.roc, key=lambda c: c.area)[: MAX_COLOURED // 2]
    styles = {k: (GREY, "", 1.0) for k in ks}
    styles.update({c.k: (colour(i), "", 2.2) for i, c in enumerate(hardest)})
    return styles


def curve_chart(ev: Evaluation, kind: str) -> str:
    """ROC (``kind="roc"``) or precision–recall (``"pr"``) curves, one per class (one for
    the positive class when binary), area in the legend."""
    roc = kind == "roc"
    curves = ev.roc if roc else ev.pr
    f = Frame(420, 380, (0.0, 1.0), (0.0, 1.0) if roc else (0.0, 1.02))
    f.axes(
        "false positive rate" if roc else "recall",
        "true positive rate" if roc else "precision",
        yticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
    )
    if roc:
        f.chance([0, 1], [0, 1])
    styles = curve_styles(ev)
    names = clip_names(ev.classes, 18)
    ordered = sorted(curves, key=lambda c: styles[c.k][2])  # grey first, coloured on top
    entries = []
    for c in ordered:
        stroke, dasharray, width = styles[c.k]
        name = names[c.k]
        area = f"{'AUC' if roc else 'AP'} {bounded(c.area)}"
        x, y = c.x, c.y
        if not roc:  # draw precision as a step function, as average precision integrates it
            x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
        f.line(x, y, stroke=stroke, width=width, dasharray=dasharray, title=f"{name}: {area}")
        if stroke != GREY:
            entries.append((stroke, dasharray, f"{name}  {area}"))
    if len(curves) > MAX_COLOURED:
        entries.append((GREY, "", f"{len(curves) - len(entries)} others"))
    if not roc and ev.positive is not None:
        base = ev.per_class[ev.positive].support / ev.n
        f.chance([0, 1], [base, base])
    f.legend(entries, corner="bottom-right" if roc else "bottom-left")
    what = "ROC curves" if roc else "Precision-recall curves"
    return f.render(what)


def roc_log_chart(ev: Evaluation) -> str | None:
    """The binary ROC curve with the false positive rate on a log scale: where a spam filter
    or a screening test works (0.1% of false alarms, not 30%). None when not binary."""
    if ev.positive is None or not ev.roc:
        return None
    c = ev.roc[0]
    negatives = ev.n - ev.per_class[ev.positive].support
    low = math.floor(math.log10(0.5 / negatives))  # a decade below one false positive
    f = Frame(420, 380, (float(low), 0.0), (0.0, 1.0))
    ticks = list(range(low, 1))
    f.axes(
        "false positive rate (log scale)",
        "true positive rate",
        xticks=ticks,
        xlabels=[f"{100 * 10.0**t:g}%" for t in ticks],
        yticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
    )
    chance = np.linspace(low, 0.0, 50)
    f.line(chance, 10.0**chance, stroke=GREY, width=1.2, dasharray="3 4", title="chance")
    x = np.log10(np.maximum(c.x, 10.0**low))
    name = clip_text(ev.classes[c.k], 18)
    f.line(x, c.y, stroke=colour(c.k), width=2.2, title=f"{name}: AUC {bounded(c.area)}")
    if negatives >= 100:  # mark what the positive class gets at 1% false alarms
        found = float(c.y[c.x <= 0.01].max())
        px, py = float(f.px(-2.0)), float(f.py(found))
        f.add(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="{colour(c.k)}"/>'
            f'<text class="legend" x="{px + 8:.1f}" y="{py + 16:.1f}" data-found="{found:.6f}">'
            f"1% false alarms: {percent(found)} found</text>"
        )
    f.legend([(colour(c.k), "", f"{name}  AUC {bounded(c.area)}")], corner="bottom-right")
    return f.render("ROC curve, log scale")


def calibration_chart(cal: Calibration) -> str:
    """Reliability diagram (observed frequency against mean predicted probability, 95%
    intervals) above a strip of bin counts on a log scale."""
    width, height = 420, 430
    f = Frame(width, height, (0.0, 1.0), (0.0, 1.0), margin=(16, 14, 150, 56))
    f.axes("", "observed frequency", yticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
    f.chance([0, 1], [0, 1])
    filled = cal.count > 0
    px, py = f.px(cal.predicted[filled]), f.py(cal.observed[filled])
    lo, hi = f.py(cal.low[filled]), f.py(cal.high[filled])
    values = zip(
        px, py, lo, hi, cal.count[filled], cal.predicted[filled], cal.observed[filled], strict=True
    )
    out = []
    for a, b, c, d, n, mean, seen in values:
        out.append(f'<line class="errorbar" x1="{a:.1f}" y1="{c:.1f}" x2="{a:.1f}" y2="{d:.1f}"/>')
        out.append(
            f'<circle class="dot" cx="{a:.1f}" cy="{b:.1f}" r="4"><title>{n} rows: mean '
            f"predicted {bounded(mean)}, observed {bounded(seen)}</title></circle>"
        )
    f.line(cal.predicted[filled], cal.observed[filled], stroke="#0072B2", width=2)
    f.add(*out)
    # the count strip shares the x axis
    g = Frame(width, height, (0.0, 1.0), (0.0, 1.0), margin=(height - 110, 14, 46, 56))
    top = max(float(np.log10(cal.count.max() + 1)), 1.0)
    edges = cal.edges
    bars = []
    for k, n in enumerate(cal.count):
        h = np.log10(n + 1) / top
        x0, x1 = float(g.px(edges[k])) + 1.5, float(g.px(edges[k + 1])) - 1.5
        y = float(g.py(h))
        bars.append(
            f'<rect class="bar" x="{x0:.1f}" y="{y:.1f}" width="{x1 - x0:.1f}" '
            f'height="{g.y0 - y:.1f}" data-count="{n}"><title>{edges[k]:.1f}–{edges[k + 1]:.1f}: '
            f"{n} rows</title></rect>"
        )
        bars.append(
            f'<text class="barlabel" x="{(x0 + x1) / 2:.1f}" y="{y - 3:.1f}" '
            f'text-anchor="middle">{n:,}</text>'
        )
    g.axes(f"predicted {cal.what}", "rows", yticks=[], grid=False)
    g.add(*bars)
    return svg_element(width, height, "Calibration (reliability) plot", "".join(f.parts + g.parts))


def class_balance(ev: Evaluation) -> str:
    """A single stacked bar: how the rows split among the classes."""
    counts = np.array([r.support for r in ev.per_class], dtype=float)
    total = counts.sum()
    width, height, x = 640.0, 34.0, 0.0
    out = []
    for k, n in enumerate(counts):
        w = width * n / total
        label = f"{ev.classes[k]}: {int(n)} ({percent(n / total)})"
        out.append(
            f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" fill="{colour(k)}">'
            f"<title>{esc(label)}</title></rect>"
        )
        if w > 70:
            out.append(
                f'<text class="balancelabel" x="{x + 6:.1f}" y="{height / 2 + 4:.1f}" '
                f'fill="{ink_on(colour(k))}">'
                f"{esc(clip_text(ev.classes[k], max(int(w / 7) - 6, 3)))} "
                f"{percent(n / total, 0)}</text>"
            )
        x += w
    return svg_element(width, height, "Class balance", "".join(out))


def fmt_score(value: Any, digits: int = 4) -> str:
    """A score in [0, 1] for display (see :func:`~.svg.bounded`), or an en dash when
    undefined."""
    return "–" if value is None else bounded(value, digits)
