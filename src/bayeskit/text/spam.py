"""SpamFilter: ham, spam or unsure, with the costs of each mistake.

One estimator, long because its public protocol is: the decision rule and its costs, held-out
calibration, naive Bayes and Fisher scoring, and the methods the token store, the service and
``bayeskit filter`` call to give the same verdict (the vectorizer and the count model live in
:mod:`.vectorize` and :mod:`.classifier`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._all_or_nothing import unchanged_on_error
from .._labels import check_sample_weight, check_y
from .._merging import hold_declared_classes
from .._params import clone, refuse_while_waiting, waits_for_fit
from .._threads import in_parallel, usable_cpus
from .._validation import check_lengths
from .._values import find_sorted, one_of
from ..contract import Contract
from ..errors import DataError, ParameterError
from ..naive_bayes import MultinomialNB
from ..stats import ColumnStatistic, Summary
from . import calibration, fisher
from ._documents import document_list, keeps_term_statistics
from .capped import kept_part
from .classifier import LEARNED_TOKENS, TextClassifier
from .vectorize import TextVectorizer


def fisher_log_odds(
    model: Any, X: Any, column: int, strength: float, prior: float, min_dev: float
) -> np.ndarray:
    """Fisher's log-odds (:mod:`bayeskit.text.fisher`) of each row of ``X`` (messages over
    ``model``'s columns; a term counts where its weight is > 0) from ``model``'s statistics:
    the messages of each class holding each term (``feature_count_`` under presence counts)
    and the messages of each class (``class_count_``). The spam class is ``column``."""
    held, n = np.asarray(model.feature_count_), np.asarray(model.class_count_)
    ham, spam = held[1 - column], held[column]
    n_ham, n_spam = float(n[1 - column]), float(n[column])
    b = spam / n_spam if n_spam > 0 else np.zeros_like(spam)
    g = ham / n_ham if n_ham > 0 else np.zeros_like(ham)
    either = b + g
    p = np.divide(b, either, out=np.full_like(b, prior), where=either > 0)
    f = (strength * prior + (ham + spam) * p) / (strength + ham + spam)  # Robinson's f(w)
    telling = fisher.telling(f, min_dev)  # (each term's, the token store's rule)
    present = sp.csr_matrix(X, copy=True)
    present.data = (present.data > 0).astype(np.float64)
    count = present @ telling.astype(np.float64)
    with np.errstate(divide="ignore"):  # f of 0 or 1: -inf, a tail at its limit
        log_f = present @ np.where(telling, np.log(f), 0.0)
        log_1mf = present @ np.where(telling, np.log1p(-f), 0.0)
    return np.fromiter(
        map(
            fisher.combine_sums,
            log_f.tolist(),
            log_1mf.tolist(),
            np.rint(count).astype(int).tolist(),
        ),
        dtype=np.float64,
        count=X.shape[0],
    )


#: Training matrices with at least this many entries have their held-out folds scored on
#: every usable CPU (below, a fold takes less than starting a thread).
PARALLEL_FOLD_ENTRIES = 1 << 16


def _fold_tests(is_spam: np.ndarray, folds: int) -> Any:
    """The test rows of each held-out fold: ``folds`` stratified folds (fewer when a class has
    fewer messages; seed 0, shuffled, as ``fit`` has always cut them); plain folds when a class
    has fewer than two messages (a batch of one class), one fold of every row when there is
    only one."""
    from .._folds import KFold, StratifiedKFold  # only calibrating needs it

    n, n_spam = len(is_spam), int(is_spam.sum())
    stratified = min(folds, n_spam, n - n_spam)
    if stratified >= 2:
        split = StratifiedKFold(stratified, shuffle=True, random_state=0).split(is_spam, is_spam)
    elif min(folds, n) >= 2:
        split = KFold(min(folds, n), shuffle=True, random_state=0).split(is_spam)
    else:
        return [np.arange(n)]
    return [test for _, test in split]


def _labels_of(y: Any, n: int) -> np.ndarray:
    """The labels of ``n`` messages, checked as every model's ``fit`` checks labels (one per
    message, no missing or bytes label, no value that is not a class label), before the
    filter reads them to tell spam from ham."""
    if y is None:
        raise DataError("SpamFilter requires y to be passed, but the target y is None")
    check_lengths(n, y, "y")
    return check_y(y)


def log_odds(joint: np.ndarray, column: int, model: Any) -> np.ndarray:
    """``log P(spam|x) - log P(ham|x)`` from the count ``model``'s joint log-likelihoods, the
    spam class in ``column``. A message neither class can have produced (a term each class
    never had, under unsmoothed estimates: ``-inf`` both) gets the prior's log-odds, as the
    model's own ``predict_proba`` gives it the prior, not NaN."""
    with np.errstate(invalid="ignore"):  # -inf - -inf, replaced below
        odds = joint[:, column] - joint[:, 1 - column]
    dead = np.isnan(odds)
    if dead.any():
        prior = model.class_log_prior_
        odds[dead] = prior[column] - prior[1 - column]
    return odds


class SpamFilter(TextClassifier):
    """A two-class text filter with the three-way decision spam filters use (Robinson 2003).

    ``classify`` says ``"ham"`` when ``P(spam|x) <= ham_cutoff``, ``"spam"`` when
    ``P(spam|x) >= spam_cutoff`` (so spam where the two cutoffs are equal) and ``"unsure"``
    in between (SpamBayes' 0.20 / 0.90 by default), so a person looks at the doubtful ones; a
    filter that has learned messages of one class only (trained on error from nothing, or
    with ``--learn spam`` alone) says ``"unsure"`` of every message, since it cannot tell the
    classes apart yet. ``predict`` makes the two-way decision of minimum expected cost: a lost
    ham (a good message flagged as spam) costs ``lost_ham_cost``, a passed spam
    ``passed_spam_cost``, so a message is spam when ``P(spam|x) > lost_ham_cost /
    (lost_ham_cost + passed_spam_cost)`` (Duda et al. 2001, ch. 2); it always names one of
    the two classes, so a filter that has learned one class predicts that one (``classify``
    is the decision that can say it does not know).

    Parameters
    ----------
    vectorizer, model
        As for :class:`TextClassifier`. Defaults (chosen by cross-validation on the SMS
        collection and the SpamAssassin training folders, benchmarks/accuracy.md): raw
        e-mails read as e-mails (header and URL tokens, the decoded body's word 1-2-grams),
        other messages as word 1-2-grams of ``\\b\\w+\\b`` tokens, each term counted once
        per message (presence; ``TextVectorizer(analyzer="auto", ngram_range=(1, 2),
        token_pattern=r"(?u)\\b\\w+\\b", output="binary")``), and
        ``MultinomialNB(alpha=0.3, smoothing="corpus", corpus_power=0.75)``: a Dirichlet
        prior centred on how common each term is over both classes (the pooled counts raised
        to the power 0.75), so a word one class has not seen falls back on how common it is,
        while a word seen in one class only weighs more the more often it was seen there.
        :meth:`sklearn_defaults` gives scikit-learn's pipeline, and :meth:`twcnb` Rennie et
        al.'s transforms.
    spam_label, ham_label : the two class labels, default "spam" and "ham"
        The only labels the filter learns: ``fit``, ``partial_fit`` and ``train_on_error``
        refuse any other (:class:`~bayeskit.errors.DataError`) before learning anything.
    ham_cutoff, spam_cutoff : float, default 0.20 and 0.90
    lost_ham_cost, passed_spam_cost : float, default 1.0
    useful_terms : int, optional
        Keep only the most useful terms (see :class:`TextClassifier`).
    calibration_folds : int or None, default=5
        ``P(spam|x)`` is the count model's log-odds ``s(x)`` mapped by Platt scaling,
        ``1 / (1 + exp(-(a s(x) + b)))``, so that the "unsure" band holds the doubtful
        messages (a Naive Bayes model counts overlapping n-grams as independent evidence and
        puts almost every message at 0 or 1). ``fit`` scores each training message by a model
        trained on the other folds (``calibration_folds`` stratified folds, fewer when a class
        has fewer messages) and fits ``(a, b)`` on these out-of-fold scores
        (:mod:`bayeskit.text.calibration`). The scores are kept as counts (``score_counts_``),
        which add: ``partial_fit`` and ``train_on_error`` score new messages with the model
        *before* learning them and add those scores; ``a + b`` adds both filters' counts;
        ``(a, b)`` is refitted from the counts each time. A message's ``sample_weight``
        weighs its score as it weighs its counts (a weight of 0 does not calibrate). The folds
        are cut by the messages' positions (seeded), so the order of the messages moves the
        scale a little, as any cross-validation's folds do. ``unlearn`` leaves the scale as it
        was: the score a message added when it was learned is not kept, so correcting a
        mislabelled message (unlearn, then learn under the other label) keeps its first score
        under the wrong class until the filter is fitted again, or ``calibrate`` is given
        counts of its messages (:meth:`held_out_score_counts`). Setting it on a fitted filter
        refits the scale from the counts kept at once (as a model file read back does). None:
        the count model's own probabilities (scikit-learn's).

    scoring : {"naive_bayes", "fisher"}, default="naive_bayes"
        The score ``s(x)`` calibrated above. "naive_bayes": the count model's log-odds.
        "fisher": Robinson's per-term probability ``f(w) = (s x + n p(w)) / (s + n)`` from the
        messages of each class holding the term, combined over the telling terms
        (farther than ``min_dev`` from 1/2) by Fisher's χ² method, ``I = (1 + H - S) / 2``,
        scored as ``log(I / (1 - I))`` (Robinson, 2003; bogofilter's and SpamBayes' combining;
        :mod:`bayeskit.text.fisher`, which says where it differs from bogofilter: a message
        without a telling term has ``I = 1/2``, terms never seen are not scored), plus
        ``nb_weight`` times the count model's log-odds.
        It ranks the low false-positive end better (spam caught while almost no good mail is
        lost) and needs ``output="binary"``; it is a function of the same additive counts, so
        ``partial_fit``, merging and ``unlearn`` stay exact. Cross-validated on the
        SpamAssassin training folds (easy_ham + spam, 5 folds), bogofilter's own
        ``token_strength=0.0178``, ``token_prior=0.52``, ``min_dev=0.375`` and
        ``nb_weight=0`` caught the most spam at 0.1 % of ham lost (benchmarks/spam_blends.py).
        The default stays "naive_bayes": on the SpamAssassin test folders Fisher's score ranks
        the low false-positive end best (Cormack & Lynam's TREC measures: 43 % of the spam
        caught at 0.1 % of ham lost, 21 % by the naive Bayes score) but files far less spam
        as spam and keeps less of SMS's accuracy (0.968 against 0.9905, 10-fold), and no
        blend weight the training folds can choose keeps both (benchmarks/spam_peers.md; the
        mail filter guide, "Scoring").
    token_strength, token_prior, min_dev, nb_weight : float
        Robinson's ``s`` and ``x``, the least ``|f(w) - 1/2|`` of a telling term, and the weight
        of the count model's log-odds added to Fisher's (``scoring="fisher"`` only).

    Attributes
    ----------
    score_counts_ : ndarray of shape (2, n_bins)
        Held-out log-odds of ham (row 0) and spam (row 1) messages, counted in bins.
    calibration_ : (float, float)
        Platt's ``(a, b)``; ``(1.0, 0.0)`` without calibration.

    Examples
    --------
    >>> from bayeskit.text import SpamFilter
    >>> # Six messages are too few to fit a probability scale: the model's own probabilities.
    >>> f = SpamFilter(lost_ham_cost=10, calibration_folds=None).fit(
    ...     ["win cash now", "free prize cash", "claim your free prize", "lunch at noon",
    ...      "see you at lunch", "cash for lunch"],
    ...     ["spam", "spam", "spam", "ham", "ham", "ham"])
    >>> mail = ["claim free cash prize", "lunch at noon", "cash"]
    >>> f.spam_probability(mail).round(3)
    array([0.996, 0.   , 0.621])
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
        return TextVectorizer(
            analyzer="auto",
            ngram_range=(1, 2),
            token_pattern=r"(?u)\b\w+\b",
            output="binary",
        )

    @classmethod
    def default_model(cls) -> Any:
        """What ``model=None`` stands for in a SpamFilter (see the parameters)."""
        return MultinomialNB(alpha=0.3, smoothing="corpus", corpus_power=0.75)

    #: A text classifier that decides by a calibrated spam probability (:mod:`bayeskit.contract`).
    contract: ClassVar[Contract] = Contract(
        input="documents",
        served_learnable=True,
        decision="spam",
        # the probability scale is fitted at fit on held-out scores: what decides the
        # scores (the tokens, the terms kept, the scoring rule) waits for a fit too
        # (calibration_folds does not: calibrate() fits the scale again from counts)
        refit_settings=(
            *LEARNED_TOKENS,
            "vectorizer__max_df",
            "vectorizer__max_features",
            "vectorizer__min_df",
            "min_dev",
            "nb_weight",
            "scoring",
            "token_prior",
            "token_strength",
            "useful_terms",
        ),
    )

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
        calibration_folds: int | None = 5,
        scoring: str = "naive_bayes",
        token_strength: float = fisher.STRENGTH,
        token_prior: float = fisher.PRIOR,
        min_dev: float = fisher.MIN_DEV,
        nb_weight: float = 0.0,
    ):
        super().__init__(vectorizer=vectorizer, model=model, useful_terms=useful_terms)
        self.calibration_folds = calibration_folds
        self.scoring = scoring
        self.token_strength = token_strength
        self.token_prior = token_prior
        self.min_dev = min_dev
        self.nb_weight = nb_weight
        self.spam_label = spam_label
        self.ham_label = ham_label
        self.ham_cutoff = ham_cutoff
        self.spam_cutoff = spam_cutoff
        self.lost_ham_cost = lost_ham_cost
        self.passed_spam_cost = passed_spam_cost

    def spam_index(self) -> int:
        """The position of the spam class among ``classes_``. Raises
        :class:`~bayeskit.errors.DataError` when the filter was trained on other classes
        than its ``ham_label`` and ``spam_label``."""
        classes = self.classes_.tolist()
        if sorted(map(str, classes)) != sorted(map(str, [self.ham_label, self.spam_label])):
            raise DataError(
                f"a SpamFilter learns two classes, {self.ham_label!r} and {self.spam_label!r}; "
                f"it was trained on {classes}. Set ham_label/spam_label to your labels"
            )
        # (told apart by text, as every label of a filter is: spam_label="0" names the class
        # 0; a comparison by value would miss it, and fall on the other class)
        return [str(c) for c in classes].index(str(self.spam_label))

    def decision_rule(self) -> tuple[float, float, float]:
        """``(ham_cutoff, spam_cutoff, threshold)``, checked: :meth:`classify` calls a
        message ham at a spam probability at most ``ham_cutoff``, spam from ``spam_cutoff``;
        :meth:`predict` calls it spam above ``threshold = lost_ham_cost / (lost_ham_cost +
        passed_spam_cost)``, the cutoff of minimum expected cost (Duda et al. 2001)."""
        lo, hi = _setting("ham_cutoff", self.ham_cutoff), _setting("spam_cutoff", self.spam_cutoff)
        if not 0.0 <= lo <= hi <= 1.0:
            raise ParameterError(
                f"cutoffs must satisfy 0 <= ham_cutoff <= spam_cutoff <= 1; got "
                f"ham_cutoff={self.ham_cutoff!r}, spam_cutoff={self.spam_cutoff!r}"
            )
        ham = _setting("lost_ham_cost", self.lost_ham_cost)
        spam = _setting("passed_spam_cost", self.passed_spam_cost)
        if not (
            np.isfinite(ham) and np.isfinite(spam) and ham >= 0 and spam >= 0 and ham + spam > 0
        ):
            raise ParameterError(
                f"lost_ham_cost and passed_spam_cost must be >= 0 and not both 0; got "
                f"{self.lost_ham_cost!r} and {self.passed_spam_cost!r}"
            )
        # (as 1 / (1 + spam/ham): two equal costs of 1e308 would sum past float64, to a
        # threshold of 0 that files every message as spam)
        return lo, hi, 1.0 / (1.0 + spam / ham) if ham > 0 else 0.0

    # ------------------------------------------------------------------ the decision, public
    # What the model service, the fast filter's token store, model files and the Dask
    # rounds read of a filter: its decision and calibration as the filter checks them.

    def score_counts(self) -> np.ndarray:
        """The held-out score counts the scale is fitted on (``score_counts_``; empty
        counts before any are kept)."""
        return self._counts()

    def set_score_counts(self, counts: np.ndarray) -> SpamFilter:
        """Keep ``counts`` (held-out score counts, e.g. read back from a model file or summed
        over a cluster's partitions) as ``score_counts_`` and fit the scale on them; with
        ``calibration_folds=None`` the scale is the model's own. Unlike :meth:`calibrate`
        it does not check them: for counts this filter's own methods gave.

        Returns
        -------
        self
        """
        self._calibrate(counts)
        return self

    def fitted_record(self) -> dict[str, Any] | None:
        """The held-out score counts (``score_counts_``), which no statistic of the training
        messages gives back: what a model file stores besides the statistics. None for a
        filter that has kept no scores (it then scores with the model's own probabilities)."""
        counts = self.__dict__.get("score_counts_")
        if counts is None or not np.any(counts):
            return None
        return {"score_counts": np.asarray(counts, dtype=np.float64)}

    def set_fitted_record(self, record: Any, summary: Summary) -> None:
        """Take the score counts :meth:`fitted_record` gave (read back from a model file),
        refusing anything but a dict of one ``(2, BINS)`` array of finite counts >= 0
        (:class:`~bayeskit.errors.DataError`)."""
        if record is None:
            return
        counts = record.get("score_counts") if isinstance(record, dict) else None
        shape = calibration.empty_counts().shape
        if (
            not isinstance(record, dict)
            or set(record) != {"score_counts"}
            or not isinstance(counts, np.ndarray)
            or counts.dtype != np.float64
            or counts.shape != shape
            or not np.all(np.isfinite(counts) & (counts >= 0))
        ):
            raise DataError(
                f"a SpamFilter's fitted record holds its score counts, one {shape} array of "
                f"finite float64 counts >= 0; got {str(record)[:120]}"
            )
        self.set_score_counts(counts)

    def fit_counted(
        self, terms: np.ndarray, counts: Any, y: Any, *, classes: Any = None
    ) -> SpamFilter:
        """:meth:`fit` on messages already counted by the vectorizer's
        :meth:`~bayeskit.text.TextVectorizer.count` (sorted distinct ``terms``, canonical CSR
        ``counts``): the same filter as from their texts. For statistics kept per term
        (:meth:`keeps_term_statistics`): a cross-validation counts a collection once for all
        its folds (a fold's terms and counts are the columns its rows use)."""
        labels = self._filter_labels(y, counts.shape[0], classes)
        return self._fit_counted(terms, counts, labels, classes)

    @classmethod
    def sklearn_defaults(cls, **kwargs: Any) -> Any:
        """scikit-learn's pipeline (see :meth:`TextClassifier.sklearn_defaults`), with the
        model's own probabilities (``calibration_folds=None``) unless ``kwargs`` say
        otherwise."""
        return super().sklearn_defaults(**{"calibration_folds": None, **kwargs})

    # ------------------------------------------------------------------ calibration
    def _check_folds(self) -> int | None:
        folds = self.calibration_folds
        if folds is None:
            return None
        if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
            raise ParameterError(f"calibration_folds must be an int >= 2 or None; got {folds!r}")
        return int(folds)

    def check_params(self) -> SpamFilter:
        """As :meth:`TextClassifier.check_params`, and ``calibration_folds`` and the
        scoring's parameters."""
        super().check_params()
        self._check_folds()
        self.check_scoring()
        self.decision_rule()
        if str(self.ham_label) == str(self.spam_label):
            raise ParameterError(
                f"ham_label and spam_label are both {self.ham_label!r}; a SpamFilter's two "
                "classes need two labels"
            )
        return self

    def set_params(self, **params: Any) -> SpamFilter:
        """As :meth:`TextClassifier.set_params`; on a fitted filter, settings it cannot
        decide by (cutoffs out of order, a scoring rule's parameters, labels other than the
        classes it learned) are refused, and the filter keeps its own."""
        if not self.__sklearn_is_fitted__():
            return super().set_params(**params)
        before = self.get_params(deep=True)
        super().set_params(**params)
        try:
            self.check_params()
            if not waits_for_fit(self):  # (a filter waiting for fit learns its labels then)
                self.spam_index()
        except (ParameterError, DataError):
            super().set_params(**{k: before[k] for k in params if k in before})
            raise
        if "calibration_folds" in params and not waits_for_fit(self):
            # at once, as a model file read back would have it: the scale fitted on the
            # counts kept (None: the model's own probabilities)
            self._calibrate(self._counts())
        return self

    def check_scoring(self) -> str:
        """The scoring rule (``"naive_bayes"`` or ``"fisher"``) with its parameters checked;
        raises :class:`~bayeskit.errors.ParameterError` naming a wrong one."""
        scoring = self.scoring
        if not one_of(scoring, ("naive_bayes", "fisher")):
            raise ParameterError(f"scoring must be 'naive_bayes' or 'fisher'; got {scoring!r}")
        if scoring == "naive_bayes":
            return scoring
        checks = [
            ("token_strength", self.token_strength, lambda v: 0 < v < np.inf, "> 0"),
            ("token_prior", self.token_prior, lambda v: 0 < v < 1, "in (0, 1)"),
            ("min_dev", self.min_dev, lambda v: 0 <= v < 0.5, "in [0, 0.5)"),
            ("nb_weight", self.nb_weight, lambda v: 0 <= v < np.inf, ">= 0"),
        ]
        for name, value, ok, accepted in checks:
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.number))
                or not (ok(float(value)))
            ):
                raise ParameterError(f"{name} must be a number {accepted}; got {value!r}")
        vec = self.vectorizer if self.vectorizer is not None else self.default_vectorizer()
        if getattr(vec, "output", None) != "binary":
            raise ParameterError(
                "scoring='fisher' counts the messages that hold each term: it needs the "
                f"vectorizer's output='binary' (got output={getattr(vec, 'output', None)!r})"
            )
        return scoring

    def _is_spam(self, labels: Any) -> np.ndarray | None:
        """Whether each label is spam, or None when the labels are not the filter's two
        (a label is told apart by its text, as ``ham_label`` and ``spam_label`` are: labels
        may mix types, and a label read from a file is text)."""
        text = np.asarray(labels, dtype=object).astype(str)
        spam = text == str(self.spam_label)
        return spam if (spam | (text == str(self.ham_label))).all() else None

    def _filter_labels(
        self, y: Any, n: int, classes: Any = None, *, lead: str = "a SpamFilter learns two classes"
    ) -> np.ndarray:
        """``y`` as the labels of ``n`` messages, refused (before anything is learned) when
        they, or the ``classes`` declared, are not the filter's ``ham_label`` and
        ``spam_label`` (a filter of other classes could never score spam); once fitted, each
        label spelled as the class it names (``"1"`` as ``1``), so no third class creeps in."""
        labels = _labels_of(y, n)
        is_spam = self._is_spam(labels)
        if is_spam is None:
            raise self._other_labels(labels.tolist(), lead)
        listed = isinstance(classes, (list, tuple, np.ndarray)) and np.ndim(classes) == 1
        if listed and self._is_spam(classes) is None:  # (other shapes: refused further on)
            raise self._other_labels(list(classes), lead)
        if not self.__sklearn_is_fitted__():
            return labels
        known = self.classes_
        position = {str(c): i for i, c in enumerate(known.tolist())}
        ham, spam = (position.get(str(v)) for v in (self.ham_label, self.spam_label))
        return labels if ham is None or spam is None else known[np.where(is_spam, spam, ham)]

    def _other_labels(self, values: list[Any], lead: str) -> DataError:
        """The refusal of ``values`` that hold labels other than the filter's two."""
        names = {str(self.ham_label), str(self.spam_label)}
        other = list(dict.fromkeys(v for v in values if str(v) not in names))
        shown = ", ".join(repr(v) for v in other[:5])
        more = f", … ({len(other) - 5} more)" if len(other) > 5 else ""
        # (scikit-learn's ensembles and one-vs-rest wrappers fit their members on 0 and 1)
        coded = {str(v) for v in other} <= {"0", "1"} and names != {"0", "1"}
        wrapped = (
            "; a wrapper that codes the labels as 0 and 1 (scikit-learn's VotingClassifier, "
            "StackingClassifier, BaggingClassifier, OneVsRestClassifier) needs "
            "SpamFilter(ham_label=0, spam_label=1), 0 the class it sorts first"
            if coded
            else ""
        )
        return DataError(
            f"{lead}, {self.ham_label!r} and {self.spam_label!r}, not {shown}{more}. Set "
            f"ham_label/spam_label to your labels (or use TextClassifier for other classes)"
            f"{wrapped}"
        )

    def _both_classes(self, labels: np.ndarray) -> Any:
        """The filter's two labels, as ``labels`` (the filter's, :meth:`_filter_labels`)
        spell them (the declared one where a class has no message yet)."""
        given = {str(v): v for v in labels.tolist()}
        pair = [given.get(str(v), v) for v in (self.ham_label, self.spam_label)]
        return np.unique(np.asarray(pair))

    def log_odds(self, X: Any) -> np.ndarray:
        """The filter's score of each message before its probability scale: the count
        model's ``log P(spam|x) − log P(ham|x)``, or Fisher's log-odds under
        ``scoring="fisher"``; :meth:`spam_probability` is this score calibrated."""
        return self.log_odds_of_rows(self.transform(X))

    def log_odds_of_rows(self, rows: Any, joint: Any = None) -> np.ndarray:
        """``log_odds`` of messages already through ``transform`` (the model
        service scores a message it has transformed once); ``joint``: the count model's
        joint log probabilities of ``rows``, when already computed."""
        return self._scores_of(self.fitted_parts()[1], rows, self.spam_index(), joint)

    def _scores_of(self, model: Any, X: Any, column: int, joint: Any = None) -> np.ndarray:
        """The score of each row of ``X`` (weighted counts over ``model``'s columns, checked)
        under ``model``, whose spam class is ``column`` (``joint``: its joint log
        probabilities, when already computed)."""
        scoring = self.check_scoring()
        nb_weight = 1.0 if scoring == "naive_bayes" else float(self.nb_weight)
        score = np.zeros(X.shape[0])
        if not X.shape[0]:  # no message: no score (as TextClassifier predicts none)
            return score
        if nb_weight:
            if joint is None:
                joint = model.predict_joint_log_proba(X)
            score = nb_weight * log_odds(joint, column, model)
        if scoring == "fisher":
            score = score + fisher_log_odds(
                model, X, column, self.token_strength, self.token_prior, self.min_dev
            )
        return score

    def _held_out_counts(
        self, X: Any, labels: np.ndarray, weight: np.ndarray | None = None
    ) -> np.ndarray:
        """Counts of out-of-fold log-odds of the training messages, whose weighted counts
        over the vocabulary are ``X`` (see the class docstring), each by a model of the
        other folds' terms and counts; ``weight``: the messages' sample weights, which weigh
        them in the models and in the counts."""
        folds = self._check_folds()
        is_spam = self._is_spam(labels)
        if folds is None or is_spam is None:
            return calibration.empty_counts()
        if min(folds, int(is_spam.sum()), int((~is_spam).sum())) < 2:
            return calibration.empty_counts()
        model = self.fitted_parts()[1]
        # Each fold's model is the whole fit's statistics minus the fold's (exact, as
        # unlearn): X is summarized once, each fold once more.
        probe = clone(model)
        whole = probe.summarize(X, labels, weight)
        in_docs = X.getnnz(axis=0)
        scores = np.empty(X.shape[0])
        tests = _fold_tests(is_spam, folds)

        def score_fold(worker: int, i: int) -> None:
            test = tests[i]
            part = X[test]
            fold = probe.summarize(
                part, labels[test], None if weight is None else weight[test],
                classes=whole.classes, part=True,
            )  # fmt: skip
            rest = whole - fold
            (block,) = rest.blocks
            assert isinstance(block, ColumnStatistic)  # what a count model's summarize gives
            # Only the terms of the other folds: a term of this fold alone would be a column
            # of zero counts, which a model never meets (transform drops unknown terms).
            seen = np.flatnonzero(in_docs - part.getnnz(axis=0))
            kept = block.take_columns(seen)
            held = clone(model).fit_summary(Summary(rest.classes, rest.class_count, (kept,)))
            scored = part[:, seen]
            joint = held.predict_joint_log_proba(scored)
            column = held.classes_.tolist().index(self._spam_label_in(held.classes_))
            scores[test] = self._scores_of(held, scored, column, joint)

        # The folds are independent and their work is numpy's on arrays the size of the
        # vocabulary, which runs without the GIL: on a large fit they share the CPUs (each
        # fold writes its own rows of the scores, so the result does not depend on it).
        large = X.nnz >= PARALLEL_FOLD_ENTRIES
        in_parallel(len(tests), min(usable_cpus(), len(tests)) if large else 1, score_fold)
        return calibration.score_counts(scores, is_spam, weight)

    def held_out_score_counts(self, X: Any, y: Any, *, kept_only: bool = False) -> np.ndarray:
        """Held-out log-odds of messages the filter has learned, as score counts (see
        ``score_counts_``), for :meth:`calibrate`.

        The messages are cut into ``calibration_folds`` folds (5 when None; stratified when
        both classes have that many messages, as ``fit`` does) and each fold is scored by the
        filter's statistics minus the fold's: the filter fitted without it, exactly as
        :meth:`unlearn` gives. A filter trained in batches (``partial_fit``, ``a + b``, a
        cluster) is calibrated by reading its batches again: their counts add. On the
        messages of one ``fit`` this gives the counts ``fit`` keeps for count weightings;
        under unit-length weighting ``fit`` scales a held-out message over all its terms,
        while here the held-out filter scores it as it scores a new message, over the terms
        it knows (close scales, not the same counts). ``kept_only``: the filter's terms were
        capped while it learned (:func:`bayeskit.text.capped.cap_terms`), so it may hold less
        of these messages than they count; each fold is removed as far as the filter kept it
        (:func:`~bayeskit.text.capped.kept_part`) instead of refused.

        Examples
        --------
        >>> from bayeskit.text import SpamFilter
        >>> texts = ["win cash now", "free prize", "lunch at noon", "see you at lunch"] * 3
        >>> labels = ["spam", "spam", "ham", "ham"] * 3
        >>> f = SpamFilter(calibration_folds=None)
        >>> for start in (0, 6):  # two batches
        ...     _ = f.partial_fit(texts[start:start + 6], labels[start:start + 6])
        >>> counts = sum(f.held_out_score_counts(texts[s:s + 6], labels[s:s + 6])
        ...              for s in (0, 6))
        >>> int(counts.sum())
        12
        >>> f.set_params(calibration_folds=5).calibrate(counts).calibration_ != (1.0, 0.0)
        True
        """
        self.check_fitted()
        vec, _ = self.prototypes()
        if not keeps_term_statistics(vec):
            raise ParameterError(
                "held-out scores come from statistics that add; this filter's vectorizer "
                "(idf weighting) keeps none: fit it whole (calibration_folds) instead"
            )
        docs = document_list(X)
        labels = self._filter_labels(y, len(docs), lead="the labels must be the filter's two")
        is_spam = self._is_spam(labels)
        assert is_spam is not None  # (refused above otherwise)
        batch_vec = clone(vec)
        terms, counts = batch_vec.count(docs)  # once: each fold's rows are learned and scored
        scores = np.full(len(docs), np.nan)
        for test in _fold_tests(is_spam, self._check_folds() or 5):
            fold = self.summarize_counted(terms, counts[test], labels[test])
            if kept_only:
                fold = kept_part(self.stats_, fold)
            held = clone(self).set_params(calibration_folds=None)
            try:
                held.fit_summary(self.stats_ - fold)
                scores[test] = held.log_odds_counted(terms, counts[test])
            except (DataError, ParameterError):  # without the fold a class is gone: no score
                continue
        kept = ~np.isnan(scores)
        return calibration.score_counts(scores[kept], is_spam[kept])

    def calibrate(self, score_counts: Any) -> SpamFilter:
        """Fit the probability scale on held-out score counts (``score_counts_``'s shape,
        e.g. the sum of :meth:`held_out_score_counts` over a filter's batches); they replace
        the counts kept so far. ``calibration_folds`` must not be None."""
        if self._check_folds() is None:
            raise ParameterError(
                "calibration_folds is None: the filter keeps the model's own probabilities; "
                "set calibration_folds (e.g. set_params(calibration_folds=5)) to calibrate"
            )
        counts = np.asarray(score_counts, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):  # (what is checked here)
            total = counts.sum() if counts.dtype.kind == "f" else np.nan
        if counts.shape != calibration.empty_counts().shape or not (
            np.all(counts >= 0) and np.isfinite(total)
        ):
            raise DataError(
                f"score counts must be an array of shape {calibration.empty_counts().shape} "
                "of finite counts >= 0 whose sum is finite (held_out_score_counts gives them)"
            )
        self.check_fitted()
        self._calibrate(counts)
        return self

    def _first_fit(
        self, docs: list[Any], labels: np.ndarray, classes: Any, sample_weight: Any
    ) -> None:
        """Fit an unfitted filter, then its scale: the messages are counted once, for the
        statistics and for the out-of-fold scores. The filter learns its two classes from the
        first message on, so a filter trained on one class so far goes on learning."""
        declared = classes is not None
        classes = self._both_classes(labels) if classes is None else classes
        vec, _ = self.prototypes()
        if keeps_term_statistics(vec) and self._check_folds() is not None:
            terms, counts = clone(vec).count(docs)
            self._fit_counted(terms, counts, labels, classes, sample_weight)
            self.set_classes_declared(declared)
            return
        TextClassifier.partial_fit(self, docs, labels, classes, sample_weight)
        # the filter's own two labels are not the caller's declaration
        self.set_classes_declared(declared)
        X = self.vectorizer_.transform(docs) if "vectorizer_" in self.__dict__ else None
        if X is None or self._check_folds() is None:
            self._calibrate(calibration.empty_counts())
        else:
            self._calibrate(self._held_out_counts(X, labels, _weights(labels, sample_weight)))

    def _fit_counted(
        self,
        terms: np.ndarray,
        counts: Any,
        labels: np.ndarray,
        classes: Any = None,
        sample_weight: Any = None,
    ) -> SpamFilter:
        """Fit an unfitted filter whose statistics are kept per term
        (``keeps_term_statistics``) from its messages already counted: ``terms`` and
        ``counts`` as its vectorizer's ``count`` gives them (sorted distinct terms, canonical
        CSR counts). What :meth:`fit` does after counting; the quick start's
        cross-validation counts the collection once for all its folds (a fold's terms and
        counts are the columns its rows use)."""
        vec, _ = self.prototypes()
        if not keeps_term_statistics(vec):
            raise ParameterError("_fit_counted needs statistics kept per term (see fit)")
        batch_vec = clone(vec)
        summary = self.summarize_counted(terms, counts, labels, sample_weight, classes=classes)
        self._adopt(summary)
        if not len(terms) or self._check_folds() is None:
            self._calibrate(calibration.empty_counts())
            return self
        columns = self._vocabulary_columns(terms)
        X = batch_vec.weigh(counts, terms=terms)
        X = X if columns is None else X[:, columns]
        self._calibrate(self._held_out_counts(X, labels, _weights(labels, sample_weight)))
        return self

    def spam_probability_counted(self, terms: np.ndarray, counts: Any) -> np.ndarray:
        """:meth:`spam_probability` of messages already counted (see :meth:`fit_counted`):
        the same numbers as from their texts."""
        if self._own_probabilities():
            vec, model = self.fitted_parts()
            proba = model.predict_proba(vec.weigh(vec.reindex(terms, counts)))
            return proba[:, self.spam_index()]
        return calibration.calibrated(
            self.log_odds_counted(terms, counts), self.probability_scale()
        )

    def log_odds_counted(self, terms: np.ndarray, counts: Any) -> np.ndarray:
        """The filter's score of messages already counted (see :meth:`fit_counted`): the
        count model's ``log P(spam|x) − log P(ham|x)``, or Fisher's log-odds under
        ``scoring="fisher"``; what the scale calibrates."""
        vec, model = self.fitted_parts()
        return self._scores_of(model, vec.weigh(vec.reindex(terms, counts)), self.spam_index())

    def _vocabulary_columns(self, terms: np.ndarray) -> Any:
        """Where the fitted vocabulary's terms are among ``terms`` (sorted, distinct, all
        counted): its selection from these very terms when it was chosen from them (no
        search among strings; None when it kept every one), else found by search."""
        fitted = self.fitted_parts()[0]
        selected = fitted.__dict__.get("_selected")
        if selected is not None and fitted.stats_.terms is terms:
            return None if len(selected) == len(terms) else selected
        columns, found = find_sorted(terms, fitted.terms_)
        return columns[found]

    def _spam_label_in(self, classes: np.ndarray) -> Any:
        return next(c for c in classes.tolist() if str(c) == str(self.spam_label))

    def _calibrate(self, counts: np.ndarray) -> None:
        self.score_counts_ = counts
        self.calibration_ = (
            calibration.fit_scale(counts)
            if self._check_folds() is not None
            else calibration.IDENTITY
        )

    def summarize(
        self, X: Any, y: Any, sample_weight: Any = None, *, classes: Any = None, part: bool = False
    ) -> Summary:
        """As :meth:`TextClassifier.summarize`, of the filter's two labels only (any other
        refused, as ``fit`` refuses it), over both its classes whatever ``y`` holds: the
        statistics a cluster's partitions add are those ``fit`` gives."""
        n = len(X) if hasattr(X, "__len__") else len(document_list(X))
        labels = self._filter_labels(y, n, classes)
        both = self._both_classes(labels) if classes is None else classes
        return super().summarize(X, labels, sample_weight, classes=both, part=part)

    def fit_summary(self, summary: Summary, *, parameters: Any = None) -> SpamFilter:
        """Set the filter from statistics (a sum of :meth:`summarize` results), as
        :meth:`TextClassifier.fit_summary`; the counts and log-odds are those ``fit`` gives.

        The probability scale is not a statistic: it is fitted on held-out scores of the
        messages themselves, which a summary does not hold. The filter keeps the scale it had
        (none for a new filter, whose ``P(spam|x)`` is the count model's own) until
        :meth:`calibrate` fits one from the parts' :meth:`held_out_score_counts`::

            f = SpamFilter().fit_summary(sum(SpamFilter().summarize(X, y) for X, y in parts))
            f.calibrate(sum(f.held_out_score_counts(X, y) for X, y in parts))
        """
        with unchanged_on_error(self):
            super().fit_summary(summary, parameters=parameters)
            # Labels every prediction would refuse (ham_label/spam_label that are not the
            # classes learned) are refused here: a model file holding them loaded, and each
            # predict then failed.
            self.spam_index()
        return self

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SpamFilter:
        """Fit on raw messages ``X`` and labels ``y``, then the probability scale on
        out-of-fold scores (see ``calibration_folds``)."""
        self.check_params()
        with unchanged_on_error(self):
            for attr in ("score_counts_", "calibration_"):
                self.__dict__.pop(attr, None)
            super().fit(X, y, sample_weight=sample_weight)  # a first partial_fit
        return self

    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> SpamFilter:
        """Add messages; their scores by the model as it was (before it learns them) are
        added to ``score_counts_`` and the scale refitted. A first call fits the scale as
        ``fit`` does. The statistics (and log-odds) are those ``fit`` gives on all the
        messages; the scale is not ``fit``'s: its held-out scores are other ones."""
        refuse_while_waiting(self)  # not a first fit: its statistics are there
        self._check_folds()
        docs = document_list(X)
        labels = self._filter_labels(y, len(docs), classes)
        if not self.__sklearn_is_fitted__():
            with unchanged_on_error(self):
                self._first_fit(docs, labels, classes, sample_weight)
            return self
        weight = _weights(labels, sample_weight)
        if not self.keeps_term_statistics():
            added = self._new_scores(docs, labels, weight=weight)
            with unchanged_on_error(self):
                super().partial_fit(docs, labels, classes=classes, sample_weight=sample_weight)
                self._calibrate(self._counts() + added)
            return self
        # Each message is counted once: scored by the model as it is, then learned.
        terms, counts = clone(self.prototypes()[0]).count(docs)
        added = self._new_scores(docs, labels, counted=(terms, counts), weight=weight)
        with unchanged_on_error(self):
            batch = self.summarize_counted(terms, counts, labels, sample_weight, classes=classes)
            hold_declared_classes(self, batch.classes, classes, first=False)
            with np.errstate(over="ignore", invalid="ignore"):  # checked by _adopt
                self._adopt(self.stats_ + batch)
            self._calibrate(self._counts() + added)
        return self

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> SpamFilter:
        """Remove messages the filter learned, as the template's ``unlearn`` does (the
        statistics of what is left; the probability scale as it was). The filter keeps its
        two classes: unlearning every message of one leaves the filter that ``fit`` gives on
        the other's alone, which says "unsure" of every message, not a one-class model that
        refuses to classify."""
        with unchanged_on_error(self):
            super().unlearn(X, y, sample_weight=sample_weight)
            summary = self._fitted_summary()
            both = self._both_classes(summary.classes)
            if len(summary.classes) < len(both):
                self._adopt(summary.embed_classes(both))
        return self

    def new_score_counts(self, X: Any, y: Any) -> np.ndarray:
        """Score counts (see ``score_counts_``) of messages the filter has not learned, each
        scored by the filter as it is: what :meth:`partial_fit` adds to ``score_counts_``
        when it learns them (empty counts without calibration, ``calibration_folds=None``,
        or while the filter knows one class). A collection learned in batches keeps the
        calibration of learning it at once when each batch's counts come from the filter as
        it was before the first: :meth:`set_score_counts` of its counts then plus their sum.

        Examples
        --------
        >>> import copy
        >>> from bayeskit.text import SpamFilter
        >>> texts = ["win cash now", "free prize", "lunch at noon", "see you at lunch"] * 3
        >>> labels = ["spam", "spam", "ham", "ham"] * 3
        >>> f = SpamFilter().fit(texts, labels)
        >>> new = ["cash prize now", "lunch at one", "a free lunch"]
        >>> new_labels = ["spam", "ham", "spam"]
        >>> at_once = copy.deepcopy(f).partial_fit(new, new_labels)
        >>> added = f.new_score_counts(new[:2], new_labels[:2]) + f.new_score_counts(
        ...     new[2:], new_labels[2:])
        >>> batches = copy.deepcopy(f).partial_fit(new[:2], new_labels[:2])
        >>> batches = batches.partial_fit(new[2:], new_labels[2:])
        >>> batches = batches.set_score_counts(f.score_counts() + added)
        >>> bool((batches.score_counts() == at_once.score_counts()).all())
        True
        >>> batches.calibration_ == at_once.calibration_
        True
        """
        self.check_fitted()
        docs = document_list(X)
        labels = self._filter_labels(y, len(docs))
        if not self.keeps_term_statistics():
            return self._new_scores(docs, labels)
        counted = clone(self.prototypes()[0]).count(docs)
        return self._new_scores(docs, labels, counted=counted)

    def _counts(self) -> np.ndarray:
        return self.__dict__.get("score_counts_", calibration.empty_counts())

    def _new_scores(
        self,
        docs: list[Any],
        labels: np.ndarray,
        counted: tuple[np.ndarray, Any] | None = None,
        weight: np.ndarray | None = None,
    ) -> np.ndarray:
        """Counts of the current model's scores of messages it has not learned (``counted``:
        their terms and counts, when already counted; ``weight``: their sample weights)."""
        is_spam = self._is_spam(labels)
        if self._check_folds() is None or is_spam is None or len(docs) == 0:
            return calibration.empty_counts()
        try:
            scores = self.log_odds(docs) if counted is None else self.log_odds_counted(*counted)
        except DataError:  # not yet the two classes: no score to keep
            return calibration.empty_counts()
        # A model that knows one class scores every message ±inf: no evidence of how scores
        # map to probabilities (kept, they made the scale fitted once the other class came
        # "all ham at +inf, one spam" — a falling slope that turned the filter upside down).
        finite = np.isfinite(scores)
        return calibration.score_counts(
            scores[finite], is_spam[finite], None if weight is None else weight[finite]
        )

    def take_merged(self, models: Sequence[Any]) -> None:
        """A merge's held-out score counts are the sum of the filters' (each filter's scores
        are held out of its own fit), and the scale is fitted on them: ``a + b`` and
        :func:`bayeskit.merge` in any order give one filter."""
        self.set_score_counts(sum((m.score_counts() for m in models[1:]), models[0].score_counts()))

    def _own_probabilities(self) -> bool:
        """Whether ``P(spam|x)`` is the count model's own (uncalibrated naive Bayes)."""
        return (
            self.probability_scale() == calibration.IDENTITY
            and self.check_scoring() == "naive_bayes"
        )

    def probability_scale(self) -> tuple[float, float]:
        """The calibration ``(a, b)`` of ``P(spam|x) = σ(a·s + b)`` on the score ``s``
        (``calibration_``; ``(1, 0)``, the score's own scale, before any is fitted)."""
        return self.__dict__.get("calibration_", calibration.IDENTITY)

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(y|x)`` of each message: the calibrated ``P(spam|x)`` and its complement."""
        if self._own_probabilities():  # the count model's own, to the last digit
            return super().predict_proba(X)
        return np.exp(self.predict_log_proba(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log P(y|x)`` of each message (calibrated, see :meth:`predict_proba`)."""
        if self._own_probabilities():
            return super().predict_log_proba(X)
        column = self.spam_index()
        z = calibration.calibrated_logit(self.log_odds(X), self.probability_scale())
        out = np.empty((len(z), 2))
        out[:, column], out[:, 1 - column] = -np.logaddexp(0.0, -z), -np.logaddexp(0.0, z)
        return out

    def spam_probability(self, X: Any) -> np.ndarray:
        """``P(spam|x)`` of each message (calibrated, see ``calibration_folds``)."""
        if self._own_probabilities():
            return self.predict_proba(X)[:, self.spam_index()]
        return calibration.calibrated(self.log_odds(X), self.probability_scale())

    def classify(self, X: Any) -> np.ndarray:
        """``"ham"``, ``"spam"`` or ``"unsure"`` for each message (see the class docstring)."""
        return self.verdicts(self.spam_probability(X))

    def verdicts(self, p_spam: Any) -> np.ndarray:
        """:meth:`classify`'s rule on spam probabilities already computed ("unsure" of every
        message while the filter has learned messages of one class only: its probabilities
        then say nothing but that class)."""
        lo, hi, _ = self.decision_rule()
        p = np.asarray(p_spam, dtype=np.float64)
        out = np.full(len(p), "unsure", dtype="<U6")
        if self.learned_both_classes():
            out[p <= lo] = "ham"
            out[p >= hi] = "spam"
        return out

    def learned_both_classes(self) -> bool:
        """Whether the filter has learned messages of both classes (until then every
        verdict is "unsure")."""
        return bool(np.all(np.asarray(self.fitted_parts()[1].class_count_) > 0))

    def learned_only(self) -> Any:
        """The label of the one class the filter has learned messages of, None when it has
        learned both or none (a filter built a class at a time is unsure of every message
        until it learns the other, as one that has learned nothing is)."""
        learned = np.flatnonzero(np.asarray(self.fitted_parts()[1].class_count_) > 0)
        return self.classes_[int(learned[0])] if len(learned) == 1 else None

    def explain(self, text: Any, *, label: Any = None, versus: Any = None) -> Any:
        """Each term's contribution to the count model's log-odds of ``label`` against
        ``versus`` on one message (see :meth:`TextClassifier.explain`), ``label`` by default
        the filter's own decision (:meth:`predict`, its costs and calibration included).
        Under ``scoring="fisher"`` the filter's score combines the terms' probabilities by
        Fisher's method, which no sum of terms gives: refused
        (:class:`~bayeskit.errors.ParameterError`)."""
        if self.check_scoring() != "naive_bayes":
            raise ParameterError(
                "explain splits the count model's log-odds into one term per token; under "
                "scoring='fisher' the filter's score combines the tokens' probabilities by "
                "Fisher's method, which no sum of terms gives (set scoring='naive_bayes' to "
                "explain by terms)"
            )
        if label is None and isinstance(text, (str, bytes)):
            label = self.predict([text])[0]
        return super().explain(text, label=label, versus=versus)

    def predict(self, X: Any) -> np.ndarray:
        """The two-way decision of minimum expected cost."""
        return self.decisions(self.spam_probability(X))

    def decisions(self, p_spam: Any) -> np.ndarray:
        """:meth:`predict`'s rule (minimum expected cost) on spam probabilities already
        computed: the spam label where ``p_spam`` exceeds
        ``lost_ham_cost / (lost_ham_cost + passed_spam_cost)``, else the ham label."""
        _, _, threshold = self.decision_rule()
        column = self.spam_index()
        labels = self.classes_
        return np.where(np.asarray(p_spam) > threshold, labels[column], labels[1 - column])

    def train_on_error(self, X: Any, y: Any) -> int:
        """Learn only the messages the filter gets wrong or is unsure about (SpamBayes'
        train-on-error); returns how many it learned. An untrained filter learns them all."""
        refuse_while_waiting(self)  # not a first fit: its statistics are there
        docs = document_list(X)
        labels = self._filter_labels(y, len(docs))
        if len(docs) != len(labels):
            raise DataError(f"{len(docs)} messages but {len(labels)} labels")
        if not self.__sklearn_is_fitted__():
            self.fit(docs, labels)
            return len(docs)
        verdict = self.classify(docs)
        is_spam = self._is_spam(labels)  # (by text, as the labels were checked)
        truth = np.where(is_spam if is_spam is not None else False, "spam", "ham")
        wrong = np.flatnonzero(verdict != truth)
        # Every message was scored before any was learned: all their scores calibrate.
        added = self._new_scores(docs, labels)
        with unchanged_on_error(self):
            if len(wrong):
                TextClassifier.partial_fit(self, [docs[i] for i in wrong], labels[wrong])
            self._calibrate(self._counts() + added)
        return len(wrong)


def _weights(labels: np.ndarray, sample_weight: Any) -> np.ndarray | None:
    """Each message's sample weight, checked (None for none given: each weighs 1): a
    message weighs in the held-out scores the scale is fitted on as in the statistics."""
    if sample_weight is None:
        return None
    return check_sample_weight(sample_weight, len(labels), part=True)


def _setting(name: str, value: Any) -> float:
    """A number setting as a float, refused by name when it is none (or past float64)."""
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number; got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} must be a number; got {value!r:.60}") from None
