"""Model files of the EM models: every new estimator round-trips, and no file can make a
later fit run EM without bound."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import ModelFileError
from bayeskit.io import model_file

from ._refusal import decoded_terms, npy, parts, refused


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


def _rewrite(path: Path, meta: dict, entries: dict[str, bytes]) -> None:
    """A crafted file with valid checksums, so the checks behind them are reached."""
    with open(path, "w+b") as f:
        model_file._write_archive(f, meta, entries)


@pytest.mark.parametrize("cov", ["diag", "spherical", "full", "tied"])
def test_gaussian_mixtures_round_trip(tmp_path, wine, cov):
    X, y = wine
    model = bk.GaussianMixtureClassifier(
        n_components={0: 2, 1: 1, 2: 3}, covariance_type=cov, random_state=0, priors=[0.2, 0.5, 0.3]
    ).fit(X, y)
    bk.save(model, tmp_path / "gmm.bkm")
    loaded = bk.load(tmp_path / "gmm.bkm")
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for attr in ("n_components_", "n_iter_", "converged_", "lower_bound_"):
        np.testing.assert_array_equal(getattr(loaded, attr), getattr(model, attr))
    for label in model.classes_:
        np.testing.assert_array_equal(loaded.means_[label], model.means_[label])
        np.testing.assert_array_equal(loaded.covariances_[label], model.covariances_[label])
    assert loaded.bic_ == model.bic_


@pytest.mark.parametrize("cov", ["full", "diag"])
def test_reg_param_round_trips(tmp_path, wine, cov):
    X, y = wine
    model = bk.GaussianMixtureClassifier(
        covariance_type=cov, reg_param=0.3, prior="conjugate", max_components=2, random_state=0
    ).fit(X, y)
    bk.save(model, tmp_path / "gmm.bkm")
    loaded = bk.load(tmp_path / "gmm.bkm")
    assert loaded.get_params()["reg_param"] == 0.3
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for label in model.classes_:
        np.testing.assert_array_equal(loaded.covariances_[label], model.covariances_[label])


@pytest.mark.parametrize("value", [1.5, -0.2, "0.1"])
def test_a_file_with_a_bad_reg_param_is_refused(tmp_path, wine, value):
    X, y = wine
    path = tmp_path / "gmm.bkm"
    bk.save(bk.GaussianMixtureClassifier(reg_param=0.1, random_state=0).fit(X, y), path)
    meta, entries = parts(path)
    meta["params"]["reg_param"] = value
    _rewrite(path, meta, entries)
    refused(path, "reg_param=")


def test_bic_table_round_trips(tmp_path, wine):
    X, y = wine
    model = bk.GaussianMixtureClassifier(max_components=3, random_state=0).fit(X, y)
    bk.save(model, tmp_path / "gmm.bkm")
    assert bk.load(tmp_path / "gmm.bkm").bic_ == model.bic_
    assert 1 in model.bic_[0]
    assert len(model.bic_[0]) > 1


@pytest.mark.parametrize(
    ("setting", "value", "words"),
    [
        ("max_iter", 10**9, "max_iter=1000000000 is not accepted"),
        ("n_init", 10**6, "n_init=1000000 is not accepted"),
        ("n_components", 10**8, "n_components=100000000 is not accepted"),
        ("max_components", 10**7, "max_components=10000000 is not accepted"),
    ],
)
def test_a_file_cannot_ask_for_unbounded_em(tmp_path, wine, setting, value, words):
    X, y = wine
    path = tmp_path / "gmm.bkm"
    bk.save(bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y), path)
    meta, entries = parts(path)
    meta["params"][setting] = value
    _rewrite(path, meta, entries)
    refused(path, words)


def test_semi_supervised_settings_are_bounded_at_load(tmp_path):
    X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 0], [4, 1, 0], [0, 2, 0], [1, 4, 1]])
    path = tmp_path / "semi.bkm"
    bk.save(bk.SemiSupervisedNB().fit(X, [0, 1, -1, -1, -1, -1]), path)
    meta, entries = parts(path)
    meta["params"]["max_iter"] = 10**9
    _rewrite(path, meta, entries)
    refused(path, "max_iter=1000000000 is not accepted")
    meta["params"]["max_iter"] = 30
    meta["state"]["inner"]["entries"]["class_count.npy"] = "0" * 64
    _rewrite(path, meta, entries)
    refused(path, "manifest does not match")


def test_mixture_statistic_shapes_are_checked(tmp_path, wine):
    X, y = wine
    path = tmp_path / "gmm.bkm"
    bk.save(bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y), path)
    meta, entries = parts(path)
    name = meta["blocks"][0]["arrays"]["owner"]
    buffer = io.BytesIO()
    np.save(buffer, np.array([0, 2, 1, 1, 2, 2]), allow_pickle=False)  # not sorted
    entries[name] = buffer.getvalue()
    meta["entries"][name] = hashlib.sha256(entries[name]).hexdigest()
    _rewrite(path, meta, entries)
    refused(path, "sorted class indices")


def test_semi_supervised_inner_model_is_built_within_the_load_budget(tmp_path):
    """The wrapped model's parameters are taken from the load budget before they are
    computed, as in a file of that model on its own: a budget that holds the file's arrays
    but not the parameters finalize would compute from them refuses the file by name."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(8, 5000))
    path = tmp_path / "semi.bkm"
    model = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, [0, 1, 0, 1, -1, -1, -1, -1])
    bk.save(model, path)
    _, entries = parts(path)
    arrays = sum(len(data) for data in entries.values())
    copy = 8 * 2 * 5000  # the counts' class-fastest copy of the total (a file stores C order)
    with pytest.raises(ModelFileError, match="the multinomial parameters needs"):
        bk.load(path, max_bytes=arrays + copy + 1000)
    np.testing.assert_array_equal(
        bk.load(path, max_bytes=4 * arrays + copy).predict_proba(X), model.predict_proba(X)
    )


def test_parzen_mahalanobis_is_built_within_the_load_budget(tmp_path, wine):
    """A mahalanobis Parzen file whose one row has 20 000 columns: the sample is small, the
    pooled scatter and its factor (d × d stacks) are not, and are refused before finalize."""
    X, y = wine
    path = tmp_path / "parzen.bkm"
    model = bk.ParzenWindowClassifier(metric="mahalanobis").fit(X, y)
    bk.save(model, path)
    np.testing.assert_array_equal(bk.load(path).predict_proba(X), model.predict_proba(X))
    meta, entries = parts(path)
    (block,) = meta["blocks"]
    d = 20_000
    entries[block["arrays"]["values"]] = npy(np.zeros((3, d)))
    entries[block["arrays"]["weight"]] = npy(np.eye(3))
    meta["n_features_in"] = d
    meta.pop("feature_names_in", None)
    meta["entries"] = {n: hashlib.sha256(v).hexdigest() for n, v in entries.items()}
    _rewrite(path, meta, entries)
    refused(path, "the parzen parameters needs", "load(..., max_bytes=...)")


def test_a_component_scatter_that_is_not_one_is_refused(tmp_path, wine):
    """A full-covariance mixture's component scatter matrices are judged like QDA's: one
    with a negative eigenvalue is named as the file's fault (at its class and component)."""
    X, y = wine
    path = tmp_path / "gmm.bkm"
    bk.save(
        bk.GaussianMixtureClassifier(n_components=2, covariance_type="full", random_state=0).fit(
            X, y
        ),
        path,
    )
    meta, entries = parts(path)
    name = meta["blocks"][0]["arrays"]["component_scatter"]
    scatter = np.load(io.BytesIO(entries[name]))
    scatter[3] = -scatter[3]  # component 3: of class 1
    entries[name] = npy(scatter)
    meta["entries"][name] = hashlib.sha256(entries[name]).hexdigest()
    _rewrite(path, meta, entries)
    refused(path, "'component_scatter' of class index 1 (component 3)", "not a scatter matrix")


@pytest.mark.parametrize("output", ["counts", "tfidf"])
def test_semi_supervised_text_model_is_built_within_the_load_budget(tmp_path, output):
    """A wrapped text model is built on the same bounded path as a text file on its own:
    what its count model computes (the additive classifier's class × term tables, or the
    fixed one's count model) is taken from the load budget before it is computed."""
    from bayeskit.text import TextClassifier, TextVectorizer

    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(3000)])
    docs = [" ".join(rng.choice(words, 400)) for _ in range(8)]
    y = np.array(["a", "b", None, None, "a", "b", None, None], dtype=object)
    clf = TextClassifier(vectorizer=TextVectorizer(output=output))
    model = bk.SemiSupervisedNB(clf).fit(docs, y)
    path = tmp_path / "semi-text.bkm"
    bk.save(model, path)
    _, entries = parts(path)
    # (the arrays, and the terms decoded: taken before the parameters)
    arrays = sum(len(data) for data in entries.values()) + decoded_terms(path)
    with pytest.raises(ModelFileError, match=r"parameters needs .* bytes, beyond"):
        bk.load(path, max_bytes=arrays + 1000)
    np.testing.assert_array_equal(
        bk.load(path, max_bytes=4 * arrays).predict_proba(docs), model.predict_proba(docs)
    )


def test_semi_state_does_not_import_the_archive_module():
    """Imports point one way: the SemiSupervisedNB layout builds on io._format (and
    io._text_state) only; model_file is the one that imports it."""
    import subprocess
    import sys

    code = "import sys, bayeskit.io._semi_state; print('bayeskit.io.model_file' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("rule", ["loo-likelihood", "cv-accuracy"])
def test_parzen_width_search_is_stored_not_redone_at_load(tmp_path, wine, rule, monkeypatch):
    """The O(n²) leave-one-out width search is stored: loading runs none (the search itself
    is made to fail), yet predicts and reports the search as the fitted model does; a later
    partial_fit searches again on the merged sample, as fit would."""
    from bayeskit.families.parzen import Parzen

    X, y = wine
    model = bk.ParzenWindowClassifier(bandwidth=rule).fit(X, y)
    path = tmp_path / "parzen.bkm"
    bk.save(model, path)

    def no_search(*args, **kwargs):
        raise AssertionError("the width search ran at load")

    with monkeypatch.context() as patch:
        patch.setattr(Parzen, "_search", no_search)
        loaded = bk.load(path)
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert loaded.bandwidth_ == model.bandwidth_
        for key, value in model.bandwidth_search_.items():
            np.testing.assert_array_equal(loaded.bandwidth_search_[key], value)
    loaded.partial_fit(X[:5], y[:5])
    again = bk.ParzenWindowClassifier(bandwidth=rule).fit(np.vstack([X, X[:5]]), [*y, *y[:5]])
    np.testing.assert_allclose(loaded.predict_proba(X), again.predict_proba(X), rtol=1e-12)


def test_a_huge_parzen_search_file_is_refused_before_the_search(tmp_path, wine, monkeypatch):
    """A crafted file naming a width search over 200 000 rows without its stored outcome
    (or with a forged one) is refused before any O(n²) work: the search is never called."""
    from bayeskit.families.parzen import Parzen

    X, y = wine
    path = tmp_path / "parzen.bkm"
    bk.save(bk.ParzenWindowClassifier(bandwidth="loo-likelihood").fit(X, y), path)
    meta, entries = parts(path)
    (block,) = meta["blocks"]
    n = 200_000
    rng = np.random.default_rng(0)
    entries[block["arrays"]["values"]] = npy(rng.normal(size=(n, X.shape[1])))
    entries[block["arrays"]["weight"]] = npy(np.repeat(np.eye(3), [n - 2, 1, 1], axis=1))
    entries[meta["class_count"]] = npy(np.array([n - 2.0, 1.0, 1.0]))
    forged = json.loads(json.dumps(meta["fitted"]))
    forged["items"][0]["items"][2]["values"]["values"][0] = 2.0  # an accuracy of 200 %
    monkeypatch.setattr(Parzen, "_search", lambda *a, **k: pytest.fail("searched at load"))
    for fitted, words in [
        (None, "width search of bandwidth='loo-likelihood' is invalid: it is missing"),
        (forged, "is invalid: an accuracy is outside [0, 1]"),
    ]:
        if fitted is None:
            meta.pop("fitted")
        else:
            meta["fitted"] = fitted
        meta["entries"] = {k: hashlib.sha256(v).hexdigest() for k, v in entries.items()}
        _rewrite(path, meta, entries)
        refused(path, words)


@pytest.mark.parametrize("cov", ["diag", "full", "tied"])
def test_mixtures_under_the_conjugate_prior_round_trip(tmp_path, wine, cov):
    """The prior is a hyperparameter: the file's statistics give the same posterior modes."""
    X, y = wine
    model = bk.GaussianMixtureClassifier(
        n_components=2, covariance_type=cov, prior="conjugate", random_state=0
    ).fit(X, y)
    path = tmp_path / "gmm.bkm"
    bk.save(model, path)
    loaded = bk.load(path)
    assert loaded.prior == "conjugate"
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for label in model.classes_:
        np.testing.assert_array_equal(loaded.covariances_[label], model.covariances_[label])


def test_a_stored_parzen_search_is_not_used_for_another_window(tmp_path, wine):
    """The stored scores belong to the window they were computed with: another kernel set
    after loading searches again, as a fresh fit would; the other searched rule picks from
    the same scores."""
    X, y = wine
    path = tmp_path / "parzen.bkm"
    bk.save(bk.ParzenWindowClassifier(bandwidth="loo-likelihood").fit(X, y), path)
    for change in [{"kernel": "epanechnikov"}, {"bandwidth": "cv-accuracy"}]:
        loaded = bk.load(path).set_params(**change)
        fresh = bk.ParzenWindowClassifier(bandwidth="loo-likelihood").set_params(**change)
        fresh.fit(X, y)
        assert loaded.bandwidth_ == fresh.bandwidth_
        np.testing.assert_allclose(loaded.predict_proba(X), fresh.predict_proba(X), rtol=1e-12)


def test_parzen_adaptive_widths_are_stored_not_searched_at_load(tmp_path, wine, monkeypatch):
    """The adaptive widths' k-nearest-neighbour searches (O(n²) at worst, with tiny sample
    weights) are stored: loading runs none, and a file without valid ones is refused."""
    import bayeskit.families.parzen as parzen_family

    X, y = wine
    model = bk.ParzenWindowClassifier(adaptive=5, bandwidth="cv-accuracy").fit(X, y)
    path = tmp_path / "parzen.bkm"
    bk.save(model, path)
    meta, entries = parts(path)
    with monkeypatch.context() as patch:
        patch.setattr(parzen_family, "_adaptive_ratio", lambda *a, **k: pytest.fail("searched"))
        patch.setattr(parzen_family.Parzen, "_search", lambda *a, **k: pytest.fail("searched"))
        np.testing.assert_array_equal(bk.load(path).predict_proba(X), model.predict_proba(X))
        keys = [str(k[-1]) if isinstance(k, list) else k for k in meta["fitted"]["keys"]["values"]]
        ratio = meta["fitted"]["items"][keys.index("ratio")]
        values = ratio["values"]["values"]
        for change, words in [
            (lambda: values.__setitem__(0, -1.0), "adaptive widths of adaptive=5 are invalid"),
            (lambda: values.pop(), "adaptive widths are stored for a sample of 178 entries"),
        ]:
            good = list(values)
            change()
            ratio["shape"] = [len(values)]
            _rewrite(path, meta, entries)
            refused(path, words)
            values[:] = good
            ratio["shape"] = [len(values)]


@pytest.mark.parametrize("frame", [False, True])
def test_a_loaded_semi_supervised_model_knows_its_input(tmp_path, frame):
    # n_features_in_ and feature_names_in_ come from the wrapped model, in memory and from a
    # file alike.
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.poisson(2, (30, 4))
    data = pd.DataFrame(X, columns=["w", "x", "y", "z"]) if frame else X
    y = np.where(rng.random(30) < 0.5, -1, np.arange(30) % 2)
    y[:2] = [0, 1]
    model = bk.SemiSupervisedNB().fit(data, y)
    bk.save(model, tmp_path / "semi.bkm")
    loaded = bk.load(tmp_path / "semi.bkm")
    assert loaded.n_features_in_ == model.n_features_in_ == 4
    if frame:
        assert list(loaded.feature_names_in_) == list(model.feature_names_in_) == list("wxyz")
    else:
        assert not hasattr(loaded, "feature_names_in_")
    np.testing.assert_array_equal(loaded.predict_proba(data), model.predict_proba(data))


def test_a_semi_supervised_file_wrapping_a_vectorizer_is_refused(tmp_path):
    # the wrapped section of a TextVectorizer's file, checksums valid: a raw AttributeError
    # ('classes_') came through load
    from bayeskit.text import TextVectorizer

    from ._refusal import seal

    X = np.random.RandomState(0).randint(0, 5, (30, 4))
    y = np.array(["a", "b"] * 10 + [None] * 10, dtype=object)
    bk.save(bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, y), tmp_path / "semi.bk")
    bk.save(TextVectorizer().fit(["ball goal", "code bug"]), tmp_path / "tv.bk")
    meta, _ = parts(tmp_path / "semi.bk")
    inner, inner_entries = parts(tmp_path / "tv.bk")
    meta["state"]["inner"] = inner
    seal(tmp_path / "bad.bk", meta, {f"inner.{k}": v for k, v in inner_entries.items()})
    refused(tmp_path / "bad.bk", "the wrapped model stored is a 'TextVectorizer'")
