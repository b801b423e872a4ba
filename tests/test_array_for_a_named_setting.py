"""An array or a list given for a setting whose values are names (``estimate="mean"``) is
refused by name: ``in`` would compare it element by element, and numpy asked "the truth
value of an array is ambiguous" with no word of the setting."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

ESTIMATORS = [getattr(bk, name) for name in bk.__all__ if name.endswith(("NB", "Analysis",
              "Classifier")) and isinstance(getattr(bk, name), type)]  # fmt: skip
CASES = [
    (make, key)
    for make in ESTIMATORS
    for key, value in make().get_params(deep=False).items()
    if isinstance(value, str)
]
BASE = {"BinomialNB": {"n_trials": 5}}  # settings a model cannot do without
X = np.minimum(np.random.default_rng(0).poisson(2.0, size=(40, 3)), 5).astype(float)
y = np.array([0, 1] * 20)


@pytest.mark.parametrize(("make", "key"), CASES, ids=[f"{m.__name__}-{k}" for m, k in CASES])
def test_an_array_for_a_named_setting_is_refused(make, key):
    value = make().get_params()[key]
    base = BASE.get(make.__name__, {})
    make(**base).fit(X, y)
    for given in (np.array([value, value]), [value]):
        with pytest.raises(BayeskitError, match=key):
            make(**base, **{key: given}).fit(X, y)


@pytest.mark.parametrize(
    ("make", "key"),
    [(TextVectorizer, "output"), (TextVectorizer, "norm"), (SpamFilter, "scoring")],
)
def test_the_text_models_refuse_it_too(make, key):
    value = make().get_params()[key] or "l2"
    model = make(**{key: np.array([value, value])})
    with pytest.raises(BayeskitError, match=key):
        model.fit(["a b", "c d"] * 4, ["ham", "spam"] * 4)


def test_there_are_cases():
    assert len(CASES) >= 10
    assert TextClassifier  # (the text classifier's settings are its parts' settings)
