"""The parts of a stored statistic block that this version does not write: a newer bayeskit's,
refused when a model file is read rather than ignored (the model would be rebuilt without
them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..stats import Statistic


def unwritten_parts(
    statistic: Statistic, arrays: Mapping[str, Any], meta: Any, prefix: str = ""
) -> list[str]:
    """The names (sorted arrays, then ``meta …`` keys, nested ones dotted) of what a block
    holds beside what :meth:`~bayeskit.stats.Statistic.written_layout` says ``statistic``
    writes; ``prefix``: where the block sits in a larger one."""
    arrays_written, meta_written = statistic.written_layout()
    unknown = sorted(prefix + name for name in set(arrays) - set(arrays_written))
    return unknown + [f"meta {prefix}{k}" for k in _unknown_keys(meta, meta_written)]


def _unknown_keys(stored: Any, written: Any) -> list[str]:
    """The keys of the dict ``stored`` (and of the dicts it nests) that ``written``, what this
    version writes for the same statistic, does not have."""
    if not isinstance(stored, dict) or not isinstance(written, dict):
        return []
    out = [str(k) for k in stored if k not in written]
    for k in stored:
        if k in written:
            out += [f"{k}.{inner}" for inner in _unknown_keys(stored[k], written[k])]
    return out
