"""``python -m tealeaves`` runs the command line."""

import sys

from tealeaves.cli import main

sys.exit(main())
