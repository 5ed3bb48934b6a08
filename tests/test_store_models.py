"""Models held in a results store as model sources: ``STORE#MODEL`` on the command line and
``tealeaves.load_model(STORE, model=...)``.

The store is a real one: ``tealeaves sweep --engine gensim`` on a slice of Reuters-21578 (400
training stories, 100 test stories).  A stored model gives the numbers the fitted model gives:
its topic-word rows and alpha equal a refit with the same seed, ``tealeaves perplexity
STORE#MODEL`` equals the completion perplexity the sweep stored (same test documents, split seed
and fold-in), and ``tealeaves coherence --topics STORE#MODEL`` equals the per-topic scores the
sweep stored against the same reference.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tealeaves
from tealeaves.cli import main

MODEL = "gensim-K5-s0"


def _cli(*argv) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], capture_output=True, text=True,
                         timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    return run


@pytest.fixture(scope="module")
def reuters_store(reuters, tmp_path_factory) -> Path:
    """``tealeaves sweep --engine gensim`` (K = 5, 10; seed 0) on 400 + 100 Reuters stories."""
    pytest.importorskip("gensim")
    train, test, _ = reuters
    root = tmp_path_factory.mktemp("store_models")
    for corpus, name, n in ((train, "train.txt", 400), (test, "test.txt", 100)):
        docs = [d for d in corpus.subset(list(range(n))).token_lists() if d]
        (root / name).write_text("".join(" ".join(d) + "\n" for d in docs), encoding="utf-8")
    argv = ["sweep", root / "train.txt", "--test", root / "test.txt", "--n-components", "5", "10",
            "--seeds", "1", "--engine", "gensim", "-o", root / "store.sqlite"]
    assert main([str(a) for a in argv]) == 0
    return root / "store.sqlite"


def _stored(store: Path, name: str) -> dict:
    """The model's row read with plain sqlite3 and numpy (independently of tealeaves.store)."""
    with sqlite3.connect(store) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        vocabulary = json.loads(meta["vocabulary"])
        k, measures, phi, alpha, loglik = db.execute(
            "SELECT k, measures, topic_word, alpha, doc_loglik FROM models WHERE name = ?", (name,)
        ).fetchone()
        scores = [json.loads(s) for (s,) in db.execute(
            "SELECT scores FROM topics WHERE model = ? ORDER BY topic", (name,))]
    return {"vocabulary": vocabulary, "measures": json.loads(measures), "scores": scores,
            "phi": np.frombuffer(phi, "<f8").reshape(k, len(vocabulary)),
            "alpha": np.frombuffer(alpha, "<f8"),
            "loglik": np.frombuffer(loglik, "<f8")}


def test_a_stored_model_is_the_fitted_model(reuters_store):
    from tealeaves.corpus.readers import read_corpus as _read
    from tealeaves.sweep.engines import get_engine

    engine = get_engine("gensim")
    fitted = engine.fit(_read(str(reuters_store.parent / "train.txt")), 5, 0, engine.settings(None))
    model = tealeaves.load_model(reuters_store, model=MODEL)
    assert list(model.vocabulary_) == list(fitted.vocabulary_)
    np.testing.assert_array_equal(model.topic_word_, fitted.topic_word_)
    np.testing.assert_array_equal(model.doc_topic_prior_, fitted.doc_topic_prior_)
    stored = _stored(reuters_store, MODEL)
    np.testing.assert_array_equal(model.topic_word_, stored["phi"])
    assert model.metadata_["source"]["file"] == str(reuters_store)
    assert model.metadata_["source"]["model"] == MODEL and model.description() == MODEL
    same = tealeaves.load_model(f"{reuters_store}#{MODEL}")
    np.testing.assert_array_equal(same.topic_word_, model.topic_word_)


def test_perplexity_of_store_model_equals_the_stored_value(reuters_store):
    from tealeaves.corpus.readers import read_corpus as _read
    from tealeaves.likelihood.completion import document_completion
    from tealeaves.sweep.engines import get_engine

    test_file = reuters_store.parent / "test.txt"
    run = _cli("perplexity", f"{reuters_store}#{MODEL}", test_file, "--tokenized", "--method", "completion",
               "--format", "json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    stored = _stored(reuters_store, MODEL)
    # the number the sweep stored for the same test documents, split seed (0) and fold-in
    assert out["perplexity"] == pytest.approx(stored["measures"]["completion_perplexity"], rel=1e-12)
    assert out["n_heldout_words"] == stored["measures"]["heldout_words"]
    assert out["log_likelihood"] == pytest.approx(float(stored["loglik"].sum()), rel=1e-12)
    # and the one the in-memory fitted model gives
    engine = get_engine("gensim")
    train = _read(str(reuters_store.parent / "train.txt"))
    fitted = engine.fit(train, 5, 0, engine.settings(None))
    test = _read(str(test_file), vocabulary=train.vocabulary)
    assert out["perplexity"] == pytest.approx(document_completion(fitted, test, seed=0).perplexity, rel=1e-12)


def test_coherence_of_store_model_topics_equals_the_stored_scores(reuters_store):
    run = _cli("coherence", "--reference", reuters_store.parent / "train.txt", "--topics",
               f"{reuters_store}#{MODEL}", "--measure", "npmi", "--format", "json")
    assert run.returncode == 0, run.stderr
    scores = [t["score"] for t in json.loads(run.stdout)["topics"]]
    expected = [s["npmi"] for s in _stored(reuters_store, MODEL)["scores"]]
    assert scores == pytest.approx(expected, rel=1e-12)


def test_build_study_from_a_store_model(reuters_store, tmp_path):
    from tealeaves.human.study import build_study
    from tealeaves.models.base import FixedTopicModel

    run = _cli("human", "build-study", f"{reuters_store}#{MODEL}", "-o", tmp_path / "s.json")
    assert run.returncode == 0, run.stderr
    stored = _stored(reuters_store, MODEL)
    independent = FixedTopicModel(stored["phi"], stored["vocabulary"], stored["alpha"],
                                  metadata={"description": MODEL})
    expected = build_study(independent, seed=0).to_dict()
    got = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert got["items"] == expected["items"]


def test_a_store_without_model_asks_for_one(reuters_store):
    run = _cli("human", "build-study", reuters_store, "-o", "never.json")
    assert run.returncode == 1
    assert run.stderr.splitlines() == [
        f"tealeaves: error: '{reuters_store}' is a results store holding 2 model(s); one is needed (models: "
        f"gensim-K5-s0, gensim-K10-s0) (add #MODEL to the path to choose one, e.g. "
        f"'{reuters_store}#gensim-K5-s0')"]


def test_the_training_recipe_is_recorded_and_carried_by_store_models(tmp_path):
    from tealeaves.corpus import Preprocessor
    from tealeaves.sweep import load_results, sweep
    from test_sweep_runs import lda_corpus

    corpus = lda_corpus(n_docs=40)
    recipe = Preprocessor(min_df=2).get_params()
    test = corpus.subset(list(range(30, 40)))
    corpus.preprocessing = recipe  # what a Preprocessor-made corpus carries
    sweep(corpus, [2], seeds=1, test=test, output=tmp_path / "s.sqlite", progress=False)
    assert load_results(tmp_path / "s.sqlite").preprocessing == recipe
    model = tealeaves.load_model(f"{tmp_path / 's.sqlite'}#sklearn-K2-s0")
    assert model.metadata_["preprocessing"] == recipe
    assert len(model.doc_topic_prior_) == 2
    plain = lda_corpus(n_docs=40)  # no recipe: None
    sweep(plain, [2], seeds=1, output=tmp_path / "p.sqlite", progress=False)
    assert load_results(tmp_path / "p.sqlite").preprocessing is None
    assert "preprocessing" not in tealeaves.load_model(tmp_path / "p.sqlite", model="sklearn-K2-s0").metadata_
