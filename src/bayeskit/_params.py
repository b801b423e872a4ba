"""The estimator base every bayeskit model shares: scikit-learn's estimator API without
importing scikit-learn until one of its features is used.

Importing scikit-learn costs 1-4 s (most of it SciPy's statistics and pandas, which
``sklearn.base`` loads), many times what fitting a table of a few thousand rows takes; so a
model that subclassed ``sklearn.base.BaseEstimator`` made every one-shot process (a script, a
command, the main job) wait for it. What the models need of the base is small and is here:
``get_params``/``set_params`` (nested ``a__b`` as scikit-learn), :func:`clone`, pickling, the
classifier and transformer mixins. What is scikit-learn's own is loaded on first use: the
estimator's text and HTML display (:meth:`ParamNamesOnce.__repr__` prints what scikit-learn
prints), its tags (``__sklearn_tags__``: a :class:`sklearn.utils.Tags`, which scikit-learn's
checks, ``Pipeline`` and ``GridSearchCV`` read) and metadata routing
(``get_metadata_routing``, ``set_fit_request``, …). scikit-learn's ``clone``, ``Pipeline``,
``GridSearchCV`` and ``check_estimator`` take the models as before, and once scikit-learn is
imported (by anyone) every model is also a ``sklearn.base.BaseEstimator`` (:func:`_adopt`):
``isinstance(model, BaseEstimator)`` holds wherever code can name the class.

Parameter names are read from ``__init__`` once per class: scikit-learn reads them from the
signature (:func:`inspect.signature`) at every ``get_params`` and ``clone``, ~0.1 ms each; a
text model clones its vectorizer and count model for every fit, count and learned message, so
in a model service that learns one message at a time the signatures took a tenth of a learn's
time. A signature does not change once the class exists.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import math
import sys
import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import UnknownSettingError

__all__ = [
    "ClassNamePrefixFeaturesOutMixin",
    "ClassifierMixin",
    "ParamNamesOnce",
    "TransformerMixin",
    "clone",
    "is_classifier",
]

_NAMES: dict[type, tuple[str, ...]] = {}
_ANY_KEYWORD: dict[type, bool] = {}
_VIEWS: dict[type, type] = {}
_LOCK = threading.Lock()


if TYPE_CHECKING:  # what it becomes once scikit-learn is imported (to type checkers: Any)
    from sklearn.base import BaseEstimator as _Root
else:

    class _Root:
        """:class:`ParamNamesOnce`'s base until scikit-learn is imported (:func:`_adopt`)."""


def _unknown_name(key: str, valid: dict[str, Any]) -> bool:
    """Whether ``key`` names no parameter: a nested name (``model__alpha``) is looked for
    among its part's names too (a part left at None is checked when it is made)."""
    head, _, rest = key.partition("__")
    if head not in valid:
        return True
    part = valid[head]
    return (
        bool(rest)
        and hasattr(part, "get_params")
        and (rest.partition("__")[0] not in part.get_params(deep=True))
    )


class ParamNamesOnce(_Root):
    """An estimator (scikit-learn's API) whose ``_get_param_names`` is computed once per
    class, and which imports scikit-learn only for scikit-learn's own features (see the
    module docstring)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # Python's "unexpected keyword argument 'alfa'" names neither the settings there
        # are nor where a setting of a part goes (min_df of a text model's vectorizer).
        if kwargs and not _takes_any_keyword(cls):
            names = cls._get_param_names()
            unknown = [name for name in kwargs if name not in names]
            if unknown:
                name = unknown[0]
                raise UnknownSettingError(unknown_setting(cls, name, kwargs[name], names))
        return super().__new__(cls)

    @classmethod
    def setting_hint(cls, name: str, value: Any) -> str:
        """Where a keyword ``name=value`` that is none of this class's settings belongs, for
        the refusal of ``cls(name=value)`` ("" when there is nothing to add to the names
        of the settings)."""
        return ""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        names = _NAMES.get(cls)
        if names is None:
            names = _init_param_names(cls)
            with _LOCK:
                _NAMES[cls] = names
        return list(names)

    def get_params(self, deep: bool = True) -> Any:  # a dict (typed as scikit-learn's)
        """Get parameters for this estimator.

        Parameters
        ----------
        deep : bool, default=True
            If True, also the parameters of contained estimators (``name__param``).

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        out: dict[str, Any] = {}
        for key in self._get_param_names():
            value = getattr(self, key)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
            out[key] = value
        return out

    def set_params(self, **params: Any) -> Any:
        """Set the parameters of this estimator (``name__param`` for a contained one).

        Parameters
        ----------
        **params : dict
            Estimator parameters.

        Returns
        -------
        self : estimator instance
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        unknown = [k for k in params if _unknown_name(k, valid)]
        if unknown:  # before any is set: a refused call changes nothing
            from .errors import ParameterError

            head, _, rest = unknown[0].partition("__")
            if head in valid:  # a part's name
                part = valid[head]
                raise ParameterError(
                    f"Invalid parameter {rest.partition('__')[0]!r} for estimator {part} "
                    f"({head}). Valid parameters are: {sorted(part.get_params(deep=False))!r}."
                )
            raise ParameterError(
                f"Invalid parameter {head!r} for estimator {self}. "
                f"Valid parameters are: {self._get_param_names()!r}."
            )
        waiting = _waiting_for_fit(self, params, valid)
        nested: defaultdict[str, dict[str, Any]] = defaultdict(dict)
        for key, value in params.items():
            key, delim, sub_key = key.partition("__")
            if delim:
                nested[key][sub_key] = value
            else:
                setattr(self, key, value)
                valid[key] = value
        for key, sub_params in nested.items():
            valid[key].set_params(**sub_params)
        if waiting:
            self.__dict__[_WAITING] = waiting
        elif waiting is not None:
            self.__dict__.pop(_WAITING, None)
        return self

    def __sklearn_clone__(self) -> Any:
        return _clone_parametrized(self)

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        if "sklearn" not in sys.modules:  # so its display settings are the defaults
            text = one_line_repr(self)
            if text is not None:
                return text
        return str(sklearn_view(self, deep=True).__repr__(N_CHAR_MAX))

    @property
    def _repr_html_(self) -> Any:
        return _sklearn_member(self, "_repr_html_", deep=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return _sklearn_member(self, "_repr_mimebundle_", deep=True)(**kwargs)

    def get_metadata_routing(self) -> Any:
        """scikit-learn's metadata routing of this estimator (see
        :func:`sklearn.utils.metadata_routing.get_routing_for_object`)."""
        return _sklearn_member(self, "get_metadata_routing", deep=False)()

    def _get_metadata_request(self) -> Any:
        return _sklearn_member(self, "_get_metadata_request", deep=False)()

    def __getattr__(self, name: str) -> Any:
        """scikit-learn's ``set_{method}_request`` (metadata routing) of the methods that take
        metadata, returning the estimator; for any other name, the error of the lookup that
        failed (a property's own, such as :class:`~bayeskit.errors.NotFittedError`)."""
        if name.startswith("set_") and name.endswith("_request") and not _is_view(self):
            theirs = getattr(sklearn_view(self, deep=False), name)

            def set_request(**kwargs: Any) -> Any:
                theirs(**kwargs)
                return self

            set_request.__doc__ = theirs.__doc__
            return set_request
        if hasattr(type(self), name):  # a property that raised AttributeError: raise it again
            return object.__getattribute__(self, name)
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
        )


class ClassifierMixin:
    """A classifier: scikit-learn's classifier tags and ``score`` (mean accuracy)."""

    _estimator_type = "classifier"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``self.predict(X)`` against ``y``
        (:func:`sklearn.metrics.accuracy_score`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        from sklearn.metrics import accuracy_score

        predicted = self.predict(X)  # type: ignore[attr-defined]
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))


class TransformerMixin:
    """A transformer: scikit-learn's transformer tags and ``fit_transform``."""

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.transformer_tags = TransformerTags()
        return tags

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """Fit to ``X`` (and ``y``), then transform ``X``."""
        if y is None:
            return self.fit(X, **fit_params).transform(X)  # type: ignore[attr-defined]
        return self.fit(X, y, **fit_params).transform(X)  # type: ignore[attr-defined]


class ClassNamePrefixFeaturesOutMixin:
    """A transformer whose output columns are named ``<classname><i>`` (scikit-learn's mixin
    of that name), with scikit-learn's ``set_output``: ``transform`` returns a pandas or polars
    data frame when asked, there or by ``sklearn.set_config(transform_output=...)``. A
    subclass defines ``_n_features_out`` and returns ``self._output(result, X)`` from
    ``transform``."""

    #: scikit-learn's mark of a transformer whose ``transform`` output it may wrap
    _sklearn_auto_wrap_output_keys = frozenset({"transform"})

    def get_feature_names_out(self, input_features: Any = None) -> Any:
        """Output feature names, ``<classname><i>`` (scikit-learn's).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Only checked against the input's feature names.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        from sklearn.base import ClassNamePrefixFeaturesOutMixin as Theirs

        return Theirs.get_feature_names_out(self, input_features)

    def set_output(self, *, transform: str | None = None) -> Any:
        """The container ``transform`` returns: "default" (an array), "pandas", "polars" or
        None (unchanged); scikit-learn's ``set_output``."""
        if transform is not None:
            self.__dict__.setdefault("_sklearn_output_config", {})["transform"] = transform
        return self

    def _output(self, result: Any, X: Any) -> Any:
        """``transform``'s ``result`` in the container asked for (an array unless asked:
        without scikit-learn imported, nobody asked through its settings)."""
        if "sklearn" not in sys.modules and "_sklearn_output_config" not in self.__dict__:
            return result
        from sklearn.utils._set_output import _wrap_data_with_container

        return _wrap_data_with_container("transform", result, X, self)


def is_classifier(estimator: Any) -> bool:
    """Whether ``estimator`` is a classifier (:func:`sklearn.base.is_classifier`, read
    without importing scikit-learn for a bayeskit estimator)."""
    if isinstance(estimator, ParamNamesOnce):
        return isinstance(estimator, ClassifierMixin)
    from sklearn.base import is_classifier as theirs

    return bool(theirs(estimator))


def clone(estimator: Any, *, safe: bool = True) -> Any:
    """A new unfitted estimator with the same parameters: :func:`sklearn.base.clone`, without
    importing scikit-learn for bayeskit's estimators (and what they hold)."""
    if hasattr(estimator, "__sklearn_clone__") and not inspect.isclass(estimator):
        if isinstance(estimator, ParamNamesOnce):
            return estimator.__sklearn_clone__()
        from sklearn.base import clone as theirs  # another library's estimator

        return theirs(estimator, safe=safe)
    return _clone_parametrized(estimator, safe=safe)


def _clone_parametrized(estimator: Any, *, safe: bool = True) -> Any:
    """scikit-learn's ``_clone_parametrized``: the class called with its parameters (each
    cloned), the metadata requests and output configuration copied."""
    kind = type(estimator)
    if kind is dict:
        return {k: clone(v, safe=safe) for k, v in estimator.items()}
    if kind in (list, tuple, set, frozenset):
        return kind([clone(e, safe=safe) for e in estimator])
    if not hasattr(estimator, "get_params") or isinstance(estimator, type):
        if not safe:
            return copy.deepcopy(estimator)
        if isinstance(estimator, type):
            raise TypeError(
                "Cannot clone object. You should provide an instance of scikit-learn "
                "estimator instead of a class."
            )
        raise TypeError(
            f"Cannot clone object '{estimator!r}' (type {type(estimator)}): it does not seem "
            "to be a scikit-learn estimator as it does not implement a 'get_params' method."
        )
    params = estimator.get_params(deep=False)
    for name, param in params.items():
        params[name] = clone(param, safe=False)
    new = estimator.__class__(**params)
    copy_sklearn_state(estimator, new, ("_metadata_request",))
    kept = new.get_params(deep=False)
    for name in params:
        if params[name] is not kept[name]:
            raise RuntimeError(
                f"Cannot clone object {estimator}, as the constructor either does not set or "
                f"modifies parameter {name}"
            )
    copy_sklearn_state(estimator, new, ("_sklearn_output_config",))
    return new


def copy_sklearn_state(source: Any, target: Any, names: tuple[str, ...]) -> None:
    """Copy scikit-learn's own state from one estimator to its clone, as its ``clone`` does:
    the attributes its ``set_*_request`` (``_metadata_request``) and ``set_output``
    (``_sklearn_output_config``) keep on an estimator, named by scikit-learn, not bayeskit."""
    state = vars(source)
    for name in names:
        if name in state:
            setattr(target, name, copy.deepcopy(state[name]))


def _takes_any_keyword(cls: type) -> bool:
    """Whether ``cls.__init__`` takes ``**kwargs`` (then no keyword is refused up front)."""
    takes = _ANY_KEYWORD.get(cls)
    if takes is None:
        init = cls.__init__  # type: ignore[misc]
        takes = init is not object.__init__ and any(
            p.kind == p.VAR_KEYWORD for p in inspect.signature(init).parameters.values()
        )
        with _LOCK:
            _ANY_KEYWORD[cls] = takes
    return takes


def unknown_setting(
    cls: Any, name: str, value: Any, names: Sequence[str], *, called: str = ""
) -> str:
    """The refusal of ``cls(name=value)`` (``called``: the maker called, ``cls.twcnb``),
    naming the settings ``names`` there are and where ``name`` belongs, or the nearest."""
    close = difflib.get_close_matches(name, names, n=1)
    hint = cls.setting_hint(name, value) or (f"; did you mean {close[0]}=?" if close else "")
    return (
        f"{cls.__name__}{'.' + called if called else ''}() got {name}=, which is not one of "
        f"its settings ({', '.join(names) or 'it has none'}){hint}"
    )


def _init_param_names(cls: type) -> tuple[str, ...]:
    """The sorted keyword parameters of ``cls.__init__`` (scikit-learn's rule)."""
    init = cls.__init__  # type: ignore[misc]
    if init is object.__init__:
        return ()
    signature = inspect.signature(init)
    parameters = [
        p for p in signature.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD
    ]
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            raise RuntimeError(
                "scikit-learn estimators should always specify their parameters in the "
                f"signature of their __init__ (no varargs). {cls} with constructor "
                f"{signature} doesn't  follow this convention."
            )
    return tuple(sorted(p.name for p in parameters))


#: the values scikit-learn's display shows as ``repr`` does
_SCALARS = (str, bool, int, float, type(None))
#: at most this long, scikit-learn's display is one line (its printer's width)
_WIDTH = 80


def one_line_repr(estimator: ParamNamesOnce) -> str | None:
    """What scikit-learn's display (with its default settings) prints for an estimator whose
    display is one line of settings that are numbers, strings, None or such estimators:
    ``Name(param=value, …)`` with the parameters that differ from the defaults, in name
    order; None for any other (the display is then scikit-learn's own)."""
    text = _settings_repr(estimator)
    return text if text is not None and len(text) <= _WIDTH else None


def _settings_repr(estimator: ParamNamesOnce) -> str | None:
    defaults = _defaults(type(estimator))
    shown = []
    for name, value in estimator.get_params(deep=False).items():
        if isinstance(value, ParamNamesOnce):
            text = _settings_repr(value)
        elif type(value) in _SCALARS:
            text = repr(value)
        else:
            return None
        if text is None:
            return None
        default = defaults.get(name, inspect.Parameter.empty)
        if repr(value) != repr(default) and not (_is_nan(default) and _is_nan(value)):
            shown.append(f"{name}={text}")
    return f"{type(estimator).__name__}({', '.join(shown)})"


def _defaults(cls: type) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()  # type: ignore[misc]
    }


def _is_nan(value: Any) -> bool:
    return type(value) is float and math.isnan(value)


def _is_view(estimator: Any) -> bool:
    return "_sklearn_view_of" in type(estimator).__dict__


def sklearn_view(estimator: ParamNamesOnce, *, deep: bool) -> Any:
    """``estimator`` as an instance of a subclass of its class and of
    :class:`sklearn.base.BaseEstimator`, for scikit-learn's display and metadata routing,
    which read ``isinstance(…, BaseEstimator)`` and its members. ``deep=False``: the view
    shares the estimator's attributes (a request set on it is the estimator's);
    ``deep=True``: a copy of them with contained bayeskit estimators as views too (what the
    display of nested estimators needs)."""
    cls = type(estimator)
    view_cls = _VIEWS.get(cls)
    if view_cls is None:
        from sklearn.base import BaseEstimator

        namespace = {
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__,
            "__repr__": BaseEstimator.__repr__,
            "_sklearn_view_of": cls,
        }
        view_cls = type(cls.__name__, (cls, BaseEstimator), namespace)
        with _LOCK:
            _VIEWS[cls] = view_cls
    view: Any = object.__new__(view_cls)
    if deep:
        view.__dict__.update(
            (k, sklearn_view(v, deep=True) if isinstance(v, ParamNamesOnce) else v)
            for k, v in vars(estimator).items()
        )
    else:
        view.__dict__ = estimator.__dict__  # shared: what the view sets, the estimator has
    return view


def _sklearn_member(estimator: ParamNamesOnce, name: str, *, deep: bool) -> Any:
    """scikit-learn's ``BaseEstimator`` member ``name``, bound to a view of ``estimator`` (on
    a view itself: the member its ``BaseEstimator`` base defines)."""
    view = estimator if _is_view(estimator) else sklearn_view(estimator, deep=deep)
    return getattr(super(ParamNamesOnce, view), name)


def _adopt(base: type) -> None:
    """Make scikit-learn's ``BaseEstimator`` the base of :class:`ParamNamesOnce` (so of every
    bayeskit estimator): what scikit-learn and other libraries check with ``isinstance`` holds
    from the moment its class exists. Everything bayeskit's base defines comes first in the
    method order, as before; what it does not (the HTML display's helpers, parameter
    validation) is scikit-learn's."""
    with _LOCK:
        if ParamNamesOnce.__bases__ == (_Root,):
            ParamNamesOnce.__bases__ = (base,)


class _WhenSklearnLoads:
    r"""An import hook asked first for ``sklearn.base`` only: it lets the module load as it
    would, then :func:`_adopt`\ s its ``BaseEstimator``, and removes itself. Any other module
    (and ``sklearn.base`` when not found on the path: a frozen application) is left to the
    other finders."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "sklearn.base":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        loader = None if spec is None else spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        load = loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            _adopt(module.BaseEstimator)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "sklearn.base" in sys.modules:
    _adopt(sys.modules["sklearn.base"].BaseEstimator)
else:
    sys.meta_path.insert(0, _WhenSklearnLoads())


#: On a fitted model: the settings set_params changed that its statistics were learned
#: under, each with the value it was fitted with (a contract's ``refit_settings``).
_WAITING = "_refit_settings"


def _waiting_for_fit(model: Any, params: dict[str, Any], valid: dict[str, Any]) -> Any:
    """The settings of ``params`` a fitted ``model`` would wait for a fit after (with the
    values it was fitted with), those waiting already included; a setting set back to its
    fitted value waits no more. None when the model is not fitted or declares none."""
    declared = getattr(type(model), "contract", None)
    if declared is None or not declared.refit_settings:
        return None
    waiting = dict(model.__dict__.get(_WAITING, {}))
    fitted = getattr(model, "__sklearn_is_fitted__", None)
    if not waiting and (fitted is None or not fitted()):
        return None
    for name, value in params.items():
        before = waiting[name][0] if name in waiting else valid.get(name)
        if not _learned(declared, name, before, value, valid):
            waiting.pop(name, None)  # (a part set back to one of its fitted kind and settings)
            continue
        if _same(value, before):
            waiting.pop(name, None)
        else:
            waiting[name] = (before, value)
    return waiting


def _learned(declared: Any, name: str, before: Any, value: Any, valid: dict[str, Any]) -> bool:
    """Whether the setting ``name`` is one the statistics were learned under: declared so by
    the model, by the contract of the part it belongs to (``model__binarize`` of a text
    model's BernoulliNB), or a part replaced by one of another kind or other learned
    settings."""
    if declared.needs_refit(name):
        return True
    head, nested, rest = name.partition("__")
    if nested:
        inner = getattr(type(valid.get(head)), "contract", None)
        return inner is not None and inner.needs_refit(rest)
    inner = getattr(type(before), "contract", None)
    if inner is None or not inner.refit_settings:
        return False
    if type(value) is not type(before):
        return True
    old, new = before.get_params(), value.get_params()
    return any(
        not _same(new.get(setting), old.get(setting))
        for setting in inner.refit_settings
        if "__" not in setting
    )


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):  # arrays and the like: not known to be the same
        return False


def refuse_while_waiting(model: Any) -> None:
    """Raise :class:`~bayeskit.errors.NotFittedError` when a setting ``model``'s statistics
    were learned under (its contract's ``refit_settings``) changed since it was fitted —
    by ``set_params``, or on its part in place (``model.vectorizer.set_params(…)``) —
    naming the setting."""
    waiting = model.__dict__.get(_WAITING)
    if waiting:
        name, (before, value) = next(iter(waiting.items()))
        how = "set_params"
    else:
        changed = _changed_in_place(model)
        if changed is None:
            return
        name, before, value = changed
        how = f"{name.partition('__')[0]}.set_params (on the part itself)"
    from .errors import NotFittedError

    raise NotFittedError(
        f"This {type(model).__name__} was fitted with {name}={before!r}, which {how} "
        f"changed to {value!r}: its statistics were learned under the old value, so it needs "
        f"'fit' again (or {name} set back)"
    )


def waits_for_fit(model: Any) -> bool:
    """Whether a setting the fitted ``model`` was learned under changed since (by
    ``set_params``, or on its part in place)."""
    return bool(model.__dict__.get(_WAITING)) or _changed_in_place(model) is not None


#: On a fitted model with parts given as objects: the learned settings of those parts
#: (``part__setting``) as they were at the fit, to see a part changed in place.
_PARTS_AT_FIT = "_parts_at_fit"


def part_settings(model: Any) -> dict[str, Any]:
    """The settings of ``model``'s parts given as objects (``vectorizer__lowercase``, …), by
    nested name: what a part's own ``set_params`` changes without the model's seeing it."""
    out: dict[str, Any] = {}
    for head, part in model.get_params(deep=False).items():
        if part is None or isinstance(part, type) or not hasattr(part, "get_params"):
            continue
        out.update((f"{head}__{name}", v) for name, v in part.get_params(deep=False).items())
    return out


def same_settings(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two :func:`part_settings` are the same."""
    return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)


def _parts_learned(model: Any, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The learned settings of ``model``'s parts (declared by the model, ``vectorizer__…``,
    or by the part's own contract), by nested name; parts left at None have none
    (``settings``: its :func:`part_settings`, when read already)."""
    declared = getattr(type(model), "contract", None)
    if declared is None or not declared.refit_settings:
        return {}
    out: dict[str, Any] = {}
    for key, value in (part_settings(model) if settings is None else settings).items():
        head, _, name = key.partition("__")
        inner = getattr(type(getattr(model, head)), "contract", None)
        if declared.needs_refit(key) or (inner is not None and inner.needs_refit(name)):
            out[key] = value
    return out


def _changed_in_place(model: Any) -> tuple[str, Any, Any] | None:
    """The first learned setting of a part that changed since the fit without ``set_params``
    of the model seeing it, as (name, value at the fit, value now); else None."""
    at_fit = model.__dict__.get(_PARTS_AT_FIT)
    if not at_fit:
        return None
    now = _parts_learned(model)
    for name, before in at_fit.items():
        value = now.get(name, before)
        if not _same(value, before):
            return name, before, value
    return None


def fitted_again(model: Any, settings: dict[str, Any] | None = None) -> None:
    """Forget the settings a fitted model waited for: it was fitted with them now (and its
    parts' learned settings are those it compares with later; ``settings``: its
    :func:`part_settings`, when read already)."""
    model.__dict__.pop(_WAITING, None)
    parts = _parts_learned(model, settings)
    if parts:
        model.__dict__[_PARTS_AT_FIT] = parts
    else:
        model.__dict__.pop(_PARTS_AT_FIT, None)
