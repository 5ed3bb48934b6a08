"""Progress of a long task on a stream (standard error for the commands): the one mechanism.

On a terminal (``stream.isatty()``) one line is redrawn in place with ``\\r``; otherwise each report
is a plain line, so logs stay readable.  Reports can be throttled to one per ``interval`` seconds.
What is counted and how a line reads belongs to each task's subclass:
:class:`~tealeaves.sweep.progress.SweepProgress` (models fitted),
:class:`~tealeaves.data.fetch.DownloadProgress` (bytes downloaded) and
:class:`~tealeaves.index.streaming.BuildProgress` (tokens indexed, shards merged).
"""

from __future__ import annotations

import time
from typing import TextIO


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is an interactive terminal (``None`` and streams without ``isatty`` are not).

    Parameters
    ----------
    stream : TextIO or None
        The stream progress is written to.

    Returns
    -------
    bool
        ``stream.isatty()`` when the stream has it, else False.
    """
    return bool(stream is not None and getattr(stream, "isatty", lambda: False)())


class Progress:
    """Reports of a task's progress on ``stream``: redrawn in place on a terminal, plain lines otherwise.

    Parameters
    ----------
    stream : TextIO or None
        Where reports go; ``None`` writes nothing (a subclass passes ``sys.stderr`` for its default).
    interval : float
        Least seconds between two throttled reports (:meth:`due`).
    wait_first : bool
        Whether the first throttled report also waits ``interval`` seconds from the start.
    """

    def __init__(self, stream: TextIO | None, interval: float = 0.0, wait_first: bool = False):
        self.stream = stream
        self.tty = is_terminal(stream)
        self.interval = interval
        self.start = time.monotonic()
        self._last = self.start if wait_first else float("-inf")

    def elapsed(self) -> float:
        """Seconds since the task started.

        Returns
        -------
        float
            The elapsed time.
        """
        return time.monotonic() - self.start

    def remaining(self, done: float, total: float) -> float:
        """Seconds left if the rest goes at the mean pace so far (``done`` > 0 units of ``total``).

        Parameters
        ----------
        done : float
            Units done (more than 0).
        total : float
            Units in all.

        Returns
        -------
        float
            The estimate.
        """
        return self.elapsed() / done * (total - done)

    def due(self, interval: float | None = None, force: bool = False) -> bool:
        """Whether a throttled report may be drawn now (``interval`` seconds since the last); if so,
        the time is recorded as the last report's.

        Parameters
        ----------
        interval : float, optional
            Least seconds between reports (default: the instance's ``interval``).
        force : bool
            Report now whatever the time (the time is recorded all the same).

        Returns
        -------
        bool
            True when the caller should draw its report.
        """
        now = time.monotonic()
        if not force and now - self._last < (self.interval if interval is None else interval):
            return False
        self._last = now
        return True

    def write(self, text: str) -> None:
        """Write ``text`` as it is and flush (nothing without a stream).

        Parameters
        ----------
        text : str
            The text.
        """
        if self.stream is not None:
            self.stream.write(text)
            self.stream.flush()

    def redraw(self, text: str) -> None:
        r"""Redraw the terminal line with ``text`` (``\r`` first).

        Parameters
        ----------
        text : str
            The new line.
        """
        self.write("\r" + text)

    def line(self, text: str) -> None:
        """Write ``text`` as one plain line.

        Parameters
        ----------
        text : str
            The line, without its newline.
        """
        self.write(text + "\n")
