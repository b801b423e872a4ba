"""Fitting from parts: the rounds of map-reduce every bayeskit estimator is fitted by.

A fit is a generator of :class:`Round`\\ s. For each round, whoever runs it (the streaming
command line on one machine, :mod:`bayeskit.dask` on a cluster) sends the round's ``state``
to where the data is, calls ``summarize(state, X_part, y_part, weight_part)`` on every
non-empty part, adds the results with ``+`` (in part order, so the sums are reproducible) and
sends the total, a :class:`Part`, back into the generator. The generator finalizes on the
client and yields the next round or returns the fitted estimator.

:func:`rounds_for` gives the rounds of every bayeskit estimator (see :mod:`._plans`); an
estimator that declares ``rounds`` (:mod:`bayeskit.contract`), giving such a generator, is
fitted by its own rounds — the hook an EM estimator uses to run one reduction per iteration
(state: the current model; values: the statistics of a part under its responsibilities and its
log-likelihood; finalize and test convergence between rounds): GaussianMixtureClassifier's
(:mod:`bayeskit.mixture._rounds`).
"""

from .._rounds import Each, Part, Round, Rounds, Schema, Stacked, add_parts
from ._plans import rounds_for

__all__ = ["Each", "Part", "Round", "Rounds", "Schema", "Stacked", "add_parts", "rounds_for"]
