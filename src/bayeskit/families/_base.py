"""The contract of a distribution family.

A family is a small object holding hyperparameters (smoothing, estimate, …). It knows how to

``summarize(X, R) -> Statistic``
    sufficient statistics of a data block ``X`` given class weights ``R`` (n × K, dense or
    sparse: one-hot labels times sample weights, or soft responsibilities);
``finalize(stats) -> params``
    point estimates from statistics. Smoothing, priors and floors live here and only here;
``log_prob(params, X) -> ndarray (n, K)``
    per-class log-likelihood of each row (a missing value contributes 0);
``linear_form(params) -> (W, b)``
    for families that are linear in the features: ``log_prob(X) = X @ W.T + b``.

``validate(X, names)`` checks family-specific input rules (non-negative counts, binary values)
with messages that name the column and row.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from ..stats import Statistic


class Family(ABC):
    """Base class of distribution families."""

    #: name used in model files and ``feature_families_``.
    name: ClassVar[str]
    #: True when ``log_prob`` is ``X @ W.T + b`` (multinomial, Bernoulli, complement…).
    linear: ClassVar[bool] = False

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """Hyperparameters as JSON-ready values (enough to rebuild the family)."""

    def validate(self, X: Any, names: Sequence[str]) -> Any:
        """Check and prepare input for this family; return what summarize/log_prob take."""
        return X

    @abstractmethod
    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Statistic:
        """Sufficient statistics of ``X`` under class weights ``R``."""

    @abstractmethod
    def finalize(self, stats: Any) -> Any:
        """Parameters estimated from statistics."""

    @abstractmethod
    def log_prob(self, params: Any, X: Any) -> np.ndarray:
        """Per-class log-likelihood of each row, shape (n_samples, n_classes)."""

    def linear_form(self, params: Any) -> tuple[np.ndarray, np.ndarray]:
        """Weights ``W`` (n_classes, n_columns) and bias ``b`` (n_classes,)."""
        raise NotImplementedError(f"the {self.name} family is not linear in its features")

    def design(self, params: Any, X: Any) -> Any:
        """The rows ``linear_form``'s weights multiply, from validated input: the features
        themselves for count families."""
        return X

    def column_names(self, params: Any, names: Sequence[str]) -> list[str]:
        """Names of the columns of :meth:`design`, given the block's feature names."""
        return list(names)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"


def hard_labels(R: np.ndarray | sp.spmatrix) -> tuple[np.ndarray, np.ndarray] | None:
    """(class index, weight) of each row when ``R`` is one-hot labels times weights as the
    template builds it (CSR, one stored entry per row); None for soft labels."""
    if not isinstance(R, (sp.csr_matrix, sp.csr_array)) or R.nnz != R.shape[0]:
        return None
    if not np.array_equal(R.indptr, np.arange(R.shape[0] + 1)):
        return None
    return np.asarray(R.indices), np.asarray(R.data)


def class_totals(R: np.ndarray | sp.spmatrix, X: Any) -> np.ndarray:
    """``R.T @ X`` as a dense (n_classes, n_features) float64 array, for dense or sparse input."""
    if isinstance(R, (sp.spmatrix, sp.sparray)) and R.shape[0] * R.shape[1] <= 1 << 24:
        R = R.toarray()  # dense × CSR is the faster product for a modest class count
    out = R.T @ X
    if sp.issparse(out):
        out = out.toarray()
    return np.asarray(out, dtype=np.float64)


def class_weight_totals(R: np.ndarray | sp.spmatrix) -> np.ndarray:
    """Total weight of each class, shape (n_classes,)."""
    return np.asarray(R.sum(axis=0), dtype=np.float64).ravel()


def safe_dot(X: Any, W: np.ndarray) -> np.ndarray:
    """``X @ W.T`` where ``W`` may hold ``-inf`` (an event of zero probability, as unsmoothed
    maximum likelihood gives): a row that uses such an event scores ``-inf``, a row that does
    not is unaffected (plain ``0 * -inf`` would give NaN)."""
    impossible = np.isneginf(W)
    if not impossible.any():
        out = X @ W.T
        return np.asarray(out, dtype=np.float64)
    out = np.asarray(X @ np.where(impossible, 0.0, W).T, dtype=np.float64)
    hits = np.asarray(X @ impossible.T.astype(np.float64))
    out[hits > 0] = -np.inf
    return out
