"""Distribution families, one per file: summarize / finalize / log_prob (and linear_form)."""

from ._base import FAMILIES, Family, family_from_config
from .bernoulli import Bernoulli
from .categorical import Categorical
from .complement import Complement
from .multinomial import Multinomial

__all__ = [
    "FAMILIES",
    "Bernoulli",
    "Categorical",
    "Complement",
    "Family",
    "Multinomial",
    "family_from_config",
]
