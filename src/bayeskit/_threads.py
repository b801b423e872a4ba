"""One BLAS thread for a stretch of many small matrix products.

The products of EM iterations (one side of k components), of the Parzen window's blocks and of
discriminant analysis on a few dozen columns are too thin for BLAS's threads to pay, and on a
machine shared with other work those threads contend: measured here, a 3–10× slower fit.
Splitting such stretches over threads by hand gains nothing either where the product holds the
GIL (scipy's ``dtrmm`` and ``dsyrk`` do: QDA's scoring on two threads took as long as on one).
threadpoolctl finds the BLAS libraries by scanning the loaded ones (~20 ms); the controller is
built once and reused.
"""

from __future__ import annotations

from typing import Any

from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None


def one_blas_thread() -> Any:
    """A context manager limiting BLAS to one thread while it is open."""
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")
