"""
The effect of priors and of the loss matrix
===========================================

Two normal classes on a line. The Bayes decision boundary is where
:math:`\\lambda_0 P(0)\\, p(x \\mid 0) = \\lambda_1 P(1)\\, p(x \\mid 1)`: a larger prior or a
larger loss for a class moves the boundary away from it, so that more of the line is decided in
its favour (Duda, Hart & Stork 2001, §2.2). With a loss matrix ``loss[i, j]`` (the cost of
deciding ``classes_[i]`` when the truth is ``classes_[j]``) the rule minimises the conditional
risk :math:`R(y \\mid x) = \\sum_k L_{yk} P(k \\mid x)`; the posteriors do not change, only the
threshold does.
"""

import matplotlib.pyplot as plt
import numpy as np

import bayeskit as bk

rng = np.random.default_rng(0)
X = np.concatenate([rng.normal(0.0, 1.0, 500), rng.normal(2.5, 1.0, 500)])[:, None]
y = np.repeat([0, 1], 500)
grid = np.linspace(-3, 5.5, 1000)[:, None]


def boundary(model):
    decided = model.fit(X, y).predict(grid)
    return float(grid[np.argmax(decided == 1), 0])


fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for prior in (0.1, 0.5, 0.9):
    model = bk.GaussianNB(priors=[prior, 1 - prior]).fit(X, y)  # scikit-learn's name
    left.plot(grid[:, 0], model.predict_proba(grid)[:, 1], label=f"P(0) = {prior}")
    left.axvline(boundary(model), color=left.lines[-1].get_color(), ls=":")
left.set_title("Class prior: posterior P(1 | x) and boundary")
left.set_xlabel("x")
left.legend()

costs = np.array([0.2, 0.5, 1, 2, 5, 10])
edges = [boundary(bk.GaussianNB(loss=[[0, 1], [c, 0]])) for c in costs]
right.semilogx(costs, edges, "o-")
right.set_xlabel("cost of deciding 1 when the truth is 0 (deciding 0 for a 1 costs 1)")
right.set_ylabel("decision boundary x")
right.set_title("Loss matrix: the boundary moves, the posteriors do not")
fig.tight_layout()
plt.show()
