"""numba kernels: built on first use, cached on disk, announced when they compile.

- **Lazy.** ``@njit(...)`` returns a :class:`Kernel`. numba is imported, and the kernel's
  dispatcher built, only when a kernel is first called (or typed inside another kernel), so
  ``import bayeskit`` and the commands that run no kernel do not pay numba's import (about
  0.3 s). Kernels that use ``prange`` import it from here (``from .._jit import njit,
  prange``): a stand-in that runs as ``range`` until the kernel is built, then numba's own.
  :func:`prefetch` is another such stand-in: a no-op in Python, LLVM's prefetch once built;
  and :func:`load_be64` / :func:`load_le64` (unaligned 8-byte loads), :func:`trailing_zeros`
  and :func:`count_ones` (one instruction each once built).
- **Cached.** Compiled code is kept on disk, so a kernel compiles once per installation. The
  cache is numba's ``__pycache__`` beside the source when that folder is writable; where the
  installed package is not writable it is ``$BAYESKIT_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/bayeskit``, else ``~/.cache/bayeskit`` (``NUMBA_CACHE_DIR``, when set,
  wins over all of them, as numba documents). Where nothing is writable the kernels compile
  in each process instead. A kernel's cached code is kept while its own source file and the
  files of :data:`KERNEL_SOURCES` (every module defining kernels, and this one) are
  unchanged: numba checks only the kernel's own file, and a kernel inlines the kernels and
  intrinsics it calls from the others.
- **Announced.** :func:`announce_compiling` (the command line calls it) prints one line on
  standard error the first time a bayeskit kernel compiles in a process: a first run after
  installing is slower, and says so.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Kernel",
    "announce_compiling",
    "cache_dir",
    "count_ones",
    "load_be64",
    "load_le64",
    "njit",
    "prange",
    "prefetch",
    "trailing_zeros",
]

# The kernels of a typical command compile in about this many seconds of CPU on a 2-core
# machine (benchmarks/startup.py, cold rows: a first `train` on text 2.4 s, on a numeric table
# 0.6 s, with KernelNB 3.9 s more than the second run).
COMPILE_SECONDS_ESTIMATE = 3
#: At most this many values (a small table: typed in, or a small CSV) go to the numpy twins of
#: the kernels that have one (the same numbers, bit for bit): importing numba and loading
#: compiled code costs half a second, the work microseconds.
SMALL_TABLE = 1 << 15

_PACKAGE_ROOT = Path(__file__).resolve().parent
#: The package's modules that define kernels (tests/test_jit.py checks the list is whole),
#: relative to the package: the cached code of any kernel is stale when one of them changes.
KERNEL_SOURCES = (
    "_insertion.py",
    "_jit.py",
    "bayesnet/_kernels.py",
    "families/_bandwidth.py",
    "families/_class_cells.py",
    "families/_categorical_kernels.py",
    "families/_counts_common.py",
    "families/_gaussian_refine.py",
    "families/_kde_kernels.py",
    "families/_mdl.py",
    "families/_mvnormal_kernels.py",
    "families/_parzen_kernels.py",
    "families/_sparse_dot.py",
    "families/_student_t.py",
    "families/discretized.py",
    "mixture/_em.py",
    "mixture/_resolution.py",
    "stats/moments.py",
    "stats/scatter.py",
    "stats/_sparse_sums.py",
    "text/_html_kernels.py",
    "text/_mail_kernels.py",
    "text/_row_kernels.py",
    "text/_scan_entries.py",
    "text/_scan_kernels.py",
    "text/_table_kernels.py",
)
_lock = threading.RLock()
_announce = False
_announced = False
_uncached = False  # a kernel had to be built without a disk cache


def prange(*args: int) -> range:
    """numba's ``prange`` once the kernel using it is built; ``range`` until then."""
    return range(*args)


def prefetch(array: Any, index: int) -> None:
    """Ask the CPU to load ``array[index]`` (its first element along further axes) into the
    cache, without waiting for it: in a kernel, LLVM's ``llvm.prefetch`` (read, all cache
    levels); until the kernel is built, nothing. A hint only: it never faults, so an index
    out of bounds is harmless. Kernels that probe large hash tables at random issue it a few
    probes ahead, so that the loads overlap instead of waiting one after another."""


def load_be64(array: Any, index: int) -> Any:
    """The 8 bytes ``array[index:index + 8]`` of a ``uint8`` array as one big-endian
    ``uint64`` (the first byte in the top bits, so integer order is byte order): in a kernel,
    one unaligned load and a byte swap, with no bounds check: the caller makes sure the 8
    bytes are inside the array (bytes past the ones it wants are read, then masked off)."""
    return _load64(array, index, "big")


def load_le64(array: Any, index: int) -> Any:
    """:func:`load_be64` little-endian: the first byte in the low bits, so byte ``k`` of
    the eight is bits ``8k``-``8k + 7`` (a load without the byte swap)."""
    return _load64(array, index, "little")


def _load64(array: Any, index: int, byteorder: Literal["big", "little"]) -> Any:
    import numpy as np

    return np.uint64(int.from_bytes(bytes(array[index : index + 8]).ljust(8, b"\0"), byteorder))


def trailing_zeros(word: Any) -> Any:
    """The zero bits below the lowest one of an unsigned 64-bit ``word`` (64 for zero): in a
    kernel, LLVM's ``cttz`` (one instruction)."""
    import numpy as np

    w = int(word)
    return np.uint64((w & -w).bit_length() - 1 if w else 64)


def count_ones(word: Any) -> Any:
    """The one bits of an unsigned 64-bit ``word``: in a kernel, LLVM's ``ctpop``."""
    import numpy as np

    return np.uint64(int(word).bit_count())


def cache_dir() -> Path:
    """The user cache folder for compiled kernels (used where the package is read-only)."""
    explicit = os.environ.get("BAYESKIT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "bayeskit"


class Kernel:
    """A numba kernel built on first use: call it as the function it wraps."""

    def __init__(self, function: Callable[..., Any], options: dict[str, Any]):
        functools.update_wrapper(self, function)
        self._function = function
        self._options = options
        self._dispatcher: Any = None

    def dispatcher(self) -> Any:
        """numba's dispatcher for the kernel (built, not compiled, on the first request)."""
        built = self._dispatcher
        if built is None:
            with _lock:
                if self._dispatcher is None:
                    self._dispatcher = _build(self._function, self._options)
                built = self._dispatcher
        return built

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        built = self._dispatcher
        if built is None:
            built = self.dispatcher()
        return built(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes a Kernel lacks: numba's own (``_numba_type_`` when
        # another kernel calls this one, ``py_func``, ``stats``...) come from the dispatcher.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)

    def __repr__(self) -> str:
        return f"<bayeskit kernel {self._function.__qualname__}>"


def njit(**options: Any) -> Callable[[Callable[..., Any]], Kernel]:
    """``numba.njit(cache=True, **options)``, built when first used; without the cache
    where none is possible."""

    def decorate(function: Callable[..., Any]) -> Kernel:
        return Kernel(function, options)

    return decorate


def _build(function: Callable[..., Any], options: dict[str, Any]) -> Any:
    global _uncached
    numba = _numba()
    scope = function.__globals__
    intrinsics: list[tuple[Any, Callable[[], Any]]] = [
        (prange, lambda: numba.prange),
        (prefetch, _prefetch_intrinsic),
        (load_be64, functools.partial(_load64_intrinsic, swap=True)),
        (load_le64, functools.partial(_load64_intrinsic, swap=False)),
        (trailing_zeros, functools.partial(_bit_intrinsic, "cttz")),
        (count_ones, functools.partial(_bit_intrinsic, "ctpop")),
    ]
    for module in _kernel_scopes(scope):
        for name, value in list(module.items()):
            for stand_in, build in intrinsics:
                if value is stand_in:  # by identity: a module's globals need not hash
                    module[name] = build()
                    break
    function._bayeskit_kernel = True  # type: ignore[attr-defined]  # (see _stamped)
    try:
        return numba.njit(cache=True, **options)(function)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        _uncached = True
        return numba.njit(cache=False, **options)(function)


def _kernel_scopes(scope: dict[str, Any]) -> list[dict[str, Any]]:
    """The globals of a kernel's module and of every module whose kernels it calls (and they
    call): numba inlines a helper of another module (``inline="always"``) with that module's
    globals, whose stand-ins must be numba's intrinsics by then."""
    found: list[dict[str, Any]] = []
    todo = [scope]
    while todo:
        current = todo.pop()
        if any(current is seen for seen in found):
            continue
        found.append(current)
        todo.extend(v.__wrapped__.__globals__ for v in list(current.values()) if type(v) is Kernel)
    return found


@functools.lru_cache(maxsize=1)
def _numba() -> Any:
    import numba

    _install_cache_locator()
    _install_compile_listener()
    return numba


@functools.lru_cache(maxsize=1)
def _prefetch_intrinsic() -> Any:
    """:func:`prefetch` as a numba intrinsic (built once, when a kernel using it is built)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
        if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            array_type = signature.args[0]
            view = context.make_array(array_type)(context, builder, args[0])
            at = context.cast(builder, args[1], signature.args[1], types.intp)
            # The element's address, computed without bounds checks: the hint never faults.
            first = [at] + [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
            pointer = cgutils.get_item_pointer2(
                context, builder, data=view.data,
                shape=cgutils.unpack_tuple(builder, view.shape),
                strides=cgutils.unpack_tuple(builder, view.strides),
                layout=array_type.layout, inds=first, wraparound=False, boundscheck=False,
            )  # fmt: skip
            byte_pointer = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            hint = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
            function = cgutils.get_or_insert_function(builder.module, hint, "llvm.prefetch.p0")
            # read (0), high locality (3), data cache (1)
            builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    return prefetch


@functools.lru_cache(maxsize=2)
def _load64_intrinsic(swap: bool) -> Any:
    """:func:`load_be64` (``swap``) or :func:`load_le64` as a numba intrinsic (built once,
    when a kernel using it is built)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def load64(typingctx: Any, array: Any, index: Any) -> Any:
        if (
            not isinstance(array, types.Array)
            or array.dtype != types.uint8
            or array.ndim != 1
            or not isinstance(index, types.Integer)
        ):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            view = context.make_array(signature.args[0])(context, builder, args[0])
            at = context.cast(builder, args[1], signature.args[1], types.intp)
            pointer = cgutils.get_item_pointer2(
                context, builder, data=view.data,
                shape=cgutils.unpack_tuple(builder, view.shape),
                strides=cgutils.unpack_tuple(builder, view.strides),
                layout=signature.args[0].layout, inds=[at], wraparound=False,
                boundscheck=False,
            )  # fmt: skip
            i64 = ir.IntType(64)
            word = builder.load(builder.bitcast(pointer, i64.as_pointer()), align=1)
            if not swap:
                return word
            bswap = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(i64, [i64]), "llvm.bswap.i64"
            )
            return builder.call(bswap, [word])

        return types.uint64(array, index), codegen

    return load64


@functools.lru_cache(maxsize=2)
def _bit_intrinsic(operation: str) -> Any:
    """:func:`trailing_zeros` (``"cttz"``) or :func:`count_ones` (``"ctpop"``) as a numba
    intrinsic of a uint64 (built once, when a kernel using it is built)."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def bits(typingctx: Any, word: Any) -> Any:
        if not isinstance(word, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            value = context.cast(builder, args[0], signature.args[0], types.uint64)
            if operation == "cttz":  # defined at zero (64): the scanner relies on it
                return builder.cttz(value, ir.Constant(ir.IntType(1), 0))
            return builder.ctpop(value)

        return types.uint64(word), codegen

    return bits


# ------------------------------------------------------------------ where the cache lives
def _install_cache_locator() -> None:
    """Put bayeskit's locators in numba's list: :class:`_UserCacheLocator` just before the
    in-tree locator (after ``NUMBA_CACHE_DIR``'s), and before each of numba's own file
    locators the same locator for bayeskit's kernels with :func:`_stamped` source stamps.
    numba offers no public hook for this; if its internals change, its own locators
    (``~/.cache/numba`` for a read-only package) are used."""
    locators = _locator_list()
    if locators is None or any(getattr(c, "_bayeskit", None) for c in locators):
        return
    from numba.core import caching

    in_tree = getattr(caching, "InTreeCacheLocator", None) or getattr(
        caching, "_InTreeCacheLocator", None
    )
    if in_tree is None:
        return
    locator = _user_cache_locator(caching, in_tree)
    if locator is not None:
        locators.insert(locators.index(in_tree) if in_tree in locators else 0, locator)
    provided = getattr(caching, "UserProvidedCacheLocator", None) or getattr(
        caching, "_UserProvidedCacheLocator", None
    )
    for base in (provided, in_tree):
        if base is not None and base in locators:
            locators.insert(locators.index(base), _stamped(base))


def _stamped(base: type) -> type:
    """numba's locator ``base`` for kernels built here, their source stamp also covering
    :data:`KERNEL_SOURCES`."""

    class _Stamped(_StampedBySources, base):
        _bayeskit = "stamped"

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not getattr(py_func, "_bayeskit_kernel", False):
                return None
            return super().from_function(py_func, py_file)

    _Stamped.__name__ = _Stamped.__qualname__ = f"_Stamped{base.__name__}"
    return _Stamped


class _StampedBySources:
    """A locator's source stamp (numba's: the kernel's own file) with the digest of
    :data:`KERNEL_SOURCES` beside it."""

    def get_source_stamp(self) -> Any:
        return (super().get_source_stamp(), _kernel_sources_stamp())  # type: ignore[misc]


@functools.lru_cache(maxsize=1)
def _kernel_sources_stamp() -> str:
    """A digest of the contents of :data:`KERNEL_SOURCES` (read once per process)."""
    import hashlib  # here: the command line imports this module at start, when no kernel runs

    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update(name.encode())
        try:
            digest.update((_PACKAGE_ROOT / name).read_bytes())
        except OSError:
            digest.update(b"\0missing")
    return digest.hexdigest()


def _locator_list() -> list[type] | None:
    """numba's list of cache locator classes (``CacheImpl``; ``_CacheImpl`` before 0.68)."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return None
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    found = getattr(impl, "_locator_classes", None)
    return found if isinstance(found, list) else None


def _user_cache_locator(caching: Any, in_tree: Any) -> type | None:
    base = getattr(caching, "_UserProvidedCacheLocator", None) or getattr(
        caching, "UserProvidedCacheLocator", None
    )
    if base is None:
        return None

    class _UserCacheLocator(_StampedBySources, base):  # type: ignore[misc, valid-type]
        """bayeskit's own kernels, when the package folder is not writable: cached in
        :func:`cache_dir`."""

        _bayeskit = "user cache"

        def __init__(self, py_func: Any, py_file: str):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            subpath = self.get_suitable_cache_subpath(py_file)
            self._cache_path = os.path.join(cache_dir(), subpath)

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not _is_ours(py_file) or in_tree.from_function(py_func, py_file) is not None:
                return None  # not a bayeskit kernel, or its __pycache__ is writable
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    return _UserCacheLocator


def _is_ours(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(_PACKAGE_ROOT)
    except (OSError, ValueError):
        return False


# ------------------------------------------------------------------ saying it compiles
def announce_compiling(enabled: bool = True) -> None:
    """Print one line on standard error when a bayeskit kernel first compiles in this
    process (the command line turns this on; the library stays quiet)."""
    global _announce
    _announce = enabled


def _install_compile_listener() -> None:
    try:
        from numba.core import event
    except ImportError:  # pragma: no cover - numba without events
        return

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            dispatcher = getattr(ev.data, "get", lambda _: None)("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            if module.split(".")[0] == "bayeskit":
                _compiling()

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Listener())


def _compiling() -> None:
    global _announced
    if not _announce or _announced:
        return
    _announced = True
    estimate = COMPILE_SECONDS_ESTIMATE
    if _uncached:
        line = (
            f"bayeskit: compiling kernels, ~{estimate} s (no writable cache folder, so every "
            "run compiles them; set BAYESKIT_CACHE_DIR to a writable folder to keep them)"
        )
    else:
        line = f"bayeskit: first run: compiling kernels, ~{estimate} s; later runs start at once"
    print(line, file=sys.stderr, flush=True)
