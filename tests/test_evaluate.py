"""``tealeaves.evaluate`` / ``tealeaves evaluate``: models fitted elsewhere, scored as a sweep scores its own.

The acceptance case (issue 24): a gensim ``LdaModel``, a tomotopy ``.bin`` (two runs of one
configuration), a MALLET Gibbs state, a scikit-learn ``NMF`` and (when bertopic is
installed) a BERTopic model, all fitted on the same Reuters training stories, go into one
store; the reduced version of ``benchmarks/evaluate_peers.py`` (its ``fit_peers``).

Every mapping between a model's own vocabulary and the evaluation's words is checked
against an independent recomputation: the test documents re-encoded in plain Python, the
top words read from the library's own arrays, dropped tokens counted over the token lists.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import tealeaves
from tealeaves.corpus import Corpus
from tealeaves.sweep.evaluation import MIN_TEST_COVERAGE, evaluate, on_training_words, score_row

pytestmark = pytest.mark.xdist_group("reuters")
pytest.importorskip("gensim")
pytest.importorskip("tomotopy")

K = 5


def _peers_module():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "evaluate_peers.py"
    spec = importlib.util.spec_from_file_location("evaluate_peers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def split(reuters):
    """The first 600 training and 200 test stories (vocabulary: the whole training set's)."""
    train, test, _ = reuters
    return train.subset(np.arange(600)), test.subset(np.arange(200))


@pytest.fixture(scope="module")
def peers(split, tmp_path_factory):
    folder = tmp_path_factory.mktemp("peers")
    return folder, _peers_module().fit_peers(split[0], K, folder, iterations=30)


@pytest.fixture(scope="module")
def store(split, peers):
    folder, models = peers
    out = folder / "results.sqlite"
    done = evaluate(models, train=split[0], test=split[1], output=out, progress=False)
    return out, done


def _rows(path) -> dict:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, k, engine, measures, topic_word FROM models").fetchall()
        topics = conn.execute("SELECT model, topic, top_words, scores, flags FROM topics").fetchall()
    out = {name: {"k": k, "engine": engine, "measures": json.loads(m), "topic_word": blob, "topics": {}}
           for name, k, engine, m, blob in rows}
    for model, topic, words, scores, flags in topics:
        out[model]["topics"][topic] = {"top_words": json.loads(words), "scores": json.loads(scores),
                                       "flags": json.loads(flags)}
    return out


def _nulls(measures: dict) -> set[str]:
    return {k for k, v in measures.items() if v is None}


def test_evaluate_puts_every_library_in_one_store(store, peers):
    path, done = store
    names = ["gensim", "tomotopy-r0", "tomotopy-r1", "mallet", "nmf"]
    if "bertopic" in peers[1]:
        names.append("bertopic")
    assert done["evaluated"] == names and done["skipped"] == []
    rows = _rows(path)
    assert sorted(rows) == sorted(names)
    assert {rows[n]["engine"] for n in names} >= {"gensim", "tomotopy", "mallet", "sklearn"}
    for name in names:
        m = rows[name]["measures"]
        assert _nulls(m) == set(m["unavailable"]), name  # every null has its reason, no reason without null
        assert all(isinstance(r, str) and len(r) > 20 for r in m["unavailable"].values())
        assert m["npmi"] is not None and len(rows[name]["topics"]) == rows[name]["k"]


def test_evaluate_nmf_has_no_likelihood_and_says_why(store):
    m = _rows(store[0])["nmf"]["measures"]
    for measure in ("completion_perplexity", "completion_loglik_per_word", "significance"):
        assert m[measure] is None
        assert "NMF is not a probabilistic model" in m["unavailable"][measure]
    assert m["unigram_perplexity"] > 1 and m["diversity"] is not None  # what applies is measured
    gensim = _rows(store[0])["gensim"]["measures"]  # same words: the same split, counted in the reason
    assert m["heldout_words"] is None
    assert f"scored on {gensim['heldout_words']} held-out words of {gensim['documents_split']} documents" \
        in m["unavailable"]["heldout_words"]


def test_evaluate_bertopic_has_no_likelihood_and_says_why(store, peers):
    if "bertopic" not in peers[1]:
        pytest.skip("bertopic is not installed (not in the test extras)")
    m = _rows(store[0])["bertopic"]["measures"]
    assert m["completion_perplexity"] is None
    assert "BERTopic is not a probabilistic model" in m["unavailable"]["completion_perplexity"]


def _reencoded(test: Corpus, model) -> Corpus:
    """``test`` over the model's words, rebuilt from the token lists in plain Python."""
    known = set(model.vocabulary_)
    return Corpus.from_token_lists([[w for w in doc if w in known] for doc in test.token_lists()],
                                   vocabulary=model.vocabulary_, ids=list(test.ids))


@pytest.mark.parametrize("name", ["gensim", "mallet", "tomotopy-r0"])
def test_evaluate_heldout_likelihood_over_the_words_the_model_knows(name, store, peers, split):
    from tealeaves.likelihood.completion import document_completion

    _, models = peers
    source = {"gensim": models["gensim"], "mallet": models["mallet"], "tomotopy-r0": models["tomotopy"][0]}
    model = tealeaves.load_model(source[name])
    m = _rows(store[0])[name]["measures"]
    test = split[1]
    # independent: count the dropped tokens and types over the token lists
    known = set(model.vocabulary_)
    tokens = [w for doc in test.token_lists() for w in doc]
    dropped = [w for w in tokens if w not in known]
    assert m["test_tokens_dropped"] == len(dropped) > 0  # the models know only the 600 stories' words
    assert m["test_types_dropped"] == len(set(dropped))
    assert m["test_tokens_known_share"] == pytest.approx(1 - len(dropped) / len(tokens), abs=1e-15)
    # independent: completion on the test documents re-encoded over the model's words by hand
    expected = document_completion(model, _reencoded(test, model), seed=0)
    assert m["completion_perplexity"] == pytest.approx(expected.perplexity, rel=1e-12)
    assert m["heldout_words"] == expected.n_heldout_words
    # the baselines are over the model's vocabulary: the uniform one is its size
    assert m["uniform_perplexity"] == pytest.approx(len(model.vocabulary_), rel=1e-12)


def test_evaluate_coherence_is_over_the_model_own_top_words(store, peers, split):
    from tealeaves.coherence import build_index, coherence

    lda = peers[1]["gensim"]
    stored = _rows(store[0])["gensim"]["topics"]
    reference = build_index(split[0], name="training-corpus")
    for k in range(K):
        phi = lda.get_topics()[k]  # gensim's own array, its own word ids
        ids = sorted(range(len(phi)), key=lambda i: (-phi[i], i))[:10]
        words = [lda.id2word[i] for i in ids]
        assert stored[k]["top_words"] == words
        expected = coherence([words], reference, measure="npmi", n_top=10).scores[0]
        assert stored[k]["scores"]["npmi"] == pytest.approx(expected, abs=1e-12)


def test_evaluate_stored_rows_over_training_words_when_only_the_order_differs(split):
    from tealeaves.models.base import FixedTopicModel
    from tealeaves.sweep.evaluation import evaluation_data

    words = list(split[0].vocabulary)
    rng = np.random.default_rng(1)
    order = rng.permutation(len(words))
    phi = rng.dirichlet(np.full(len(words), 0.1), size=3)
    shuffled = FixedTopicModel(phi, [words[i] for i in order], doc_topic_prior=np.full(3, 0.5))
    data, _ = evaluation_data(split[0], split[1], 0.2, 0, None, ("npmi",), 10, "evaluate")
    identity = {"name": "x", "k": 3, "seed": None, "engine": "array", "settings": {}, "fit_seconds": 0.0,
                "config": "x", "run": 0, "source": {"kind": "array"}}
    row = score_row(shuffled, data, identity)
    assert row["vocabulary"] is None  # the same words: stored over meta.vocabulary
    column = {words[i]: j for j, i in enumerate(order)}  # model column of each word, by hand
    for w in rng.choice(words, 50):
        np.testing.assert_array_equal(row["topic_word"][:, words.index(w)], phi[:, column[w]])
    assert row["config"] == "x" and row["run"] == 0 and row["source"] == {"kind": "array"}
    np.testing.assert_array_equal(row["alpha"], np.full(3, 0.5))


def test_evaluate_rows_of_a_model_without_probabilities_are_marked(split):
    from tealeaves.models.base import FixedTopicModel
    from tealeaves.sweep.evaluation import evaluation_data

    words = list(split[0].vocabulary)
    weights = np.random.default_rng(2).gamma(1.0, size=(3, len(words)))
    model = FixedTopicModel(None, words, topic_word_weights=weights)
    data, _ = evaluation_data(split[0], split[1], 0.2, 0, None, ("npmi",), 10, "evaluate")
    row = score_row(model, data, {"name": "w", "k": 3, "seed": None, "engine": "array", "settings": {},
                                  "fit_seconds": 0.0, "source": {"kind": "npz"}})
    assert row["source"] == {"kind": "npz", "probabilistic": False} and row["alpha"] is None
    np.testing.assert_allclose(row["topic_word"], weights / weights.sum(axis=1, keepdims=True), rtol=1e-15)
    assert row["measures"]["completion_perplexity"] is None


def test_evaluate_on_training_words_keeps_a_foreign_vocabulary():
    rows = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    out, vocab = on_training_words(rows, ["a", "b", "z"], ["b", "a", "c"])
    assert vocab == ["a", "b", "z"] and out is rows
    out, vocab = on_training_words(rows, ["a", "b", "c"], ["c", "a", "b"])
    assert vocab is None
    np.testing.assert_array_equal(out, rows[:, [2, 0, 1]])


def test_evaluate_rows_carry_configuration_run_and_source(split, peers):
    from tealeaves.sweep.evaluation import candidates, load_candidate

    _, models = peers
    chosen = candidates({"tomotopy": models["tomotopy"], "mallet": models["mallet"]})
    assert [(c.name, c.config, c.run) for c in chosen] == [
        ("tomotopy-r0", "tomotopy", 0), ("tomotopy-r1", "tomotopy", 1), ("mallet", "mallet", 0)]
    model, source = load_candidate(chosen[2])
    data = Path(models["mallet"]).read_bytes()
    import hashlib

    assert source == {"kind": "mallet", "path": str(Path(models["mallet"]).resolve()), "bytes": len(data),
                      "sha256": hashlib.sha256(data).hexdigest()}
    assert load_candidate(chosen[0])[1]["kind"] == "tomotopy"
    assert load_candidate(type(chosen[0])("g", "g", 0, models["gensim"]))[1] == {"kind": "gensim"}


def test_evaluate_engine_is_the_fitting_library_even_through_a_saved_file(peers, tmp_path):
    from tealeaves.sweep.evaluation import Candidate, engine_of, load_candidate

    path = peers[1]["nmf"].save(tmp_path / "nmf.npz")
    model, source = load_candidate(Candidate("nmf", "nmf", 0, str(path)))
    assert source["kind"] == "npz" and engine_of(model, source) == "sklearn"
    model, source = load_candidate(Candidate("m", "m", 0, peers[1]["mallet"]))
    assert engine_of(model, source) == "mallet"


def test_evaluate_rerun_skips_stored_models_and_refuses_another_under_a_stored_name(store, peers, split):
    from tealeaves.errors import ParameterError

    path, _ = store
    _, models = peers
    again = evaluate({"mallet": models["mallet"]}, train=split[0], test=split[1], output=path, progress=False)
    assert again["skipped"] == ["mallet"] and again["evaluated"] == []
    with pytest.raises(ParameterError, match="another model named 'mallet'"):
        evaluate({"mallet": models["gensim"]}, train=split[0], test=split[1], output=path, progress=False)


def test_evaluate_cli_scores_paths_groups_and_manifests(peers, split, tmp_path, run_cli):
    folder, models = peers
    train_file, test_file = tmp_path / "train.txt", tmp_path / "test.txt"
    for corpus, file in ((split[0], train_file), (split[1], test_file)):
        file.write_text("\n".join(" ".join(d) for d in corpus.token_lists()) + "\n", encoding="utf-8")
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'mallet = "{models["mallet"]}"\n', encoding="utf-8")
    out = tmp_path / "cli.sqlite"
    run = run_cli(["evaluate", str(train_file), f"gensim={folder / 'gensim-lda'}",
                   "--group", f"tp={','.join(models['tomotopy'])}", "--manifest", str(manifest),
                   "--test", str(test_file), "-o", str(out), "--format", "json"])
    assert run.code == 0, run.err
    assert json.loads(run.out)["evaluated"] == ["gensim", "tp-r0", "tp-r1", "mallet"]
    rows = _rows(out)
    # the command line reads the same words as the API: the same numbers
    for cli_name, api_name in (("tp-r0", "tomotopy-r0"), ("mallet", "mallet")):
        model = tealeaves.load_model(models["tomotopy"][0] if api_name.startswith("tomotopy")
                                     else models["mallet"])
        expected = _reencoded(split[1], model)
        assert rows[cli_name]["measures"]["heldout_words"] == sum(
            len(d) - len(d) // 2 for d in expected.token_lists() if len(d) >= 2)


def test_evaluate_refuses_a_model_that_knows_too_little_of_the_test_data(split, tmp_path):
    from tealeaves.errors import IncomparableError
    from tealeaves.models.base import FixedTopicModel

    counts = np.bincount(split[1].tokens, minlength=len(split[1].vocabulary))
    rare = [split[1].vocabulary[i] for i in np.argsort(counts)[:200]]  # the test's rarest words only
    model = FixedTopicModel(np.full((2, len(rare)), 1 / len(rare)), rare, doc_topic_prior=np.ones(2))
    with pytest.raises(IncomparableError, match=f"at least {MIN_TEST_COVERAGE:.0%} are needed"):
        evaluate({"rare": model}, train=split[0], test=split[1], output=tmp_path / "never.sqlite",
                 progress=False)
    assert not (tmp_path / "never.sqlite").exists()


def test_evaluate_store_reads_back_and_reports_every_model_with_its_reasons(store, split, tmp_path, run_cli):
    """The third command of the acceptance path: the store of foreign models is read back whole
    (validated), and ``tealeaves report`` gives one page and one JSON over every model, with the
    reason of each measure that does not apply and no NaN anywhere."""
    from tealeaves.sweep import load_results

    path, done = store
    results = load_results(path)
    assert sorted(results.models["name"]) == sorted(done["evaluated"])
    assert set(results.models["config"]) >= {"gensim", "tomotopy", "mallet", "nmf"}
    assert results.models.set_index("name").loc["tomotopy-r1", "run"] == 1
    html = run_cli(["report", str(path), "-o", str(tmp_path / "r.html")])
    assert html.code == 0, html.err
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "NMF is not a probabilistic model" in page
    # no NaN shown: "nan" as a word (inside a topic word such as "financial" it is no NaN); the
    # vocabulary has no word "nan", so a hit can only be a number
    assert "nan" not in split[0].vocabulary
    assert not re.search(r"\bnan\b", page.lower().split("<script")[0])
    out = run_cli(["report", str(path), "--format", "json"])
    assert out.code == 0, out.err
    data = json.loads(out.out)  # strict JSON: a NaN would not parse back as a number here
    models = {m["name"]: m for m in data["models"]}
    assert models["nmf"]["completion_perplexity"] is None
    assert "NMF is not a probabilistic model" in models["nmf"]["unavailable"]["completion_perplexity"]
    assert models["gensim"]["completion_perplexity"] == results.model("gensim")["completion_perplexity"]
