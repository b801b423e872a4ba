"""The errors bayeskit raises.

Every error a user can cause is a :class:`BayeskitError`; each subclass is also the built-in
exception a Python programmer would expect (``ValueError`` for a bad value, ``TypeError`` for a
wrong kind of input), so ``except ValueError`` keeps working. Messages name the column, row or
value at fault and say what is accepted.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:  # a mail filter imports this module: typing is a tenth of its start-up
    from typing import Any, TypeVar

    T = TypeVar("T")

_SKLEARN = "sklearn.exceptions"

__all__ = [
    "BayeskitError",
    "BayeskitWarning",
    "CapabilityError",
    "CollinearColumnsWarning",
    "ConvergenceWarning",
    "CountTableTooLargeError",
    "DataError",
    "DatasetNotFoundError",
    "EmptyVocabularyWarning",
    "InputTypeError",
    "MergeError",
    "MissingCapabilityError",
    "MissingDependencyError",
    "ModelFileError",
    "ModelFileVersionError",
    "NotFittedError",
    "ParameterError",
    "ReadError",
    "SaveError",
    "ShapeError",
    "SingularCovarianceError",
    "UnknownCategoryError",
    "UnknownClassError",
]


class BayeskitError(Exception):
    """Base class of every error bayeskit raises on purpose."""


class DataError(BayeskitError, ValueError):
    """A value in X, y or sample_weight that the model cannot accept (NaN, inf, negative…).

    Attributes
    ----------
    row : int or None
        The row of X at fault, counting from 0, when the message names one.
    detail : str or None
        The message without the row, for a caller that names the row its own way (the
        command line names the file, and counts its rows from 1).
    """

    def __init__(self, *args: Any, row: int | None = None, detail: str | None = None):
        super().__init__(*args)
        self.row = row
        self.detail = detail


class DatasetNotFoundError(BayeskitError, FileNotFoundError):
    """A public dataset not found where the shared data folder (``BAYESKIT_DATA``) should
    hold it: the message names the path looked for. Tests and benchmarks skip on it."""


class ReadError(DataError):
    """Data that cannot be read or used as given: the message names the file, the line or
    column when there is one, and the fix.

    Attributes
    ----------
    path : str or None
    line : int or None (1-based line of the file)
    column : str or None
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: str | None = None,
    ):
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column


class ShapeError(DataError):
    """Input of the wrong shape: wrong number of columns, empty, X and y of different lengths."""


class SingularCovarianceError(DataError):
    """A covariance matrix that cannot be inverted: a class with fewer rows than features, a
    column constant within a class, or collinear columns. Set a regularisation (``reg_param``,
    ``shrinkage``, ``lam``/``gamma``) or drop the columns named."""


class CountTableTooLargeError(DataError):
    """Counts of feature subsets (a Bayesian network classifier's statistic) that would exceed
    the memory bound: too many features, values per feature or parents (``k``)."""


class UnknownCategoryError(DataError):
    """A categorical value never seen in training, under ``unseen="error"``."""


class InputTypeError(BayeskitError, TypeError):
    """Input of a kind the model does not take (text where numbers are needed, …).

    Attributes
    ----------
    row : int or None
        The row of X at fault, counting from 0, when the message names one.
    """

    def __init__(self, *args: Any, row: int | None = None):
        super().__init__(*args)
        self.row = row


class ParameterError(BayeskitError, ValueError):
    """A hyperparameter outside its accepted range (alpha < 0, a loss matrix of wrong shape…).

    Attributes
    ----------
    cell : (int, int) or None
        ``(class index, feature index)`` within a family's block, when the message names them
        as ``"class index C"`` and ``"feature J"``: the model that finalized the family names
        them by label and column instead.
    """

    def __init__(self, *args: Any, cell: tuple[int, int] | None = None):
        super().__init__(*args)
        self.cell = cell


class UnknownSettingError(ParameterError, TypeError):
    """A keyword an estimator does not take (``MultinomialNB(alfa=1)``): a TypeError too, as
    Python's own "unexpected keyword argument", with the settings there are named."""


class NotFittedError(BayeskitError, ValueError, AttributeError):
    """A fitted model was needed: call ``fit`` or ``partial_fit`` first.

    Also scikit-learn's ``NotFittedError`` (so a ``ValueError`` and an ``AttributeError``)
    once scikit-learn is imported: importing it costs a second or more, which a process that
    never uses it must not pay, so the error raised is then of a subclass that derives from
    scikit-learn's too. Before that, no code has scikit-learn's class to catch it with.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> NotFittedError:
        if cls is NotFittedError and _SKLEARN in sys.modules:
            cls = also_sklearns(NotFittedError)
        return super().__new__(cls, *args, **kwargs)


def also_sklearns(ours: type[T]) -> type[T]:
    """``ours`` deriving from :mod:`sklearn.exceptions`' class of the same name too (made
    once, on first use; named ``_Sklearn<name>`` in this module, so it pickles)."""
    alias = f"_Sklearn{ours.__name__}"
    made = globals().get(alias)
    if made is None:
        import importlib

        theirs = getattr(importlib.import_module(_SKLEARN), ours.__name__)
        namespace = {"__module__": __name__, "__qualname__": alias, "__doc__": ours.__doc__}
        made = type(ours.__name__, (ours, theirs), namespace)
        globals()[alias] = made
    return made


class MergeError(BayeskitError, ValueError):
    """Two models or statistics that cannot be added (different features, families or settings)."""


class CapabilityError(MergeError, TypeError):
    """A call a model declares it cannot serve (:mod:`bayeskit.contract`): unlearning a model
    fitted by rounds, merging parts of one class of a mixture, learning through the service.
    The message quotes the declaration. Every capability a contract declares is a way of
    adding or removing statistics, so this is also a :class:`MergeError`; and a ``TypeError``:
    the operation is not defined for this kind of model."""


class MissingCapabilityError(CapabilityError, AttributeError):
    """A method a model does not offer by its declaration (``partial_fit`` of a model fitted
    by rounds). Also an ``AttributeError``: ``hasattr(model, "partial_fit")`` is False."""


class ModelFileError(BayeskitError, ValueError):
    """A model file that is corrupt, truncated, of a newer format or not a bayeskit model."""


class ModelFileVersionError(ModelFileError):
    """A model file written by another version of bayeskit that this one cannot read as it
    was saved: a newer format version, or an older file whose model this version would
    rebuild differently. The message names the file's format version and the ones this
    bayeskit reads; fit the model again from its data and save it to rebuild the file."""


class SaveError(BayeskitError, OSError):
    """A model file that cannot be written where asked (a missing folder, no permission, a
    folder in the way). Also an ``OSError``; the message names the path given."""


class MissingDependencyError(BayeskitError, ImportError):
    """An optional feature whose package is not installed; the message says what to install
    (``pip install "bayeskit[dask]"``)."""


class UnknownClassError(DataError):
    """A label outside the classes declared with ``partial_fit(classes=...)`` (scikit-learn's
    contract: the declared classes are all the classes there are)."""


class BayeskitWarning(UserWarning):
    """Base class of the warnings bayeskit gives on purpose: the call went on, with a change
    the message names."""


class ConvergenceWarning(BayeskitWarning):
    """An iterative fit (EM) that ran out of iterations before it settled; the model is the
    last iteration's. Also scikit-learn's ``ConvergenceWarning`` once scikit-learn is
    imported (:func:`convergence_warning`, as :class:`NotFittedError`)."""


def convergence_warning(message: str) -> ConvergenceWarning:
    """A :class:`ConvergenceWarning` to give (``warnings.warn(convergence_warning(...))``):
    one of scikit-learn's too when scikit-learn is imported, so its filters apply."""
    if _SKLEARN in sys.modules:
        return also_sklearns(ConvergenceWarning)(message)
    return ConvergenceWarning(message)


class EmptyVocabularyWarning(BayeskitWarning):
    """Documents learned by ``partial_fit`` (or left by an unlearn) in which no term meets the
    vocabulary's rules yet (``min_df``, ``max_df``): every document is a row of zeros and a
    classifier predicts its class priors until more documents are learned. ``fit`` refuses
    such a vocabulary instead."""


class CollinearColumnsWarning(BayeskitWarning):
    """Columns that are linear combinations of each other (a price difference stored beside both
    prices): the model works in the span of the data, and the message names the columns."""
