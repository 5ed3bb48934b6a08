"""Junk-topic flags: each rule on a hand-computed case, and the "mixed" rule on the article's incoherent
Reuters topic (department dutch guilders credit hughes court baker bonus ccc turkey) scored with NPMI on
the real training stories: it is flagged, the coherent energy topic is not."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tealeaves.comparison import (
    Score,
    background_flags,
    few_documents_flags,
    flag_topics,
    low_coherence_flags,
    low_recurrence_flags,
    mixed_topic,
    word_groups,
)
from tealeaves.signature import Signature

INCOHERENT = "department dutch guilders credit hughes court baker bonus ccc turkey".split()
ENERGY = "oil gas energy reserves production".split()


@pytest.fixture(scope="module")
def article_topics(reuters):
    from tealeaves.coherence import build_index, coherence

    index = build_index(reuters[0], name="reuters-train")
    return coherence([INCOHERENT, ENERGY], index, measure="npmi")


def test_article_topic_is_mixed_and_energy_is_not(article_topics):
    res = article_topics
    # the article's values: -0.329 with all ten words, 0.344 for the five energy words
    assert round(res.scores[0], 3) == -0.329 and round(res.scores[1], 3) == 0.344
    found = mixed_topic(res.pair_matrix(0))
    assert found["mixed"]
    groups = [set(g) for g in found["groups"]]
    assert {"dutch", "guilders"} in groups and {"hughes", "baker"} in groups
    assert all(m >= 0.2 for m in found["within"]) and found["between"] < 0
    # recompute the reported between-group mean from the matrix
    m = res.pair_matrix(0)
    label = {w: i for i, g in enumerate(found["groups"]) for w in g}
    cross = [(m.loc[x, y] + m.loc[y, x]) / 2 for x in label for y in label if label[x] < label[y]]
    assert found["between"] == pytest.approx(np.mean(cross), abs=1e-12)
    energy = mixed_topic(res.pair_matrix(1))
    assert not energy["mixed"] and energy["groups"] == [ENERGY]


def test_mixed_flag_explains_the_groups(article_topics):
    report = flag_topics(2, coherence=article_topics, whisker=1.5)
    # only two topics: low-coherence needs four scored topics, so it is skipped, and says so
    assert report.checked == ["mixed"] and "at least 4 scored topics" in report.skipped["low-coherence"]
    flags = report.of(0)
    assert [f.flag for f in flags] == ["mixed"] and report.of(1) == []
    assert "{dutch guilders} (0.74)" in flags[0].explanation
    frame = report.to_frame()
    assert frame["mixed"].tolist() == [True, False]
    assert report.to_dict()["flags"][0]["flag"] == "mixed"
    assert str(report.signature).startswith("topic-flags|coh=npmi|")


def test_word_groups_by_hand():
    words = list("abcd")
    m = pd.DataFrame([[1, 0.8, -1, -1], [0.8, 1, -1, -0.9], [-1, -1, 1, 0.5], [-1, -0.9, 0.5, 1]],
                     index=words, columns=words)
    assert word_groups(m) == [["a", "b"], ["c", "d"]]
    assert mixed_topic(m)["between"] == pytest.approx((-1 - 1 - 1 - 0.9) / 4)
    assert mixed_topic(m, within=0.6)["mixed"] is False  # the {c, d} group (0.5) is too weak


def _coh(scores):
    return SimpleNamespace(scores=scores, spec=SimpleNamespace(name="npmi"))


def test_low_coherence_fence_by_hand():
    # sorted -0.3 .28 .29 .30 .31 .32: Q1 = 0.2825, Q3 = 0.3075 (linear), fence 0.2825 - 1.5 * 0.025 = 0.245
    flags = low_coherence_flags(_coh([0.30, 0.32, 0.28, 0.31, 0.29, -0.30]))
    assert [f.topic for f in flags] == [5]
    assert flags[0].threshold == pytest.approx(0.245, abs=1e-12)
    assert "median 0.295" in flags[0].explanation
    assert low_coherence_flags(_coh([0.30, 0.32, 0.28, 0.31, None, 0.29])) == []


def test_low_recurrence_and_background_by_hand():
    assert [f.topic for f in low_recurrence_flags([1.0, 0.5, 0.0, 1.0])] == [2]
    frame = pd.DataFrame({"kl_vacuous": [2.0, 2.1, 1.9, 2.05, 0.1]})
    sig = Score("topic-significance", 1.0, Signature("topic-significance"), frame)
    flags = background_flags(sig)
    assert [f.topic for f in flags] == [4] and "close to the whole corpus" in flags[0].explanation


def test_few_documents_by_hand():
    theta = np.full((20, 2), 0.5)
    theta[:2] = [0.0, 1.0]     # topic 1 fills two long documents
    lengths = np.full(20, 10)
    lengths[:2] = 100
    # topic 1 mass: 2 x 100 + 18 x 5 = 290, of which the top 2 documents hold 200 (69%);
    # topic 0: 18 x 5 = 90, top 2 hold 10 (11%)
    flags = few_documents_flags(theta, lengths, top_documents=2, max_share=0.5)
    assert [f.topic for f in flags] == [1]
    assert flags[0].value == pytest.approx(200 / 290)


def test_flag_topics_combines_the_rules():
    frame = pd.DataFrame({"kl_vacuous": [2.0, 2.1, 1.9, 2.05, 0.1]})
    sig = Score("topic-significance", 1.0, Signature("topic-significance"), frame)
    report = flag_topics(5, recurrence=[1, 1, 0, 1, 1], significance=sig)
    assert report.checked == ["low-recurrence", "background"]
    table = report.to_frame()
    assert table["low-recurrence"].tolist() == [False, False, True, False, False]
    assert table["background"].tolist() == [False, False, False, False, True]
    assert table.loc[0, "explanation"] == ""


def test_all_flags_on_real_runs(reuters):
    """Every rule on real scikit-learn LDA runs (600 Reuters stories), each recomputed independently."""
    from tealeaves.coherence import build_index, coherence
    from tealeaves.comparison import topic_significance, topic_stability
    from tealeaves.models.sklearn_lda import SklearnLDA

    train = reuters[0].subset(range(600))
    runs = [SklearnLDA(8, learning_method="batch", max_iter=5, random_state=s).fit(train) for s in range(3)]
    model, theta, lengths = runs[0], runs[0].transform(train), train.lengths
    coh = coherence(model, build_index(train, name="r600"), "npmi")
    stab = topic_stability(runs)
    sig = topic_significance(model, theta, lengths)
    report = flag_topics(8, coherence=coh, recurrence=stab.recurrence(0), significance=sig, theta=theta,
                         doc_lengths=lengths, top_documents=10, max_share=0.3)
    assert report.checked == ["low-coherence", "low-recurrence", "background", "few-documents", "mixed"]
    got = {name: sorted(f.topic for f in report.flags if f.flag == name) for name in report.checked}
    scores = np.array(coh.scores)
    q1, q3 = np.percentile(scores, [25, 75])
    assert got["low-coherence"] == sorted(np.flatnonzero(scores < q1 - 1.5 * (q3 - q1)).tolist())
    assert got["low-recurrence"] == sorted(np.flatnonzero(stab.recurrence(0) < 0.5).tolist())
    mass = theta * lengths[:, None]
    share = np.array([np.sort(mass[:, k])[::-1][:10].sum() / mass[:, k].sum() for k in range(8)])
    assert got["few-documents"] == np.flatnonzero(share > 0.3).tolist()
    assert got["mixed"] == [k for k in range(8) if mixed_topic(coh.pair_matrix(k))["mixed"]]
    frame = report.to_frame()
    assert len(frame) == 8 and all(frame.loc[f.topic, f.flag] for f in report.flags)
    assert all(f.explanation for f in report.flags)
