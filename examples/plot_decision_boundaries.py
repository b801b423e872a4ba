"""
Decision boundaries of five generative classifiers
==================================================

Naive Bayes, LDA, QDA, a Gaussian mixture per class and a Parzen window, fitted to the same
two-dimensional data: two interleaved half-moons and a blob. Each model estimates
:math:`p(x \\mid y)` differently and decides by the same rule,
:math:`a(x) = \\arg\\max_y P(y)\\, p(x \\mid y)`.

- GaussianNB: one normal density per class and feature (axis-aligned ellipses);
- LDA: one shared covariance, so straight boundaries;
- QDA: a covariance per class, so quadratic boundaries;
- GaussianMixtureClassifier: several normal components per class (an RBF network);
- ParzenWindowClassifier: a kernel on every training point.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs, make_moons

import bayeskit as bk

X_moons, y_moons = make_moons(n_samples=300, noise=0.2, random_state=0)
X_blob, _ = make_blobs(n_samples=100, centers=[[2.6, 1.6]], cluster_std=0.3, random_state=0)
X = np.vstack([X_moons, X_blob])
y = np.concatenate([y_moons, np.full(100, 2)])

models = {
    "GaussianNB": bk.GaussianNB(),
    "LinearDiscriminantAnalysis": bk.LinearDiscriminantAnalysis(),
    "QuadraticDiscriminantAnalysis": bk.QuadraticDiscriminantAnalysis(),
    "GaussianMixtureClassifier (3 components)": bk.GaussianMixtureClassifier(
        n_components=3, covariance_type="full", random_state=0
    ),
    "ParzenWindowClassifier": bk.ParzenWindowClassifier(),
}

xx, yy = np.meshgrid(np.linspace(-1.8, 3.6, 200), np.linspace(-1.2, 2.6, 160))
grid = np.c_[xx.ravel(), yy.ravel()]
colours = np.array(["#1f77b4", "#d62728", "#2ca02c"])

fig, axes = plt.subplots(1, len(models), figsize=(18, 3.8), sharey=True)
for ax, (name, model) in zip(axes, models.items(), strict=True):
    model.fit(X, y)
    proba = model.predict_proba(grid)
    # colour by the decided class, lighter where the posterior is less sure
    shade = colours[proba.argmax(axis=1)]
    ax.scatter(grid[:, 0], grid[:, 1], c=shade, s=1, alpha=0.15, marker="s", linewidths=0)
    ax.contour(
        xx,
        yy,
        proba.max(axis=1).reshape(xx.shape),
        levels=[0.6, 0.9],
        colors="k",
        linewidths=0.5,
        alpha=0.5,
    )
    ax.scatter(X[:, 0], X[:, 1], c=colours[y], s=8, edgecolors="white", linewidths=0.3)
    ax.set_title(f"{name}\ntraining accuracy {model.score(X, y):.3f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
