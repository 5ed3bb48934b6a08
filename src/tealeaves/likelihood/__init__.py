"""Held-out likelihood: perplexity, document completion and baselines."""

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
