"""``bayeskit serve``: a fitted model as an HTTP service that learns (extra ``bayeskit[serve]``).

An adapter over a fitted model (DESIGN.md): it owns HTTP (:mod:`.app`, :mod:`.inputs`,
:mod:`.server`), the journal (:mod:`.journal`) and the atomic swap of model snapshots
(:mod:`.state`); the model's own methods (``predict_proba``, ``linear_form``, ``partial_fit``,
``unlearn``, a SpamFilter's cutoffs and costs) do the work. :mod:`.scoring` turns one message
into a verdict with its reasons; ``assets/index.html`` is the page.

Importing this package imports starlette and uvicorn: the command line imports it only when
``bayeskit serve`` runs.
"""

from .app import ServeConfig, create_app

__all__ = ["ServeConfig", "create_app"]
