"""MALLET output files and topic-word files: written in each documented format from a known model, read back.

The writers below follow MALLET's own printing code (cc.mallet.topics.ParallelTopicModel:
printState, printTopicWordWeights, printTypeTopicCounts, printTopWords, printDenseDocumentTopics,
printDocumentTopics), including Java's ``Double.toString`` number format, so the readers are tested
on the bytes MALLET writes.  The known model is a short collapsed Gibbs run on real Reuters text.
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from tealeaves.cli import main
from tealeaves.corpus import Corpus
from tealeaves.errors import InvalidModelError
from tealeaves.likelihood.completion import document_completion
from tealeaves.models.adapters import mallet, paths, topic_files
from tealeaves.models.adapters.topic_files import RankedWordsModel

ALPHA = np.array([0.1, 0.05, 0.2, 0.1, 0.15])  # printable exactly with 5 decimals (topic keys)
BETA = 1e-4  # printed by Java as 1.0E-4


# -------------------------------------------------------------------------------------------------
# MALLET's printing, re-implemented from its source
# -------------------------------------------------------------------------------------------------
def java_double(x: float) -> str:
    """Java's ``Double.toString``: shortest digits, ``d.ddd`` in [1e-3, 1e7), ``d.dddE-n`` outside."""
    x = float(x)
    if x == 0:
        return "0.0"
    if 1e-3 <= abs(x) < 1e7:
        r = repr(x)
        return r if "." in r else r + ".0"
    mant, exp = np.format_float_scientific(x, unique=True).split("e")
    mant = mant + "0" if mant.endswith(".") else mant
    return f"{mant}E{int(exp)}"


def java_format5(x: float) -> str:
    """``NumberFormat.getInstance()`` with 5 fraction digits (English locale: grouping commas)."""
    return f"{x:,.5f}".rstrip("0").rstrip(".")


class KnownModel:
    """Token-topic assignments on real text: the exact counts every MALLET file is written from."""

    def __init__(self, corpus: Corpus, n_topics: int, sweeps: int = 8, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.corpus, self.k = corpus, n_topics
        self.vocab = list(corpus.vocabulary)
        v = len(self.vocab)
        z = rng.integers(n_topics, size=corpus.n_tokens)
        nkw = np.zeros((n_topics, v), dtype=np.int64)
        np.add.at(nkw, (z, corpus.tokens), 1)
        doc = np.repeat(np.arange(len(corpus)), corpus.lengths)
        ndk = np.zeros((len(corpus), n_topics), dtype=np.int64)
        np.add.at(ndk, (doc, z), 1)
        nk = nkw.sum(axis=1)
        for _ in range(sweeps):  # collapsed Gibbs sampling (Griffiths and Steyvers 2004)
            for i in range(corpus.n_tokens):
                w, d, t = corpus.tokens[i], doc[i], z[i]
                nkw[t, w] -= 1
                ndk[d, t] -= 1
                nk[t] -= 1
                p = (ndk[d] + ALPHA) * (nkw[:, w] + BETA) / (nk + v * BETA)
                t = int(rng.choice(n_topics, p=p / p.sum()))
                z[i] = t
                nkw[t, w] += 1
                ndk[d, t] += 1
                nk[t] += 1
        self.z, self.doc, self.nkw, self.ndk = z, doc, nkw, ndk

    @property
    def phi(self) -> np.ndarray:
        return (self.nkw + BETA) / (self.nkw.sum(axis=1, keepdims=True) + len(self.vocab) * BETA)

    def sorted_words(self, k: int) -> list[int]:
        """Word ids of topic ``k`` with a non-zero count, by count (ties by id), as getSortedWords."""
        ids = np.flatnonzero(self.nkw[k])
        return sorted(ids, key=lambda w: (-self.nkw[k, w], w))

    def write_state(self, path, source=lambda d: "NA") -> None:
        lines = ["#doc source pos typeindex type topic",
                 "#alpha : " + "".join(java_double(a) + " " for a in ALPHA), f"#beta : {java_double(BETA)}"]
        for d in range(len(self.corpus)):
            start = self.corpus.offsets[d]
            for pos in range(self.corpus.lengths[d]):
                w = self.corpus.tokens[start + pos]
                lines.append(f"{d} {source(d)} {pos} {w} {self.vocab[w]} {self.z[start + pos]}")
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")

    def write_weights(self, path) -> None:
        out = [f"{k}\t{w}\t{java_double(BETA + self.nkw[k, i])}" for k in range(self.k)
               for i, w in enumerate(self.vocab)]
        path.write_text("\n".join(out) + "\n", encoding="utf-8")

    def write_counts(self, path) -> None:
        out = []
        for i, w in enumerate(self.vocab):
            pairs = sorted(((int(self.nkw[k, i]), k) for k in range(self.k) if self.nkw[k, i]), reverse=True)
            out.append(f"{i} {w}" + "".join(f" {k}:{c}" for c, k in pairs))
        path.write_text("\n".join(out) + "\n", encoding="utf-8")

    def write_keys(self, path, n: int = 20) -> None:
        out = [f"{k}\t{java_format5(ALPHA[k])}\t"
               + "".join(self.vocab[w] + " " for w in self.sorted_words(k)[:n]) for k in range(self.k)]
        path.write_text("\n".join(out) + "\n", encoding="utf-8")

    def theta(self) -> np.ndarray:
        lengths = self.ndk.sum(axis=1, keepdims=True)
        return (ALPHA + self.ndk) / (lengths + ALPHA.sum())

    def write_dense_doc_topics(self, path) -> None:
        th = self.theta()
        out = [f"{d}\tdoc{d}" + "".join("\t" + java_double(x) for x in th[d]) for d in range(len(th))]
        path.write_text("\n".join(out) + "\n", encoding="utf-8")

    def write_sparse_doc_topics(self, path, threshold: float = 0.0) -> None:
        th = self.theta()
        out = ["#doc name topic proportion ..."]
        for d in range(len(th)):
            order = sorted(range(self.k), key=lambda k: (-th[d, k], k))
            out.append(f"{d}\tdoc{d}\t" + "".join(f"{k}\t{java_double(th[d, k])}\t" for k in order
                                                  if th[d, k] >= threshold))
        path.write_text("\n".join(out) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def known(reuters):
    docs = [d for d in reuters[0].token_lists()[:150] if d]
    # encoded over its own vocabulary, so every type occurs (as in a MALLET run)
    return KnownModel(Corpus.from_token_lists(docs), n_topics=len(ALPHA))


@pytest.fixture(scope="module")
def files(known, tmp_path_factory):
    d = tmp_path_factory.mktemp("mallet")
    f = {name: d / name for name in ("state.gz", "weights.txt", "counts.txt", "keys.txt", "dense.txt",
                                     "sparse.txt")}
    known.write_state(f["state.gz"], source=lambda doc: f"/data/reuters {doc}.txt")  # a source with a space
    known.write_weights(f["weights.txt"])
    known.write_counts(f["counts.txt"])
    known.write_keys(f["keys.txt"])
    known.write_dense_doc_topics(f["dense.txt"])
    known.write_sparse_doc_topics(f["sparse.txt"])
    return f


# -------------------------------------------------------------------------------------------------
# MALLET: each file read back exactly
# -------------------------------------------------------------------------------------------------
def test_java_double_matches_java():
    assert [java_double(x) for x in (1e-4, 0.01, 5.0001, 1e7, 123.5, 2.5e-8)] == [
        "1.0E-4", "0.01", "5.0001", "1.0E7", "123.5", "2.5E-8"]


def test_state_counts_alpha_beta_exact(known, files):
    state = mallet.read_state(files["state.gz"])
    used = np.flatnonzero(known.nkw.sum(axis=0))
    assert len(used) == len(known.vocab)  # every type occurs (the subset's own vocabulary)
    np.testing.assert_array_equal(state.topic_word_counts, known.nkw)
    np.testing.assert_array_equal(state.doc_topic_counts, known.ndk)
    assert state.vocabulary == known.vocab and state.beta == BETA
    np.testing.assert_array_equal(state.alpha, ALPHA)
    assert state.sources[3] == "/data/reuters 3.txt"
    model = mallet.load_state(files["state.gz"])
    np.testing.assert_allclose(model.topic_word_, known.phi, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(model.doc_topic_prior_, ALPHA)
    assert model.metadata_["source"]["library"] == "mallet"


def test_weights_give_the_same_phi_and_alpha_from_keys(known, files):
    model = mallet.read_topic_word_weights(files["weights.txt"], topic_keys=files["keys.txt"])
    assert list(model.vocabulary_) == known.vocab
    np.testing.assert_allclose(model.topic_word_, known.phi, rtol=1e-13, atol=0)
    np.testing.assert_array_equal(model.doc_topic_prior_, ALPHA)


def test_weights_without_alpha_refuse_inference(known, files):
    model = paths.load_path(files["weights.txt"])
    np.testing.assert_allclose(model.topic_word_, known.phi, rtol=1e-13, atol=0)
    assert model.doc_topic_prior_ is None
    with pytest.raises(InvalidModelError, match="has no alpha"):
        document_completion(model, known.corpus)
    given = paths.load_path(files["weights.txt"], alpha=ALPHA)
    np.testing.assert_array_equal(given.doc_topic_prior_, ALPHA)


def test_word_topic_counts_exact_and_probabilistic_only_with_beta(known, files):
    ranked = mallet.read_word_topic_counts(files["counts.txt"])
    assert ranked.topic_word_ is None
    np.testing.assert_array_equal(ranked.topic_word_weights_, known.nkw)
    with_beta = mallet.read_word_topic_counts(files["counts.txt"], beta=BETA, topic_keys=files["keys.txt"])
    np.testing.assert_allclose(with_beta.topic_word_, known.phi, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(with_beta.doc_topic_prior_, ALPHA)


def test_word_topic_counts_keep_topics_no_word_is_assigned_to(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("0 oil 0:3 2:1\n1 gas 0:1\n", encoding="utf-8")  # topic 1 and 3 are empty
    a = mallet.read_word_topic_counts(path, beta=0.5, alpha=[0.1, 0.2, 0.3, 0.4])
    b = mallet.read_word_topic_counts(path, beta=0.5, n_components=4)
    expected = (np.array([[3, 1], [0, 0], [1, 0], [0, 0]]) + 0.5) / (np.array([[4], [0], [1], [0]]) + 2 * 0.5)
    np.testing.assert_allclose(a.topic_word_, expected, rtol=1e-15)
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)


def test_topic_keys_are_ranked_words_not_probabilities(known, files):
    model = paths.load_path(files["keys.txt"])
    assert isinstance(model, RankedWordsModel) and model.topic_word_ is None
    expected = [[known.vocab[w] for w in known.sorted_words(k)[:20]] for k in range(known.k)]
    assert model.top_words(20) == expected
    assert model.top_words(5) == [t[:5] for t in expected]
    np.testing.assert_array_equal(model.doc_topic_prior_, ALPHA)
    # more words than listed: the listed words whole, and the clamping is reported
    assert model.top_words(50) == expected and model.clamped_topics(50) == list(range(known.k))
    with pytest.raises(InvalidModelError, match="no topic-word probabilities"):
        document_completion(model, known.corpus)
    with pytest.raises(InvalidModelError, match="only each topic's ranked top words"):
        model.transform(known.corpus)
    assert "ranked top words" in model.not_probabilistic_reason_


def test_state_top_words_equal_topic_keys(files):
    state_model = paths.load_path(files["state.gz"])
    keys = paths.load_path(files["keys.txt"])
    assert state_model.top_words(20) == keys.top_words(20)


def test_doc_topics_both_formats(known, files):
    dense = mallet.read_doc_topics(files["dense.txt"])
    sparse = mallet.read_doc_topics(files["sparse.txt"])
    np.testing.assert_array_equal(dense.proportions, known.theta())
    np.testing.assert_array_equal(sparse.proportions, known.theta())
    assert dense.complete and sparse.complete and dense.names[2] == "doc2" and sparse.doc_ids == dense.doc_ids


def test_sparse_doc_topics_with_threshold_is_marked_incomplete(known, tmp_path):
    path = tmp_path / "dt.txt"
    known.write_sparse_doc_topics(path, threshold=0.3)
    dt = mallet.read_doc_topics(path, n_components=known.k)
    th = known.theta()
    np.testing.assert_array_equal(dt.proportions, np.where(th >= 0.3, th, 0.0))
    assert not dt.complete


def test_completion_from_state_equals_completion_from_weights(reuters, files):
    test = reuters[1].subset(np.arange(200))
    from_state = mallet.load_state(files["state.gz"])
    from_weights = mallet.read_topic_word_weights(files["weights.txt"], topic_keys=files["keys.txt"])
    a = document_completion(from_state, test, seed=3)
    b = document_completion(from_weights, test, seed=3)
    assert a.n_heldout_words == b.n_heldout_words > 1000
    assert np.isfinite(a.perplexity)
    assert a.perplexity == pytest.approx(b.perplexity, rel=1e-10)


@pytest.mark.parametrize("name,fmt", [
    ("state.gz", "mallet-state"), ("weights.txt", "mallet-weights"), ("counts.txt", "mallet-counts"),
    ("keys.txt", "mallet-keys"), ("dense.txt", "mallet-doc-topics"), ("sparse.txt", "mallet-doc-topics")])
def test_sniffing_recognises_each_mallet_file(files, name, fmt):
    assert paths.sniff_format(files[name]) == fmt


def test_uncompressed_state_and_npz_round_trip(files, tmp_path):
    plain = tmp_path / "state.txt"
    plain.write_bytes(gzip.decompress(files["state.gz"].read_bytes()))
    a, b = paths.load_path(files["state.gz"]), paths.load_path(plain)
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    saved = a.save(tmp_path / "m.npz")
    c = paths.load_path(saved)
    np.testing.assert_array_equal(c.topic_word_, a.topic_word_)
    assert c.description() == a.description()


# -------------------------------------------------------------------------------------------------
# topic-word files: every format gives the same words
# -------------------------------------------------------------------------------------------------
TOPICS = [["oil", "crude", "barrels", "opec", "prices"], ["bank", "rate", "interest", "rates", "banks"],
          ["wheat", "grain", "tonnes", "corn", "export"]]
WEIGHTS = [[0.05, 0.04, 0.03, 0.02, 0.01], [0.09, 0.07, 0.05, 0.03, 0.011], [0.3, 0.2, 0.1, 0.05, 0.04]]


def _encodings():
    """The same three topics in every topic-word format."""
    pairs = [[[w, x] for w, x in zip(t, ws)] for t, ws in zip(TOPICS, WEIGHTS)]
    gensim_str = [" + ".join(f'{x:.3f}*"{w}"' for w, x in zip(t, ws)) for t, ws in zip(TOPICS, WEIGHTS)]
    rows = [f"{k},{w},{x}" for k, (t, ws) in enumerate(zip(TOPICS, WEIGHTS)) for w, x in zip(t, ws)]
    shuffled = rows[::-1]  # rows in any order: the weights rank the words
    return {
        "words": "\n".join(" ".join(t) for t in TOPICS) + "\n",
        "mallet-keys": "".join(f"{k}\t0.1\t{' '.join(t)} \n" for k, t in enumerate(TOPICS)),
        "csv": "topic,word,weight\n" + "\n".join(shuffled) + "\n",
        "tsv-no-header": "\n".join(r.replace(",", "\t") for r in rows) + "\n",
        "csv-columns-reordered": "weight;word;topic\n".replace(";", ",")
        + "\n".join(",".join(r.split(",")[::-1]) for r in rows) + "\n",
        "json-lists": json.dumps(TOPICS),
        "json-pairs": json.dumps(pairs),
        "json-octis": json.dumps({"topics": TOPICS, "topic-word-matrix": [[0.1] * 3] * 3}),
        "json-dict": json.dumps({str(k): t for k, t in enumerate(TOPICS)}),
        "json-word-weight-objects": json.dumps([dict(p) for p in pairs]),
        "json-gensim-strings": json.dumps(gensim_str),
        "gensim": "\n".join(gensim_str) + "\n",
        "gensim-print-topics": "\n".join(repr((k, s)) for k, s in enumerate(gensim_str)) + "\n",
        "gensim-list-repr": repr([(k, s) for k, s in enumerate(gensim_str)]),
        "gensim-unformatted": repr([(k, [(w, x) for w, x in zip(t, ws)]) for k, (t, ws)
                                    in enumerate(zip(TOPICS, WEIGHTS))]),
        "bom": "\ufeff" + "\n".join(" ".join(t) for t in TOPICS) + "\n",
    }


@pytest.mark.parametrize("kind", list(_encodings()))
def test_every_topic_format_gives_the_same_words(kind, tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text(_encodings()[kind], encoding="utf-8")
    model = paths.load_path(path)
    assert isinstance(model, RankedWordsModel)
    assert model.top_words(10) == TOPICS


def test_weights_are_kept_and_ranked(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("topic,word,weight\n0,b,0.1\n0,a,0.5\n0,c,0.1\n", encoding="utf-8")
    m = topic_files.read_topics(path)
    assert m.topics_ == [["a", "b", "c"]] and m.word_weights_ == [[0.5, 0.1, 0.1]]  # ties keep file order


def test_gensim_strings_from_a_real_gensim_model(reuters):
    gensim = pytest.importorskip("gensim")
    from gensim.corpora import Dictionary

    docs = reuters[0].token_lists()[:300]
    dct = Dictionary(docs)
    lda = gensim.models.LdaModel([dct.doc2bow(d) for d in docs], num_topics=4, id2word=dct, random_state=0,
                                 passes=2)
    text = "\n".join(repr(t) for t in lda.print_topics(num_words=8))
    model = topic_files.parse_topics(text)
    expected = [[w for w, _ in lda.show_topic(k, topn=8)] for k in range(4)]
    assert model.topics_ == expected
    np.testing.assert_allclose(model.word_weights_, [[x for _, x in lda.show_topic(k, 8)] for k in range(4)],
                               atol=5e-4)  # print_topics rounds to 3 decimals


@pytest.mark.parametrize("kind", ["lsi", "hdp"])
def test_gensim_lsi_and_hdp_strings_keep_gensim_order(kind, reuters):
    gensim = pytest.importorskip("gensim")
    from gensim.corpora import Dictionary

    docs = reuters[0].token_lists()[:300]
    dct = Dictionary(docs)
    bows = [dct.doc2bow(d) for d in docs]
    if kind == "lsi":  # signed weights, shown by absolute value, unquoted sign before the quote
        model = gensim.models.LsiModel(bows, id2word=dct, num_topics=3)
        shown = model.print_topics(3, 6)
        expected = [[w for w, _ in model.show_topic(k, 6)] for k in range(3)]
    else:  # HDP writes weight*word without quotes
        model = gensim.models.HdpModel(bows, dct, random_state=0)
        shown = model.show_topics(num_topics=3, num_words=6, formatted=True)
        raw = model.show_topics(num_topics=3, num_words=6, formatted=False)
        expected = [[w for w, _ in t] for _, t in raw]
    parsed = topic_files.parse_topics("\n".join(repr(t) for t in shown))
    assert parsed.topics_ == expected
    if kind == "lsi":
        assert any(x < 0 for ws in parsed.word_weights_ for x in ws)


# -------------------------------------------------------------------------------------------------
# tealeaves coherence --topics FILE scores the same words as plain lists
# -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference_file(reuters, tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "ref.txt"
    path.write_text("\n".join(" ".join(d) for d in reuters[0].token_lists()[:2000]) + "\n", encoding="utf-8")
    return path


def _cli_scores(capsys, ref, topics, *extra):
    assert main(["coherence", "--reference", str(ref), "--topics", str(topics), "--format", "json",
                 "--top", "5", *extra]) == 0
    out = json.loads(capsys.readouterr().out)
    return [t["words"] for t in out["topics"]], [t["score"] for t in out["topics"]], out["mean"]


@pytest.mark.parametrize("kind", ["mallet-keys", "csv", "tsv-no-header", "json-pairs", "gensim",
                                  "gensim-print-topics", "json-octis"])
def test_coherence_cli_scores_each_format_as_the_plain_lists(kind, reference_file, tmp_path, capsys):
    plain = tmp_path / "plain.txt"
    plain.write_text(_encodings()["words"], encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text(_encodings()[kind], encoding="utf-8")
    words_a, scores_a, mean_a = _cli_scores(capsys, reference_file, plain)
    words_b, scores_b, mean_b = _cli_scores(capsys, reference_file, other)
    assert words_a == words_b == TOPICS
    assert all(s is not None for s in scores_a)
    assert scores_a == scores_b and mean_a == mean_b


def test_coherence_of_mallet_keys_equals_the_python_api_on_lists(known, files, reference_file, capsys):
    from tealeaves.coherence import coherence

    words, scores, _ = _cli_scores(capsys, reference_file, files["keys.txt"], "--measure", "umass")
    lists = [[known.vocab[w] for w in known.sorted_words(k)[:5]] for k in range(known.k)]
    docs = [ln.split() for ln in reference_file.read_text(encoding="utf-8").splitlines()]
    api = coherence(lists, docs, measure="umass", top_n=5)
    assert words == lists and not any(w in ("0", "0.1") for t in words for w in t)
    assert scores == pytest.approx([t.score for t in api.topics], rel=1e-12)


def test_topics_format_option_chooses(tmp_path, reference_file, capsys):
    path = tmp_path / "ambiguous.txt"
    # MALLET keys (alpha 1990, word "0.5") or a TSV of (topic, word, weight)
    path.write_text("0\t1990\t0.5\n0\t1991\t0.4\n", encoding="utf-8")
    assert main(["coherence", "--reference", str(reference_file), "--topics", str(path)]) == 1
    assert "could be mallet-keys or csv" in capsys.readouterr().err
    words, _, _ = _cli_scores(capsys, reference_file, path, "--topics-format", "csv")
    assert words == [["1990", "1991"]]


# -------------------------------------------------------------------------------------------------
# saved native models (their readers come from the adapters branch)
# -------------------------------------------------------------------------------------------------
def test_saved_gensim_model_is_dispatched(reuters, tmp_path):
    gensim = pytest.importorskip("gensim")
    import importlib.util

    if importlib.util.find_spec("tealeaves.models.adapters.gensim") is None:
        pytest.skip("gensim adapter (adapters branch) not on this branch")
    from tealeaves.models.adapters import gensim as adapter

    if not hasattr(adapter, "from_file"):
        pytest.skip("gensim.from_file not on this branch")
    from gensim.corpora import Dictionary

    docs = reuters[0].token_lists()[:200]
    dct = Dictionary(docs)
    lda = gensim.models.LdaModel([dct.doc2bow(d) for d in docs], num_topics=3, id2word=dct, random_state=0)
    lda.save(str(tmp_path / "g.lda"))
    assert paths.sniff_format(tmp_path / "g.lda") == "gensim-model"
    model = paths.load_path(tmp_path / "g.lda")
    assert model.top_words(5) == [[w for w, _ in lda.show_topic(k, 5)] for k in range(3)]


def test_saved_tomotopy_model_is_dispatched(reuters, tmp_path):
    tp = pytest.importorskip("tomotopy")
    mdl = tp.LDAModel(k=3, seed=1)
    for d in reuters[0].token_lists()[:200]:
        if d:
            mdl.add_doc(d)
    mdl.train(20)
    mdl.save(str(tmp_path / "t.bin"))
    assert paths.sniff_format(tmp_path / "t.bin") == "tomotopy"
    import importlib.util

    if importlib.util.find_spec("tealeaves.models.adapters.tomotopy") is None:
        pytest.skip("tomotopy adapter (adapters branch) not on this branch")
    from tealeaves.models.adapters import tomotopy as adapter

    if not hasattr(adapter, "from_file"):
        pytest.skip("tomotopy.from_file not on this branch")
    model = paths.load_path(tmp_path / "t.bin")
    assert model.top_words(5) == [[w for w, _ in mdl.get_topic_words(k, 5)] for k in range(3)]
