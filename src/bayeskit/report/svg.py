"""Hand-written SVG: a plotting frame with ticks, labels and lines, small enough to read.

Every chart in the report is inline SVG built here, so the page needs no plotting library, no
image files and no network: it scales with the page (``viewBox``), its text is selectable,
and the browser draws it sharply at any zoom. Every string that reaches the SVG goes through
:func:`esc`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from html import escape

import numpy as np

from .._visible import visible

#: Okabe & Ito's colour-blind-safe palette (yellow last: it is faint on white).
PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow
)
#: beyond 8 classes colours repeat, so the line style changes with each round of the palette.
DASHES = ("", "6 3", "2 3", "8 3 2 3")
GREY = "#8a8f98"
ACCENT = PALETTE[0]


def esc(value: object) -> str:
    """``value`` as text that is safe in HTML/SVG content and in quoted attributes.

    Text from the data (class, column and category names) may hold control characters: they
    are shown as Python-style escapes (``\\u202e``, ``\\x00``), so what a name holds is
    what the page shows, and no name can reorder or hide the text after it.
    """
    return escape(visible(str(value)), quote=True)


def header_row(*cells: str) -> str:
    """A table's header row of the HTML fragments ``cells``, each cell saying it heads its
    column (``scope="col"``: a screen reader reads a data cell with its column's header)."""
    return "<tr>" + "".join(f'<th scope="col">{cell}</th>' for cell in cells) + "</tr>"


def clip_text(value: object, limit: int) -> str:
    """``str(value)`` cut to ``limit`` characters with an ellipsis (not yet escaped)."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def clip_names(values: Sequence[object], limit: int) -> list[str]:
    """Each of ``values`` cut like :func:`clip_text`, except that names whose cut would be
    the same (``organisation_department_A`` and ``…_B`` share their first 22 characters)
    keep their start and their end around the ellipsis, so a chart's labels stay apart."""
    texts = [" ".join(str(v).split()) for v in values]
    out = [clip_text(t, limit) for t in texts]
    count = Counter(out)
    head = max((limit - 1) // 2, 1)
    tail = max(limit - 1 - head, 1)
    return [
        t[:head] + "…" + t[-tail:] if count[o] > 1 and len(t) > limit else o
        for t, o in zip(texts, out, strict=True)
    ]


def colour(k: int) -> str:
    return PALETTE[k % len(PALETTE)]


def dash(k: int) -> str:
    return DASHES[(k // len(PALETTE)) % len(DASHES)]


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values (1, 2 or 5 times a power of ten apart) inside [lo, hi].

    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(-3.2, 17)
    [0.0, 5.0, 10.0, 15.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [float(lo)] if math.isfinite(lo) else []
    raw = (hi - lo) / max(n, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    steps = [m * power for m in (0.5, 1, 2, 5, 10)]
    k = next(i for i, step in enumerate(steps) if step >= raw * 0.999)
    while True:
        step = steps[k]
        first = math.ceil(lo / step - 1e-9)
        last = math.floor(hi / step + 1e-9)
        # A step just above the range/n can leave fewer than two ticks inside: go one finer.
        if last > first or k == 0:
            break
        k -= 1
    # 12 significant digits turn 0.30000000000000004 back into 0.3
    return [float(f"{i * step:.12g}") + 0.0 for i in range(first, last + 1)]


#: Decimals a bounded score may take beyond those asked before it is written "> …"/"< …".
_MORE_DECIMALS = 3


def bounded(value: float, digits: int = 3, top: float = 1.0) -> str:
    """``value`` (in [0, ``top``]: a probability, a share, an AUC) with ``digits`` decimals,
    never rounded onto 0 or ``top`` when it is not there: more decimals where rounding would
    (0.99971 as ``0.9997``, not ``1.000``), up to three more, then ``> 0.999999`` (escaped:
    markup). A score shown as 1 would claim a certainty the data do not."""
    for d in range(digits, digits + _MORE_DECIMALS + 1):
        text = f"{value:.{d}f}"
        shown = float(text)
        if not ((value > 0 and shown == 0) or (value < top and shown == top)):
            return text
    step = 10.0**-d
    return f"&lt; {step:.{d}f}" if value < top / 2 else f"&gt; {top - step:.{d}f}"


def percent(share: float, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage (see :func:`bounded`): ``99.97%``, not ``100.0%``."""
    return bounded(100 * share, digits, 100.0) + "%"


def fmt_tick(value: float) -> str:
    """Short tick label: ``0.25``, ``3``, ``1.2k``, ``3e-05``."""
    if value == 0:
        return "0"
    a = abs(value)
    if a >= 1e4 or a < 1e-3:
        return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if a >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:.4g}"


def thin(px: np.ndarray, py: np.ndarray, resolution: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Drop points that fall on the same ``resolution``-pixel cell as the point before: a
    curve of 5,000 points draws the same with a few hundred. First and last are kept."""
    if len(px) <= 2:
        return px, py
    qx, qy = np.round(px / resolution), np.round(py / resolution)
    keep = np.ones(len(px), dtype=bool)
    keep[1:] = (np.diff(qx) != 0) | (np.diff(qy) != 0)
    keep[-1] = True
    return px[keep], py[keep]


def segment(kind: str, x1: float, y1: float, x2: float, y2: float) -> str:
    """A straight line styled by the CSS class ``kind``."""
    return f'<line class="{kind}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'


class Frame:
    """A chart: an SVG canvas of ``width`` × ``height`` units with a plotting area inside the
    margins, mapping data coordinates ``xlim`` × ``ylim`` to it (y grows upward)."""

    def __init__(
        self,
        width: float,
        height: float,
        xlim: tuple[float, float],
        ylim: tuple[float, float],
        *,
        margin: tuple[float, float, float, float] = (28, 14, 46, 56),
    ):
        self.width, self.height = width, height
        self.top, self.right, self.bottom, self.left = margin
        self.xlim, self.ylim = xlim, ylim
        self.parts: list[str] = []

    @property
    def x0(self) -> float:
        return self.left

    @property
    def x1(self) -> float:
        return self.width - self.right

    @property
    def y0(self) -> float:
        return self.height - self.bottom

    @property
    def y1(self) -> float:
        return self.top

    def px(self, x: np.ndarray | float) -> np.ndarray:
        lo, hi = self.xlim
        span = (hi - lo) or 1.0
        return self.x0 + (np.asarray(x, dtype=float) - lo) / span * (self.x1 - self.x0)

    def py(self, y: np.ndarray | float) -> np.ndarray:
        lo, hi = self.ylim
        span = (hi - lo) or 1.0
        return self.y0 - (np.asarray(y, dtype=float) - lo) / span * (self.y0 - self.y1)

    def add(self, *svg: str) -> Frame:
        self.parts.extend(svg)
        return self

    def axes(
        self,
        xlabel: str = "",
        ylabel: str = "",
        *,
        xticks: Sequence[float] | None = None,
        yticks: Sequence[float] | None = None,
        xlabels: Sequence[str] | None = None,
        grid: bool = True,
    ) -> Frame:
        """Axis lines, ticks with labels (``xlabels`` names the x ticks when the axis is a
        transform of the values), light grid lines and axis titles."""
        xt = nice_ticks(*self.xlim) if xticks is None else list(xticks)
        names = [fmt_tick(t) for t in xt] if xlabels is None else list(xlabels)
        yt = nice_ticks(*self.ylim, n=4) if yticks is None else list(yticks)
        out = []
        for t, name in zip(xt, names, strict=True):
            x = float(self.px(t))
            if grid:
                out.append(segment("grid", x, self.y1, x, self.y0))
            out.append(segment("tick", x, self.y0, x, self.y0 + 4))
            out.append(
                f'<text class="ticklabel" x="{x:.1f}" y="{self.y0 + 15}" '
                f'text-anchor="middle">{esc(name)}</text>'
            )
        for t in yt:
            y = float(self.py(t))
            if grid:
                out.append(segment("grid", self.x0, y, self.x1, y))
            out.append(segment("tick", self.x0 - 4, y, self.x0, y))
            out.append(
                f'<text class="ticklabel" x="{self.x0 - 7}" y="{y + 3.5:.1f}" '
                f'text-anchor="end">{esc(fmt_tick(t))}</text>'
            )
        out.append(f'<path class="axis" d="M{self.x0},{self.y1} V{self.y0} H{self.x1}"/>')
        if xlabel:
            out.append(
                f'<text class="axislabel" x="{(self.x0 + self.x1) / 2:.1f}" '
                f'y="{self.height - 8}" text-anchor="middle">{esc(xlabel)}</text>'
            )
        if ylabel:
            cy = (self.y0 + self.y1) / 2
            out.append(
                f'<text class="axislabel" transform="translate(13,{cy:.1f}) rotate(-90)" '
                f'text-anchor="middle">{esc(ylabel)}</text>'
            )
        return self.add(*out)

    def line(
        self,
        x: np.ndarray,
        y: np.ndarray,
        *,
        stroke: str,
        width: float = 2.0,
        dasharray: str = "",
        title: str = "",
        opacity: float = 1.0,
    ) -> Frame:
        """A polyline through data points (thinned to the pixel grid)."""
        px, py = thin(self.px(x), self.py(y))
        if len(px) == 0:
            return self
        points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py, strict=True))
        extra = f' stroke-dasharray="{dasharray}"' if dasharray else ""
        extra += f' stroke-opacity="{opacity:g}"' if opacity < 1 else ""
        tip = f"<title>{esc(title)}</title>" if title else ""
        return self.add(
            f'<polyline class="series" fill="none" stroke="{stroke}" stroke-width="{width:g}"'
            f'{extra} points="{points}">{tip}</polyline>'
        )

    def chance(self, x: Sequence[float], y: Sequence[float]) -> Frame:
        """A dotted reference line (chance level, perfect calibration)."""
        px, py = self.px(np.asarray(x)), self.py(np.asarray(y))
        return self.add(
            f'<line class="reference" x1="{px[0]:.1f}" y1="{py[0]:.1f}" '
            f'x2="{px[1]:.1f}" y2="{py[1]:.1f}"/>'
        )

    def legend(self, entries: Sequence[tuple[str, str, str]], *, corner: str) -> Frame:
        """Legend rows ``(colour, dash, text)`` in the ``"bottom-right"`` or ``"bottom-left"``
        corner of the plotting area, on a light card so curves behind it stay readable."""
        if not entries:
            return self
        longest = max(len(text) for _, _, text in entries)
        box_w = 34 + 6.5 * longest
        x = self.x1 - box_w + 2 if corner == "bottom-right" else self.x0 + 14
        y = self.y0 - 16 * len(entries) + 2
        out = [
            f'<rect class="legendbox" x="{x - 6:.1f}" y="{y - 11:.1f}" width="{box_w:.1f}" '
            f'height="{16 * len(entries) + 6}" rx="4"/>'
        ]
        for i, (stroke, dasharray, text) in enumerate(entries):
            yy = y + 16 * i
            extra = f' stroke-dasharray="{dasharray}"' if dasharray else ""
            out.append(
                f'<line x1="{x:.1f}" y1="{yy - 4:.1f}" x2="{x + 18:.1f}" y2="{yy - 4:.1f}" '
                f'stroke="{stroke}" stroke-width="2.5"{extra}/>'
            )
            out.append(f'<text class="legend" x="{x + 24:.1f}" y="{yy:.1f}">{esc(text)}</text>')
        return self.add(*out)

    def title(self, text: str) -> Frame:
        return self.add(
            f'<text class="charttitle" x="{self.x0}" y="{self.top - 10}">{esc(text)}</text>'
        )

    def render(self, label: str) -> str:
        """The finished ``<svg>`` element; ``label`` is its accessible name."""
        return svg_element(self.width, self.height, label, "".join(self.parts))


#: a chart may grow to this multiple of its drawn size, so its text stays in proportion.
GROW = 1.3


def svg_element(width: float, height: float, label: str, body: str) -> str:
    """An inline SVG that scales to its container's width (up to ``GROW`` times its own) and
    keeps its aspect ratio."""
    return (
        f'<svg class="chart" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{esc(label)}" style="max-width:{GROW * width:.0f}px">'
        f"<title>{esc(label)}</title>{body}</svg>"
    )
