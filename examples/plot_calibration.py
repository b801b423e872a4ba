"""
Calibration of the posterior probabilities
==========================================

A classifier is *calibrated* when, of the cases it gives probability :math:`p`, a share
:math:`p` are positive. Naive Bayes multiplies per-feature densities as if the features were
independent, which pushes its posteriors towards 0 and 1 when they are not (Domingos & Pazzani 1997;
Niculescu-Mizil & Caruana 2005); a model that keeps the correlations (LDA) is far less extreme.
Smoothing each feature's density (KernelNB) does not cure it: the product is as extreme as
GaussianNB's, though fewer of its confident answers are wrong (a lower Brier score). The
reliability diagram bins the held-out probabilities and plots the observed frequency in each
bin.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import brier_score_loss
from sklearn.model_selection import train_test_split

import bayeskit as bk

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
models = {
    "GaussianNB": bk.GaussianNB(),
    "KernelNB": bk.KernelNB(),
    "LinearDiscriminantAnalysis": bk.LinearDiscriminantAnalysis(),
}

fig, (ax, hist) = plt.subplots(1, 2, figsize=(11, 4.5))
ax.plot([0, 1], [0, 1], "k:", label="perfectly calibrated")
for name, model in models.items():
    p = model.fit(X_train, y_train).predict_proba(X_test)[:, 1]
    frequency, mean_p = calibration_curve(y_test, p, n_bins=8, strategy="quantile")
    ax.plot(mean_p, frequency, "o-", label=f"{name} (Brier {brier_score_loss(y_test, p):.3f})")
    hist.hist(p, bins=np.linspace(0, 1, 21), histtype="step", lw=2, label=name)
ax.set_xlabel("predicted P(benign)")
ax.set_ylabel("observed share benign")
ax.set_title("Reliability diagram (held-out half of breast cancer)")
ax.legend(fontsize=8)
hist.set_yscale("log")
hist.set_xlabel("predicted P(benign)")
hist.set_ylabel("tumours")
hist.set_title("How extreme the probabilities are")
hist.legend(fontsize=8)
fig.tight_layout()
plt.show()
