"""``python -m api [--host ...]``: the service without the main CLI."""

import sys

from .cli import main

sys.exit(main())
