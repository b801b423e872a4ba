"""bayeskit beside R and Weka on real tables: the same stratified folds through MixedNB (its
default and its Gaussian, kernel and discretized settings), LDA, GaussianNB and the
Gaussian-mixture classifier, R's e1071 ``naiveBayes`` and MASS ``lda``/``qda`` (through
``Rscript``) and Weka's NaiveBayes (plain, ``-K`` kernel, ``-D`` supervised discretization;
through ``java``): accuracy and log-loss.

Usage (from the project root)::

    python benchmarks/accuracy_peers.py              # every table, 10 folds (about 15 minutes)
    python benchmarks/accuracy_peers.py --folds 5 --only survey,Cars93
    python benchmarks/accuracy_peers.py --no-peers    # bayeskit's models only
    python benchmarks/accuracy.py --only peers        # the same, from the accuracy benchmark

Tables: the shared UCI ones (spambase, mushroom, car, nursery, voting; ``BAYESKIT_DATA``) and
public tables that R ships (MASS's ``survey``, ``Cars93`` with the price range stored beside
both prices, ``birthwt``, ``Pima.tr`` + ``Pima.te``, ``biopsy``, ``crabs``; the datasets
package's ``iris``, ``airquality``, ``state.x77``), exported by ``Rscript`` when the benchmark
runs: mixed types, missing values, and units from 0.1 to 10^5; and scikit-learn's ``wine`` and
``breast_cancer``. The naive Bayes models get the table as it is (categories, missing values);
LDA, QDA, GaussianNB and the mixture classifier get the same numeric design for every program
(treatment-coded categories with missing as a level, numbers with missing values set to the
training fold's median). Peers that are not installed are skipped. Each accuracy shortfall
of the targets' table carries McNemar's exact test on the same rows (is it more than chance?).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss

import bayeskit as bk
from bayeskit.datasets.shared import data_dir, load_spambase
from peers import WEKA_JAR, stratified_folds, uci_with_missing, weka_available, write_arff

#: (accuracy, log-loss, whether each row was classified right, the probability each row's
#: verdict was given) of one model on one table.
Result = tuple[float, float, np.ndarray, np.ndarray]

MIXED: dict[str, dict[str, Any]] = {"MixedNB()": {}} | {
    f"MixedNB(numeric={f!r})": {"numeric": f} for f in ("gaussian", "kernel", "discretized")
}
OURS = [*MIXED, "GaussianNB()", "GMM()", "LDA()"]
R_MODELS = ["R e1071 naiveBayes", "R MASS lda", "R MASS qda"]
WEKA_MODELS = {"Weka NaiveBayes": [], "Weka NaiveBayes -K": ["-K"], "Weka NaiveBayes -D": ["-D"]}

#: R's public tables: (name, R expression giving the data frame, target column, dropped columns)
R_TABLES = [
    ("survey", "MASS::survey", "Exer", []),
    (
        "Cars93",
        "transform(MASS::Cars93, Price.range = Max.Price - Min.Price)",
        "Origin",
        ["Manufacturer", "Model", "Make"],
    ),
    ("birthwt", "transform(MASS::birthwt, race = factor(race))", "low", ["bwt"]),
    ("Pima", "rbind(MASS::Pima.tr, MASS::Pima.te)", "type", []),
    ("biopsy", "MASS::biopsy", "class", ["ID"]),
    ("crabs", "MASS::crabs", "sp", ["index"]),
    ("iris", "datasets::iris", "Species", []),
    ("airquality", "transform(datasets::airquality, Month = factor(Month))", "Month", ["Day"]),
    (
        "state.x77",
        "data.frame(datasets::state.x77, region = datasets::state.region)",
        "region",
        [],
    ),
]

#: Tables kept out of the sixteen the defaults were compared on, to check a default change on
#: data it was not chosen from (``--only fgl,infert,Aids2``): the forensic glass table (UCI's
#: glass identification data, 9 oxide measurements, 6 classes), the infertility case-control
#: table (education a category, ages and counts), and the Australian AIDS survival table
#: (categories and integers in days; the date of death, which is the outcome's own record, is
#: dropped). Three more check the choice of the categories' pseudo-count and the mixtures
#: (``--only Titanic,cats,kyphosis``): the Titanic passengers one row each (class, sex and
#: age, all categories; survival the class), the cats' body and heart weights (sex the class)
#: and rpart's kyphosis table (age, number and first of the vertebrae operated on).
CHECK_TABLES = [
    ("fgl", "MASS::fgl", "type", []),
    ("infert", "datasets::infert", "case", ["stratum", "pooled.stratum"]),
    ("Aids2", "MASS::Aids2", "status", ["death"]),
    (
        "Titanic",
        "{d <- as.data.frame(datasets::Titanic); d[rep(seq_len(nrow(d)), d$Freq), 1:4]}",
        "Survived",
        [],
    ),
    ("cats", "MASS::cats", "Sex", []),
    ("kyphosis", "rpart::kyphosis", "Kyphosis", []),
]

R_SCRIPT = r"""
args <- commandArgs(TRUE); dir <- args[1]; k <- as.integer(args[2])
suppressMessages({library(e1071); library(MASS)})
classes <- readLines(file.path(dir, "classes.txt"))
kinds <- readLines(file.path(dir, "kinds.txt"))
read <- function(name, kinds) {
  d <- read.csv(file.path(dir, name), colClasses = ifelse(kinds == "number", "numeric",
                "character"), na.strings = "NA", check.names = FALSE)
  for (j in which(kinds == "category")) d[[j]] <- factor(d[[j]])
  d$y <- factor(d$y, levels = classes)
  d
}
save <- function(f, name, expr) {
  res <- tryCatch(withCallingHandlers(expr, warning = function(w) invokeRestart("muffleWarning")),
                  error = function(e) e)
  if (inherits(res, "error")) {
    writeLines(conditionMessage(res), file.path(dir, sprintf("fold%d_%s.failed", f, name)))
  } else {
    write.csv(res, file.path(dir, sprintf("fold%d_%s.csv", f, name)), row.names = FALSE)
  }
}
for (f in seq_len(k) - 1) {
  tr <- read(sprintf("fold%d_train.csv", f), c(kinds, "label"))
  te <- read(sprintf("fold%d_test.csv", f), c(kinds, "label"))
  for (j in which(kinds == "category")) {
    lv <- sort(unique(c(levels(tr[[j]]), levels(te[[j]]))))
    tr[[j]] <- factor(as.character(tr[[j]]), levels = lv)
    te[[j]] <- factor(as.character(te[[j]]), levels = lv)
  }
  save(f, "e1071", {
    m <- naiveBayes(y ~ ., data = tr)
    predict(m, te[, names(te) != "y", drop = FALSE], type = "raw")[, classes, drop = FALSE]
  })
  dk <- rep("number", ncol(read.csv(file.path(dir, sprintf("fold%d_dtrain.csv", f)),
                                    nrows = 1)) - 1)
  dtr <- read(sprintf("fold%d_dtrain.csv", f), c(dk, "label"))
  dte <- read(sprintf("fold%d_dtest.csv", f), c(dk, "label"))
  dtr$y <- droplevels(dtr$y)
  save(f, "lda", {
    p <- predict(lda(y ~ ., data = dtr), dte)$posterior
    out <- matrix(0, nrow(dte), length(classes), dimnames = list(NULL, classes))
    out[, colnames(p)] <- p
    out
  })
  save(f, "qda", {
    p <- predict(qda(y ~ ., data = dtr), dte)$posterior
    out <- matrix(0, nrow(dte), length(classes), dimnames = list(NULL, classes))
    out[, colnames(p)] <- p
    out
  })
}
"""


# ---------------------------------------------------------------------- tables
def shared_tables(root: Path | None) -> list[tuple[str, pd.DataFrame, np.ndarray]]:
    if root is None:
        return []
    X, y, _ = load_spambase(root)
    out = [("spambase", pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])]), y)]
    for name in ("mushroom", "car", "nursery", "voting"):
        X, y = uci_with_missing(name, root)
        out.append((name, pd.DataFrame(X, columns=[f"a{j}" for j in range(X.shape[1])]), y))
    return out


def sklearn_tables(names: set[str] | None) -> list[tuple[str, pd.DataFrame, np.ndarray]]:
    """The wine and Wisconsin breast cancer tables scikit-learn ships (all numeric)."""
    from sklearn.datasets import load_breast_cancer, load_wine

    out = []
    for name, load in (("wine", load_wine), ("breast_cancer", load_breast_cancer)):
        if names is None or name in names:
            data = load(as_frame=True)
            frame = data.data.rename(columns=lambda c: c.replace(" ", "_"))
            out.append((name, frame, data.target.to_numpy()))
    return out


def r_tables(names: set[str] | None) -> list[tuple[str, pd.DataFrame, np.ndarray]]:
    """R's public tables, exported by Rscript now (nothing is stored in the project); the
    check tables only when named."""
    if shutil.which("Rscript") is None:
        return []
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        wanted = names if names is not None else {t[0] for t in R_TABLES}
        for name, expr, target, drop in R_TABLES + CHECK_TABLES:
            if name not in wanted:
                continue
            path = Path(tmp) / f"{name}.csv"
            code = f'write.csv({expr}, "{path}", row.names = FALSE)'
            subprocess.run(["Rscript", "-e", code], check=True, capture_output=True)
            frame = pd.read_csv(path, na_values=["NA"], keep_default_na=False)
            y = frame.pop(target).astype(str).to_numpy()
            frame = frame.drop(columns=drop)
            frame.columns = [c.replace(" ", ".") for c in frame.columns]
            for c in frame.columns:
                if frame[c].dtype == object:
                    frame[c] = frame[c].where(frame[c] != "", None)
            out.append((name, frame, y))
    return out


def kinds_of(frame: pd.DataFrame) -> list[str]:
    return ["number" if pd.api.types.is_numeric_dtype(frame[c]) else "category" for c in frame]


def design(train: pd.DataFrame, test: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The numeric design LDA and QDA get (the same for every program): each category column
    treatment-coded (first level dropped; missing is a level), each number with its missing
    values set to the training fold's median."""
    parts_train, parts_test = [], []
    for c in train.columns:
        if pd.api.types.is_numeric_dtype(train[c]):
            median = float(np.nanmedian(train[c].to_numpy(dtype=float)))
            median = 0.0 if np.isnan(median) else median
            parts_train.append(train[c].fillna(median).to_numpy(dtype=float)[:, None])
            parts_test.append(test[c].fillna(median).to_numpy(dtype=float)[:, None])
        else:
            a = train[c].fillna("(missing)").astype(str).to_numpy()
            b = test[c].fillna("(missing)").astype(str).to_numpy()
            levels = np.unique(np.concatenate([a, b]))[1:]
            parts_train.append((a[:, None] == levels[None, :]).astype(float))
            parts_test.append((b[:, None] == levels[None, :]).astype(float))
    return np.hstack(parts_train), np.hstack(parts_test)


# ---------------------------------------------------------------------- bayeskit
def ours(
    frame: pd.DataFrame, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]]
) -> dict[str, list[Any]]:
    """Out-of-fold probabilities of each bayeskit setting (None where a fit is refused)."""
    results: dict[str, list[Any]] = {name: [] for name in OURS}
    for train, test in folds:
        for name, params in MIXED.items():
            model = bk.MixedNB(**params).fit(frame.iloc[train], y[train])
            results[name].append(model.predict_proba(frame.iloc[test]))
        D_train, D_test = design(frame.iloc[train], frame.iloc[test])
        for name, make in (
            ("GaussianNB()", bk.GaussianNB),
            ("GMM()", bk.GaussianMixtureClassifier),
            ("LDA()", bk.LinearDiscriminantAnalysis),
        ):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", bk.errors.CollinearColumnsWarning)
                    warnings.simplefilter("ignore", bk.mixture.FewRowsWarning)
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model = make().fit(D_train, y[train])
                proba = np.zeros((len(test), len(np.unique(y))))
                proba[:, np.searchsorted(np.unique(y), model.classes_)] = model.predict_proba(
                    D_test
                )
                results[name].append(proba)
            except bk.errors.BayeskitError as exc:
                results[name].append(f"refused: {exc}")
    return results


# ---------------------------------------------------------------------- R
def run_r(
    frame: pd.DataFrame, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]], tmp: Path
) -> dict[str, list[Any]]:
    classes = np.unique(y).astype(str)
    (tmp / "classes.txt").write_text("\n".join(classes) + "\n")
    (tmp / "kinds.txt").write_text("\n".join(kinds_of(frame)) + "\n")
    names = [f"v{j}" for j in range(frame.shape[1])]
    for f, (train, test) in enumerate(folds):
        for part, rows in (("train", train), ("test", test)):
            table = frame.iloc[rows].copy()
            table.columns = names
            table["y"] = y[rows].astype(str)
            table.to_csv(tmp / f"fold{f}_{part}.csv", index=False, na_rep="NA")
        D_train, D_test = design(frame.iloc[train], frame.iloc[test])
        for part, D, rows in (("dtrain", D_train, train), ("dtest", D_test, test)):
            table = pd.DataFrame(D, columns=[f"d{j}" for j in range(D.shape[1])])
            table["y"] = y[rows].astype(str)
            table.to_csv(tmp / f"fold{f}_{part}.csv", index=False)
    script = tmp / "peers.R"
    script.write_text(R_SCRIPT)
    subprocess.run(
        ["Rscript", str(script), str(tmp), str(len(folds))], check=True, capture_output=True
    )
    out: dict[str, list[Any]] = {}
    for name, key in zip(R_MODELS, ("e1071", "lda", "qda"), strict=True):
        out[name] = []
        for f in range(len(folds)):
            failed = tmp / f"fold{f}_{key}.failed"
            if failed.exists():
                out[name].append(f"fails: {failed.read_text().strip()}")
            else:
                out[name].append(pd.read_csv(tmp / f"fold{f}_{key}.csv").to_numpy(dtype=float))
    return out


# ---------------------------------------------------------------------- Weka
def run_weka(
    frame: pd.DataFrame, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]], tmp: Path
) -> dict[str, list[Any]]:
    classes = [str(c) for c in np.unique(y)]
    levels: list[list[str] | None] = [
        None if kind == "number" else sorted(frame[c].dropna().astype(str).unique())
        for c, kind in zip(frame.columns, kinds_of(frame), strict=True)
    ]
    text = frame.copy()
    for c, values in zip(frame.columns, levels, strict=True):
        if values is not None:
            text[c] = frame[c].map(lambda v: None if v is None or v != v else str(v))
    out: dict[str, list[Any]] = {name: [] for name in WEKA_MODELS}
    for f, (train, test) in enumerate(folds):
        for part, rows in (("train", train), ("test", test)):
            write_arff(
                tmp / f"w{f}_{part}.arff",
                text.iloc[rows].itertuples(index=False),
                y[rows].astype(str),
                levels,
                classes,
            )
        for name, options in WEKA_MODELS.items():
            command = [
                "java", "-Xmx1g", "-cp", str(WEKA_JAR), "weka.classifiers.bayes.NaiveBayes",
                *options, "-t", str(tmp / f"w{f}_train.arff"), "-T",
                str(tmp / f"w{f}_test.arff"), "-p", "0", "-distribution",
            ]  # fmt: skip
            run = subprocess.run(command, capture_output=True, text=True)
            out[name].append(_weka_proba(run.stdout, len(test), len(classes)) if run.returncode == 0
                             else f"fails: {run.stderr.strip()[:200]}")  # fmt: skip
    return out


def _weka_proba(text: str, n: int, k: int) -> np.ndarray:
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0].isdigit():
            rows.append([float(v.lstrip("*")) for v in parts[-1].split(",")])
    proba = np.asarray(rows, dtype=float)
    if proba.shape != (n, k):
        raise RuntimeError(f"could not read Weka's predictions ({proba.shape}, expected {(n, k)})")
    return proba


# ---------------------------------------------------------------------- scoring
def scores(
    results: list[Any], y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]]
) -> Result | str:
    """(accuracy, log-loss, each row right or not, the probability of each row's verdict) over
    the out-of-fold predictions, or why a model did not fit."""
    failed = [r for r in results if isinstance(r, str)]
    if failed:
        return failed[0]
    classes = np.unique(y)
    proba = np.empty((len(y), len(classes)))
    for (_, test), p in zip(folds, results, strict=True):
        proba[test] = p
    right = classes[np.argmax(proba, axis=1)] == y
    clipped = np.clip(proba, 1e-15, 1.0)
    clipped /= clipped.sum(axis=1, keepdims=True)
    loss = float(log_loss(y, clipped, labels=classes))
    return float(np.mean(right)), loss, right, proba.max(axis=1)


def evaluate(
    name: str,
    frame: pd.DataFrame,
    y: np.ndarray,
    k: int,
    log: Callable[[str], None],
    peers: bool = True,
) -> dict[str, Result | str]:
    folds = stratified_folds(frame, y, k)
    start = time.perf_counter()
    found: dict[str, list[Any]] = ours(frame, y, folds)
    log(f"{name}: bayeskit {time.perf_counter() - start:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        if peers and shutil.which("Rscript"):
            start = time.perf_counter()
            found |= run_r(frame, y, folds, Path(tmp))
            log(f"{name}: R {time.perf_counter() - start:.1f} s")
        if peers and weka_available():
            start = time.perf_counter()
            found |= run_weka(frame, y, folds, Path(tmp))
            log(f"{name}: Weka {time.perf_counter() - start:.1f} s")
    return {model: scores(results, y, folds) for model, results in found.items()}


#: A row whose verdict a model gives with at most this probability is a near-tie for it: a
#: slightly different fit (other training rows, another fold count) may well turn it.
NEAR_TIE = 0.6

#: A shortfall in accuracy of at most this many rows of the whole table is reported as noise,
#: not as a miss: one row, which is one row of one fold. On these tables a row is 0.0001 to
#: 0.02 of accuracy, and which of two near-equal models a borderline row falls to changes with
#: the folds (one model's accuracy moves by more than a row between 5 and 10 folds).
NOISE_ROWS = 1


def mcnemar(ours: Result, theirs: Result) -> float:
    """McNemar's exact test (McNemar 1947; Dietterich 1998 for comparing classifiers on the
    same rows): the two-sided p-value that the rows only one of the two classifies right
    split as unevenly as they do by chance (a binomial of the discordant rows, one half)."""
    only_ours = int(np.sum(ours[2] & ~theirs[2]))
    only_theirs = int(np.sum(theirs[2] & ~ours[2]))
    if only_ours + only_theirs == 0:
        return 1.0
    return float(binomtest(only_ours, only_ours + only_theirs, 0.5).pvalue)


def at_least(ours: Result, theirs: Result, n: int) -> str:
    """ "yes" when ``ours`` is at least as accurate as ``theirs``; "noise" when it is short by at
    most ``NOISE_ROWS`` rows of the ``n``; "NO" otherwise; with both figures, the rows and,
    for a shortfall, McNemar's p (the same rows: is the difference more than chance?)."""
    short = round((theirs[0] - ours[0]) * n)
    figures = f"{ours[0]:.3f} vs {theirs[0]:.3f}"
    if short <= 0:
        return f"yes ({figures})"
    verdict = "noise" if short <= NOISE_ROWS else "NO"
    rows = f"{short} row{'s' if short > 1 else ''}"
    lost = ~ours[2] & theirs[2]
    ties = int(np.sum(ours[3][lost] <= NEAR_TIE))
    return (
        f"{verdict} ({figures}; {rows}; McNemar p = {mcnemar(ours, theirs):.2f}; "
        f"near-ties for ours: {ties} of the {int(lost.sum())} rows only the other gets right)"
    )


def within(ours: Result, theirs: Result, n: int) -> str:
    """ "yes" when the accuracies differ by at most half a point; "noise" when they differ by
    more but by at most ``NOISE_ROWS`` rows of the ``n`` (either way: the same model, one
    borderline row falling to the other side); "NO" otherwise."""
    apart = round(abs(ours[0] - theirs[0]) * n)
    figures = f"{ours[0]:.3f} vs {theirs[0]:.3f}"
    if abs(ours[0] - theirs[0]) * 100 <= 0.5:
        return f"yes ({figures})"
    verdict = "noise" if apart <= NOISE_ROWS else "NO"
    return f"{verdict} ({figures}; {apart} row{'s' if apart > 1 else ''} apart)"


def targets(table: dict[str, dict[str, Result | str]], n_rows: dict[str, int]) -> list[list[str]]:
    """The targets, table by table: MixedNB() ≥ e1071 and Weka NaiveBayes in accuracy; its
    log-loss ≤ the best of its Gaussian/kernel/discretized settings + 0.02; GMM() at least as
    accurate as GaussianNB() on the same numeric design; LDA() fits where R's lda does, within
    0.5 points. An accuracy shortfall says how many rows it is (see ``NOISE_ROWS``)."""
    rows = []
    for name, found in table.items():
        mixed = found["MixedNB()"]
        assert not isinstance(mixed, str)
        n = n_rows[name]
        row = [name]
        for peer in ("R e1071 naiveBayes", "Weka NaiveBayes"):
            theirs = found.get(peer)
            row.append(
                "—" if theirs is None or isinstance(theirs, str) else at_least(mixed, theirs, n)
            )
        own = [found[m] for m in MIXED if m != "MixedNB()"]
        best = min(s[1] for s in own if not isinstance(s, str))
        row.append(f"{'yes' if mixed[1] <= best + 0.02 else 'NO'} ({mixed[1]:.3f} vs {best:.3f})")
        gmm, gnb = found["GMM()"], found["GaussianNB()"]
        if isinstance(gmm, str) or isinstance(gnb, str):
            row.append("NO (refused)" if isinstance(gmm, str) else "GaussianNB refused")
        else:
            row.append(at_least(gmm, gnb, n))
        lda, r_lda = found["LDA()"], found.get("R MASS lda")
        if r_lda is None:
            row.append("—")
        elif isinstance(r_lda, str):
            row.append("R fails" + ("" if isinstance(lda, str) else f"; ours {lda[0]:.3f}"))
        elif isinstance(lda, str):
            row.append("NO (refused)")
        else:
            row.append(within(lda, r_lda, n))
        rows.append(row)
    return rows


def discordant(
    frame: pd.DataFrame, y: np.ndarray, ours: Result, theirs: Result, names: tuple[str, str]
) -> pd.DataFrame:
    """The rows exactly one of two models classifies right: their values, class, which model
    is right, and the probability each model gave its verdict."""
    only = ours[2] != theirs[2]
    rows = frame[only].copy()
    rows["class"] = y[only]
    rows["right"] = np.where(ours[2][only], names[0], names[1])
    for name, result in zip(names, (ours, theirs), strict=True):
        rows[f"{name}: verdict's probability"] = result[3][only].round(2)
    return rows


def cell(result: Result | str | None, which: int) -> str:
    if result is None:
        return "—"
    if isinstance(result, str):
        return "fails" if result.startswith("fails") else "refused"
    return f"{result[which]:.3f}"


def tables(
    root: Path | None,
    k: int = 10,
    only: set[str] | None = None,
    log: Callable[[str], None] = print,
    peers: bool = True,
) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of the accuracy, log-loss and targets tables (``peers=False``:
    bayeskit's models only; R still exports its tables)."""
    data = [t for t in shared_tables(root) if only is None or t[0] in only]
    data += r_tables(only)
    data += sklearn_tables(only)
    found = {name: evaluate(name, frame, y, k, log, peers) for name, frame, y in data}
    models = [*OURS, *R_MODELS, *WEKA_MODELS]
    models = [m for m in models if any(m in f for f in found.values())]
    header = ["data (rows × columns)", *models]
    sizes = {name: f"{name} ({frame.shape[0]} × {frame.shape[1]})" for name, frame, _ in data}
    out = []
    for title, which in (("accuracy", 0), ("log-loss", 1)):
        rows = [[sizes[n], *(cell(f.get(m), which) for m in models)] for n, f in found.items()]
        out.append((f"Peers, stratified {k}-fold (seed 0): {title}", header, rows))
    out.append(
        (
            "Targets: MixedNB() at least as accurate as e1071 and Weka NaiveBayes; its log-loss "
            "within 0.02 of the best of its Gaussian/kernel/discretized settings; GMM() at least "
            "as accurate as GaussianNB(); LDA() fits where R's lda does, within 0.5 points "
            f"(an accuracy shortfall, or for LDA a difference either way, of at most {NOISE_ROWS} "
            "row of the table: noise)",
            [
                "data",
                "≥ e1071",
                "≥ Weka NaiveBayes",
                "log-loss ≤ best own + 0.02",
                "GMM ≥ GaussianNB",
                "LDA vs R lda",
            ],
            targets(found, {name: frame.shape[0] for name, frame, _ in data}),
        )
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--only", help="comma-separated table names")
    parser.add_argument(
        "--discordant",
        metavar="TABLE",
        help="print the rows of TABLE that exactly one of MixedNB() and R's e1071 classifies "
        "right, with each one's probability of its verdict (needs R)",
    )
    parser.add_argument(
        "--no-peers",
        action="store_true",
        help="bayeskit's models only: skip R's and Weka's classifiers (Rscript still exports "
        "R's tables)",
    )
    args = parser.parse_args()
    if args.discordant:
        return show_discordant(args.discordant, args.folds)
    only = set(args.only.split(",")) if args.only else None
    found = tables(data_dir(), args.folds, only, log=_stderr, peers=not args.no_peers)
    for title, header, rows in found:
        print(f"## {title}\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print()
    missing = [p for p in ("Rscript", "java") if shutil.which(p) is None]
    if missing or not WEKA_JAR.exists():
        print(f"Skipped peers: {', '.join(missing) or 'the Weka jar'} not installed.")
    return 0


def show_discordant(name: str, k: int) -> int:
    """Print the rows of table ``name`` that exactly one of MixedNB() and e1071 classifies
    right (the rows McNemar's test counts), each with both models' probability of its
    verdict: are the rows one of them loses near-ties for it?"""
    data = [t for t in r_tables({name}) + sklearn_tables({name}) if t[0] == name]
    if not data or shutil.which("Rscript") is None:
        print(f"{name}: no such table, or R is not installed")
        return 1
    _, frame, y = data[0]
    found = evaluate(name, frame, y, k, _stderr)
    ours, theirs = found["MixedNB()"], found.get("R e1071 naiveBayes")
    if isinstance(ours, str) or theirs is None or isinstance(theirs, str):
        print(f"{name}: a model was refused: {ours if isinstance(ours, str) else theirs}")
        return 1
    rows = discordant(frame, y, ours, theirs, ("MixedNB()", "e1071"))
    print(f"## {name}, {k} folds: the {len(rows)} rows exactly one of the two gets right\n")
    print("| row | " + " | ".join(map(str, rows.columns)) + " |")
    print("|---" * (len(rows.columns) + 1) + "|")
    for index, values in rows.iterrows():
        print(f"| {index} | " + " | ".join(map(str, values.tolist())) + " |")
    print(f"\nMcNemar's exact p = {mcnemar(ours, theirs):.3f}")
    return 0


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
