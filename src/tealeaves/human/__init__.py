"""Human judgements of topics: build a study, collect judgments, score topics, compare with measures.

* :func:`build_study` makes a seeded :class:`Study` (word intrusion, topic intrusion, ratings;
  Chang et al. 2009, Hao et al. 2018), checked on load by :func:`validate_study`;
* :func:`export_items` writes its items for survey and crowdsourcing platforms; :func:`serve`
  runs the local annotation app (:class:`AnnotationApp` over a :class:`JudgmentStore`);
* :func:`read_results` reads judgments in the long format (:class:`JudgmentResults`),
  :func:`import_survey` a survey export as it comes;
* :func:`score` gives model precision and topic log odds with agreement
  (:func:`krippendorff_alpha`, :func:`split_half_reliability`);
* :func:`correlate` and :func:`compare_measures` relate human scores to automatic measures,
  with bootstrap intervals over topics and annotators (:func:`true_score_ci`).

See ``docs/human.md``.  Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on
first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.human.agreement import (
        AgreementUndefinedError,
        krippendorff_alpha,
        spearman_brown,
        split_half_reliability,
    )
    from tealeaves.human.app import AnnotationApp, serve
    from tealeaves.human.comparison import by_group, compare_measures, model_level, model_plot, williams_t
    from tealeaves.human.correlation import (
        CorrelationError,
        bootstrap_ci,
        correlate,
        read_topic_table,
        scatter_plot,
        topic_records,
    )
    from tealeaves.human.export import export_items, write_long
    from tealeaves.human.items import StudyError
    from tealeaves.human.resampling import Responses, disattenuated, reliability, responses_for, true_score_ci
    from tealeaves.human.results import JudgmentResults, ResultsError, read_results
    from tealeaves.human.schema import StudyFormatError, validate_study
    from tealeaves.human.scoring import model_precision, score, topic_log_odds
    from tealeaves.human.store import JudgmentStore, StoreError, StoreUnavailableError
    from tealeaves.human.study import Study, build_study
    from tealeaves.human.survey import describe_study, import_survey, save_judgments

__getattr__, __dir__, __all__ = lazy_package(__name__)
