"""``python -m cli``: the ``rpg-balance`` command line."""

import sys

from cli.main import main

sys.exit(main())
