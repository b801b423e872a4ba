"""The check every refused model file goes through: a one-line ModelFileError that names the
path and the problem, with no chained low-level traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.errors import ModelFileError


def refused(path: Path, *words: str) -> ModelFileError:
    with pytest.raises(ModelFileError) as info:
        bk.load(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    assert info.value.__context__ is None
    assert info.value.__cause__ is None
    for word in words:
        assert word in message, message
    return info.value
