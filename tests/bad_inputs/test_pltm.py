"""``tealeaves pltm fit|infer|topics`` and ``cnpmi MODEL`` on a saved polylingual model folder: a damaged
``pltm.npz`` (NaN topic rows, a negative or infinite alpha, a truncated file), and more topics than
words.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback) and the
error class through the API.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conftest import write_jsonl as _jsonl

# issue 20's cases of this command: the CLI runs in a subprocess, as a user runs it
pytestmark = pytest.mark.cli_subprocess

WORDS = {"cat": "katten", "mat": "mattan", "dog": "hund", "sat": "satt", "bird": "fagel", "fish": "fisk"}


def _rows(n: int = 20):
    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        en = [str(w) for w in rng.choice(list(WORDS), 6)]
        rows.append({"id": f"d{i}", "en": " ".join(en), "sv": " ".join(WORDS[w] for w in en)})
    return rows


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    from tealeaves.cli import main

    folder = tmp_path_factory.mktemp("pltm")
    tuples = _jsonl(folder / "t.jsonl", _rows())
    assert main(["pltm", "fit", str(tuples), "-k", "3", "--n-chains", "1", "--n-iter", "10", "--max-df", "1",
                 "--seed", "1", "-o", str(folder / "m")]) == 0
    return folder / "m", tuples


def _npz_edit(src, dst, edit):
    shutil.copytree(src, dst)
    with np.load(dst / "pltm.npz") as z:
        arrays = {k: z[k] for k in z.files}
    edit(arrays)
    np.savez_compressed(dst / "pltm.npz", **arrays)
    return dst


def _nan_row(a):
    a["topic_word_sv"] = a["topic_word_sv"].copy()
    a["topic_word_sv"][1] = np.nan


def _alpha(value):
    def edit(a):
        a["alpha"] = np.array([value, 0.1, 0.1])
    return edit


def _header(key, value):
    def edit(a):
        header = json.loads(str(a["header"]))
        header[key] = value
        a["header"] = np.array(json.dumps(header))
    return edit


def _theta_nan(a):
    a["doc_topic"] = a["doc_topic"].copy()
    a["doc_topic"][0, 0] = np.nan


@pytest.mark.parametrize("edit, fragment", [
    (_nan_row, "topic_word_sv has nan or infinite values in topic 1"),  # before: cnpmi answered, infer NaN
    (_alpha(-0.1), "alpha) must be positive and finite"),  # before: theta with negative entries
    (_alpha(np.inf), "alpha) must be positive and finite"),  # before: theta NaN
    (_alpha(np.nan), "alpha) must be positive and finite"),
    (_theta_nan, "doc_topic has nan"),
    (_header("beta_", {"en": -1.0, "sv": 0.01}), "beta_ of en must be a positive finite number"),
    (_header("languages", 7), "malformed header field"),
])
def test_saved_model_with_bad_numbers_refused(fitted, tmp_path, cli_error, edit, fragment):
    from tealeaves.errors import InputFormatError
    from tealeaves.multilingual import load_pltm

    model, tuples = fitted
    bad = _npz_edit(model, tmp_path / "bad", edit)
    cli_error(["pltm", "infer", bad, tuples, "-o", tmp_path / "theta.npy"], fragment)
    cli_error(["cnpmi", bad, "--reference", "bible", "--n-top", "3"], fragment)
    cli_error(["pltm", "topics", bad], fragment)
    assert not (tmp_path / "theta.npy").exists()
    with pytest.raises(InputFormatError, match="not a saved polylingual model"):
        load_pltm(bad)


@pytest.mark.parametrize("size", [0, 64, 1000, -100])
def test_truncated_model_file_refused(fitted, tmp_path, cli_error, size):
    # before: exit 70, zipfile.BadZipFile
    from tealeaves.errors import InputFormatError
    from tealeaves.multilingual import load_pltm

    model, tuples = fitted
    bad = tmp_path / "bad"
    shutil.copytree(model, bad)
    data = (bad / "pltm.npz").read_bytes()
    (bad / "pltm.npz").write_bytes(data[:size] if size >= 0 else data[:len(data) + size])
    cli_error(["pltm", "infer", bad, tuples, "-o", tmp_path / "theta.npy"], "truncated or corrupted")
    with pytest.raises(InputFormatError, match="truncated or corrupted"):
        load_pltm(bad)


def test_the_saved_model_itself_loads_and_folds_in(fitted, tmp_path, run_cli):
    model, tuples = fitted
    assert run_cli(["pltm", "infer", model, tuples, "-o", tmp_path / "theta.npy"]).code == 0
    theta = np.load(tmp_path / "theta.npy")
    assert np.isfinite(theta).all() and (theta >= 0).all()
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)


def test_more_topics_than_words_refused(fitted, tmp_path, cli_error):
    # before: `pltm fit -k 500` on a 40-word vocabulary fitted and saved a model
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
    from tealeaves.errors import InvalidModelError
    from tealeaves.models.polylingual import PolylingualTopicModel

    _, tuples = fitted
    rows = _rows()
    texts = {x: [r[x] for r in rows] for x in ("en", "sv")}
    corpus = AlignedCorpus.from_texts(texts, [r["id"] for r in rows],
                                      {x: default_preprocessor(x, max_df=1.0) for x in ("en", "sv")})
    size = min(len(corpus.vocabulary(x)) for x in ("en", "sv"))
    assert size == len({w for r in rows for w in r["en"].split()})  # every word kept
    cli_error(["pltm", "fit", tuples, "-k", size + 1, "--n-iter", "2", "--max-df", "1", "-o", tmp_path / "m"],
              f"n_components={size + 1} is larger than the en vocabulary ({size} words)", progress=True)
    assert not (tmp_path / "m").exists()
    with pytest.raises(InvalidModelError, match="larger than the"):
        PolylingualTopicModel(n_components=size + 1, n_iter=2).fit(corpus)
    PolylingualTopicModel(n_components=size, n_iter=2).fit(corpus)  # K = V is allowed


def _plain_round(alpha, topic_doc_hist, doc_length_hist, shape=1.00001, scale=1.0):
    """One round of MALLET's update ``a_k <- a_k (S_k + shape) / (D - 1/scale)`` in plain Python."""
    total = sum(alpha)
    lengths = range(1, len(doc_length_hist))
    d = sum(doc_length_hist[n] * sum(1 / (total + i) for i in range(n)) for n in lengths)
    s = [sum(topic_doc_hist[k][n] * sum(1 / (a + i) for i in range(n)) for n in lengths)
         for k, a in enumerate(alpha)]
    return [a * (sk + shape) / (d - 1 / scale) for a, sk in zip(alpha, s)]


def test_alpha_optimisation_never_makes_alpha_negative():
    # before: one short document in the histograms made the denominator negative, and a fit with
    # --optimize-interval saved alpha = [-38374, -32014, -37129]; pltm infer then folded in with it
    from tealeaves.models._pltm_kernels import learn_dirichlet

    topic_doc_hist = np.zeros((3, 2))
    topic_doc_hist[0, 1] = 1
    doc_length_hist = np.zeros(2)
    doc_length_hist[1] = 1  # one document of one token
    start = [1.0, 1.0, 1.0]
    assert max(_plain_round(start, topic_doc_hist, doc_length_hist)) < 0  # what the plain update gives
    alpha = np.array(start)
    total = learn_dirichlet(alpha, topic_doc_hist, doc_length_hist, 1.00001, 1.0, 200)
    assert alpha.tolist() == start and total == pytest.approx(3.0)  # the update is skipped, alpha kept


def test_alpha_optimisation_equals_the_plain_update_where_it_is_valid():
    from tealeaves.models._pltm_kernels import learn_dirichlet

    rng = np.random.default_rng(0)
    topic_doc_hist = rng.integers(0, 5, (3, 12)).astype(float)
    doc_length_hist = rng.integers(0, 6, 12).astype(float)
    expected = [0.1, 0.2, 0.3]
    for _ in range(3):
        expected = _plain_round(expected, topic_doc_hist.tolist(), doc_length_hist.tolist())
    assert min(expected) > 0
    alpha = np.array([0.1, 0.2, 0.3])
    learn_dirichlet(alpha, topic_doc_hist, doc_length_hist, 1.00001, 1.0, 3)
    np.testing.assert_allclose(alpha, expected, rtol=1e-12)


@pytest.mark.parametrize("value", ["0", "1.5", "two", "-1"])
def test_pltm_fit_bad_thread_count_refused(fitted, tmp_path, cli_error, value):
    _, tuples = fitted
    result = cli_error(["pltm", "fit", tuples, "-k", "3", "--n-iter", "2", "--max-df", "1", "--n-threads",
                        value, "-o", tmp_path / "m"], "--n-threads", code=2)
    assert "n_threads" not in result.err.replace("--n-threads", "")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("value", [0, "2", 1.5, True, -1])
def test_pltm_bad_thread_count_refused_through_the_api(value):
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
    from tealeaves.errors import ParameterError
    from tealeaves.models.lda_gibbs import GibbsLDA
    from tealeaves.models.polylingual import PolylingualTopicModel

    rows = _rows()
    texts = {x: [r[x] for r in rows] for x in ("en", "sv")}
    corpus = AlignedCorpus.from_texts(texts, [r["id"] for r in rows],
                                      {x: default_preprocessor(x, max_df=1.0) for x in ("en", "sv")})
    with pytest.raises(ParameterError, match="n_threads"):
        PolylingualTopicModel(n_components=3, n_iter=2, n_threads=value).fit(corpus)
    with pytest.raises(ParameterError, match="n_threads"):
        GibbsLDA(3, n_iter=2, n_threads=value).fit(corpus.corpora["en"])
