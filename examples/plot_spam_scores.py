"""
The spam filter's scores and its unsure band
============================================

:class:`~bayeskit.text.SpamFilter` calibrates the model's log-odds into :math:`P(\\text{spam}
\\mid x)` (Platt scaling on out-of-fold scores) and files a message as ham at or
below ``ham_cutoff`` (0.20), spam at or above ``spam_cutoff`` (0.90), and *unsure* between them, as
SpamBayes does after Robinson (2003). The histogram shows the held-out SMS messages' scores by
true class: nearly all of them are far from the band, and the few inside it are the doubtful
ones, where the two-way decision errs most.
"""

import matplotlib.pyplot as plt
import numpy as np

from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter

texts, labels = load_sms_spam()
rng = np.random.default_rng(0)
order = rng.permutation(len(texts))
train, test = order[:4000], order[4000:]

spam_filter = SpamFilter().fit([texts[i] for i in train], labels[train])
held_out = [texts[i] for i in test]
p_spam = spam_filter.spam_probability(held_out)
verdict = spam_filter.classify(held_out)
truth = labels[test]

unsure = verdict == "unsure"
wrong = spam_filter.predict(held_out) != truth
print(f"held-out messages: {len(test)}; unsure: {unsure.mean():.1%}")
print(
    f"two-way error inside the band {wrong[unsure].mean():.2f}, outside {wrong[~unsure].mean():.4f}"
)

fig, ax = plt.subplots(figsize=(9, 4))
bins = np.linspace(0, 1, 51)
ax.hist(p_spam[truth == "ham"], bins=bins, alpha=0.7, label="ham", color="#1f77b4")
ax.hist(p_spam[truth == "spam"], bins=bins, alpha=0.7, label="spam", color="#d62728")
ax.axvspan(
    spam_filter.ham_cutoff,
    spam_filter.spam_cutoff,
    color="0.85",
    zorder=0,
    label=f"unsure band ({unsure.mean():.1%} of messages)",
)
ax.set_yscale("log")
ax.set_xlabel("calibrated P(spam | message)")
ax.set_ylabel("messages (log scale)")
ax.set_title("SpamFilter() on 1,574 held-out SMS messages")
ax.legend()
fig.tight_layout()
plt.show()
