"""Comparing models and choosing K: stability, diversity, significance, embedding coherence,
paired comparisons and junk-topic flags.

* :mod:`~tealeaves.comparison.matching` -- one-to-one topic matching and model-to-model
  similarity tables (:func:`match_topics`, :func:`similarity_matrix`);
* :mod:`~tealeaves.comparison.stability` -- recurrence of topics across restarts
  (:func:`topic_stability`, :func:`stability_by_k`);
* :mod:`~tealeaves.comparison.diversity` -- :func:`topic_diversity`, :func:`inverted_rbo`,
  :func:`mean_pairwise_jaccard`, :func:`rbo`;
* :mod:`~tealeaves.comparison.significance` -- :func:`topic_significance` (AlSumait et al. 2009);
* :mod:`~tealeaves.comparison.embedding` -- :func:`read_vectors`, :func:`train_vectors`,
  :func:`embedding_coherence`;
* :mod:`~tealeaves.comparison.paired` -- :func:`coherence_difference`,
  :func:`likelihood_difference`, :func:`same_heldout`;
* :mod:`~tealeaves.comparison.flags` -- :func:`flag_topics` and one function per flag.

Every result carries a :class:`~tealeaves.signature.Signature`, has ``to_dict()`` and
exposes its tables as pandas DataFrames. Names are exported lazily (:mod:`tealeaves._lazy`).
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.comparison._common import Score
    from tealeaves.comparison.diversity import inverted_rbo
    from tealeaves.comparison.diversity import jaccard
    from tealeaves.comparison.diversity import mean_pairwise_jaccard
    from tealeaves.comparison.diversity import rbo
    from tealeaves.comparison.diversity import topic_diversity
    from tealeaves.comparison.embedding import WordVectors
    from tealeaves.comparison.embedding import embedding_coherence
    from tealeaves.comparison.embedding import read_vectors
    from tealeaves.comparison.embedding import train_vectors
    from tealeaves.comparison.errors import IncomparableError
    from tealeaves.comparison.flags import FLAGS
    from tealeaves.comparison.flags import FlagReport
    from tealeaves.comparison.flags import TopicFlag
    from tealeaves.comparison.flags import background_flags
    from tealeaves.comparison.flags import few_documents_flags
    from tealeaves.comparison.flags import flag_topics
    from tealeaves.comparison.flags import low_coherence_flags
    from tealeaves.comparison.flags import low_recurrence_flags
    from tealeaves.comparison.flags import mixed_flags
    from tealeaves.comparison.flags import mixed_topic
    from tealeaves.comparison.flags import word_groups
    from tealeaves.comparison.matching import METRICS
    from tealeaves.comparison.matching import TopicMatching
    from tealeaves.comparison.matching import match_topics
    from tealeaves.comparison.matching import similarity_matrix
    from tealeaves.comparison.paired import PairedDifference
    from tealeaves.comparison.paired import coherence_difference
    from tealeaves.comparison.paired import likelihood_difference
    from tealeaves.comparison.paired import same_heldout
    from tealeaves.comparison.significance import kl_divergence
    from tealeaves.comparison.significance import topic_significance
    from tealeaves.comparison.stability import DEFAULT_THRESHOLDS
    from tealeaves.comparison.stability import StabilityResult
    from tealeaves.comparison.stability import stability_by_k
    from tealeaves.comparison.stability import topic_stability
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
