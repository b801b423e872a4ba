"""
Gaussian mixtures per class, the number of components chosen by BIC
====================================================================

:class:`~bayeskit.GaussianMixtureClassifier` fits a Gaussian mixture to each class by EM and
can choose each class's number of components :math:`k_y` by the Bayesian information criterion,
:math:`\\mathrm{BIC} = -2 \\ln L + p \\ln \\ell_y` (as R's mclust does for MclustDA). Here one
class is made of three clusters and the other of one: BIC finds three and one, and the ellipses
are the fitted components (two standard deviations).
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Ellipse

import bayeskit as bk

rng = np.random.default_rng(0)
centres = np.array([[-3.0, 0.0], [0.0, 3.0], [3.0, 0.0]])
X_a = np.vstack([c + rng.normal(0, 0.6, (80, 2)) for c in centres])
X_b = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.6], [0.6, 0.8]], 200)
X = np.vstack([X_a, X_b])
y = np.array(["a"] * len(X_a) + ["b"] * len(X_b))

model = bk.GaussianMixtureClassifier(
    n_components="bic", covariance_type="full", random_state=0
).fit(X, y)
print(
    "components per class:",
    {str(c): int(k) for c, k in zip(model.classes_, model.n_components_, strict=True)},
)

fig, ax = plt.subplots(figsize=(6.5, 5))
for c, (label, colour) in enumerate(zip(model.classes_, ["C0", "C1"], strict=True)):
    ax.scatter(
        *X[y == label].T,
        s=6,
        color=colour,
        alpha=0.5,
        label=f"class {label}: {model.n_components_[c]} component(s)",
    )
    for mean, cov in zip(model.means_[label], model.covariances_[label], strict=True):
        values, vectors = np.linalg.eigh(cov)
        angle = np.degrees(np.arctan2(vectors[1, -1], vectors[0, -1]))
        ax.add_patch(
            Ellipse(mean, *(4 * np.sqrt(values[::-1])), angle=angle, fill=False, color=colour, lw=2)
        )
ax.set_aspect("equal")
ax.legend(loc="lower center", fontsize=9)
ax.set_title("Components chosen by BIC for each class")
fig.tight_layout()
plt.show()
