"""Which model the commands build for the data, how they describe it, and how prediction
input is matched to a model's training columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import typer

from .. import discriminant, naive_bayes
from ..io.readers import ReadError, list_names
from ..text import SpamFilter, TextClassifier, TextVectorizer
from .data import Labelled
from .output import note

MODELS = (
    "auto",
    "multinomial",
    "bernoulli",
    "complement",
    "categorical",
    "gaussian",
    "kernel",
    "discretized",
    "poisson",
    "mixed",
    "tan",
    "aode",
    "kdb",
    "text",
    "lda",
    "qda",
    "rda",
    "gmm",
    "parzen",
)
TEXT_MODELS = ("auto", "text", "multinomial", "bernoulli", "complement")
#: The choices that build TextClassifier()'s or SpamFilter()'s settings for text.
DEFAULT_TEXT_MODELS = ("auto", "text")
NUMERIC_MODELS = (
    "gaussian",
    "kernel",
    "discretized",
    "poisson",
    "multinomial",
    "bernoulli",
    "complement",
    "lda",
    "qda",
    "rda",
    "gmm",
    "parzen",
)

#: The Python class names, accepted by ``--model`` as the short names they stand for (any case),
#: so one name works in both doors: ``--model KernelNB`` is ``--model kernel``.
MODEL_ALIASES = {
    "multinomialnb": "multinomial",
    "bernoullinb": "bernoulli",
    "complementnb": "complement",
    "categoricalnb": "categorical",
    "gaussiannb": "gaussian",
    "kernelnb": "kernel",
    "discretizednb": "discretized",
    "poissonnb": "poisson",
    "mixednb": "mixed",
    "textclassifier": "text",
    "lineardiscriminantanalysis": "lda",
    "quadraticdiscriminantanalysis": "qda",
    "regularizeddiscriminantanalysis": "rda",
    "gaussianmixtureclassifier": "gmm",
    "parzenwindowclassifier": "parzen",
}


def canonical_model(choice: str) -> str:
    """``--model``'s short name for ``choice`` (a short name, or a class name in any case)."""
    return MODEL_ALIASES.get(choice.lower(), choice)


ModelOpt = typer.Option(
    "--model",
    "-m",
    metavar="MODEL",
    callback=canonical_model,
    help="auto: MixedNB with a family per column for tables; for text (auto or text) the "
    "library's defaults, TextClassifier()'s, or SpamFilter()'s (calibrated) when the classes "
    "are ham and spam (word 1-2-grams, e-mails parsed; bayeskit inspect MODEL shows the "
    "weighting and the model); with --unlabeled "
    "word counts + MultinomialNB (EM needs a generative model). multinomial, bernoulli, "
    "complement: scikit-learn's bag of words, for parity. Or one of: "
    + ", ".join(MODELS[1:])
    + " (or the Python class name: KernelNB, GaussianMixtureClassifier…).",
)
AlphaOpt = typer.Option(
    "--alpha",
    metavar="A",
    help="Additive smoothing of the count models (default: the model's own: 1 for "
    "multinomial, bernoulli, complement; the text defaults' own; 0.1 with --unlabeled).",
)
IntegersOpt = typer.Option(
    "--integers",
    metavar="FAMILY",
    help="Family of integer columns under --model auto: gaussian (the default), poisson "
    "(counts) or categorical (codes).",
)


#: Bayesian network classifiers: any table (numbers are cut into MDL intervals).
NETWORK_MODELS = ("tan", "aode", "kdb")


def _network_class(choice: str) -> Any:
    from ..bayesnet import AODEClassifier, KDBClassifier, TANClassifier

    return {"tan": TANClassifier, "aode": AODEClassifier, "kdb": KDBClassifier}[choice]


def _numeric_class(choice: str) -> Any:
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
) -> Any:
    """An unfitted model for ``data`` (``--model choice``; ``--integers``)."""
    check_model_options(choice, alpha, integers)
    if data.kind in ("text", "email"):
        return _text_model(choice, data, alpha, semi_supervised)
    return _table_model(choice, data, alpha, integers)


def _text_model(choice: str, data: Labelled, alpha: float | None, semi_supervised: bool) -> Any:
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
            raise ReadError(
                f"{data.source}: --model {choice} takes numeric columns; "
                f"{list_names(wrong, 10)} hold{'s' if len(wrong) == 1 else ''} other values "
                "(use --model auto for a table of mixed columns)",
                path=data.source,
                column=wrong[0],
            )
        model = _numeric_class(choice)()
    if alpha is not None:
        if "alpha" not in model.get_params():
            raise typer.BadParameter(
                f"{type(model).__name__} has no smoothing parameter", param_hint="--alpha"
            )
        model.set_params(alpha=alpha)
    return model


# ------------------------------------------------------------------ describing a model
def is_text_model(model: Any) -> bool:
    return isinstance(model, TextClassifier)


def is_email_model(model: Any) -> bool:
    vectorizer = model.vectorizer_ if "vectorizer_" in model.__dict__ else model.vectorizer
    return vectorizer is not None and vectorizer.analyzer == "email"


def describe(model: Any) -> str:
    """``SpamFilter: words (counts) + MultinomialNB()``, ``MixedNB(families='auto')``; a
    calibrated SpamFilter ends with ``, calibrated``."""
    if not is_text_model(model):
        return repr(model)
    vectorizer = model.vectorizer or model.default_vectorizer()
    inner = model.model or model.default_model()
    tokens = {"email": "e-mail tokens", "word": "words"}.get(
        str(vectorizer.analyzer), f"{vectorizer.analyzer} {vectorizer.ngram_range}-grams"
    )
    if vectorizer.analyzer == "word" and tuple(vectorizer.ngram_range) != (1, 1):
        tokens = f"word {'-'.join(map(str, vectorizer.ngram_range))}-grams"
    if vectorizer.analyzer == "auto":
        tokens = f"e-mail tokens or word {'-'.join(map(str, vectorizer.ngram_range))}-grams"
    weights = vectorizer.output
    if weights == "tfidf" and not vectorizer.use_idf:
        weights = "log-tf, unit length" if vectorizer.sublinear_tf else "tf, unit length"
    # (Term weights are refused unless output="tfidf".)
    if getattr(vectorizer, "ngram_weights", None) is not None:
        by_n = ", ".join(f"{n}-grams x{w:g}" for n, w in enumerate(vectorizer.ngram_weights, 1))
        weights += f"; {by_n.removeprefix('1-grams x1, ')}"
    if getattr(vectorizer, "subject_weight", 1) != 1:
        weights += f"; subject: x{vectorizer.subject_weight:g}"
    if getattr(vectorizer, "subject_in_text", False):
        weights += "; subject line read as text"
    calibrated = ", calibrated" if getattr(model, "calibration_folds", None) else ""
    return f"{type(model).__name__}: {tokens} ({weights}) + {inner!r}{calibrated}"


def training_columns(model: Any) -> list[str] | None:
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(n) for n in names]


def align_columns(
    frame: Any,
    expected: list[str] | None,
    source: str,
    ignore: list[str] | None = None,
    *,
    ignore_option: str | None = None,
) -> Any:
    """``frame``'s columns in the training order ``expected``; a missing or unexpected
    column is an error naming it (``ignore`` lists columns to drop first, such as labels).

    The message suits every door (the command line, the service, Python); a command with an
    option that leaves columns out names it as ``ignore_option`` (``--ignore``) and the
    message suggests it."""
    if ignore:
        frame = frame.drop([c for c in ignore if c in frame.columns])
    if expected is None:
        return frame
    missing = [c for c in expected if c not in frame.columns]
    extra = [c for c in frame.columns if c not in set(expected)]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {list_names([repr(c) for c in missing], 10)}")
        if extra:
            parts.append(f"not in training {list_names([repr(c) for c in extra], 10)}")
        fix = "give the columns the model was trained on"
        if extra and not missing:
            fix = "leave them out"
            if ignore_option is not None:
                fix += f" (pass {ignore_option} {','.join(extra)})"
        raise ReadError(
            f"{source}: the columns differ from the model's: {'; '.join(parts)}; {fix}",
            path=source,
            column=(missing or extra)[0],
        )
    return frame.select(expected)


def missing_drops_out(model: Any) -> bool:
    """Whether a missing value simply drops out of ``model``'s likelihood (what it declares:
    scikit-learn's ``allow_nan`` input tag — the naive models and the diagonal mixtures, whose
    features are independent given the class or component), so a column absent from the data
    is as good as a column of missing values."""
    try:
        return bool(model.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


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
    from ..errors import ModelFileError
    from ..io.model_file import load

    check_model_path(path)
    try:
        return load(path)
    except ModelFileError as exc:
        raise ReadError(
            f"{exc}; give a model file written by 'bayeskit train' (or bayeskit.save)", path=path
        ) from None


def load_reading(path: str) -> dict[str, Any] | None:
    """How the model file's training data was read (``bayeskit train`` stores it), or None."""
    from ..errors import ModelFileError
    from ..io.model_file import load_reading as read

    try:
        return read(path)
    except ModelFileError as exc:
        raise ReadError(
            f"{exc}; give a model file written by 'bayeskit train' (or bayeskit.save)", path=path
        ) from None


def check_model_path(path: str) -> None:
    """Refuse a model path that is missing or a folder, saying how to make one."""
    from pathlib import Path

    file = Path(path)
    if not file.exists():
        raise ReadError(
            f"{path}: no such model file; write one with 'bayeskit train DATA -o {path}'",
            path=path,
        )
    if file.is_dir():
        raise ReadError(f"{path}: is a folder, not a model file", path=path)


def column_kinds(model: Any) -> dict[str, str]:
    """How a table model reads each training column: ``"text"`` (categories that are
    strings), ``"number"`` or ``""`` (anything: booleans, integer categories)."""
    columns = training_columns(model) or []
    families = getattr(model, "feature_families_", None)
    if families is not None:  # MixedNB
        kinds = {str(c): "number" if f in _REAL_FAMILIES else "" for c, f in families.items()}
        for column, values in model.categories_.items():
            kinds[column] = "text" if values.dtype.kind in "OUS" else ""
        return kinds
    categories = getattr(model, "categories_", None)
    if categories is not None:  # CategoricalNB: one array of values per column
        return {
            c: "text" if np.asarray(v).dtype.kind in "OUS" else ""
            for c, v in zip(columns, categories, strict=True)
        }
    return dict.fromkeys(columns, "number")  # a numeric model


_REAL_FAMILIES = {"gaussian", "kernel", "poisson", "binomial", "discretized"}


def schema_kinds(frame: Any) -> dict[str, str]:
    """:func:`column_kinds` of the data a model was trained on."""
    import polars as pl

    return {
        c: "text" if t == pl.String else "number" if t.is_numeric() else ""
        for c, t in frame.schema.items()
    }


def conform(frame: Any, model: Any, source: str, kinds: dict[str, str] | None = None) -> Any:
    """``frame`` with each column read as the model reads it (``kinds``, default
    :func:`column_kinds`): numbers as floats, string categories as strings (a column of codes
    such as ``1``, ``2`` is parsed as numbers when the file holds no other value). A value
    that is not a number where one is needed is an error naming the column."""
    import polars as pl

    kinds = column_kinds(model) if kinds is None else kinds
    casts = []
    for column, dtype in frame.schema.items():
        kind = kinds.get(column, "")
        if kind == "text" and dtype != pl.String:
            casts.append(pl.col(column).cast(pl.String))
        elif kind == "number" and dtype == pl.Null:
            casts.append(pl.col(column).cast(pl.Float64))
        elif kind == "number" and not dtype.is_numeric():
            values = frame.get_column(column).cast(pl.String)
            numbers = values.cast(pl.Float64, strict=False)
            bad = numbers.is_null() & values.is_not_null()
            if bad.any():
                row = int(bad.arg_max() or 0)
                raise ReadError(
                    f"{source}: column {column!r} holds {values[row]!r} in row {row + 1}; the "
                    "model reads numbers there",
                    path=source,
                    column=column,
                )
            casts.append(numbers.alias(column))
    return frame.with_columns(casts) if casts else frame
