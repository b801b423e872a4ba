"""Exact training on Dask: summarize each partition where it lives, add, finalize once.

A bayeskit model is fitted from sufficient statistics that add (``summarize`` on parts,
``+``, ``fit_summary``), so training on a cluster is the same computation as training in
memory, split up: :func:`fit` maps the estimator's own ``summarize`` over the partitions of a
dask collection, adds the results in a tree reduction and finalizes once on the client. The
fitted model is the one ``estimator.fit`` gives on the same rows (up to floating-point
rounding of the sums, ~1e-15); text vocabularies and counts are identical.

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
  vocabulary statistics of the whole corpus (idf needs every document), then the counts.

Iterative estimators
--------------------
A fit is a generator of rounds (:mod:`bayeskit.reduction`): :func:`fit` broadcasts each
round's state to the workers once, summarizes every partition, adds the parts in a tree and
sends the total back. An estimator that defines ``_fit_rounds(self, *, partial, classes)`` is
fitted by its own rounds — an EM estimator runs one reduction per iteration that way.
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
