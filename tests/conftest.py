"""Shared fixtures: the real datasets (skipped cleanly when the shared folder is absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bayeskit.datasets.shared import data_dir

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
