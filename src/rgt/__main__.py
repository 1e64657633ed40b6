"""``python -m rgt`` is the same as the ``rgt`` command."""

import sys

from rgt.cli import main

if __name__ == "__main__":
    sys.exit(main())
