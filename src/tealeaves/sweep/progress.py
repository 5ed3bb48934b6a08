"""Progress of a sweep: a bar with ETA on a terminal, one plain line per model in a log."""

from __future__ import annotations

import sys
from typing import TextIO

from tealeaves._progress import Progress as _Progress


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else \
        f"{seconds // 60}m{seconds % 60:02d}s"


class SweepProgress(_Progress):
    """Report ``done / total`` models with the time left (ETA: mean time per finished model so far).

    On a terminal (``stream.isatty()``) one line is redrawn as a bar; otherwise each model
    prints one line, so logs stay readable.

    Parameters
    ----------
    total : int
        The number of models (or units) to finish.
    stream : TextIO, optional
        Where the reports go (standard error by default).
    width : int
        The bar's width in characters.
    label : str
        The command named at the start of each report (``sweep``, ``evaluate``).
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30, label: str = "sweep"):
        super().__init__(sys.stderr if stream is None else stream)
        self.total, self.done, self.width, self.label = total, 0, width, label

    def eta(self) -> float | None:
        """Seconds left, from the mean time per model so far (``None`` before the first).

        Returns
        -------
        float or None
            The estimate.
        """
        if not self.done:
            return None
        return self.remaining(self.done, self.total)

    def update(self, name: str, done: int | None = None) -> None:
        """One more model is finished (or, with ``done``, that many units are).

        Parameters
        ----------
        name : str
            The finished model's name.
        done : int, optional
            The units finished so far (default: one more).
        """
        self.done = self.done + 1 if done is None else done
        eta = self.eta()
        left = "" if eta is None else f", ETA {_duration(eta)}"
        if self.tty:
            filled = self.width * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (self.width - filled)
            end = "\n" if self.done >= self.total else ""
            self.redraw(f"{self.label} [{bar}] {self.done}/{self.total} {name}{left}   {end}")
        else:
            self.line(f"{self.label}: {self.done}/{self.total} models done ({name}){left}")

    def note(self, message: str) -> None:
        """A plain message (e.g. models skipped because the store has them).

        Parameters
        ----------
        message : str
            The message.
        """
        self.line(f"{self.label}: {message}")


#: The former name of :class:`SweepProgress`.
Progress = SweepProgress
