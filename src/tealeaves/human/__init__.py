"""Human judgements of topics: build a study, collect judgments, score topics, compare with measures.

* :func:`build_study` makes a seeded :class:`Study` (word intrusion, topic intrusion, ratings;
  Chang et al. 2009, Hao et al. 2018), checked on load by :func:`validate_study`;
* :func:`export_items` writes its items for survey and crowdsourcing platforms; :func:`serve`
  runs the local annotation app (:class:`AnnotationApp` over a :class:`JudgmentStore`);
* :func:`read_results` reads judgments in the long format (:class:`JudgmentResults`),
  :func:`import_survey` a survey export as it comes;
* :func:`score` gives model precision and topic log odds with agreement
  (:func:`krippendorff_alpha`, :func:`split_half_reliability`);
* :func:`ask` puts a study's items to a language model (an OpenAI-compatible endpoint) and stores
  its answers as an annotator's judgments (:class:`AskReport`, :func:`annotator_metadata`);
* :func:`correlate` and :func:`compare_measures` relate human scores to automatic measures,
  with bootstrap intervals over topics and annotators (:func:`true_score_ci`);
* :func:`load_doc_topic`, :func:`load_documents` and :func:`load_multilingual` read a study's
  input files, :func:`load_scores` and :func:`load_tables` (:class:`ScoreTables`) the score
  tables, with the checks ``build_study`` and ``correlate`` apply.

See ``docs/human.md``.  Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on
first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.human.agreement import AgreementUndefinedError
    from tealeaves.human.agreement import krippendorff_alpha
    from tealeaves.human.agreement import spearman_brown
    from tealeaves.human.agreement import split_half_reliability
    from tealeaves.human.app import AnnotationApp
    from tealeaves.human.app import serve
    from tealeaves.human.automatic import AutoIntrusion
    from tealeaves.human.automatic import auto_intrusion
    from tealeaves.human.comparison import by_group
    from tealeaves.human.comparison import compare_measures
    from tealeaves.human.comparison import model_level
    from tealeaves.human.comparison import model_plot
    from tealeaves.human.comparison import williams_t
    from tealeaves.human.correlation import CorrelationError
    from tealeaves.human.correlation import bootstrap_ci
    from tealeaves.human.correlation import correlate
    from tealeaves.human.correlation import read_topic_table
    from tealeaves.human.correlation import scatter_plot
    from tealeaves.human.correlation import topic_records
    from tealeaves.human.export import export_items
    from tealeaves.human.export import write_long
    from tealeaves.human.inputs import load_doc_topic
    from tealeaves.human.inputs import load_documents
    from tealeaves.human.inputs import load_multilingual
    from tealeaves.human.items import StudyError
    from tealeaves.human.llm.ask import AskReport
    from tealeaves.human.llm.ask import ask
    from tealeaves.human.llm.meta import annotator_metadata
    from tealeaves.human.resampling import Responses
    from tealeaves.human.resampling import disattenuated
    from tealeaves.human.resampling import reliability
    from tealeaves.human.resampling import responses_for
    from tealeaves.human.resampling import true_score_ci
    from tealeaves.human.results import JudgmentResults
    from tealeaves.human.results import ResultsError
    from tealeaves.human.results import read_results
    from tealeaves.human.schema import StudyFormatError
    from tealeaves.human.schema import validate_study
    from tealeaves.human.scoring import model_precision
    from tealeaves.human.scoring import score
    from tealeaves.human.scoring import topic_log_odds
    from tealeaves.human.store import JudgmentStore
    from tealeaves.human.store import StoreError
    from tealeaves.human.store import StoreUnavailableError
    from tealeaves.human.study import Study
    from tealeaves.human.study import build_study
    from tealeaves.human.survey import describe_study
    from tealeaves.human.survey import import_survey
    from tealeaves.human.survey import save_judgments
    from tealeaves.human.tables import ScoreTables
    from tealeaves.human.tables import load_scores
    from tealeaves.human.tables import load_tables
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
