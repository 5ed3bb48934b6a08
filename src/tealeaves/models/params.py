"""Parameters of the model classes declared once (:class:`tealeaves._params.Param`), for their
checks and for the command-line options that set them.

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from tealeaves._params import Param

#: pLSA's random initialisations (the highest log-likelihood wins).
N_RESTARTS = Param("n_restarts", "int", min_value=1, help="pLSA EM restarts")
#: LSI's weighting of the counts.
WEIGHTING = Param("weighting", "choice", choices=("count", "tfidf"), help="weighting of the counts")
