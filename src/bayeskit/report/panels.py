"""Small multiples: one density panel per feature, one bar panel of top terms per class."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .densities import FeatureDensity, one_column
from .svg import (
    Frame,
    bounded,
    clip_names,
    clip_text,
    colour,
    dash,
    esc,
    fmt_tick,
    nice_ticks,
    svg_element,
)

#: a histogram bar taller than this many times the highest model curve is cut, and labelled:
#: a spike of zeros would otherwise flatten every curve into the axis.
CLIP = 2.5


def density_panel(fd: FeatureDensity, classes: Sequence[Any]) -> str:
    """The data's per-class histogram (shaded steps) behind the model's density (lines)."""
    curve_top = float(np.nanmax(fd.density)) if np.isfinite(fd.density).any() else 0.0
    hist_top = float(fd.hist.max())
    top = hist_top if curve_top <= 0 else max(curve_top, min(hist_top, CLIP * curve_top))
    top = top * 1.08 if top > 0 else 1.0
    lo, hi = float(min(fd.grid[0], fd.edges[0])), float(max(fd.grid[-1], fd.edges[-1]))
    f = Frame(340, 230, (lo, hi), (0.0, top), margin=(30, 12, 40, 50))
    if fd.axis == "log1p":
        values = _log_ticks(float(np.expm1(hi)))
        f.axes(
            clip_text(fd.score.name, 30) + " (log scale)",
            "density",
            xticks=np.log1p(values).tolist(),
            xlabels=[fmt_tick(v) for v in values],
        )
    else:
        f.axes(clip_text(fd.score.name, 40), "density", xticks=nice_ticks(lo, hi, 4))
    cut = []
    for k in range(len(classes)):
        h = np.minimum(fd.hist[k], top)
        x = np.repeat(fd.edges, 2)
        y = np.concatenate([[0.0], np.repeat(h, 2), [0.0]])
        px, py = f.px(x), f.py(y)
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py, strict=True))
        f.add(
            f'<polygon class="hist" points="{points}" fill="{colour(k)}" '
            f'stroke="{colour(k)}"><title>{esc(classes[k])}: training data</title></polygon>'
        )
        cut += [(k, b) for b in np.flatnonzero(fd.hist[k] > top)]
    for i, (k, b) in enumerate(cut):  # say how tall a clipped bar really is
        right = float(f.px(fd.edges[b + 1]))
        f.add(
            f'<text class="cliplabel" x="{right + 3:.1f}" y="{f.y1 + 8 + 11 * i:.1f}" '
            f'fill="{colour(k)}">↑ {fd.hist[k, b]:.3g}</text>'
        )
    pmf = one_column(fd.score.family) == "pmf" and len(fd.grid) <= 40
    for k in range(len(classes)):
        y = np.minimum(fd.density[k], top)
        f.line(
            fd.grid,
            y,
            stroke=colour(k),
            width=2.2,
            dasharray=dash(k),
            title=f"{classes[k]}: model {'probability' if pmf else 'density'}",
        )
        if pmf:  # a probability at each integer: mark where it is defined
            f.add(
                *(
                    f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.6" fill="{colour(k)}"/>'
                    for a, b in zip(f.px(fd.grid), f.py(y), strict=True)
                )
            )
    f.add(
        f'<text class="charttitle" x="{f.x0}" y="18">{esc(clip_text(fd.score.name, 30))}'
        f'<tspan class="muted" dx="8">AUC {bounded(fd.score.auc)}</tspan></text>'
    )
    return f.render(f"Class-conditional densities of {fd.score.name}")


def _log_ticks(top: float) -> list[float]:
    """Round values (0, 0.5, 1, 2, 5, 10, …) up to ``top`` for a log(1 + x) axis, each at
    least a seventh of the axis from the one before so their labels never collide."""
    span = np.log1p(top)
    out = [0.0]
    for v in (m * 10.0**e for e in range(-2, 12) for m in (1, 2, 5)):
        if v > top:
            break
        if np.log1p(v) - np.log1p(out[-1]) >= span / 7:
            out.append(v)
    return out


def legend_strip(classes: Sequence[Any]) -> str:
    """Colour key for a set of small multiples: line = model, shaded = data."""
    items, x = [], 6.0
    for k, text in enumerate(clip_names(classes, 24)):
        extra = f' stroke-dasharray="{dash(k)}"' if dash(k) else ""
        items.append(
            f'<rect class="hist" x="{x:.1f}" y="5" width="22" height="12" fill="{colour(k)}" '
            f'stroke="{colour(k)}"/><line x1="{x:.1f}" y1="11" x2="{x + 22:.1f}" y2="11" '
            f'stroke="{colour(k)}" stroke-width="2.5"{extra}/>'
            f'<text class="legend" x="{x + 28:.1f}" y="15">{esc(text)}</text>'
        )
        x += 44 + 6.6 * len(text)
    return svg_element(x, 22, "Legend", "".join(items)).replace(
        'class="chart"', 'class="chart legendstrip"', 1
    )


def term_panel(label: Any, ink: str, terms: list[tuple[str, float]], scale: float) -> str:
    """Horizontal bars: how strongly each of a class's top terms points to it."""
    n = max(len(terms), 1)
    width, row, top = 320.0, 19.0, 34.0
    names = [clip_text(t, 22) for t, _ in terms]
    left = 12 + 6.4 * max((len(s) for s in names), default=4)
    height = top + row * n + 10
    span = width - left - 46
    out = [f'<text class="charttitle" x="8" y="20">{esc(clip_text(label, 36))}</text>']
    for i, ((term, weight), shown) in enumerate(zip(terms, names, strict=True)):
        y = top + i * row
        w = span * max(weight, 0.0) / scale if scale > 0 else 0.0
        out.append(
            f'<text class="ticklabel" x="{left - 6:.1f}" y="{y + 12:.1f}" text-anchor="end">'
            f"{esc(shown)}<title>{esc(term)}</title></text>"
        )
        out.append(
            f'<rect x="{left:.1f}" y="{y + 2:.1f}" width="{w:.1f}" height="{row - 5:.1f}" '
            f'rx="2" fill="{ink}" fill-opacity="0.8"><title>{esc(term)}: '
            f"{weight:+.3f}</title></rect>"
        )
        out.append(
            f'<text class="barlabel" x="{left + w + 4:.1f}" y="{y + 12:.1f}">{weight:+.2f}</text>'
        )
    return svg_element(width, height, f"Top terms for {label}", "".join(out))
