"""
Streaming versus batch training
===============================

Sufficient statistics add, so ``partial_fit`` over batches gives *the* model ``fit`` gives on all
the rows, not an approximation; at every step the streamed model is the batch model of what it
has seen so far. Here LDA on digits, fed 100 rows at a time: the left panel shows the held-out
accuracy as rows arrive, the right one the largest difference between the streamed model's
probabilities and those of a model fitted in one go on the same rows (rounding only: the
centred moments are added by Chan, Golub & LeVeque's pairwise update, never as raw power sums).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import bayeskit as bk

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
stream = bk.LinearDiscriminantAnalysis(shrinkage="auto", solver="lsqr")
seen, accuracy, gap = [], [], []
for start in range(0, len(y_train), 100):
    stop = min(start + 100, len(y_train))
    stream.partial_fit(X_train[start:stop], y_train[start:stop], classes=np.arange(10))
    batch = bk.LinearDiscriminantAnalysis(shrinkage="auto", solver="lsqr").fit(
        X_train[:stop], y_train[:stop]
    )
    seen.append(stop)
    accuracy.append(stream.score(X_test, y_test))
    gap.append(np.abs(stream.predict_proba(X_test) - batch.predict_proba(X_test)).max())

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.plot(seen, accuracy, "o-")
left.set_xlabel("training rows seen")
left.set_ylabel("held-out accuracy")
left.set_title("LDA (Ledoit–Wolf shrinkage), 100 rows at a time")
right.semilogy(seen, np.maximum(gap, 1e-17), "o-")
right.set_xlabel("training rows seen")
right.set_ylabel("max |streamed − batch| probability")
right.set_title("Streamed and batch models agree to rounding")
fig.tight_layout()
plt.show()
