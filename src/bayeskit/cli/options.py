"""The options several commands share, declared once — in a module that imports only typer, so
``bayeskit COMMAND --help`` builds its page without importing the models (scikit-learn and
SciPy take seconds to import; a help page should not wait for them)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..io.formats import TABLE_FORMATS

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
    "tanclassifier": "tan",
    "aodeclassifier": "aode",
    "kdbclassifier": "kdb",
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
    "weighting and the model); with train --unlabeled "
    "word counts + MultinomialNB (EM needs a generative model). multinomial, bernoulli, "
    "complement: scikit-learn's bag of words, for parity. Or one of: "
    + ", ".join(MODELS[1:])
    + " (or the Python class name: KernelNB, GaussianMixtureClassifier…).",
)
AlphaOpt = typer.Option(
    "--alpha",
    metavar="A",
    help="Additive smoothing of the count models (default: the model's own: 1 for "
    "multinomial, bernoulli, complement; the text defaults' own; 0.1 with train --unlabeled).",
)
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="NAME=VALUE",
        help="A setting of the model, by its Python name (repeatable): --set k=2 (--model "
        "kdb), --set edge_weight=cmi (tan), --set m=5 (aode), --set discretize=numbers (tan, "
        "aode, kdb: integer columns cut into intervals too), a text model's parts' with "
        "model__ or vectorizer__ (--set vectorizer__min_df=2). VALUE is read as JSON (2, 0.5, "
        "true, null, [0.3, 0.7]), else as text. A name the model does not have is refused "
        "with the names it has; a value it does not take, when it is fitted.",
    ),
]
IntegersOpt = typer.Option(
    "--integers",
    metavar="FAMILY",
    help="Family of integer columns under --model auto: gaussian, poisson (counts) or "
    "categorical (codes); by default the one chosen for each numeric column on held-out "
    "folds of the training rows.",
)


#: Documents (folders) per batch unless --batch-size says otherwise.
DOCUMENT_BATCH = 5_000
#: The most terms a text model trained in batches keeps (--max-terms).
MAX_TERMS = 1_000_000

BatchSizeOpt = Annotated[
    int | None,
    typer.Option(
        "--batch-size",
        min=1,
        max=10**9,
        help="Rows (tables) or files (folders) read and learned at a time: memory grows with "
        "it, per-batch overhead shrinks with it. Default: 100000 rows, 5000 files.",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        max=256,  # a local cluster of processes: far more than a machine has cores
        help="Train on a local Dask cluster of this many worker processes "
        '(pip install "bayeskit[dask]").',
    ),
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Train on the Dask cluster whose scheduler is at this address (tcp://HOST:8786).",
    ),
]

# ------------------------------------------------------------------ reading DATA, folds
#: ``--format``'s choices: a table format, or a folder of class folders
FORMATS = (*TABLE_FORMATS, "folders")

TargetOpt = Annotated[
    str | None,
    typer.Option(
        "--target",
        "-t",
        metavar="COLUMN",
        help="Column holding the class labels (tables; folders need none).",
    ),
]
TextOpt = Annotated[
    str | None,
    typer.Option(
        "--text",
        metavar="COLUMN",
        help="Column of free text: classify with the text pipeline on it (other columns are "
        "ignored). Default: a table whose only feature column is free text uses it.",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help=f"Format of DATA: {', '.join(FORMATS)}. Default: from the name.",
    ),
]
NoHeaderOpt = Annotated[
    bool,
    typer.Option(
        "--no-header",
        help="The CSV/TSV has no header row: its columns are named column_1, column_2, …",
    ),
]
ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        "--columns",
        metavar="NAMES",
        help="Comma-separated names for the columns of a CSV/TSV without a header row.",
    ),
]
SeparatorOpt = Annotated[
    str | None,
    typer.Option(
        "--separator",
        metavar="CHAR",
        help="The character between the fields of a CSV, e.g. --separator ';'. Default: "
        "sniffed from the first lines (',', ';', tab or '|').",
    ),
]
MissingOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--missing",
        metavar="VALUE",
        help="A field value meaning 'missing' (repeatable), e.g. --missing '?'. Empty fields "
        "are always missing, and so are NA, N/A, NaN, null, None and the other markers pandas "
        "reads as missing, unless --no-default-missing. A model file remembers it: predict "
        "reads new data alike.",
    ),
]
NoDefaultMissingOpt = Annotated[
    bool,
    typer.Option(
        "--no-default-missing",
        help="Read NA, N/A, NaN, null, None… as values, not as missing (only empty fields and "
        "--missing values are missing).",
    ),
]
MergeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--merge",
        metavar="NEW=OLD,…",
        help="Train on class NEW for the labels (or class folders) OLD1 and OLD2 "
        "(repeatable), e.g. --merge ham=easy_ham,hard_ham --merge spam=spam,spam_2.",
    ),
]
IdOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--id",
        metavar="COLUMN",
        help="A column naming the rows (repeatable): left out of the model; the model file "
        "keeps its name and predict copies it into its output. Default: a "
        "column named like an ID (id, customer_id, PassengerId…), or of 20+ rows holding a "
        "different word, or increasing whole numbers, in every row.",
    ),
]
KeepOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--keep",
        metavar="COLUMN",
        help="Use COLUMN as a feature even though it looks like a row ID (repeatable).",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace an existing output file even if this command did not write it.",
    ),
]
FOLDS_HELP = "Number of cross-validation folds (at least 2)."
FoldsOpt = Annotated[int, typer.Option("--folds", metavar="N", help=FOLDS_HELP)]
FoldsAliasOpt = Annotated[int | None, typer.Option("--cv", hidden=True, metavar="N")]
SeedOpt = Annotated[
    int,
    typer.Option("--seed", metavar="N", min=0, max=2**32 - 1, help="Seed of the fold shuffle."),
]


def folds_of(folds: int, cv_alias: int | None) -> int:
    """``--folds``, or its older name ``--cv`` when that was given."""
    return folds if cv_alias is None else cv_alias
