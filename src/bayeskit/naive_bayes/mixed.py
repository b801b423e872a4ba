"""MixedNB: one naive Bayes model whose columns follow different families."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._base import GenerativeClassifier
from .._validation import BlockNames, FeatureNames, check_features, feature_names_of
from ..contract import Contract
from ..errors import DataError, ModelFileError, ModelFileVersionError, ParameterError, ShapeError
from ..families import FAMILIES, Family, family_from_config, named_families
from ..families.auto import CANDIDATES, Auto, AutoParams, family_options
from ..stats import CategoryCounts, Sample, Summary
from ._columns import category_columns, check_booleans, column_types, real_columns
from ._numeric import wrap_sklearn_errors
from ._table import refuse_dates, to_table


@dataclass(frozen=True)
class _Block:
    """Columns (by position) that share one family and its settings."""

    family: str
    config: dict[str, Any] | None  # None: the family's defaults updated by ``options``
    columns: tuple[int, ...]


class MixedNB(GenerativeClassifier):
    """Naive Bayes over a table whose columns have different types.

    ``ln P(y) + Σ_j ln p_j(x_j | y)`` where each column ``j`` has its own distribution family:
    Gaussian (or kernel density, discretized, Poisson…) for numbers, Bernoulli for booleans,
    categorical for strings. Columns sharing a family are scored together as one vectorised
    block. Missing values (NaN, None, pandas NA, polars null) drop out of the product, in
    training and in prediction; a row with every value missing gets the prior.

    Parameters
    ----------
    families : "auto" or dict, default="auto"
        ``"auto"`` maps each column's type to a family once, at fit time: float → ``numeric``,
        integer → ``integers``, bool → ``"bernoulli"``, string / categorical → ``"categorical"``.
        A dict ``{column: family}`` sets the family of the columns it names (by DataFrame
        column name, or by position for arrays); the other columns are mapped as with
        ``"auto"``. A family is a name (``"gaussian"``, ``"kernel"``, ``"poisson"``,
        ``"categorical"``…) or a configured family object from :mod:`bayeskit.families`.
    numeric : str, default="auto"
        Family of float columns under ``"auto"``. ``"auto"`` chooses each numeric column's
        family among Gaussian, kernel density (John & Langley 1995), discretized at MDL cut
        points (Fayyad & Irani 1993) and, for columns of non-negative integers, Poisson, by
        the held-out log-likelihood of the class on the training data (10 stratified folds;
        :class:`~bayeskit.families.Auto`): every column starts with the one family that
        scores best on all of them, and a column takes another only when that raises the
        score by more than one standard error (Breiman et al. 1984). The choice is made from the
        statistics (the weighted rows), so it is exact and repeatable, the same for ``fit``
        and for ``partial_fit`` in any batches, and is shown by ``feature_families_``. A
        family name gives every such column that family.
    integers : str or None, default=None
        Family of integer columns under ``"auto"`` (``"poisson"`` for counts,
        ``"categorical"`` for codes); None: the same as ``numeric``.
    options : dict, optional
        Settings of the families given by name: ``{"gaussian": {"var_smoothing": 1e-6},
        "categorical": {"alpha": 0.5}}``; they apply to the candidates of ``"auto"`` too, and
        ``{"auto": {"folds": 10, "candidates": ["gaussian", "kernel"]}}`` sets the choice.
        The Gaussian family's variance floor is each column's own (``var_floor="column"``:
        ``var_smoothing`` times the column's variance, as R's e1071 and Weka floor each
        column by itself) unless ``options`` says otherwise: scikit-learn's floor, a portion
        of the *largest* variance, lets one column in large units (variance 1e10) flatten
        every other Gaussian column. Categorical and boolean columns are smoothed with a
        pseudo-count chosen from the data (``alpha="auto"``: one for the categorical columns
        and one for the booleans, among 1, 1/2, 1/4, 1/10, 1/30 and 1/100, by the
        leave-one-out log-likelihood of the class given each column, computed exactly from
        the counts; shown by ``category_alpha_``), unless ``options`` say otherwise:
        Laplace's ``alpha=1`` is Weka's, Jeffreys' ``alpha=0.5`` the Krichevsky-Trofimov
        estimator (Krichevsky & Trofimov 1981), and R's e1071 adds nothing (α → 0): which
        is best depends on how many rows each category has, which the choice reads. A
        boolean column takes True/False (or 1/0) and refuses another number, naming it,
        unless ``{"bernoulli": {"binarize": threshold}}`` asks for values above a threshold
        to count as True.
    fit_prior, class_prior, prior_alpha, class_weight, loss
        As for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    feature_families_ : dict
        The family of each column, as chosen at fit time (with ``numeric="auto"``, the family
        the held-out choice gave each numeric column).
    category_alpha_ : dict
        The pseudo-count each categorical and boolean column was smoothed with.
    categories_ : dict
        The sorted values seen in each categorical column.
    classes_, class_count_, class_log_prior_, stats_, n_features_in_, feature_names_in_
        As for :class:`~bayeskit.MultinomialNB`.

    References
    ----------
    .. [1] G. H. John and P. Langley, "Estimating continuous distributions in Bayesian
           classifiers", Proc. 11th Conference on Uncertainty in Artificial Intelligence,
           pp. 338-345, 1995.
    .. [2] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
           attributes for classification learning", Proc. 13th International Joint
           Conference on Artificial Intelligence, pp. 1022-1027, 1993.
    .. [3] D. Meyer et al., e1071: Misc Functions of the Department of Statistics, TU Wien
           (``naiveBayes``: a Gaussian per numeric column, each with its own spread).
    .. [4] R. E. Krichevsky and V. K. Trofimov, "The performance of universal encoding",
           IEEE Transactions on Information Theory 27(2), pp. 199-207, 1981.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayeskit import MixedNB
    >>> X = pd.DataFrame({
    ...     "age": [23.5, 35.0, 51.0, 62.0, 44.0, 29.0],
    ...     "owner": [False, True, True, True, None, False],
    ...     "city": ["Oslo", "Lyon", "Lyon", None, "Lyon", "Oslo"],
    ... })
    >>> y = ["rent", "buy", "buy", "buy", "buy", "rent"]
    >>> model = MixedNB().fit(X, y)
    >>> model.feature_families_  # "age" by held-out choice; the others by their types
    {'age': 'discretized', 'owner': 'bernoulli', 'city': 'categorical'}
    >>> model.predict(pd.DataFrame({"age": [27.0], "owner": [None], "city": ["Oslo"]}))
    array(['rent'], dtype='<U4')
    """

    #: each column's family is chosen from the rows at fit (held-out log-likelihood): another
    #: choice needs the rows (the families' options are read from the statistics)
    contract: ClassVar[Contract] = Contract(
        input="table", refit_settings=("families", "numeric", "integers")
    )

    def __init__(
        self,
        *,
        families: Any = "auto",
        numeric: str = "auto",
        integers: str | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        fit_prior: bool = True,
        class_prior: Any = None,
        prior_alpha: float = 0.0,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.families = families
        self.numeric = numeric
        self.integers = integers
        self.options = options
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.class_weight = class_weight
        self.loss = loss

    # ------------------------------------------------------------------ template hooks
    def _families(self) -> list[Family]:
        families = [self._family(block) for block in self._layout()]
        # The choice a model file stored, for the statistics it was made from and the
        # settings it was made under: a load does not cross-validate again. Once the model
        # holds other statistics (a fit, partial_fit, unlearn), it is let go.
        known = self.__dict__.get("_known_choice", {})
        fitted = self.__dict__.get("stats_")
        for i, (stats, chosen, scores, config) in list(known.items()):
            if fitted is not None and not any(stats is block for block in fitted.blocks):
                del known[i]
                continue
            family = families[i] if i < len(families) else None
            if isinstance(family, Auto) and _same_config(family.config(), config):
                family.known_choice = (stats, chosen, scores)
        return families

    def _family(self, block: _Block) -> Family:
        if block.config is not None:
            return family_from_config(block.family, block.config)
        options = family_options(self.options)
        if block.family == "auto":
            config = dict(options.get("auto", {}))
            candidates = config.get("candidates", CANDIDATES)
            config.setdefault(
                "options",
                {name: _settings(options, name, self._alpha()) for name in _names(candidates)},
            )
            return family_from_config("auto", config)
        return family_from_config(block.family, _settings(options, block.family, self._alpha()))

    def _alpha(self) -> float | str:
        """The pseudo-count of categories and booleans the model was fitted with where
        ``options`` set none: ``"auto"`` (chosen from the counts) for a model fitted now; a
        file written before that stores the number it was fitted with (before Jeffreys' prior
        was the default, none: 1)."""
        alpha = self.__dict__.get("_category_alpha", CATEGORY_ALPHA)
        return alpha if isinstance(alpha, str) else float(alpha)

    def _layout(self) -> tuple[_Block, ...]:
        layout = self.__dict__.get("_layout_")
        if layout is None:
            raise DataError(f"this {type(self).__name__} has no column layout yet; call fit")
        return layout

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        what = type(self).__name__
        if not reset and feature_names_of(X) is not None:
            X = self._same_columns(X)
        table, shaped = to_table(X, what)
        try:
            check_features(self, shaped, reset=reset)
        except (ValueError, TypeError) as exc:
            raise wrap_sklearn_errors(exc) from None
        if reset:
            self._choose_families(X, table)  # names a column no family takes by its dtype
        else:
            if getattr(self, "feature_names_in_", None) is not None:
                table.names = [str(n) for n in self.feature_names_in_]
            refuse_dates(table, what)
        return table

    def _split(self, table: Any) -> list[Any]:
        names = self._feature_names()
        parts: list[Any] = []
        for block in self._layout():
            if FAMILIES[block.family].column_kind == "category":
                parts.append(category_columns(table, block.columns))
            else:
                part = real_columns(table, block.columns, block.family, names)
                if block.family == "bernoulli" and self._family(block).config()["binarize"] is None:
                    check_booleans(part, block.columns, names)
                parts.append(part)
        return parts

    def _block_names(self, names: FeatureNames) -> list[Sequence[str]]:
        return [BlockNames(names, block.columns) for block in self._layout()]

    @property
    def feature_families_(self) -> dict[str, str]:
        """The family of each column: as mapped at fit time, with the held-out choice for the
        columns of an ``"auto"`` block once the model is fitted."""
        recorded = dict(self.__dict__.get("_feature_families", {}))
        if "auto" not in recorded.values() or "stats_" not in self.__dict__:
            return recorded
        names = list(recorded)
        for block, params in zip(self._layout(), self._fitted()[1], strict=True):
            if isinstance(params, AutoParams):
                for position, family in zip(block.columns, params.chosen, strict=True):
                    recorded[names[position]] = family
        return recorded

    @property
    def feature_family_reasons_(self) -> dict[str, str]:
        """Why each column has its family, by column name: its type (a boolean column, text
        or categories), the setting that gave it (``families``, ``numeric``, ``integers``) or,
        for a numeric column under ``numeric="auto"``, the held-out choice with each
        candidate's held-out log-likelihood of the class given that column alone (what
        ``bayeskit inspect`` prints)."""
        families = self.feature_families_
        if not families:  # not fitted: no column has a family yet
            return {}
        names = list(families)
        explicit = set(self._explicit_map(names))
        scores: dict[int, tuple[tuple[str, ...], np.ndarray]] = {}
        if "stats_" in self.__dict__:
            for block, params in zip(self._layout(), self._fitted()[1], strict=True):
                if isinstance(params, AutoParams):
                    for k, position in enumerate(block.columns):
                        scores[position] = (params.candidates, params.scores[:, k])
        out: dict[str, str] = {}
        for j, (name, family) in enumerate(families.items()):
            out[name] = _reason(self, family, j in explicit, scores.get(j))
        return out

    @property
    def category_alpha_(self) -> dict[str, float]:
        """The pseudo-count each categorical and boolean column was smoothed with, by column
        name (with ``alpha="auto"``, the default, the one chosen from the counts)."""
        names = self._feature_names()
        out: dict[str, float] = {}
        fitted = self._fitted()
        for block, family, params in zip(
            self._layout(), fitted.families, fitted.params, strict=True
        ):
            if FAMILIES[block.family].column_kind not in ("category", "binary"):
                continue
            alpha = getattr(params, "alpha", None)
            if alpha is None:  # a number given: the family's own
                alpha = getattr(family, "alpha", None)
            values = np.broadcast_to(np.asarray(alpha, dtype=float), (len(block.columns),))
            for position, value in zip(block.columns, values, strict=True):
                out[names[position]] = float(value)
        return out

    @property
    def categories_(self) -> dict[str, np.ndarray]:
        """The sorted values seen in each categorical column, by column name."""
        names = self._feature_names()
        out: dict[str, np.ndarray] = {}
        for block, stats in zip(self._layout(), self._fitted_summary().blocks, strict=True):
            if isinstance(stats, CategoryCounts):
                for position, values in zip(block.columns, stats.categories, strict=True):
                    out[names[position]] = values
        return out

    # ------------------------------------------------------------------ columns
    def _same_columns(self, X: Any) -> Any:
        """``X`` with its columns in the order of fit; names the missing and extra ones."""
        fitted = getattr(self, "feature_names_in_", None)
        if fitted is None:
            return X
        fitted = [str(n) for n in fitted]
        given = [str(c) for c in X.columns]
        if given == fitted:
            return X
        missing = [c for c in fitted if c not in set(given)]
        extra = [c for c in given if c not in set(fitted)]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unexpected {extra}")
            raise ShapeError(
                f"the columns differ from those the model was trained on: {'; '.join(parts)}"
            )
        return X[fitted] if hasattr(X, "iloc") else X.select(fitted)

    def _choose_families(self, X: Any, table: Any) -> None:
        types = column_types(X, table)
        names = table.names
        chosen: list[tuple[str, dict[str, Any] | None]] = []
        explicit = self._explicit_map(names)
        for j, kind in enumerate(types):
            spec = explicit.get(j)
            if spec is None:
                chosen.append((self._auto_family(kind), None))
            elif isinstance(spec, Family):
                chosen.append((spec.name, copy.deepcopy(spec.config())))
            else:
                chosen.append((_known_family(spec, f"the family of column {names[j]!r}"), None))
        blocks: dict[tuple[str, str], list[int]] = {}
        configs: dict[tuple[str, str], dict[str, Any] | None] = {}
        for j, (family, config) in enumerate(chosen):
            key = (family, repr(sorted(config.items())) if config is not None else "")
            blocks.setdefault(key, []).append(j)
            configs[key] = config
        self._layout_ = tuple(
            _Block(key[0], configs[key], tuple(cols)) for key, cols in blocks.items()
        )
        self._feature_families = {names[j]: family for j, (family, _) in enumerate(chosen)}
        self._category_alpha: float | str = CATEGORY_ALPHA

    def _auto_family(self, kind: str) -> str:
        if kind == "float" or (kind == "integer" and self.integers is None):
            return _known_family(self.numeric, "numeric", kind="real")
        if kind == "integer":
            return _known_family(self.integers, "integers")
        return "bernoulli" if kind == "bool" else "categorical"

    def _explicit_map(self, names: Sequence[str]) -> dict[int, Any]:
        if isinstance(self.families, str):
            if self.families != "auto":
                raise ParameterError(
                    f'families must be "auto" or a dict {{column: family}}, not {self.families!r}'
                )
            return {}
        if not isinstance(self.families, Mapping):
            raise ParameterError(
                'families must be "auto" or a dict {column: family}, not a '
                f"{type(self.families).__name__}"
            )
        position = {name: j for j, name in enumerate(names)}
        out: dict[int, Any] = {}
        for column, spec in self.families.items():
            if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
                if not 0 <= column < len(names):
                    raise ParameterError(
                        f"families names column {column}, but the data has {len(names)} columns"
                    )
                out[int(column)] = spec
            elif str(column) in position:
                out[position[str(column)]] = spec
            else:
                raise ParameterError(
                    f"families names a column {column!r} that is not in the data; the columns "
                    f"are {list(names)}"
                )
        return out

    # ------------------------------------------------------------------ model files
    def layout_state(self) -> dict[str, Any] | None:
        """The column layout and families the fit chose (see the template's method)."""
        return self._state_to_json()

    def set_layout_state(self, state: Any) -> None:
        """Take a stored column layout; a MixedNB file without one is refused."""
        if state is None:
            raise ModelFileError("a MixedNB file needs its fitted state")
        self._state_from_json(state)

    def fitted_record(self) -> dict[str, Any] | None:
        """The family each column of an ``"auto"`` block was given by the held-out choice,
        and the candidates' scores, one entry per such block (by its position): a model
        file stores them, so that a load fits the chosen families without cross-validating
        again (a pass over every candidate and fold, many times the sample's memory). None
        without such a block."""
        choices = []
        fitted = self._fitted()
        for i, params in enumerate(fitted.params):
            if isinstance(params, AutoParams):
                choices.append({"block": i, "chosen": list(params.chosen), "scores": params.scores})
        return {"auto_choice": choices} if choices else None

    def set_fitted_record(self, record: Any, summary: Summary) -> None:
        """Take the choice :meth:`fitted_record` stored for ``summary``'s blocks, refusing
        one that names a block that is not ``"auto"``, a family that is not a candidate, or
        not one family per column. A file written before the choice was stored has none:
        its load makes the choice again, as then (the budget counts that too)."""
        self.__dict__.pop("_known_choice", None)
        if record is None:
            return
        choices = record.get("auto_choice") if isinstance(record, dict) else None
        if not isinstance(choices, list) or set(record) != {"auto_choice"}:
            raise ModelFileError(
                "a MixedNB's fitted record holds its auto_choice, a list of the choices of its "
                f'"auto" blocks; got {str(record)[:120]}'
            )
        families = self._families()
        known: dict[int, tuple[Sample, tuple[str, ...], np.ndarray, dict[str, Any]]] = {}
        for choice in choices:
            i = choice.get("block") if isinstance(choice, dict) else None
            if (
                type(i) is not int
                or not 0 <= i < len(families)
                or i in known
                or set(choice) != {"block", "chosen", "scores"}
            ):
                raise ModelFileError(
                    "each stored auto_choice of a MixedNB names the position of one of its "
                    f"blocks once, with the chosen families and scores; got {str(choice)[:120]}"
                )
            family, stats = families[i], summary.blocks[i]
            if not isinstance(family, Auto) or not isinstance(stats, Sample):
                raise ModelFileError(
                    f"the stored auto_choice names block {i}, whose family is "
                    f'{family.name!r}, not "auto"'
                )
            problem = family.check_choice(stats.n_features, choice["chosen"], choice["scores"])
            if problem is not None:
                raise ModelFileError(f"the stored auto_choice of block {i} is invalid: {problem}")
            chosen = tuple(choice["chosen"])
            known[i] = (stats, chosen, np.asarray(choice["scores"]), family.config())
        self._known_choice = known

    def _state_to_json(self) -> dict[str, Any]:
        return {
            "layout": [
                {"family": b.family, "config": b.config, "columns": list(b.columns)}
                for b in self._layout()
            ],
            "feature_families": [[str(k), v] for k, v in self._feature_families.items()],
            "category_alpha": self._alpha(),
        }

    def _state_from_json(self, state: Any) -> None:
        # what _state_to_json writes, and nothing else (a newer version's part is refused)
        if isinstance(state, dict):
            blocks = state.get("layout")
            parts = [(state, {"layout", "feature_families", "category_alpha"})] + [
                (b, {"family", "config", "columns"})
                for b in (blocks if isinstance(blocks, list) else [])
                if isinstance(b, dict)
            ]
            for part, allowed in parts:
                if not set(part) <= allowed:
                    raise ModelFileError(
                        f"the stored MixedNB state holds {sorted(set(part) - allowed)}, which "
                        "this bayeskit does not write (a file of a newer bayeskit?)"
                    )
        try:
            layout = tuple(
                _Block(
                    _known_family(str(b["family"]), "a stored block", stored=True),
                    None if b["config"] is None else dict(b["config"]),
                    tuple(int(c) for c in b["columns"]),
                )
                for b in state["layout"]
            )
            families = {str(k): str(v) for k, v in state["feature_families"]}
        except (KeyError, TypeError, ValueError, ParameterError) as exc:
            raise ModelFileError(f"the stored MixedNB column layout is invalid: {exc}") from None
        columns = sorted(c for b in layout for c in b.columns)
        if columns != list(range(len(families))):
            raise ModelFileError("the stored MixedNB column layout does not cover every column")
        # Files written before categories were smoothed by Jeffreys' prior store no
        # pseudo-count: they were fitted with Laplace's, and load as they were saved. Their
        # numeric columns cannot: a Gaussian column was floored by the largest variance
        # (today: its own, 'column') and numeric='auto' chose families by another rule, so
        # such a file would predict otherwise than it did; it is refused instead.
        if "category_alpha" not in state:
            changed = [
                b.family
                for b in layout
                if b.family == "auto"
                or (b.family == "gaussian" and "var_floor" not in (b.config or {}))
            ]
            if changed:
                raise ModelFileVersionError(
                    f"this MixedNB was written by an earlier bayeskit (its layout stores no "
                    f"category_alpha), whose {changed[0]!r} columns this version would score "
                    "with other variance floors or choose other families for"
                )
        alpha = state.get("category_alpha", 1.0)
        if alpha != CATEGORY_ALPHA and (
            isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1e6
        ):
            raise ModelFileError(
                f"the stored MixedNB category_alpha is {alpha!r}; expected {CATEGORY_ALPHA!r} or "
                "a number in (0, 1e6)"
            )
        self._layout_ = layout
        self._feature_families = families
        self._category_alpha = alpha if isinstance(alpha, str) else float(alpha)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


#: The pseudo-count of a category (and of a boolean's two values) unless ``options`` set one:
#: chosen for each block of categorical (boolean) columns among 1 (Laplace's, Weka's), 1/2
#: (Jeffreys') and smaller ones down to 1/100 (near e1071's unsmoothed frequencies) by the
#: leave-one-out log-likelihood of the class, exactly from the counts (see
#: docs/guide/mixed-tables.md for what each fixed choice cost).
CATEGORY_ALPHA = "auto"


def _settings(options: Mapping[str, Any], name: str, alpha: float | str) -> dict[str, Any]:
    """The settings of family ``name`` from ``options``, with MixedNB's own defaults: each
    Gaussian column floored by its own variance; categories and booleans smoothed with
    pseudo-count ``alpha`` (chosen from the counts, :data:`CATEGORY_ALPHA`, for a model fitted
    now)."""
    settings = dict(options.get(name, {}))
    if name == "gaussian":
        settings.setdefault("var_floor", "column")
    elif name in ("categorical", "bernoulli"):
        settings.setdefault("alpha", alpha)
    if name == "bernoulli":
        # a boolean column takes True/False (1/0): another number is refused, not read as
        # True above 0 (scikit-learn's BernoulliNB threshold, for counts and frequencies)
        settings.setdefault("binarize", None)
    return settings


def _reason(
    model: MixedNB,
    family: str,
    explicit: bool,
    scores: tuple[tuple[str, ...], np.ndarray] | None,
) -> str:
    """Why a column has ``family`` (see :attr:`MixedNB.feature_family_reasons_`)."""
    if explicit:
        return "given by families="
    if scores is not None:
        candidates, score = scores
        alone = ", ".join(
            f"{c} {v:.1f}" if np.isfinite(v) else f"{c} n/a"
            for c, v in zip(candidates, score, strict=True)
        )
        if not np.isfinite(score).any():
            return "numeric, numeric='auto': too few rows or classes to compare families"
        return (
            "numeric, held-out choice made for the numeric columns together "
            "(numeric='auto'); each family's held-out log-likelihood of the class with this "
            f"column alone: {alone}"
        )
    if family == "bernoulli":
        return "a boolean column"
    if family == "categorical":
        if model.integers == "categorical":
            return "text or categories, or whole numbers (integers='categorical')"
        return "text or categories"
    if model.integers is not None and family == model.integers != model.numeric:
        return f"whole numbers (integers={model.integers!r})"
    return f"numeric (numeric={model.numeric!r})"


def _same_config(a: Any, b: Any) -> bool:
    """Whether two families' configs (JSON-ready dicts) are equal; values that do not
    compare (arrays) count as different."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _names(candidates: Any) -> list[str]:
    """The candidate names that are families (the Auto family names the others)."""
    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        return []
    return [c for c in candidates if isinstance(c, str) and c in FAMILIES]


def _known_family(name: Any, what: str, *, kind: str | None = None, stored: bool = False) -> str:
    """``name`` if it is a family ``what`` may name (one of :func:`named_families`, of kind
    ``kind``; ``stored``: any family, as a model file names its blocks)."""
    accepted = sorted(FAMILIES) if stored else named_families(kind)
    if isinstance(name, str) and name in accepted:
        return name
    of = " of real-valued columns" if kind == "real" else ""
    if isinstance(name, str) and name in FAMILIES:
        problem = f"{name!r}, a family it cannot take by its name alone"
        if kind is not None and FAMILIES[name].column_kind != kind:
            problem = f"{name!r}, which is not a family{of}"
    else:
        problem = (
            f"{name!r}, which is not a family (a family another package defines is known "
            "once that package is imported)"
        )
    raise ParameterError(f"{what} is {problem}; it takes: {', '.join(accepted)}")
