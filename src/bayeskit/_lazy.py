"""SciPy's sparse matrices, linear algebra and special functions, imported where a model
first uses them.

Importing any of ``scipy.sparse``, ``scipy.linalg`` or ``scipy.special`` costs about 0.25-0.35 s
of CPU, most of it SciPy's array-API layer, which each of them loads; importing numpy costs
0.1 s. A naive Bayes or Bayesian-network fit on a dense table of a few thousand rows takes a
few milliseconds, so a one-shot process (a script, a command, one cross-validation) would
spend most of its time loading modules it never calls. A module names them as

    from .._lazy import sparse as sp

and reads ``sp.csr_matrix``, ``linalg.cho_solve``, ``special.gammaln`` as before: the first
attribute read imports the SciPy module (and type checkers see the module itself).
``sparse.issparse`` imports nothing: an object can be one of SciPy's sparse arrays or
matrices only once ``scipy.sparse`` has been imported, so until then the answer is no.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__all__ = ["fft", "issparse", "linalg", "sparse", "special"]


def issparse(x: object) -> bool:
    """``scipy.sparse.issparse(x)``, without importing SciPy when nothing has (then no
    object is one of its sparse arrays)."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(x))


class _Lazy:
    """A SciPy module imported on the first read of one of its attributes; each attribute is
    kept after its first read (the next is an instance attribute, no import machinery)."""

    def __init__(self, name: str) -> None:
        self.__dict__["_module_name"] = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self.__dict__["_module_name"]), attr)
        self.__dict__[attr] = value
        return value

    def __repr__(self) -> str:
        return f"<SciPy module {self.__dict__['_module_name']!r}, imported on first use>"


if TYPE_CHECKING:  # to type checkers, the modules themselves
    import scipy.fft as fft
    import scipy.linalg as linalg
    import scipy.sparse as sparse
    import scipy.special as special
else:
    sparse = _Lazy("scipy.sparse")
    sparse.__dict__["issparse"] = issparse  # answered without an import (module docstring)
    linalg = _Lazy("scipy.linalg")
    special = _Lazy("scipy.special")
    fft = _Lazy("scipy.fft")
