"""Import optional libraries, naming the extra that installs a missing one."""

from __future__ import annotations

import importlib
from types import ModuleType

from tealeaves.errors import MissingDependencyError


def optional_import(module: str, extra: str, purpose: str | None = None) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError` naming ``pip install tealeaves[extra]``.

    Parameters
    ----------
    module : str
        The module to import.
    extra : str
        The tealeaves extra that installs it.
    purpose : str, optional
        What needs it, for the message.

    Returns
    -------
    types.ModuleType
        The module.

    Raises
    ------
    MissingDependencyError
        When it cannot be imported.

    Examples
    --------
    >>> optional_import("json", "none").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        what = f"{purpose} needs" if purpose else "this needs"
        raise MissingDependencyError(
            f"{what} the optional library '{module.split('.')[0]}', which is not installed ({exc})",
            fix=f"pip install 'tealeaves[{extra}]'",
        ) from None
