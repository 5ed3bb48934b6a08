"""Bad and edge inputs of ``tealeaves perplexity`` and the held-out likelihood API.

Each case asserts the exact outcome: exit status + ``tealeaves: error:`` + a fragment (CLI,
in-process through ``cli_error``), a :class:`~tealeaves.errors.TealeavesError` subclass + a
fragment (API), or a documented value.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from tealeaves.corpus import Corpus, Preprocessor
from tealeaves.errors import EmptyInputError, InputFormatError, InvalidModelError, ParameterError
from tealeaves.likelihood import baselines, document_completion
from tealeaves.likelihood import estimators as E
from tealeaves.models import LSI, FixedTopicModel, SklearnLDA

WORDS = [f"w{i}" for i in range(8)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Saved models (with alpha, without alpha, LSI, with recorded preprocessing) and test files."""
    root = tmp_path_factory.mktemp("likelihood")
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.ones(8), size=2)
    paths = {
        "model": FixedTopicModel(phi, WORDS, 0.5).save(root / "model.npz"),
        "bare": FixedTopicModel(phi, WORDS).save(root / "bare.npz"),
    }
    docs = [list(rng.choice(WORDS, size=6)) for _ in range(8)]
    corpus = Corpus.from_token_lists(docs, FixedTopicModel(phi, WORDS).vocabulary_)
    corpus.metadata["preprocessing"] = Preprocessor(stop_words=None).get_params()
    paths["lsi"] = LSI(2).fit(corpus).save(root / "lsi.npz")
    lda = SklearnLDA(2, random_state=0, max_iter=3).fit(corpus)
    paths["lda"] = lda.save(root / "lda.npz")
    for name, change in {
        "custom-tokenizer": {"preprocessing": {**lda.metadata_["preprocessing"], "tokenizer": "my_split"}},
        "bad-recipe": {"preprocessing": {**lda.metadata_["preprocessing"], "lowercase": "yes"}},
        "bad-inference": {"inference": {**lda.metadata_["inference"], "topic_word_totals": [1.0]}},
    }.items():
        paths[name] = FixedTopicModel(lda.topic_word_, WORDS, lda.doc_topic_prior_,
                                      metadata={**lda.metadata_, **change}).save(root / f"{name}.npz")
    texts = {
        "tokens.txt": "\n".join(" ".join(d) for d in docs) + "\n",
        "oov.txt": "aa bb cc\ndd ee\n",
        "short.txt": "w1\nw2 zz\nw3\n",
        "empty.txt": "",
        "bad.jsonl": '{"text": "w1 w2"}\n{"text": \n',
        "nofield.jsonl": '{"body": "w1 w2"}\n',
        "number.jsonl": '{"text": 17}\n',
        "garbage.npz": "not a model",
    }
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8")
    for name, weights, alpha, extra in [
        ("nan-phi.npz", np.where(np.arange(8) == 3, np.nan, phi), [0.5, 0.5], {}),
        ("neg-alpha.npz", phi, [0.5, -1.0], {}),
        ("nan-total.npz", lda.topic_word_, [0.5, 0.5],
         {"inference": {**lda.metadata_["inference"], "topic_word_totals": [float("nan"), 1.0]}}),
    ]:
        _write_model(root / name, weights, alpha, extra)
    bad_folder = root / "bad-folder"
    bad_folder.mkdir()
    (bad_folder / "a.txt").write_bytes("w1 w2 caf\u00e9".encode("latin-1"))
    (root / "latin.txt").write_bytes("w1 w2\nw3 caf\u00e9\n".encode("latin-1"))
    (root / "empty-folder").mkdir()
    names = [*texts, "latin.txt", "empty-folder", "bad-folder", "nan-phi.npz", "neg-alpha.npz",
             "nan-total.npz"]
    return {**paths, **{name: root / name for name in names}}


def _write_model(path, weights, alpha, metadata: dict) -> None:
    """A model file written by hand (``TopicModel.save`` refuses to build such a model)."""
    meta = {"format": "tealeaves-model", "format_version": 1, "class": "FixedTopicModel", "vocabulary": WORDS,
            "probabilistic": True, "metadata": metadata}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), topic_word_weights=np.asarray(weights),
                        doc_topic_prior=np.asarray(alpha, dtype=np.float64))


# -- CLI: option values (usage errors, exit 2) -----------------------------------------------------
@pytest.mark.parametrize("option, value, fragment", [
    ("--samples", "0", "--n-samples must be a whole number >= 1, got 0"),
    ("--samples", "1.5", "--n-samples must be a whole number >= 1"),
    ("--samples", "nan", "--n-samples must be a whole number >= 1"),
    ("--particles", "-3", "--n-samples must be a whole number >= 1, got -3"),
    ("--temperatures", "1", "--n-temperatures must be a whole number >= 2, got 1"),
    ("--temperatures", "inf", "--n-temperatures must be a whole number >= 2"),
    ("--chains", "0", "--n-chains must be a whole number >= 1, got 0"),
    ("--replicates", "0", "--replicates must be a whole number >= 1, got 0"),
    ("--replicates", "2.0", "--replicates must be a whole number >= 1"),
    ("--seed", "-1", "seed must be a whole number >= 0 and <= 4294967295, got -1"),
    ("--seed", "4294967296", "seed must be a whole number >= 0"),
    ("--seed", "1e3", "seed must be a whole number"),
    ("--split-seed", "abc", "seed must be a whole number"),
    ("--method", "magic", "invalid choice: 'magic'"),
    ("--n-threads", "0", "--n-threads must be a whole number >= 1 and <= 256, got 0"),
    ("--n-threads", "-2", "--n-threads must be a whole number >= 1 and <= 256, got -2"),
    ("--n-threads", "257", "--n-threads must be a whole number >= 1 and <= 256, got 257"),
    ("--n-threads", "1.5", "--n-threads must be a whole number >= 1"),
    ("--n-threads", "all", "--n-threads must be a whole number >= 1"),
])
def test_option_values_are_usage_errors(files, cli_error, option, value, fragment):
    cli_error(["perplexity", files["model"], files["tokens.txt"], "--tokenized", option, value], fragment,
              code=2)


# -- CLI: inputs (exit 1) --------------------------------------------------------------------------------
@pytest.mark.parametrize("model, test, extra, fragment", [
    ("model", "missing.txt", ["--tokenized"], "does not exist"),
    ("missing.npz", "tokens.txt", ["--tokenized"], "missing.npz"),
    ("garbage.npz", "tokens.txt", ["--tokenized"], "is not a tealeaves model file"),
    ("model", "empty-folder", ["--tokenized"], "no file matching"),
    ("model", "empty.txt", ["--tokenized"], "holds no line (no document)"),
    ("model", "oov.txt", ["--tokenized"], "share no word with the model's vocabulary (all 5 tokens are out"),
    ("model", "oov.txt", ["--tokenized"], "(encode them with the preprocessor (and vocabulary) the model"),
    ("model", "short.txt", ["--tokenized", "--method", "completion"], "no test document has at least 2"),
    ("model", "latin.txt", ["--tokenized"], "is not valid utf-8: byte 0xe9 at line 2"),
    ("model", "latin.txt", ["--tokenized"], "--encoding latin-1"),
    ("model", "tokens.txt", ["--tokenized", "--encoding", "klingon"], "unknown encoding 'klingon'"),
    ("model", "bad.jsonl", ["--tokenized"], "line 2: malformed JSON"),
    ("model", "nofield.jsonl", ["--tokenized"], "field 'text' is missing (fields present: body)"),
    ("model", "nofield.jsonl", ["--tokenized", "--text-field", "title"], "field 'title' is missing"),
    ("model", "number.jsonl", ["--tokenized"], "field 'text' must be a string, got int"),
    ("model", "tokens.txt", [], "the model records no preprocessing"),
    ("model", "tokens.txt", [], "pass --tokenized if it holds whitespace-separated tokens"),
    ("bare", "tokens.txt", ["--tokenized", "--method", "chib"], "no Dirichlet prior alpha"),
    ("bare", "tokens.txt", ["--tokenized", "--method", "left-to-right-completion"], "--method completion"),
    ("lsi", "tokens.txt", ["--method", "completion"], "has no topic-word probabilities"),
    ("lsi", "tokens.txt", ["--method", "is"], "has no topic-word probabilities"),
    ("custom-tokenizer", "tokens.txt", [], "tokenizer 'my_split', which tealeaves cannot rebuild"),
    ("bad-recipe", "tokens.txt", [], "setting lowercase is 'yes' (str); expected true or false"),
    ("bad-inference", "tokens.txt", ["--tokenized", "--method", "completion"],
     "topic_word_totals [1.0]; expected 2"),
    ("model", "tokens.txt", ["--tokenized", "--method", "completion", "--samples", "5"],
     "--n-samples does not apply to --method completion"),
    ("model", "tokens.txt", ["--tokenized", "--method", "left-to-right-completion", "--replicates", "3"],
     "--replicates does not apply to --method left-to-right-completion (it is used by --method"),
    ("model", "tokens.txt", ["--tokenized", "--method", "is", "--temperatures", "30"],
     "--n-temperatures does not apply to --method is"),
    ("model", "tokens.txt", ["--tokenized", "--method", "ais", "--chains", "3"],
     "--n-chains does not apply to --method ais"),
    ("model", "tokens.txt", ["--tokenized", "--method", "chib", "--weighted"],
     "--weighted does not apply to --method chib"),
    ("model", "tokens.txt", ["--tokenized", "--method", "hm", "--no-resample"],
     "--no-resample does not apply to --method hm"),
    ("model", "tokens.txt", ["--tokenized", "--method", "completion", "--n-threads", "2"],
     "--n-threads does not apply to --method completion"),
    ("nan-total.npz", "tokens.txt", ["--tokenized", "--method", "completion"],
     "topic_word_totals [nan, 1.0]; expected 2 positive finite numbers"),
    ("nan-phi.npz", "tokens.txt", ["--tokenized"], "topic_word_ has NaN or infinite values in topic 0"),
    ("neg-alpha.npz", "tokens.txt", ["--tokenized"], "doc_topic_prior_ (alpha) must be positive and finite"),
    ("model", "bad-folder", ["--tokenized"], "is not valid utf-8"),
])
def test_bad_inputs_are_errors(files, cli_error, model, test, extra, fragment):
    model_path = files.get(model, files["model"].parent / model)
    test_path = files.get(test, files["model"].parent / test)
    cli_error(["perplexity", model_path, test_path, *extra], fragment)


@pytest.mark.parametrize("suffix", [".txt", ".jsonl"])
def test_a_byte_order_mark_is_removed_not_glued_to_the_first_word(files, run_cli, tmp_path, suffix):
    """Documented value: UTF-8 with a BOM reads exactly as without it (lines and JSON Lines)."""
    lines = files["tokens.txt"].read_text().splitlines()
    if suffix == ".jsonl":
        lines = [json.dumps({"text": line}) for line in lines]
    plain, bom = tmp_path / f"plain{suffix}", tmp_path / f"bom{suffix}"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    results = []
    for path in (plain, bom):
        r = run_cli(["perplexity", files["model"], path, "--tokenized", "--method", "is",
                     "--format", "json"])
        assert r.code == 0
        results.append(json.loads(r.out))
    assert results[0]["log_likelihood"] == results[1]["log_likelihood"]
    assert results[1]["n_dropped_oov"] == 0


def test_latin1_is_read_with_encoding(files, run_cli):
    r = run_cli(["perplexity", files["model"], files["latin.txt"], "--tokenized", "--encoding", "latin-1",
                 "--method", "is", "--format", "json"])
    assert r.code == 0
    got = json.loads(r.out)
    assert (got["n_tokens_scored"], got["n_dropped_oov"]) == (3, 1)  # 'café' is not a model word


def test_blank_lines_are_empty_documents_that_contribute_zero(files, run_cli, tmp_path):
    """Documented value: an empty document contributes 0 and is counted; completion skips it."""
    path = tmp_path / "blank.txt"
    path.write_text(files["tokens.txt"].read_text() + "\n\n")
    a = json.loads(run_cli(["perplexity", files["model"], files["tokens.txt"], "--tokenized", "--method",
                            "is", "--format", "json"]).out)
    b = json.loads(run_cli(["perplexity", files["model"], path, "--tokenized", "--method", "is",
                            "--format", "json"]).out)
    assert b["log_likelihood"] == a["log_likelihood"] and b["n_documents"] == a["n_documents"] + 2
    c = json.loads(run_cli(["perplexity", files["model"], path, "--tokenized", "--method", "completion",
                            "--format", "json"]).out)
    assert c["n_skipped_too_short"] == 2


# -- API ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api():
    rng = np.random.default_rng(1)
    model = FixedTopicModel(rng.dirichlet(np.ones(8), size=2), WORDS, 0.5)
    corpus = Corpus.from_token_lists([list(rng.choice(WORDS, size=5)) for _ in range(4)], model.vocabulary_)
    return model, corpus


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("call, fragment", [
    (lambda m, c: document_completion(m, c, seed=1.5), "split seed must be a whole number"),
    (lambda m, c: document_completion(m, c, seed=True), "split seed must be a whole number"),
    (lambda m, c: document_completion(m, c, seed=-1), "split seed must be a whole number >= 0"),
    (lambda m, c: document_completion(m, c, seed=None), "split seed must be a whole number"),
    (lambda m, c: document_completion(m, c, min_length=1), "min_length must be a whole number >= 2, got 1"),
    (lambda m, c: document_completion(m, c, min_length=2.0), "min_length must be a whole number >= 2"),
    (lambda m, c: document_completion(m, [["w1", "w2"]]), "the test documents must be a tealeaves Corpus"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", NAN), "n_samples must be a whole number >= 1"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", INF), "n_samples must be a whole number >= 1"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", True), "n_samples must be a whole number >= 1"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", 5.0), "n_samples must be a whole number >= 1"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "left-to-right", 0), "n_particles must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", replicates=0), "replicates must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", replicates=2.0), "replicates must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", seed=NAN), "seed must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", seed=-5), "seed must be a whole number >= 0"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "left-to-right", resample="no"),
     "resample must be True or False, got 'no'"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "left-to-right", weighted=1), "weighted must be True or"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "ais", n_temperatures=1), "n_temperatures must be a whole "
                                                                            "number >= 2, got 1"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "ais", n_temperatures=NAN), "n_temperatures must be"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "chib", n_chains=0), "n_chains must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "hm", burn_in=-1), "burn_in must be a whole number >= 0"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", n_chains=3), "unknown option(s) ['n_chains']"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "magic"), "unknown estimator 'magic'"),
    (lambda m, c: E.estimate_log_likelihood(m, c, None), "unknown estimator None"),
    (lambda m, c: E.left_to_right_completion(m, c, 0), "n_particles must be a whole number >= 1"),
    (lambda m, c: E.left_to_right_completion(m, c, split_seed=2.5), "split seed must be a whole number"),
    (lambda m, c: E.left_to_right_completion(m, c, weighted="yes"), "weighted must be True or False"),
    (lambda m, c: E.left_to_right_completion(m, c, min_length=0), "min_length must be a whole number >= 2"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", n_threads=0), "n_threads must be a whole number >="),
    (lambda m, c: E.estimate_log_likelihood(m, c, "chib", n_threads=-1), "n_threads must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "ais", n_threads=2.5), "n_threads must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "hm", n_threads=True), "n_threads must be a whole number"),
    (lambda m, c: E.estimate_log_likelihood(m, c, "is", n_threads="2"), "n_threads must be a whole number"),
    (lambda m, c: E.left_to_right_completion(m, c, n_threads=0), "n_threads must be a whole number >= 1"),
    (lambda m, c: E.left_to_right(m.topic_word_, np.full(2, 0.5), c, n_threads=NAN),
     "n_threads must be a whole number"),
    (lambda m, c: baselines(c, c, smoothing=NAN), "smoothing must be a finite number"),
    (lambda m, c: baselines(c, c, smoothing=-1), "smoothing must be a number >= 0"),
    (lambda m, c: baselines(c, c, smoothing=True), "smoothing must be a number"),
    (lambda m, c: baselines(c, c, seed=1.5), "split seed must be a whole number"),
    (lambda m, c: baselines(c, c, model=m, vocabulary=Corpus.from_token_lists([["zz"]]).vocabulary),
     "vocabulary differs from the model's vocabulary"),
    (lambda m, c: baselines(c, c, model="model.npz"), "model must be a fitted tealeaves model"),
])
def test_api_parameters_are_refused(api, call, fragment):
    model, corpus = api
    with pytest.raises(ParameterError) as info:
        call(model, corpus)
    assert fragment in str(info.value)


def test_all_oov_test_set_is_an_error_naming_the_fix(api):
    model, _ = api
    with pytest.raises(EmptyInputError, match=r"share no word with the model's vocabulary \(all 3 tokens"):
        document_completion(model, Corpus.from_token_lists([["xx", "yy"], ["zz"]]))
    with pytest.raises(EmptyInputError, match="encode them with the preprocessor"):
        document_completion(model, Corpus.from_token_lists([["xx", "yy"]], model.vocabulary_))
    with pytest.raises(EmptyInputError, match="share no word"):
        E.estimate_log_likelihood(model, Corpus.from_token_lists([["xx", "yy"]]), "is")
    test = Corpus.from_token_lists([["w1", "w2", "w3"]], model.vocabulary_)
    with pytest.raises(EmptyInputError, match=r"the training documents share no word .*\(all 2 tokens"):
        baselines(Corpus.from_token_lists([["xx", "yy"]]), test, model=model)


@pytest.mark.parametrize("params, error, fragment", [
    ("english", InputFormatError, "is a str, not a Preprocessor's settings"),
    ({"token_pattern": "x"}, InputFormatError, "missing: lowercase, stop_words"),
    ({**Preprocessor().get_params(), "stemmer": "porter"}, InputFormatError, "unknown keys: stemmer"),
    ({**Preprocessor().get_params(), "token_pattern": "(["}, InputFormatError, "not a valid regular"),
    ({**Preprocessor().get_params(), "stop_words": "french"}, InputFormatError, "expected \"english\", null"),
    ({**Preprocessor().get_params(), "min_df": NAN}, InputFormatError, "setting min_df is nan"),
])
def test_recorded_preprocessing_is_validated(params, error, fragment):
    with pytest.raises(error) as info:
        Preprocessor.from_params(params)
    assert fragment in str(info.value)


def test_one_replicate_keeps_the_runs_own_standard_error(api):
    """Documented values: R = 1 -> delta method over the run's samples; R >= 2 -> spread of the runs;
    one particle -> no standard error (None), never NaN."""
    model, corpus = api
    one = E.estimate_log_likelihood(model, corpus, "is", 50, seed=2)
    two = E.estimate_log_likelihood(model, corpus, "is", 50, seed=2, replicates=2)
    single = E.estimate_log_likelihood(model, corpus, "left-to-right", 1, seed=2)
    assert one.to_dict()["standard_error_from"] == "delta-method" and one.standard_error > 0
    assert two.to_dict()["standard_error_from"] == "replicates" and two.standard_error > 0
    assert single.standard_error is None and single.to_dict()["standard_error_from"] is None


def test_a_loaded_model_with_a_broken_inference_record_is_refused(files):
    from tealeaves.models import load_model

    model = load_model(files["bad-inference"])
    corpus = Corpus.from_token_lists([["w1", "w2", "w3"]], model.vocabulary_)
    with pytest.raises(InvalidModelError, match="re-save the model"):
        document_completion(model, corpus)


_PLSA = {"method": "plsa-fold-in", "max_iter": 50, "tol": 0.0}
_LDA = {"method": "sklearn-e-step", "topic_word_totals": [3.0, 4.0], "doc_topic_prior": 0.5,
        "max_doc_update_iter": 100, "mean_change_tol": 1e-3}


@pytest.mark.parametrize("record, fragment", [
    ({**_PLSA, "max_iter": 0}, "max_iter=0; expected a positive whole number"),
    ({**_PLSA, "max_iter": 2.0}, "max_iter=2.0; expected a positive whole number"),
    ({**_PLSA, "max_iter": True}, "max_iter=True; expected a positive whole number"),
    ({**_PLSA, "tol": -1e-9}, "tol=-1e-09; expected a non-negative finite number"),
    ({**_PLSA, "tol": float("inf")}, "tol=inf; expected a non-negative finite number"),
    ({**_LDA, "doc_topic_prior": 0}, "doc_topic_prior=0; expected a positive finite number"),
    ({**_LDA, "doc_topic_prior": "0.5"}, "doc_topic_prior='0.5'; expected a positive finite number"),
    ({**_LDA, "topic_word_totals": [3.0, 0.0]}, "expected 2 positive finite numbers"),
    ({**_LDA, "mean_change_tol": None}, "mean_change_tol=None; expected a non-negative finite number"),
])
def test_malformed_recorded_inference_is_refused(record, fragment):
    """A model file's inference record is checked before use (tealeaves.validation's rules)."""
    model = FixedTopicModel(np.full((2, 3), 1 / 3), ["a", "b", "c"], 0.5, metadata={"inference": record})
    with pytest.raises(InvalidModelError, match=re.escape(fragment)):
        model.transform(Corpus.from_token_lists([["a", "b"]], model.vocabulary_))


def test_a_valid_recorded_inference_is_used():
    """The boundary cases that are valid (tol 0, a whole max_iter) pass and give proportions."""
    model = FixedTopicModel(np.full((2, 3), 1 / 3), ["a", "b", "c"], 0.5, metadata={"inference": _PLSA})
    theta = model.transform(Corpus.from_token_lists([["a", "b"]], model.vocabulary_))
    assert theta.shape == (1, 2) and np.allclose(theta.sum(axis=1), 1.0)
