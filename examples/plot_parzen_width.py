"""
The Parzen window's width
=========================

A Parzen window estimates each class density by a kernel on every training point,
:math:`\\hat p_h(x \\mid y) = \\frac{1}{\\ell_y V_h} \\sum_{x_i \\in X_y} K(\\rho(x, x_i)/h)`.
The width :math:`h` trades bias for variance: too narrow and the density is a comb of spikes,
too wide and the classes blur together. :class:`~bayeskit.ParzenWindowClassifier` chooses it by
Scott's or Silverman's rule, or by leave-one-out likelihood or accuracy; the plot shows the
class densities for two fixed widths (0.05 and 2) and the one chosen by leave-one-out
likelihood.
"""

import matplotlib.pyplot as plt
import numpy as np

import bayeskit as bk

rng = np.random.default_rng(1)
a = np.concatenate([rng.normal(-2.0, 0.5, 60), rng.normal(1.0, 0.6, 40)])
b = rng.normal(0.0, 1.5, 100)
X = np.concatenate([a, b])[:, None]
y = np.repeat(["a", "b"], 100)
grid = np.linspace(-6, 6, 600)[:, None]

chosen = bk.ParzenWindowClassifier(bandwidth="loo-likelihood").fit(X, y)
widths = {
    "narrow (h = 0.05)": 0.05,
    "wide (h = 2)": 2.0,
    f"leave-one-out (h = {chosen.bandwidth_:.2f})": chosen.bandwidth_,
}

fig, axes = plt.subplots(1, 3, figsize=(14, 3.6), sharey=True)
for ax, (name, h) in zip(axes, widths.items(), strict=True):
    model = bk.ParzenWindowClassifier(bandwidth=h).fit(X, y)
    joint = np.exp(model.predict_joint_log_proba(grid))  # P(y) p(x | y)
    ax.plot(grid[:, 0], joint[:, 0], label="P(a) p(x | a)")
    ax.plot(grid[:, 0], joint[:, 1], label="P(b) p(x | b)")
    ax.plot(a, np.zeros_like(a) - 0.01, "|", color="C0")
    ax.plot(b, np.zeros_like(b) - 0.02, "|", color="C1")
    ax.set_title(name)
    ax.set_xlabel("x")
axes[0].legend()
fig.tight_layout()
plt.show()
