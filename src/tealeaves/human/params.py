"""Declarations of the parameters that several human-evaluation functions share.

The correlation functions (:func:`~tealeaves.human.correlation.correlate`,
:func:`~tealeaves.human.comparison.compare_measures`, :func:`~tealeaves.human.comparison.model_level`)
check their bootstrap options with these, and :func:`~tealeaves.human.scoring.score` its options;
``tealeaves human correlate | compare | models | score`` build their options from the same
declarations (``docs/naming.md``).  This module imports nothing heavy, so the command line can
import it at start-up.
"""

from __future__ import annotations

from tealeaves._params import Param

#: Bootstrap resamples: at least one; a million is already far past any interval's precision.
N_BOOT = Param("n_boot", "int", min_value=1, max_value=1_000_000, help="bootstrap resamples")
#: The bootstrap's seed.
BOOT_SEED = Param("seed", "seed", help="seed of the bootstrap")
#: :func:`~tealeaves.human.scoring.score`: annotators below this share of correct check answers are excluded.
MIN_CHECK_ACCURACY = Param("min_check_accuracy", "float", min_value=0, max_value=1,
                           help="exclude annotators below this share of correct check answers")
#: :func:`~tealeaves.human.scoring.score`: drop judgments whose confidence is below this.
MIN_CONFIDENCE = Param("min_confidence", "float",
                       help="drop judgments whose confidence (or familiarity) is below this, and those "
                       "without one")
#: :func:`~tealeaves.human.scoring.score`: the split-half reliability's seed.
SCORE_SEED = Param("seed", "seed", help="seed of the split-half reliability")

#: Automated word intrusion (:mod:`tealeaves.human.automatic`): the association features of
#: Lau et al. (2014), in the ranker's feature order.
FEATURES = ("pmi", "npmi", "cp1", "cp2")
#: How the intruder is predicted: the lowest sum of one feature, or the learned ranker.
METHOD = Param("method", "choice", choices=(*FEATURES, "ranker"),
               help="association summed per option (lowest = intruder), or ranker")
N_FOLDS = Param("n_folds", "int", min_value=2, help="ranker: cross-validation folds over items")
#: The bootstrap intervals' confidence level: strictly between 0 and 1 (a level of 1 has no interval).
LEVEL = Param("level", "float", min_value=0, max_value=1, include_min=False, include_max=False,
              help="confidence level of the bootstrap intervals, > 0 and < 1")
#: :meth:`~tealeaves.human.app.AnnotationApp.make_server`: the TCP port (0 picks a free one).
PORT = Param("port", "int", min_value=0, max_value=65535, help="port (0 picks a free one)")
#: :func:`~tealeaves.human.survey.import_survey`: the number of the first option of an option-index response.
INDEX_BASE = Param("index_base", "int", min_value=0, max_value=1,
                   help="with kind option-index: 0 if the first option is 0, 1 if it is 1")

# Language models as annotators (:func:`~tealeaves.human.llm.ask.ask`, ``tealeaves human ask``; the
# transport's parameters are declared in :mod:`tealeaves.human.llm.params`).
#: Samples asked per item; each is its own annotator.
N_SAMPLES = Param("n_samples", "int", min_value=1, max_value=100,
                  help="answers asked per item, each written as its own annotator (1-100)")
#: The sampling temperature sent with every request (OpenAI's range).
TEMPERATURE = Param("temperature", "float", min_value=0, max_value=2,
                    help="sampling temperature sent to the model, 0-2")
#: The prompt versions to ask (:data:`~tealeaves.human.llm.prompts.TASK_VARIANTS`); each (version,
#: sample) is its own annotator.  Checked by :func:`~tealeaves.human.llm.prompts.check_prompts`.
PROMPTS = Param("prompts", "str",
                help="comma-separated prompt versions to ask, each its own annotator (default: each task's "
                "standard prompt; a task none of them belongs to keeps its standard prompt)")
