"""Topic coherence from a reference index (Röder, Both and Hinneburg 2015 pipeline).

* :mod:`~tealeaves.coherence.core` -- the one counting core (documents and
  sliding windows over postings, also crosslingual), reading the reference index of
  :mod:`tealeaves.index` (:class:`ReferenceIndex`, :func:`build_index`, :class:`AlignedIndex`,
  re-exported here);
* segmentation, confirmation, aggregation and :mod:`~tealeaves.coherence.presets`
  (``umass``, ``uci``, ``npmi``, ``c_v``; jhlau/topic_interpretability's ``jhlau_pmi``,
  ``jhlau_npmi``; Palmetto's ``c_a``, ``c_p``, ``palmetto_*``);
* :func:`coherence` / :class:`Coherence` -- the API, returning a :class:`CoherenceResult`.


Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.coherence.core import CooccurrenceCounts
    from tealeaves.coherence.core import count_documents
    from tealeaves.coherence.core import count_windows
    from tealeaves.coherence.core import document_counts
    from tealeaves.coherence.core import intersect_count
    from tealeaves.coherence.core import pair_document_counts
    from tealeaves.coherence.errors import SettingsError
    from tealeaves.coherence.errors import TopicError
    from tealeaves.coherence.errors import ZeroCooccurrenceError
    from tealeaves.coherence.measure import Coherence
    from tealeaves.coherence.measure import coherence
    from tealeaves.coherence.measure import score_counts
    from tealeaves.coherence.presets import MeasureSpec
    from tealeaves.coherence.presets import PRESETS
    from tealeaves.coherence.result import CoherenceResult
    from tealeaves.coherence.result import TopicScore
    from tealeaves.coherence.result import coherence_records
    from tealeaves.index.aligned import AlignedIndex
    from tealeaves.index.build import build_index
    from tealeaves.index.build import index_from_token_lists
    from tealeaves.index.reference import ReferenceIndex
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
