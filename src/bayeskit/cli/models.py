"""Which model the commands build for the data, how they describe it, and how prediction
input is matched to a model's training columns."""

from __future__ import annotations

from typing import Any

import numpy as np
import typer

from .. import discriminant, naive_bayes
from ..io.columns import align_columns as align_columns
from ..io.columns import column_kinds as column_kinds
from ..io.columns import conform as conform
from ..io.columns import schema_kinds as schema_kinds
from ..io.columns import training_columns as training_columns
from ..io.describe import describe as describe
from ..io.describe import is_email_model as is_email_model
from ..io.describe import is_text_model as is_text_model
from ..io.readers import ReadError, list_names
from ..text import SpamFilter, TextClassifier, TextVectorizer
from .data import Labelled

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

ModelOpt = typer.Option(
    "--model",
    "-m",
    metavar="MODEL",
    help="auto: MixedNB with a family per column for tables; for text (auto or text) the "
    "library's defaults, TextClassifier()'s, or SpamFilter()'s (calibrated) when the classes "
    "are ham and spam (word 1-2-grams, e-mails parsed; bayeskit inspect MODEL shows the "
    "weighting and the model); with --unlabeled "
    "word counts + MultinomialNB (EM needs a generative model). multinomial, bernoulli, "
    "complement: scikit-learn's bag of words, for parity. Or one of: " + ", ".join(MODELS[1:]),
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


def build_model(
    choice: str,
    data: Labelled,
    alpha: float | None,
    integers: str | None = None,
    *,
    semi_supervised: bool = False,
) -> Any:
    """An unfitted model for ``data`` (``--model choice``; ``--integers``)."""
    if choice not in MODELS:
        raise typer.BadParameter(
            f"{choice!r} is not a model; choose one of: {', '.join(MODELS)}", param_hint="--model"
        )
    if alpha is not None and alpha < 0:
        raise typer.BadParameter(f"must be at least 0, got {alpha}", param_hint="--alpha")
    if integers not in (None, "gaussian", "poisson", "categorical"):
        raise typer.BadParameter(
            f"{integers!r}; choose gaussian, poisson or categorical", param_hint="--integers"
        )
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
    """TextClassifier()'s or SpamFilter()'s settings; a folder of e-mails is read (parsed) as
    e-mails, which is what their "auto" analyzer does with a raw e-mail."""
    cls = TextClassifier if labels is None else SpamFilter
    vectorizer = cls.default_vectorizer()
    if data.kind == "email":
        vectorizer.set_params(analyzer="email")
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
