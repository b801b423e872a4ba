"""``python -m bayeskit.cli``: the ``bayeskit`` command."""

from . import main
from .errors import leave

leave(main())
