"""The structure of a Bayesian network classifier, drawn: each feature under its parents, the
edges labelled with the conditional mutual information they were chosen by.

Reads what a model declares: ``parents_`` (feature name → parent names) and, when present,
``conditional_information_`` (the (d, d) matrix of ``I(X_i; X_j | Y)``); a model declaring
every other feature as parent of every feature (AODE) has no structure to draw."""

from __future__ import annotations

from typing import Any

import numpy as np

from .svg import clip_text, esc, header_row, svg_element

#: Features drawn at most (a wider tree is listed as a table instead).
MAX_DRAWN = 40
_ROW, _COLUMN, _BOX_W, _BOX_H = 70.0, 130.0, 116.0, 24.0


def network_section(model: Any) -> str | None:
    """HTML of the structure section, or None when the model declares no structure."""
    parents = getattr(model, "parents_", None)
    if not isinstance(parents, dict) or not parents:
        return None
    names = list(parents)
    d = len(names)
    if d > 1 and all(len(p) == d - 1 for p in parents.values()):
        return None  # every feature the parent of every other: averaged, no structure
    info = getattr(model, "conditional_information_", None)
    index = {n: j for j, n in enumerate(names)}
    rows = "".join(
        f"<tr><td>{esc(n)}</td><td>{esc(', '.join(p) or '(the class only)')}</td></tr>"
        for n, p in parents.items()
    )
    table = f"<table>{header_row('feature', 'parents')}{rows}</table>"
    how = (
        '<p class="how">Each feature depends on the class and on its parents. Edges carry the '
        "conditional mutual information I(X; parent | class) in nats (Sahami's k-dependence "
        "structure is chosen by it; TAN's tree by its edge_weight, by default the Bayesian "
        "Dirichlet gain).</p>"
    )
    if d > MAX_DRAWN:
        return how + table
    depth = _depths(parents, index)
    levels: dict[int, list[str]] = {}
    for n in names:
        levels.setdefault(depth[n], []).append(n)
    width = max(len(v) for v in levels.values()) * _COLUMN + 20
    height = (max(levels) + 1) * _ROW + 20
    where = {
        n: (10 + _COLUMN * (k + 0.5) + (width - 20 - _COLUMN * len(row)) / 2, 10 + _ROW * level)
        for level, row in levels.items()
        for k, n in enumerate(row)
    }
    parts = []
    for n, ps in parents.items():
        x2, y2 = where[n]
        for p in ps:
            x1, y1 = where[p]
            parts.append(
                f'<line x1="{x1:.1f}" y1="{y1 + _BOX_H:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                'stroke="#667" stroke-width="1.2"/>'
            )
            if isinstance(info, np.ndarray) and info.shape == (d, d):
                value = float(info[index[n], index[p]])
                parts.append(
                    f'<text x="{(x1 + x2) / 2 + 4:.1f}" y="{(y1 + _BOX_H + y2) / 2:.1f}" '
                    f'font-size="10" fill="#445">{value:.3f}</text>'
                )
    for n, (x, y) in where.items():
        parts.append(
            f'<rect x="{x - _BOX_W / 2:.1f}" y="{y:.1f}" width="{_BOX_W}" height="{_BOX_H}" '
            'rx="4" fill="#eef3fb" stroke="#2a5caa"/>'
            f'<text x="{x:.1f}" y="{y + 16:.1f}" font-size="11" text-anchor="middle">'
            f"{esc(clip_text(n, 18))}</text>"
        )
    chart = svg_element(width, height, "structure of the network classifier", "".join(parts))
    return f"{how}<figure>{chart}</figure>{table}"


def _depths(parents: dict[str, tuple[str, ...]], index: dict[str, int]) -> dict[str, int]:
    """Each feature's level: one below its deepest parent (parents always come first in
    a network's order, so the recursion ends)."""
    depth: dict[str, int] = {}

    def level(n: str, seen: frozenset[str]) -> int:
        if n in depth:
            return depth[n]
        ps = [p for p in parents[n] if p in index and p not in seen]
        depth[n] = 1 + max((level(p, seen | {n}) for p in ps), default=-1)
        return depth[n]

    for n in parents:
        level(n, frozenset())
    return depth
