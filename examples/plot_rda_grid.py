"""
Regularized discriminant analysis without refitting
===================================================

Friedman's (1989) RDA blends each class's covariance with the pooled one (:math:`\\lambda`) and
shrinks the result towards a multiple of the identity (:math:`\\gamma`); :math:`\\lambda = 0,
\\gamma = 0` is QDA and :math:`\\lambda = 1, \\gamma = 0` is LDA. bayeskit keeps the class
scatter matrices, so ``set_params(lam=…, gamma=…)`` on a fitted model re-estimates it from its
statistics: the whole grid below is scored from *one* fit.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import bayeskit as bk

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
lams = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
gammas = np.array([0.001, 0.01, 0.05, 0.1, 0.25, 0.5])
rda = bk.RegularizedDiscriminantAnalysis(lam=0.5, gamma=0.1).fit(X_train, y_train)  # once
accuracy = np.array(
    [
        [rda.set_params(lam=lam, gamma=gamma).score(X_test, y_test) for gamma in gammas]
        for lam in lams
    ]
)

fig, ax = plt.subplots(figsize=(7, 4.5))
image = ax.imshow(accuracy, cmap="viridis", aspect="auto", origin="lower")
ax.set_xticks(range(len(gammas)), [str(g) for g in gammas])
ax.set_yticks(range(len(lams)), [str(v) for v in lams])
ax.set_xlabel("γ (shrinkage towards the identity)")
ax.set_ylabel("λ (0: QDA's own covariances, 1: LDA's pooled one)")
best = np.unravel_index(accuracy.argmax(), accuracy.shape)
ax.plot(best[1], best[0], "w*", markersize=14)
for (i, j), value in np.ndenumerate(accuracy):
    ax.text(
        j,
        i,
        f"{value:.3f}",
        ha="center",
        va="center",
        fontsize=7,
        color="white" if value < accuracy.max() - 0.02 else "black",
    )
fig.colorbar(image, label="held-out accuracy (digits)")
ax.set_title("RDA on digits: 42 settings from one fit")
fig.tight_layout()
plt.show()
