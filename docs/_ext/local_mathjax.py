"""MathJax 3 served from the site itself instead of its CDN: the formulas render offline and
no page loads anything from outside the site.

The MathJax files come from the ``sphinx-mathjax-offline`` wheel (the docs extra), which bundles
MathJax 3.2; this extension copies them into ``_static/mathjax`` at the end of a build and
points ``sphinx.ext.mathjax`` at the copy (the wheel's own extension does the same but does not
declare that it is safe for parallel builds, which ``sphinx -j`` turns into a warning).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from sphinx.util.fileutil import copy_asset


def _bundled() -> Path:
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "MathJax for the docs comes from sphinx-mathjax-offline: pip install -e '.[docs]'"
        )
    return Path(spec.origin).parent / "static" / "mathjax"


def _copy(app: Any, exc: BaseException | None) -> None:
    if exc is None:
        copy_asset(str(_bundled()), str(Path(app.outdir) / "_static" / "mathjax"))


def setup(app: Any) -> dict[str, Any]:
    _bundled()  # fail at once, not after the build, when the files are missing
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
