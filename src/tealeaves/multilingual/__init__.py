"""Multilingual topics: crosslingual measures, aligned references and the coherence estimator
(Hao, Boyd-Graber and Paul 2018).

* :func:`read_multilingual_topics` (old name :func:`read_topics`) / :func:`validate_topics`: topics
  as ``{language: [[word, ...], ...]}``;
* :func:`cnpmi`, :func:`inpmi`, :func:`mta`, :func:`twc`, :func:`gap_features`: the measures, each
  returning :class:`TopicScores`, over an :class:`AlignedReference` (:func:`named_reference` for the
  built-in ones, :func:`build_aligned_reference` / :func:`load_aligned_reference` for your own);
* :class:`BilingualDictionary` (:func:`read_dictionary`) for MTA;
* :func:`topic_features` and :class:`CoherenceEstimator`: the Bible-to-modern coherence estimator
  (:class:`WordEra`, :class:`MeaningDrift` features; :func:`save_estimator` / :func:`load_estimator`);
* :func:`crosslingual_classification` on topic proportions; :func:`save_pltm` / :func:`load_pltm`
  for a fitted :class:`~tealeaves.models.PolylingualTopicModel` (read back as a
  :class:`SavedPolylingualTopicModel`).

See ``docs/multilingual.md``.  Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads
on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.ingest.aligned import read_jsonl_tuples
    from tealeaves.ingest.aligned import read_parallel_files
    from tealeaves.multilingual.aligned_build import build_aligned_reference
    from tealeaves.multilingual.classification import ClassificationResult
    from tealeaves.multilingual.classification import crosslingual_classification
    from tealeaves.multilingual.classification import evaluate_features
    from tealeaves.multilingual.dictionaries import BilingualDictionary
    from tealeaves.multilingual.dictionaries import read_dictionary
    from tealeaves.multilingual.dictionaries import read_muse
    from tealeaves.multilingual.dictionaries import read_wiktionary
    from tealeaves.multilingual.drift import MeaningDrift
    from tealeaves.multilingual.era import WordEra
    from tealeaves.multilingual.era import read_spelleng
    from tealeaves.multilingual.estimator import CoherenceEstimator
    from tealeaves.multilingual.estimator import FEATURE_GROUPS
    from tealeaves.multilingual.estimator_io import load_estimator
    from tealeaves.multilingual.estimator_io import save_estimator
    from tealeaves.multilingual.features import topic_features
    from tealeaves.multilingual.measures import TopicScores
    from tealeaves.multilingual.measures import as_reference
    from tealeaves.multilingual.measures import check_topics
    from tealeaves.multilingual.measures import cnpmi
    from tealeaves.multilingual.measures import gap_features
    from tealeaves.multilingual.measures import inpmi
    from tealeaves.multilingual.measures import mta
    from tealeaves.multilingual.measures import npmi_language
    from tealeaves.multilingual.measures import twc
    from tealeaves.multilingual.pltm_io import SavedPolylingualTopicModel
    from tealeaves.multilingual.pltm_io import load_pltm
    from tealeaves.multilingual.pltm_io import save_pltm
    from tealeaves.multilingual.reference import AlignedReference
    from tealeaves.multilingual.reference import load_aligned_reference
    from tealeaves.multilingual.reference import named_reference
    from tealeaves.multilingual.reference import reference_from_texts
    from tealeaves.multilingual.reference import resolve_reference
    from tealeaves.multilingual.reference import save_aligned_reference
    from tealeaves.multilingual.topics import read_multilingual_topics
    from tealeaves.multilingual.topics import read_topics
    from tealeaves.multilingual.topics import validate_topics
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
