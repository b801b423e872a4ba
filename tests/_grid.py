"""Every estimator with a data generator suited to it: the grid the common tests run through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pytest

import bayeskit as bk
from bayeskit._estimators import ESTIMATORS as REGISTERED
from bayeskit.contract import contract_of, declares
from bayeskit.errors import SingularCovarianceError
from bayeskit.stats import Sample, Statistic


def counts(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return rng.poisson(1.5, size=(n, d)).astype(np.float64)


def binary(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return (rng.random((n, d)) < 0.4).astype(np.float64)


def categories(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    values = np.array(["red", "green", "blue", "grey"], dtype=object)
    X = values[rng.integers(0, 4, size=(n, d))]
    X[rng.random((n, d)) < 0.1] = None
    return X


def codes_with_missing(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Ordinal codes as floats with NaN for missing: the compiled categorical path."""
    X = rng.integers(-1, 4, size=(n, d)).astype(np.float64)
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def int_codes(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return rng.integers(0, 5, size=(n, d)) * 3  # gaps between codes


def counts_with_missing(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    X = counts(rng, n, d)
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def out_of_six(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Successes out of 6 trials (BinomialNB(n_trials=6)); NaN marks a missing value."""
    X = rng.binomial(6, rng.uniform(0.1, 0.9, size=d), size=(n, d)).astype(np.float64)
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def reals(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Real features on different scales and offsets; NaN marks a missing value (GaussianNB)."""
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d) * 5
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def rounded_reals(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Real values with ties (one decimal) and about 10% missing (DiscretizedNB)."""
    X = np.round(rng.normal(size=(n, d)) * 2.0, 1)
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def heavy_tailed(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Heavy-tailed reals with many exact zeros and ~10% missing (KernelNB)."""
    X = rng.standard_t(2, size=(n, d)) * rng.uniform(0.5, 3.0, size=d)
    X[rng.random((n, d)) < 0.3] = 0.0
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


def complete_reals(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Real features on different scales, without missing values (ParzenWindowClassifier)."""
    return rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d) * 5


def correlated_reals(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Correlated real features on different scales and offsets, nothing missing
    (discriminant analysis refuses NaN). The mixing is a rotation between two scalings, so its
    condition number stays below 36: a random Gaussian matrix is now and then nearly singular
    and its columns collinear, which the estimators rightly refuse."""
    rotation, _ = np.linalg.qr(rng.normal(size=(d, d)))
    mixing = rng.uniform(0.5, 3.0, size=(d, 1)) * rotation * rng.uniform(0.5, 3.0, size=d)
    return rng.normal(size=(n, d)) @ mixing + rng.normal(size=d) * 5


def mixed_columns(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Columns of three kinds in turn, as an object array: real values, colour names (with
    missing values) and counts (MixedNB with a family given for each)."""
    X = np.empty((n, d), dtype=object)
    for j in range(d):
        if j % 3 == 0:
            X[:, j] = rng.normal(size=n) * (j + 1) + j
        elif j % 3 == 1:
            X[:, j] = categories(rng, n, 1)[:, 0]
        else:
            X[:, j] = rng.poisson(1.5, size=n).astype(np.float64)
    return X


#: MixedNB's families for mixed_columns' five columns of the grid
MIXED_FAMILIES = {0: "gaussian", 1: "categorical", 2: "poisson", 3: "gaussian", 4: "categorical"}


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[], bk.GenerativeClassifier]
    data: Callable[[np.random.Generator, int, int], np.ndarray]
    #: settings that change the fitted model without a refit (default: a new alpha)
    resmooth: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return self.name


CASES = [
    Case("MultinomialNB", bk.MultinomialNB, counts),
    Case("MultinomialNB-map", lambda: bk.MultinomialNB(alpha=2.0, estimate="map"), counts),
    Case("ComplementNB", bk.ComplementNB, counts),
    Case("ComplementNB-norm", lambda: bk.ComplementNB(norm=True, alpha=0.5), counts),
    Case("MultinomialNB-corpus", lambda: bk.MultinomialNB(smoothing="corpus"), counts),
    Case("ComplementNB-corpus", lambda: bk.ComplementNB(smoothing="corpus", norm=True), counts),
    Case(
        "MultinomialNB-corpus-power",
        lambda: bk.MultinomialNB(smoothing="corpus", corpus_power=0.75, alpha=0.3),
        counts,
        {"corpus_power": 1.0},
    ),
    Case("BernoulliNB", bk.BernoulliNB, binary),
    Case("BernoulliNB-binarize", lambda: bk.BernoulliNB(binarize=1.0), counts),
    Case("CategoricalNB", bk.CategoricalNB, categories),
    Case("CategoricalNB-ignore", lambda: bk.CategoricalNB(unseen="ignore", alpha=0.5), categories),
    Case("CategoricalNB-codes", bk.CategoricalNB, codes_with_missing),
    Case("CategoricalNB-int", lambda: bk.CategoricalNB(alpha=0.5), int_codes),
    Case("TAN", bk.TANClassifier, categories),
    Case("TAN-codes", lambda: bk.TANClassifier(alpha=0.5, discretize="none"), codes_with_missing),
    Case("AODE", bk.AODEClassifier, categories, {"m": 5}),
    Case("AODE-int", lambda: bk.AODEClassifier(estimate="map", alpha=2.0), int_codes),
    Case("KDB", lambda: bk.KDBClassifier(k=2), categories, {"alpha": 0.3, "k": 2}),
    Case("GaussianNB", lambda: bk.GaussianNB(var_smoothing=1e-4), reals, {"var_smoothing": 1e-3}),
    Case(
        "GaussianNB-shared",
        lambda: bk.GaussianNB(shared_variance=True, var_smoothing=1e-4),
        reals,
        {"var_smoothing": 1e-3},
    ),
    Case(
        "GaussianNB-predictive",
        lambda: bk.GaussianNB(estimate="predictive", prior_count=2.0),
        reals,
        {"prior_count": 0.5, "var_smoothing": 1e-3},
    ),
    Case("DiscretizedNB", bk.DiscretizedNB, rounded_reals),
    Case("DiscretizedNB-width", lambda: bk.DiscretizedNB(method="width", n_bins=4), rounded_reals),
    Case(
        "DiscretizedNB-frequency",
        lambda: bk.DiscretizedNB(method="frequency", n_bins=5, alpha=0.5),
        rounded_reals,
    ),
    Case("KernelNB", bk.KernelNB, heavy_tailed, {"bandwidth": 0.5, "kernel": "epanechnikov"}),
    Case(
        "KernelNB-cv",
        lambda: bk.KernelNB(bandwidth="cv", kernel="biweight", grid_size=256),
        reals,
        {"bandwidth": "scott", "grid_size": 512},
    ),
    Case(
        "KernelNB-per-class",
        lambda: bk.KernelNB(shared_bandwidth=False, bandwidth=0.7),
        reals,
        {"tail_weight": 0.1, "min_bandwidth": 0.01},
    ),
    Case("PoissonNB", bk.PoissonNB, counts_with_missing),
    Case("PoissonNB-length", lambda: bk.PoissonNB(given_length=True, alpha=1.0, beta=1.0), counts),
    Case("BinomialNB", lambda: bk.BinomialNB(n_trials=6), out_of_six),
    Case(
        "BinomialNB-map", lambda: bk.BinomialNB(n_trials=6, alpha=2.0, estimate="map"), out_of_six
    ),
    Case("Parzen", bk.ParzenWindowClassifier, complete_reals, {"bandwidth": 0.8}),
    Case(
        "Parzen-loo-epanechnikov",
        lambda: bk.ParzenWindowClassifier(kernel="epanechnikov", bandwidth="loo-likelihood"),
        complete_reals,
        {"bandwidth": "cv-accuracy", "kernel": "linear"},
    ),
    Case(
        "Parzen-adaptive-manhattan",
        lambda: bk.ParzenWindowClassifier(metric="manhattan", adaptive=3, bandwidth="silverman"),
        complete_reals,
        {"metric": "minkowski", "p": 3.0, "kernel": "exponential"},
    ),
    # Discriminant analysis: the laws fit parts of a few rows, whose covariances are singular
    # without regularisation (both sides of a law then refuse to predict, and their
    # statistics still agree). Ledoit-Wolf shrinkage is left to tests/discriminant: its
    # intensity on a class of 2 or 3 rows left by unlearning 55 of 60 is within rounding of 0.
    Case("LDA", bk.LinearDiscriminantAnalysis, correlated_reals, {"priors": [0.2, 0.3, 0.5]}),
    Case(
        "LDA-shrinkage",
        lambda: bk.LinearDiscriminantAnalysis(shrinkage=0.3),
        correlated_reals,
        {"shrinkage": 0.6},
    ),
    Case(
        "QDA",
        lambda: bk.QuadraticDiscriminantAnalysis(reg_param=0.1),
        correlated_reals,
        {"reg_param": 0.4},
    ),
    Case(
        "RDA",
        bk.RegularizedDiscriminantAnalysis,
        correlated_reals,
        {"lam": 0.2, "gamma": 0.3},
    ),
    Case(
        "MixedNB",
        lambda: bk.MixedNB(families=MIXED_FAMILIES, options={"gaussian": {"var_smoothing": 1e-4}}),
        mixed_columns,
        {"fit_prior": False},
    ),
    # Fitted by rounds (EM): the laws its declaration disclaims are skipped, by it. One
    # component per class: EM's start then draws nothing that the rows' order could change.
    Case(
        "GaussianMixture",
        lambda: bk.GaussianMixtureClassifier(n_components=1, random_state=0),
        complete_reals,
        {},
    ),
    Case(
        "GaussianMixture-full",
        lambda: bk.GaussianMixtureClassifier(
            n_components=1, covariance_type="full", reg_covar=1e-3, random_state=0
        ),
        correlated_reals,
        {},
    ),
    # A wrapper fitted by rounds (EM) whose statistics are its wrapped model's.
    Case("SemiSupervisedNB", bk.SemiSupervisedNB, counts, {}),
]


def registry() -> dict[str, type]:
    """Every estimator a user may name: the model-file registry and every public name of
    bayeskit that declares a contract (the template itself aside: its subclasses are)."""
    public = {
        name: getattr(bk, name)
        for name in bk.__all__
        if name != "GenerativeClassifier" and declares(getattr(bk, name))
    }
    return {**REGISTERED, **public}


def law_cases(*capabilities: str, statistics: bool = False) -> list[Any]:
    """The grid's cases for a law that holds given ``capabilities`` (and, with
    ``statistics``, that compares the template's statistics): a case whose estimator's
    declaration disclaims one is skipped, the declaration quoted as the reason."""
    params = []
    for case in CASES:
        model = case.make()
        declared = contract_of(model)
        name = type(model).__name__
        reasons = [declared.refusal(name, c) for c in capabilities if not getattr(declared, c)]
        if statistics and declared.state != "generative":
            reasons.append(
                f"{name} declares state={declared.state!r}: it keeps no statistics of the "
                "template's own to compare"
            )
        marks = [pytest.mark.skip(reason="; ".join(reasons))] if reasons else []
        params.append(pytest.param(case, id=case.name, marks=marks))
    return params


#: Every estimator class that works with its defaults (BinomialNB needs n_trials).
ESTIMATORS = [
    bk.MultinomialNB,
    bk.ComplementNB,
    bk.BernoulliNB,
    bk.CategoricalNB,
    bk.PoissonNB,
    bk.GaussianNB,
    bk.KernelNB,
    bk.DiscretizedNB,
    bk.MixedNB,
    bk.TANClassifier,
    bk.AODEClassifier,
    bk.KDBClassifier,
    bk.ParzenWindowClassifier,
    # Discriminant analysis refuses the bad-input tests' 4 × 3 table with its defaults (2 rows
    # per class: singular covariances); a regularised covariance lets those tests reach the
    # input rule they check.
    partial(bk.LinearDiscriminantAnalysis, shrinkage=0.5),
    partial(bk.QuadraticDiscriminantAnalysis, reg_param=0.5),
    partial(bk.RegularizedDiscriminantAnalysis, gamma=0.1),
]

#: What scikit-learn's check_estimator runs on: every estimator, in its main settings.
CHECKED = [
    *(cls() for cls in ESTIMATORS),
    bk.PoissonNB(given_length=True, alpha=1.0, beta=1.0),
    bk.BinomialNB(n_trials=20),
    bk.GaussianNB(shared_variance=True),
    bk.GaussianNB(estimate="predictive"),
    bk.KernelNB(kernel="epanechnikov", bandwidth="cv"),
    bk.KernelNB(kernel="tophat", bandwidth=0.5, shared_bandwidth=False),
    bk.DiscretizedNB(method="width"),
    bk.KDBClassifier(k=2),
    bk.AODEClassifier(m=30, discretize="numbers"),
    bk.DiscretizedNB(method="frequency", n_bins=4),
    bk.ParzenWindowClassifier(kernel="epanechnikov", bandwidth="cv-accuracy"),
    bk.ParzenWindowClassifier(metric="cosine", adaptive=2),
    bk.GaussianMixtureClassifier(random_state=0),
    bk.GaussianMixtureClassifier(n_components=2, covariance_type="spherical", random_state=0),
    bk.GaussianMixtureClassifier(n_components=2, covariance_type="full", random_state=0),
    bk.GaussianMixtureClassifier(covariance_type="tied", random_state=0),
    bk.GaussianMixtureClassifier(covariance_type="full", reg_param=0.2, random_state=0),
    bk.LinearDiscriminantAnalysis(),
    bk.LinearDiscriminantAnalysis(shrinkage="auto", solver="lsqr"),
    bk.QuadraticDiscriminantAnalysis(),
    bk.RegularizedDiscriminantAnalysis(),
    bk.RegularizedDiscriminantAnalysis(lam=0.0, gamma=0.0),
]


def fit_part(case: Case, X: Any, y: Any) -> bk.GenerativeClassifier:
    """A model of one part of the data (which may be one row): ``fit``, or ``partial_fit``
    for models whose ``fit`` demands two classes (discriminant analysis)."""
    model = case.make()
    if model._min_classes > 1 and contract_of(model).incremental:
        return model.partial_fit(X, y)
    return model.fit(X, y)


def dataset(case: Case, seed: int, n: int = 60, d: int = 5, k: int = 3) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b", "c", "d"])[rng.integers(0, k, size=n)]
    return case.data(rng, n, d), y


def _arrays(stat: Statistic) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A statistic's arrays; a Sample as the multiset of rows it is (identical rows merged,
    rows of weight 0 dropped, rows in a fixed order), since its rows' order is no part of it."""
    if not isinstance(stat, Sample):
        return stat.to_arrays()
    width = 8 * max(stat.n_features, 1)
    keys = np.ascontiguousarray(stat.values).view(np.dtype((np.void, width))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    weight = np.zeros((stat.weight.shape[0], len(first)))
    np.add.at(weight.T, inverse.ravel(), stat.weight.T)
    keep = weight.any(axis=0)
    return {"weight": weight[:, keep], "values": stat.values[first][keep]}, {}


def assert_same_model(
    a: bk.GenerativeClassifier,
    b: bk.GenerativeClassifier,
    X: Any,
    *,
    score_rtol: float | None = 1e-9,
    combined: float = 0.0,
) -> None:
    """Same classes, same statistics and (unless ``score_rtol`` is None) the same joint
    log-likelihood on X to ``score_rtol``; ``combined``: the largest magnitude among the
    statistics ``a`` was computed from, when larger than ``b``'s own (an unlearn's)."""
    np.testing.assert_array_equal(a.classes_, b.classes_)
    # A wrapper (SemiSupervisedNB) holds its statistics in its fitted estimator; its own
    # scores are compared below.
    inner_a, inner_b = getattr(a, "estimator_", a), getattr(b, "estimator_", b)
    np.testing.assert_allclose(inner_a.class_count_, inner_b.class_count_, rtol=1e-12)
    for sa, sb in zip(inner_a.stats_.blocks, inner_b.stats_.blocks, strict=True):
        arrays_a, meta_a = _arrays(sa)
        arrays_b, meta_b = _arrays(sb)
        assert meta_a == meta_b
        for key in arrays_a:
            # Sums and differences of statistics (Chan's formulas, unlearn) round relative to
            # the magnitudes they combine, not to each entry: a scatter entry of 5e-4 beside
            # entries of 60 is off by ~1e-12 after an unlearn (QDA, seed 1821).
            values = np.abs(np.asarray(arrays_b[key], dtype=np.float64))
            scale = float(np.max(values[np.isfinite(values)], initial=1.0))
            # An unlearn subtracts from statistics up to ``combined`` in size: a scatter entry
            # of 3e-9 left by 5 kept rows of 60 came out 0 (QDA, seed 5513, cut 5; the full
            # data's entries up to 507).
            np.testing.assert_allclose(
                arrays_a[key],
                arrays_b[key],
                rtol=1e-12,
                atol=max(1e-12 * max(scale, 1.0), 1e-11 * combined),
            )
    if score_rtol is None:
        return
    try:
        jll_a = a.predict_joint_log_proba(X)
    except SingularCovarianceError:
        # Data with no spread left to estimate a covariance from (two rows of two classes):
        # the same model refuses to score too.
        with pytest.raises(SingularCovarianceError):
            b.predict_joint_log_proba(X)
        return
    np.testing.assert_allclose(
        jll_a, b.predict_joint_log_proba(X), rtol=score_rtol, atol=score_rtol
    )
