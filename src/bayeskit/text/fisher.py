"""Robinson's token probabilities and Fisher's χ² combining, as bogofilter and SpamBayes score.

Robinson (2003, "A statistical approach to the spam problem", Linux Journal 107) estimates how
spammy each token is from the fraction of ham and of spam messages that hold it,
``p(w) = b / (b + g)`` with ``b = n_spam(w) / N_spam`` and ``g = n_ham(w) / N_ham``, shrunk
towards a prior ``x`` with strength ``s`` by the number of messages ``n(w)`` that hold it:

.. math:: f(w) = \\frac{s x + n(w) p(w)}{s + n(w)}.

A message's telling tokens (those farther than ``min_dev`` from 1/2, by at least
:data:`TIE` — a token at the bound, whichever way its rounding falls, is left out, as
bogofilter leaves it out) are combined by Fisher's method twice:
``H = C⁻¹(-2 Σ ln f(w), 2n)`` (how unlike ham the message is) and
``S = C⁻¹(-2 Σ ln(1 - f(w)), 2n)`` (how unlike spam), ``C⁻¹`` the χ² survival function with
``2n`` degrees of freedom, and the indicator is ``I = (1 + H - S) / 2``. A token whose ``f(w)``
is 0 or 1 in float64 (a tiny strength ``s``, or a token weighed beyond 10^13 messages) makes
its tail 0 or 1 exactly, its limit.

Two differences from bogofilter: a message with no telling token has ``I = 1/2`` (bogofilter
gives it ``x``), and a token the filter has never seen is not scored (bogofilter scores it at
``f = x``, telling when ``|x - 1/2|`` exceeds ``min_dev``; under the defaults it never is, so
only the first difference shows).

The scores here are the log-odds ``log(I / (1 - I))`` computed from the tails in log space,
so that messages beyond double precision's 1e-308 keep their order (bogofilter rounds them to
0 or 1). For an even number of degrees of freedom the survival function is a Poisson sum,
``C⁻¹(2m, 2n) = Q(n, m) = e^{-m} Σ_{i<n} mⁱ/i!``, summed here from its largest term outwards.

The token counts are the filter's additive statistics (messages holding each token in each
class); everything here is a function of them evaluated when a message is scored. This module
is pure Python (``math`` only): the one-message path of ``bayeskit filter`` uses it without
numpy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from typing import Any

#: bogofilter's defaults (robs, robx, min_dev).
STRENGTH, PRIOR, MIN_DEV = 0.0178, 0.52, 0.375
#: Terms of a Poisson sum more than this many nats below its largest are left out (e^-40).
_NEGLIGIBLE = 40.0
#: A token is telling when ``|f - 1/2| - min_dev`` is at least this (bogofilter's margin of
#: 100 float64 epsilons): a token at the bound is left out however ``f`` rounds.
TIE = 100 * 2.220446049250313e-16


def telling(f: Any, min_dev: float) -> Any:
    """Whether a token of probability ``f`` is telling: farther than ``min_dev`` from 1/2
    (a float, or an array of them: one bool each)."""
    return abs(f - 0.5) - min_dev >= TIE


def token_probability(
    ham: float, spam: float, n_ham: float, n_spam: float, strength: float, prior: float
) -> float:
    """Robinson's ``f(w)`` of a token held by ``ham`` of ``n_ham`` ham and ``spam`` of
    ``n_spam`` spam messages."""
    b = spam / n_spam if n_spam > 0 else 0.0
    g = ham / n_ham if n_ham > 0 else 0.0
    n = ham + spam
    if b + g <= 0.0:
        return prior
    return (strength * prior + n * (b / (b + g))) / (strength + n)


def _log_term(i: int, log_m: float, m: float) -> float:
    return i * log_m - math.lgamma(i + 1.0) - m


def _log_poisson_sum(m: float, lo: int, hi: int | None) -> float:
    """``log Σ_{lo <= i < hi} e^{-m} mⁱ / i!`` (``hi`` None: to infinity), from the largest
    term (at ``floor(m)`` clamped to the range: the terms rise to it and fall after) outwards
    until the terms are negligible."""
    if m <= 0.0:  # only the i = 0 term is nonzero
        return 0.0 if lo == 0 and (hi is None or hi > 0) else -math.inf
    if hi is not None and hi <= lo:
        return -math.inf
    if m == math.inf:  # (a token of f = 0 or 1) the whole mass lies beyond any finite hi
        return 0.0 if hi is None else -math.inf
    log_m = math.log(m)
    top = max(lo, int(m)) if hi is None else min(max(lo, int(m)), hi - 1)
    peak = _log_term(top, log_m, m)
    total = 1.0
    i = top - 1
    while i >= lo:
        t = _log_term(i, log_m, m) - peak
        if t < -_NEGLIGIBLE:
            break
        total += math.exp(t)
        i -= 1
    i = top + 1
    while hi is None or i < hi:
        t = _log_term(i, log_m, m) - peak
        if t < -_NEGLIGIBLE:
            break
        total += math.exp(t)
        i += 1
    return peak + math.log(total)


def log_tails(chi_half: float, n: int) -> tuple[float, float]:
    """``(log Q, log P)``: the log survival and log distribution function of χ² at
    ``2 chi_half`` with ``2n`` degrees of freedom (``n >= 1``), each from its own sum (no
    ``1 - x`` that would lose a tiny tail)."""
    return _log_poisson_sum(chi_half, 0, n), _log_poisson_sum(chi_half, n, None)


def logaddexp(a: float, b: float) -> float:
    """``log(e^a + e^b)``: numpy's ``logaddexp``, operation for operation (so the token
    store's calibrated probability is the model's to the last digit); ``-inf`` either side
    gives the other."""
    if a == b:
        return a + math.log(2.0)
    d = a - b
    return a + math.log1p(math.exp(-d)) if d > 0 else b + math.log1p(math.exp(d))


def combine_sums(log_f: float, log_1mf: float, n: int) -> float:
    """The log-odds ``log(I / (1 - I))`` of a message whose ``n`` telling tokens have
    ``Σ ln f = log_f`` and ``Σ ln(1 - f) = log_1mf``; 0 when ``n`` is 0."""
    if n <= 0:
        return 0.0
    q_ham, p_ham = log_tails(-log_f, n)  # H = Q(n, -Σ ln f)
    q_spam, p_spam = log_tails(-log_1mf, n)  # S = Q(n, -Σ ln(1 - f))
    # I = (1 + H - S) / 2 = (H + (1 - S)) / 2 and 1 - I = ((1 - H) + S) / 2
    return logaddexp(q_ham, p_spam) - logaddexp(p_ham, q_spam)


def combine(probabilities: Iterable[float], min_dev: float) -> float:
    """The log-odds of the message whose tokens have Robinson probabilities
    ``probabilities`` (each token once), over the telling ones (:func:`telling`).

    Examples
    --------
    >>> from bayeskit.text.fisher import combine
    >>> round(combine([0.99, 0.98, 0.2], 0.375), 3) > 0  # two spammy tokens, one weak
    True
    >>> combine([0.6, 0.4], 0.375)  # nothing telling: I = 1/2
    0.0
    """
    log_f = log_1mf = 0.0
    n = 0
    for f in probabilities:
        if telling(f, min_dev):
            # (f of 0 or 1: its logarithm -inf, as numpy's, not math's error)
            log_f += math.log(f) if f > 0.0 else -math.inf
            log_1mf += math.log1p(-f) if f < 1.0 else -math.inf
            n += 1
    return combine_sums(log_f, log_1mf, n)
