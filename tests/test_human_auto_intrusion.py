"""Automated word intrusion (Lau, Newman and Baldwin 2014): association sums by hand on a tiny reference,
the predictions written as judgments and scored by `human score`'s code, the CLI, and accuracy above
chance on a study built from a real model (Reuters LDA) against a real reference (the test stories)."""

from __future__ import annotations

import json
import math

import pytest

from conftest import FULL
from tealeaves.coherence import index_from_token_lists
from tealeaves.human import Study, auto_intrusion, read_results, score
from tealeaves.human.automatic import item_features

DOCS = [["a", "b", "c"], ["a", "b"], ["b", "c"], ["a", "c"], ["x", "y"], ["x"], ["a", "b", "c", "x"]]


def _study(items):
    return Study(name="toy", seed=0, settings={}, items=items)


def test_item_features_by_hand():
    ref = index_from_token_lists(DOCS)
    feats = item_features(ref, ["a", "b", "x"])
    n, eps = 7, 1e-12
    df = {"a": 4, "b": 4, "x": 3}
    co = {("a", "b"): 3, ("a", "x"): 1, ("b", "x"): 1}

    def joint(u, v):
        return co.get((u, v), co.get((v, u))) / n + eps

    for i, w in enumerate(["a", "b", "x"]):
        others = [o for o in ["a", "b", "x"] if o != w]
        pmi = [math.log(joint(w, o) / (df[w] / n * df[o] / n)) for o in others]
        npmi = [p / -math.log(joint(w, o)) for p, o in zip(pmi, others)]
        cp1 = [joint(w, o) / (df[o] / n) for o in others]
        cp2 = [joint(w, o) / (df[w] / n) for o in others]
        assert feats[i] == pytest.approx([sum(pmi), sum(npmi), sum(cp1), sum(cp2)], abs=1e-12)


def test_auto_intrusion_predicts_the_least_associated_word_and_scores_like_people(tmp_path):
    ref = index_from_token_lists(DOCS)
    items = [{"id": "wi-0", "task": "word_intrusion", "topic": 0, "options": ["b", "x", "a", "c"],
              "answer": "x", "top_words": ["a", "b", "c"], "check": False},
             {"id": "wi-1", "task": "word_intrusion", "topic": 1, "options": ["c", "y", "a", "b"],
              "answer": "y", "top_words": ["a", "b", "c"], "check": False},
             {"id": "check-wi-0", "task": "word_intrusion", "options": ["a", "b", "y"], "answer": "y",
              "expected": ["y"], "check": True, "top_words": ["a", "b"]}]
    study = _study(items)
    res = auto_intrusion(study, ref, method="npmi")
    # item 0: x co-occurs once with a, b, c each, the topic words 2-3 times with each other
    # item 1: y never co-occurs with a, b or c (NPMI near -1 each, with the 1e-12 epsilon)
    assert list(res.predictions["predicted"]) == ["x", "y"]  # the check item is not answered
    assert res.accuracy == 1.0 and res.chance == pytest.approx(1 / 4)
    judgments = res.judgments()
    assert set(judgments["annotator"]) == {"auto:npmi"} and list(judgments["item_id"]) == ["wi-0", "wi-1"]
    # the same model-precision code as for people: a correct choice scores 1
    path = tmp_path / "auto.csv"
    judgments.to_csv(path, index=False)
    scored = score(read_results(str(path), study), study)
    precision = {t["topic"]: t["model_precision"] for t in scored["topics"]}
    assert precision == {"0": 1.0, "1": 1.0}


def test_auto_intrusion_cli_writes_judgments(tmp_path, run_cli):
    docs = tmp_path / "ref.txt"
    docs.write_text("\n".join(" ".join(d) for d in DOCS) + "\n", encoding="utf-8")
    index = tmp_path / "ref.tlx"
    assert run_cli(["index", "build", str(docs), "-o", str(index)]).code == 0
    study = _study([{"id": "wi-0", "task": "word_intrusion", "topic": 0, "options": ["b", "x", "a", "c"],
                     "answer": "x", "top_words": ["a", "b", "c"], "check": False}])
    study.save(tmp_path / "study.json")
    out = run_cli(["human", "auto-intrusion", str(tmp_path / "study.json"), "--reference", str(index),
                   "--method", "pmi", "-o", str(tmp_path / "auto.csv"), "--format", "json"])
    assert out.code == 0, out.err
    report = json.loads(out.out)
    assert report["annotator"] == "auto:pmi" and report["accuracy"] == 1.0 and report["chance"] == 0.25
    assert "auto:pmi" in (tmp_path / "auto.csv").read_text(encoding="utf-8")


@pytest.mark.xdist_group("reuters_lda")
def test_auto_intrusion_beats_chance_on_reuters(reuters, reuters_lda):
    """A word-intrusion study of the Reuters LDA's topics; the reference is the 3,019 test stories (not the
    training text the model saw).  Chance is 1/6 (five topic words and an intruder)."""
    from tealeaves.human import build_study
    from tealeaves.index import build_index

    train, test, _ = reuters
    ks = (20, 40) if FULL else (20,)
    reference = build_index(test, name="reuters-test")
    correct, total = 0, 0
    for k in ks:
        study = build_study(reuters_lda(k, quick=not FULL), tasks=("word_intrusion",), seed=0, n_checks=0)
        res = auto_intrusion(study, reference, method="npmi")
        correct += int(res.predictions["correct"].sum())
        total += len(res.predictions)
        chance = res.chance
    accuracy = correct / total
    print(f"automated word intrusion (npmi, doc): {correct}/{total} = {accuracy:.3f}, chance {chance:.3f}")
    assert chance == pytest.approx(1 / 6)
    # beats chance clearly: at least half right, and a one-sided binomial test against 1/6
    assert accuracy >= 0.5
    p_value = sum(math.comb(total, j) * (1 / 6) ** j * (5 / 6) ** (total - j)
                  for j in range(correct, total + 1))
    assert p_value < 1e-4
