"""Tests of the vocabulary, corpus, preprocessing, signature and data locator."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves import data
from tealeaves.corpus import Corpus, Preprocessor, Vocabulary
from tealeaves.errors import DataNotFoundError, EmptyInputError, InvalidModelError
from tealeaves.models import FixedTopicModel, check_topic_word, load_model
from tealeaves.signature import Signature


def test_corpus_round_trip_and_counts():
    docs = [["ship", "ocean", "voyage"], ["boat", "ocean"], ["ship"], ["voyage", "trip"]]
    corpus = Corpus.from_token_lists(docs, ids=["d1", "d2", "d3", "d4"])
    assert corpus.token_lists() == docs
    assert corpus.n_tokens == 8
    assert list(corpus.lengths) == [3, 2, 1, 2]
    dense = corpus.counts.toarray()
    # independent recomputation of the counts
    for d, doc in enumerate(docs):
        for w, word in enumerate(corpus.vocabulary):
            assert dense[d, w] == doc.count(word)
    assert corpus.document_frequencies()[corpus.vocabulary.id("ocean")] == 2
    sub = corpus.subset([3, 0])
    assert sub.ids == ["d4", "d1"] and sub.token_lists() == [docs[3], docs[0]]


def test_unknown_tokens_are_dropped_and_counted():
    vocab = Vocabulary(["a", "b"])
    corpus = Corpus.from_token_lists([["a", "x", "b", "y", "a"]], vocab)
    assert corpus.n_dropped == 2
    assert corpus.words(0) == ["a", "b", "a"]


def test_from_counts_matches_counts():
    counts = np.array([[1, 0, 2], [0, 3, 0]])
    corpus = Corpus.from_counts(counts, ["x", "y", "z"])
    assert (corpus.counts.toarray() == counts).all()


def test_preprocessor_fit_and_transform_records_settings():
    train = ["The ship sailed the ocean.", "A boat on the ocean", "Voyage 1987 voyage trip"]
    prep = Preprocessor(min_df=1, max_df=1.0)
    corpus = prep.fit_transform(train)
    assert list(prep.vocabulary_) == sorted(["ship", "sailed", "ocean", "boat", "voyage", "trip"])
    assert corpus.words(2) == ["voyage", "voyage", "trip"]  # digits and stop words removed
    test = prep.transform(["ocean liner ship"])
    assert test.words(0) == ["ocean", "ship"] and test.n_dropped == 1
    assert test.metadata["preprocessing"]["stop_words"] == "english"
    pruned = Preprocessor(min_df=2).fit(train)
    assert list(pruned.vocabulary_) == ["ocean"]


def test_preprocessor_empty_inputs_are_clear_errors():
    with pytest.raises(EmptyInputError, match="zero documents"):
        Preprocessor().fit([])
    with pytest.raises(EmptyInputError, match="min_df"):
        Preprocessor(min_df=5).fit(["one two", "three four"])


def test_signature_round_trip():
    sig = Signature("npmi", {"ref": "reuters@abc", "win": "doc", "top": 10})
    text = str(sig)
    assert text.startswith("npmi|ref=reuters@abc|win=doc|top=10|tealeaves-")
    back = Signature.parse(text)
    assert back.measure == "npmi" and back.fields["top"] == "10"


def test_data_locator(tmp_path, monkeypatch):
    (tmp_path / "reuters21578").mkdir()
    (tmp_path / "reuters21578" / "x.sgm").write_text("hi")
    monkeypatch.setenv("TEALEAVES_DATA", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert data.locate("reuters21578/x.sgm").read_text() == "hi"
    with pytest.raises(DataNotFoundError, match="reuters21578/missing.sgm.*UCI KDD"):
        data.locate("reuters21578/missing.sgm")
    # the per-user cache is the second place looked in
    cached = tmp_path / "cache" / "tealeaves" / "word-era"
    cached.mkdir(parents=True)
    (cached / "f.tsv").write_text("x")
    assert data.locate("word-era/f.tsv") == cached / "f.tsv"


def test_topic_word_validation():
    with pytest.raises(InvalidModelError, match="NaN"):
        check_topic_word(np.array([[0.5, np.nan], [0.5, 0.5]]))
    with pytest.raises(InvalidModelError, match="negative"):
        check_topic_word(np.array([[1.5, -0.5]]))
    with pytest.raises(InvalidModelError, match="sums to"):
        check_topic_word(np.array([[0.5, 0.4]]))


def test_model_save_load_and_top_words(tmp_path):
    phi = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    model = FixedTopicModel(phi, ["a", "b", "c"], doc_topic_prior=0.1)
    assert model.top_words(2) == [["b", "c"], ["a", "b"]]  # tie b/c broken by id
    path = model.save(tmp_path / "m")
    back = load_model(path)
    assert np.allclose(back.topic_word_, phi) and np.allclose(back.doc_topic_prior_, 0.1)
    theta = back.transform(Corpus.from_token_lists([["b", "b", "b"], ["a", "a"]], back.vocabulary_))
    assert theta.shape == (2, 2) and np.allclose(theta.sum(axis=1), 1)
    assert theta[0, 0] > theta[0, 1] and theta[1, 1] > theta[1, 0]


def test_max_features_ranks_by_total_count_like_scikit_learn():
    from sklearn.feature_extraction.text import CountVectorizer

    texts = ["apple apple apple pear", "pear plum", "plum kiwi", "kiwi fig pear"]
    ours = Preprocessor(stop_words=None, max_features=2).fit(texts)
    theirs = CountVectorizer(max_features=2).fit(texts)
    assert list(ours.vocabulary_) == sorted(theirs.vocabulary_)


def test_encode_counts_dropped_tokens_from_any_iterable():
    vocab = Vocabulary(["a", "b"])
    ids, dropped = vocab.encode(t for t in ["a", "x", "b", "y"])
    assert list(ids) == [0, 1] and dropped == 2
