"""SpamFilter: ham, spam or unsure, with the costs of each mistake."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DataError, ParameterError
from ..naive_bayes import MultinomialNB
from .classifier import TextClassifier, _as_list
from .vectorize import TextVectorizer


class SpamFilter(TextClassifier):
    """A two-class text filter with the three-way decision spam filters use (seed 000).

    ``classify`` says ``"ham"`` when ``P(spam|x) <= ham_cutoff``, ``"spam"`` when
    ``P(spam|x) >= spam_cutoff`` and ``"unsure"`` in between (SpamBayes' 0.20 / 0.90 by
    default), so a person looks at the doubtful ones. ``predict`` makes the two-way decision of
    minimum expected cost: a lost ham (a good message flagged as spam) costs
    ``lost_ham_cost``, a passed spam ``passed_spam_cost``, so a message is spam when
    ``P(spam|x) > lost_ham_cost / (lost_ham_cost + passed_spam_cost)`` (seeds 001, 002).

    Parameters
    ----------
    vectorizer, model
        As for :class:`TextClassifier`. Defaults (chosen by cross-validation on the SMS
        collection and the SpamAssassin training folders, benchmarks/accuracy.md): word
        1-3-grams of ``\\b\\w+\\b`` tokens, present or not
        (``TextVectorizer(ngram_range=(1, 3), token_pattern=r"(?u)\\b\\w+\\b",
        output="binary")``), and ``MultinomialNB(alpha=0.1)``. :meth:`sklearn_defaults` gives
        scikit-learn's pipeline, ``TextVectorizer(analyzer="email")`` e-mail-aware tokens, and
        :meth:`twcnb` Rennie et al.'s transforms.
    spam_label, ham_label : the two class labels, default "spam" and "ham"
    ham_cutoff, spam_cutoff : float, default 0.20 and 0.90
    lost_ham_cost, passed_spam_cost : float, default 1.0
    useful_terms : int, optional
        Keep only the most useful terms (see :class:`TextClassifier`).

    Examples
    --------
    >>> from bayeskit.text import SpamFilter
    >>> f = SpamFilter(lost_ham_cost=10).fit(
    ...     ["win cash now", "free prize cash", "claim your free prize", "lunch at noon",
    ...      "see you at lunch", "cash for lunch"],
    ...     ["spam", "spam", "spam", "ham", "ham", "ham"])
    >>> mail = ["claim free cash prize", "lunch at noon", "cash"]
    >>> f.spam_probability(mail).round(3)
    array([1.   , 0.   , 0.656])
    >>> f.classify(mail)
    array(['spam', 'ham', 'unsure'], dtype='<U6')
    >>> f.predict(mail)  # a lost ham costs 10 passed spams: spam only above 10/11
    array(['spam', 'ham', 'ham'], dtype='<U4')
    >>> f.train_on_error(["free lunch"], ["ham"])  # it was wrong, so it learns this one
    1
    """

    @classmethod
    def default_vectorizer(cls) -> TextVectorizer:
        """What ``vectorizer=None`` stands for in a SpamFilter (see the parameters)."""
        return TextVectorizer(ngram_range=(1, 3), token_pattern=r"(?u)\b\w+\b", output="binary")

    @classmethod
    def default_model(cls) -> Any:
        """What ``model=None`` stands for in a SpamFilter (see the parameters)."""
        return MultinomialNB(alpha=0.1)

    def __init__(
        self,
        *,
        vectorizer: TextVectorizer | None = None,
        model: Any = None,
        spam_label: Any = "spam",
        ham_label: Any = "ham",
        ham_cutoff: float = 0.20,
        spam_cutoff: float = 0.90,
        lost_ham_cost: float = 1.0,
        passed_spam_cost: float = 1.0,
        useful_terms: int | None = None,
    ):
        super().__init__(vectorizer=vectorizer, model=model, useful_terms=useful_terms)
        self.spam_label = spam_label
        self.ham_label = ham_label
        self.ham_cutoff = ham_cutoff
        self.spam_cutoff = spam_cutoff
        self.lost_ham_cost = lost_ham_cost
        self.passed_spam_cost = passed_spam_cost

    def _spam_column(self) -> int:
        classes = self.classes_.tolist()
        if sorted(map(str, classes)) != sorted(map(str, [self.ham_label, self.spam_label])):
            raise DataError(
                f"a SpamFilter learns two classes, {self.ham_label!r} and {self.spam_label!r}; "
                f"it was trained on {classes}. Set ham_label/spam_label to your labels"
            )
        return classes.index(self.spam_label) if self.spam_label in classes else 1

    def _check_costs(self) -> tuple[float, float, float]:
        lo, hi = float(self.ham_cutoff), float(self.spam_cutoff)
        if not 0.0 <= lo <= hi <= 1.0:
            raise ParameterError(
                f"cutoffs must satisfy 0 <= ham_cutoff <= spam_cutoff <= 1; got "
                f"ham_cutoff={self.ham_cutoff!r}, spam_cutoff={self.spam_cutoff!r}"
            )
        ham, spam = float(self.lost_ham_cost), float(self.passed_spam_cost)
        if not (
            np.isfinite(ham) and np.isfinite(spam) and ham >= 0 and spam >= 0 and ham + spam > 0
        ):
            raise ParameterError(
                f"lost_ham_cost and passed_spam_cost must be >= 0 and not both 0; got "
                f"{self.lost_ham_cost!r} and {self.passed_spam_cost!r}"
            )
        return lo, hi, ham / (ham + spam)

    def spam_probability(self, X: Any) -> np.ndarray:
        """``P(spam|x)`` of each message."""
        return self.predict_proba(X)[:, self._spam_column()]

    def classify(self, X: Any) -> np.ndarray:
        """``"ham"``, ``"spam"`` or ``"unsure"`` for each message (see the class docstring)."""
        return self.verdicts(self.spam_probability(X))

    def verdicts(self, p_spam: Any) -> np.ndarray:
        """:meth:`classify`'s rule on spam probabilities already computed."""
        lo, hi, _ = self._check_costs()
        p = np.asarray(p_spam, dtype=np.float64)
        out = np.full(len(p), "unsure", dtype="<U6")
        out[p <= lo] = "ham"
        out[p >= hi] = "spam"
        return out

    def predict(self, X: Any) -> np.ndarray:
        """The two-way decision of minimum expected cost."""
        return self.decisions(self.spam_probability(X))

    def decisions(self, p_spam: Any) -> np.ndarray:
        """:meth:`predict`'s rule (minimum expected cost) on spam probabilities already
        computed: the spam label where ``p_spam`` exceeds
        ``lost_ham_cost / (lost_ham_cost + passed_spam_cost)``, else the ham label."""
        _, _, threshold = self._check_costs()
        column = self._spam_column()
        labels = self.classes_
        return np.where(np.asarray(p_spam) > threshold, labels[column], labels[1 - column])

    def train_on_error(self, X: Any, y: Any) -> int:
        """Learn only the messages the filter gets wrong or is unsure about (SpamBayes'
        train-on-error); returns how many it learned. An untrained filter learns them all."""
        docs, labels = _as_list(X), np.asarray(y)
        if len(docs) != len(labels):
            raise DataError(f"{len(docs)} messages but {len(labels)} labels")
        if not self.__sklearn_is_fitted__():
            self.fit(docs, labels)
            return len(docs)
        verdict = self.classify(docs)
        truth = np.where(labels == self.spam_label, "spam", "ham")
        wrong = np.flatnonzero(verdict != truth)
        if len(wrong):
            self.partial_fit([docs[i] for i in wrong], labels[wrong])
        return len(wrong)
