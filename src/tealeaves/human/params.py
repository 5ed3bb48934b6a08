"""Declarations of the parameters that several human-evaluation functions share.

The correlation functions (:func:`~tealeaves.human.correlation.correlate`,
:func:`~tealeaves.human.comparison.compare_measures`, :func:`~tealeaves.human.comparison.model_level`)
check their bootstrap options with these, and ``tealeaves human correlate | compare | models``
build their options from them (``docs/naming.md``).
"""

from __future__ import annotations

from tealeaves._params import Param

#: Bootstrap resamples: at least one; a million is already far past any interval's precision.
N_BOOT = Param("n_boot", "int", min_value=1, max_value=1_000_000, help="bootstrap resamples")
#: The bootstrap's seed.
BOOT_SEED = Param("seed", "seed", help="seed of the bootstrap")
