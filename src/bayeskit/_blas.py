"""BLAS and LAPACK for compiled kernels: scipy's ``cython_blas`` / ``cython_lapack`` functions
(the library scipy and numpy use) as ctypes function pointers a numba kernel calls without the
GIL.

scipy's Python wrappers of these functions hold the GIL and copy or check their arguments on
every call; a kernel calling them itself does neither. Kernels take the pointers as
arguments, not globals, so their compiled code stays in numba's disk cache. Every argument is
passed by address (Fortran's convention); :func:`letters` holds the one-character ones.

BLAS is Fortran: a C-ordered (r, c) array is the Fortran (c, r) matrix, its transpose.
"""

from __future__ import annotations

import ctypes
import functools
import importlib
from typing import Any

import numpy as np

_P = ctypes.c_void_p
#: number of (pointer) arguments of each function used
_ARITY = {"dtrmm": 11, "dsyrk": 10, "dpotrf": 5, "dtrtri": 6}
_MODULE = {
    "dtrmm": "scipy.linalg.cython_blas",
    "dsyrk": "scipy.linalg.cython_blas",
    "dpotrf": "scipy.linalg.cython_lapack",
    "dtrtri": "scipy.linalg.cython_lapack",
}

#: offsets of ``L``, ``U``, ``N`` and ``T`` in :func:`letters`
L, U, N, T = 0, 1, 2, 3


@functools.cache
def function(name: str) -> Any:
    """A ctypes pointer to BLAS or LAPACK function ``name`` (``dtrmm``, ``dsyrk``,
    ``dpotrf``, ``dtrtri``)."""
    prototype = ctypes.CFUNCTYPE(None, *[_P] * _ARITY[name])
    return prototype(_address(_MODULE[name], name))


def letters() -> np.ndarray:
    """Fortran's one-character arguments ``L``, ``U``, ``N``, ``T`` as bytes (a kernel
    passes the address of one: ``letters[U:].ctypes``)."""
    return np.frombuffer(b"LUNT", dtype=np.uint8).copy()


def _address(module: str, name: str) -> int:
    """The C address of a function a Cython module exports (its ``__pyx_capi__`` capsule)."""
    capsule = importlib.import_module(module).__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    if not address:  # pragma: no cover - scipy without the function
        raise ImportError(f"{module} does not export {name}")
    return int(address)
