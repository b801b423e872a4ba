"""A sweep of the property tests with more examples than CI draws: a pytest plugin.

    BAYESKIT_SWEEP=400 python -m pytest -p tests._sweep -m "not slow" tests

runs only the hypothesis tests, each with 400 examples where it takes the profile's count,
and with ten times its own count (at least 60, at most the sweep's) where it sets a smaller
one. CI draws a few dozen random examples a test, so a failure that one example in a few
thousand finds reaches CI by chance; a sweep before a landing finds it first (one such sweep
found a flaky tolerance and three overflows of weighted moments). Without ``BAYESKIT_SWEEP``
the plugin changes nothing.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, is_hypothesis_test, settings

#: what a test's own count is multiplied by, and the least it becomes
FACTOR, LEAST = 10, 60


def swept(own: int, examples: int) -> int:
    """The examples a test with its own count ``own`` gets in a sweep of ``examples``:
    ``FACTOR`` times its own count, at least ``LEAST``, at most ``examples``, never fewer
    than its own (a test on the profile's count gets ``examples`` from the profile)."""
    return max(own, min(max(own * FACTOR, LEAST), examples))


def _examples() -> int | None:
    given = os.environ.get("BAYESKIT_SWEEP")
    if not given:
        return None
    if not given.isdigit() or int(given) < 1:
        raise ValueError(
            f"BAYESKIT_SWEEP={given!r}: a sweep takes a whole number of examples, 1 or more"
        )
    return int(given)


def pytest_configure(config: Any) -> None:
    examples = _examples()
    if examples is not None:
        settings.register_profile(
            "sweep",
            max_examples=examples,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        settings.load_profile("sweep")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    examples = _examples()
    if examples is None:
        return
    kept, done = [], set()
    for item in items:
        test = getattr(item, "obj", None)
        if not is_hypothesis_test(test):
            continue
        kept.append(item)
        if id(test) in done:  # (a parametrized test: one function for its cases)
            continue
        done.add(id(test))
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples < examples:
            test._hypothesis_internal_use_settings = settings(
                own,
                max_examples=swept(own.max_examples, examples),
                deadline=None,
                suppress_health_check=list(HealthCheck),
            )
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
