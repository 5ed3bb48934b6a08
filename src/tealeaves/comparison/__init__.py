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
exposes its tables as pandas DataFrames.
"""

from tealeaves.comparison._common import Score
from tealeaves.comparison.diversity import inverted_rbo, jaccard, mean_pairwise_jaccard, rbo, topic_diversity
from tealeaves.comparison.embedding import WordVectors, embedding_coherence, read_vectors, train_vectors
from tealeaves.comparison.errors import IncomparableError
from tealeaves.comparison.flags import (
    FLAGS,
    FlagReport,
    TopicFlag,
    background_flags,
    few_documents_flags,
    flag_topics,
    low_coherence_flags,
    low_recurrence_flags,
    mixed_flags,
    mixed_topic,
    word_groups,
)
from tealeaves.comparison.matching import METRICS, TopicMatching, match_topics, similarity_matrix
from tealeaves.comparison.paired import (
    PairedDifference,
    coherence_difference,
    likelihood_difference,
    same_heldout,
)
from tealeaves.comparison.significance import kl_divergence, topic_significance
from tealeaves.comparison.stability import (
    DEFAULT_THRESHOLDS,
    StabilityResult,
    stability_by_k,
    topic_stability,
)

__all__ = [
    "DEFAULT_THRESHOLDS", "FLAGS", "FlagReport", "IncomparableError", "METRICS", "PairedDifference", "Score",
    "StabilityResult", "TopicFlag", "TopicMatching", "WordVectors", "background_flags",
    "coherence_difference",
    "embedding_coherence", "few_documents_flags", "flag_topics", "inverted_rbo", "jaccard", "kl_divergence",
    "likelihood_difference", "low_coherence_flags", "low_recurrence_flags", "match_topics",
    "mean_pairwise_jaccard", "mixed_flags", "mixed_topic", "rbo", "read_vectors", "same_heldout",
    "similarity_matrix", "stability_by_k", "topic_diversity", "topic_significance", "topic_stability",
    "train_vectors", "word_groups",
]
