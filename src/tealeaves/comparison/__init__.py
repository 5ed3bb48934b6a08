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

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.comparison._common import Score
    from tealeaves.comparison.consensus import ConsensusResult
    from tealeaves.comparison.consensus import consensus_topics
    from tealeaves.comparison.divergence import log_odds_ratio
    from tealeaves.comparison.divergence import topic_pair_kl
    from tealeaves.comparison.diversity import inverted_rbo
    from tealeaves.comparison.diversity import jaccard
    from tealeaves.comparison.diversity import mean_pairwise_jaccard
    from tealeaves.comparison.diversity import rbo
    from tealeaves.comparison.diversity import topic_diversity
    from tealeaves.comparison.embedding import WordVectors
    from tealeaves.comparison.embedding import embedding_coherence
    from tealeaves.comparison.embedding import read_vectors
    from tealeaves.comparison.embedding import train_vectors
    from tealeaves.comparison.embedding import we_irbo
    from tealeaves.comparison.embedding import we_similarity
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
    from tealeaves.comparison.kchoice import KCHOICE_DIRECTIONS
    from tealeaves.comparison.kchoice import arun2010
    from tealeaves.comparison.kchoice import cao_juan2009
    from tealeaves.comparison.kchoice import deveaud2014
    from tealeaves.comparison.kchoice import exclusivity
    from tealeaves.comparison.kchoice import frex_scores
    from tealeaves.comparison.kchoice import frex_words
    from tealeaves.comparison.kchoice import griffiths2004
    from tealeaves.comparison.kchoice import log_likelihood_trace
    from tealeaves.comparison.kchoice import top_topics
    from tealeaves.comparison.labels import classification_scores
    from tealeaves.comparison.labels import clustering_scores
    from tealeaves.comparison.matching import METRICS
    from tealeaves.comparison.matching import TopicMatching
    from tealeaves.comparison.matching import match_topics
    from tealeaves.comparison.matching import similarity_matrix
    from tealeaves.comparison.octis import octis_measures
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
