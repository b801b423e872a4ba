"""Fisher's picture of a linear discriminant model: the rows projected on the first two
discriminant axes (one axis and a lane per class when there are two classes), coloured by
their true class. Classes the model tells apart form separate clouds; overlapping clouds are
where its mistakes come from."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import BayeskitError
from .svg import Frame, colour, esc

#: at most this many rows are drawn (a random sample: the page stays small)
MAX_POINTS = 2500


def discriminant_projection(model: Any, X: Any, y: Any, *, seed: int = 0) -> str | None:
    """An SVG scatter of ``model.transform(X)`` on its first two axes, or None for a model
    without Fisher's projection (anything but a fitted LinearDiscriminantAnalysis)."""
    if not hasattr(model, "explained_variance_ratio_") or X is None or y is None:
        return None
    try:
        Z = _project(model, X)
    except BayeskitError:
        return None
    labels = np.asarray(y)
    classes = list(np.asarray(model.classes_).tolist())
    if Z.shape[1] == 0 or len(labels) != len(Z):
        return None
    rows = np.arange(len(Z))
    if len(rows) > MAX_POINTS:
        rows = np.sort(np.random.default_rng(seed).choice(rows, MAX_POINTS, replace=False))
    Z, labels = Z[rows], labels[rows]
    code = np.full(len(labels), -1)
    for k, c in enumerate(classes):
        code[labels == c] = k
    ratio = model.explained_variance_ratio_
    if Z.shape[1] >= 2:
        return _scatter(Z[:, :2], code, classes, ratio)
    return _strip(Z[:, 0], code, classes)


def _project(model: Any, X: Any) -> np.ndarray:
    """Every axis of the projection (whatever ``n_components`` keeps)."""
    scalings = model.scalings_
    axes = min(2, len(model.classes_) - 1, scalings.shape[1])
    data = model.prepare(X).blocks[0]  # the rows as the model reads them
    return np.asarray(data @ scalings[:, :axes])


def _limits(v: np.ndarray) -> tuple[float, float]:
    lo, hi = float(np.min(v)), float(np.max(v))
    pad = 0.04 * (hi - lo or 1.0)
    return lo - pad, hi + pad


def _dots(f: Frame, x: np.ndarray, y: np.ndarray, code: np.ndarray, classes: list) -> None:
    out = []
    for k, label in enumerate(classes):
        hit = code == k
        if not hit.any():
            continue
        ink = colour(k)
        name = esc(label)
        out.append(f'<g data-class="{k}" fill="{ink}" fill-opacity="0.55"><title>{name}</title>')
        out += [
            f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.2"/>'
            for a, b in zip(f.px(x[hit]), f.py(y[hit]), strict=True)
        ]
        out.append("</g>")
    f.add(*out)


def _scatter(Z: np.ndarray, code: np.ndarray, classes: list, ratio: np.ndarray) -> str:
    f = Frame(520, 420, _limits(Z[:, 0]), _limits(Z[:, 1]))
    f.axes(
        f"discriminant axis 1 ({ratio[0]:.0%} of the between-class variance)",
        f"axis 2 ({ratio[1]:.0%})",
    )
    _dots(f, Z[:, 0], Z[:, 1], code, classes)
    return f.render("Rows projected on the first two discriminant axes")


def _strip(z: np.ndarray, code: np.ndarray, classes: list) -> str:
    K = len(classes)
    f = Frame(520, 90 + 40 * K, _limits(z), (-0.5, K - 0.5), margin=(16, 14, 46, 110))
    f.axes("discriminant axis", "", yticks=[])
    lanes = []
    for k, label in enumerate(classes):
        y = float(f.py(k))
        lanes.append(
            f'<text class="ticklabel" x="{f.x0 - 7}" y="{y + 3.5:.1f}" text-anchor="end">'
            f"{esc(str(label)[:16])}</text>"
        )
    f.add(*lanes)
    jitter = np.random.default_rng(1).uniform(-0.3, 0.3, size=len(z))
    _dots(f, z, code + jitter, code, classes)
    return f.render("Rows projected on the discriminant axis")
