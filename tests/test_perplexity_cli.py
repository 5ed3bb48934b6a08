"""``tealeaves perplexity MODEL TEST --method ... --format json`` against the Python API."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves.cli import main
from tealeaves.corpus.readers import read_corpus
from tealeaves.likelihood import document_completion
from tealeaves.likelihood import estimators as E
from tealeaves.models.base import FixedTopicModel, load_model


@pytest.fixture
def files(tmp_path):
    """A saved K=3, V=10 model with asymmetric alpha and a token file with OOV words and an empty line."""
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(10, 0.3), size=3)
    vocab = [f"w{i}" for i in range(10)]
    model = FixedTopicModel(phi, vocab, np.array([0.3, 0.8, 1.5]))
    docs = [[vocab[i] for i in rng.choice(10, size=8, p=phi[k % 3])] for k in range(5)]
    lines = [" ".join(["oov1"] + d + ["oov2"]) for d in docs] + [""]
    test = tmp_path / "test.txt"
    test.write_text("\n".join(lines) + "\n")
    bare = FixedTopicModel(phi, vocab, None)
    return model.save(tmp_path / "model.npz"), bare.save(tmp_path / "bare.npz"), test, docs


def run(capsys, *argv):
    """Run ``tealeaves perplexity ARGV --tokenized`` (the fixture models record no preprocessing)."""
    try:
        code = main(["perplexity", *map(str, argv), "--tokenized"])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", E.METHODS)
def test_json_matches_python_api(files, capsys, method):
    model_path, _, test, docs = files
    code, out, _ = run(capsys, model_path, test, "--method", method, "--samples", 50, "--seed", 7,
                       *(["--temperatures", 30] if method == "ais" else []), "--format", "json")
    assert code == 0
    got = json.loads(out)
    model = load_model(model_path)
    options = {"ais": {"n_temperatures": 30}, "chib": {"n_chains": 4},
               "left-to-right": {"resample": True, "weighted": False}}.get(method, {})
    expected = E.estimate_log_likelihood(model, read_corpus(test, vocabulary=model.vocabulary_), method, 50,
                                         seed=7, **options)
    assert got["method"] == method
    assert got["log_likelihood"] == pytest.approx(expected.log_likelihood, rel=1e-12)
    assert got["n_words"] == 40 and got["n_documents"] == 6 and got["n_dropped_oov"] == 10
    assert got["signature"] == str(expected.signature)


def test_left_to_right_converges_to_exact_through_the_cli(files, capsys):
    model_path, _, test, docs = files
    model = load_model(model_path)
    phi, alpha = model.topic_word_, model.doc_topic_prior_
    exact = sum(E.exact_log_likelihood(model.vocabulary_.encode(d)[0], phi, alpha) for d in docs)
    code, out, _ = run(capsys, model_path, test, "--method", "left-to-right", "--weighted", "--particles",
                       4000, "--format", "json")
    got = json.loads(out)
    assert abs(got["log_likelihood"] - exact) < 4 * got["standard_error"] + 0.01
    assert got["perplexity"] == pytest.approx(np.exp(-got["log_likelihood"] / 40))


def test_completion_methods_share_the_split(files, capsys):
    model_path, _, test, _ = files
    model = load_model(model_path)
    corpus = read_corpus(test, vocabulary=model.vocabulary_)
    code, out, _ = run(capsys, model_path, test, "--method", "completion", "--split-seed", 3,
                       "--format", "json")
    point = json.loads(out)
    assert point["perplexity"] == pytest.approx(document_completion(model, corpus, seed=3).perplexity)
    code, out, _ = run(capsys, model_path, test, "--method", "left-to-right-completion", "--split-seed", 3,
                       "--format", "json")
    l2r = json.loads(out)
    assert l2r["n_words"] == point["n_heldout_words"] == 20
    assert l2r["n_dropped_oov"] == point["n_dropped_oov"] == 10


def test_text_output(files, capsys):
    model_path, _, test, _ = files
    code, out, _ = run(capsys, model_path, test, "--method", "is", "--samples", 10)
    assert code == 0 and "perplexity" in out and "standard_error" in out


def test_bad_input_is_reported_cleanly(files, capsys, tmp_path):
    model_path, bare_path, test, _ = files
    code, _, err = run(capsys, bare_path, test, "--method", "chib")
    assert code == 1 and "alpha" in err and "completion" in err
    code, out, _ = run(capsys, bare_path, test, "--method", "completion", "--format", "json")
    assert code == 0 and json.loads(out)["perplexity"] > 1
    code, _, err = run(capsys, model_path, test, "--particles", 0)
    assert code == 2 and "--n-samples must be a whole number >= 1, got 0" in err
    code, _, err = run(capsys, model_path, tmp_path / "missing.txt")
    assert code == 1 and "does not exist" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("oov only\n\n")
    code, _, err = run(capsys, model_path, empty, "--method", "is")
    assert code == 1 and "all 2 tokens are out of vocabulary" in err


def test_replicates_option_matches_python_api(files, capsys):
    model_path, _, test, _ = files
    code, out, _ = run(capsys, model_path, test, "--method", "chib", "--samples", 40, "--seed", 3,
                       "--replicates", 3, "--format", "json")
    assert code == 0
    got = json.loads(out)
    model = load_model(model_path)
    expected = E.estimate_log_likelihood(model, read_corpus(test, vocabulary=model.vocabulary_), "chib", 40,
                                         seed=3, replicates=3, n_chains=4)
    assert got["log_likelihood"] == pytest.approx(expected.log_likelihood, rel=1e-12)
    assert got["standard_error"] == pytest.approx(expected.standard_error, rel=1e-12)
    assert "replicates=3" in got["signature"]


@pytest.mark.parametrize("method", ["left-to-right", "left-to-right-completion", "is", "ais"])
def test_n_threads_gives_the_same_output(files, capsys, method):
    """``--n-threads 1`` and ``--n-threads 2`` print the same JSON (the numbers and the signature)."""
    model_path, _, test, _ = files
    extra = ["--temperatures", 20] if method == "ais" else []
    outputs = []
    for n in (1, 2):
        code, out, _ = run(capsys, model_path, test, "--method", method, "--samples", 30, "--seed", 5, *extra,
                           "--n-threads", n, "--format", "json")
        assert code == 0
        outputs.append(json.loads(out))
    assert outputs[0] == outputs[1] and "rng=" in outputs[0]["signature"]
