"""One name per model across the doors: ``--model`` takes the Python class name as well as its
short name, and the two build the same model."""

from __future__ import annotations

import pytest

import bayeskit as bk
from bayeskit.cli.models import MODEL_ALIASES, MODELS, canonical_model


def test_every_alias_is_a_model_choice_and_names_a_public_class():
    public = {name.lower(): name for name in bk.__all__}
    public["textclassifier"] = "TextClassifier"
    assert set(MODEL_ALIASES.values()) <= set(MODELS)
    assert set(MODEL_ALIASES) <= set(public), set(MODEL_ALIASES) - set(public)


@pytest.mark.parametrize("name", ["KernelNB", "kernelnb", "KERNELNB", "kernel"])
def test_class_names_are_read_in_any_case(name):
    assert canonical_model(name) == "kernel"


@pytest.mark.parametrize(
    ("name", "short"),
    [("TANClassifier", "tan"), ("AODEClassifier", "aode"), ("KDBClassifier", "kdb")],
)
def test_the_network_classifiers_class_names_are_model_choices(name, short):
    assert canonical_model(name) == short


def test_an_unknown_name_is_left_for_the_command_to_refuse(cli, tmp_path):
    (tmp_path / "t.csv").write_text("x,y\n1,a\n2,b\n3,a\n4,b\n", encoding="utf-8")
    result = cli("evaluate", tmp_path / "t.csv", "--target", "y", "--model", "KernelNBX")
    assert result.exit_code == 2
    assert "'KernelNBX' is not a model" in result.stderr


def test_the_class_name_builds_the_model_the_short_name_builds(cli, tmp_path):
    rows = "".join(f"{i % 7 + 0.5 * (i % 2)},{i % 3},{'ab'[i % 2]}\n" for i in range(40))
    (tmp_path / "t.csv").write_text("x1,x2,y\n" + rows, encoding="utf-8")
    printed = []
    for name in ("GaussianMixtureClassifier", "gmm"):
        result = cli(
            "train",
            tmp_path / "t.csv",
            "--target",
            "y",
            "--model",
            name,
            "-o",
            tmp_path / f"{name}.bk",
        )
        assert result.exit_code == 0, result.stderr
        printed.append([line for line in result.stdout.splitlines() if line.startswith("model:")])
    assert printed[0] == printed[1] == ["model: GaussianMixtureClassifier()"]
    assert (tmp_path / "gmm.bk").read_bytes() == (
        tmp_path / "GaussianMixtureClassifier.bk"
    ).read_bytes()
