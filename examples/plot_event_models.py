"""
Which event model for text?
===========================

McCallum & Nigam (1998) compared the multinomial model (word counts) with the multi-variate
Bernoulli model (word presence) and found the multinomial better as the vocabulary grows;
Rennie et al. (2003) added the complement model. Here the three, and the multinomial model on
presence features that Metsis et al. (2006) recommend for spam, on the SMS Spam Collection,
keeping the ``k`` terms in the most messages, scored by 5-fold cross-validation.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextVectorizer

texts, labels = load_sms_spam()
counts = TextVectorizer().fit_transform(texts).tocsc()
by_documents = np.argsort(-np.diff(counts.indptr), kind="stable")  # terms in most messages first
counts = counts.tocsr()
presence = (counts > 0).astype(np.float64)

sizes = [50, 200, 1000, 5000, counts.shape[1]]
models = {
    "MultinomialNB, counts": (bk.MultinomialNB, counts),
    "MultinomialNB, presence": (bk.MultinomialNB, presence),
    "BernoulliNB, presence": (bk.BernoulliNB, presence),
    "ComplementNB, counts": (bk.ComplementNB, counts),
}
folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(labels)), labels))

fig, ax = plt.subplots(figsize=(7.5, 4.2))
for name, (cls, X) in models.items():
    scores = []
    for k in sizes:
        Xk = X[:, by_documents[:k]]
        scores.append(
            np.mean([cls().fit(Xk[tr], labels[tr]).score(Xk[te], labels[te]) for tr, te in folds])
        )
    ax.plot(sizes, scores, "o-", label=name)
ax.set_xscale("log")
ax.set_xlabel("vocabulary size (terms in the most messages)")
ax.set_ylabel("5-fold accuracy")
ax.set_title("Event models on the SMS Spam Collection")
ax.legend(fontsize=9)
fig.tight_layout()
plt.show()
