"""``python -m tealeaves`` runs the command line."""

import sys

from tealeaves import _interrupt

try:
    from tealeaves.cli import main

    status = main()
except KeyboardInterrupt:  # Ctrl-C before the command's error boundary was set up, or after it closed
    print(f"tealeaves: error: {_interrupt.MESSAGE}", file=sys.stderr)
    status = 130
sys.exit(status)
