"""Held-out likelihood: perplexity, document completion and baselines.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.likelihood._baselines import baselines
    from tealeaves.likelihood._baselines import unigram_distribution
    from tealeaves.likelihood._perplexity import LikelihoodResult
    from tealeaves.likelihood._perplexity import align_corpus
    from tealeaves.likelihood._perplexity import document_log_likelihoods
    from tealeaves.likelihood._perplexity import perplexity
    from tealeaves.likelihood._perplexity import require_topic_word
    from tealeaves.likelihood._perplexity import score_words
    from tealeaves.likelihood.completion import CompletionResult
    from tealeaves.likelihood.completion import SplitReport
    from tealeaves.likelihood.completion import completion_signature
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.likelihood.completion import score_heldout
    from tealeaves.likelihood.completion import split_documents
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
