"""Multilingual topics: crosslingual measures, aligned references and the coherence estimator
(Hao, Boyd-Graber and Paul 2018).

* :func:`read_topics` / :func:`validate_topics`: topics as ``{language: [[word, ...], ...]}``;
* :func:`cnpmi`, :func:`inpmi`, :func:`mta`, :func:`twc`, :func:`gap_features`: the measures, each
  returning :class:`TopicScores`, over an :class:`AlignedReference` (:func:`named_reference` for the
  built-in ones, :func:`build_aligned_reference` / :func:`load_aligned_reference` for your own);
* :class:`BilingualDictionary` (:func:`read_dictionary`) for MTA;
* :func:`topic_features` and :class:`CoherenceEstimator`: the Bible-to-modern coherence estimator
  (:class:`WordEra`, :class:`MeaningDrift` features; :func:`save_estimator` / :func:`load_estimator`);
* :func:`crosslingual_classification` on topic proportions; :func:`save_pltm` / :func:`load_pltm`
  for a fitted :class:`~tealeaves.models.PolylingualTopicModel`.

See ``docs/multilingual.md``.  Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads
on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.ingest.aligned import read_jsonl_tuples, read_parallel_files
    from tealeaves.multilingual.aligned_build import build_aligned_reference
    from tealeaves.multilingual.classification import (
        ClassificationResult,
        crosslingual_classification,
        evaluate_features,
    )
    from tealeaves.multilingual.dictionaries import (
        BilingualDictionary,
        read_dictionary,
        read_muse,
        read_wiktionary,
    )
    from tealeaves.multilingual.drift import MeaningDrift
    from tealeaves.multilingual.era import WordEra, read_spelleng
    from tealeaves.multilingual.estimator import FEATURE_GROUPS, CoherenceEstimator
    from tealeaves.multilingual.estimator_io import load_estimator, save_estimator
    from tealeaves.multilingual.features import topic_features
    from tealeaves.multilingual.measures import (
        TopicScores,
        as_reference,
        check_topics,
        cnpmi,
        gap_features,
        inpmi,
        mta,
        npmi_language,
        twc,
    )
    from tealeaves.multilingual.pltm_io import load_pltm, save_pltm
    from tealeaves.multilingual.reference import (
        AlignedReference,
        load_aligned_reference,
        named_reference,
        reference_from_texts,
        resolve_reference,
        save_aligned_reference,
    )
    from tealeaves.multilingual.topics import read_topics, validate_topics

__getattr__, __dir__, __all__ = lazy_package(__name__)
