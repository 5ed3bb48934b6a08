"""Conventions of other tools: jhlau/topic_interpretability, Palmetto, tomotopy; set segmentations; several
cardinalities.

* jhlau: an independent re-implementation of ``ComputeWordCount.py`` / ``ComputeObservedCoherence.py``
  from their definitions (plain Python over token lists), against the ``jhlau_*`` presets on real
  Reuters stories, to 1e-9;
* Palmetto: each preset (``palmetto_uci``, ``palmetto_npmi``, ``c_p``, ``c_a``) on hand-computed counts;
* the word-set counts of the core, the new confirmations and segmentations against brute force;
* tomotopy 0.14's ``Coherence`` where its definitions match (the largest differences are printed).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from conftest import FULL
from tealeaves.coherence import coherence, core, index_from_token_lists, score_counts

EPS = 1e-12


# --------------------------------------------------------------------------------------------
# jhlau/topic_interpretability, re-implemented from its definition
# --------------------------------------------------------------------------------------------
def jhlau_counts(docs, topics, window):
    """ComputeWordCount.py: every document (line) gives ``n + w - 1`` windows, window ``t = 1 .. n + w - 1``
    holding tokens ``[max(0, t - w), t)``; ``w = 0`` makes the document one window.  A word counts once
    per window holding it, a pair of words of one topic once per window holding both."""
    related: dict[str, set[str]] = {}
    for topic in topics:
        for w1 in topic:
            for w2 in topic:
                if w1 != w2:
                    related.setdefault(w1, set()).add(w2)
    counts: Counter = Counter()
    total = 0
    for doc in docs:
        n_windows = len(doc) + window - 1 if window else 1
        total += n_windows
        for tail in range(1, n_windows + 1):
            in_window = doc[max(0, tail - window):tail] if window else doc
            seen = sorted({w for w in in_window if w in related})
            for w in seen:
                counts[w] += 1
            for i, w1 in enumerate(seen):
                for w2 in seen[i + 1:]:
                    if w2 in related[w1]:
                        counts[(w1, w2)] += 1
    return counts, total


def jhlau_coherence(topic, counts, total, metric):
    """ComputeObservedCoherence.py: the mean over pairs ``i < j`` of PMI in log base 10 (NPMI: divided by
    ``-log10 P(w_i, w_j)``); a pair with any zero count scores 0."""
    values = []
    for i, j in itertools.combinations(range(len(topic)), 2):
        w1, w2 = topic[i], topic[j]
        c12 = counts[(min(w1, w2), max(w1, w2))]
        c1, c2 = counts[w1], counts[w2]
        if c1 == 0 or c2 == 0 or c12 == 0:
            values.append(0.0)
            continue
        pmi = math.log10(c12 * total / (c1 * c2))
        values.append(pmi / -math.log10(c12 / total) if metric == "npmi" else pmi)
    return sum(values) / len(values)


@pytest.fixture(scope="module")
def jhlau_setup(reuters, reuters_lda):
    """A few hundred real training stories, and the top 10 words of 20 LDA topics on all of them."""
    n_docs = 2000 if FULL else 300
    docs = reuters[0].token_lists()[:n_docs]
    topics = reuters_lda(20, quick=not FULL).top_words(10)
    return docs, topics


@pytest.mark.parametrize("window", [0, 20])
@pytest.mark.parametrize("metric", ["npmi", "pmi"])
def test_jhlau_presets_equal_topic_interpretability(jhlau_setup, window, metric):
    docs, topics = jhlau_setup
    counts, total = jhlau_counts(docs, topics, window)
    expected = [jhlau_coherence(t, counts, total, metric) for t in topics]
    result = coherence(topics, docs, measure=f"jhlau_{metric}", window="doc" if window == 0 else window)
    assert any(t.missing for t in result.topics)  # words absent from the 300 stories score 0, as in jhlau
    diff = max(abs(a - b) for a, b in zip(result.scores, expected))
    print(f"jhlau {metric} window {window}: largest difference {diff:.2e}")
    assert diff <= 1e-9
    assert "log=10|absent=zero" in str(result.signature)


def test_jhlau_windows_in_the_core_match_brute_force():
    """n + w - 1 windows per document, also for documents shorter than the window and empty ones."""
    rng = np.random.default_rng(5)
    docs = [[f"w{x}" for x in rng.integers(0, 6, rng.integers(0, 12))] for _ in range(60)]
    ix = index_from_token_lists(docs)
    words = ["w0", "w1", "w2", "w3"]
    ids = [ix.word_id(w) for w in words]
    pairs = list(itertools.combinations(range(4), 2))
    for w in (1, 3, 15):
        windows = [set(d[max(0, t - w):t]) for d in docs for t in range(1, len(d) + w)]
        c = core.count_windows(ix, ids, pairs, w, compat="jhlau")
        assert c.n_units == len(windows) == sum(len(d) + w - 1 for d in docs)
        assert list(c.single) == [sum(x in u for u in windows) for x in words]
        assert list(c.joint) == [sum(words[i] in u and words[j] in u for u in windows) for i, j in pairs]


# --------------------------------------------------------------------------------------------
# word-set counts and context windows of the core
# --------------------------------------------------------------------------------------------
def _units(doc, window, compat):
    if window is None:
        return [set(doc)]
    if compat == "jhlau":
        return [set(doc[max(0, t - window):t]) for t in range(1, len(doc) + window)]
    if len(doc) <= window:
        return [set(doc)]
    return [set(doc[s:s + window]) for s in range(len(doc) - window + 1)]


@pytest.mark.parametrize("window,compat", [(None, "exact"), (3, "exact"), (4, "jhlau"), (30, "exact")])
def test_subset_counts_match_brute_force(window, compat):
    rng = np.random.default_rng(1)
    docs = [[f"w{x}" for x in rng.integers(0, 7, rng.integers(0, 16))] for _ in range(50)]
    ix = index_from_token_lists(docs)
    words = ["w0", "w1", "w2", "w3", "w4"]
    ids = [ix.word_id(w) for w in words]
    topics = np.array([[0, 1, 2, 3, 4], [4, 2, 0, -1, -1]])
    counts, n = core.count_subsets(ix, ids, topics, window, compat)
    units = [u for d in docs for u in _units(d, window, compat)]
    assert n == len(units)
    for t in range(2):
        for mask in range(1, 32):
            pos = [i for i in range(5) if mask >> i & 1]
            if any(topics[t, i] < 0 for i in pos):
                continue
            need = {words[topics[t, i]] for i in pos}
            assert counts[t, mask] == sum(need <= u for u in units), (t, mask)


def test_context_window_counts_match_brute_force():
    rng = np.random.default_rng(2)
    docs = [[f"w{x}" for x in rng.integers(0, 5, rng.integers(1, 20))] for _ in range(30)]
    ix = index_from_token_lists(docs)
    words = ["w0", "w1", "w2"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    c = core.count_context(ix, [ix.word_id(w) for w in words], pairs, 3)
    for m, (i, j) in enumerate(pairs):
        assert c.joint[m] == sum(1 for d in docs for p, a in enumerate(d) for q, b in enumerate(d)
                                 if a == words[i] and b == words[j] and abs(p - q) <= 3)
    assert list(c.single) == [sum(d.count(w) for d in docs) for w in words]
    assert c.n_units == sum(len(d) - 2 for d in docs)


# --------------------------------------------------------------------------------------------
# Palmetto's presets on hand-computed counts
# --------------------------------------------------------------------------------------------
def _joint(single, pairs):
    joint = np.diag(np.array(single, dtype=float))
    for (i, j), c in pairs.items():
        joint[i, j] = joint[j, i] = c
    return joint


def test_palmetto_uci_and_npmi_hand_example():
    # min count 100 (10 x window 10): c (90 windows) and the pair b,c (80) count as 0
    n = 10_000
    joint = _joint([500, 300, 90], {(0, 1): 120, (0, 2): 50, (1, 2): 80})
    pa, pb, pab = 500 / n, 300 / n, 120 / n
    lr = math.log((pab + EPS) / (pa * pb))
    nlr = lr / -math.log(pab + EPS)
    # one-one: 6 ordered pairs, the four with c (probability 0) score 0 and count in the mean
    uci, _ = score_counts(["a", "b", "c"], joint, n, "palmetto_uci")
    npmi, _ = score_counts(["a", "b", "c"], joint, n, "palmetto_npmi")
    assert uci == pytest.approx(2 * lr / 6, abs=1e-12)
    assert npmi == pytest.approx(2 * nlr / 6, abs=1e-12)
    # a pair below the minimum but both words above it: P(a, b) = 0, so log(eps / (P(a) P(b)))
    joint2 = _joint([500, 300], {(0, 1): 99})
    got, _ = score_counts(["a", "b"], joint2, n, "palmetto_npmi")
    assert got == pytest.approx(math.log(EPS / (pa * pb)) / -math.log(EPS), abs=1e-12)


def test_palmetto_umass_hand_example():
    # boolean documents, min count 10: the pair a,c (7 documents) counts as 0; one-pre, log((P + eps) / P(W*))
    n = 500
    joint = _joint([60, 40, 12], {(0, 1): 20, (0, 2): 7, (1, 2): 10})
    expected = (math.log((20 / n + EPS) / (60 / n)) + math.log((0 + EPS) / (60 / n))
                + math.log((10 / n + EPS) / (40 / n))) / 3
    got, _ = score_counts(["a", "b", "c"], joint, n, "palmetto_umass")
    assert got == pytest.approx(expected, abs=1e-12)
    # a word below the minimum (9 documents): its segments score 0 and count
    joint = _joint([60, 9], {(0, 1): 5})
    assert score_counts(["a", "b"], joint, n, "palmetto_umass")[0] == 0.0


@pytest.mark.parametrize("confirmation,value", [("difference", -0.1), ("fitelson", -1.0), ("jaccard", 0.0),
                                                ("log-jaccard", math.log(EPS / 0.1)), ("npmi", 0.0),
                                                ("log-ratio", 0.0)])
def test_absent_words_take_palmetto_values(confirmation, value):
    """A word below the minimum count: Palmetto's arithmetic at probability 0 (W' absent: 0, but
    log-Jaccard, symmetric, is log(eps / P(a)) either way)."""
    n = 1000
    joint = _joint([100, 5], {(0, 1): 5})  # b (5 < 10) is absent under min_count=10
    got, _ = score_counts(["a", "b"], joint, n, "palmetto_umass", confirmation=confirmation)
    # one-pre: the single segment (W' = b, W* = a) has W' absent; one-succeeding: (W' = a, W* = b)
    assert got == (value if confirmation == "log-jaccard" else 0.0)
    got, _ = score_counts(["a", "b"], joint, n, "palmetto_umass", confirmation=confirmation,
                          segmentation="one-succeeding")
    assert got == pytest.approx(value, abs=1e-12)


def test_palmetto_c_p_hand_example():
    # min count 700 (10 x window 70); one-pre: (b | a), (c | a), (c | b); Fitelson's measure
    n = 100_000
    joint = _joint([5000, 3000, 800], {(0, 1): 1000, (0, 2): 650, (1, 2): 750})
    p = {"a": 0.05, "b": 0.03, "c": 0.008, "ab": 0.01, "ac": 0.0, "bc": 0.0075}

    def fitelson(x, y, xy):
        cond = p[xy] / p[y]
        other = (p[x] - p[xy]) / (1 - p[y])
        return (cond - other) / (cond + other)

    expected = (fitelson("b", "a", "ab") + fitelson("c", "a", "ac") + fitelson("c", "b", "bc")) / 3
    got, matrix = score_counts(["a", "b", "c"], joint, n, "c_p")
    assert fitelson("c", "a", "ac") == -1.0
    assert got == pytest.approx(expected, abs=1e-12)
    assert matrix.loc["b", "a"] == pytest.approx(fitelson("b", "a", "ab"), abs=1e-12)


def test_palmetto_c_a_hand_example():
    """Context windows of +-5 tokens: occurrence pairs at most 5 apart; NPMI vectors (with the word itself,
    epsilon as Palmetto), cosine over one-one; min_count lowered to 0 for this small example."""
    docs = [["a", "x", "b", "x", "x", "x", "x", "a", "b", "c"],
            ["b", "x", "x", "a", "x", "x", "x", "x", "x", "x", "c", "c"],
            ["c", "a", "x", "x", "x", "x", "x", "x", "b"]]
    words = ["a", "b", "c"]
    tokens = {w: sum(d.count(w) for d in docs) for w in words}  # a 3, b 4, c 4
    near = {}
    for x, y in itertools.combinations(words, 2):
        near[x, y] = near[y, x] = sum(1 for d in docs for i, s in enumerate(d) for j, t in enumerate(d)
                                      if s == x and t == y and abs(i - j) <= 5)
    n = sum(len(d) - 4 for d in docs)
    prob = {w: tokens[w] / n for w in words}
    joint = {(x, y): (near[x, y] if x != y else tokens[x]) / n for x in words for y in words}

    def npmi(x, y):
        j = joint[x, y] + EPS
        return math.log(j / (prob[x] * prob[y])) / -math.log(j)

    vec = {x: np.array([npmi(x, y) for y in words]) for x in words}
    cos = [vec[x] @ vec[y] / (np.linalg.norm(vec[x]) * np.linalg.norm(vec[y]))
           for x in words for y in words if x != y]
    result = coherence([words], docs, measure="c_a", min_count=0)
    assert result.scores[0] == pytest.approx(np.mean(cos), abs=1e-12)
    assert "count=context" in str(result.signature)
    # with Palmetto's minimum (50 = 10 x 5) every count of this example is 0: every segment scores 0
    assert coherence([words], docs, measure="c_a").scores[0] == 0.0


def test_palmetto_window_presets_count_exact_sliding_windows():
    """palmetto_npmi counts boolean sliding windows of 10 (n - 9 per document, one for a shorter one)."""
    docs = [["a"] + ["x"] * 12 + ["b"], ["a", "b", "x"], ["x"] * 5 + ["a"] + ["x"] * 3 + ["b"] + ["x"] * 5]
    windows = [set(d[s:s + 10]) for d in docs for s in range(max(1, len(d) - 9))]
    n = len(windows)
    ca = sum("a" in u for u in windows)
    cb = sum("b" in u for u in windows)
    cab = sum({"a", "b"} <= u for u in windows)
    lr = math.log((cab / n + EPS) / (ca * cb / n ** 2)) / -math.log(cab / n + EPS)
    got = coherence([["a", "b"]], docs, measure="palmetto_npmi", min_count=0).scores[0]
    assert got == pytest.approx(lr, abs=1e-12)


def test_c_v_is_unchanged_and_palmetto_c_v_adds_the_minimum():
    docs = [["a", "b", "c"], ["a", "c"], ["b", "d"], ["c", "d", "a"]] * 3
    topics = [["a", "b", "c", "d"]]
    base = coherence(topics, docs, measure="c_v")
    assert str(base.signature).startswith("c_v|") and "min=" not in str(base.signature)
    same = coherence(topics, docs, measure="palmetto_c_v", min_count=0, zero="limit", absent="skip")
    assert same.scores == base.scores


# --------------------------------------------------------------------------------------------
# the new confirmations and segmentations against their formulas and brute force
# --------------------------------------------------------------------------------------------
def test_new_direct_confirmations_by_hand():
    n = 1000
    joint = _joint([200, 100], {(0, 1): 40})
    pa, pb, pab = 0.2, 0.1, 0.04
    hand = {
        "difference": pab / pa - pb,  # one-pre: W' = b, W* = a
        "ratio": pab / (pa * pb),
        "fitelson": ((pab / pa) - (pb - pab) / (1 - pa)) / ((pab / pa) + (pb - pab) / (1 - pa)),
        "jaccard": pab / (pa + pb - pab),
        "log-jaccard": math.log(pab / (pa + pb - pab)),
        "log-ratio": math.log(pab / (pa * pb)),
        "likelihood": (pab / pa) / ((pb - pab) / (1 - pa) + EPS),
        "log-likelihood": math.log((pab / pa + EPS) / ((pb - pab) / (1 - pa) + EPS)),
    }
    for name, value in hand.items():
        got, _ = score_counts(["a", "b"], joint, n, "npmi", segmentation="one-pre", confirmation=name)
        assert got == pytest.approx(value, abs=1e-12), name
    got, _ = score_counts(["a", "b"], joint, n, "jhlau_pmi")
    assert got == pytest.approx(math.log10(pab / (pa * pb)), abs=1e-12)
    got, _ = score_counts(["a", "b"], joint, n, "npmi", segmentation="one-succeeding",
                          confirmation="log-conditional")
    assert got == pytest.approx(math.log(pab / pb), abs=1e-12)  # W' = a, W* = b


def test_indirect_dice_and_jaccard_by_hand():
    docs = [["a", "b"], ["c", "d"], ["a", "d"], ["b", "c"], ["a", "b", "c"]]
    topic = [["a", "b", "c"]]
    m = coherence(topic, docs, measure="c_v", window="doc").pair_matrix(0).to_numpy()
    total = m.sum(axis=0)
    dice = [2 * np.minimum(m[i], total).sum() / (m[i] + total).sum() for i in range(3)]
    jac = [np.minimum(m[i], total).sum() / np.maximum(m[i], total).sum() for i in range(3)]
    got_d = coherence(topic, docs, measure="c_v", window="doc", confirmation="dice").scores[0]
    got_j = coherence(topic, docs, measure="c_v", window="doc", confirmation="indirect-jaccard").scores[0]
    assert got_d == pytest.approx(np.mean(dice), abs=1e-12)
    assert got_j == pytest.approx(np.mean(jac), abs=1e-12)


def _brute_segments(name, k):
    full = set(range(k))
    subsets = [set(c) for r in range(1, k + 1) for c in itertools.combinations(range(k), r)]
    if name == "one-any":
        return [({i}, s) for i in range(k) for s in subsets if i not in s]
    return [(a, b) for a in subsets if a != full for b in subsets if not a & b]


@pytest.mark.parametrize("segmentation", ["one-any", "any-any"])
@pytest.mark.parametrize("confirmation", ["fitelson", "difference", "log-ratio", "cosine"])
def test_set_segmentations_match_brute_force(segmentation, confirmation):
    rng = np.random.default_rng(3)
    docs = [[f"w{x}" for x in rng.integers(0, 6, rng.integers(1, 10))] for _ in range(40)]
    words = ["w0", "w1", "w2", "w3"]
    units = [set(d[s:s + 4]) for d in docs for s in range(max(1, len(d) - 3))]
    n = len(units)

    def p(ws):
        return sum(set(ws) <= u for u in units) / n

    def npmi(x, y):
        j = p({x, y}) + EPS
        return math.log(j / (p({x}) * p({y}))) / -math.log(j)

    vec = {x: np.array([npmi(x, y) for y in words]) for x in words}
    values = []
    for a, b in _brute_segments(segmentation, 4):
        wa, wb = [words[i] for i in a], [words[i] for i in b]
        pa, pb, pab = p(wa), p(wb), p(wa + wb)
        if confirmation == "cosine":
            u, z = sum(vec[w] for w in wa), sum(vec[w] for w in wb)
            values.append(u @ z / (np.linalg.norm(u) * np.linalg.norm(z)))
        elif confirmation == "log-ratio":
            values.append(math.log((pab + EPS) / (pa * pb)) if pa > 0 and pb > 0 else 0.0)
        elif confirmation == "difference":
            values.append((pab / pb if pb > 0 else 0.0) - pa)
        else:
            cond = pab / pb if pb > 0 else 0.0
            other = (pa - pab) / (1 - pb) if pb < 1 else 0.0
            values.append((cond - other) / (cond + other) if cond + other > 0 else 0.0)
    got = coherence([words], docs, measure="npmi", window=4, segmentation=segmentation,
                    confirmation=confirmation, zero="epsilon")
    assert got.scores[0] == pytest.approx(np.mean(values), abs=1e-12)


def test_several_cardinalities_are_the_mean_of_each():
    rng = np.random.default_rng(4)
    docs = [[f"w{x}" for x in rng.integers(0, 30, rng.integers(5, 40))] for _ in range(80)]
    topics = [[f"w{x}" for x in rng.permutation(30)[:12]] for _ in range(4)]
    ix = index_from_token_lists(docs)
    for measure, extra in [("npmi", {}), ("c_v", {}), ("umass", {}), ("npmi", {"segmentation": "one-any"})]:
        cards = [3, 6, 9] if "segmentation" in extra else [5, 8, 12]
        mean = coherence(topics, ix, measure=measure, top_n=cards, **extra)
        each = [coherence([t[:n] for t in topics], ix, measure=measure, top_n=n, **extra).scores
                for n in cards]
        for t, res in enumerate(mean.topics):
            assert res.score == pytest.approx(np.mean([e[t] for e in each]), abs=1e-12)
            assert res.by_top == {n: e[t] for n, e in zip(cards, each)}
        assert f"top={','.join(map(str, cards))}" in str(mean.signature)


def test_cli_choices_are_the_modules_constants():
    from tealeaves.coherence.cli import CHOICES
    from tealeaves.coherence.confirmation import DIRECT, INDIRECT, LOG_BASES, ZERO_POLICIES
    from tealeaves.coherence.presets import ABSENT_POLICIES, PRESETS, WINDOW_KINDS
    from tealeaves.coherence.segmentation import SEGMENTATIONS

    assert CHOICES["segmentation"] == tuple(SEGMENTATIONS)
    assert CHOICES["confirmation"] == DIRECT + INDIRECT
    assert CHOICES["zero"] == ZERO_POLICIES and CHOICES["compat"] == core.COMPAT_MODES
    assert CHOICES["log_base"] == tuple(LOG_BASES) and CHOICES["absent"] == ABSENT_POLICIES
    assert CHOICES["window_kind"] == WINDOW_KINDS and CHOICES["measure"] == tuple(PRESETS)


# --------------------------------------------------------------------------------------------
# tomotopy 0.14 where the definitions match
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tomotopy_setup(reuters, reuters_lda):
    pytest.importorskip("tomotopy")
    import tomotopy as tp

    # tomotopy's Corpus drops empty documents (and so counts fewer documents): give both the same stories
    texts = [d for d in reuters[0].token_lists() if d]
    corpus = tp.utils.Corpus()
    for doc in texts:
        corpus.add_doc(words=doc)
    topics = reuters_lda(20, quick=not FULL).top_words(10)
    return corpus, topics, index_from_token_lists(texts, name="reuters-nonempty")


DIRECT_PARITY = [("one-one", "DIFFERENCE", "difference", 1e-9), ("one-pre", "DIFFERENCE", "difference", 1e-9),
                 ("one-one", "RATIO", "ratio", 1e-5), ("one-one", "PMI", "pmi", 1e-7),
                 ("one-pre", "NPMI", "npmi", 1e-8), ("one-set", "NPMI", "npmi", 1e-7),
                 ("one-all", "PMI", "pmi", 1e-6), ("one-all", "DIFFERENCE", "difference", 1e-7),
                 ("one-set", "RATIO", "ratio", 1e-5), ("one-one", "LIKELIHOOD", "likelihood", 1e-6),
                 # tomotopy adds eps outside the logarithm's ratio (log(x + eps)): equal where every pair
                 # co-occurs, and compared on those topics only
                 ("one-pre", "LOGLIKELIHOOD", "log-likelihood", 1e-6),
                 ("one-pre", "LOGCOND", "log-conditional", 1e-9)]


@pytest.mark.parametrize("seg,tp_cm,ours,tol", DIRECT_PARITY)
def test_tomotopy_direct_measures(tomotopy_setup, seg, tp_cm, ours, tol):
    from tomotopy.coherence import Coherence, ConfirmMeasure, ProbEstimation, Segmentation

    corpus, topics, ix = tomotopy_setup
    targets = sorted({w for t in topics for w in t})
    tseg = Segmentation[seg.upper().replace("-", "_")]
    co = Coherence(corpus, coherence=(ProbEstimation.DOCUMENT, tseg, ConfirmMeasure[tp_cm]), targets=targets)
    theirs = np.array([co.get_score(words=t) for t in topics])
    mine = np.array(coherence(topics, ix, measure="npmi", window="doc", segmentation=seg, confirmation=ours,
                              zero="epsilon").scores, dtype=float)
    if tp_cm in ("LOGLIKELIHOOD", "LOGCOND"):
        npmi = coherence(topics, ix, measure="npmi")
        keep = [t for t in range(len(topics)) if (npmi.pair_matrix(t).to_numpy() > -1).all()]
        assert len(keep) >= 3
        theirs, mine = theirs[keep], mine[keep]
    diff = float(np.max(np.abs(theirs - mine)))
    print(f"tomotopy {seg} {tp_cm}: largest difference {diff:.2e}")
    assert diff <= tol


@pytest.mark.parametrize("seg,tp_im,ours,factor", [("one-set", "COSINE", "cosine", 1.0),
                                                    ("one-one", "COSINE", "cosine", 1.0),
                                                    ("one-set", "DICE", "dice", 2.0),
                                                    ("one-set", "JACCARD", "indirect-jaccard", 1.0),
                                                    ("one-one", "JACCARD", "indirect-jaccard", 1.0)])
def test_tomotopy_indirect_measures(tomotopy_setup, seg, tp_im, ours, factor):
    """tomotopy builds context vectors over all its ``targets``: one topic's words each, to match Röder et
    al.; it computes them in float32 and its Dice lacks the factor 2."""
    from tomotopy.coherence import Coherence, ConfirmMeasure, IndirectMeasure, ProbEstimation, Segmentation

    corpus, topics, ix = tomotopy_setup
    tseg = Segmentation[seg.upper().replace("-", "_")]
    measure = (ProbEstimation.DOCUMENT, tseg, ConfirmMeasure.NPMI, IndirectMeasure[tp_im])
    theirs = np.array([Coherence(corpus, coherence=measure, targets=t).get_score(words=t) for t in topics])
    mine = np.array(coherence(topics, ix, measure="c_v", window="doc", segmentation=seg, confirmation=ours,
                              zero="epsilon").scores, dtype=float)
    diff = float(np.max(np.abs(factor * theirs - mine)))
    print(f"tomotopy {seg} {tp_im}: largest difference {diff:.2e}")
    assert diff <= 1e-6


# --------------------------------------------------------------------------------------------
# tmtoolkit's metric_coherence_mimno_2011(eps=1e-12, normalize=True), re-implemented from its code
# --------------------------------------------------------------------------------------------
def test_tmtoolkit_umass_adds_the_epsilon_to_the_count():
    docs = [["a", "b", "c"], ["a", "b"], ["b", "c"], ["a", "d"], ["c", "d"], ["d"]] * 2
    topic = ["a", "b", "c", "d"]  # ranked: tmtoolkit pairs (v_m, v_l), l < m, conditioned on the earlier v_l
    n_docs = len(docs)
    df = {w: sum(w in d for d in docs) for w in topic}
    codf = {(u, v): sum(u in d and v in d for d in docs) for u in topic for v in topic}
    pairs = [(topic[m], topic[l]) for m in range(1, len(topic)) for l in range(m)]
    tmtoolkit = sum(math.log((codf[pair] + 1e-12) / df[pair[1]]) for pair in pairs) / len(pairs)
    got = coherence([topic], docs, measure="tmtoolkit_umass", n_top=4).scores[0]
    assert got == pytest.approx(tmtoolkit, abs=1e-12)
    # gensim's u_mass adds the epsilon to the probability: b-d never co-occur, a gap of log(N) / 6 pairs
    gensim = coherence([topic], docs, measure="umass", n_top=4, smoothing=0, zero="epsilon",
                       aggregation="mean").scores[0]
    never = sum(codf[pair] == 0 for pair in pairs)
    assert gensim - got == pytest.approx(never * math.log(n_docs) / len(pairs), abs=1e-9)
