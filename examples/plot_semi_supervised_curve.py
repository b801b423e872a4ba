"""
Semi-supervised learning curves
===============================

With few labelled rows, EM over the unlabelled ones (Nigam, McCallum, Thrun & Mitchell 2000)
can learn much of what the labels would have taught: :class:`~bayeskit.SemiSupervisedNB` fits
the wrapped model to the labelled rows, then alternates the class posteriors of the unlabelled
rows (E-step) and a refit from both, the unlabelled rows weighted by their posteriors (M-step).
Here GaussianNB on the wine data, with 1 to 10 labelled wines per cultivar and the rest
unlabelled; the accuracy is on all 178 wines, averaged over 10 random draws. (The wrapped model
keeps GaussianNB's default ``var_smoothing``: it adds that share of the largest feature variance
to every variance, and on wine the largest is proline's, in the tens of thousands, so a share of
1e-2 would drown the other twelve measurements.)
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine

import bayeskit as bk

X, y = load_wine(return_X_y=True)
per_class = [1, 2, 3, 5, 10]
draws = 10
supervised = np.zeros((len(per_class), draws))
semi = np.zeros_like(supervised)
for i, k in enumerate(per_class):
    for d in range(draws):
        rng = np.random.default_rng(d)
        marked = np.full(len(y), -1)
        for c in range(3):
            marked[rng.choice(np.flatnonzero(y == c), k, replace=False)] = c
        labelled = marked != -1
        supervised[i, d] = bk.GaussianNB().fit(X[labelled], y[labelled]).score(X, y)
        semi[i, d] = bk.SemiSupervisedNB(bk.GaussianNB(), max_iter=100).fit(X, marked).score(X, y)

fig, ax = plt.subplots(figsize=(7, 4))
ax.errorbar(
    per_class,
    supervised.mean(axis=1),
    yerr=supervised.std(axis=1),
    marker="o",
    capsize=3,
    label="GaussianNB on the labelled rows",
)
ax.errorbar(
    per_class,
    semi.mean(axis=1),
    yerr=semi.std(axis=1),
    marker="s",
    capsize=3,
    label="SemiSupervisedNB(GaussianNB): + EM on the unlabelled rows",
)
ax.set_xscale("log")
ax.set_xticks(per_class, [str(k) for k in per_class])
ax.set_xlabel("labelled wines per cultivar")
ax.set_ylabel("accuracy on all 178 wines")
ax.set_ylim(0.5, 1.0)
ax.legend(loc="lower right", fontsize=9)
fig.tight_layout()
plt.show()
