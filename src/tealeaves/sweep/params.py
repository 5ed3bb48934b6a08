"""The parameters of :func:`tealeaves.sweep.sweep` and :func:`tealeaves.sweep.compare_models`,
declared once (:class:`tealeaves._params.Param`) for the Python API and ``tealeaves sweep|compare``.

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from collections.abc import Iterable

from tealeaves._params import Param, declare
from tealeaves.coherence.params import N_TOP as _N_TOP
from tealeaves.errors import ParameterError
from tealeaves.validation import check_unique

#: Numbers of topics (a list in a sweep): each a whole number >= 2, given once.
N_COMPONENTS = Param("n_components", "int", min_value=2, short="-k", deprecated_flags=("--k",),
                     help="numbers of topics, each >= 2 and given once")
#: Seeds per K: ``n`` means seeds 0 .. n-1.
SEEDS = Param("seeds", "int", min_value=1, max_value=10_000, help="seeds 0 .. N-1 per K")
#: Top words per topic scored by the coherence measures (the coherence API's declaration).
N_TOP = _N_TOP.replace(help="top words per topic")
#: Share of the corpus held out as test documents when no test corpus is given.
TEST_FRACTION = Param("test_fraction", "float", min_value=0.0, max_value=1.0, include_min=False,
                      help="share of CORPUS held out as test documents without --test (default 0.2)")
#: Local worker processes.
N_JOBS = Param("n_jobs", "int", min_value=1, max_value=256, short="-j", deprecated_flags=("--workers",),
               help="local worker processes (1: in this process)")
#: Bootstrap replicates of ``compare``.
N_BOOT = Param("n_boot", "int", min_value=100, max_value=1_000_000, help="bootstrap replicates")
#: Interval level of ``compare``.
LEVEL = Param("level", "float", min_value=0.5, max_value=0.999, help="interval level")

#: Every declaration, by Python name.
PARAMS = declare(N_COMPONENTS, SEEDS, N_TOP, TEST_FRACTION, N_JOBS, N_BOOT, LEVEL)


def check_n_components(n_components: Iterable[int], *, allow_empty: bool = False) -> list[int]:
    """Numbers of topics: whole numbers >= 2 (:data:`N_COMPONENTS`), each once, in the order given.

    Parameters
    ----------
    n_components : iterable of int
        The numbers of topics.
    allow_empty : bool
        Accept an empty list (default: refused).

    Returns
    -------
    list of int
        The numbers, checked.
    """
    name = N_COMPONENTS.name
    try:
        values = check_unique([N_COMPONENTS.check(k) for k in n_components], name)
    except ParameterError as exc:
        exc.param = name
        raise
    if not values and not allow_empty:
        exc = ParameterError("no number of topics given", fix=f"give at least one, e.g. {name}=[5, 10, 20]")
        exc.param = name
        raise exc
    return values
