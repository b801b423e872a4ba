"""The report's mixture section: every component's centre and ellipse, in two projections."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.report import build_report
from bayeskit.report.components import _ellipse

from ._dom import parse


@pytest.mark.parametrize("cov", ["diag", "spherical", "full", "tied"])
def test_a_mixture_shows_its_components(cov):
    X, y = load_wine(return_X_y=True)
    model = bk.GaussianMixtureClassifier(covariance_type=cov, random_state=0).fit(X, y)
    page = build_report(
        title="wine", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, X=X, y=y,
    )  # fmt: skip
    dom = parse(page)
    section = next(s for s in dom.find_all("section") if s.attrs.get("id") == "components")
    figures = section.find_all("figure")
    assert len(figures) == 2  # principal axes, and the two most separating columns
    total = int(model.n_components_.sum())
    for figure in figures:
        assert len(figure.find_all("polyline")) == total  # one ellipse per component
        crosses = [p for p in figure.find_all("path") if "weight" in p.text]
        assert len(crosses) == total
        assert len(figure.find_all("circle")) == len(y)  # every training row (fewer than 1500)
    assert "Components per class" in section.text


def test_other_models_have_no_mixture_section():
    X, y = load_wine(return_X_y=True)
    model = bk.GaussianNB().fit(X, y)
    page = build_report(
        title="wine", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, X=X, y=y,
    )  # fmt: skip
    assert 'id="components"' not in page


def test_ellipse_is_two_standard_deviations():
    S = np.array([[4.0, 0.0], [0.0, 1.0]])
    ring = _ellipse(np.array([1.0, -1.0]), S)
    d2 = np.einsum("ij,jk,ik->i", ring - [1.0, -1.0], np.linalg.inv(S), ring - [1.0, -1.0])
    np.testing.assert_allclose(d2, 4.0)
