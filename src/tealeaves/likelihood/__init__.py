"""Held-out likelihood: perplexity, document completion and baselines.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_exports

_EXPORTS = {
    "baselines": "baselines",
    "unigram_distribution": "baselines",
    "CompletionResult": "completion",
    "SplitReport": "completion",
    "completion_signature": "completion",
    "document_completion": "completion",
    "score_heldout": "completion",
    "split_documents": "completion",
    "LikelihoodResult": "perplexity",
    "align_corpus": "perplexity",
    "document_log_likelihoods": "perplexity",
    "perplexity": "perplexity",
    "require_topic_word": "perplexity",
    "score_words": "perplexity",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = [
    "perplexity",
    "document_log_likelihoods",
    "score_words",
    "require_topic_word",
    "align_corpus",
    "LikelihoodResult",
    "split_documents",
    "document_completion",
    "score_heldout",
    "completion_signature",
    "CompletionResult",
    "SplitReport",
    "baselines",
    "unigram_distribution",
]

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.likelihood.baselines import baselines, unigram_distribution
    from tealeaves.likelihood.completion import (
        CompletionResult,
        SplitReport,
        completion_signature,
        document_completion,
        score_heldout,
        split_documents,
    )
    from tealeaves.likelihood.perplexity import (
        LikelihoodResult,
        align_corpus,
        document_log_likelihoods,
        perplexity,
        require_topic_word,
        score_words,
    )
