"""Coherence measures: the spec's hand-worked Reuters topics, the pipeline's pieces, and bad input."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from tealeaves.coherence import (
    Coherence,
    TopicError,
    ZeroCooccurrenceError,
    build_index,
    coherence,
    index_from_token_lists,
    score_counts,
)
from tealeaves.coherence.confirmation import LOGARITHMIC, SYMMETRIC, confirm
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, IndexIntegrityError
from tealeaves.signature import Signature

D = 7769
ENERGY = ["oil", "gas", "energy", "reserves", "production"]
ENERGY_DF = [730, 275, 237, 274, 515]
# spec §2: pair -> (co-document count, UMass term, PMI, NPMI)
ENERGY_PAIRS = {
    ("oil", "gas"): (207, -1.256, 2.081, 0.574),
    ("oil", "energy"): (147, -1.596, 1.887, 0.476),
    ("gas", "energy"): (84, -1.174, 2.304, 0.509),
    ("oil", "reserves"): (74, -2.276, 1.056, 0.227),
    ("gas", "reserves"): (51, -1.666, 1.660, 0.330),
    ("energy", "reserves"): (22, -2.333, 0.968, 0.165),
    ("oil", "production"): (169, -1.457, 1.251, 0.327),
    ("gas", "production"): (74, -1.299, 1.401, 0.301),
    ("energy", "production"): (76, -1.124, 1.576, 0.341),
    ("reserves", "production"): (49, -1.701, 0.992, 0.196),
}


def _energy_joint() -> np.ndarray:
    joint = np.diag(ENERGY_DF).astype(float)
    for (a, b), (c, *_) in ENERGY_PAIRS.items():
        i, j = ENERGY.index(a), ENERGY.index(b)
        joint[i, j] = joint[j, i] = c
    return joint


def test_spec_energy_topic_every_pair_and_totals():
    joint = _energy_joint()
    umass, umass_m = score_counts(ENERGY, joint, D, "umass")
    npmi, npmi_m = score_counts(ENERGY, joint, D, "npmi")
    _, pmi_m = score_counts(ENERGY, joint, D, "npmi", confirmation="pmi")
    for (a, b), (_, u, p, n) in ENERGY_PAIRS.items():
        # the first word is the higher-ranked one: it conditions the second (row W', column W*)
        assert round(umass_m.loc[b, a], 3) == u
        assert round(pmi_m.loc[a, b], 3) == p
        assert round(npmi_m.loc[a, b], 3) == n
    assert round(umass, 2) == -15.88
    assert round(npmi, 3) == 0.344


def test_spec_incoherent_topic_pairs():
    p = np.array([430, 97, 37, 342, 19]) / D  # department dutch guilders credit hughes
    never = [(0, 2), (1, 4), (2, 4), (3, 4)]
    for i, j in never:
        assert confirm("npmi", np.array(0.0), p[i], p[j], "limit") == -1.0
    # UMass term of a never co-occurring pair: log((0 + 1) / D(w_j)), w_j the higher-ranked word
    _, m = score_counts(["department", "guilders"], np.array([[430, 0], [0, 37]]), D, "umass")
    assert round(m.loc["guilders", "department"], 2) == -6.06 == round(math.log(1 / 430), 2)
    assert round(float(confirm("npmi", np.array(29 / D), p[1], p[2], "limit")), 3) == 0.740


def test_real_reuters_counts_for_the_spec_topics(reuters):
    """The default preprocessing of the training stories gives the spec's counts and the article's scores."""
    train = reuters[0]
    ix = build_index(train, name="reuters-train")
    assert ix.n_present == D
    for (a, b), (c, *_) in ENERGY_PAIRS.items():
        assert len(np.intersect1d(ix.postings(ix.word_id(a)), ix.postings(ix.word_id(b)))) == c
    assert [ix.document_frequency(ix.word_id(w)) for w in ENERGY] == ENERGY_DF
    assert round(coherence([ENERGY], ix, measure="umass").mean, 2) == -15.88
    assert round(coherence([ENERGY], ix, measure="npmi").mean, 3) == 0.344
    incoherent = ["department", "dutch", "guilders", "credit", "hughes"]
    assert [ix.document_frequency(ix.word_id(w)) for w in incoherent] == [430, 97, 37, 342, 19]
    npmi = coherence([incoherent], ix, measure="npmi")
    m = npmi.pair_matrix(0)
    never = [("department", "guilders"), ("dutch", "hughes"), ("guilders", "hughes"), ("credit", "hughes")]
    assert all(m.loc[a, b] == -1.0 for a, b in never)
    assert round(m.loc["dutch", "guilders"], 3) == 0.740
    # the article's totals for this topic, computed with its own counts of the remaining pairs
    assert round(coherence([incoherent], ix, measure="umass").mean, 2) == -37.50
    assert round(npmi.mean, 3) == -0.282


def _brute_npmi(docs, topic):
    n = len(docs)
    sets = [set(d) for d in docs]
    vals = []
    for a, b in itertools.combinations(topic, 2):
        pa = sum(a in s for s in sets) / n
        pb = sum(b in s for s in sets) / n
        pab = sum(a in s and b in s for s in sets) / n
        vals.append(-1.0 if pab == 0 else math.log(pab / (pa * pb)) / -math.log(pab))
    return float(np.mean(vals))


def test_npmi_on_an_index_equals_brute_force():
    rng = np.random.default_rng(5)
    docs = [[f"w{x}" for x in rng.integers(0, 12, rng.integers(1, 15))] for _ in range(300)]
    topics = [["w0", "w1", "w2", "w3"], ["w5", "w9", "w11"]]
    result = coherence(topics, docs, measure="npmi")
    for t, topic in enumerate(topics):
        assert result.topics[t].score == pytest.approx(_brute_npmi(docs, topic), abs=1e-12)


def test_cosine_segments_and_aggregations_against_a_direct_computation():
    rng = np.random.default_rng(7)
    docs = [[f"w{x}" for x in rng.integers(0, 8, rng.integers(1, 12))] for _ in range(200)]
    topic = ["w0", "w3", "w5", "w6"]
    res = coherence([topic], docs, measure="c_v", window="doc", aggregation="median")
    m = res.pair_matrix(0).to_numpy()  # NPMI matrix of the context vectors
    total = m.sum(axis=0)
    cos = [m[i] @ total / (np.linalg.norm(m[i]) * np.linalg.norm(total)) for i in range(4)]
    assert res.topics[0].score == pytest.approx(np.median(cos), abs=1e-12)
    one_all = coherence([topic], docs, measure="c_v", window="doc", segmentation="one-all")
    rest = [total - m[i] for i in range(4)]
    cos_all = [m[i] @ rest[i] / (np.linalg.norm(m[i]) * np.linalg.norm(rest[i])) for i in range(4)]
    assert one_all.topics[0].score == pytest.approx(np.mean(cos_all), abs=1e-12)


def test_signature_records_the_settings():
    docs = [["a", "b"], ["b", "c"], ["a", "c", "b"]]
    ix = index_from_token_lists(docs, name="tiny")
    res = coherence([["a", "b", "c"]], ix, measure="npmi")
    sig = Signature.parse(str(res.signature))
    assert sig.measure == "npmi"
    assert sig.fields["ref"] == f"tiny@{ix.checksum[:12]}"
    got = (sig.fields["win"], sig.fields["top"], sig.fields["seg"], sig.fields["zero"])
    assert got == ("doc", "10", "one-one", "limit")
    windowed = coherence([["a", "b", "c"]], ix, measure="c_v")
    assert Signature.parse(str(windowed.signature)).fields["count"] == "exact"


def test_missing_words_are_reported_never_nan():
    docs = [["a", "b", "c"], ["a", "c"], ["b", "d"]]
    res = coherence([["a", "zzz", "b", "c"], ["zzz", "yyy", "a"]], docs, measure="npmi")
    assert res.topics[0].missing == ["zzz"]
    assert res.topics[0].score == pytest.approx(_brute_npmi(docs, ["a", "b", "c"]))
    assert res.topics[1].score is None and res.topics[1].missing == ["zzz", "yyy"]
    assert res.mean == res.topics[0].score
    text = json.dumps(res.to_dict(), allow_nan=False)
    assert '"score": null' in text


def test_bad_topics_give_clear_errors():
    docs = [["a", "b", "c"], ["a", "c"]]
    with pytest.raises(TopicError, match="at least two"):
        coherence([["a"]], docs)
    with pytest.raises(TopicError, match="repeats 'a'"):
        coherence([["a", "b", "a"]], docs)
    with pytest.raises(EmptyInputError):
        coherence([], docs)
    with pytest.raises(EmptyInputError):
        coherence([["a", "b"]], [])
    with pytest.raises(ValueError, match="segmentation"):
        coherence([["a", "b"]], docs, segmentation="one-two")


def test_empty_reference_corpus_without_tokens():
    corpus = Corpus(Corpus.from_token_lists([["a"]]).vocabulary, np.zeros(0, np.int32), np.zeros(3, np.int64),
                    ["0", "1"])
    with pytest.raises(EmptyInputError, match="no tokens"):
        coherence([["a", "b"]], corpus)


def test_zero_policies():
    docs = [["a", "b"], ["c", "d"], ["a", "d"]]
    topic = [["a", "c"]]  # never together
    assert coherence(topic, docs, measure="npmi").topics[0].score == -1.0
    assert coherence(topic, docs, measure="npmi", zero="zero").topics[0].score == 0.0
    eps = coherence(topic, docs, measure="npmi", zero="epsilon").topics[0].score
    expected = math.log(1e-12 / (2 / 3 * 1 / 3)) / -math.log(1e-12)
    assert eps == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ZeroCooccurrenceError, match="'a' and 'c'"):
        coherence(topic, docs, measure="npmi", confirmation="pmi", zero="limit")
    # UMass's +1 smoothing never meets a zero
    assert coherence(topic, docs, measure="umass").topics[0].score == pytest.approx(math.log(1 / 2))


@pytest.mark.parametrize("zero", ["limit", "epsilon", "zero"])
def test_symmetric_confirmations_are_symmetric_bit_for_bit(zero):
    """Every measure listed as symmetric gives the same bits for ``(W*, W')`` as for ``(W', W*)``, zeros
    and words in every unit included: what lets the pair matrix be confirmed on one triangle."""
    rng = np.random.default_rng(5)
    n = 1000
    p_a, p_b = rng.integers(0, n + 1, 4000) / n, rng.integers(0, n + 1, 4000) / n
    p_ab = np.minimum(p_a, p_b) * rng.integers(0, 3, 4000) / 2  # a third never together
    for name in SYMMETRIC:
        if zero == "limit" and name in LOGARITHMIC:
            keep = p_ab > 0  # these raise before confirming a pair that never co-occurs
            ab, a, b = p_ab[keep], p_a[keep], p_b[keep]
        else:
            ab, a, b = p_ab, p_a, p_b
        assert confirm(name, ab, a, b, zero).tobytes() == confirm(name, ab, b, a, zero).tobytes(), name
    assert not set(SYMMETRIC) & {"log-conditional", "difference", "fitelson", "likelihood", "log-likelihood"}


@pytest.mark.parametrize("window", ["doc", 10])
def test_pair_matrix_of_one_triangle_equals_the_whole_confirmation(window):
    """The confirmation of every ordered pair of every topic, made on the upper triangle and mirrored for
    a symmetric measure, has the bits of the measure applied to the whole ``topics x k x k`` counts."""
    from tealeaves.coherence import measure
    from tealeaves.coherence.presets import resolve

    docs = [[f"w{x}" for x in np.random.default_rng(d).integers(0, 30, 40)] for d in range(300)]
    index = index_from_token_lists(docs)
    rng = np.random.default_rng(1)
    topics = [[f"w{x}" for x in rng.choice(30, 8, replace=False)] for _ in range(50)]
    for name in SYMMETRIC + ("log-conditional", "fitelson"):
        spec = resolve("npmi", window=window, confirmation=name, zero="epsilon")
        counts = measure._count_all(index, topics, spec)
        assert np.array_equal(counts.joint, counts.joint.transpose(0, 2, 1))
        p_ab, p = (counts.joint + spec.smoothing) / counts.n, counts.single / counts.n
        whole = confirm(name, p_ab, p[:, :, None], p[:, None, :], spec.zero, spec.log_base)
        got = measure._confirm_matrix(name, spec, counts.joint, counts.single, counts.n)
        assert got.tobytes() == whole.tobytes(), name


def test_window_larger_than_every_document_equals_document_counts():
    rng = np.random.default_rng(2)
    docs = [[f"w{x}" for x in rng.integers(0, 6, rng.integers(1, 9))] for _ in range(50)]
    topics = [["w0", "w1", "w2"], ["w3", "w4", "w5"]]
    a = coherence(topics, docs, measure="npmi", window=1000)
    b = coherence(topics, docs, measure="npmi", window="doc")
    assert a.scores == b.scores


def test_topics_from_a_model_and_files(tmp_path):
    from tealeaves.models import FixedTopicModel

    docs = [["a", "b", "c"], ["a", "c"], ["b", "d"], ["c", "d", "a"]]
    phi = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]])
    model = FixedTopicModel(phi, ["a", "b", "c", "d"])
    by_model = coherence(model, docs, top_n=3)
    assert [t.words for t in by_model.topics] == [["a", "b", "c"], ["d", "c", "b"]]
    path = model.save(tmp_path / "m.npz")
    assert coherence(path, docs, top_n=3).scores == by_model.scores
    txt = tmp_path / "topics.txt"
    txt.write_text("a b c\n\nd c b\n")
    assert Coherence(top_n=3).score(txt, docs).scores == by_model.scores


def test_corrupted_index_path_as_reference(tmp_path):
    ix = index_from_token_lists([["a", "b"], ["b", "c"]], name="t")
    path = ix.save(tmp_path / "t.tlx")
    data = bytearray(path.read_bytes())
    data[70] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(IndexIntegrityError, match="t.tlx"):
        coherence([["a", "b"]], path)


def test_cosine_gamma_never_gives_nan():
    docs = [["a", "b"], ["c", "d"], ["a", "d"], ["b", "c"], ["a", "b", "c"]]
    topic = [["a", "b", "c", "d"]]  # some NPMI values are negative
    base = coherence(topic, docs, measure="c_v", window="doc")
    m = base.pair_matrix(0).to_numpy()
    for gamma in (2.0, 0.5):
        vec = m ** gamma if gamma == 2.0 else np.sign(m) * np.abs(m) ** gamma
        total = vec.sum(axis=0)
        cos = [vec[i] @ total / (np.linalg.norm(vec[i]) * np.linalg.norm(total)) for i in range(4)]
        res = coherence(topic, docs, measure="c_v", window="doc", gamma=gamma)
        assert res.topics[0].score == pytest.approx(np.mean(cos), abs=1e-12)
    with pytest.raises(ValueError, match="gamma"):
        coherence(topic, docs, measure="c_v", gamma=0)


def _in_two_parts(monkeypatch):
    """Score every call in two parts of the topics, on two threads (whatever numba's thread count)."""
    import functools

    from tealeaves.coherence import measure

    monkeypatch.setattr(measure, "_THREADED_SCORING_ENTRIES", 1)
    monkeypatch.setattr(measure, "_score_parts", functools.partial(measure._score_parts, threads=2))


@pytest.mark.parametrize("preset, settings", [
    ("npmi", {"window": 10}), ("npmi", {"zero": "epsilon"}), ("umass", {}), ("c_v", {}),
    ("npmi", {"segmentation": "one-set", "window": 5}), ("uci", {"aggregation": "median"}),
])
def test_scoring_in_parts_on_threads_equals_one_part_bit_for_bit(monkeypatch, preset, settings):
    """A large call's confirmations and aggregations, split by topics among threads, give the bits of one
    part: scores, pair matrices and presence, with topics of several lengths and absent words."""
    from tealeaves.coherence import measure

    docs = [[f"w{x}" for x in np.random.default_rng(d).integers(0, 40, 30)] for d in range(200)]
    rng = np.random.default_rng(3)
    topics = [[f"w{x}" for x in rng.choice(45, int(rng.integers(3, 9)), replace=False)] for _ in range(61)]
    index = index_from_token_lists(docs)
    one = coherence(topics, index, measure=preset, **settings)
    assert len(measure._score_parts(len(topics), 8)) == 1
    _in_two_parts(monkeypatch)
    assert [(p.start, p.stop) for p in measure._score_parts(len(topics), 8)] == [(0, 30), (30, 61)]
    parts = coherence(topics, index, measure=preset, **settings)
    assert [t.score for t in parts.topics] == [t.score for t in one.topics]
    assert [t.missing for t in parts.topics] == [t.missing for t in one.topics]
    for a, b in zip(parts._matrices, one._matrices):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("topics, named", [
    ([["a", "b"]] * 7 + [["a", "d"], ["b", "d"]], "'a' and 'd' (topic 7)"),  # the error in the second part
    ([["a", "b", "d"]] + [["a", "b"]] * 7 + [["a", "d"]], "'a' and 'd' (topic 8)"),  # shorter topics first
    ([["a", "d"]] + [["a", "b"]] * 7 + [["b", "d"]], "'a' and 'd' (topic 0)"),
])
def test_scoring_in_parts_refuses_the_segment_one_part_refuses(monkeypatch, topics, named):
    """Under ``zero="limit"`` a call split among threads refuses the same never co-occurring segment as
    one part (the shortest failing topics first, the lowest number among them), numbered among all the
    topics."""
    from tealeaves.coherence.errors import ZeroCooccurrenceError

    docs = [["a", "b", "c"], ["a", "b"], ["c", "d"], ["d", "e"], ["a", "e", "b"]] * 5
    with pytest.raises(ZeroCooccurrenceError) as one:
        coherence(topics, docs, measure="uci", window="doc", zero="limit")
    assert named in str(one.value)
    _in_two_parts(monkeypatch)
    with pytest.raises(ZeroCooccurrenceError) as parts:
        coherence(topics, docs, measure="uci", window="doc", zero="limit")
    assert str(parts.value) == str(one.value)
