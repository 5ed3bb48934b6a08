"""Progress of a sweep: a bar with ETA on a terminal, one plain line per model in a log."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else \
        f"{seconds // 60}m{seconds % 60:02d}s"


class Progress:
    """Report ``done / total`` models with the time left (ETA: mean time per finished model so far).

    On a terminal (``stream.isatty()``) one line is redrawn as a bar; otherwise each model
    prints one line, so logs stay readable.
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30):
        self.total, self.done, self.width = total, 0, width
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()

    def eta(self) -> float | None:
        """Seconds left, from the mean time per model so far (``None`` before the first)."""
        if not self.done:
            return None
        return (time.monotonic() - self.start) / self.done * (self.total - self.done)

    def update(self, name: str, done: int | None = None) -> None:
        """One more model is finished (or, with ``done``, that many units are)."""
        self.done = self.done + 1 if done is None else done
        eta = self.eta()
        left = "" if eta is None else f", ETA {_duration(eta)}"
        if self.tty:
            filled = self.width * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (self.width - filled)
            end = "\n" if self.done >= self.total else ""
            self.stream.write(f"\rsweep [{bar}] {self.done}/{self.total} {name}{left}   {end}")
        else:
            self.stream.write(f"sweep: {self.done}/{self.total} models done ({name}){left}\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        """A plain message (e.g. models skipped because the store has them)."""
        self.stream.write(f"sweep: {message}\n")
        self.stream.flush()
