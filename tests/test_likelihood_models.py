"""The same words, always; raw text tokenised as the model records; save/load scores exactly as before.

Every expected value is an independent recomputation from the documents (plain Python
over word strings), not a number copied from a previous run.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from tealeaves.cli import main
from tealeaves.corpus import Corpus, Preprocessor, Vocabulary
from tealeaves.errors import InvalidModelError
from tealeaves.likelihood import baselines, document_completion, score_words
from tealeaves.likelihood import estimators as E
from tealeaves.models import LSI, PLSA, FixedTopicModel, SklearnLDA, load_model
from tealeaves.reproduce.reuters import reuters_table
from tealeaves.signature import Signature

TOPICS = [
    ["ship", "boat", "ocean", "harbour", "sail", "crew", "voyage", "anchor"],
    ["bank", "money", "loan", "credit", "interest", "market", "stock", "trade"],
    ["grain", "wheat", "corn", "harvest", "farm", "crop", "rain", "soil"],
]
NOISE = ["The", "a", "of", "and", "is", "1987", "U.S.", "--", "it's"]


def _texts(seed: int, n: int, unknown: tuple[str, ...] = ()) -> list[str]:
    """Raw documents: capitalised topic words, stop words, numbers, punctuation and ``unknown`` words."""
    rng = np.random.default_rng(seed)
    texts = []
    for d in range(n):
        words = list(rng.choice(TOPICS[d % 3], size=int(rng.integers(6, 16)))) + list(rng.choice(NOISE, 5))
        words += list(unknown[: d % (len(unknown) + 1)])
        rng.shuffle(words)
        texts.append(" ".join(w.capitalize() if i % 4 == 0 else w for i, w in enumerate(words)) + ".")
    return texts


@pytest.fixture(scope="module")
def fitted():
    """A preprocessor fitted on raw training text and the three tealeaves models fitted on its corpus."""
    pre = Preprocessor(min_df=2)
    train = pre.fit_transform(_texts(0, 60))
    return pre, train, {
        "sklearn": SklearnLDA(3, random_state=0, max_iter=15).fit(train),
        "plsa": PLSA(3, n_restarts=2, max_iter=200, random_state=0).fit(train),
        "lsi": LSI(2).fit(train),
    }


def _split_by_hand(docs: list[list[str]], seed: int) -> list[list[str]]:
    """The held-out halves, recomputed: one permutation per document of >= 2 words, n - n // 2 kept."""
    rng = np.random.default_rng(seed)
    held = []
    for doc in docs:
        if len(doc) >= 2:
            perm = rng.permutation(len(doc))
            held.append([doc[i] for i in sorted(perm[len(doc) // 2:])])
    return held


# -- 1. the same words ----------------------------------------------------------------------------
def test_baselines_use_the_model_vocabulary_and_its_heldout_words():
    """Test and training vocabularies differ from the model's: the baselines still score its words."""
    rng = np.random.default_rng(3)
    full = [f"w{i}" for i in range(12)]
    known = full[:8]  # the model knows 8 of the 12 words
    train_docs = [list(rng.choice(full, size=20)) for _ in range(30)]
    test_docs = [list(rng.choice(full + ["zzz", "qqq"], size=int(n))) for n in rng.integers(0, 14, size=15)]
    model = FixedTopicModel(rng.dirichlet(np.ones(8), size=2), known, 0.5)
    train = Corpus.from_token_lists(train_docs)  # its own (larger) vocabulary
    test = Corpus.from_token_lists(test_docs)  # its own vocabulary, with words nobody knows
    result = document_completion(model, test, seed=4)
    base = baselines(train, test, seed=4, model=model)

    kept = [[w for w in doc if w in known] for doc in test_docs]
    held = _split_by_hand(kept, 4)
    n_held = sum(map(len, held))
    counts = Counter(w for doc in train_docs for w in doc if w in known)
    n_train = sum(counts.values())
    unigram_ll = sum(math.log((counts[w] + 1) / (n_train + 8)) for doc in held for w in doc)
    assert result.n_heldout_words == n_held
    for b in base.values():
        assert (b.n_heldout_words, b.n_documents_split, b.n_dropped_oov) == (
            n_held, len(held), result.n_dropped_oov)
    assert base["uniform"].perplexity == pytest.approx(8, rel=1e-12)
    assert base["unigram"].log_likelihood == pytest.approx(unigram_ll, rel=1e-12)
    assert result.n_dropped_oov == sum(len(d) for d in test_docs) - sum(map(len, kept))


def test_reuters_table_scores_baselines_on_the_models_words():
    """reuters_table with a model whose vocabulary (30 words) is not the training corpus's (30 words).

    The model knows 20 of the corpus's words and 10 others.  Before the fix the baselines were
    scored on every test word of the training vocabulary (more held-out words than the model's)
    and scikit-learn's perplexity read the test counts through the wrong columns.
    """
    rng = np.random.default_rng(5)
    words = [f"w{i:02d}" for i in range(30)]
    train_docs = [list(rng.choice(words, size=25)) for _ in range(40)]
    test_docs = [list(rng.choice(words, size=int(n))) for n in rng.integers(1, 20, size=20)]
    train = Corpus.from_token_lists(train_docs, Vocabulary(words))
    test = Corpus.from_token_lists(test_docs, Vocabulary(words))
    known = Vocabulary([f"m{i}" for i in range(10)] + words[:20])
    model = SklearnLDA(2, random_state=0, max_iter=5).fit(Corpus.from_token_lists(train_docs, known))
    row = reuters_table([2], corpora=(train, test), models={2: model}, progress=None)["rows"][0]

    kept = [[w for w in doc if w in known] for doc in test_docs]
    held = _split_by_hand(kept, 0)
    assert row["heldout_words"] == sum(map(len, held))
    assert row["uniform_perplexity"] == pytest.approx(30, rel=1e-12) and row["vocabulary_size"] == 30
    counts = Counter(w for doc in train_docs for w in doc if w in known)
    ll = sum(math.log((counts[w] + 1) / (sum(counts.values()) + 30)) for doc in held for w in doc)
    assert row["unigram_perplexity"] == pytest.approx(math.exp(-ll / row["heldout_words"]), rel=1e-12)
    assert row["sklearn_perplexity"] == pytest.approx(
        model.estimator_.perplexity(Corpus.from_token_lists(kept, known).counts), rel=1e-12)
    assert row["sklearn_words"] == sum(map(len, kept))
    assert row["n_dropped_oov"] == sum(map(len, test_docs)) - sum(map(len, kept))


def test_every_result_states_dropped_and_scored_tokens():
    phi = np.random.default_rng(1).dirichlet(np.ones(4), size=2)
    model = FixedTopicModel(phi, ["a", "b", "c", "d"], 0.7)
    docs = [["a", "x", "b", "c"], ["y", "y"], ["d", "a", "z", "b", "b"]]
    test = Corpus.from_token_lists(docs)
    kept = [[w for w in d if w in "abcd"] for d in docs]
    n_oov, n_kept = sum(map(len, docs)) - sum(map(len, kept)), sum(map(len, kept))
    n_held = sum(len(d) - len(d) // 2 for d in kept if len(d) >= 2)
    assert (n_oov, n_kept, n_held) == (4, 7, 4)
    results = {
        n_held: [document_completion(model, test), E.left_to_right_completion(model, test, 5),
                 baselines(test, test, model=model)["unigram"]],
        n_kept: [E.estimate_log_likelihood(model, test, method, 10) for method in E.METHODS],
    }
    for n_scored, group in results.items():
        for r in group:
            d = r.to_dict()
            assert (d["n_dropped_oov"], d["n_tokens_scored"]) == (n_oov, n_scored), d
            assert "model=" in d["signature"]
    encoded = Corpus.from_token_lists(docs, model.vocabulary_)
    scored = score_words(np.full((3, 2), 0.5), phi, encoded, Signature("x"))
    assert (scored.to_dict()["n_dropped_oov"], scored.to_dict()["n_tokens_scored"]) == (n_oov, n_kept)


# -- 3. raw text is tokenised as the model records ---------------------------------------------------
def test_fit_records_the_corpus_preprocessing_and_it_survives_save(fitted, tmp_path):
    pre, train, models = fitted
    for name, model in models.items():
        assert model.metadata_["preprocessing"] == train.metadata["preprocessing"] == pre.get_params()
        loaded = load_model(model.save(tmp_path / f"{name}.npz"))
        assert loaded.metadata_["preprocessing"] == pre.get_params()
        assert loaded.metadata_["description"] == model.description()
    assert models["sklearn"].metadata_["source"]["library"] == "scikit-learn"
    assert models["plsa"].metadata_["source"] == {"library": "tealeaves", "version": models["plsa"].metadata_[
        "source"]["version"], "class": "PLSA"}


def test_preprocessor_rebuilt_from_its_settings_tokenises_identically(fitted):
    pre, _, _ = fitted
    rebuilt = Preprocessor.from_params(json.loads(json.dumps(pre.get_params())), pre.vocabulary_)
    texts = _texts(9, 12)
    assert [rebuilt.tokenize(t) for t in texts] == [pre.tokenize(t) for t in texts]
    assert rebuilt.transform(texts).token_lists() == pre.transform(texts).token_lists()


def _write_layouts(tmp_path, texts: list[str], tokens: list[list[str]]) -> dict:
    raw_lines = tmp_path / "raw.txt"
    raw_lines.write_text("\n".join(texts) + "\n", encoding="utf-8")
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + raw_lines.read_bytes())
    latin = tmp_path / "latin.txt"
    latin.write_bytes(("\n".join(t + " caf\u00e9" for t in texts) + "\n").encode("latin-1"))
    jsonl = tmp_path / "raw.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    folder = tmp_path / "folder"
    folder.mkdir()
    for i, t in enumerate(texts):
        (folder / f"doc{i:03d}.txt").write_text(t, encoding="utf-8")
    tok = tmp_path / "tokens.txt"
    tok.write_text("\n".join(" ".join(d) for d in tokens) + "\n", encoding="utf-8")
    return {"lines": raw_lines, "bom": bom, "latin": latin, "jsonl": jsonl, "folder": folder, "tokens": tok}


def _cli_json(capsys, *argv) -> dict:
    code = main(["perplexity", *map(str, argv), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("method", ["completion", "left-to-right"])
def test_raw_text_scores_exactly_as_the_same_documents_pretokenised(fitted, tmp_path, capsys, method):
    pre, _, models = fitted
    path = models["sklearn"].save(tmp_path / "lda.npz")
    texts = _texts(7, 15, unknown=("zeppelin", "quokka"))
    tokens = [pre.tokenize(t) for t in texts]  # every token the recipe keeps, known or not
    files = _write_layouts(tmp_path, texts, tokens)
    options = ["--method", method, *(["--samples", "5"] if method == "left-to-right" else [])]
    reference = _cli_json(capsys, path, files["tokens"], "--tokenized", *options)
    n_oov = sum(1 for d in tokens for w in d if w not in pre.vocabulary_)
    assert reference["n_dropped_oov"] == n_oov > 0
    assert reference["tokenization"] == "whitespace (--tokenized)"
    for name in ("lines", "bom", "jsonl", "folder"):
        got = _cli_json(capsys, path, files[name], *options)
        assert got["tokenization"] == "the model's recorded preprocessing"
        for key in ("perplexity", "log_likelihood", "n_tokens_scored", "n_dropped_oov", "signature"):
            assert got[key] == reference[key], (name, key)
    latin = _cli_json(capsys, path, files["latin"], "--encoding", "latin-1", *options)
    assert latin["perplexity"] == reference["perplexity"]  # 'café' is one more unknown word per document
    assert latin["n_dropped_oov"] == n_oov + len(texts)
    loaded = load_model(path)
    api = (document_completion(loaded, pre.transform(texts)) if method == "completion"
           else E.estimate_log_likelihood(loaded, pre.transform(texts), "left-to-right", 5,
                                          resample=True, weighted=False))
    assert api.perplexity == reference["perplexity"] and str(api.signature) == reference["signature"]


# -- 4. saved and loaded again: exactly the same scores and signatures --------------------------------
@pytest.mark.parametrize("name", ["sklearn", "plsa"])
def test_a_loaded_model_infers_topic_proportions_like_the_fitted_one(fitted, tmp_path, name):
    """Not only completion: transform itself follows the recorded inference (studies, comparisons...)."""
    pre, _, models = fitted
    loaded = load_model(models[name].save(tmp_path / f"{name}.npz"))
    test = pre.transform(_texts(11, 20))
    assert np.array_equal(loaded.transform(test), models[name].transform(test))
    generic = FixedTopicModel(loaded.topic_word_, list(loaded.vocabulary_), loaded.doc_topic_prior_)
    assert not np.allclose(generic.transform(test), models[name].transform(test))  # the record matters


@pytest.mark.parametrize("name", ["sklearn", "plsa"])
def test_save_and_load_scores_bitwise_identically(fitted, tmp_path, name):
    pre, _, models = fitted
    model = models[name]
    loaded = load_model(model.save(tmp_path / f"{name}.npz"))
    test = pre.transform(_texts(11, 20))
    before, after = document_completion(model, test, seed=2), document_completion(loaded, test, seed=2)
    assert after.perplexity == before.perplexity and after.log_likelihood == before.log_likelihood
    assert np.array_equal(after.document_log_likelihoods, before.document_log_likelihoods)
    assert str(after.signature) == str(before.signature)
    assert Signature.parse(str(before.signature)).fields["model"] == model.description()
    again = load_model(loaded.save(tmp_path / f"{name}-again.npz"))
    assert document_completion(again, test, seed=2).perplexity == before.perplexity
    if name == "sklearn":
        for method in ("left-to-right", "is"):
            a = E.estimate_log_likelihood(model, test, method, 7, seed=3)
            b = E.estimate_log_likelihood(loaded, test, method, 7, seed=3)
            assert (a.log_likelihood, a.standard_error, str(a.signature)) == (
                b.log_likelihood, b.standard_error, str(b.signature))
    else:  # pLSA has no Dirichlet prior: the estimators refuse it, before and after
        for m in (model, loaded):
            with pytest.raises(InvalidModelError, match="no Dirichlet prior alpha"):
                E.estimate_log_likelihood(m, test, "left-to-right")


def test_lsi_is_refused_before_and_after_saving(fitted, tmp_path):
    pre, train, models = fitted
    loaded = load_model(models["lsi"].save(tmp_path / "lsi.npz"))
    for m in (models["lsi"], loaded):
        with pytest.raises(InvalidModelError, match="no topic-word probabilities"):
            document_completion(m, train)
        with pytest.raises(InvalidModelError, match="no topic-word probabilities"):
            E.estimate_log_likelihood(m, train, "is")


def test_a_loaded_model_without_recorded_inference_says_so_in_its_signature(fitted, tmp_path):
    """An older file (no metadata.inference) is folded in by tealeaves' VB: a different signature."""
    pre, _, models = fitted
    model = models["plsa"]
    bare = FixedTopicModel(model.topic_word_, model.vocabulary_,
                           metadata={"description": model.description()})
    test = pre.transform(_texts(11, 20))
    sig = Signature.parse(str(document_completion(bare, test).signature))
    assert sig.fields["infer"] == "vb-fold-in"
    assert Signature.parse(str(document_completion(model, test).signature)).fields["infer"] == "plsa-fold-in"


def test_a_record_that_is_not_ours_leaves_inference_to_transform(fitted):
    """The adapters record their choice as a string ("native"/"tealeaves"): transform decides, named so."""
    pre, _, models = fitted
    model = models["plsa"]
    other = FixedTopicModel(model.topic_word_, model.vocabulary_, metadata={"inference": "native"})
    plain = FixedTopicModel(model.topic_word_, model.vocabulary_)
    test = pre.transform(_texts(11, 20))
    a, b = document_completion(other, test), document_completion(plain, test)
    assert a.perplexity == b.perplexity  # FixedTopicModel.transform, not a recorded fold-in
    assert Signature.parse(str(a.signature)).fields["infer"] == "FixedTopicModel.transform/native"


# -- property: random vocabularies never break "the same words" -------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tealeaves.errors import EmptyInputError  # noqa: E402

_POOL = [f"t{i}" for i in range(15)]
_docs = st.lists(st.lists(st.sampled_from(_POOL), max_size=12), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(train_docs=_docs, test_docs=_docs, known=st.sets(st.sampled_from(_POOL), min_size=2),
       seed=st.integers(0, 2**32 - 1))
def test_model_and_baselines_always_score_the_same_words(train_docs, test_docs, known, seed):
    known = sorted(known)
    model = FixedTopicModel(np.random.default_rng(0).dirichlet(np.ones(len(known)), size=2), known, 0.5)
    if not any(train_docs) or not any(test_docs):
        return
    train, test = Corpus.from_token_lists(train_docs), Corpus.from_token_lists(test_docs)
    try:
        result = document_completion(model, test, seed=seed)
    except EmptyInputError:  # nothing of the test set can be scored: the baselines refuse it too
        with pytest.raises(EmptyInputError):
            baselines(train, test, seed=seed, model=model)
        return
    if not any(w in known for d in train_docs for w in d):  # no training count over the model's words
        with pytest.raises(EmptyInputError, match="training documents share no word"):
            baselines(train, test, seed=seed, model=model)
        return
    base = baselines(train, test, seed=seed, model=model)
    kept = [[w for w in d if w in known] for d in test_docs]
    assert result.n_heldout_words == sum(map(len, _split_by_hand(kept, seed)))
    for b in base.values():
        assert (b.n_heldout_words, b.n_dropped_oov) == (result.n_heldout_words, result.n_dropped_oov)
        assert math.isfinite(b.perplexity) and math.isfinite(b.log_likelihood)
    assert base["uniform"].perplexity == pytest.approx(len(known), rel=1e-12)
