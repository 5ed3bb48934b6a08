"""The parameters of :class:`~tealeaves.models.polylingual.PolylingualTopicModel`, declared once.

:meth:`PolylingualTopicModel.fit`, ``transform`` and ``top_words`` check their arguments with
these declarations, and ``tealeaves pltm fit|infer|topics`` builds its options from them
(``docs/naming.md``).  A module of its own so that the command line's parser can read them
without importing numba or scipy (start-up cost, ``tests/test_packaging.py``).
"""

from __future__ import annotations

from tealeaves._params import Param, declare

#: The fit's parameters, declared once: :meth:`PolylingualTopicModel.fit` checks its settings with them
#: and ``tealeaves pltm fit`` builds its options from them (``docs/naming.md``).
FIT_PARAMS = declare(
    Param("n_components", "int", 1, 10_000, short="-k", deprecated_flags=("--k", "--n-topics"),
          help="number of topics K, 1 to 10000"),
    Param("n_iter", "int", 1, 1_000_000, deprecated_flags=("--iterations",), help="Gibbs sweeps per chain"),
    Param("n_chains", "int", 1, 100, deprecated_flags=("--chains",),
          help="independent chains, the best final log-likelihood kept, 1 to 100"),
    Param("optimize_interval", "int", 0, help="re-estimate alpha and beta every this many sweeps, 0 = never"),
    Param("optimize_burn_in", "int", 0, deprecated_flags=("--burn-in",),
          help="sweeps before the first optimisation"),
    Param("link_fraction", "float", 0, 1, help="share of tuples whose sides share theta, 0 to 1"),
    Param("alpha", "float", 0, include_min=False, help="initial alpha per topic, > 0"),
    Param("beta", "float", 0, include_min=False, help="initial beta, > 0"),
    Param("random_state", "seed", flag_name="--seed", help="random seed; the same seed repeats the fit"),
    Param("n_jobs", "int", 1, 64, short="-j", deprecated_flags=("--jobs",),
          help="chains run in parallel threads, 1 to 64; results do not depend on it"),
)

#: The parameters of :meth:`PolylingualTopicModel.transform` (``tealeaves pltm infer``).
TRANSFORM_PARAMS = declare(
    Param("n_iter", "int", 1, 100_000, deprecated_flags=("--iterations",), help="fold-in sweeps"),
    Param("burn_in", "int", 0, help="fold-in sweeps before averaging"),
    Param("random_state", "seed", flag_name="--seed", help="seed (default: the model's)"),
)

#: Words per topic of :meth:`PolylingualTopicModel.top_words` (``tealeaves pltm topics --n-top``).
N_TOP = Param("n_top", "int", 1, 1000, deprecated_flags=("--top",), help="words per topic, 1 to 1000")
