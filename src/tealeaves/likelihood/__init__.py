"""Held-out likelihood: perplexity, document completion and baselines.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

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

__getattr__, __dir__, __all__ = lazy_package(__name__)
