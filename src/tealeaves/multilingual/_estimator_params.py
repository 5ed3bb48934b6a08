"""The parameters of :class:`~tealeaves.multilingual.estimator.CoherenceEstimator`, declared once.

:meth:`CoherenceEstimator.fit` checks its settings with these declarations and ``tealeaves
estimator train`` builds its options from them (``docs/naming.md``).  A module of its own so
that the command line's parser can read them without importing scikit-learn (start-up cost,
``tests/test_packaging.py``).
"""

from __future__ import annotations

from tealeaves._params import Param, declare

ESTIMATOR_PARAMS = declare(
    Param("n_estimators", "int", 1, 10_000, help="AdaBoost rounds, 1 to 10000"),
    Param("random_state", "seed", flag_name="--seed", help="AdaBoost seed"),
)
