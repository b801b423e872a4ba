"""Distribution families, one per file: summarize / finalize / log_prob (and linear_form)."""

from ._base import Family
from .bernoulli import Bernoulli
from .categorical import Categorical
from .complement import Complement
from .multinomial import Multinomial

__all__ = ["Bernoulli", "Categorical", "Complement", "Family", "Multinomial"]
