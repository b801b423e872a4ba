"""Rounds, and the parts they add up: the value each part of the data contributes, and how
two such values add (refusing parts summarized under different column choices); and the
steps every fit by rounds of a generative classifier shares (the column choices a first fit
reads, a trial copy committed only when it is fitted). The vocabulary of
:mod:`bayeskit.reduction`, kept below the models so a model fitted by rounds of its own (the
Gaussian mixture's EM) uses it without importing the wrappers above it."""

from __future__ import annotations

import copy
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import DataError

if TYPE_CHECKING:
    from ._base import GenerativeClassifier


@dataclass(frozen=True)
class Schema:
    """The choices a fit makes from the data besides its statistics: the number and names of
    the columns, and (MixedNB) the family each column was given. Partitions summarized
    separately must agree on them, or their statistics cannot add."""

    n_features: int
    names: tuple[str, ...] | None
    families: tuple[tuple[str, str], ...] | None
    state: Any  # the estimator's layout_state(), or None

    def difference(self, other: Schema) -> str:
        """What differs, naming the columns (for an error message)."""
        if self.names != other.names:
            if self.names is None or other.names is None:
                return "one has named columns (a DataFrame), the other not"
            missing = [c for c in self.names if c not in set(other.names)]
            extra = [c for c in other.names if c not in set(self.names)]
            if missing or extra:
                parts = [f"missing {missing}"] * bool(missing) + [f"unexpected {extra}"] * bool(
                    extra
                )
                return f"columns differ: {'; '.join(parts)}"
            return f"the columns are in another order: {list(self.names)} vs {list(other.names)}"
        if self.n_features != other.n_features:
            return f"{self.n_features} columns vs {other.n_features}"
        if self.families != other.families and self.families and other.families:
            mine, theirs = dict(self.families), dict(other.families)
            column = next(c for c in mine if mine[c] != theirs.get(c))
            return (
                f"column {column!r} is read as {mine[column]} in one and as "
                f"{theirs.get(column)} in the other (its values there are of another type, or "
                f"all missing); give the column one dtype in every partition, or name its "
                f"family: families={{{column!r}: {mine[column]!r}}}"
            )
        return "the fitted column layouts differ"


@dataclass(frozen=True)
class Part:
    """What some partitions add up to: one additive value per statistic of the round, the
    first partition covered (for messages) and the schema they were summarized under."""

    first: int
    values: tuple[Any, ...]
    schema: Schema | None = None

    def __add__(self, other: object) -> Part:
        if not isinstance(other, Part):
            return NotImplemented
        a, b = (self, other) if self.first <= other.first else (other, self)
        if a.schema != b.schema and a.schema is not None and b.schema is not None:
            raise DataError(
                f"partition {b.first} of X does not match partition {a.first}: "
                f"{a.schema.difference(b.schema)}"
            )
        values = tuple(x + y for x, y in zip(a.values, b.values, strict=True))
        return Part(a.first, values, a.schema)


#: (state, X part, y part, sample-weight part) -> (additive values, schema or None)
Summarize = Callable[[Any, Any, Any, Any], "tuple[tuple[Any, ...], Schema | None]"]


@dataclass(frozen=True)
class Round:
    """One pass over the partitions.

    Attributes
    ----------
    state : the value broadcast to every worker once (a model, a fitted vectorizer…)
    summarize : a module-level function ``(state, X_part, y_part, weight_part) ->
        (values, schema)``; the values of different partitions add with ``+``. It is never
        called on an empty partition.
    """

    state: Any
    summarize: Summarize


#: What a fit is: rounds in, the total of each sent back, the fitted estimator returned.
Rounds = Generator[Round, Part, Any]


@dataclass(frozen=True)
class Each:
    """Several additive values of a part, None where the part has none (a class it has no
    rows of); adds element by element."""

    values: tuple[Any, ...]

    def __add__(self, other: object) -> Each:
        if not isinstance(other, Each):
            return NotImplemented
        return Each(
            tuple(
                b if a is None else a if b is None else a + b
                for a, b in zip(self.values, other.values, strict=True)
            )
        )


@dataclass(frozen=True)
class Stacked:
    """Per-row results of a part (an array with a row axis); parts add by stacking them in
    part order."""

    rows: Any

    def __add__(self, other: object) -> Stacked:
        if not isinstance(other, Stacked):
            return NotImplemented
        import numpy as np

        return Stacked(np.concatenate([self.rows, other.rows]))


def _rounds_together(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """Each round of :func:`together` on the part: its values (one :class:`Each` a round, in
    one :class:`Each`: they add round by round, value by value), and the first schema given."""
    values, schema = [], None
    for inner, summarize in state:
        part, found = summarize(inner, X, y, weight)
        values.append(Each(tuple(part)))
        schema = schema if schema is not None else found
    return (Each(tuple(values)),), schema


def together(fits: list[Rounds]) -> Generator[Round, Part, list[Any]]:
    """Several fits by rounds run side by side: each pass over the partitions serves one
    round of every fit still going, so they take as many passes as the longest of them, not
    the sum. Returns what each fit returned, in order."""
    results: list[Any] = [None] * len(fits)
    pending: dict[int, Round] = {}
    for i, fit in enumerate(fits):
        try:
            pending[i] = next(fit)
        except StopIteration as stop:
            results[i] = stop.value
    while pending:
        order = list(pending)
        state = tuple((pending[i].state, pending[i].summarize) for i in order)
        total = yield Round(state, _rounds_together)
        rounds = total.values[0].values
        for i, values in zip(order, rounds, strict=True):
            try:
                pending[i] = fits[i].send(Part(total.first, values.values, total.schema))
            except StopIteration as stop:
                results[i] = stop.value
                del pending[i]
    return results


def add_parts(*parts: Part | None) -> Part | None:
    """The sum of some partitions' parts, in partition order (empty partitions are None).
    A sum that overflows float64 is not warned of here: the fit that finalizes the total
    refuses it by name (``fit_summary``'s check of the statistics, EM's of its totals), as
    the in-memory fit does."""
    total: Part | None = None
    with np.errstate(over="ignore", invalid="ignore"):
        for part in parts:
            if part is not None:
                total = part if total is None else total + part
    return total


# ---------------------------------------------------------------------------- a trial model
#: what a generative classifier's fit sets or forgets (and a fresh trial drops), the
#: classes a partial_fit declared among them
_FITTED = ("stats_", "_cache", "_declared_classes", "n_features_in_", "feature_names_in_")


def _commit(estimator: Any, trial: Any) -> Any:
    """Give ``estimator`` the state of ``trial`` (a shallow copy of it that was fitted), so a
    failure while fitting leaves ``estimator`` as it was."""
    estimator.__dict__.clear()
    estimator.__dict__.update(trial.__dict__)
    return estimator


def _fresh(estimator: Any, fitted: tuple[str, ...]) -> Any:
    """A shallow copy of ``estimator`` without its fitted attributes."""
    trial = copy.copy(estimator)
    for attr in fitted:
        trial.__dict__.pop(attr, None)
    return trial


def schema_of(model: GenerativeClassifier) -> Schema:
    """The column choices ``model``'s last reset made (see :class:`Schema`)."""
    names = getattr(model, "feature_names_in_", None)
    families = getattr(model, "feature_families_", None)
    return Schema(
        int(model.n_features_in_),
        None if names is None else tuple(str(n) for n in names),
        None if families is None else tuple((str(k), str(v)) for k, v in families.items()),
        model.layout_state(),
    )


def _set_schema(model: GenerativeClassifier, schema: Schema) -> None:
    model.n_features_in_ = schema.n_features
    if schema.names is not None:
        model.feature_names_in_ = np.asarray(schema.names, dtype=object)
    if schema.state is not None:
        model.set_layout_state(schema.state)
