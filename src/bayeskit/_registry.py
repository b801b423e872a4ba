"""Registries that model files name classes by (a family's name, a statistic's kind): a name
taken once stays its class's."""

from __future__ import annotations

__all__ = ["registered"]


def registered(held: type | None, cls: type, what: str) -> type:
    """``cls``, refused when another class already holds ``what`` (a family's name, a
    statistic's kind): model files name them, and a second class of that name would take the
    first's place for every file loaded after (a module imported again is the same class)."""
    same = held is not None and (held.__module__, held.__qualname__) == (
        cls.__module__,
        cls.__qualname__,
    )
    if held is not None and not same:
        raise TypeError(
            f"{what} is taken by {held.__module__}.{held.__qualname__}; {cls.__qualname__} "
            "needs another (model files name it)"
        )
    return cls
