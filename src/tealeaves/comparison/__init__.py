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

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.comparison._common import Score
    from tealeaves.comparison.diversity import (
        inverted_rbo,
        jaccard,
        mean_pairwise_jaccard,
        rbo,
        topic_diversity,
    )
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

__getattr__, __dir__, __all__ = lazy_package(__name__)
