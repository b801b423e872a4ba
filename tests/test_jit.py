"""Kernels compile even where numba cannot write its cache."""

from __future__ import annotations

import numba

from bayeskit import _jit


def test_falls_back_to_compiling_without_a_cache(monkeypatch):
    real = numba.njit
    seen = []

    def refusing(*args, **options):
        seen.append(options.get("cache"))
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real(*args, **options)

    monkeypatch.setattr(_jit.numba, "njit", refusing)

    @_jit.njit(nogil=True)
    def add(a, b):
        return a + b

    assert add(2, 3) == 5
    assert seen[:2] == [True, False]  # refused with a cache, then compiled without


def test_caches_where_it_can():
    @_jit.njit()
    def twice(a):
        return 2 * a

    assert twice(4) == 8
    assert twice._cache is not None
