"""Bad inputs to tealeaves.comparison: each is refused with the named TealeavesError subclass and a message
naming the problem (no traceback from numpy/scipy, no NaN, no silent coercion)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tealeaves import comparison as cmp
from tealeaves.comparison import IncomparableError
from tealeaves.corpus import Corpus
from tealeaves.errors import (
    EmptyInputError,
    InputEncodingError,
    InputFormatError,
    InputNotFoundError,
    InvalidModelError,
    MissingDependencyError,
    ParameterError,
    TealeavesError,
)
from tealeaves.likelihood.completion import CompletionResult, completion_signature
from tealeaves.models.base import FixedTopicModel

VOCAB = [f"w{i}" for i in range(8)]
RNG = np.random.default_rng(0)
A = FixedTopicModel(RNG.dirichlet(np.ones(8), size=4), VOCAB)
B = FixedTopicModel(RNG.dirichlet(np.ones(8), size=4), VOCAB)
K3 = FixedTopicModel(RNG.dirichlet(np.ones(8), size=3), VOCAB)
LSI = FixedTopicModel(None, VOCAB, topic_word_weights=RNG.normal(size=(4, 8)))
NAN_ROW = SimpleNamespace(topic_word_=np.vstack([A.topic_word_[:3], np.full(8, np.nan)]), vocabulary_=VOCAB)
EMPTY = SimpleNamespace(topic_word_=np.zeros((0, 8)), vocabulary_=VOCAB)
FOREIGN = FixedTopicModel(A.topic_word_, [f"x{i}" for i in range(6)] + VOCAB[:2])
TOPICS = [["a", "b", "c"], ["d", "e", "f"]]
THETA = np.full((6, 4), 0.25)


def completion(n_docs=5, words=50, seed=0, ll=None):
    per_doc = np.full(n_docs, -30.0) if ll is None else np.asarray(ll, dtype=float)
    return CompletionResult(
        float(per_doc.sum()), 1.0, n_docs, 0, words, completion_signature("m", seed), per_doc
    )


def coh(scores, **fields):
    from tealeaves.signature import Signature

    return SimpleNamespace(scores=scores, signature=Signature("npmi", {"ref": "r@1", **fields}))


API_CASES = {
    # models and word lists
    "unknown metric": (
        lambda: cmp.match_topics(A, B, metric="euclid"),
        ParameterError,
        "metric must be one of",
    ),
    "js without probabilities": (
        lambda: cmp.match_topics(LSI, A),
        InvalidModelError,
        "no topic-word probabilities",
    ),
    "NaN topic row": (
        lambda: cmp.match_topics(NAN_ROW, A),
        InvalidModelError,
        "NaN or infinite values in topic 3",
    ),
    "empty model": (lambda: cmp.topic_diversity(EMPTY, 2), InvalidModelError, "non-empty"),
    "not a model": (lambda: cmp.topic_diversity("oil gas", 2), InvalidModelError, "must be a topic model"),
    "no topics": (lambda: cmp.inverted_rbo([], 2), EmptyInputError, "holds no topics"),
    "word twice in a topic": (
        lambda: cmp.topic_diversity([["a", "b", "a"]], 2),
        ParameterError,
        "lists 'a' more than once",
    ),
    "topic shorter than top_n": (
        lambda: cmp.topic_diversity(TOPICS, 25),
        ParameterError,
        "fewer than n_top=25",
    ),
    "top_n larger than vocabulary": (
        lambda: cmp.topic_diversity(A, 25),
        ParameterError,
        "larger than the vocabulary",
    ),
    "top_n zero": (
        lambda: cmp.mean_pairwise_jaccard(TOPICS, 0),
        ParameterError,
        "n_top must be a whole number",
    ),
    "top_n float": (lambda: cmp.inverted_rbo(TOPICS, 2.5), ParameterError, "got 2.5 (float)"),
    "IRBO of one topic": (lambda: cmp.inverted_rbo(TOPICS[:1], 3), ParameterError, "at least 2 topics"),
    "rbo p zero": (lambda: cmp.rbo(["a"], ["b"], 0.0), ParameterError, "p must be a number > 0"),
    "rbo p above one": (lambda: cmp.rbo(["a"], ["b"], 1.5), ParameterError, "<= 1"),
    "rbo unequal lengths": (lambda: cmp.rbo(["a", "b"], ["b"]), ParameterError, "equal length"),
    # stability
    "threshold above one": (lambda: cmp.topic_stability([A, B], threshold=1.5), ParameterError, "threshold"),
    "threshold NaN": (lambda: cmp.topic_stability([A, B], threshold=float("nan")), ParameterError, "finite"),
    "cosine threshold below -1": (
        lambda: cmp.topic_stability([A, B], "cosine", threshold=-2),
        ParameterError,
        ">= -1",
    ),
    "one run": (lambda: cmp.topic_stability([A]), EmptyInputError, "at least two runs"),
    "runs with different K": (lambda: cmp.topic_stability([A, K3]), ParameterError, "same number of topics"),
    "run under the wrong K": (
        lambda: cmp.stability_by_k({4: [A, K3]}),
        ParameterError,
        "listed under K=4 has 3 topics",
    ),
    "no runs by K": (lambda: cmp.stability_by_k({}), EmptyInputError, "no runs"),
    "vocabularies share too few words": (
        lambda: cmp.match_topics(A, FOREIGN),
        IncomparableError,
        "share 2 words",
    ),
    "min_shared out of range": (
        lambda: cmp.similarity_matrix(A, B, min_shared=2),
        ParameterError,
        "min_shared",
    ),
    "cosine of an all-zero LSI topic": (
        lambda: cmp.similarity_matrix(
            FixedTopicModel(None, VOCAB, topic_word_weights=np.zeros((2, 8))), A, "cosine"
        ),
        IncomparableError,
        "only zero weights",
    ),
    # significance
    "theta with the wrong K": (
        lambda: cmp.topic_significance(A, np.full((6, 3), 1 / 3)),
        InvalidModelError,
        "shape (6, 3)",
    ),
    "theta rows not distributions": (
        lambda: cmp.topic_significance(A, np.full((6, 4), 0.3)),
        InvalidModelError,
        "not a distribution",
    ),
    "doc_lengths of another length": (
        lambda: cmp.topic_significance(A, THETA, [5, 5]),
        InvalidModelError,
        "doc_lengths has shape (2,)",
    ),
    "negative doc_lengths": (
        lambda: cmp.topic_significance(A, THETA, [5, -1, 5, 5, 5, 5]),
        InvalidModelError,
        "non-negative",
    ),
    "a topic with no weight": (
        lambda: cmp.topic_significance(A, np.tile([0.5, 0.5, 0.0, 0.0], (6, 1))),
        InvalidModelError,
        "topic 2 has no weight",
    ),
    # paired comparisons
    "different seeds (splits)": (
        lambda: cmp.likelihood_difference(completion(), completion(seed=1), [10] * 5),
        IncomparableError,
        "different held-out splits",
    ),
    "different held-out words": (
        lambda: cmp.likelihood_difference(completion(), completion(words=60), [10] * 5),
        IncomparableError,
        "scored different held-out words",
    ),
    "different document counts": (
        lambda: cmp.likelihood_difference(completion(), completion(6), [10] * 5),
        IncomparableError,
        "5 documents / 50 words vs 6",
    ),
    "held-out counts that do not add up": (
        lambda: cmp.likelihood_difference(completion(), completion(), [9] * 5),
        IncomparableError,
        "holds 45 words but the results scored 50",
    ),
    "held-out counts of floats": (
        lambda: cmp.likelihood_difference(completion(), completion(), [10.0] * 5),
        IncomparableError,
        "held-out word count",
    ),
    "non-finite per-document likelihood": (
        lambda: cmp.likelihood_difference(completion(ll=[-1, -2, np.nan, -1, -1]), completion(), [10] * 5),
        IncomparableError,
        "non-finite",
    ),
    "not a completion result": (
        lambda: cmp.likelihood_difference(3.5, completion(), [10] * 5),
        ParameterError,
        "must be a CompletionResult",
    ),
    "too few bootstrap resamples": (
        lambda: cmp.likelihood_difference(completion(), completion(), [10] * 5, n_boot=10),
        ParameterError,
        "n_boot",
    ),
    "level of one": (
        lambda: cmp.coherence_difference(coh([0.1, 0.2]), coh([0.1, 0.3]), level=1.0),
        ParameterError,
        "level must be a number > 0 and < 1",
    ),
    "negative seed": (
        lambda: cmp.coherence_difference(coh([0.1, 0.2]), coh([0.1, 0.3]), seed=-1),
        ParameterError,
        "seed",
    ),
    "coherence of other settings": (
        lambda: cmp.coherence_difference(coh([0.1, 0.2]), coh([0.1, 0.3], top=5)),
        IncomparableError,
        "computed differently",
    ),
    "one scored topic": (
        lambda: cmp.coherence_difference(coh([0.1, None]), coh([0.1, 0.3])),
        EmptyInputError,
        "1 scored topic",
    ),
    "not a coherence result": (
        lambda: cmp.coherence_difference([0.1, 0.2], coh([0.1, 0.3])),
        ParameterError,
        "must be a CoherenceResult",
    ),
    # flags
    "between not below within": (
        lambda: cmp.mixed_topic(pd.DataFrame(np.eye(2)), within=0.1, between=0.2),
        ParameterError,
        "must be lower than within",
    ),
    "non-square pair matrix": (
        lambda: cmp.word_groups(pd.DataFrame(np.ones((2, 3)))),
        ParameterError,
        "square",
    ),
    "max_share of one": (
        lambda: cmp.few_documents_flags(THETA, [5] * 6, 2, max_share=1.0),
        ParameterError,
        "max_share",
    ),
    "top_documents not below the documents": (
        lambda: cmp.few_documents_flags(THETA, [5] * 6, 6),
        ParameterError,
        "not smaller than the number of documents",
    ),
    "recurrence outside [0, 1]": (
        lambda: cmp.low_recurrence_flags([0.5, 1.5]),
        ParameterError,
        "share in [0, 1]",
    ),
    "min_recurrence zero": (lambda: cmp.low_recurrence_flags([0.5], 0.0), ParameterError, "min_recurrence"),
    "low-coherence with three topics": (
        lambda: cmp.low_coherence_flags(SimpleNamespace(scores=[0.1, 0.2, 0.3], spec=None)),
        EmptyInputError,
        "at least 4 scored topics",
    ),
    "flags for another model": (
        lambda: cmp.flag_topics(5, recurrence=[1.0, 1.0, 0.0]),
        ParameterError,
        "describes 3 topics but the model has 5",
    ),
    "no flag inputs": (lambda: cmp.flag_topics(5), EmptyInputError, "no input to flag topics"),
    "theta without lengths": (lambda: cmp.flag_topics(4, theta=THETA), ParameterError, "needs doc_lengths"),
    "mixed flag on UMass": (
        lambda: cmp.mixed_flags(
            SimpleNamespace(spec=SimpleNamespace(confirmation="log-conditional"), pair_matrix=None, topics=[])
        ),
        ParameterError,
        "reads NPMI",
    ),
}


@pytest.mark.parametrize("case", list(API_CASES), ids=list(API_CASES))
def test_api_refuses(case):
    call, error, fragment = API_CASES[case]
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, TealeavesError)
    assert fragment.lower() in str(info.value).lower(), str(info.value)


VECTOR_FILES = {
    "inconsistent dimensions": (
        b"a 1 0\nb 0 1 2\n",
        InputFormatError,
        "line 2: the vector of 'b' has 3 values, but the first vector has 2",
    ),
    "header dimension disagrees": (
        b"2 3\na 1 0\nb 0 1\n",
        InputFormatError,
        "line 2: the vector of 'a' has 2 values, but the header says 3",
    ),
    "header count disagrees": (
        b"5 2\na 1 0\nb 0 1\n",
        InputFormatError,
        "announces 5 vectors but the file holds 2",
    ),
    "not UTF-8": (b"caf\xe9 1 0\nb 0 1\n", InputEncodingError, "is not valid utf-8: byte 0xe9 at line 1"),
    "NaN value": (b"a 1 nan\nb 0 1\n", InputFormatError, "line 1: the vector of 'a' has NaN or infinite"),
    "infinite value": (
        b"a 1 0\nb inf 1\n",
        InputFormatError,
        "line 2: the vector of 'b' has NaN or infinite",
    ),
    "not a number": (b"a 1 0\nb 0 x1\n", InputFormatError, "line 2: 'x1' is not a number"),
    "word without vector": (b"a 1 0\nb\n", InputFormatError, "line 2: expected a word and its vector"),
    "empty file": (b"\n\n", EmptyInputError, "is empty"),
    "header only": (b"0 5\n", EmptyInputError, "has a header but no vectors"),
    "word twice": (b"a 1 0\na 0 1\n", InputFormatError, "the word 'a' has two vectors"),
    "zero vector": (b"a 1 0\nb 0 0\n", InputFormatError, "the vector of 'b' is all zeros"),
}


@pytest.mark.parametrize("case", list(VECTOR_FILES), ids=list(VECTOR_FILES))
def test_vectors_file_refused(tmp_path, case):
    content, error, fragment = VECTOR_FILES[case]
    path = tmp_path / "vectors.txt"
    path.write_bytes(content)
    with pytest.raises(error) as info:
        cmp.read_vectors(path)
    assert fragment.lower() in str(info.value).lower(), str(info.value)


def test_missing_vectors_file(tmp_path):
    with pytest.raises(InputNotFoundError, match="does not exist"):
        cmp.read_vectors(tmp_path / "nope.txt")


def test_embedding_without_known_words_and_wrong_vectors():
    vec = cmp.WordVectors(["x", "y"], np.eye(2), "toy")
    with pytest.raises(EmptyInputError, match="no topic has two top words with a vector"):
        cmp.embedding_coherence(TOPICS, vec, n_top=3)
    with pytest.raises(ParameterError, match="vectors must be WordVectors"):
        cmp.embedding_coherence(TOPICS, {"a": [1, 0]}, n_top=3)


def test_train_vectors_refusals(monkeypatch):
    pytest.importorskip("gensim")
    with pytest.raises(EmptyInputError, match="holds no tokens"):
        cmp.train_vectors([[], []])
    with pytest.raises(ParameterError, match="vector_size"):
        cmp.train_vectors([["a", "b"]], vector_size=0)
    monkeypatch.setitem(sys.modules, "gensim.models", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tealeaves\[gensim\]'"):
        cmp.train_vectors([["a", "b"]])


def test_same_heldout_refuses_models_over_other_vocabularies():
    test = Corpus.from_token_lists([["w0", "w1", "w2", "w3"], ["w4", "w5", "w6", "w7", "w0", "w1"]])
    a = FixedTopicModel(A.topic_word_, VOCAB, 0.1)
    b = FixedTopicModel(
        B.topic_word_[:, :6] / B.topic_word_[:, :6].sum(axis=1, keepdims=True), VOCAB[:6], 0.1
    )
    with pytest.raises(IncomparableError, match="different"):
        cmp.same_heldout(a, b, test, seed=0)
