"""Mixtures fitted by the one EM engine: the Gaussian-mixture classifier (an RBF network).

The engine (:func:`run_em`, :func:`iterate`, :func:`e_step`) is public so that EM can run
where the data lives: an iteration is ``finalize(Σ_parts e_step(part).stats)``, one reduce.
"""

from ._class_fit import FewRowsWarning, SwampedColumnWarning
from ._em import EMModel, EMResult, Part, Step, e_step, iterate, run_em
from ._family import GaussianMixtureFamily
from ._resolution import resolution_floor
from .gmm_classifier import GaussianMixtureClassifier

__all__ = [
    "EMModel",
    "EMResult",
    "FewRowsWarning",
    "GaussianMixtureClassifier",
    "GaussianMixtureFamily",
    "Part",
    "Step",
    "SwampedColumnWarning",
    "e_step",
    "iterate",
    "resolution_floor",
    "run_em",
]
