"""The parameters of the reproductions (``tealeaves reproduce ...``), declared once
(:class:`tealeaves._params.Param`) for the Python functions and their options.

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from tealeaves._params import Param, declare
from tealeaves.coherence.params import N_TOP as _N_TOP
from tealeaves.models.params import N_RESTARTS as _N_RESTARTS
from tealeaves.sweep.params import N_COMPONENTS as _N_COMPONENTS

#: Numbers of topics of the Reuters sweeps (each >= 2, given once; rows follow this order).
N_COMPONENTS = _N_COMPONENTS.replace(help="numbers of topics, each >= 2 and given once; rows follow this "
                                          "order")
#: pLSA EM restarts of the five-term example.
N_RESTARTS = _N_RESTARTS.replace(max_value=10_000, deprecated_flags=("--restarts",),
                                 help="pLSA EM restarts, 1 to 10000")
#: Top words per topic of the Reuters coherence table.
N_TOP = _N_TOP.replace(help="top words per topic, >= 2")
#: LSI dimensions of the Reuters coherence table (also at most min(documents, words) - 1).
LSI_DIMENSIONS = Param("lsi_dimensions", "int", min_value=1, max_value=1000, deprecated_flags=("--lsi",),
                       help="LSI dimensions, 1 to 1000")
#: Gibbs sweeps per model of the multilingual reproductions.
N_ITER = Param("n_iter", "int", min_value=1, help="Gibbs sweeps per model, >= 1")

#: Every declaration, by Python name.
PARAMS = declare(N_COMPONENTS, N_RESTARTS, N_TOP, LSI_DIMENSIONS, N_ITER)
