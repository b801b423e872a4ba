"""The text defaults are the settings benchmarks/accuracy.md says the search chose."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from bayeskit.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB
from bayeskit.text import SpamFilter, TextClassifier

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import choose_defaults  # noqa: E402

#: A model name of the search: (class, norm, smoothing).
MODELS = {
    "MultinomialNB": (MultinomialNB, False, "uniform"),
    "ComplementNB": (ComplementNB, False, "uniform"),
    "TWCNB": (ComplementNB, True, "uniform"),
    "BernoulliNB": (BernoulliNB, False, None),
    # smoothing="corpus", corpus_power γ: "CorpusMNB" (γ = 1), "CorpusMNB γ=0.75", ...
    **{
        name: (
            {"MultinomialNB": MultinomialNB, "ComplementNB": ComplementNB}[model],
            False,
            "corpus",
        )
        for name, (model, _) in choose_defaults.CORPUS_MODELS.items()
    },
}


def documented_choice(estimator: str) -> tuple:
    """The setting benchmarks/accuracy.md names for ``estimator`` ("TextClassifier" or
    "SpamFilter"), as (tokens, min_df, weighting, model, alpha)."""
    text = (BENCHMARKS / "accuracy.md").read_text(encoding="utf-8")
    model = r"(\w+(?: γ=[\d.]+)?)"  # "CorpusMNB γ=0.75": the corpus prior's power
    pattern = rf"^- `{estimator}\(\)`: \*\*(.+?), min_df=(\d+), (.+), {model}\(α=([\d.]+)\)\*\*"
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"benchmarks/accuracy.md names no choice for {estimator}()"
    tokens, min_df, weighting, model, alpha = found.groups()
    return tokens, int(min_df), weighting, model, float(alpha)


def documented_term_weights() -> tuple[dict[str, object], float, float]:
    """The term weights benchmarks/accuracy.md's second search ("Term weights", ``accuracy.py
    --only text-weights``) chose for TextClassifier(): the vectorizer parameters, and the
    ComplementNB α and γ they were chosen with."""
    text = (BENCHMARKS / "accuracy.md").read_text(encoding="utf-8")
    heading = "## The choice (best qualifying mean) on the 20 Newsgroups test half"
    assert heading in text, "benchmarks/accuracy.md has no term-weights choice"
    table = text.split(heading, 1)[1].split("\n\n", 2)[1]  # the table under the heading
    found = re.search(
        r"^\| (subject read as text, )?2-grams ×([\d.]+), subject: ×([\d.]+), "
        r"ComplementNB\(α=([\d.]+), γ=([\d.]+)\) \|",
        table,
        re.MULTILINE,
    )
    assert found, table[:200]
    read, w2, ws, alpha, power = found.groups()
    params = {
        "subject_in_text": read is not None,
        "ngram_weights": (1.0, float(w2)),
        "subject_weight": float(ws),
    }
    return params, float(alpha), float(power)


@pytest.mark.parametrize("cls", [TextClassifier, SpamFilter])
def test_defaults_are_the_documented_choice(cls):
    tokens, min_df, weighting, model, alpha = documented_choice(cls.__name__)
    expected = choose_defaults.setting_params(tokens, min_df, weighting)
    if cls is TextClassifier:  # the second search's term weights, on the same model
        weights, weights_alpha, power = documented_term_weights()
        expected.update(weights)
        assert (weights_alpha, power) == (alpha, choose_defaults.CORPUS_MODELS[model][1])
    vectorizer = cls.default_vectorizer()
    actual = vectorizer.get_params()
    for key, value in expected.items():
        assert actual[key] == value, key
    # Parameters the setting leaves out are the vectorizer's own defaults.
    plain = type(vectorizer)().get_params()
    others = {k for k in actual if k not in expected and actual[k] != plain[k]}
    assert not others
    model_cls, norm, smoothing = MODELS[model]
    fitted_model = cls.default_model()
    assert type(fitted_model) is model_cls
    assert fitted_model.alpha == alpha
    assert getattr(fitted_model, "norm", False) == norm
    assert getattr(fitted_model, "smoothing", None) == smoothing
    # The model the search scored under that name is the default model.
    assert fitted_model.get_params() == choose_defaults.make_model(model, alpha).get_params()
    # A default without arguments is what the class builds.
    assert cls().prototypes()[0].get_params() == actual
