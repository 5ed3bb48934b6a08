"""Bad inputs to the model adapters (tealeaves.load_model) and to the CLI commands that read models."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.errors import (
    InputFormatError,
    InputNotFoundError,
    InvalidModelError,
    MissingDependencyError,
    ParameterError,
    UnsupportedModelError,
)
from tealeaves.likelihood.completion import document_completion
from tealeaves.models.adapters import load_model

DOCS = [("oil price crude barrel opec oil price " * 3).split(),
        ("bank rate interest loan bank rate " * 3).split(),
        ("wheat grain corn crop wheat tonnes " * 3).split()] * 6
WORDS = ["a", "b", "c"]
PHI = np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])


@pytest.fixture(scope="module")
def counts():
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer()
    return vec, vec.fit_transform(" ".join(d) for d in DOCS)


@pytest.fixture(scope="module")
def gensim_parts():
    pytest.importorskip("gensim")
    from gensim.corpora import Dictionary

    dictionary = Dictionary(DOCS)
    return dictionary, [dictionary.doc2bow(d) for d in DOCS]


@pytest.fixture(scope="module")
def gensim_lda(gensim_parts):
    from gensim.models import LdaModel

    dictionary, bows = gensim_parts
    return LdaModel(bows, id2word=dictionary, num_topics=2, passes=1, random_state=0)


@pytest.fixture
def fake_bertopic():
    """An object exposing BERTopic's documented attributes (recognised by its module, as BERTopic's is)."""
    import scipy.sparse as sp

    cls = type("BERTopic", (), {"__module__": "bertopic._bertopic"})
    model = cls()
    model.topic_representations_ = {-1: [("a", 0.5)], 0: [("b", 0.9), ("a", 0.1)],
                                    1: [("c", 0.7), ("b", 0.2)]}
    model.c_tf_idf_ = sp.csr_matrix([[0.5, 0.1, 0.1], [0.1, 0.9, 0.0], [0.0, 0.2, 0.7]])
    model.vectorizer_model = SimpleNamespace(get_feature_names_out=lambda: np.array(WORDS))
    model.topic_sizes_ = {-1: 4, 0: 10, 1: 7}
    return model


def _corpus(model):
    return Corpus.from_token_lists([["a", "b", "c", "a"], ["c", "c", "b", "a"]], model.vocabulary_)


# -- API: raw arrays -------------------------------------------------------------------------------
@pytest.mark.parametrize("source, options, error, fragment", [
    (PHI, {}, ParameterError, "needs a vocabulary"),
    (PHI, {"vocabulary": ["a", "b"]}, InvalidModelError, "3 word columns but the vocabulary has 2"),
    (PHI, {"vocabulary": "abc"}, ParameterError, "list of words"),
    (PHI, {"vocabulary": ["a", "b", "a"]}, InvalidModelError, "duplicate"),
    (PHI, {"vocabulary": ["a", "", "c"]}, ParameterError, "non-empty strings"),
    (np.array([[0.5, np.nan, 0.5]]), {"vocabulary": WORDS}, InvalidModelError, "NaN"),
    (np.array([0.5, 0.25, 0.25]), {"vocabulary": WORDS}, InvalidModelError, "2-d array"),
    (np.ones((2, 2, 3)) / 3, {"vocabulary": WORDS}, InvalidModelError, "2-d array"),
    (np.zeros((0, 3)), {"vocabulary": WORDS}, InvalidModelError, "non-empty"),
    (np.array([[0.5, 0.5, 0.5]]), {"vocabulary": WORDS}, InvalidModelError, "sums to 1.5"),
    (np.array([[1.5, -0.5, 0.0]]), {"vocabulary": WORDS}, InvalidModelError, "negative"),
    (np.array([[1.0, -1.0, 2.0]]), {"vocabulary": WORDS, "probabilistic": False}, InvalidModelError,
     "negative"),
    (np.array([[0.0, 0.0, 0.0]]), {"vocabulary": WORDS, "probabilistic": False}, InvalidModelError,
     "no positive weight"),
    ([["x", "y", "z"]], {"vocabulary": WORDS}, InvalidModelError, "not numeric"),
    (PHI, {"vocabulary": WORDS, "alpha": -1.0}, InvalidModelError, "alpha"),
    (PHI, {"vocabulary": WORDS, "eta": 0.0}, InvalidModelError, "eta"),
    (PHI, {"vocabulary": WORDS, "eta": np.ones(5)}, InvalidModelError, "shape (5,)"),
    (PHI, {"vocabulary": WORDS, "probabilistic": "yes"}, ParameterError, "True or False"),
    (PHI, {"vocabulary": WORDS, "inference": "gibbs"}, ParameterError, "inference"),
    (PHI, {"vocabulary": WORDS, "inference": "native"}, ParameterError, "no native inference"),
    (PHI, {"vocabulary": WORDS, "topics": 3}, ParameterError, "unknown option(s) topics"),
])
def test_bad_arrays(source, options, error, fragment):
    with pytest.raises(error, match=None) as info:
        load_model(source, **options)
    assert fragment in str(info.value)


def test_arrays_without_alpha_refuse_tealeaves_inference_not_guess_one():
    model = load_model(PHI, vocabulary=WORDS)
    with pytest.raises(UnsupportedModelError, match="no Dirichlet prior alpha"):
        document_completion(model, _corpus(model))


# -- API: unknown objects and non-tealeaves models passed to measures ------------------------------------
@pytest.mark.parametrize("source", [object(), 42, b"x", SimpleNamespace(topic_word_=PHI)])
def test_unknown_objects_are_refused_naming_what_is_accepted(source):
    with pytest.raises(UnsupportedModelError) as info:
        load_model(source)
    assert "is not a topic model tealeaves can read" in str(info.value)
    assert "gensim LdaModel" in str(info.value) and "docs/models.md" in str(info.value)


def test_native_gensim_model_given_to_a_measure_points_to_load_model(gensim_lda):
    """Not the old "has no topic-word probabilities (e.g. LSI)" for an LDA model."""
    test = Corpus.from_token_lists(DOCS[:3])
    with pytest.raises(UnsupportedModelError) as info:
        document_completion(gensim_lda, test)
    assert "LdaModel is not a tealeaves model" in str(info.value)
    assert "tealeaves.load_model" in str(info.value) and "LSI" not in str(info.value)


def test_options_for_an_already_loaded_model_are_refused():
    model = load_model(PHI, vocabulary=WORDS, alpha=0.1)
    with pytest.raises(ParameterError, match="takes no options"):
        load_model(model, inference="native")


# -- API: scikit-learn -------------------------------------------------------------------------------
def test_unfitted_sklearn_lda(counts):
    from sklearn.decomposition import LatentDirichletAllocation

    with pytest.raises(InvalidModelError, match="not fitted"):
        load_model(LatentDirichletAllocation(2), vectorizer=counts[0])


def test_unfitted_nmf(counts):
    from sklearn.decomposition import NMF

    with pytest.raises(InvalidModelError, match="not fitted"):
        load_model(NMF(2), vectorizer=counts[0])


def test_unfitted_vectorizer(counts):
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer

    lda = LatentDirichletAllocation(2, max_iter=2, random_state=0).fit(counts[1])
    with pytest.raises(InvalidModelError, match="CountVectorizer is not fitted"):
        load_model(lda, vectorizer=CountVectorizer())


@pytest.mark.parametrize("options, error, fragment", [
    ({}, ParameterError, "needs a vocabulary"),
    ({"vocabulary": ["oil", "price"]}, InvalidModelError, "but the vocabulary has 2 words"),
    ({"vectorizer": "count"}, ParameterError, "fitted scikit-learn vectorizer"),
    ({"vectorizer": None, "vocabulary": None, "inference": "fast"}, ParameterError, "inference"),
])
def test_sklearn_lda_vocabulary_problems(counts, options, error, fragment):
    from sklearn.decomposition import LatentDirichletAllocation

    lda = LatentDirichletAllocation(2, max_iter=2, random_state=0).fit(counts[1])
    if "inference" in options:
        options = {"vectorizer": counts[0], "inference": "fast"}
    with pytest.raises(error) as info:
        load_model(lda, **options)
    assert fragment in str(info.value)


def test_both_vectorizer_and_vocabulary(counts):
    from sklearn.decomposition import NMF

    nmf = NMF(2, max_iter=50, random_state=0).fit(counts[1])
    with pytest.raises(ParameterError, match="only one"):
        load_model(nmf, vectorizer=counts[0], vocabulary=list(counts[0].get_feature_names_out()))


def test_nmf_to_likelihood_is_refused_with_the_reason(counts):
    from sklearn.decomposition import NMF

    nmf = NMF(2, max_iter=50, random_state=0).fit(counts[1])
    model = load_model(nmf, vectorizer=counts[0])
    with pytest.raises(UnsupportedModelError, match="NMF is not a probabilistic model"):
        document_completion(model, Corpus.from_token_lists(DOCS[:3], model.vocabulary_))
    with pytest.raises(UnsupportedModelError, match="no topic-word probabilities"):
        model.transform(Corpus.from_token_lists(DOCS[:3], model.vocabulary_))
    with pytest.raises(ParameterError, match="has no topic-word probabilities"):
        load_model(nmf, vectorizer=counts[0], inference="native")


def test_sklearn_estimator_that_is_no_topic_model(counts):
    from sklearn.decomposition import PCA

    pca = PCA(2).fit(counts[1].toarray())
    with pytest.raises(UnsupportedModelError, match="PCA is not a topic model"):
        load_model(pca, vectorizer=counts[0])


# -- API: gensim ---------------------------------------------------------------------------------------
def test_untrained_gensim_lda(gensim_parts):
    from gensim.models import LdaModel

    with pytest.raises(InvalidModelError, match="has not been trained"):
        load_model(LdaModel(id2word=gensim_parts[0], num_topics=2))


def test_gensim_lsi_is_refused_with_a_hint(gensim_parts):
    from gensim.models import LsiModel

    lsi = LsiModel(gensim_parts[1], id2word=gensim_parts[0], num_topics=2)
    with pytest.raises(UnsupportedModelError, match="LsiModel is not a model tealeaves can read.*LSI has no"):
        load_model(lsi)


def test_gensim_id2word_with_gaps(gensim_parts):
    from gensim.models import LdaModel

    dictionary, bows = gensim_parts
    lda = LdaModel(bows, id2word=dict(dictionary.items()), num_topics=2, passes=1, random_state=0)
    del lda.id2word[3]
    with pytest.raises(UnsupportedModelError, match="compactify"):
        load_model(lda)


def test_gensim_file_without_its_state(gensim_lda, tmp_path):
    from tealeaves.models.adapters.gensim import from_file

    path = tmp_path / "lda.model"
    gensim_lda.save(str(path))
    (tmp_path / "lda.model.state").unlink()
    with pytest.raises(InputFormatError, match="lda.model.state"):
        from_file(path)


def test_gensim_file_that_is_garbage(tmp_path):
    from tealeaves.models.adapters.gensim import from_file

    path = tmp_path / "lda.model"
    path.write_bytes(b"not a pickle at all")
    (tmp_path / "lda.model.state").write_bytes(b"nor this")
    with pytest.raises(InputFormatError, match="could not be read as a saved gensim LdaModel"):
        from_file(path)


def test_gensim_file_missing(tmp_path):
    from tealeaves.models.adapters.gensim import from_file

    with pytest.raises(InputNotFoundError, match="no gensim model file"):
        from_file(tmp_path / "absent.model")


# -- API: tomotopy ---------------------------------------------------------------------------------
def test_untrained_tomotopy_model_is_refused_not_a_crash():
    tp = pytest.importorskip("tomotopy")
    mdl = tp.LDAModel(k=2)
    for d in DOCS:
        mdl.add_doc(d)
    with pytest.raises(InvalidModelError, match="has not been trained"):
        load_model(mdl)


@pytest.mark.parametrize("name", ["PAModel", "MGLDAModel"])
def test_hierarchical_tomotopy_models_are_refused(name):
    tp = pytest.importorskip("tomotopy")
    mdl = tp.PAModel(k1=2, k2=3) if name == "PAModel" else tp.MGLDAModel(k_g=2, k_l=2)
    for d in DOCS:
        mdl.add_doc(d)
    mdl.train(2, workers=1)
    with pytest.raises(UnsupportedModelError, match=f"tomotopy {name} is not supported"):
        load_model(mdl)


@pytest.mark.parametrize("content, fragment", [
    (b"garbage that is no model", "is not a tomotopy model file"),
    (b"LDA\x00\x00one" + b"\x00" * 40, "could not be read as a saved tomotopy LDAModel"),
])
def test_corrupt_tomotopy_bin_is_refused_not_a_crash(tmp_path, content, fragment):
    pytest.importorskip("tomotopy")
    from tealeaves.models.adapters.tomotopy import from_file

    path = tmp_path / "m.bin"
    path.write_bytes(content)
    with pytest.raises(InputFormatError, match=fragment):
        from_file(path)


@pytest.mark.parametrize("keep", [64, 0.5])
def test_truncated_tomotopy_bin_is_refused_not_a_crash(tmp_path, keep):
    """tomotopy reads a truncated file forever: the child process is stopped and the file refused, within
    LOAD_SECONDS of tomotopy's import (before: 60 s of a spinning CPU, even for 64 bytes)."""
    import subprocess
    import sys
    import time

    tp = pytest.importorskip("tomotopy")
    from tealeaves.models.adapters.tomotopy import LOAD_SECONDS, from_file

    mdl = tp.LDAModel(k=2, seed=0)
    for d in DOCS:
        mdl.add_doc(d)
    mdl.train(5, workers=1)
    path = tmp_path / "m.bin"
    mdl.save(str(path))
    data = path.read_bytes()
    path.write_bytes(data[:64] if keep == 64 else data[: int(len(data) * keep)])
    start = time.monotonic()
    with pytest.raises(InputFormatError, match="could not be read"):
        from_file(path)
    assert time.monotonic() - start < LOAD_SECONDS + 15  # the import, then the load budget
    run = subprocess.run([sys.executable, "-m", "tealeaves", "perplexity", str(path), str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("tealeaves: error: "), run.stderr


def test_tomotopy_bin_with_a_word_that_is_not_utf8_is_refused(tmp_path):
    """A damaged byte inside a saved word: tomotopy loads the file, then cannot decode the word
    (found by benchmarks/model_fuzz.py; before: exit 70, UnicodeDecodeError)."""
    tp = pytest.importorskip("tomotopy")
    from tealeaves.models.adapters.tomotopy import from_file

    mdl = tp.LDAModel(k=2, seed=0)
    for d in DOCS:
        mdl.add_doc(d)
    mdl.train(5, workers=1)
    path = tmp_path / "m.bin"
    mdl.save(str(path))
    word = max(mdl.used_vocabs, key=len).encode()
    data = path.read_bytes()
    assert word in data
    path.write_bytes(data.replace(word, b"\x94" + word[1:], 1))
    with pytest.raises(InputFormatError, match="holds a word that is not UTF-8"):
        from_file(path)


def test_tomotopy_model_with_an_empty_word_is_refused(tmp_path):
    """tomotopy keeps an empty token given to add_doc, and a flipped byte of a saved file can make one
    (found by benchmarks/model_fuzz.py --seed 7: before, it loaded with '' in the vocabulary)."""
    tp = pytest.importorskip("tomotopy")
    from tealeaves.models.adapters.tomotopy import from_file

    mdl = tp.LDAModel(k=2, seed=0)
    for d in DOCS:
        mdl.add_doc(d)
    mdl.add_doc(["", *DOCS[0]])
    mdl.train(5, workers=1)
    empty = list(mdl.used_vocabs).index("")
    with pytest.raises(InvalidModelError, match=f"holds an empty word: word {empty}"):
        load_model(mdl)
    path = tmp_path / "m.bin"
    mdl.save(str(path))
    with pytest.raises(InvalidModelError, match=f"empty word: .*m.bin \\(its word {empty}\\)"):
        from_file(path)


# -- API: BERTopic and OCTIS ----------------------------------------------------------------------------
def test_bertopic_to_likelihood_is_refused(fake_bertopic):
    model = load_model(fake_bertopic)
    assert model.metadata_["bertopic"]["n_outlier_documents"] == 4 and model.n_topics == 2
    with pytest.raises(UnsupportedModelError, match="BERTopic is not a probabilistic model"):
        document_completion(model, _corpus(model))


def test_unfitted_bertopic(fake_bertopic):
    fake_bertopic.topic_representations_ = None
    with pytest.raises(InvalidModelError, match="BERTopic model is not fitted"):
        load_model(fake_bertopic)


def test_bertopic_with_only_outliers(fake_bertopic):
    import scipy.sparse as sp

    fake_bertopic.topic_representations_ = {-1: [("a", 0.5)]}
    fake_bertopic.c_tf_idf_ = sp.csr_matrix([[0.5, 0.1, 0.1]])
    with pytest.raises(InvalidModelError, match="only the outlier topic"):
        load_model(fake_bertopic)


def test_bertopic_reranked_representation_is_refused_unless_asked(fake_bertopic):
    fake_bertopic.topic_representations_[0] = [("c", 0.9), ("a", 0.1)]  # c has c-TF-IDF weight 0
    with pytest.raises(UnsupportedModelError, match="ranking='c-tf-idf'"):
        load_model(fake_bertopic)
    assert load_model(fake_bertopic, ranking="c-tf-idf").metadata_["bertopic"]["representation_differs"]


def test_bertopic_rows_and_topics_disagree(fake_bertopic):
    import scipy.sparse as sp

    fake_bertopic.c_tf_idf_ = sp.csr_matrix([[0.5, 0.1, 0.1]])
    with pytest.raises(InvalidModelError, match="c_tf_idf_ has 1 rows"):
        load_model(fake_bertopic)


@pytest.mark.parametrize("output, options, error, fragment", [
    ({"topics": [["a", "b"]]}, {"vocabulary": WORDS}, InputFormatError,
     "no 'topic-word-matrix' (found 'topics')"),
    ({"topic-word-matrix": PHI}, {}, ParameterError, "needs a vocabulary"),
    ({"topics": [["a", "b"], ["c", "b"]], "topic-word-matrix": [[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]]},
     {"vocabulary": ["c", "b", "a"]},
     InputFormatError, "pass the vocabulary in the matrix's column order"),
    ({"topics": [["a", "z"], ["c", "a"]], "topic-word-matrix": PHI}, {"vocabulary": WORDS},
     InputFormatError, "'z', which the vocabulary lacks"),
    ({"topics": [["a", "b"]], "topic-word-matrix": PHI}, {"vocabulary": WORDS}, InputFormatError,
     "lists 1 topics but its matrix has 2"),
    ({"topic-word-matrix": PHI, "topic-document-matrix": np.ones((3, 4))}, {"vocabulary": WORDS},
     InputFormatError, "topic-document-matrix has shape (3, 4)"),
    ({"topic-word-matrix": PHI * 2}, {"vocabulary": WORDS, "probabilistic": True}, InvalidModelError,
     "sums to 2"),
    ({"topic-word-matrix": PHI}, {"vocabulary": WORDS, "probabilistic": "auto"}, ParameterError,
     "None, True or False"),
])
def test_bad_octis_output(output, options, error, fragment):
    with pytest.raises(error) as info:
        load_model(output, **options)
    assert fragment in str(info.value)


# -- missing optional libraries ---------------------------------------------------------------------
@pytest.mark.parametrize("module, extra", [("gensim", "gensim"), ("tomotopy", "tomotopy")])
def test_missing_library_names_the_extra_for_files(monkeypatch, tmp_path, module, extra):
    import importlib

    path = tmp_path / "m.bin"
    path.write_bytes(b"LDA\x00")
    monkeypatch.setitem(sys.modules, module, None)  # import of the library now fails
    adapter = importlib.import_module(f"tealeaves.models.adapters.{module}")
    with pytest.raises(MissingDependencyError) as info:
        adapter.from_file(path)
    assert f"pip install 'tealeaves[{extra}]'" in str(info.value)


def test_bertopic_attributes_are_read_without_importing_the_library(monkeypatch, fake_bertopic):
    """A fitted BERTopic object implies its library; reading its documented attributes imports nothing
    (so a model object exposing them is read even where bertopic cannot be imported)."""
    monkeypatch.setitem(sys.modules, "bertopic", None)  # any import of bertopic would now fail
    model = load_model(fake_bertopic)
    assert model.n_topics == 2 and model.metadata_["source"]["library"] == "bertopic"


# -- the command line ------------------------------------------------------------------------------
def test_cli_perplexity_unknown_model_file(cli_error, tmp_path):
    model = tmp_path / "model.xyz"
    model.write_bytes(b"\x00\x01\x02 no model format")
    test = tmp_path / "test.txt"
    test.write_text("a b c\n", encoding="utf-8")
    cli_error(["perplexity", model, test, "--tokenized", "--method", "completion"], "model.xyz")


@pytest.mark.parametrize("method, fragment", [
    ("completion", "tealeaves' fold-in only"),  # a .npz has no native inference
    ("is", "--inference does not apply to --method is"),
])
def test_cli_perplexity_native_inference_refused(cli_error, tmp_path, method, fragment):
    path = load_model(PHI, vocabulary=WORDS, alpha=0.5).save(tmp_path / "m.npz")
    test = tmp_path / "test.txt"
    test.write_text("a b c a\n", encoding="utf-8")
    cli_error(["perplexity", path, test, "--tokenized", "--method", method, "--inference", "native"],
              fragment)


def test_cli_perplexity_bad_inference_choice(cli_error, tmp_path):
    cli_error(["perplexity", tmp_path / "m.npz", tmp_path / "t.txt", "--inference", "gibbs"],
              "invalid choice: 'gibbs'", code=2)


def test_cli_perplexity_of_a_non_probabilistic_model(cli_error, tmp_path):
    path = load_model(PHI * 3, vocabulary=WORDS, probabilistic=False).save(tmp_path / "m.npz")
    test = tmp_path / "test.txt"
    test.write_text("a b c a\n", encoding="utf-8")
    cli_error(["perplexity", path, test, "--tokenized", "--method", "completion"],
              "no topic-word probabilities")


def test_cli_build_study_from_a_corrupt_tomotopy_file(cli_error, tmp_path):
    pytest.importorskip("tomotopy")
    path = tmp_path / "m.bin"
    path.write_bytes(b"LDA\x00\x00one" + b"\x00" * 40)
    cli_error(["human", "build-study", path, "-o", tmp_path / "s.json", "--tasks", "rating"],
              "could not be read as a saved tomotopy")


@pytest.fixture(scope="module")
def dmr():
    tp = pytest.importorskip("tomotopy")
    mdl = tp.DMRModel(k=2, seed=0)
    for i, d in enumerate(DOCS):
        mdl.add_doc(d, metadata="even" if i % 2 == 0 else "odd")
    mdl.train(10, workers=1)
    return mdl


def test_dmr_has_no_native_inference_since_documents_need_metadata(dmr):
    """tomotopy aborts the interpreter when a DMR document has no metadata: refused before that."""
    with pytest.raises(ParameterError, match="DMRModel/K2/V.* has no native inference"):
        load_model(dmr, inference="native")


def test_dmr_has_no_single_alpha_for_the_fold_in(dmr):
    model = load_model(dmr)
    assert model.doc_topic_prior_ is None
    with pytest.raises(UnsupportedModelError, match="no Dirichlet prior alpha"):
        document_completion(model, Corpus.from_token_lists(DOCS[:3], model.vocabulary_))
