"""``python -m bayeskit.cli``: the ``bayeskit`` command."""

import sys

from . import main

sys.exit(main())
