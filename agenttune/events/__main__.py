"""``python -m agenttune.events``: see :mod:`agenttune.events.cli`."""

import sys

from agenttune.events.cli import main

sys.exit(main())
