"""Held-out likelihood: perplexity, document completion and baselines.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_exports

_EXPORTS = {
    "baselines": "_baselines",
    "unigram_distribution": "_baselines",
    "CompletionResult": "completion",
    "SplitReport": "completion",
    "completion_signature": "completion",
    "document_completion": "completion",
    "score_heldout": "completion",
    "split_documents": "completion",
    "LikelihoodResult": "_perplexity",
    "align_corpus": "_perplexity",
    "document_log_likelihoods": "_perplexity",
    "perplexity": "_perplexity",
    "require_topic_word": "_perplexity",
    "score_words": "_perplexity",
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.likelihood._baselines import baselines, unigram_distribution
    from tealeaves.likelihood._perplexity import (
        LikelihoodResult,
        align_corpus,
        document_log_likelihoods,
        perplexity,
        require_topic_word,
        score_words,
    )
    from tealeaves.likelihood.completion import (
        CompletionResult,
        SplitReport,
        completion_signature,
        document_completion,
        score_heldout,
        split_documents,
    )
