"""``python -m tealeaves`` runs the command line."""

import signal
import sys

from tealeaves import _interrupt

try:
    from tealeaves.cli import main

    status = main()
except KeyboardInterrupt:  # Ctrl-C before the command's error boundary was set up, or after it closed
    print(f"tealeaves: error: {_interrupt.MESSAGE}", file=sys.stderr)
    status = 130
# the command is over and its status decided: a Ctrl-C during the interpreter's shutdown must not
# turn it into death by a signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.exit(status)
