"""A setting a model's statistics were learned under (its contract's ``refit_settings``),
changed on a fitted model, makes the model wait for ``fit``: everything that reads its
statistics refuses by naming the setting, setting it back gives the model it was, and a fit
gives the model a fresh fit with the new setting gives — never a model mixing the two."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import NotFittedError
from bayeskit.io.model_file import save
from bayeskit.text import SpamFilter, TextClassifier

rng = np.random.default_rng(0)
REALS = rng.normal(size=(80, 3)) + np.repeat([[0, 0, 0], [2, 1, 0]], 40, axis=0)
LABELS = np.repeat([0, 1], 40)
COUNTS = rng.poisson(1.5, size=(80, 4)).astype(float)
CODES = rng.integers(0, 3, size=(80, 3)).astype(float) + rng.random((80, 3)) * 0.5
DOCS = ["win cash now", "free prize call", "lunch at noon?", "see you at the meeting"] * 10
DOC_LABELS = ["spam", "spam", "ham", "ham"] * 10

CASES = [
    (lambda: bk.GaussianMixtureClassifier(), REALS, LABELS, {"covariance_type": "full"}),
    (lambda: bk.GaussianMixtureClassifier(), REALS, LABELS, {"n_components": 2}),
    (lambda: bk.GaussianMixtureClassifier(covariance_type="full"), REALS, LABELS,
     {"covariance_type": "diag"}),
    (lambda: bk.BernoulliNB(), COUNTS, LABELS, {"binarize": 1.0}),
    (lambda: bk.TANClassifier(), CODES, LABELS, {"discretize": "none"}),
    (lambda: bk.KDBClassifier(k=1), CODES, LABELS, {"k": 2}),
    (lambda: bk.KDBClassifier(k=2), CODES, LABELS, {"k": 0}),
    (lambda: bk.SemiSupervisedNB(bk.MultinomialNB(), random_state=0), COUNTS,
     np.where(np.arange(80) % 3 == 0, -1, LABELS), {"estimator__alpha": 0.2}),
    (lambda: TextClassifier(vectorizer=TextClassifier.default_vectorizer()), DOCS, DOC_LABELS,
     {"vectorizer__lowercase": False}),
    (lambda: SpamFilter(), DOCS, DOC_LABELS, {"scoring": "fisher"}),
    (lambda: TextClassifier(model=bk.BernoulliNB()), DOCS, DOC_LABELS, {"model__binarize": 1.0}),
    (lambda: bk.MixedNB(), REALS, LABELS, {"numeric": "kernel"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("make", "X", "y", "setting"),
    CASES,
    ids=[f"{type(c[0]()).__name__}-{next(iter(c[3]))}" for c in CASES],
)
def test_a_learned_setting_waits_for_fit(make, X, y, setting):
    ((name, value),) = setting.items()
    assert contract_of(make()).needs_refit(name) or "__" in name  # (or its part's contract)
    model = make().fit(X, y)
    before = model.predict_proba(X)
    old = model.get_params()[name]
    model.set_params(**setting)
    assert model.get_params()[name] == value
    for use in (model.predict_proba, model.predict):
        with pytest.raises(NotFittedError, match=rf"fitted with {name}=.*which set_params changed"):
            use(X)
    model.set_params(**{name: old})  # set back: the model it was
    np.testing.assert_array_equal(model.predict_proba(X), before)
    model.set_params(**setting).fit(X, y)  # a fit: a fresh fit's model
    np.testing.assert_allclose(
        model.predict_proba(X), make().set_params(**setting).fit(X, y).predict_proba(X), atol=1e-12
    )


def test_nothing_adds_to_statistics_learned_under_another_setting(tmp_path):
    model = bk.BernoulliNB().fit(COUNTS, LABELS)
    model.set_params(binarize=1.0)
    for call in (
        lambda: model.partial_fit(COUNTS, LABELS),
        lambda: model.unlearn(COUNTS[:5], LABELS[:5]),
        lambda: model + bk.BernoulliNB().fit(COUNTS, LABELS),
        lambda: save(model, tmp_path / "m.bkm"),
    ):
        with pytest.raises(NotFittedError, match=r"binarize=0\.0"):
            call()
    assert not (tmp_path / "m.bkm").exists()
    spam = SpamFilter().fit(DOCS, DOC_LABELS)
    spam.set_params(vectorizer__lowercase=False)
    with pytest.raises(NotFittedError, match="lowercase=True"):
        spam.partial_fit(DOCS[:4], DOC_LABELS[:4])
    with pytest.raises(NotFittedError, match="lowercase=True"):
        spam.train_on_error(DOCS[:4], DOC_LABELS[:4])


def test_other_settings_still_take_effect_at_the_next_prediction():
    model = bk.GaussianMixtureClassifier().fit(REALS, LABELS)
    model.set_params(priors=[0.9, 0.1])
    np.testing.assert_allclose(
        model.predict_proba(REALS),
        bk.GaussianMixtureClassifier(priors=[0.9, 0.1]).fit(REALS, LABELS).predict_proba(REALS),
        atol=1e-12,
    )
    counts = bk.BernoulliNB().fit(COUNTS, LABELS).set_params(alpha=0.3)
    np.testing.assert_allclose(
        counts.predict_proba(COUNTS),
        bk.BernoulliNB(alpha=0.3).fit(COUNTS, LABELS).predict_proba(COUNTS),
        atol=1e-12,
    )


def test_a_part_replaced_by_one_learned_otherwise_waits_too():
    model = TextClassifier(model=bk.BernoulliNB()).fit(DOCS, DOC_LABELS)
    before = model.predict_proba(DOCS)
    model.set_params(model=bk.BernoulliNB(alpha=0.5))  # read from the statistics: no wait
    model.predict_proba(DOCS)
    model.set_params(model=bk.BernoulliNB(binarize=1.0))
    with pytest.raises(NotFittedError, match="fitted with model=BernoulliNB"):
        model.predict_proba(DOCS)
    model.set_params(model=bk.BernoulliNB())  # of the fitted kind and settings again
    np.testing.assert_array_equal(model.predict_proba(DOCS), before)


PARTS = [
    (lambda: TextClassifier(vectorizer=TextClassifier.default_vectorizer()), DOCS, DOC_LABELS,
     "vectorizer", {"lowercase": False}),
    (lambda: TextClassifier(model=bk.BernoulliNB()), DOCS, DOC_LABELS, "model", {"binarize": 1.0}),
    (lambda: bk.SemiSupervisedNB(bk.MultinomialNB(), random_state=0), COUNTS,
     np.where(np.arange(80) % 3 == 0, -1, LABELS), "estimator", {"alpha": 0.2}),
]  # fmt: skip


@pytest.mark.parametrize(("make", "X", "y", "part", "setting"), PARTS)
def test_a_part_changed_in_place_waits_too(make, X, y, part, setting):
    # The model's set_params does not see the part's own: the model compares the part's
    # learned settings with those it was fitted under wherever it reads its statistics.
    model = make().fit(X, y)
    before = model.predict_proba(X)
    original = {name: getattr(getattr(model, part), name) for name in setting}
    getattr(model, part).set_params(**setting)
    name = f"{part}__{next(iter(setting))}"
    assert not model.__sklearn_is_fitted__()
    with pytest.raises(NotFittedError, match=f"fitted with {name}=.*on the part itself"):
        model.predict_proba(X)
    if hasattr(model, "partial_fit"):
        with pytest.raises(NotFittedError, match=name):
            model.partial_fit(X[:4], y[:4])
    getattr(model, part).set_params(**original)  # set back: the model it was, nothing added
    np.testing.assert_array_equal(model.predict_proba(X), before)
    getattr(model, part).set_params(**setting)
    refitted = make().set_params(**{f"{part}__{k}": v for k, v in setting.items()}).fit(X, y)
    np.testing.assert_allclose(model.fit(X, y).predict_proba(X), refitted.predict_proba(X))


def test_a_part_setting_read_at_prediction_changed_in_place_takes_effect():
    model = TextClassifier(model=bk.MultinomialNB()).fit(DOCS, DOC_LABELS)
    model.model.set_params(alpha=5.0)
    again = TextClassifier(model=bk.MultinomialNB(alpha=5.0)).fit(DOCS, DOC_LABELS)
    np.testing.assert_allclose(model.predict_proba(DOCS), again.predict_proba(DOCS))


def test_every_reader_of_the_statistics_refuses_while_waiting():
    import dask.array as da

    import bayeskit.dask as bkd
    from bayeskit.inspection import feature_usefulness

    model = bk.BernoulliNB().fit(COUNTS, LABELS).set_params(binarize=1.0)
    with pytest.raises(NotFittedError, match="binarize"):
        feature_usefulness(model)
    with pytest.raises(NotFittedError, match="binarize"):
        bkd.partial_fit(model, da.from_array(COUNTS, chunks=(20, 4)), LABELS)
    assert model.set_params(binarize=0.0).class_count_.sum() == len(LABELS)  # nothing added
