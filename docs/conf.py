"""Sphinx configuration of bayeskit's documentation (``make -C docs html``).

The stack is scikit-learn's: Sphinx with numpydoc (the estimators' docstrings are already
numpydoc), autosummary for one page per public name, sphinx-gallery for the examples (run at
build time, their figures kept), and myst-parser so the user guide is Markdown with ``$…$``
math. The Makefile builds with ``-W --keep-going -n``: any warning, broken cross-reference or
failing example fails the build.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))  # the checkout's code, whatever is installed
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))  # this site's extensions

import bayeskit  # noqa: E402

project = "bayeskit"
author = "bayeskit developers"
copyright = "bayeskit developers, MIT licence"
release = bayeskit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "local_mathjax",  # docs/_ext: MathJax copied into the site, not loaded from a CDN
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
    "sg_execution_times.rst",
]
templates_path = ["_templates"]

# ------------------------------------------------------------------ Markdown (MyST)
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# ------------------------------------------------------------------ API reference
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False  # autosummary lists them instead
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
nitpicky = True
# The guide's toctree lists its topics, then every other page of docs/guide by glob (pages
# contributors add appear without an edit here); when there is none the glob matches nothing,
# which is not an error.
suppress_warnings = ["toc.glob"]


def _skip_member(app, what, name, obj, skip, options):
    """scikit-learn's metadata routing (``set_fit_request``…, ``get_metadata_routing``) and
    ``set_output`` are generated for every estimator and documented by scikit-learn; the
    reference leaves them out (their docstrings cross-reference scikit-learn's user guide)."""
    if name in ("set_output", "get_metadata_routing") or (
        name.startswith("set_") and name.endswith("_request")
    ):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)


# Type words of the prose docstrings ("array-like", "int", "optional") are not targets.
nitpick_ignore_regex = [
    ("py:class", r"(array-like|array_like|sparse matrix|.*of shape.*|optional|default.*|.*-like)"),
    # Docstrings name the internal modules a contributor reads next (the families, the text
    # analysers, the calibration); they are not part of the public reference.
    (
        "py:(mod|func|class|data)",
        r"bayeskit\.(families|text\.(analyze|calibration|capped)|mixture\._\w+)(\..*)?",
    ),
    ("py:data", r"ESTIMATORS"),
    # The reference documents names, not modules: a docstring naming the module a contributor
    # reads next (``:mod:`bayeskit.text.fisher```) has no page to link to.
    ("py:mod", r"bayeskit\.[\w.]+"),
    # The readers and the model-file internals behind the CLI and bk.load (not public names).
    ("py:(func|class|data)", r"(bayeskit\.io\.[\w.]+|load_reading)"),
    # The standard library's own types, linked only when intersphinx is on (see below).
    ("py:class", r"(mailbox|email|pathlib|collections\.abc|typing|os)\..*"),
]

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", None),
    "numpy": ("https://numpy.org/doc/stable", None),
    "sklearn": ("https://scikit-learn.org/stable", None),
}
# No network at build time: without a cached inventory intersphinx would warn, so the
# mapping is used only when BAYESKIT_DOCS_INTERSPHINX=1 (a machine that can reach them).
if os.environ.get("BAYESKIT_DOCS_INTERSPHINX") != "1":
    intersphinx_mapping = {}

# ------------------------------------------------------------------ the gallery
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "plot_gallery": "True",
    "abort_on_example_error": False,  # every failing example is reported, then the build fails
    "only_warn_on_example_error": False,
    "show_memory": False,
    "min_reported_time": 1e9,
}
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
os.environ.setdefault("MPLBACKEND", "agg")

# ------------------------------------------------------------------ HTML
html_theme = "pydata_sphinx_theme"
html_title = f"bayeskit {release}"
html_static_path = ["_static"]
html_css_files = ["bayeskit.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_prev_next": True,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
