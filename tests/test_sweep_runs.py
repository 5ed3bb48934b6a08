"""Sweeps over K and seeds: stored numbers equal independent recomputation; resume after SIGKILL;
local processes and a Dask LocalCluster store identical results; compare's bootstrap; progress."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.sweep import Engine, compare_models, load_results, split_corpus, sweep
from tealeaves.sweep.engines import ENGINES
from tealeaves.sweep.progress import Progress

KS = [2, 3, 4]
REPO = Path(__file__).resolve().parent.parent


def lda_documents(n_docs: int = 120, n_words: int = 40, n_topics: int = 4, length: int = 30, seed: int = 1
                  ) -> list[list[str]]:
    """Documents drawn from LDA's generative process: Dirichlet(0.1) topics, Dirichlet(0.3) mixtures."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_words, 0.1), n_topics)
    docs = []
    for _ in range(n_docs):
        z = rng.choice(n_topics, size=length, p=rng.dirichlet(np.full(n_topics, 0.3)))
        docs.append([f"w{rng.choice(n_words, p=phi[t])}" for t in z])
    return docs


def lda_corpus(**kw) -> Corpus:
    """The documents of :func:`lda_documents` with ids 1, 2, ... (as a file of lines is read)."""
    docs = lda_documents(**kw)
    return Corpus.from_token_lists(docs, ids=[str(i) for i in range(1, len(docs) + 1)])


def write_corpus(path: Path, **kw) -> Path:
    path.write_text("".join(" ".join(d) + "\n" for d in lda_documents(**kw)), encoding="utf-8")
    return path


def stored(path) -> dict:
    """Everything a store holds except timings: name -> (measures, topics, per-document arrays)."""
    with sqlite3.connect(path) as conn:
        models = {r[0]: r[1:] for r in conn.execute(
            "SELECT name, settings, signature, measures, vocabulary_hash, split_hash, doc_loglik, doc_words "
            "FROM models")}
        topics = sorted(conn.execute("SELECT model, topic, top_words, scores, pairs FROM topics"))
    return {"models": models, "topics": topics}


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus()


@pytest.fixture(scope="module")
def local_store(tmp_path_factory, corpus):
    path = tmp_path_factory.mktemp("sweep") / "local.sqlite"
    sweep(corpus, KS, seeds=2, output=path, measures=["npmi", "umass"], progress=False)
    return path


def test_split_is_the_documented_seeded_permutation(corpus):
    train, test = split_corpus(corpus, 0.25, seed=7)
    chosen = sorted(np.random.default_rng(7).permutation(len(corpus))[:30])
    assert test.ids == [corpus.ids[i] for i in chosen]
    assert train.ids == [i for i in corpus.ids if i not in set(test.ids)]
    assert train.n_tokens + test.n_tokens == corpus.n_tokens


def test_stored_numbers_equal_an_independent_recomputation(local_store, corpus):
    from tealeaves.coherence import build_index, coherence
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.models import SklearnLDA

    results = load_results(local_store)
    assert len(results.models) == len(KS) * 2 and len(results.topics) == 2 * sum(KS)
    train, test = split_corpus(corpus, 0.2, 0)
    model = SklearnLDA(3, random_state=1, learning_method="batch", max_iter=10).fit(train)
    row = results.model("sklearn-K3-s1")
    completion = document_completion(model, test, seed=0)
    assert row["completion_perplexity"] == completion.perplexity
    assert row["uniform_perplexity"] == pytest.approx(len(train.vocabulary), rel=1e-12)  # 1/V: V
    assert row["library_perplexity"] == model.perplexity(test)
    npmi = coherence(model, build_index(train, name="training-corpus"), "npmi", top_n=10)
    assert row["npmi"] == npmi.mean
    topics = results.topics[results.topics["model"] == "sklearn-K3-s1"].sort_values("topic")
    assert list(topics["npmi"]) == npmi.scores
    assert [list(w) for w in topics["top_words"]] == [t.words for t in npmi.topics]
    ll, words = results.heldout("sklearn-K3-s1")
    assert ll.sum() == pytest.approx(completion.log_likelihood, rel=1e-12)
    assert words.sum() == completion.n_heldout_words == row["heldout_words"]
    assert row["signature"] == str(completion.signature)
    from tealeaves.comparison import inverted_rbo, topic_diversity

    assert row["diversity"] == topic_diversity(model, 25).value  # the comparison measures, by name
    assert row["irbo"] == inverted_rbo(model, 10).value
    # prevalence (LDAvis's topic frequency): token-weighted mean of the training proportions, by hand
    theta = model.transform(train)
    lengths = np.asarray(train.lengths, dtype=float)
    mass = [sum(lengths[d] * theta[d, k] for d in range(len(train))) for k in range(3)]
    expected = [m / sum(mass) for m in mass]
    assert list(topics["prevalence"]) == pytest.approx(expected, rel=1e-12)


def test_stored_kchoice_measures_equal_tealeaves_comparison(local_store, corpus):
    from tealeaves.comparison import arun2010, cao_juan2009, deveaud2014, exclusivity
    from tealeaves.models import SklearnLDA

    results = load_results(local_store)
    train, _ = split_corpus(corpus, 0.2, 0)
    model = SklearnLDA(3, random_state=1, learning_method="batch", max_iter=10).fit(train)
    row = results.model("sklearn-K3-s1")
    assert row["cao_juan2009"] == cao_juan2009(model).value
    assert row["deveaud2014"] == deveaud2014(model).value
    assert row["arun2010"] == arun2010(model, model.transform(train), train.lengths).value
    excl = exclusivity(model)
    assert row["exclusivity"] == excl.value and row["frex"] == excl.details["mean_frex"]
    topics = results.topics[results.topics["model"] == "sklearn-K3-s1"].sort_values("topic")
    assert list(topics["exclusivity"]) == list(excl.per_topic["exclusivity"])
    assert list(topics["frex"]) == list(excl.per_topic["frex"])
    # scikit-learn's variational LDA keeps no sampler trace: None, with the reason stored
    assert row["griffiths2004"] is None or np.isnan(row["griffiths2004"])
    assert "log-likelihood trace" in row["unavailable"]["griffiths2004"]


def test_gibbs_sweep_stores_griffiths2004_of_its_trace(corpus, tmp_path):
    from scipy.special import logsumexp

    from tealeaves.models import GibbsLDA

    path = tmp_path / "gibbs.sqlite"
    settings = {"n_iter": 60, "optimize_burn_in": 20}
    sweep(corpus, [2], seeds=1, output=path, engine="gibbs", settings=settings, measures=["npmi"],
          progress=False)
    row = load_results(path).model("gibbs-K2-s0")
    train, _ = split_corpus(corpus, 0.2, 0)
    model = GibbsLDA(2, random_state=0, **settings).fit(train)
    kept = [v for v, it in zip(model.log_likelihood_trace_, model.log_likelihood_iterations_) if it > 20]
    assert len(kept) == 4  # recorded every 10 sweeps: 30, 40, 50, 60
    expected = -(logsumexp(-np.array(kept)) - np.log(len(kept)))  # log harmonic mean, by hand
    assert row["griffiths2004"] == pytest.approx(expected, rel=1e-12)


def test_stored_flags_and_significance_equal_tealeaves_comparison(local_store, corpus):
    from tealeaves.coherence import build_index, coherence
    from tealeaves.comparison import flag_topics, topic_significance
    from tealeaves.models import SklearnLDA

    results = load_results(local_store)
    train, _ = split_corpus(corpus, 0.2, 0)
    model = SklearnLDA(4, random_state=0, learning_method="batch", max_iter=10).fit(train)
    theta = model.transform(train)
    significance = topic_significance(model, theta, train.lengths)
    report = flag_topics(4, coherence=coherence(model, build_index(train, name="training-corpus"), "npmi"),
                         significance=significance, theta=theta, doc_lengths=train.lengths)
    topics = results.topics[results.topics["model"] == "sklearn-K4-s0"].sort_values("topic")
    assert [list(f) for f in topics["flags"]] == [[f.flag for f in report.of(t)] for t in range(4)]
    assert list(topics["kl_vacuous"]) == list(significance.per_topic["kl_vacuous"])
    assert results.model("sklearn-K4-s0")["significance"] == significance.value
    assert results.flag_settings["sklearn-K4-s0"]["checked"] == report.checked


def test_local_processes_and_dask_localcluster_store_identical_results(local_store, corpus, tmp_path):
    distributed = pytest.importorskip("distributed")
    procs = tmp_path / "procs.sqlite"
    sweep(corpus, KS, seeds=2, output=procs, measures=["npmi", "umass"], workers=2, progress=False)
    assert stored(procs) == stored(local_store)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        dask = tmp_path / "dask.sqlite"
        sweep(corpus, KS, seeds=2, output=dask, measures=["npmi", "umass"],
              scheduler=cluster.scheduler_address, progress=False)
    assert stored(dask) == stored(local_store)


def test_a_killed_sweep_resumes_refitting_only_unfinished_models(tmp_path, local_store):
    corpus_file = write_corpus(tmp_path / "corpus.txt")
    out = tmp_path / "killed.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    argv = [sys.executable, "-m", "tealeaves", "sweep", str(corpus_file), "--k", *map(str, KS),
            "--seeds", "2", "--measures", "npmi,umass", "-o", str(out)]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists():
                try:
                    with sqlite3.connect(out, timeout=1) as conn:
                        if conn.execute("SELECT count(*) FROM models").fetchone()[0] >= 1:
                            break
                except sqlite3.OperationalError:
                    pass  # the table is not created yet
            time.sleep(0.05)
        assert proc.poll() is None, "the sweep finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    with sqlite3.connect(out) as conn:
        before = {r[0] for r in conn.execute("SELECT name FROM models")}
        assert conn.execute("SELECT count(DISTINCT model) FROM topics").fetchone()[0] == len(before)
    assert 1 <= len(before) < len(KS) * 2
    fits = []

    def counting_fit(train, k, seed, settings):
        fits.append((k, seed))
        return ENGINES["sklearn"].fit(train, k, seed, settings)

    engine = Engine("sklearn", counting_fit, ENGINES["sklearn"].defaults)
    from tealeaves.corpus.readers import read_corpus

    done = sweep(read_corpus(corpus_file), KS, seeds=2, engine=engine, output=out,
                 measures=["npmi", "umass"], progress=False)
    assert len(fits) == len(KS) * 2 - len(before) == len(done["fitted"])
    assert set(done["skipped"]) == before
    assert stored(out) == stored(local_store)  # and the store is that of a sweep never killed


def test_compare_equals_tealeaves_comparison_on_freshly_scored_models(local_store, corpus):
    from tealeaves.coherence import build_index, coherence
    from tealeaves.comparison import coherence_difference, likelihood_difference, same_heldout
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.models import SklearnLDA

    results = load_results(local_store)
    out = compare_models(results, "sklearn-K4-s0", results, "sklearn-K2-s1", n_boot=500, seed=3)
    train, test = split_corpus(corpus, 0.2, 0)
    a = SklearnLDA(4, random_state=0, learning_method="batch", max_iter=10).fit(train)
    b = SklearnLDA(2, random_state=1, learning_method="batch", max_iter=10).fit(train)
    held = same_heldout(a, b, test, seed=0)
    expected = likelihood_difference(document_completion(a, test), document_completion(b, test), held,
                                     n_boot=500, seed=3)
    for key in ("estimate", "low", "high", "value_a", "value_b"):
        assert out["loglik_per_word"][key] == pytest.approx(getattr(expected, key), rel=1e-12), key
    index = build_index(train, name="training-corpus")
    coh = coherence_difference(coherence(a, index, "npmi"), coherence(b, index, "npmi"), n_boot=500, seed=3)
    assert (out["coherence"]["estimate"], out["coherence"]["low"], out["coherence"]["high"]) == \
        pytest.approx((coh.estimate, coh.low, coh.high), rel=1e-12)
    same = compare_models(results, "sklearn-K2-s0", results, "sklearn-K2-s0")
    assert (same["loglik_per_word"]["estimate"], same["loglik_per_word"]["low"],
            same["loglik_per_word"]["high"]) == (0.0, 0.0, 0.0)


def test_progress_is_a_bar_on_a_terminal_and_lines_in_a_log():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    log, tty = io.StringIO(), Tty()
    for stream in (log, tty):
        bar = Progress(2, stream)
        bar.update("a")
        bar.update("b")
    assert log.getvalue().splitlines()[0].startswith("sweep: 1/2 models done (a), ETA ")
    assert "\r" not in log.getvalue() and len(log.getvalue().splitlines()) == 2
    assert tty.getvalue().count("\r") == 2 and "[###############---------------] 1/2 a, ETA" in tty.getvalue()


def test_cli_sweep_then_rerun_fits_nothing(tmp_path, run_cli):
    corpus_file = write_corpus(tmp_path / "c.txt", n_docs=60)
    out = tmp_path / "r.sqlite"
    argv = ["sweep", corpus_file, "--k", "2", "3", "--seeds", "1", "-o", out, "--format", "json"]
    first = run_cli(argv)
    assert first.code == 0 and json.loads(first.out)["fitted"] == ["sklearn-K2-s0", "sklearn-K3-s0"]
    second = run_cli(argv)
    assert json.loads(second.out) == {"output": str(out), "fitted": [],
                                      "skipped": ["sklearn-K2-s0", "sklearn-K3-s0"]}
    shown = run_cli(["compare", out, "--models", "sklearn-K2-s0", "sklearn-K3-s0", "--format", "json"])
    assert shown.code == 0 and json.loads(shown.out)["models"] == ["sklearn-K2-s0", "sklearn-K3-s0"]
    text = run_cli(["compare", out, "--models", "sklearn-K2-s0", "sklearn-K3-s0"])
    assert text.code == 0 and "loglik per held-out word" in text.out and "mean npmi" in text.out


@pytest.mark.parametrize("engine", ["gensim", "tomotopy", "gibbs"])
def test_optional_engines_fit_over_the_training_vocabulary(engine, tmp_path):
    if engine != "gibbs":
        pytest.importorskip(engine)
    corpus = lda_corpus(n_docs=60)
    out = tmp_path / f"{engine}.sqlite"
    settings = {"gensim": {"passes": 2, "iterations": 20}, "tomotopy": {"iterations": 50},
                "gibbs": {"n_iter": 100, "optimize_burn_in": 20}}[engine]
    sweep(corpus, [3], seeds=1, engine=engine, output=out, settings=settings, progress=False)
    again = tmp_path / "again.sqlite"
    sweep(corpus, [3], seeds=1, engine=engine, output=again, settings=settings, progress=False)
    assert stored(out) == stored(again)  # seeded: the same model twice
    row = load_results(out).model(f"{engine}-K3-s0")
    train, _ = split_corpus(corpus, 0.2, 0)
    assert row["uniform_perplexity"] == pytest.approx(len(train.vocabulary), rel=1e-12)
    assert row["library_perplexity"] is None or np.isnan(row["library_perplexity"])
    assert row["completion_perplexity"] < row["uniform_perplexity"]


def _vectors_file(path: Path, words, seed: int) -> Path:
    """Random 8-dimensional vectors for ``words`` in GloVe's text format (no header line)."""
    rng = np.random.default_rng(seed)
    path.write_text("".join(f"{w} {' '.join(f'{x:.6f}' for x in rng.normal(size=8))}\n" for w in words),
                    encoding="utf-8")
    return path


def test_sweep_stores_word_embedding_measures_of_the_given_vectors(tmp_path, run_cli):
    from tealeaves.comparison import read_vectors, we_irbo, we_similarity
    from tealeaves.errors import IncompatibleStoreError

    corpus = write_corpus(tmp_path / "c.txt")
    vectors = _vectors_file(tmp_path / "vec.txt", [f"w{i}" for i in range(40)], seed=3)
    out = tmp_path / "r.sqlite"
    run_cli(["sweep", str(corpus), "-k", "3", "--seeds", "1", "--vectors", str(vectors), "-o", str(out)])
    results = load_results(out)
    row = results.models.iloc[0]
    model = results.topic_model(row["name"])
    vec = read_vectors(vectors)  # every vector: the stored measures used the training words' only
    assert row["we_pairwise_similarity"] == pytest.approx(we_similarity(model, vec, 10).value, abs=1e-12)
    assert row["we_irbo"] == pytest.approx(we_irbo(model, vec, 10).value, abs=1e-12)
    assert "we_irbo" not in row["unavailable"]
    assert json.loads(sqlite3.connect(out).execute("SELECT value FROM meta WHERE key = 'sweep'").fetchone()[0]
                      )["vectors"] == f"vec@{read_vectors(vectors, words=results.vocabulary).checksum}"
    # resuming with other vectors would mix two sets of numbers in one store: refused
    other = _vectors_file(tmp_path / "vec.txt", [f"w{i}" for i in range(40)], seed=4)
    with pytest.raises(IncompatibleStoreError, match="differs in vectors"):
        sweep(Corpus.from_token_lists(lda_documents(), ids=[str(i) for i in range(1, 121)]), [3], 1,
              output=out, vectors=other, progress=False)


def test_evaluate_stores_word_embedding_measures_of_a_foreign_model(tmp_path):
    import tealeaves
    from tealeaves.comparison import WordVectors, we_similarity
    from tealeaves.sweep import evaluate

    corpus = lda_corpus()
    train, test = split_corpus(corpus, 0.2, 0)
    words = list(train.vocabulary) + ["elsewhere"]  # the model knows one word the corpus does not
    rng = np.random.default_rng(5)
    model = tealeaves.load_model(rng.dirichlet(np.ones(len(words)), size=3), vocabulary=words, alpha=0.5)
    vec = WordVectors(words, rng.normal(size=(len(words), 6)), "toy")
    evaluate({"m": model}, train, test, output=tmp_path / "e.sqlite", vectors=vec, progress=False)
    row = load_results(tmp_path / "e.sqlite").model("m")
    assert row["we_pairwise_similarity"] == pytest.approx(we_similarity(model, vec, 10).value, abs=1e-12)
