"""The report page's inline CSS and JavaScript (``static/report.css``, ``static/report.js``; no library)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def asset(name: str) -> str:
    """The text of ``tealeaves/report/static/<name>`` (inlined into the page).

    Parameters
    ----------
    name : str
        ``report.css`` or ``report.js``.

    Returns
    -------
    str
        The file's text.
    """
    return resources.files("tealeaves.report").joinpath("static", name).read_text(encoding="utf-8")
