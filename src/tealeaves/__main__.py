"""``python -m tealeaves`` runs the command line."""

import signal
import sys

from tealeaves import _interrupt


def _main() -> int:
    """Run the command line; a Ctrl-C outside its error boundary ends it with status 130 as well."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when started with it ignored
        signal.signal(signal.SIGINT, _interrupt.raise_when_safe)  # never inside an import (_interrupt)
    try:
        from tealeaves.cli import main

        return main()
    except KeyboardInterrupt:  # before the command's error boundary was set up, or after it closed
        print(f"tealeaves: error: {_interrupt.MESSAGE}", file=sys.stderr)
        return 130
    finally:
        # the command is over and its status decided: a Ctrl-C during the interpreter's shutdown
        # (or one delivered again, _interrupt.redeliver) must not turn it into death by a signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)


sys.exit(_main())
