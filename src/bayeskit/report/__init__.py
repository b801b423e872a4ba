"""One self-contained HTML page that shows how good a classifier is and why.

:func:`build_report` takes out-of-fold (or held-out) probabilities, the true labels and the
fitted model, and returns the page: headline scores, per-class table, confusion heat-map, ROC
and precision–recall curves, a reliability plot, the class-conditional densities of the most
informative numeric features and the top words of text models. Charts are hand-written
inline SVG, so the page needs no plotting library and makes no network request.
"""

from .page import build_report

__all__ = ["build_report"]
