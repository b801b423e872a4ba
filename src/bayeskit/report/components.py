"""The report's picture of a Gaussian-mixture classifier: its component centres (the RBF
network's hidden units) over the training data, in 2-D projections."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .panels import legend_strip
from .svg import Frame, clip_text, colour, esc

#: training rows drawn per panel (a random sample beyond this).
MAX_POINTS = 1500
#: points on each covariance ellipse.
_ELLIPSE = 64


def components_section(model: Any, X: Any, y: Any) -> str | None:
    """Panels of the component centres and their 2-σ ellipses, projected on the training
    data's first two principal axes (of the standardised columns) and on the two columns that
    separate the classes best; None for a model without mixture components."""
    if not hasattr(model, "predict_components") or X is None or y is None:
        return None
    Z = np.asarray(model.prepare(X).blocks[0], dtype=np.float64)
    labels = np.asarray(y)
    complete = ~np.isnan(Z).any(axis=1)
    Z, labels = Z[complete], labels[complete]
    d = Z.shape[1]
    if d < 2 or len(Z) < 3:
        return None
    classes = list(np.asarray(model.classes_).tolist())
    centre = Z.mean(axis=0)
    scale = Z.std(axis=0)
    scale[scale == 0] = 1.0
    _, _, vt = np.linalg.svd((Z - centre) / scale, full_matrices=False)
    principal = vt[:2] / scale  # rows: the two axes, in the original units' inverse
    best = _separating_pair(Z, labels, classes)
    pair = np.zeros((2, d))
    pair[0, best[0]] = pair[1, best[1]] = 1.0
    names = _names(model, d)
    panels = [
        _panel(
            model, Z, labels, classes, principal, centre, ("principal axis 1", "principal axis 2")
        ),
        _panel(model, Z, labels, classes, pair, np.zeros(d), (names[best[0]], names[best[1]])),
    ]
    counts = ", ".join(
        f"{esc(clip_text(c, 24))}: {k}" for c, k in zip(classes, model.n_components_, strict=True)
    )
    return (
        '<p class="how">Each class is a mixture of Gaussians (a radial-basis-function network: '
        "its components are the hidden units). Crosses: the component centres, larger for a "
        "larger mixing weight; curves: where the component's density falls to e<sup>−2</sup> "
        "of its peak (2 standard deviations) in the projection; dots: a sample of the training "
        f"rows. Components per class — {counts}.</p>{legend_strip(classes)}"
        f'<div class="multiples">{"".join(f"<figure>{p}</figure>" for p in panels)}</div>'
    )


def _names(model: Any, d: int) -> list[str]:
    names = getattr(model, "feature_names_in_", None)
    return [str(n) for n in names] if names is not None else [f"x{j}" for j in range(d)]


def _separating_pair(Z: np.ndarray, labels: np.ndarray, classes: Sequence[Any]) -> tuple[int, int]:
    """The two columns with the largest between- to within-class variance ratio."""
    total = Z.var(axis=0)
    within = np.zeros(Z.shape[1])
    for c in classes:
        rows = Z[labels == c]
        if len(rows):
            within += rows.var(axis=0) * len(rows)
    within /= len(Z)
    ratio = np.divide(total - within, within, out=np.zeros_like(total), where=within > 0)
    order = np.argsort(-ratio, kind="stable")
    return int(order[0]), int(order[1])


def _panel(
    model: Any,
    Z: np.ndarray,
    labels: np.ndarray,
    classes: list[Any],
    P: np.ndarray,
    centre: np.ndarray,
    axis_names: tuple[str, str],
) -> str:
    """One 2-D projection ``u = P (x − centre)``."""
    rng = np.random.default_rng(0)
    show = rng.choice(len(Z), size=min(len(Z), MAX_POINTS), replace=False)
    points = (Z[show] - centre) @ P.T
    shapes = []
    for label in classes:
        means = np.asarray(model.means_[label])
        covs = _full_covariances(model, label, means.shape)
        weights = np.asarray(model.weights_[label])
        for mean, cov, weight in zip(means, covs, weights, strict=True):
            u = P @ (mean - centre)
            shapes.append((label, u, P @ cov @ P.T, float(weight)))
    ellipses = [_ellipse(u, S) for _, u, S, _ in shapes]
    everything = np.vstack([points, *ellipses]) if ellipses else points
    lo, hi = everything.min(axis=0), everything.max(axis=0)
    pad = 0.04 * np.maximum(hi - lo, 1e-12)
    f = Frame(340, 300, (lo[0] - pad[0], hi[0] + pad[0]), (lo[1] - pad[1], hi[1] + pad[1]))
    f.axes(clip_text(axis_names[0], 40), clip_text(axis_names[1], 30))
    code = {c: k for k, c in enumerate(classes)}
    for (x, yy), label in zip(points, labels[show].tolist(), strict=True):
        k = code.get(label, 0)
        f.add(
            f'<circle cx="{float(f.px(x)):.1f}" cy="{float(f.py(yy)):.1f}" r="1.6" '
            f'fill="{colour(k)}" fill-opacity="0.35"/>'
        )
    for (label, u, _, weight), ring in zip(shapes, ellipses, strict=True):
        k = code[label]
        f.line(ring[:, 0], ring[:, 1], stroke=colour(k), width=1.6, title=f"{label}: component")
        x, yy, r = float(f.px(u[0])), float(f.py(u[1])), 3.0 + 9.0 * np.sqrt(weight)
        f.add(
            f'<path d="M{x - r:.1f},{yy:.1f} H{x + r:.1f} M{x:.1f},{yy - r:.1f} V{yy + r:.1f}" '
            f'stroke="{colour(k)}" stroke-width="2.4"><title>{esc(label)}: weight '
            f"{weight:.3f}</title></path>"
        )
    f.add(f'<text class="charttitle" x="{f.x0}" y="18">{esc(clip_text(axis_names[0], 24))} × '
          f"{esc(clip_text(axis_names[1], 24))}</text>")  # fmt: skip
    return f.render("Mixture components in a 2-D projection")


def _full_covariances(model: Any, label: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Each component's covariance as a full matrix, whatever the covariance type."""
    k, d = shape
    cov = np.asarray(model.covariances_[label])
    kind = model.covariance_type
    if kind == "diag":
        return np.stack([np.diag(c) for c in cov])
    if kind == "spherical":
        return np.stack([np.eye(d) * c for c in cov])
    if kind == "tied":
        return np.repeat(cov[None], k, axis=0)
    return cov


def _ellipse(u: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Points of the 2-σ ellipse of a 2-D Gaussian with mean ``u`` and covariance ``S``."""
    values, vectors = np.linalg.eigh(0.5 * (S + S.T))
    radii = 2.0 * np.sqrt(np.maximum(values, 0.0))
    t = np.linspace(0.0, 2.0 * np.pi, _ELLIPSE)
    circle = np.stack([np.cos(t), np.sin(t)], axis=1)
    return u + (circle * radii) @ vectors.T
