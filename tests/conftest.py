"""Shared fixtures: the real datasets (skipped cleanly when the shared folder is absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bayeskit.datasets.shared import data_dir
from bayeskit.errors import DatasetNotFoundError

settings.register_profile(
    "ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# HYPOTHESIS_PROFILE=thorough for the long generator runs (with `-m slow`).
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    root = data_dir()
    if root is None:
        pytest.skip("shared data folder not found (set BAYESKIT_DATA)")
    return root


# A data folder that does not hold a dataset (BAYESKIT_DATA pointing at the wrong folder, or a
# machine with some datasets only) skips the test that reads it, as no folder at all does.
@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    try:
        return (yield)
    except DatasetNotFoundError as exc:
        pytest.skip(f"a dataset is not here: {exc}")


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    try:
        return (yield)
    except DatasetNotFoundError as exc:
        pytest.skip(f"a dataset is not here: {exc}")
