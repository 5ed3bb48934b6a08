"""Comparing models and choosing K: stability, diversity, significance, embedding coherence,
paired comparisons and junk-topic flags.

* :mod:`~tealeaves.comparison.matching` -- one-to-one topic matching and model-to-model
  similarity tables (:func:`match_topics`, :func:`similarity_matrix`);
* :mod:`~tealeaves.comparison.stability` -- recurrence of topics across restarts
  (:func:`topic_stability`, :func:`stability_by_k`);
* :mod:`~tealeaves.comparison.diversity` -- :func:`topic_diversity`, :func:`inverted_rbo`,
  :func:`mean_pairwise_jaccard`, :func:`rbo`;
* :mod:`~tealeaves.comparison.significance` -- :func:`topic_significance` (AlSumait et al. 2009);
* :mod:`~tealeaves.comparison.kchoice` -- choosing K as R's ``ldatuning`` and ``stm``:
  :func:`arun2010`, :func:`cao_juan2009`, :func:`deveaud2014`, :func:`griffiths2004`,
  :func:`exclusivity`, :func:`frex_scores`, :func:`frex_words`; :func:`top_topics`;
* :mod:`~tealeaves.comparison.embedding` -- :func:`read_vectors`, :func:`train_vectors`,
  :func:`embedding_coherence`, and between topics :func:`we_irbo` (and its centroid variant),
  :func:`we_similarity` (pairwise and centroid)
  (Terragni et al. 2021);
* :mod:`~tealeaves.comparison.divergence` -- :func:`topic_pair_kl`, :func:`log_odds_ratio` (OCTIS);
* :mod:`~tealeaves.comparison.labels` -- :func:`clustering_scores` (purity, NMI),
  :func:`classification_scores`
  against document labels;
* :mod:`~tealeaves.comparison.octis` -- :func:`octis_measures`, OCTIS's model-level columns for
  results stores;
* :mod:`~tealeaves.comparison.consensus` -- :func:`consensus_topics`, the topics recurring across
  runs as one model (after gensim's ``EnsembleLda``);
* :mod:`~tealeaves.comparison.paired` -- :func:`coherence_difference`,
  :func:`likelihood_difference`, :func:`same_heldout`;
* :mod:`~tealeaves.comparison.flags` -- :func:`flag_topics` and one function per flag.

Every result carries a :class:`~tealeaves.signature.Signature`, has ``to_dict()`` and
exposes its tables as pandas DataFrames. Names are exported lazily (:mod:`tealeaves._lazy`).
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_exports

_EXPORTS = {
    "Score": "_common",
    "inverted_rbo": "diversity",
    "jaccard": "diversity",
    "mean_pairwise_jaccard": "diversity",
    "rbo": "diversity",
    "topic_diversity": "diversity",
    "ConsensusResult": "consensus",
    "consensus_topics": "consensus",
    "log_odds_ratio": "divergence",
    "topic_pair_kl": "divergence",
    "WordVectors": "embedding",
    "embedding_coherence": "embedding",
    "read_vectors": "embedding",
    "train_vectors": "embedding",
    "we_irbo": "embedding",
    "we_similarity": "embedding",
    "IncomparableError": "errors",
    "KCHOICE_DIRECTIONS": "kchoice",
    "arun2010": "kchoice",
    "cao_juan2009": "kchoice",
    "deveaud2014": "kchoice",
    "exclusivity": "kchoice",
    "frex_scores": "kchoice",
    "frex_words": "kchoice",
    "griffiths2004": "kchoice",
    "log_likelihood_trace": "kchoice",
    "top_topics": "kchoice",
    "FLAGS": "flags",
    "FlagReport": "flags",
    "TopicFlag": "flags",
    "background_flags": "flags",
    "few_documents_flags": "flags",
    "flag_topics": "flags",
    "low_coherence_flags": "flags",
    "low_recurrence_flags": "flags",
    "mixed_flags": "flags",
    "mixed_topic": "flags",
    "word_groups": "flags",
    "octis_measures": "octis",
    "classification_scores": "labels",
    "clustering_scores": "labels",
    "METRICS": "matching",
    "TopicMatching": "matching",
    "match_topics": "matching",
    "similarity_matrix": "matching",
    "PairedDifference": "paired",
    "coherence_difference": "paired",
    "likelihood_difference": "paired",
    "same_heldout": "paired",
    "kl_divergence": "significance",
    "topic_significance": "significance",
    "DEFAULT_THRESHOLDS": "stability",
    "StabilityResult": "stability",
    "stability_by_k": "stability",
    "topic_stability": "stability",
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.comparison._common import Score
    from tealeaves.comparison.consensus import ConsensusResult, consensus_topics
    from tealeaves.comparison.divergence import log_odds_ratio, topic_pair_kl
    from tealeaves.comparison.diversity import (
        inverted_rbo,
        jaccard,
        mean_pairwise_jaccard,
        rbo,
        topic_diversity,
    )
    from tealeaves.comparison.embedding import (
        WordVectors,
        embedding_coherence,
        read_vectors,
        train_vectors,
        we_irbo,
        we_similarity,
    )
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
    from tealeaves.comparison.kchoice import (
        KCHOICE_DIRECTIONS,
        arun2010,
        cao_juan2009,
        deveaud2014,
        exclusivity,
        frex_scores,
        frex_words,
        griffiths2004,
        log_likelihood_trace,
        top_topics,
    )
    from tealeaves.comparison.labels import classification_scores, clustering_scores
    from tealeaves.comparison.matching import METRICS, TopicMatching, match_topics, similarity_matrix
    from tealeaves.comparison.octis import octis_measures
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
