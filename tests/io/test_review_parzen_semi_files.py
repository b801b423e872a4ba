"""Hostile review of the model files of ParzenWindowClassifier and SemiSupervisedNB: round
trips give identical predictions, and a part a newer bayeskit would write is refused by name,
as a statistic block's is."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.io._format import decode, encode

from ._refusal import parts, refused, seal


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))]
    return X, np.repeat([0, 1], 20)


PARZEN = [
    {},
    {"bandwidth": "loo-likelihood"},
    {"bandwidth": "cv-accuracy", "adaptive": 2},
    {"kernel": "epanechnikov", "metric": "mahalanobis", "bandwidth": 1.5},
]


@pytest.mark.parametrize("settings", PARZEN)
def test_parzen_and_its_semi_supervised_wrapper_load_back_identical(settings, tmp_path):
    X, y = _data()
    Q = np.random.default_rng(1).normal(1.5, 2, (30, 2))
    semi_y = np.where(np.arange(40) % 3 == 0, -1, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (EM's convergence, not the subject)
        models = [
            bk.ParzenWindowClassifier(**settings).fit(X, y),
            bk.SemiSupervisedNB(bk.ParzenWindowClassifier(**settings), max_iter=3).fit(X, semi_y),
        ]
    for i, model in enumerate(models):
        path = tmp_path / f"m{i}.bk"
        bk.save(model, path)
        loaded = bk.load(path)
        np.testing.assert_array_equal(loaded.predict(Q), model.predict(Q))
        np.testing.assert_array_equal(loaded.predict_proba(Q), model.predict_proba(Q))


def _semi_file(tmp_path):
    X, y = _data()
    path = tmp_path / "semi.bk"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bk.save(bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, np.where(y == 1, -1, y)), path)
    return path


def test_a_semi_supervised_state_part_of_a_newer_version_is_refused(tmp_path):
    """state.<unknown> was ignored: the model loaded without the part that file relied on."""
    meta, entries = parts(_semi_file(tmp_path))
    meta["state"]["responsibilities"] = [0.5, 0.5]
    crafted = tmp_path / "newer.bk"
    seal(crafted, meta, entries)
    refused(crafted, "'responsibilities'", "does not write", "newer bayeskit")


def _parzen_record(tmp_path, **settings):
    X, y = _data()
    path = tmp_path / "parzen.bk"
    bk.save(bk.ParzenWindowClassifier(**settings).fit(X, y), path)
    meta, entries = parts(path)
    record = decode(meta["fitted"], "fitted", 0) if "fitted" in meta else {}
    return meta, entries, dict(record)


@pytest.mark.parametrize(
    "settings", [{}, {"bandwidth": "loo-likelihood"}, {"adaptive": 3}], ids=str
)
def test_a_parzen_record_part_of_a_newer_version_is_refused_by_name(settings, tmp_path):
    meta, entries, record = _parzen_record(tmp_path, **settings)
    record["kernel_cache"] = np.zeros(3)
    meta["fitted"] = encode(record, "fitted", 0)
    crafted = tmp_path / "newer.bk"
    seal(crafted, meta, entries)
    refused(crafted, "'kernel_cache'", "does not write", "newer bayeskit")


def test_a_parzen_search_part_of_a_newer_version_is_refused_by_name(tmp_path):
    meta, entries, record = _parzen_record(tmp_path, bandwidth="cv-accuracy")
    record["search"] = {**record["search"], "brier": np.zeros(21)}
    meta["fitted"] = encode(record, "fitted", 0)
    crafted = tmp_path / "newer.bk"
    seal(crafted, meta, entries)
    refused(crafted, "'brier'", "does not write", "newer bayeskit")
