"""
Why a message is spam: the exact account of a decision
======================================================

A count model is linear in its features, so its log-odds for a message is the prior term plus
one term per word, :math:`\\ln\\frac{P(\\text{spam})}{P(\\text{ham})} + \\sum_j x_j
\\ln\\frac{\\theta_{\\text{spam},j}}{\\theta_{\\text{ham},j}}` — an exact decomposition, not an
approximation. :meth:`~bayeskit.text.SpamFilter.explain` returns it; the chart draws each term's
share for two messages (the account is of the decided class against the other).
"""

import matplotlib.pyplot as plt

from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter

texts, labels = load_sms_spam()
spam_filter = SpamFilter().fit(texts, labels)
messages = [
    "URGENT! You have won a 1 week FREE membership. Call now",
    "Are we still on for lunch? Call me when you are free",
]

fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
for ax, message in zip(axes, messages, strict=True):
    account = spam_filter.explain(message)
    print(account)
    terms = [(c.feature, c.weight) for c in account.top(10)]
    names = ["(prior)"] + [name for name, _ in terms]
    values = [account.prior] + [value for _, value in terms]
    ax.barh(names[::-1], values[::-1], color=["C3" if v > 0 else "C0" for v in values[::-1]])
    ax.axvline(0, color="k", lw=0.8)
    ax.set_title(
        f"{message[:38]}…\n{account.label!r} vs {account.versus!r}: log-odds "
        f"{account.log_odds:+.2f}",
        fontsize=9,
    )
    ax.set_xlabel(f"term's share of the log-odds ({account.label} vs {account.versus})")
fig.tight_layout()
plt.show()
