"""EM on a cluster: bayeskit.dask.fit runs a GaussianMixtureClassifier as one reduction per EM
iteration, and the model is the in-memory one from the same start."""

from __future__ import annotations

import itertools
import warnings
from functools import partial

import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.dask._fit import _reduction
from bayeskit.dask._partitions import split
from bayeskit.errors import BayeskitError, DataError, InputTypeError, MergeError, ParameterError
from bayeskit.mixture._rounds import ClassRows, em_steps
from bayeskit.reduction import rounds_for

from ..mixture.test_check import infert_like

pytestmark = pytest.mark.xdist_group("dask")


def blobs(seed: int = 0, n: int = 90):
    """Three string classes, each two or three blobs in 3-D, rows shuffled (every class
    spans the partitions)."""
    rng = np.random.default_rng(seed)
    centres = {
        "north": [[0, 0, 0], [4, 4, 0]],
        "south": [[0, 4, 4], [4, 0, 4], [8, 8, 8]],
        "west": [[-4, 0, 2], [-4, 5, 2]],
    }
    X, y = [], []
    for label, cs in centres.items():
        for c in cs:
            X.append(rng.normal(c, [0.6, 1.0, 0.4], size=(n // len(cs), 3)))
            y += [label] * (n // len(cs))
    X, y = np.vstack(X), np.array(y)
    order = rng.permutation(len(y))
    return X[order], y[order]


def assert_same_mixtures(got, want, rtol=1e-10):
    np.testing.assert_array_equal(got.classes_, want.classes_)
    np.testing.assert_array_equal(got.n_components_, want.n_components_)
    np.testing.assert_array_equal(got.n_iter_, want.n_iter_)
    np.testing.assert_array_equal(got.converged_, want.converged_)
    np.testing.assert_allclose(got.lower_bound_, want.lower_bound_, rtol=rtol)
    np.testing.assert_allclose(got.class_count_, want.class_count_, rtol=1e-14)
    for label in want.classes_.tolist():
        for name in ("weights_", "means_", "covariances_"):
            np.testing.assert_allclose(
                getattr(got, name)[label], getattr(want, name)[label], rtol=rtol, atol=1e-12
            )
    assert got.bic_.keys() == want.bic_.keys()
    for label, table in want.bic_.items():
        assert got.bic_[label].keys() == table.keys()
        np.testing.assert_allclose(list(got.bic_[label].values()), list(table.values()), rtol=rtol)


SETTINGS = {
    "diag": dict(n_components=2),
    "full": dict(n_components=2, covariance_type="full"),
    "bic-diag-n_init": dict(max_components=3, n_init=2),
    "tied-dict": dict(n_components={"north": 2, "south": 3, "west": 1}, covariance_type="tied"),
    # the prior is set from each class's own rows: round 0's one-component statistics
    "full-conjugate-bic": dict(max_components=3, covariance_type="full", prior="conjugate"),
    "diag-conjugate": dict(n_components=2, prior="conjugate"),
    # QDA's shrinkage in every M-step, on the summed statistics of the round
    "full-reg_param-bic": dict(max_components=3, covariance_type="full", reg_param=0.1),
    "diag-reg_param-conjugate": dict(n_components=2, reg_param=0.05, prior="conjugate"),
    "spherical-means_init": dict(
        n_components=2,
        covariance_type="spherical",
        means_init={"north": [[0, 0, 0], [4, 4, 0]], "west": [[-4, 0, 2], [-4, 5, 2]]},
    ),
}


@pytest.mark.parametrize("name", list(SETTINGS))
def test_em_on_the_cluster_is_em_in_memory(name, on_cluster):
    X, y = blobs()
    make = lambda: bk.GaussianMixtureClassifier(random_state=0, **SETTINGS[name])  # noqa: E731
    want = make().fit(X, y)
    chunks = (70, 0, 45, 125, 30)  # an empty partition; every class in several partitions
    Xd = da.from_array(X, chunks=(chunks, 3))
    got = bkd.fit(make(), Xd, da.from_array(y, chunks=(chunks,)))
    assert_same_mixtures(got, want)
    np.testing.assert_allclose(
        bkd.predict_proba(got, Xd).compute(), want.predict_proba(X), rtol=1e-9, atol=1e-12
    )


def test_one_partition_gives_the_in_memory_model_bit_for_bit(on_threads):
    X, y = blobs(seed=1)
    weight = np.random.default_rng(1).integers(0, 3, size=len(y)).astype(float)
    for cov in ("diag", "full"):
        make = partial(
            bk.GaussianMixtureClassifier, n_components=2, covariance_type=cov, random_state=3
        )
        want = make().fit(X, y, sample_weight=weight)
        got = bkd.fit(make(), da.from_array(X, chunks=-1), y, sample_weight=weight)
        assert_same_mixtures(got, want, rtol=0)


def test_a_partition_of_zero_weights_is_no_error(on_threads):
    X, y = blobs(seed=6)
    weight = np.ones(len(y))
    weight[:90] = 0.0  # the first partition weighs nothing
    make = partial(bk.GaussianMixtureClassifier, n_components=2, random_state=0)
    got = bkd.fit(make(), da.from_array(X, chunks=90), y, sample_weight=weight)
    assert_same_mixtures(got, make().fit(X, y, sample_weight=weight))
    with pytest.raises(DataError, match="every sample_weight is zero"):
        bkd.fit(make(), da.from_array(X, chunks=90), y, sample_weight=np.zeros(len(y)))


@settings(max_examples=6, deadline=None)
@given(
    seed=st.integers(0, 1000),
    cuts=st.lists(st.integers(0, 270), max_size=5),
    cov=st.sampled_from(["diag", "full"]),
)
def test_em_over_partitionings(seed, cuts, cov):
    X, y = blobs(seed)
    bounds = [0, *sorted(cuts), len(y)]
    chunks = tuple(b - a for a, b in itertools.pairwise(bounds))
    make = lambda: bk.GaussianMixtureClassifier(  # noqa: E731
        n_components=2, covariance_type=cov, random_state=seed
    )
    with dask.config.set(scheduler="sync"):
        got = bkd.fit(make(), da.from_array(X, chunks=(chunks, 3)), y)
    assert_same_mixtures(got, make().fit(X, y))


def _drive(estimator, X, y, chunks):
    """Run the fit's rounds on the current scheduler, recording each EM round's lower bound
    of every class (one run per class: an int n_components, one start)."""
    parts = split(da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=(chunks,)))
    rounds = rounds_for(estimator, partial=False)
    bounds: dict[int, list[float]] = {}
    step = next(rounds)
    try:
        while True:
            total = dask.compute(_reduction(step, parts, 8))[0]
            if step.summarize is em_steps:
                tasks = step.state[2]
                for (c, _), s in zip(tasks, total.values[0].values, strict=True):
                    bounds.setdefault(c, []).append(s.log_likelihood / s.weight)
            step = rounds.send(total)
    except StopIteration:
        pass
    return bounds


def test_the_log_likelihood_never_decreases_from_round_to_round(on_cluster):
    X, y = blobs(seed=2)
    model = bk.GaussianMixtureClassifier(
        n_components=3, covariance_type="full", tol=1e-8, max_iter=40, random_state=5
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        bounds = _drive(model, X, y, (100, 100, 70))
    assert sorted(bounds) == [0, 1, 2]
    for c, values in bounds.items():
        assert len(values) >= 3
        steps = np.diff(values)
        # the ridge (reg_covar times each column's variance, added after the M-step) lies
        # outside the likelihood EM ascends: at convergence it may cost ~1e-11 of the bound
        assert (steps >= -1e-10 * np.abs(values[1:])).all(), (c, values)
    np.testing.assert_allclose([v[-1] for v in bounds.values()], model.lower_bound_, rtol=1e-15)


def test_each_round_sends_the_mixtures_once(on_threads):
    X, y = blobs()
    parts = split(da.from_array(X, chunks=30), da.from_array(y, chunks=30))  # 9 partitions
    rounds = rounds_for(bk.GaussianMixtureClassifier(n_components=2, random_state=0), partial=False)
    step = next(rounds)
    step = rounds.send(dask.compute(_reduction(step, parts, 8))[0])  # the first EM round
    assert step.summarize is em_steps
    graph = dict(_reduction(step, parts, 8).__dask_graph__())
    holders = [k for k, v in graph.items() if getattr(v, "value", v) is step.state]
    assert len(holders) == 1  # one key holds the mixtures; the 9 partition tasks refer to it


def test_not_converging_warns_and_reports_as_in_memory(on_threads):
    X, y = blobs(seed=4)
    make = lambda: bk.GaussianMixtureClassifier(  # noqa: E731
        n_components=3, max_iter=2, tol=1e-12, random_state=0
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        got = bkd.fit(make(), da.from_array(X, chunks=50), y)
        want = make().fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(messages) == 6  # each class, on the cluster and in memory
    assert messages[:3] == messages[3:]
    assert "EM did not converge for class 'north' (3 components) in 2 iterations" in messages[0]
    assert not got.converged_.any()
    np.testing.assert_array_equal(got.n_iter_, [2, 2, 2])
    assert_same_mixtures(got, want)


def test_a_class_larger_than_the_sample_starts_from_a_sample_the_partitions_do_not_change(
    on_threads,
):
    X, y = blobs(seed=5, n=300)
    make = lambda: bk.GaussianMixtureClassifier(n_components=2, random_state=0)  # noqa: E731
    a = bkd.fit(make(), da.from_array(X, chunks=100), y, init_sample=60)
    b = bkd.fit(make(), da.from_array(X, chunks=((13, 500, 0, 387), 3)), y, init_sample=60)
    assert_same_mixtures(a, b)
    assert a.converged_.all()
    # a start from a sample converges to the same blobs as the in-memory start
    want = make().fit(X, y)
    for label in want.classes_.tolist():
        mine, theirs = a.means_[label], want.means_[label]
        np.testing.assert_allclose(
            mine[np.argsort(mine[:, 0])], theirs[np.argsort(theirs[:, 0])], atol=0.05
        )


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(0, 40),
    limit=st.integers(1, 30),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    duplicates=st.booleans(),
)
def test_a_class_sample_is_the_same_however_the_rows_are_split(n, limit, cuts, duplicates):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 2))
    if duplicates and n:
        X = X[rng.integers(0, max(n // 3, 1), size=n)]
    w = rng.uniform(0.5, 2, size=n)

    def rows(lo, hi):
        return ClassRows.of(X[lo:hi], w[lo:hi], None, limit, seed=7)

    whole = rows(0, n)
    bounds = [0, *sorted(min(c, n) for c in cuts), n]
    pieces = [rows(a, b) for a, b in itertools.pairwise(bounds)]
    left = pieces[0]
    for piece in pieces[1:]:
        left = left + piece
    right = pieces[-1]
    for piece in reversed(pieces[:-1]):
        right = piece + right
    for total in (left, right):
        np.testing.assert_array_equal(total.X, whole.X)
        np.testing.assert_array_equal(total.weight, whole.weight)
        assert total.n_rows == n
    assert len(whole.weight) == min(n, limit)
    if n <= limit:  # the whole class, in row order
        np.testing.assert_array_equal(whole.X, X)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_check_against_gaussian_nb_on_the_cluster_is_the_check_in_memory(seed, on_cluster):
    """The default fit checks BIC's mixtures against GaussianNB on folds of the rows (seed 1:
    it gives way to GaussianNB; seed 0, without the income column, it keeps them); the
    cluster makes the same folds, the same fits on them and the same choice, from a named
    DataFrame as from an array (seed 1)."""
    import dask.dataframe as dd
    import pandas as pd

    X, y = infert_like(seed, income=False)
    frame = pd.DataFrame(X, columns=["low", "mid", "high", "age", "parity"])
    want = bk.GaussianMixtureClassifier().fit(frame, y)
    assert (want.n_components_.max() == 1) == (seed == 1)
    got = bkd.fit(
        bk.GaussianMixtureClassifier(),
        dd.from_pandas(frame, npartitions=3),
        dd.from_pandas(pd.Series(y), npartitions=3),
    )
    assert_same_mixtures(got, want)
    if seed == 0:
        return  # from an array once (the suite's time)
    chunks = (100, 0, 150)
    got = bkd.fit(
        bk.GaussianMixtureClassifier(),
        da.from_array(X, chunks=(chunks, 5)),
        da.from_array(y, chunks=(chunks,)),
    )
    assert_same_mixtures(got, bk.GaussianMixtureClassifier().fit(X, y))


def test_the_check_of_classes_larger_than_the_sample_does_not_depend_on_the_parts(on_threads):
    X, y = infert_like(3, n=400, income=False)
    make = bk.GaussianMixtureClassifier
    a = bkd.fit(make(), da.from_array(X, chunks=100), y, init_sample=60)
    b = bkd.fit(make(), da.from_array(X, chunks=((13, 300, 0, 87), 5)), y, init_sample=60)
    assert_same_mixtures(a, b)


def test_what_the_cluster_cannot_run_is_refused_by_name(on_threads):
    X, y = blobs()
    Xd, yd = da.from_array(X, chunks=50), da.from_array(y, chunks=50)
    model = bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y)
    before = model.stats_
    with pytest.raises(MergeError, match="EM is not additive within a class"):
        bkd.partial_fit(model, Xd, yd)
    assert model.stats_ is before
    for bad in (0, -5, 2.5, True, 10**9):
        with pytest.raises(ParameterError, match="init_sample"):
            bkd.fit(model, Xd, yd, init_sample=bad)
    assert model.stats_ is before
    with pytest.raises(ParameterError, match="only applies to GaussianMixtureClassifier"):
        bkd.fit(bk.GaussianNB(), Xd, yd, init_sample=100)
    with pytest.raises(ParameterError, match="init_sample does not apply to SemiSupervisedNB"):
        bkd.fit(bk.SemiSupervisedNB(), Xd, yd, init_sample=100)
    with pytest.raises(InputTypeError, match="not a GaussianMixture"):
        bkd.fit(GaussianMixture(), Xd, yd)  # scikit-learn's: not a bayeskit estimator
    with pytest.raises(ParameterError, match="n_components has no entry for class 'west'"):
        bkd.fit(bk.GaussianMixtureClassifier(n_components={"north": 1, "south": 1}), Xd, yd)
    # zero variance without reg_covar: refused as in memory, the model left as it was
    one_row = np.vstack([X, [[9.0, 9.0, 9.0]]])
    labels = np.append(y, "lonely")
    make = lambda: bk.GaussianMixtureClassifier(n_components=1, reg_covar=0.0)  # noqa: E731
    with pytest.raises(BayeskitError) as in_memory:
        make().fit(one_row, labels)
    with pytest.raises(type(in_memory.value)) as on_dask:
        bkd.fit(model.set_params(reg_covar=0.0, n_components=1), da.from_array(one_row, 50), labels)
    assert str(on_dask.value) == str(in_memory.value)
    assert model.stats_ is before


def test_a_column_reg_covar_swamps_is_named_on_the_cluster_too(on_threads):
    """The warning the in-memory fit gives (an absolute reg_covar, var_floor=None, above a
    column's variance within a class) was missing from bayeskit.dask.fit's rounds."""
    from bayeskit.mixture import SwampedColumnWarning

    X, y = blobs(seed=2)
    X = X * np.array([1.0, 1.0, 1e-5])  # the third column's variances ~1e-11
    make = partial(bk.GaussianMixtureClassifier, n_components=2, random_state=0, var_floor=None)
    for fit in (lambda: make().fit(X, y), lambda: bkd.fit(make(), da.from_array(X, chunks=30), y)):
        with pytest.warns(SwampedColumnWarning, match=r"column 'x2' within class 'north'"):
            fit()
