"""Choosing K and comparing models: sweeps over K and seeds, a results store, paired comparisons.

* :func:`sweep` fits and scores every (K, seed) and stores each model (:mod:`~tealeaves.sweep.core`);
* :func:`evaluate` scores models fitted anywhere the same way into a store
  (:mod:`~tealeaves.sweep.evaluation`);
* :func:`load_results` reads a store back as pandas DataFrames (:mod:`~tealeaves.sweep.results`);
* :func:`compare_models` compares two stored models with bootstrap intervals
  (:mod:`~tealeaves.sweep.compare`);
* :data:`ENGINES` / :func:`register_engine`, :data:`MODEL_MEASURES` / :data:`TOPIC_MEASURES`: the hooks
  where engines and measures are added by name.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.sweep.compare import compare_models
    from tealeaves.sweep.core import sweep
    from tealeaves.sweep.engines import ENGINES
    from tealeaves.sweep.engines import Engine
    from tealeaves.sweep.engines import register_engine
    from tealeaves.sweep.evaluation import evaluate
    from tealeaves.sweep.evaluation import split_corpus
    from tealeaves.sweep.measures import MODEL_MEASURES
    from tealeaves.sweep.measures import TOPIC_MEASURES
    from tealeaves.sweep.results import SweepResults
    from tealeaves.sweep.results import load_results
    from tealeaves.sweep.store import IncompatibleStoreError
    from tealeaves.sweep.store import SCHEMA_VERSION
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__, aliases={"Results": "SweepResults"})
