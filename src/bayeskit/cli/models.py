"""Which model the commands build for the data, how they describe it, and how prediction
input is matched to a model's training columns."""

from __future__ import annotations

import os
import stat
from typing import Any

import numpy as np
import typer

from ..io.columns import align_columns as align_columns
from ..io.columns import column_kinds as column_kinds
from ..io.columns import conform as conform
from ..io.columns import missing_drops_out as missing_drops_out
from ..io.columns import schema_kinds as schema_kinds
from ..io.columns import training_columns as training_columns
from ..io.describe import describe as describe
from ..io.describe import is_email_model as is_email_model
from ..io.describe import is_text_model as is_text_model
from ..io.readers import ReadError, list_names
from .data import Labelled
from .options import DEFAULT_TEXT_MODELS as DEFAULT_TEXT_MODELS
from .options import MODEL_ALIASES as MODEL_ALIASES
from .options import MODELS as MODELS
from .options import NUMERIC_MODELS as NUMERIC_MODELS
from .options import TEXT_MODELS as TEXT_MODELS
from .options import AlphaOpt as AlphaOpt
from .options import IntegersOpt as IntegersOpt
from .options import ModelOpt as ModelOpt
from .options import canonical_model as canonical_model
from .output import note

#: Bayesian network classifiers: any table (numbers are cut into MDL intervals).
NETWORK_MODELS = ("tan", "aode", "kdb")


def _network_class(choice: str) -> Any:
    from ..bayesnet import AODEClassifier, KDBClassifier, TANClassifier

    return {"tan": TANClassifier, "aode": AODEClassifier, "kdb": KDBClassifier}[choice]


def _numeric_class(choice: str) -> Any:
    from .. import discriminant, naive_bayes
    from ..mixture import GaussianMixtureClassifier
    from ..naive_bayes.discretized import DiscretizedNB
    from ..naive_bayes.gaussian import GaussianNB
    from ..naive_bayes.kernel import KernelNB
    from ..naive_bayes.poisson import PoissonNB
    from ..parzen import ParzenWindowClassifier

    classes: dict[str, Any] = {
        # a fixed seed: the same data gives the same mixture every time
        "gmm": lambda: GaussianMixtureClassifier(random_state=0),
        "parzen": ParzenWindowClassifier,
        "gaussian": GaussianNB,
        "kernel": KernelNB,
        "discretized": DiscretizedNB,
        "poisson": PoissonNB,
        "multinomial": naive_bayes.MultinomialNB,
        "bernoulli": naive_bayes.BernoulliNB,
        "complement": naive_bayes.ComplementNB,
        # discriminant analysis: Fisher's LDA, QDA, Friedman's RDA (numeric columns, no NaN)
        "lda": discriminant.LinearDiscriminantAnalysis,
        "qda": discriminant.QuadraticDiscriminantAnalysis,
        "rda": discriminant.RegularizedDiscriminantAnalysis,
    }
    return classes[choice]


def _spam_labels(y: np.ndarray) -> tuple[Any, Any] | None:
    """(ham label, spam label) when the two classes are ham and spam (any case)."""
    classes = np.unique(y).tolist()
    lowered = [str(c).lower() for c in classes]
    if len(classes) == 2 and sorted(lowered) == ["ham", "spam"]:
        return classes[lowered.index("ham")], classes[lowered.index("spam")]
    return None


def check_model_options(choice: str, alpha: float | None, integers: str | None) -> None:
    """Refuse ``--model``, ``--alpha`` and ``--integers`` values that no data could make
    right: the commands call this before they read any data."""
    if choice not in MODELS:
        from difflib import get_close_matches

        close = get_close_matches(choice.lower(), MODELS, n=2, cutoff=0.5)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise typer.BadParameter(
            f"{choice!r} is not a model; {hint}choose one of: {', '.join(MODELS)}",
            param_hint="--model",
        )
    if alpha is not None and not alpha >= 0:  # (also NaN, for callers past the command line)
        raise typer.BadParameter(f"must be at least 0, got {alpha}", param_hint="--alpha")
    if integers not in (None, "gaussian", "poisson", "categorical"):
        raise typer.BadParameter(
            f"{integers!r}; choose gaussian, poisson or categorical", param_hint="--integers"
        )


def build_model(
    choice: str,
    data: Labelled,
    alpha: float | None,
    integers: str | None = None,
    *,
    semi_supervised: bool = False,
    settings: dict[str, Any] | None = None,
) -> Any:
    """An unfitted model for ``data`` (``--model choice``; ``--integers``; ``--set``:
    ``settings``, from :func:`parse_settings`)."""
    check_model_options(choice, alpha, integers)
    if data.kind in ("text", "email"):
        model = _text_model(choice, data, alpha, semi_supervised)
    else:
        model = _table_model(choice, data, alpha, integers)
    return apply_settings(model, settings or {})


def parse_settings(
    specs: list[str] | None, alpha: float | None = None, integers: str | None = None
) -> dict[str, Any]:
    """``--set NAME=VALUE`` options as settings: VALUE read as JSON (a number, true, null,
    a list…), else as text. Refused before any data is read: a spec that is not
    NAME=VALUE, a name given twice, and a setting another option gives too."""
    import json

    settings: dict[str, Any] = {}
    for spec in specs or ():
        name, sep, raw = spec.partition("=")
        name = name.strip()
        if not sep or not name:
            raise typer.BadParameter(
                f"{spec!r} is not NAME=VALUE; write e.g. --set k=2", param_hint="--set"
            )
        if name in settings:
            raise typer.BadParameter(f"{name!r} is given twice", param_hint="--set")
        try:
            settings[name] = json.loads(raw)
        except json.JSONDecodeError:
            settings[name] = raw.strip()
    _check_family_names(settings)
    for option, name, value in (("--alpha", "alpha", alpha), ("--integers", "integers", integers)):
        if value is not None and name in settings:
            raise typer.BadParameter(
                f"{name} is given by {option} and by --set {name}=…; give it once",
                param_hint="--set",
            )
    return settings


def apply_settings(model: Any, settings: dict[str, Any]) -> Any:
    """``model`` with ``settings`` (``--set``): a name it does not have, or a part of it
    (which --set cannot build), is refused naming the settings it has; a value it does not
    take is refused by the model when it is fitted, naming the setting and what it takes."""
    if not settings:
        return model
    from ..errors import BayeskitError

    own = model.get_params(deep=True)
    # a part (a text model's vectorizer or count model) is set through its own settings
    accepted = sorted(n for n, v in own.items() if not hasattr(v, "get_params"))
    for name in settings:
        if name not in accepted:
            parts = " (set a part's settings as part__name)" if name in own else ""
            raise typer.BadParameter(
                f"{type(model).__name__} has no setting {name!r}{parts}; its settings are: "
                f"{', '.join(accepted)}",
                param_hint="--set",
            )
    try:
        return model.set_params(**settings)
    except (BayeskitError, ValueError, TypeError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--set") from None


#: Settings that name the family of a kind of column (MixedNB's), and the kind of column
#: their family must take (None: any; ``integers`` may also be null, "as numeric").
_FAMILY_SETTINGS = {"numeric": "real", "integers": None}


def _check_family_names(settings: dict[str, Any]) -> None:
    """Refuse, before any data is read, ``--set numeric=…`` or ``--set integers=…`` (MixedNB's
    settings) naming what is not a family those columns can take, listing the ones they
    can."""
    if not any(name in settings for name in _FAMILY_SETTINGS):
        return
    from .. import mixture  # noqa: F401  (registers the gaussian_mixture family)
    from ..families import named_families

    for name, kind in _FAMILY_SETTINGS.items():
        if name not in settings:
            continue
        value = settings[name]
        accepted = named_families(kind)
        if value in accepted or (value is None and name == "integers"):
            continue
        columns = "numeric columns" if kind == "real" else "columns of whole numbers"
        also = " (or null: as numeric)" if name == "integers" else ""
        raise typer.BadParameter(
            f"{name}={value!r} is not a family of {columns}; --set {name}= takes one of: "
            f"{', '.join(accepted)}{also}",
            param_hint="--set",
        )


def _text_model(choice: str, data: Labelled, alpha: float | None, semi_supervised: bool) -> Any:
    from .. import naive_bayes
    from ..text import TextClassifier, TextVectorizer

    if choice not in TEXT_MODELS:
        raise typer.BadParameter(
            f"{choice!r} does not read text; for text use one of: {', '.join(TEXT_MODELS)}",
            param_hint="--model",
        )
    labels = _spam_labels(data.y)
    # The library's defaults (chosen by cross-validation, benchmarks/accuracy.md) for "auto"
    # and "text"; EM over unlabelled documents keeps Nigam et al.'s counts + MultinomialNB,
    # whose posteriors it learns from (ComplementNB's are not a generative model's).
    if choice in DEFAULT_TEXT_MODELS and not semi_supervised:
        return _default_text_model(data, alpha, labels)
    kind: dict[str, type] = {
        "bernoulli": naive_bayes.BernoulliNB,
        "complement": naive_bayes.ComplementNB,
    }
    cls = kind.get(choice, naive_bayes.MultinomialNB)
    model = cls() if alpha is None else cls(alpha=alpha)
    analyzer = "email" if data.kind == "email" else "word"
    output = "binary" if choice == "bernoulli" else "counts"
    vectorizer = TextVectorizer(analyzer=analyzer, output=output)
    if labels is not None:
        return _uncalibrated_spam_filter(vectorizer, model, labels)
    return TextClassifier(vectorizer=vectorizer, model=model)


def _default_text_model(data: Labelled, alpha: float | None, labels: tuple[Any, Any] | None) -> Any:
    """TextClassifier()'s or SpamFilter()'s settings, whatever the data: their "auto" analyzer
    reads a raw e-mail as an e-mail, so the command line and the library build the same model
    from the same folder."""
    from ..text import SpamFilter, TextClassifier

    cls = TextClassifier if labels is None else SpamFilter
    vectorizer = cls.default_vectorizer()
    model = cls.default_model()
    if alpha is not None:
        model.set_params(alpha=alpha)
    if labels is not None:
        # calibrated as SpamFilter() is: ``fit`` on out-of-fold scores; ``bayeskit train``,
        # which adds batches, on held-out scores of a second pass (streaming.calibrate)
        return SpamFilter(
            vectorizer=vectorizer, model=model, ham_label=labels[0], spam_label=labels[1]
        )
    return TextClassifier(vectorizer=vectorizer, model=model)


def _uncalibrated_spam_filter(vectorizer: Any, model: Any, labels: tuple[Any, Any]) -> Any:
    from ..text import SpamFilter

    # scikit-learn's pipeline, its probabilities included (no calibration)
    return SpamFilter(
        vectorizer=vectorizer,
        model=model,
        ham_label=labels[0],
        spam_label=labels[1],
        calibration_folds=None,
    )


def _table_model(choice: str, data: Labelled, alpha: float | None, integers: str | None) -> Any:
    import polars as pl

    from .. import naive_bayes

    if choice == "text":
        raise typer.BadParameter(
            "the data is a table: name its text column with --text COLUMN, or choose another model",
            param_hint="--model",
        )
    if choice in ("auto", "mixed"):
        model: Any = naive_bayes.MixedNB(families="auto", integers=integers)
    elif choice == "categorical":
        model = naive_bayes.CategoricalNB()
    elif choice in NETWORK_MODELS:
        model = _network_class(choice)()
    else:
        schema = data.X.schema
        wrong = [c for c, t in schema.items() if not (t.is_numeric() or t == pl.Boolean)]
        if wrong:
            raise not_numeric(data.source, choice, data.X, wrong)
        model = _numeric_class(choice)()
    if alpha is not None:
        if "alpha" not in model.get_params():
            raise typer.BadParameter(
                f"{type(model).__name__} has no smoothing parameter", param_hint="--alpha"
            )
        model.set_params(alpha=alpha)
    return model


def not_numeric(
    source: str, choice: str, frame: Any, wrong: list[str], first_row: int = 0
) -> ReadError:
    """The refusal of ``--model choice`` (numbers only) for a table whose columns ``wrong``
    are not numeric: the first value that is not a number, by its row of the file (from 1;
    ``first_row``: the rows before ``frame``), when ``frame`` holds one."""
    fix = "--model auto reads a table of mixed columns"
    found = first_not_number(frame, wrong)
    if found is not None:
        column, row, value = found
        return ReadError(
            f"{source}, row {first_row + row + 1}: column {column!r} holds {value!r}; "
            f"--model {choice} takes numbers only ({fix})",
            path=source,
            column=column,
        )
    return ReadError(
        f"{source}: --model {choice} takes numeric columns; {list_names(wrong, 10)} "
        f"hold{'s' if len(wrong) == 1 else ''} other values ({fix})",
        path=source,
        column=wrong[0],
    )


def first_not_number(frame: Any, columns: list[str]) -> tuple[str, int, Any] | None:
    """(column, row from 0, value) of the first value of ``columns`` that does not read as a
    number, row by row; None when every value does (or ``frame`` has no rows)."""
    import polars as pl

    best: tuple[str, int, Any] | None = None
    for column in columns:
        values = frame.get_column(column)
        if values.dtype == pl.String:
            numbers = values.str.strip_chars().cast(pl.Float64, strict=False)
        else:
            numbers = values.cast(pl.Float64, strict=False)
        bad = (numbers.is_null() & values.is_not_null()).arg_true()
        if len(bad) and (best is None or int(bad[0]) < best[1]):
            best = (column, int(bad[0]), values[int(bad[0])])
    return best


def fill_absent(
    frame: Any, model: Any, expected: list[str] | None, source: str, ignore: list[str]
) -> Any:
    """``frame`` with each training column it lacks added as all missing, with a note, when
    the model lets missing values drop out (:func:`missing_drops_out`); else unchanged (then
    :func:`align_columns` names the absent column). A frame that also holds a column the model
    does not know (nor ``ignore``) is left as it is: a layout that differs both ways is more
    likely the wrong file, and :func:`align_columns` names both."""
    import polars as pl

    if expected is None:
        return frame
    absent = [c for c in expected if c not in frame.columns]
    known = {*expected, *ignore}
    if not absent or not missing_drops_out(model) or any(c not in known for c in frame.columns):
        return frame
    note(
        f"{source} has no column {list_names([repr(c) for c in absent], 10)}: read as missing "
        f"in every row (a missing value drops out of {type(model).__name__}'s likelihood)"
    )
    kinds = column_kinds(model)
    nulls = [
        pl.lit(None, dtype=pl.String if kinds.get(c) == "text" else pl.Float64).alias(c)
        for c in absent
    ]
    return frame.with_columns(nulls)


def load_model(path: str) -> Any:
    """A model file read with :func:`bayeskit.load`, with errors that say what to do."""
    from .._params import is_classifier
    from ..io.model_file import load

    check_model_path(path)
    model = _read_model_file(load, path)
    if not is_classifier(model):  # a TextVectorizer's file: the commands read classifiers
        raise ReadError(
            f"{path}: a {type(model).__name__} model file, not a classifier; give a model file "
            "written by 'bayeskit train' (or bayeskit.save of a classifier)",
            path=path,
        )
    return model


def load_reading(path: str) -> dict[str, Any] | None:
    """How the model file's training data was read (``bayeskit train`` stores it), or None."""
    from ..io.model_file import load_reading as read

    return _read_model_file(read, path)


def _read_model_file(read: Any, path: str) -> Any:
    """``read(path)``, a model file that cannot be read an error that says what to do."""
    from ..errors import ModelFileError

    try:
        return read(path)
    except ModelFileError as exc:
        raise ReadError(
            f"{exc}; give a model file written by 'bayeskit train' (or bayeskit.save)", path=path
        ) from None


def check_model_path(path: str) -> None:
    """Refuse a model path that is missing, a folder, or not a regular file (a device, a
    FIFO, a socket: never opened), saying how to make one."""
    from pathlib import Path

    file = Path(path)
    if not file.exists():
        raise ReadError(
            f"{path}: no such model file; write one with 'bayeskit train DATA -o {path}'",
            path=path,
        )
    if file.is_dir():
        raise ReadError(f"{path}: is a folder, not a model file", path=path)
    # A device (/dev/zero reads without end), a FIFO (opening it waits for a writer for
    # ever) or a socket is no model file: refused before it is opened (load checks again).
    try:
        mode = os.stat(path).st_mode
    except OSError:  # (gone since: load says so)
        return
    if not stat.S_ISREG(mode):
        raise ReadError(
            f"{path}: is not a regular file (a device, FIFO or socket), not a model file",
            path=path,
        )
