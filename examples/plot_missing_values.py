"""
Missing values drop out of the product
======================================

Naive Bayes needs no imputation: a missing feature's term simply leaves the product,
:math:`p(x \\mid y) = \\prod_{j\\ \\text{observed}} p_j(x_j \\mid y)`, which is the exact marginal
of the model over the missing value. Here KernelNB and GaussianNB on breast cancer with a
growing share of the test cells removed at random, against GaussianNB after scikit-learn's mean
imputation.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB
from sklearn.pipeline import make_pipeline

import bayeskit as bk

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
models = {
    "KernelNB (missing terms dropped)": bk.KernelNB().fit(X_train, y_train),
    "GaussianNB (missing terms dropped)": bk.GaussianNB().fit(X_train, y_train),
    "scikit-learn: mean imputation + GaussianNB": make_pipeline(
        SimpleImputer(), SklearnGaussianNB()
    ).fit(X_train, y_train),
}
shares = np.array([0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95])
rng = np.random.default_rng(0)
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for name, model in models.items():
    scores = []
    for share in shares:
        runs = []
        for _ in range(5):
            holed = X_test.copy()
            holed[rng.random(holed.shape) < share] = np.nan
            runs.append(model.score(holed, y_test))
        scores.append(np.mean(runs))
    ax.plot(shares, scores, "o-", label=name)
ax.set_xlabel("share of test cells missing")
ax.set_ylabel("accuracy (mean of 5 draws)")
ax.set_title("Breast cancer with missing measurements")
ax.legend(fontsize=9)
fig.tight_layout()
plt.show()
