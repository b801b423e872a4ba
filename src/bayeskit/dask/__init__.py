"""Exact training on Dask: summarize each partition where it lives, add, finalize once.

A bayeskit model is fitted from sufficient statistics that add (``summarize`` on parts,
``+``, ``fit_summary``), so training on a cluster is the same computation as training in
memory, split up: :func:`fit` maps the estimator's own ``summarize`` over the partitions of a
dask collection, adds the results in a tree reduction and finalizes once on the client. The
fitted model is the one ``estimator.fit`` gives on the same rows (up to floating-point
rounding of the sums, ~1e-15); text vocabularies and counts are identical. Two exceptions,
said below: a ``SpamFilter``'s probability scale, fitted on held-out scores whose folds are
the partitions (its counts and log-odds are ``fit``'s), and the EM start of a mixture's class
of more rows than ``init_sample``.

Install with ``pip install "bayeskit[dask]"``. Everything runs on the current dask scheduler:
a ``distributed.Client`` when one is active (a ``LocalCluster`` or a real cluster), else
dask's threads. The cluster trusts its client: dask moves models between processes with
pickle (bayeskit's own model files never use it).

Examples
--------
>>> import dask.array as da, numpy as np
>>> from bayeskit import GaussianNB
>>> from bayeskit.dask import fit, predict_proba
>>> rng = np.random.default_rng(0)
>>> X, y = rng.normal(size=(1000, 3)), rng.integers(0, 2, size=1000)
>>> model = fit(GaussianNB(), da.from_array(X, chunks=250), da.from_array(y, chunks=250))
>>> np.allclose(model.theta_, GaussianNB().fit(X, y).theta_, rtol=1e-12)
True
>>> predict_proba(model, da.from_array(X, chunks=250)).shape
(1000, 2)

What fits how
-------------
* every naive Bayes model (one round). DataFrame partitions must agree on their columns and
  dtypes; MixedNB's partitions must read each column with the same family (an ``object``
  column is typed by its values, so a partition where it is all missing reads it as numbers:
  give such a column a dtype, or name its family). KernelNB and DiscretizedNB keep every
  training value (their ``Sample`` statistic), so their statistics grow with the data and are
  brought to the client whole: exact, but not lighter than fitting in memory.
* LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, RegularizedDiscriminantAnalysis
  (one round: per-class scatter matrices add by Chan's formula). A fit that ``fit`` refuses
  (one class, a singular covariance) is refused with the same error.
* TextClassifier and SpamFilter with "counts"/"binary" output, and TextVectorizer (one round:
  vocabulary statistics add). With "tfidf" output or a given vocabulary, two rounds: the
  vocabulary statistics of the whole corpus (idf needs every document), then the counts. A
  calibrated SpamFilter takes one more: the fitted filter scores each partition's messages
  held out (each fold by the filter minus the fold) and the scale is fitted on the sum of
  their counts; with idf it keeps the model's own probabilities, with a warning.

Iterative estimators
--------------------
A fit is a generator of rounds (:mod:`bayeskit.reduction`): :func:`fit` broadcasts each
round's state to the workers once, summarizes every partition, adds the parts in a tree and
sends the total back. An estimator that declares ``rounds`` (:mod:`bayeskit.contract`) is
fitted by its own rounds. GaussianMixtureClassifier runs EM that way, one reduction per EM
iteration: the current mixtures go to the workers once per round, each partition returns the
statistics of its rows under their responsibilities and their log-likelihood, and the M-step
and the convergence test (``tol``, ``max_iter``, the ConvergenceWarning) run on the client. A
first round draws the starts as the in-memory ``fit`` draws them (``random_state``,
``n_init``, ``init_params``, ``means_init``) from each class's rows, gathered to the client up
to ``init_sample`` rows per class (20000 by default; a larger class starts from a uniform
sample of that many, the same whatever the partitioning). ``n_components="bic"`` runs every
candidate in the same rounds, plus one for their BIC. So the model is the in-memory one to
rounding (bit for bit on one partition):

>>> from bayeskit import GaussianMixtureClassifier
>>> X = np.vstack([rng.normal(c, 0.5, size=(500, 2)) for c in ([0, 0], [4, 4], [0, 4], [4, 0])])
>>> y = np.repeat(["a", "a", "b", "b"], 500)  # two blobs per class
>>> make = lambda: GaussianMixtureClassifier(n_components=2, covariance_type="full",
...                                          random_state=0)
>>> model = fit(make(), da.from_array(X, chunks=300), da.from_array(y, chunks=300))
>>> whole = make().fit(X, y)
>>> model.n_iter_, model.converged_  # 3 EM rounds for each class
(array([3, 3]), array([ True,  True]))
>>> bool(np.allclose(model.means_["a"], whole.means_["a"], rtol=1e-12))
True

SemiSupervisedNB (wrapping a generative classifier or a TextClassifier, one component per
class) runs the same way: the labelled rows' statistics (and, for text, the vocabulary
statistics of every document), one reduction per EM iteration, then the training rows' class
probabilities. Every round reads X again: ``X = X.persist()`` keeps it in the workers'
memory between rounds.
``bayeskit train --model gmm`` runs the same rounds over the batches of a file, read again at
each iteration, here or on a cluster (``--workers``).
"""

from __future__ import annotations

from ..errors import MissingDependencyError

try:
    import dask  # noqa: F401
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise MissingDependencyError(
        'bayeskit.dask needs dask, which is not installed: pip install "bayeskit[dask]"'
    ) from None

from ..reduction import Part, Round, Schema
from ._cluster import ClusterError, connect
from ._fit import fit, partial_fit
from ._predict import predict, predict_log_proba, predict_proba

__all__ = [
    "ClusterError",
    "Part",
    "Round",
    "Schema",
    "connect",
    "fit",
    "partial_fit",
    "predict",
    "predict_log_proba",
    "predict_proba",
]
