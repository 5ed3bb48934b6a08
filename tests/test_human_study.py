"""Study construction (Chang et al. 2009 §3; Hao et al. 2018 §5.1), persistence and item export."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from tealeaves.errors import EmptyInputError
from tealeaves.human import items as it
from tealeaves.human.export import export_items
from tealeaves.human.items import StudyError
from tealeaves.human.study import HIDDEN_KEYS, Study, build_study
from tealeaves.models.base import FixedTopicModel


def block_model(n_topics=8, n_words=120, block=12, seed=0) -> FixedTopicModel:
    """Topics concentrated on disjoint blocks of words, plus noise."""
    rng = np.random.default_rng(seed)
    phi = rng.random((n_topics, n_words)) * 0.01
    for k in range(n_topics):
        phi[k, k * 15:k * 15 + block] += rng.random(block) + 0.5
    phi /= phi.sum(axis=1, keepdims=True)
    return FixedTopicModel(phi, [f"w{i}" for i in range(n_words)], 0.1)


def documents(n_docs=30, n_topics=8, seed=1):
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.full(n_topics, 0.3), size=n_docs) + 1e-4
    theta /= theta.sum(axis=1, keepdims=True)
    titles = [f"Story {d}" for d in range(n_docs)]
    texts = [f"Story {d} says " + "many things about markets and prices. " * 30 for d in range(n_docs)]
    return theta, titles, texts


def ranks(model) -> np.ndarray:
    """Rank (0 = most probable) of every word in every topic, by brute-force sorting."""
    w = model.topic_word_
    out = np.empty_like(w, dtype=int)
    for k in range(w.shape[0]):
        order = sorted(range(w.shape[1]), key=lambda j: (-w[k, j], j))
        out[k, order] = np.arange(w.shape[1])
    return out


def check_word_intrusion_rules(model, item):
    """Every rule of Chang et al. (2009) §3 for a word-intrusion item, checked from the raw phi."""
    r = ranks(model)
    vocab = list(model.vocabulary_)
    k, intruder = item["topic"], vocab.index(item["answer"])
    n_words = len(vocab)
    top5 = sorted(range(n_words), key=lambda j: r[k, j])[:5]
    assert sorted(item["options"]) == sorted([vocab[j] for j in top5] + [item["answer"]])
    assert len(set(item["options"])) == 6
    assert r[k, intruder] >= n_words / 2, "intruder not in the bottom half of the topic"
    assert any(r[j, intruder] < 10 for j in range(r.shape[0]) if j != k), "intruder not in another top ten"
    assert intruder not in top5


def test_word_intrusion_items_follow_chang_rules():
    model = block_model()
    study = build_study(model, tasks=["word_intrusion"], seed=3)
    wi = [i for i in study.items if i["task"] == "word_intrusion" and not i["check"]]
    assert len(wi) == 8 and not study.excluded
    for item in wi:
        check_word_intrusion_rules(model, item)


def test_intruder_position_is_shuffled_and_seeded():
    model = block_model()
    a = build_study(model, tasks=["word_intrusion"], seed=5)
    b = build_study(model, tasks=["word_intrusion"], seed=5)
    c = build_study(model, tasks=["word_intrusion"], seed=6)
    assert a.items == b.items and a.fingerprint == b.fingerprint
    assert a.items != c.items
    positions = {i["options"].index(i["answer"]) for i in a.items + c.items}
    assert len(positions) > 2, "the intruder always lands in the same place"


def test_topic_intrusion_items_follow_chang_rules():
    model = block_model()
    theta, titles, texts = documents()
    study = build_study(model, tasks=["topic_intrusion"], doc_topic=theta, titles=titles, texts=texts,
                        n_documents=12, seed=2)
    assert len(study.items) == 12
    top_words = model.top_words(8)
    for item in study.items:
        d = item["doc_index"]
        order = np.argsort(-theta[d], kind="stable")
        shown = {str(j) for j in order[:3]}
        assert set(item["options"]) == shown | {item["answer"]} and len(item["options"]) == 4
        assert item["answer"] not in shown
        rank = list(order).index(int(item["answer"]))
        assert rank >= theta.shape[1] / 2, "intruding topic is not of low probability in the document"
        assert item["theta"][item["answer"]] == pytest.approx(theta[d, int(item["answer"])])
        assert item["title"] == titles[d] and texts[d].startswith(item["text"].rstrip(" …")[:50])
        assert len(item["text"]) <= 402
        assert item["option_words"] == {j: top_words[int(j)] for j in item["options"]}


def test_rating_items_and_checks():
    model = block_model()
    study = build_study(model, tasks=["rating"], rating_words=7, confidence=True, n_checks=3, seed=0)
    normal = [i for i in study.items if not i["check"]]
    checks = [i for i in study.items if i["check"]]
    assert [i["words"] for i in normal] == model.top_words(7)
    assert all(i["options"] == ["2", "1", "0"] for i in study.items)
    assert len(checks) == 3 and all(c["expected"] == ["0"] for c in checks)
    tops = {t[0] for t in model.top_words(1)}
    for c in checks:  # each word of an incoherent check topic is the top word of a different topic
        assert set(c["words"]) <= tops and len(c["words"]) == 7
    assert study.settings["confidence"] is True


def test_word_intrusion_check_item_has_obvious_intruder():
    model = block_model()
    study = build_study(model, tasks=["word_intrusion"], n_checks=4, seed=9)
    phi = model.topic_word_
    r = ranks(model)
    vocab = list(model.vocabulary_)
    unit = phi / np.linalg.norm(phi, axis=1, keepdims=True)
    for c in (i for i in study.items if i["check"]):
        host, intruder = c["host_topic"], vocab.index(c["answer"])
        cos = [unit[host] @ unit[j] if j != host else np.inf for j in range(len(phi))]
        assert c["source_topic"] == int(np.argmin(cos))
        pool = [j for j in range(len(vocab)) if r[c["source_topic"], j] < 10]
        assert phi[host, intruder] == min(phi[host, j] for j in pool)
        assert r[host, intruder] >= 5 and c["expected"] == [c["answer"]] and len(set(c["options"])) == 6


class Bilingual:
    """A stand-in for the polylingual model: top_words(n) returns language -> topic word lists."""

    def __init__(self, model):
        self.model = model

    def top_words(self, n):
        top = self.model.top_words(n)
        return {"en": top, "de": [[w.upper() for w in t] for t in top]}


class PolylingualLike:
    """The polylingual model's interface: languages_ and top_words(lang, n)."""

    def __init__(self, model):
        self.languages_ = ["en", "de"]
        self._words = Bilingual(model).top_words

    def top_words(self, lang, n=10):
        return self._words(n)[lang]


@pytest.mark.parametrize("source", ["mapping", "object", "polylingual"])
def test_multilingual_rating_items(source):
    model = block_model()
    ml = {"object": Bilingual(model), "mapping": Bilingual(model).top_words(10),
          "polylingual": PolylingualLike(model)}[source]
    study = build_study(tasks=["multilingual_rating"], multilingual=ml, rating_words=5, n_checks=2, seed=1)
    normal = [i for i in study.items if not i["check"]]
    assert len(normal) == 8
    for i in normal:
        k = i["topic"]
        assert i["languages"] == ["en", "de"]
        assert i["words"]["en"] == model.top_words(5)[k]
        assert i["words"]["de"] == [w.upper() for w in model.top_words(5)[k]]
    for c in (i for i in study.items if i["check"]):  # two different topics side by side
        en, de = c["words"]["en"], [w.lower() for w in c["words"]["de"]]
        assert en in model.top_words(5) and de in model.top_words(5) and en != de
        assert c["expected"] == ["0"]


def test_multilingual_bad_input():
    with pytest.raises(StudyError, match="two languages"):
        build_study(tasks=["multilingual_rating"], multilingual={"en": [["a", "b"]]})
    with pytest.raises(StudyError, match="same number of topics"):
        build_study(tasks=["multilingual_rating"], multilingual={"en": [["a"]], "de": [["b"], ["c"]]})
    with pytest.raises(StudyError, match="choose two"):
        build_study(tasks=["multilingual_rating"], multilingual={"en": [["a"]], "de": [["b"]]},
                    languages=["en", "fr"])


def test_topic_with_too_few_candidate_words_is_excluded_and_empty_study_is_an_error():
    tiny = FixedTopicModel(np.full((3, 5), 0.2), list("abcde"))  # five words: no six distinct candidates
    with pytest.raises(EmptyInputError, match="no items"):
        build_study(tiny, tasks=["word_intrusion"], n_checks=0)
    items, excluded = it.word_intrusion_items(tiny, None, np.random.default_rng(0))
    assert not items and len(excluded) == 3 and "fewer than the 6 distinct words" in excluded[0]["reason"]
    # Topic 0 ranks topic 1's top ten (words 10-19) in its own top half, so no word of its bottom half
    # (20-39) is in another topic's top ten: excluded.  Topic 1 ranks topic 0's words (0-9) last: fine.
    phi = np.full((2, 40), 1e-3)
    phi[0, :10], phi[0, 10:20] = 1.0, 0.1
    phi[1, 10:20], phi[1, 20:], phi[1, :10] = 1.0, 0.01, 1e-4
    model = FixedTopicModel(phi / phi.sum(axis=1, keepdims=True), [f"w{i}" for i in range(40)])
    study = build_study(model, tasks=["word_intrusion", "rating"], n_checks=0, seed=0)
    assert [(e["task"], e["topic"]) for e in study.excluded] == [("word_intrusion", 0)]
    assert "fewer than 6 distinct candidate words" in study.excluded[0]["reason"]
    (wi,) = [i for i in study.items if i["task"] == "word_intrusion"]
    assert wi["topic"] == 1 and int(wi["answer"][1:]) < 10
    assert len([i for i in study.items if i["task"] == "rating"]) == 2


def test_unknown_task_and_missing_inputs():
    with pytest.raises(StudyError, match="unknown"):
        build_study(block_model(), tasks=["guess"])
    with pytest.raises(StudyError, match="need a model"):
        build_study(tasks=["rating"])
    with pytest.raises(StudyError, match="doc_topic"):
        build_study(block_model(), tasks=["topic_intrusion"])


def test_topic_intrusion_needs_positive_theta_and_enough_topics():
    model = block_model(n_topics=3)
    theta = np.full((2, 3), 1 / 3)
    study_kw = dict(tasks=["topic_intrusion"], doc_topic=theta, titles=["a", "b"], texts=["x", "y"])
    with pytest.raises(EmptyInputError):
        build_study(model, **study_kw)
    model = block_model(n_topics=6)
    theta = np.full((2, 6), 1 / 6)
    theta[0] = [0.5, 0.5, 0, 0, 0, 0]
    study = build_study(model, tasks=["topic_intrusion"], doc_topic=theta, titles=["a", "b"],
                        texts=["x", "y"])
    assert len(study.items) == 1 and "positive" in study.excluded[0]["reason"]


def test_save_load_round_trip_and_public_view(tmp_path):
    model = block_model()
    theta, titles, texts = documents()
    study = build_study(model, tasks=list(it.TASKS), doc_topic=theta, titles=titles, texts=texts,
                        multilingual=Bilingual(model), n_documents=4, seed=11, annotators=["ann", "bob"])
    path = study.save(tmp_path / "study.json")
    again = Study.load(path)
    assert again.items == study.items and again.fingerprint == study.fingerprint
    assert again.annotators == ["ann", "bob"] and again.seed == 11
    for item in study.items:
        public = study.public_item(item["id"])
        assert not HIDDEN_KEYS & set(public)
        assert public["options"] == item["options"]
    # per-annotator order: a permutation, repeatable, differing between annotators
    assert sorted(study.order_for("ann")) == sorted(study.by_id)
    assert study.order_for("ann") == again.order_for("ann") != study.order_for("bob")


def test_load_rejects_bad_study_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(StudyError, match="cannot read"):
        Study.load(bad)
    bad.write_text(json.dumps({"format": "tealeaves-study", "items": []}))
    with pytest.raises(EmptyInputError):
        Study.load(bad)
    bad.write_text(json.dumps({"items": []}))
    with pytest.raises(StudyError, match="not a tealeaves study"):
        Study.load(bad)


def test_export_items_csv_and_json_hide_answers(tmp_path):
    model = block_model()
    theta, titles, texts = documents()
    study = build_study(model, tasks=list(it.TASKS), doc_topic=theta, titles=titles, texts=texts,
                        multilingual=Bilingual(model), n_documents=3, seed=4)
    export_items(study, tmp_path / "items.csv")
    export_items(study, tmp_path / "items.json")
    with open(tmp_path / "items.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["item_id"] for r in rows] == [i["id"] for i in study.items]
    for row, item in zip(rows, study.items):
        n = int(row["n_options"])
        assert [row[f"option_{j}"] for j in range(1, n + 1)] == item["options"]
        assert "answer" not in row and "check" not in row
        if item["task"] == "topic_intrusion":
            assert row["option_1_words"] == " ".join(item["option_words"][item["options"][0]])
            assert row["title"] == item["title"]
        if item["task"] == "multilingual_rating":
            assert row["words_2"] == " ".join(item["words"]["de"])
    public = json.loads((tmp_path / "items.json").read_text(encoding="utf-8"))
    assert [p["id"] for p in public] == [i["id"] for i in study.items]
    assert all("answer" not in p and "expected" not in p for p in public)


@pytest.mark.xdist_group("reuters_lda")
def test_chang_rules_on_fitted_reuters_lda(reuters, reuters_lda):
    """Word and topic intrusion items built from a fitted 20-topic Reuters LDA and real test stories."""
    from tealeaves.corpus.reuters import modapte_split, story_id

    model = reuters_lda(20)
    _, test, _ = reuters
    _, test_stories, _ = modapte_split()
    assert [story_id(s) for s in test_stories] == list(test.ids)
    docs = np.sort(np.random.default_rng(0).choice(len(test), size=25, replace=False))
    theta = model.transform(test.subset(docs))
    stories = [test_stories[d] for d in docs]
    study = build_study(model, tasks=["word_intrusion", "topic_intrusion"], doc_topic=theta,
                        titles=[s.title for s in stories], texts=[s.body for s in stories],
                        doc_ids=[story_id(s) for s in stories], n_documents=25, seed=0)
    wi = [i for i in study.items if i["task"] == "word_intrusion" and not i["check"]]
    assert len(wi) + len([e for e in study.excluded if e["task"] == "word_intrusion"]) == 20
    assert len(wi) >= 15
    for item in wi:
        check_word_intrusion_rules(model, item)
    ti = [i for i in study.items if i["task"] == "topic_intrusion"]
    assert len(ti) == 25
    for item in ti:
        row = theta[item["doc_index"]]
        order = list(np.argsort(-row, kind="stable"))
        assert {str(j) for j in order[:3]} == set(item["options"]) - {item["answer"]}
        assert order.index(int(item["answer"])) >= 10, "intruding topic not in the document's bottom half"
        assert item["theta"][item["answer"]] < min(row[order[:3]])
        story = stories[item["doc_index"]]
        assert item["document"] == story_id(story) and item["title"] == story.title


def test_cli_build_study_and_export_items(tmp_path, capsys):
    from tealeaves.cli import main

    model = block_model()
    model.save(tmp_path / "model.npz")
    theta, titles, texts = documents(n_docs=6)
    np.save(tmp_path / "theta.npy", theta)
    (tmp_path / "docs.jsonl").write_text("\n".join(json.dumps({"id": f"d{i}", "title": t, "text": x})
                                                   for i, (t, x) in enumerate(zip(titles, texts))))
    (tmp_path / "ml.json").write_text(json.dumps(Bilingual(model).top_words(10)))
    args = ["human", "build-study", str(tmp_path / "model.npz"), "-o", str(tmp_path / "study.json"),
            "--tasks", ",".join(it.TASKS), "--seed", "7", "--doc-topic", str(tmp_path / "theta.npy"),
            "--documents", str(tmp_path / "docs.jsonl"), "--n-documents", "3",
            "--multilingual", str(tmp_path / "ml.json"), "--checks", "1"]
    assert main(args) == 0
    study = Study.load(tmp_path / "study.json")
    direct = build_study(model, tasks=list(it.TASKS), seed=7, doc_topic=theta, titles=titles, texts=texts,
                         doc_ids=[f"d{i}" for i in range(6)], n_documents=3,
                         multilingual=Bilingual(model).top_words(10), n_checks=1)
    assert study.items == direct.items
    args[1], args[4] = "build", str(tmp_path / "again.json")
    assert main(["annotate", *args[1:]]) == 0
    assert Study.load(tmp_path / "again.json").items == study.items
    items_csv = str(tmp_path / "items.csv")
    assert main(["human", "export-items", str(tmp_path / "study.json"), "-o", items_csv]) == 0
    assert (tmp_path / "items.csv").read_text(encoding="utf-8").startswith("item_id,task,n_options")
    assert main(["human", "build-study", str(tmp_path / "model.npz"), "-o", str(tmp_path / "x.json"),
                 "--tasks", "nonsense"]) == 1
    assert "unknown" in capsys.readouterr().err


def test_multilingual_study_from_a_fitted_polylingual_model():
    from tealeaves.corpus import AlignedCorpus, Corpus, Vocabulary
    from tealeaves.models.polylingual import PolylingualTopicModel

    rng = np.random.default_rng(0)
    corpora, present = {}, {}
    ids = [str(t) for t in range(30)]
    for lang in ("en", "sv"):
        tokens = rng.integers(0, 25, size=30 * 20).astype(np.int32)
        corpora[lang] = Corpus(Vocabulary([f"{lang}{w}" for w in range(25)]), tokens,
                               np.arange(0, 30 * 20 + 1, 20), ids)
        present[lang] = np.ones(30, dtype=bool)
    model = PolylingualTopicModel(4, n_iter=3, random_state=0).fit(AlignedCorpus(["en", "sv"], corpora,
                                                                                   present, ids))
    study = build_study(tasks=["multilingual_rating"], multilingual=model, rating_words=6, n_checks=1)
    for item in (i for i in study.items if not i["check"]):
        assert item["words"] == {lang: model.top_words(lang, 6)[item["topic"]] for lang in ("en", "sv")}


# -- vocabulary-order-independent tie-breaking (issue 9, point 5) ---------------------------------------
def tied_model(n_topics=10, n_words=1000, n_own=15, seed=0) -> FixedTopicModel:
    """A tomotopy/MALLET-like model: each topic draws 15 words; every other word has one equal probability.

    The vocabulary is in frequency order (the topics' words first), as tomotopy and MALLET store it.
    """
    rng = np.random.default_rng(seed)
    counts = np.zeros((n_topics, n_words))
    for k in range(n_topics):
        counts[k, k * n_own:(k + 1) * n_own] = rng.integers(5, 500, size=n_own)
    beta = 0.01
    phi = (counts + beta) / (counts.sum(axis=1, keepdims=True) + n_words * beta)
    return FixedTopicModel(phi, [f"w{i:04d}" for i in range(n_words)])


def tie_ranks(model, seed):
    """Ranks under the documented rule, recomputed independently: -probability, then SHA-256(seed, word)."""
    import hashlib

    vocab = list(model.vocabulary_)
    key = [int.from_bytes(hashlib.sha256(f"{seed}\x00{w}".encode()).digest()[:8], "little") for w in vocab]
    w = model.topic_word_
    out = np.empty_like(w, dtype=int)
    for k in range(w.shape[0]):
        order = sorted(range(w.shape[1]), key=lambda j: (-w[k, j], key[j]))
        out[k, order] = np.arange(w.shape[1])
    return out


def test_massive_ties_do_not_exclude_every_topic():
    model = tied_model()
    phi = model.topic_word_
    # the bug this guards against: with ties broken by word id, no topic has an admissible intruder
    by_id = model.top_word_ids(phi.shape[1])
    assert all(it.intruder_candidates(by_id, k).size == 0 for k in range(phi.shape[0]))
    study = build_study(model, tasks=["word_intrusion"], seed=4, n_checks=2)
    wi = [i for i in study.items if not i["check"]]
    assert not study.excluded and sorted(i["topic"] for i in wi) == list(range(10))
    r, vocab = tie_ranks(model, 4), list(model.vocabulary_)
    for item in wi:
        k, intruder = item["topic"], vocab.index(item["answer"])
        top5 = [vocab[j] for j in np.argsort(r[k])[:5]]
        assert sorted(item["options"]) == sorted(top5 + [item["answer"]])
        assert r[k, intruder] >= phi.shape[1] / 2 and item["answer"] not in top5
        assert any(r[j, intruder] < 10 for j in range(phi.shape[0]) if j != k)
    assert study.settings["tie_break"] == "probability, then sha256(seed, word)"


@pytest.mark.parametrize("make", [tied_model, block_model], ids=["ties", "no-ties"])
def test_permuting_the_vocabulary_gives_the_same_study(make):
    model = make()
    n_topics = model.topic_word_.shape[0]
    perm = np.random.default_rng(7).permutation(model.topic_word_.shape[1])
    permuted = FixedTopicModel(model.topic_word_[:, perm], [model.vocabulary_[j] for j in perm])
    theta, titles, texts = documents(n_docs=6, n_topics=n_topics)
    kw = dict(tasks=["word_intrusion", "rating", "topic_intrusion"], seed=12, n_checks=3, doc_topic=theta,
              titles=titles, texts=texts, n_documents=6)
    a, b = build_study(model, **kw), build_study(permuted, **kw)
    assert a.items == b.items and a.excluded == b.excluded and a.fingerprint == b.fingerprint
    # and a different seed permutes the ties differently (the rule is the seed's, not a fixed order)
    assert it.topic_rankings(model, 0).tolist() != it.topic_rankings(model, 1).tolist() or make is block_model


def test_no_ties_ranking_equals_the_models_own():
    model = block_model()
    assert np.array_equal(it.topic_rankings(model, 3), model.top_word_ids(model.topic_word_.shape[1]))


def test_real_tomotopy_model_ties_give_a_vocabulary_order_free_study():
    """A fitted tomotopy LDA: most of each topic's probabilities are one tied value (eta over the norm)."""
    tp = pytest.importorskip("tomotopy")
    rng = np.random.default_rng(0)
    n_topics, n_words = 8, 400
    topic_words = [rng.choice(n_words, size=25, replace=False) for _ in range(n_topics)]
    lda = tp.LDAModel(k=n_topics, seed=1, eta=0.01, alpha=0.1)
    for _ in range(300):
        lda.add_doc([f"v{int(w)}" for k in rng.choice(n_topics, 2, replace=False)
                     for w in rng.choice(topic_words[k], size=30)])
    lda.train(200, workers=1)
    phi = np.array([lda.get_topic_word_dist(k) for k in range(n_topics)], dtype=np.float64)
    vocab = list(lda.used_vocabs)
    assert all(len(np.unique(row)) < phi.shape[1] / 4 for row in phi)  # massive ties
    model = FixedTopicModel(phi / phi.sum(axis=1, keepdims=True), vocab)
    perm = np.random.default_rng(3).permutation(len(vocab))
    permuted = FixedTopicModel(model.topic_word_[:, perm], [vocab[j] for j in perm])
    a = build_study(model, tasks=["word_intrusion", "rating"], seed=0)
    b = build_study(permuted, tasks=["word_intrusion", "rating"], seed=0)
    assert a.items == b.items and not a.excluded
    r = tie_ranks(model, 0)
    for item in (i for i in a.items if i["task"] == "word_intrusion" and not i["check"]):
        k, w = item["topic"], vocab.index(item["answer"])
        assert r[k, w] >= len(vocab) / 2 and any(r[j, w] < 10 for j in range(n_topics) if j != k)
