"""The network classifiers on the shared UCI tables: at least as accurate as naive Bayes
where the features interact, under the same 10 folds."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.datasets.shared import load_spambase, load_uci_table


def _accuracy(make, X, y, folds: int = 10) -> float:
    split = StratifiedKFold(folds, shuffle=True, random_state=0)
    right = 0
    for train, test in split.split(np.zeros(len(y)), y):
        right += int(np.sum(make().fit(X[train], y[train]).predict(X[test]) == y[test]))
    return right / len(y)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")
@pytest.mark.parametrize("name", ["car", "nursery", "voting", "mushroom"])
def test_tan_and_aode_are_at_least_as_accurate_as_categorical_nb(shared_data, name):
    X, y = load_uci_table(name, shared_data)
    naive = _accuracy(bk.CategoricalNB, X, y)
    tan = _accuracy(bk.TANClassifier, X, y)
    aode = _accuracy(bk.AODEClassifier, X, y)
    assert tan >= naive, (naive, tan)
    assert aode >= naive, (naive, aode)
    if name in ("car", "nursery"):  # the features interact: the networks gain points
        assert min(tan, aode) >= naive + 0.02


@pytest.mark.slow
def test_spambase_discretized_beats_naive_bayes_on_the_same_intervals(shared_data):
    X, y, _ = load_spambase(shared_data)
    naive = _accuracy(bk.DiscretizedNB, X, y, folds=5)
    tan = _accuracy(bk.TANClassifier, X, y, folds=5)
    assert tan > naive, (naive, tan)


def test_tan_on_car_finds_the_known_dependencies(shared_data):
    """Car evaluation's class is a function of the six attributes through two intermediate
    concepts (price = buying x maint; tech = comfort x safety): the tree links the pairs
    that share a concept."""
    X, y = load_uci_table("car", shared_data)
    names = ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
    model = bk.TANClassifier().fit(X, y)
    parents = {
        names[int(k[1:])]: tuple(names[int(p[1:])] for p in v) for k, v in model.parents_.items()
    }
    linked = {frozenset((k, v[0])) for k, v in parents.items() if v}
    assert frozenset(("buying", "maint")) in linked
