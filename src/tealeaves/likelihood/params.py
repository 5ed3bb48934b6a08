"""The count parameters of the held-out likelihood estimators, declared once
(:class:`tealeaves._params.Param`) for the Python API (:mod:`tealeaves.likelihood.estimators`)
and ``tealeaves perplexity``.

This module imports no numerical library, so ``tealeaves --help`` stays light.
"""

from __future__ import annotations

from tealeaves._params import Param, declare

#: Samples of an estimator: particles (left-to-right), prior draws (is), posterior draws (hm), AIS chains
#: (ais), states per chain (chib).
N_SAMPLES = Param("n_samples", "int", min_value=1, deprecated_flags=("--samples", "--particles"),
                  help="particles (left-to-right), prior draws (is), posterior draws (hm), chains (ais), "
                       "states per chain (chib); a whole number >= 1; default per method")
N_PARTICLES = Param("n_particles", "int", min_value=1, help="left-to-right particles")
N_FILTERS = Param("n_filters", "int", min_value=1, help="left-to-right particle groups")
#: AIS needs at least two temperatures (one step is plain importance sampling).
N_TEMPERATURES = Param("n_temperatures", "int", min_value=2, deprecated_flags=("--temperatures",),
                       help="ais: number of temperatures, >= 2 (default 5000)")
N_CHAINS = Param("n_chains", "int", min_value=1, deprecated_flags=("--chains",),
                 help="chib: independent chains, >= 1 (default 4)")
#: Gibbs sweeps discarded before an estimator's samples are used (harmonic mean, Chib-style): not the
#: ``optimize_burn_in`` of the Gibbs samplers (``docs/naming.md``).
BURN_IN = Param("burn_in", "int", min_value=0, help="sweeps discarded before sampling")
REPLICATES = Param("replicates", "int", min_value=1,
                   help="whole-document estimators: run R times with independent seeds; with R >= 2 the "
                        "standard error comes from their spread, with R = 1 (default) from the run's own "
                        "samples")

#: Every count declaration, by Python name.
PARAMS = declare(N_PARTICLES, N_SAMPLES, N_CHAINS, N_FILTERS, N_TEMPERATURES, BURN_IN, REPLICATES)
