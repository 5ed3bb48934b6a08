"""Adapters for models fitted by gensim, scikit-learn, tomotopy, BERTopic, OCTIS and raw arrays.

Small real models are fitted on 300 Reuters training stories; each adapted
model is checked against the library's own numbers (topic-word matrix,
vocabulary order and top words to 1e-6), its coherence against the coherence
of the library's top-word lists, and its document completion (tealeaves
inference) against an independent recomputation with a
:class:`~tealeaves.models.FixedTopicModel` built from the library's phi and
alpha.  Native inference is checked against the library's own call.
"""

from __future__ import annotations

import copy
import subprocess
import sys

import numpy as np
import pytest

import tealeaves
from tealeaves.coherence import coherence
from tealeaves.corpus import Corpus
from tealeaves.errors import UnsupportedModelError
from tealeaves.likelihood.completion import document_completion
from tealeaves.models import FixedTopicModel
from tealeaves.models import load_npz_model as load_npz
from tealeaves.models.adapters import load_model

K = 6
TOP = 10


@pytest.fixture(scope="module")
def texts(reuters):
    """``(train token lists, test token lists)``: 300 training and 80 test stories."""
    train, test, _ = reuters
    docs = [d for d in train.token_lists()[:300] if d]
    tests = [d for d in test.token_lists()[:80] if len(d) > 1]
    return docs, tests


@pytest.fixture(scope="module")
def gensim_lda(texts):
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(texts[0])
    bows = [dictionary.doc2bow(d) for d in texts[0]]
    return LdaModel(bows, id2word=dictionary, num_topics=K, passes=2, iterations=30, random_state=0,
                    alpha="auto", eta="auto")


@pytest.fixture(scope="module")
def vectorized(texts):
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(token_pattern=r"\S+", lowercase=False)
    x = vec.fit_transform(" ".join(d) for d in texts[0])
    return vec, x


@pytest.fixture(scope="module")
def sklearn_lda(vectorized):
    from sklearn.decomposition import LatentDirichletAllocation

    return LatentDirichletAllocation(K, max_iter=5, random_state=0).fit(vectorized[1])


@pytest.fixture(scope="module")
def sklearn_nmf(vectorized):
    from sklearn.decomposition import NMF

    return NMF(K, init="nndsvda", max_iter=100, random_state=0).fit(vectorized[1])


@pytest.fixture(scope="module")
def tomotopy_lda(texts):
    tp = pytest.importorskip("tomotopy")
    mdl = tp.LDAModel(k=K, min_cf=2, rm_top=5, seed=0)
    for d in texts[0]:
        mdl.add_doc(d)
    mdl.train(50, workers=1)
    return mdl


# -- the library's own numbers, computed directly from each library --------------------------------
def gensim_truth(lda):
    words = [lda.id2word[i] for i in range(lda.num_terms)]
    tops = [[w for w, _ in lda.show_topic(k, TOP)] for k in range(lda.num_topics)]
    return lda.get_topics(), words, tops, lda.alpha


def sklearn_truth(est, vec):
    comps = est.components_
    words = list(vec.get_feature_names_out())
    phi = comps / comps.sum(axis=1, keepdims=True)
    tops = [[words[i] for i in np.argsort(-row, kind="stable")[:TOP]] for row in comps]
    return phi, words, tops, np.full(est.n_components, est.doc_topic_prior_)


def tomotopy_truth(mdl):
    phi = np.array([mdl.get_topic_word_dist(k) for k in range(mdl.k)])
    tops = [[w for w, _ in mdl.get_topic_words(k, top_n=TOP)] for k in range(mdl.k)]
    return phi, list(mdl.used_vocabs), tops, np.asarray(mdl.alpha)


@pytest.fixture(params=["gensim", "sklearn-lda", "tomotopy"])
def probabilistic(request, texts):
    """``(library, native object, adapter options, (phi, words, top words, alpha) by the library)``."""
    if request.param == "gensim":
        lda = request.getfixturevalue("gensim_lda")
        return "gensim", lda, {}, gensim_truth(lda)
    if request.param == "sklearn-lda":
        vec, _ = request.getfixturevalue("vectorized")
        est = request.getfixturevalue("sklearn_lda")
        return "scikit-learn", est, {"vectorizer": vec}, sklearn_truth(est, vec)
    mdl = request.getfixturevalue("tomotopy_lda")
    return "tomotopy", mdl, {}, tomotopy_truth(mdl)


def assert_same_ranking(ours: list[str], theirs: list[str], weight: dict[str, float]) -> None:
    """Equal word lists, except that words of equal weight may come in another order.

    tealeaves breaks ties by word id; tomotopy (counts plus a constant eta) has
    many exact ties, which it orders its own way.  The weights in rank order must
    agree to 1e-6 and every tie group that ends inside the list must hold the same words.
    """
    np.testing.assert_allclose([weight[w] for w in ours], [weight[w] for w in theirs], atol=1e-6, rtol=0)
    last = weight[ours[-1]]
    def above(words: list[str]) -> set[str]:
        return {w for w in words if abs(weight[w] - last) > 1e-9}

    assert above(ours) == above(theirs)
    ties = sum(abs(weight[a] - weight[b]) <= 1e-9 for a, b in zip(ours, ours[1:]))
    if ties == 0:
        assert ours == theirs


def test_topic_word_vocabulary_and_top_words_equal_the_library(probabilistic):
    library, obj, opts, (phi, words, tops, alpha) = probabilistic
    model = load_model(obj, **opts)
    assert list(model.vocabulary_) == words
    assert model.topic_word_.shape == phi.shape
    np.testing.assert_allclose(model.topic_word_, phi, atol=1e-6, rtol=0)
    np.testing.assert_allclose(model.topic_word_.sum(axis=1), 1.0, atol=1e-12)
    for k, (ours, theirs) in enumerate(zip(model.top_words(TOP), tops)):
        assert_same_ranking(ours, theirs, dict(zip(words, phi[k])))
    np.testing.assert_allclose(model.doc_topic_prior_, alpha, rtol=1e-6)
    assert model.topic_word_prior_ is not None
    assert model.metadata_["source"]["library"] == library
    assert model.metadata_["source"]["class"].endswith(type(obj).__name__)


def test_coherence_equals_coherence_of_the_library_top_words(probabilistic, texts):
    """Same scores as the library's own top-word lists (one-one measures: the order inside a topic is free).

    A topic whose 10th word ties with the 11th (tomotopy: equal counts) may list
    another, equally weighted word; such topics are compared only for the others.
    """
    library, obj, opts, (_, _, tops, _) = probabilistic
    model = load_model(obj, **opts)
    agree = [set(a) == set(b) for a, b in zip(model.top_words(TOP), tops)]
    assert all(agree) if library != "tomotopy" else sum(agree) >= K // 2
    for measure in ("npmi", "uci"):
        ours = coherence(model, texts[0], measure=measure, n_top=TOP).scores
        theirs = coherence(tops, texts[0], measure=measure, n_top=TOP).scores
        assert [s for s, ok in zip(ours, agree) if ok] == pytest.approx(
            [s for s, ok in zip(theirs, agree) if ok], abs=1e-12)


def test_completion_with_tealeaves_inference_equals_a_fixed_model_of_the_same_phi_alpha(probabilistic, texts):
    _, obj, opts, (phi, words, _, alpha) = probabilistic
    model = load_model(obj, **opts)
    test = Corpus.from_token_lists(texts[1], model.vocabulary_)
    ours = document_completion(model, test, seed=3)
    fixed = FixedTopicModel(phi / phi.sum(axis=1, keepdims=True), words, alpha)
    ref = document_completion(fixed, Corpus.from_token_lists(texts[1], fixed.vocabulary_), seed=3)
    assert np.isfinite(ours.perplexity) and ours.perplexity > 1
    assert ours.perplexity == pytest.approx(ref.perplexity, rel=1e-5)
    assert ours.n_heldout_words == ref.n_heldout_words
    assert "/inf-tealeaves" in str(ours.signature)
    assert model.metadata_["source"]["version"] in str(ours.signature)


def test_completion_with_native_inference_runs_and_is_signed_as_native(probabilistic, texts):
    _, obj, opts, _ = probabilistic
    native = load_model(obj, inference="native", **opts)
    teal = load_model(obj, **opts)
    test = Corpus.from_token_lists(texts[1], native.vocabulary_)
    a, b = document_completion(native, test), document_completion(teal, test)
    assert np.isfinite(a.perplexity) and a.perplexity > 1
    assert "/inf-native" in str(a.signature) and "/inf-tealeaves" in str(b.signature)
    assert a.n_heldout_words == b.n_heldout_words
    # different inference, same order of magnitude
    assert 0.5 < a.perplexity / b.perplexity < 2


def test_gensim_native_inference_is_get_document_topics(gensim_lda, texts):
    """Native theta is what get_document_topics(bow, minimum_probability=0) returns (same random state)."""
    model = load_model(copy.deepcopy(gensim_lda), inference="native")
    test = Corpus.from_token_lists(texts[1][:10], model.vocabulary_)
    theta = model.transform(test)
    lda = copy.deepcopy(gensim_lda)
    for d in range(len(test)):
        ids, counts = np.unique(test.document(d), return_counts=True)
        got = dict(lda.get_document_topics(list(zip(ids.tolist(), counts.tolist())), minimum_probability=0))
        expected = [got.get(k, 0.0) for k in range(K)]  # gensim drops topics below 1e-8
        np.testing.assert_allclose(theta[d], expected, atol=1e-6)


def test_sklearn_native_inference_is_transform(sklearn_lda, vectorized, texts):
    vec, _ = vectorized
    model = load_model(sklearn_lda, vectorizer=vec, inference="native")
    test = Corpus.from_token_lists(texts[1][:20], model.vocabulary_)
    theta = sklearn_lda.transform(test.counts)
    np.testing.assert_allclose(model.transform(test), theta / theta.sum(axis=1, keepdims=True), atol=1e-12)


def test_tomotopy_native_inference_is_infer(tomotopy_lda, texts):
    model = load_model(tomotopy_lda, inference="native", native_iterations=50)
    test = Corpus.from_token_lists(texts[1][:10], model.vocabulary_)
    theta = model.transform(test)
    docs = [tomotopy_lda.make_doc(test.words(d)) for d in range(len(test))]
    expected, _ = tomotopy_lda.infer(docs, iterations=50, workers=1)
    expected = np.asarray(expected, dtype=np.float64)
    np.testing.assert_allclose(theta, expected / expected.sum(axis=1, keepdims=True), atol=1e-6)


def test_tomotopy_vocabulary_is_used_vocabs_without_removed_words(tomotopy_lda):
    model = load_model(tomotopy_lda)
    removed = list(tomotopy_lda.removed_top_words)
    assert len(removed) == 5 and not set(removed) & set(model.vocabulary_)
    assert model.metadata_["removed_words"] == removed
    assert len(model.vocabulary_) == len(tomotopy_lda.used_vocabs) < len(tomotopy_lda.vocabs)


def test_nmf_ranks_by_components_and_scores_coherence(sklearn_nmf, vectorized, texts):
    vec, _ = vectorized
    model = load_model(sklearn_nmf, vectorizer=vec)
    words = list(vec.get_feature_names_out())
    assert model.topic_word_ is None
    np.testing.assert_allclose(model.topic_word_weights_, sklearn_nmf.components_, atol=1e-12)
    tops = [[words[i] for i in np.argsort(-row, kind="stable")[:TOP]] for row in sklearn_nmf.components_]
    assert model.top_words(TOP) == tops
    assert coherence(model, texts[0]).scores == pytest.approx(coherence(tops, texts[0]).scores, abs=1e-12)
    with pytest.raises(UnsupportedModelError, match="NMF is not a probabilistic model"):
        document_completion(model, Corpus.from_token_lists(texts[1], model.vocabulary_))


def test_sklearn_pipeline_takes_the_vectorizer_from_the_pipeline(sklearn_lda, vectorized):
    from sklearn.pipeline import make_pipeline

    vec, _ = vectorized
    direct = load_model(sklearn_lda, vectorizer=vec)
    piped = load_model(make_pipeline(vec, sklearn_lda))
    assert piped.vocabulary_ == direct.vocabulary_
    np.testing.assert_array_equal(piped.topic_word_, direct.topic_word_)


@pytest.mark.parametrize("fixture, name", [("gensim_lda", "lda.model"), ("tomotopy_lda", "lda.bin")])
def test_saved_file_loads_the_same_as_the_object(request, tmp_path, fixture, name):
    """gensim save() files and tomotopy .bin files give exactly the model of the object."""
    native = request.getfixturevalue(fixture)
    path = tmp_path / name
    native.save(str(path))
    obj, saved = load_model(native), load_model(path)
    assert saved.vocabulary_ == obj.vocabulary_
    np.testing.assert_array_equal(saved.topic_word_, obj.topic_word_)
    np.testing.assert_array_equal(saved.doc_topic_prior_, obj.doc_topic_prior_)
    np.testing.assert_array_equal(saved.topic_word_prior_, obj.topic_word_prior_)
    assert saved.metadata_["source"]["file"] == str(path)
    assert tealeaves.load_model(str(path)).description() == obj.description()


def test_ldamulticore_is_read_as_gensim_lda(texts):
    from gensim.corpora import Dictionary
    from gensim.models import LdaMulticore

    dictionary = Dictionary(texts[0][:100])
    lda = LdaMulticore([dictionary.doc2bow(d) for d in texts[0][:100]], id2word=dictionary, num_topics=3,
                       passes=1, iterations=10, workers=1, random_state=0)
    model = load_model(lda)
    np.testing.assert_allclose(model.topic_word_, lda.get_topics(), atol=1e-6)
    assert model.description().startswith(f"gensim-{model.metadata_['source']['version']}:LdaMulticore/K3/")


def test_tomotopy_hdp_is_read_through_convert_to_lda(texts):
    tp = pytest.importorskip("tomotopy")
    hdp = tp.HDPModel(initial_k=4, seed=0, min_cf=2)
    for d in texts[0][:150]:
        hdp.add_doc(d)
    hdp.train(30, workers=1)
    model = load_model(hdp)
    lda, ids = hdp.convert_to_lda(topic_threshold=0.0)
    assert model.n_topics == lda.k == sum(hdp.is_live_topic(k) for k in range(hdp.k))
    for j, k in enumerate(model.metadata_["topic_ids"]):
        assert ids[k] == j
        np.testing.assert_allclose(model.topic_word_[j], hdp.get_topic_word_dist(k), atol=1e-6)


def test_octis_output_dict_with_the_trained_vocabulary(gensim_lda, texts):
    """OCTIS's LDA returns gensim's get_topics() and show_topic words; read back exactly."""
    phi, words, tops, alpha = gensim_truth(gensim_lda)
    theta = np.full((K, 4), 1.0 / K)
    out = {"topics": tops, "topic-word-matrix": phi, "topic-document-matrix": theta}
    model = load_model(out, vocabulary=words, alpha=alpha)
    np.testing.assert_allclose(model.topic_word_, phi, atol=1e-6)
    assert model.top_words(TOP) == tops and model.doc_topic_.shape == (4, K)
    assert model.metadata_["source"]["library"] == "octis"


def test_octis_nmf_output_is_not_probabilistic(sklearn_nmf, vectorized):
    words = list(vectorized[0].get_feature_names_out())
    comps = sklearn_nmf.components_
    tops = [[words[i] for i in np.argsort(-row, kind="stable")[:TOP]] for row in comps]
    model = load_model({"topics": tops, "topic-word-matrix": comps}, vocabulary=words)
    assert model.topic_word_ is None and model.top_words(TOP) == tops


def test_arrays_equal_a_fixed_model(gensim_lda, texts):
    phi, words, _, alpha = gensim_truth(gensim_lda)
    phi = phi.astype(np.float64)
    phi /= phi.sum(axis=1, keepdims=True)
    model = tealeaves.load_model(phi, vocabulary=words, alpha=alpha, eta=0.01)
    test = Corpus.from_token_lists(texts[1], model.vocabulary_)
    fixed = FixedTopicModel(phi, words, alpha)
    assert document_completion(model, test).perplexity == pytest.approx(
        document_completion(fixed, test).perplexity, rel=1e-12)
    assert model.topic_word_prior_ == 0.01
    assert model.description() == f"arrays/K{K}/V{len(words)}/inf-tealeaves"


def test_adapted_model_saves_and_reloads_with_its_source(gensim_lda, tmp_path):
    model = load_model(gensim_lda, inference="native")
    back = load_npz(model.save(tmp_path / "m.npz"))
    np.testing.assert_array_equal(back.topic_word_, model.topic_word_)
    assert back.metadata_["source"] == model.metadata_["source"]
    # a saved model can only fold in, and its description says so
    assert back.description() == model.description().replace("inf-native", "inf-tealeaves")
    assert load_model(back) is back


def test_adapted_gensim_model_pickles_with_its_native_inference(gensim_lda, texts):
    import pickle

    model = load_model(gensim_lda, inference="native")
    back = pickle.loads(pickle.dumps(model))
    test = Corpus.from_token_lists(texts[1][:5], model.vocabulary_)
    np.testing.assert_array_equal(back.topic_word_, model.topic_word_)
    assert back.description() == model.description() and back.transform(test).shape == (5, K)


def test_importing_the_adapters_imports_no_optional_library():
    code = ("import sys, tealeaves, tealeaves.models.adapters; "
            "print(sorted(m for m in ('gensim', 'tomotopy', 'bertopic', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- BERTopic ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bertopic_model(texts):
    """A real BERTopic model on 300 stories, with TF-IDF+SVD embeddings passed in (no model download)."""
    pytest.importorskip("bertopic")
    from bertopic import BERTopic
    from sklearn.cluster import HDBSCAN
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    docs = [" ".join(d) for d in texts[0]]
    emb = TruncatedSVD(20, random_state=0).fit_transform(TfidfVectorizer().fit_transform(docs))
    model = BERTopic(umap_model=PCA(5, random_state=0), hdbscan_model=HDBSCAN(min_cluster_size=8),
                     vectorizer_model=CountVectorizer(min_df=2))
    model.fit_transform(docs, embeddings=emb)
    return model


def test_bertopic_topics_weights_and_outliers(bertopic_model, texts):
    model = load_model(bertopic_model)
    info = model.metadata_["bertopic"]
    kept = [t for t in sorted(bertopic_model.get_topics()) if t != -1]
    assert -1 in bertopic_model.get_topics() and info["outlier_topic_excluded"]
    assert info["n_outlier_documents"] == bertopic_model.topic_sizes_[-1] > 0
    assert info["topic_ids"] == kept and model.n_topics == len(kept)
    rows = bertopic_model.c_tf_idf_[[t + 1 for t in kept]].toarray()
    np.testing.assert_allclose(model.topic_word_weights_, rows, atol=1e-12)
    assert list(model.vocabulary_) == list(bertopic_model.vectorizer_model.get_feature_names_out())
    tops = [[w for w, _ in bertopic_model.get_topic(t)] for t in kept]
    vocab = list(model.vocabulary_)
    for k, (ours, theirs) in enumerate(zip(model.top_words(TOP), tops)):
        assert_same_ranking(ours, theirs, dict(zip(vocab, rows[k])))
    assert coherence(model, texts[0]).scores == pytest.approx(coherence(tops, texts[0]).scores, abs=1e-12)
    with pytest.raises(UnsupportedModelError, match="BERTopic is not a probabilistic model"):
        document_completion(model, Corpus.from_token_lists(texts[1], model.vocabulary_))


# -- the command line -------------------------------------------------------------------------------
def _test_file(tmp_path, docs) -> str:
    path = tmp_path / "test.txt"
    path.write_text("\n".join(" ".join(d) for d in docs) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("inference", ["tealeaves", "native"])
@pytest.mark.parametrize("fixture, name", [("gensim_lda", "lda.model"), ("tomotopy_lda", "lda.bin")])
def test_cli_perplexity_reads_a_saved_native_model_with_either_inference(request, texts, tmp_path, capsys,
                                                                         fixture, name, inference):
    import json

    from tealeaves.cli import main

    native = request.getfixturevalue(fixture)
    path = tmp_path / name
    native.save(str(path))
    test = _test_file(tmp_path, texts[1])
    code = main(["perplexity", str(path), test, "--tokenized", "--method", "completion", "--inference",
                 inference, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and f"/inf-{inference}" in out["signature"]
    model = load_model(native, inference=inference)
    expected = document_completion(model, Corpus.from_token_lists(texts[1], model.vocabulary_))
    if fixture == "gensim_lda" and inference == "native":  # gensim's E-step starts from random draws
        assert out["perplexity"] == pytest.approx(expected.perplexity, rel=0.05)
    else:  # deterministic: the same number as the API
        assert out["perplexity"] == pytest.approx(expected.perplexity, rel=1e-12)


def test_cli_coherence_scores_a_tomotopy_bin_like_its_top_words(tomotopy_lda, texts, tmp_path, capsys):
    import json

    from tealeaves.cli import main

    path = tmp_path / "lda.bin"
    tomotopy_lda.save(str(path))
    ref = _test_file(tmp_path, texts[0])
    assert main(["coherence", "--topics", str(path), "--reference", ref, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = coherence(load_model(tomotopy_lda), texts[0])
    assert out["mean"] == pytest.approx(expected.mean, abs=1e-12)


def test_cli_build_study_from_a_saved_gensim_model(gensim_lda, tmp_path):
    import json

    from tealeaves.cli import main

    path = tmp_path / "lda.model"
    gensim_lda.save(str(path))
    out = tmp_path / "study.json"
    assert main(["human", "build-study", str(path), "-o", str(out), "--tasks", "rating"]) == 0
    study = json.loads(out.read_text(encoding="utf-8"))
    ratings = {item["topic"]: item["words"] for item in study["items"] if item.get("task") == "rating"
               and not item.get("check")}
    tops = load_model(gensim_lda).top_words(10)
    assert ratings and all(words == tops[k] for k, words in ratings.items())
