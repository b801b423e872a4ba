"""A model defined outside bayeskit, as the guide to adding a model describes it: registered,
its files save and load; names that model files read (estimators, families, statistic kinds)
are never taken twice; a family of a package not imported is named as such."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import InputTypeError, ParameterError
from bayeskit.families._base import FAMILIES, Family
from bayeskit.io.model_file import ESTIMATORS
from bayeskit.stats import Moments
from bayeskit.stats._base import STATISTIC_KINDS

from ._grid import CHECKED, registry

X = np.array([[3, 0], [2, 1], [0, 3], [1, 2]])
Y = ["ham", "ham", "spam", "spam"]


def test_a_registered_outside_model_saves_and_loads(tmp_path):
    class PresenceNB(bk.MultinomialNB):
        "A count above 0 counts once."

        def _check_X(self, X: Any, *, reset: bool) -> Any:
            return (super()._check_X(X, reset=reset) > 0).astype(np.float64)

    path = tmp_path / "p.bk"
    model = PresenceNB().fit(X, Y)
    with pytest.raises(InputTypeError, match="PresenceNB"):
        bk.save(model, path)  # (not registered yet: no file can name it)
    assert bk.register_estimator(PresenceNB) is PresenceNB
    try:
        assert bk.register_estimator(PresenceNB) is PresenceNB  # (again: the same class)
        bk.save(model, path)
        loaded = bk.load(path)
        assert type(loaded) is PresenceNB
        np.testing.assert_array_equal(loaded.predict_proba(X * 5), model.predict_proba(X))
    finally:
        del ESTIMATORS["PresenceNB"]


def test_register_refuses_what_no_file_can_hold_and_names_taken():
    with pytest.raises(InputTypeError, match="GenerativeClassifier"):
        bk.register_estimator(dict)
    taken = type("GaussianNB", (bk.MultinomialNB,), {})
    with pytest.raises(ParameterError, match="'GaussianNB' is taken by bayeskit"):
        bk.register_estimator(taken)
    with pytest.raises(ParameterError, match=r"taken by bayeskit\.text"):
        bk.register_estimator(type("SpamFilter", (bk.MultinomialNB,), {}))
    assert ESTIMATORS["GaussianNB"] is bk.GaussianNB


def test_a_family_or_statistic_name_taken_is_refused():
    """A class named like a built-in one replaced it for every file loaded after: an ordinary
    GaussianNB file then ran another class's from_arrays."""
    with pytest.raises(TypeError, match=r"'gaussian' is taken by bayeskit\.families"):

        class Imposter(Family):
            name: ClassVar[str] = "gaussian"

            def config(self) -> dict[str, Any]:
                return {}

    with pytest.raises(TypeError, match=r"'moments' is taken by bayeskit\.stats"):

        class MyMoments(Moments):
            kind = "moments"

    assert FAMILIES["gaussian"].__module__ == "bayeskit.families.gaussian"
    assert STATISTIC_KINDS["moments"] is Moments


def test_a_family_of_a_package_not_imported_is_named_so():
    with pytest.raises(ParameterError, match="known once that package is imported"):
        bk.MixedNB(families={0: "laplace"}).fit(np.ones((4, 1)), Y)


def test_every_registered_estimator_meets_scikit_learn_s_checks():
    """The guide's grid runs scikit-learn's checks on CHECKED: a new estimator joins it
    (SemiSupervisedNB, a wrapper, has its own in tests/test_semi_supervised.py)."""
    checked = {type(estimator) for estimator in CHECKED}
    missing = sorted(
        name
        for name, cls in registry().items()
        if cls not in checked and name != "SemiSupervisedNB"
    )
    assert not missing, f"add {missing} to ESTIMATORS or CHECKED in tests/_grid.py"


def test_the_report_draws_a_family_by_what_it_declares():
    """The report drew only the families of a list of names: a new family with a density of
    its own was left out without a word."""
    from bayeskit.families import Gaussian
    from bayeskit.report import build_report

    class WideGaussian(Gaussian):
        name = "wide_gaussian_for_a_test"

    try:
        rng = np.random.default_rng(0)
        data = rng.normal(size=(80, 2)) + np.repeat([[0.0, 0.0], [2.0, 1.0]], 40, axis=0)
        y = np.repeat(["a", "b"], 40)
        model = bk.MixedNB(families={0: WideGaussian.name, 1: "gaussian"}).fit(data, y)
        page = build_report(
            title="t", classes=model.classes_, y_true=y, proba=model.predict_proba(data),
            model=model, X=data, y=y,
        )  # fmt: skip
        assert page.count('<tr data-feature="') == 2
        assert WideGaussian.name in page
    finally:
        FAMILIES.pop(WideGaussian.name, None)
