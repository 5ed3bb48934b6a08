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

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.coherence.core import (
        CooccurrenceCounts,
        count_documents,
        count_windows,
        document_counts,
        intersect_count,
        pair_document_counts,
    )
    from tealeaves.coherence.errors import SettingsError, TopicError, ZeroCooccurrenceError
    from tealeaves.coherence.measure import (
        Coherence,
        CoherenceResult,
        TopicScore,
        coherence,
        coherence_records,
        score_counts,
    )
    from tealeaves.coherence.presets import PRESETS, MeasureSpec
    from tealeaves.index.aligned import AlignedIndex
    from tealeaves.index.build import build_index, index_from_token_lists
    from tealeaves.index.reference import ReferenceIndex

__getattr__, __dir__, __all__ = lazy_package(__name__)
