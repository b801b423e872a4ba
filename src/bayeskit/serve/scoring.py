"""Checking one message against a text model: verdict, probability, log-odds and reasons.

A :class:`Scorer` is built once per model snapshot from the model's own linear form
(``joint log-likelihood = transform(x) @ W.T + b``, McCallum & Nigam): scoring a message is then
the model's :meth:`~bayeskit.text.TextClassifier.transform` (for a short message its row as
two lists, :meth:`~bayeskit.text.TextVectorizer.one_row`) and one product over the message's
columns, without per-call input validation, and the same product, split by term, gives the
reasons and (see :mod:`.colouring`) the colour of every word or character. The numbers are
the model's: tests compare them with ``predict_proba`` and ``explain``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._decision import normalize_log
from ..contract import contract_of
from ..text import TextClassifier, TextVectorizer, calibration, token_store
from .colouring import segments

__all__ = ["ACTIONS", "Scorer", "plain"]

#: What to do with a message: "review" when the verdict is unsure, else by the decision of
#: minimum expected cost (SpamFilter.decisions): "junk" (spam) or "deliver" (ham).
ACTIONS = ("deliver", "review", "junk")
REASONS = 12
#: A model with more class × term cells than this is scored from a few columns of its
#: weights at each check (``linear_form(columns=…)``) instead of holding them whole: 20
#: classes × a million terms would make 160 MB at every learn's snapshot.
WHOLE_CELLS = 1 << 22


def plain(value: Any) -> Any:
    """A label as a JSON value (numpy scalars become Python ones)."""
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class Scorer:
    """The pieces of one fitted text model that every check needs, computed once."""

    model: TextClassifier
    W: np.ndarray | None  # None: a large model's columns are taken at each check
    b: np.ndarray
    log_prior: np.ndarray
    classes: list[Any]
    names: np.ndarray
    spam: int | None  # the spam column of a SpamFilter
    cutoffs: tuple[float, float, float]  # a SpamFilter's ham and spam cutoffs, cost threshold
    scale: tuple[float, float] = (1.0, 0.0)  # a SpamFilter's calibration of its log-odds
    # a SpamFilter that scores by Fisher's method: its log-odds are not the linear form's
    fisher: bool = False
    # a SpamFilter that has learned one class: "spam" or "ham" (unsure of every message)
    one_class: str | None = None
    # the model's fitted vectorizer, whose columns W's are (model.transform finds it anew
    # at every call, checking the model's settings: a hundredth of a check)
    vectorizer: TextVectorizer | None = None

    @classmethod
    def of(cls, model: TextClassifier, *, warm: bool = True) -> Scorer:
        """The scorer of ``model``; ``warm``: check a message first, so that the first
        request does not pay for the vectorizer's lookup tables (a model learned from a
        served one derives them from its parent's, and needs none)."""
        classes = [plain(c) for c in model.classes_.tolist()]
        spam, cutoffs, one_class = None, (0.0, 1.0, 0.5), None
        spam_filter = contract_of(model).decision == "spam"
        if spam_filter:
            spam, cutoffs = model.spam_index(), model.decision_rule()
            if not model.learned_both_classes():  # unsure of every message, as it says
                cutoffs = (-1.0, 2.0, cutoffs[2])
                only = model.learned_only()
                if only is not None:
                    one_class = "spam" if only == model.classes_[spam] else "ham"
        vectorizer = model.fitted_parts()[0]
        # the vocabulary's own terms where they are the names (get_feature_names_out copies
        # them, 0.12 ms for a filter trained on SMS, at every learn)
        plain_terms = vectorizer.output != "hashed" and vectorizer.oov_token is None
        names = vectorizer.terms_ if plain_terms else model.get_feature_names_out()
        W: np.ndarray | None
        if len(classes) * len(names) <= WHOLE_CELLS:
            W, b = model.linear_form()
        else:
            W, b = None, model.linear_form(columns=[])[1]
        scale = model.probability_scale() if spam_filter else (1.0, 0.0)
        fisher = spam_filter and model.check_scoring() != "naive_bayes"
        scorer = cls(
            model,
            W,
            b,
            model.class_log_prior_,
            classes,
            names,
            spam,
            cutoffs,
            scale,
            fisher,
            one_class,
            vectorizer,
        )
        if warm:
            scorer.check("warm up the vectorizer's lookup tables")
        return scorer

    @cached_property
    def table(self) -> token_store.TokenTable | None:
        """A spam filter's token store in memory (None for a filter it cannot score, or
        another model): built on the first :meth:`verdict` of this snapshot, not by
        :meth:`of`, so that a service that learns but is never asked pays nothing for it."""
        if self.spam is None:
            return None
        try:
            return token_store.TokenTable(self.model)
        except token_store.DeclinedError:
            return None

    @property
    def table_ready(self) -> bool:
        """Whether :attr:`table` has been built (the next :meth:`verdict` is a lookup)."""
        return "table" in self.__dict__

    def verdict(self, doc: str | bytes) -> tuple[float, str]:
        """``(P(spam|x), verdict)`` of one message for a spam filter (``POST /verdict``):
        scored as ``bayeskit filter MODEL`` scores by its token store, the terms looked up
        in :attr:`table` — what :meth:`check` answers (to rounding), without the sparse
        product, the reasons or the JSON; by :meth:`check` for a filter the store cannot
        score."""
        assert self.spam is not None, "a spam filter's verdict"
        if self.table is not None:
            return self.table.score(doc)
        answer = self.check(doc)
        return answer["p_spam"], answer["verdict"]

    def check(self, doc: str | bytes, *, words: bool = False) -> dict[str, Any]:
        """The answer of ``POST /check`` for one message (the user guide, "The service")."""
        vec = self.vectorizer
        row = None if self.fisher or vec is None else vec.one_row(doc)
        if row is None:  # (Fisher's scores read the row as a matrix)
            x = self.model.transform([doc])
            columns, data = x.indices, x.data
            values = data.tolist()
        else:  # a short message's columns and values, without a matrix of one row
            values = row[1]
            columns, data = np.array(row[0], dtype=np.intp), np.array(values)
        # a handful of non-zeros: those columns gathered rather than a sparse product
        # An unsmoothed model can hold -inf in both classes: their difference is NaN,
        # answered as null (the user guide), not a warning in the server's log.
        with np.errstate(invalid="ignore"):
            gathered = (  # (read once: for the sums and the reasons)
                self.W[:, columns]
                if self.W is not None
                else self.model.linear_form(columns=columns)[0]
            )
            jll = (self.b + gathered @ data).reshape(1, -1)
            log_odds = None
            if self.spam is not None:
                a, c = self.spam, 1 - self.spam
                log_odds = float(jll[0, a] - jll[0, c])
                if self.fisher:  # the filter's own score (Fisher's), not the count model's
                    log_odds = float(self.model.log_odds_of_rows(x, joint=jll)[0])
                if self.fisher or self.scale != (1.0, 0.0):  # SpamFilter.predict_proba
                    z = calibration.calibrated_logit_of(log_odds, self.scale)
                    proba = np.empty(2)
                    proba[a], proba[c] = calibration.expit_of(z), calibration.expit_of(-z)
                else:
                    proba = np.exp(_log_posterior(jll, self.log_prior))
            else:
                proba = np.exp(_log_posterior(jll, self.log_prior))
                order = np.argsort(-jll[0], kind="stable")
                a, c = int(order[0]), int(order[1])
            difference = jll[0, a] - jll[0, c]
            # a few dozen terms: Python floats, the same operations (so the same numbers),
            # cost less than a numpy call each
            high, low = gathered[a].tolist(), gathered[c].tolist()
            weights = [n * (x - y) for n, x, y in zip(values, high, low, strict=True)]
        out: dict[str, Any] = {}
        if self.spam is not None:
            # SpamFilter.verdicts and .decisions for one message, with the cutoffs and the
            # cost threshold the model checked when this scorer was built.
            p_spam = float(proba[self.spam])
            lo, hi, threshold = self.cutoffs
            verdict = "ham" if p_spam <= lo else "spam" if p_spam >= hi else "unsure"
            junk = p_spam > threshold
            out.update(
                verdict=verdict,
                p_spam=p_spam,
                label=self.classes[self.spam if junk else 1 - self.spam],
                action="review" if verdict == "unsure" else "junk" if junk else "deliver",
            )
        else:
            label = plain(self.model.predict([doc])[0])
            out.update(verdict=label, label=label)
        out["log_odds"] = float(difference) if log_odds is None else log_odds
        out["log_odds_of"] = [self.classes[a], self.classes[c]]
        out["probabilities"] = {str(k): float(p) for k, p in zip(self.classes, proba, strict=True)}
        rank = _strongest(weights)[:REASONS]
        names = self.names[columns[rank]].tolist()
        out["reasons"] = [
            {"token": str(name), "weight": weights[i], "count": values[i]}
            for name, i in zip(names, rank, strict=True)
        ]
        if words:
            by_term = {
                str(self.names[j]): float(w) for j, w in zip(columns.tolist(), weights, strict=True)
            }
            out["words"] = segments(self.model.vectorizer or TextVectorizer(), doc, by_term)
        return out


def _strongest(weights: list[float]) -> list[int]:
    """The positions of ``weights`` by decreasing absolute value, ties in order (NaN last,
    as numpy's stable argsort orders them)."""
    strength = [-abs(w) for w in weights]
    if any(map(math.isnan, strength)):  # (Python's sort leaves NaN where it finds it)
        return np.argsort(strength, kind="stable").tolist()
    return sorted(range(len(strength)), key=strength.__getitem__)


def _log_posterior(jll: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """``log P(y|x)`` from one row of joint log-likelihoods: log-sum-exp with the largest
    term taken out of the sum (as scipy's logsumexp does), without its per-call overhead."""
    top = int(np.argmax(jll[0]))
    if not np.isfinite(jll[0, top]):  # every class impossible (an unsmoothed model)
        return normalize_log(jll, log_prior)[0]
    shifted = np.exp(jll[0] - jll[0, top])
    shifted[top] = 0.0
    return jll[0] - (jll[0, top] + np.log1p(shifted.sum()))
