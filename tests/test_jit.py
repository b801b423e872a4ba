"""Kernels: built on first use, cached where a cache can be written, announced once."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numba
import numpy as np

from bayeskit import _jit
from bayeskit._jit import count_ones, load_be64, load_le64, prange, prefetch, trailing_zeros


def test_falls_back_to_compiling_without_a_cache(monkeypatch):
    real = numba.njit
    seen = []

    def refusing(*args, **options):
        seen.append(options.get("cache"))
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real(*args, **options)

    monkeypatch.setattr(numba, "njit", refusing)
    monkeypatch.setattr(_jit, "_uncached", False)

    @_jit.njit(nogil=True)
    def add(a, b):
        return a + b

    assert add(2, 3) == 5
    assert seen[:2] == [True, False]  # refused with a cache, then compiled without
    assert _jit._uncached


def test_caches_where_it_can():
    @_jit.njit()
    def twice(a):
        return 2 * a

    assert twice(4) == 8
    assert twice._cache is not None


def test_a_kernel_calls_another_and_uses_prange():
    @_jit.njit()
    def square(x):
        return x * x

    @_jit.njit()
    def total(values):
        out = 0.0
        for i in prange(values.shape[0]):
            out += square(values[i])
        return out

    assert isinstance(square, _jit.Kernel)
    assert total.py_func is not None  # numba's attributes come from the dispatcher
    assert total(np.arange(4.0)) == 14.0
    assert square._dispatcher is not None  # built when `total` was typed


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, **env},
    )


def test_user_cache_folder_where_the_package_is_not_writable(tmp_path, monkeypatch):
    """numba's in-tree cache refused (a read-only install): kernels go to
    $XDG_CACHE_HOME/bayeskit, and only bayeskit's own kernels do."""
    from numba.core import caching

    _jit._numba()  # installs the locator
    in_tree = getattr(caching, "InTreeCacheLocator", None) or caching._InTreeCacheLocator
    monkeypatch.setattr(in_tree, "from_function", classmethod(lambda cls, f, p: None))
    monkeypatch.delenv("BAYESKIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    locator = next(c for c in _jit._locator_list() if getattr(c, "_bayeskit", None) == "user cache")
    ours = str(_jit._PACKAGE_ROOT / "stats" / "moments.py")
    found = locator.from_function(_probe, ours)
    assert found is not None
    assert found.get_cache_path().startswith(str(tmp_path / "bayeskit"))
    assert found.get_source_stamp()[1] == _jit._kernel_sources_stamp()  # stamped too
    assert locator.from_function(_probe, __file__) is None  # not a bayeskit file
    monkeypatch.setenv("BAYESKIT_CACHE_DIR", str(tmp_path / "mine"))
    found = locator.from_function(_probe, ours)
    assert found.get_cache_path().startswith(str(tmp_path / "mine"))


def _probe():  # a function whose code object the locator reads (its first line number)
    return 0


def test_every_module_defining_kernels_stamps_the_cache():
    root = _jit._PACKAGE_ROOT
    defining = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if "@njit(" in path.read_text(encoding="utf-8")
    )
    # _jit.py defines the intrinsics every kernel inlines, whatever its docstring says.
    assert sorted(_jit.KERNEL_SOURCES) == sorted({"_jit.py", *defining})


def test_a_kernel_is_rebuilt_when_a_kernel_it_calls_changes_in_another_file(tmp_path):
    """numba checks only a cached kernel's own file; the kernel below inlines one from
    another file, listed among the kernel sources: changing that file rebuilds it."""
    (tmp_path / "callee_mod.py").write_text(
        "from bayeskit._jit import njit\n\n@njit()\ndef value():\n    return 1\n"
    )
    (tmp_path / "caller_mod.py").write_text(
        "from bayeskit._jit import njit\nfrom callee_mod import value\n\n"
        "@njit()\ndef run(x):\n    return x + value()\n"
    )
    code = f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from bayeskit import _jit
        _jit.KERNEL_SOURCES += ({str(tmp_path / "callee_mod.py")!r},)
        import caller_mod
        print(caller_mod.run(10), sum(caller_mod.run.stats.cache_hits.values()))
        """
    env = {"NUMBA_CACHE_DIR": ""}
    first = _run(code, **env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["11", "0"]  # compiled
    again = _run(code, **env)
    assert again.stdout.split() == ["11", "1"], again.stderr  # from the cache
    assert list((tmp_path / "__pycache__").glob("caller_mod.run-*.nbi"))
    (tmp_path / "callee_mod.py").write_text(
        "from bayeskit._jit import njit\n\n@njit()\ndef value():\n    return 2\n"
    )
    changed = _run(code, **env)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.split() == ["12", "0"]  # compiled again


def test_the_kernel_sources_digest_follows_their_contents(tmp_path, monkeypatch):
    source = tmp_path / "k.py"
    source.write_text("a = 1\n")
    monkeypatch.setattr(_jit, "KERNEL_SOURCES", (str(source),))
    _jit._kernel_sources_stamp.cache_clear()
    first = _jit._kernel_sources_stamp()
    source.write_text("a = 2\n")
    _jit._kernel_sources_stamp.cache_clear()
    second = _jit._kernel_sources_stamp()
    source.unlink()
    _jit._kernel_sources_stamp.cache_clear()
    missing = _jit._kernel_sources_stamp()
    _jit._kernel_sources_stamp.cache_clear()
    assert len({first, second, missing}) == 3


def test_first_compile_is_announced_once(tmp_path):
    """An empty cache: the first kernel compiled prints one line; a second process finds the
    cache and prints nothing."""
    code = """
        import numpy as np
        from bayeskit import _jit
        _jit.announce_compiling()
        from bayeskit import GaussianNB
        # larger than a small table (which numpy summarizes): the compiled loops run
        X = np.arange(80_000.0).reshape(40_000, 2)
        GaussianNB().fit(X, [0, 1] * 20_000)
        GaussianNB().fit(X, [0, 1, 1, 0] * 10_000)
        """
    first = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert [line for line in first.stderr.splitlines() if "compiling" in line] == [
        "bayeskit: first run: compiling kernels, "
        f"~{_jit.COMPILE_SECONDS_ESTIMATE} s; later runs start at once"
    ]
    second = _run(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr


def test_the_library_stays_quiet_and_an_uncached_build_says_why(monkeypatch, capsys):
    monkeypatch.setattr(_jit, "_announced", False)
    monkeypatch.setattr(_jit, "_announce", False)
    _jit._compiling()
    assert capsys.readouterr().err == ""  # not asked to announce (the library)
    monkeypatch.setattr(_jit, "_announce", True)
    monkeypatch.setattr(_jit, "_uncached", True)
    _jit._compiling()
    _jit._compiling()  # once per process
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no writable cache folder, so every run compiles them" in err
    assert "BAYESKIT_CACHE_DIR" in err


def test_prefetch_is_only_a_hint():
    # Nothing in Python; in a kernel, a load hint that changes no result and never faults
    # (the scanner issues it for slots a few probes ahead, which may lie past the end).
    table = np.arange(10.0).reshape(5, 2)
    assert _jit.prefetch(table, 3) is None

    @_jit.njit()
    def total(values, table):
        out = 0.0
        for i in range(values.shape[0]):
            prefetch(table, i + 1000)
            prefetch(values, np.uint64(i))
            out += values[i]
        return out

    assert total(np.arange(4.0), table) == 6.0


def test_load_be64_reads_eight_bytes_big_endian_anywhere():
    # The scanner reads strings eight bytes at a time from any byte offset (unaligned); the
    # first byte lands in the top bits, so integer order is byte order. Python's stand-in
    # gives the same numbers (and zeros past the end, where a kernel must never read).
    data = np.frombuffer(bytes(range(1, 40)), np.uint8)

    @_jit.njit()
    def words(data, n):
        out = np.empty(n, np.uint64)
        for i in range(n):
            out[i] = load_be64(data, i)
        return out

    got = words(data, 32)
    want = [int.from_bytes(data[i : i + 8].tobytes(), "big") for i in range(32)]
    assert got.tolist() == want
    assert [int(_jit.load_be64(data, i)) for i in range(32)] == want
    assert int(_jit.load_be64(data, 36)) == int.from_bytes(bytes([37, 38, 39]) + bytes(5), "big")
    assert got[0] < got[1]  # byte order


def test_load_le64_and_bit_counts_equal_their_python_stand_ins():
    # The latin-1 run finder loads eight bytes little-endian (byte k in bits 8k-8k+7) and
    # walks a word's marked bits with trailing_zeros (64 for no bit) and count_ones.
    rng = np.random.default_rng(1)
    data = np.frombuffer(rng.integers(0, 256, 48, dtype=np.uint8).tobytes(), np.uint8)
    words = np.concatenate(
        [
            np.array([0, 1, 2**63, 2**64 - 1, 0x8080808080808080, 0x100], np.uint64),
            rng.integers(0, 2**64, 200, dtype=np.uint64, endpoint=False),
        ]
    )

    @_jit.njit()
    def compiled(data, words):
        loads = np.empty(40, np.uint64)
        for i in range(40):
            loads[i] = load_le64(data, i)
        bits = np.empty((2, words.size), np.uint64)
        for k in range(words.size):
            bits[0, k] = trailing_zeros(words[k])
            bits[1, k] = count_ones(words[k])
        return loads, bits

    loads, bits = compiled(data, words)
    want = [int.from_bytes(data[i : i + 8].tobytes(), "little") for i in range(40)]
    assert loads.tolist() == want
    assert [int(_jit.load_le64(data, i)) for i in range(40)] == loads.tolist()
    want_tz = [(int(w) & -int(w)).bit_length() - 1 if w else 64 for w in words]
    assert bits[0].tolist() == want_tz == [int(_jit.trailing_zeros(w)) for w in words]
    want_ones = [bin(int(w)).count("1") for w in words]
    assert bits[1].tolist() == want_ones == [int(_jit.count_ones(w)) for w in words]
    assert want_tz[:4] == [64, 0, 63, 0]


def test_building_a_kernel_readies_the_helpers_it_inlines_from_other_modules():
    # A helper inlined from another module (inline="always") is compiled with that module's
    # globals: their stand-ins must be numba's intrinsics before the caller compiles, even
    # when no kernel of that module was built first (else numba fails in its type inference
    # with "name 'load_le64' is not defined"). Building a dispatcher compiles nothing.
    code = textwrap.dedent(
        """
        from bayeskit import _jit
        from bayeskit.text import _scan_entries, _scan_kernels, _table_kernels
        assert _scan_entries.load_le64 is _jit.load_le64
        _scan_kernels.scan_words.dispatcher()
        for name in ("load_le64", "load_be64", "count_ones", "trailing_zeros"):
            assert getattr(_scan_entries, name) is not getattr(_jit, name), name
        assert _table_kernels.prefetch is _jit.prefetch  # not reached from the scanner
        _table_kernels.merge_entries.dispatcher()
        assert _table_kernels.prefetch is not _jit.prefetch
        print("ready")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ready"
