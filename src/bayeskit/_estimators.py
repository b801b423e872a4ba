"""The estimators a model file may name, listed in one place: every public estimator of the
model packages (each package's ``__all__``). A package of new models joins ``PACKAGES``."""

from __future__ import annotations

from . import discriminant, naive_bayes
from ._base import GenerativeClassifier

#: the packages whose public estimators model files hold
PACKAGES = (naive_bayes, discriminant)

#: class name -> class, for every estimator of PACKAGES
ESTIMATORS: dict[str, type[GenerativeClassifier]] = {
    name: getattr(package, name) for package in PACKAGES for name in package.__all__
}
