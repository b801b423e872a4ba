"""Distribution families, one per file: summarize / finalize / log_prob (and linear_form)."""

from ._base import FAMILIES, Family, family_from_config, named_families
from .auto import Auto
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .complement import Complement
from .discretized import Discretized
from .gaussian import Gaussian
from .kernel import Kernel
from .multinomial import Multinomial
from .mvnormal import MVNormal
from .parzen import Parzen
from .poisson import Poisson

__all__ = [
    "FAMILIES",
    "Auto",
    "Bernoulli",
    "Binomial",
    "Categorical",
    "Complement",
    "Discretized",
    "Family",
    "Gaussian",
    "Kernel",
    "MVNormal",
    "Multinomial",
    "Parzen",
    "Poisson",
    "family_from_config",
    "named_families",
]
