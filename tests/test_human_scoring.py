"""Scoring (Chang et al. 2009 eqs. 1-2), import of results, agreement and correlation."""

from __future__ import annotations

import json
import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tealeaves.cli import main
from tealeaves.errors import EmptyInputError, InputNotFoundError
from tealeaves.human.agreement import (
    AgreementUndefined,
    krippendorff_alpha,
    spearman_brown,
    split_half_reliability,
)
from tealeaves.human.correlation import (
    CorrelationError,
    correlate,
    kendall,
    pearson,
    read_topic_table,
    spearman,
)
from tealeaves.human.results import ResultsError, parse_column_map, read_results
from tealeaves.human.scoring import model_precision, score, topic_log_odds
from tealeaves.human.study import Study, build_study
from tealeaves.models.base import FixedTopicModel

OIL = ["oil", "opec", "bpd", "crude", "gulf"]
DIVIDEND = ["dividend", "split", "stock", "record", "payout", "quarterly", "shareholders", "pay", "cts",
            "div"]
FILLER = [f"f{i}" for i in range(30)]


def oil_model() -> FixedTopicModel:
    """An oil topic and a dividend topic over 45 words; 'dividend' is the only admissible intruder for oil."""
    vocab = OIL + DIVIDEND + FILLER
    phi = np.full((2, len(vocab)), 1e-4)
    for r, w in enumerate(OIL):
        phi[0, vocab.index(w)] = 1.0 - 0.1 * r
    for r, w in enumerate(DIVIDEND):
        phi[1, vocab.index(w)] = 1.0 - 0.05 * r
    for i, w in enumerate(FILLER):  # fill the top half of the oil topic so the dividend words fall below it
        phi[0, vocab.index(w)] = 0.01 - 1e-5 * i
    phi[0, vocab.index("dividend")] = 5e-5  # bottom of the oil topic; the other dividend words tie at 1e-4
    for w in DIVIDEND[1:]:
        phi[0, vocab.index(w)] = 0.02  # ...and lift them into the oil topic's top half, out of the candidates
    phi /= phi.sum(axis=1, keepdims=True)
    return FixedTopicModel(phi, vocab)


@pytest.fixture
def oil_study(tmp_path):
    study = build_study(oil_model(), tasks=["word_intrusion"], topics=[0], n_checks=0, seed=0, name="oil")
    return study, study.save(tmp_path / "oil.json")


def test_oil_example_model_precision(oil_study, tmp_path, capsys):
    study, path = oil_study
    (item,) = study.items
    assert item["answer"] == "dividend" and sorted(item["options"]) == sorted(OIL + ["dividend"])
    rows = [{"item_id": item["id"], "annotator": f"r{s}", "response": "dividend" if s < 7 else "gulf"}
            for s in range(8)]
    pd.DataFrame(rows).to_csv(tmp_path / "res.csv", index=False)
    assert main(["human", "score", str(tmp_path / "res.csv"), "--study", str(path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["topics"] == [{"topic": "0", "model_precision": 0.875, "n_word_intrusion": 8}]
    assert report["signature"].startswith("human|study=")
    assert model_precision(["dividend"] * 7 + ["gulf"], "dividend") == 7 / 8


def test_topic_log_odds_by_hand():
    theta = {"3": 0.5, "7": 0.3, "1": 0.15, "9": 0.05}
    assert topic_log_odds(theta, "9", ["9"] * 5) == 0.0
    # log(.05/.05) + log(.05/.05) + log(.05/.15) + log(.05/.5), averaged over four readers
    expected = (0 + 0 + math.log(1 / 3) + math.log(1 / 10)) / 4
    assert topic_log_odds(theta, "9", ["9", "9", "1", "3"]) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(-(1.098612 + 2.302585) / 4, abs=1e-6)  # ln 3, ln 10


def topic_study():
    item = {"id": "ti-0", "task": "topic_intrusion", "document": "test/1", "title": "t", "text": "x",
            "options": ["3", "7", "1", "9"], "option_words": {},
            "theta": {"3": 0.5, "7": 0.3, "1": 0.15, "9": 0.05},
            "answer": "9", "check": False}
    return Study([item], name="ti", seed=0)


def test_topic_log_odds_through_scoring():
    study = topic_study()
    frame = pd.DataFrame({"item_id": ["ti-0"] * 4, "annotator": list("abcd"),
                          "response": ["9", "9", "1", "3"]})
    report = score(read_results(frame, study), study)
    (doc,) = report["documents"]
    assert doc["document"] == "test/1" and doc["n"] == 4
    assert doc["topic_log_odds"] == pytest.approx((math.log(1 / 3) + math.log(1 / 10)) / 4)


def rating_study(n_topics=6, seed=0):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(40, 0.1), size=n_topics)
    return build_study(FixedTopicModel(phi, [f"w{i}" for i in range(40)]), tasks=["word_intrusion", "rating"],
                       n_checks=2, seed=seed, rating_words=5)


def simulated_results(study, annotators, rng, cheat=None):
    rows = []
    for a in annotators:
        for item in study.items:
            if item.get("check"):
                resp = item["expected"][0] if a != cheat else [o for o in item["options"]
                                                               if o not in item["expected"]][0]
            elif item["task"] == "rating":
                resp = str(rng.integers(0, 3))
            else:
                resp = item["answer"] if rng.random() < 0.6 else item["options"][int(rng.integers(6))]
            rows.append({"item_id": item["id"], "annotator": a, "response": resp})
    return pd.DataFrame(rows)


def test_scores_agree_with_independent_computation_and_checks_exclude():
    study = rating_study()
    rng = np.random.default_rng(1)
    frame = simulated_results(study, ["a", "b", "c", "d", "cheat"], rng, cheat="cheat")
    report = score(read_results(frame, study), study)
    assert report["screening"]["excluded"] == ["cheat"]
    assert report["screening"]["per_annotator"]["cheat"]["passed"] == 0
    kept = frame[frame.annotator != "cheat"]
    for topic in report["topics"]:
        k = int(topic["topic"])
        wi = kept[kept.item_id == f"wi-{k}"]
        answer = study.by_id[f"wi-{k}"]["answer"]
        assert topic["model_precision"] == pytest.approx((wi.response == answer).mean())
        r = kept[kept.item_id == f"r-{k}"].response.astype(int)
        assert topic["mean_rating"] == pytest.approx(r.mean()) and topic["n_mean_rating"] == 4
    ratings = kept[kept.item_id.str.startswith("r-")]
    table = ratings.pivot(index="annotator", columns="item_id", values="response")
    ref = krippendorff.alpha(reliability_data=table.astype(float).to_numpy(), level_of_measurement="ordinal")
    assert report["agreement"]["rating"]["krippendorff_alpha_ordinal"] == pytest.approx(ref)
    assert report["agreement"]["word_intrusion_split_half"]["n_units"] == 6


def test_everyone_failing_checks_is_an_error():
    study = rating_study()
    frame = simulated_results(study, ["x"], np.random.default_rng(0), cheat="x")
    with pytest.raises(EmptyInputError, match="failed the check items"):
        score(read_results(frame, study), study)


# -- import ---------------------------------------------------------------------------------------------
def test_import_bad_rows_are_excluded_and_counted():
    study = rating_study()
    study.annotators = ["a", "b"]
    wi = study.by_id["wi-0"]
    rows = [
        ("wi-0", "a", wi["answer"]),
        ("wi-0", "a", wi["answer"]),          # exact duplicate: kept once
        ("wi-1", "a", "not-an-option"),       # invalid response
        ("r-0", "a", "coherent"),             # label accepted -> "2"
        ("r-1", "a", "3"),                    # outside 2/1/0
        ("r-2", "b", "1"), ("r-2", "b", "0"),  # conflicting: both excluded
        ("nope", "a", "1"),                   # unknown item
        ("r-0", "zed", "1"),                  # unknown annotator
        ("r-3", "", "1"),                     # missing value
        ("r-4", "b", "1.0"),                  # numeric spelling accepted
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "response"])
    res = read_results(frame, study)
    assert res.report["rows_read"] == 11 and res.report["rows_kept"] == 3
    assert res.report["excluded"] == {"missing_value": 1, "unknown_item": 1, "unknown_annotator": 1,
                                      "invalid_response": 2, "duplicate_row": 1, "conflicting_duplicate": 2}
    assert sorted(res.frame.response) == ["1", "2", wi["answer"]]
    with pytest.raises(ResultsError, match="strict"):
        read_results(frame, study, strict=True)


def test_import_missing_columns_mapping_and_empty(tmp_path):
    study = rating_study()
    frame = pd.DataFrame({"Input.item": ["r-0", "r-1"], "WorkerId": ["w1", "w1"], "Answer.rating": ["2", "0"],
                          "WorkTimeInSeconds": ["12.5", "3"]})
    with pytest.raises(ResultsError, match=r"\['item_id', 'annotator', 'response'\]"):
        read_results(frame, study)
    cols = parse_column_map("item_id=Input.item,annotator=WorkerId,response=Answer.rating,"
                            "time=WorkTimeInSeconds")
    res = read_results(frame, study, cols)
    assert list(res.frame.response) == ["2", "0"] and list(res.frame.time) == [12.5, 3.0]
    with pytest.raises(ResultsError, match="OURS=THEIRS"):
        parse_column_map("worker=WorkerId")
    empty = tmp_path / "empty.csv"
    empty.write_text("item_id,annotator,response\n")
    with pytest.raises(EmptyInputError):
        read_results(empty, study)
    with pytest.raises(InputNotFoundError, match="does not exist"):
        read_results(tmp_path / "absent.csv", study)
    only_bad = pd.DataFrame({"item_id": ["zzz"], "annotator": ["a"], "response": ["1"]})
    with pytest.raises(EmptyInputError, match="no usable"):
        read_results(only_bad, study)


def test_cli_score_reads_real_export_with_column_mapping(tmp_path, capsys):
    study = rating_study()
    path = study.save(tmp_path / "s.json")
    rng = np.random.default_rng(3)
    frame = simulated_results(study, ["a", "b", "c"], rng).rename(
        columns={"item_id": "Input.item", "annotator": "WorkerId", "response": "Answer"})
    frame.to_csv(tmp_path / "mturk.tsv", sep="\t", index=False)
    code = main(["human", "score", str(tmp_path / "mturk.tsv"), "--study", str(path), "--format", "json",
                 "--columns", "item_id=Input.item,annotator=WorkerId,response=Answer",
                 "-o", str(tmp_path / "scores.json")])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_annotators"] == 3 and len(out["topics"]) == 6
    assert json.loads((tmp_path / "scores.json").read_text())["topics"] == out["topics"]
    assert main(["human", "score", str(tmp_path / "mturk.tsv"), "--study", str(path), "--format", "json",
                 "--columns", "item_id=Input.item,annotator=WorkerId,response=Answer",
                 "--annotators", "a,b"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_annotators"] == 2 and out["import"]["excluded"]["unknown_annotator"] == len(study)
    assert main(["human", "score", str(tmp_path / "mturk.tsv"), "--study", str(path)]) == 1
    assert "--columns" in capsys.readouterr().err


# -- agreement ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_reference_package(level):
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 3, size=40)
    data = np.where(rng.random((5, 40)) < 0.7, truth, rng.integers(0, 3, size=(5, 40))).astype(float)
    data[rng.random((5, 40)) < 0.2] = np.nan
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(ref, abs=1e-12)


def test_krippendorff_alpha_worked_example():
    # Krippendorff (2011) nominal example: 4 coders, 12 units -> alpha = 0.743
    nan = np.nan
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.743, abs=5e-4)
    with pytest.raises(AgreementUndefined):
        krippendorff_alpha(np.ones((3, 4)), "nominal")


def test_split_half_reliability():
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    rng = np.random.default_rng(0)
    consistent = [[p] * 8 for p in rng.random(20)]  # every annotator agrees, topics differ
    assert split_half_reliability(consistent, seed=1)["spearman_brown"] == pytest.approx(1.0)
    p = rng.random(30)
    noisy = [list((rng.random(8) < pi).astype(float)) for pi in p]
    a = split_half_reliability(noisy, seed=4, n_splits=50)
    assert a == split_half_reliability(noisy, seed=4, n_splits=50)
    assert a != split_half_reliability(noisy, seed=5, n_splits=50)
    # independent recomputation with scipy on the same seeded splits
    gen = np.random.default_rng(4)
    rs = []
    for _ in range(50):
        halves = [(lambda q: (q[:4].mean(), q[4:].mean()))(gen.permutation(np.asarray(u))) for u in noisy]
        x, y = zip(*halves)
        rs.append(stats.pearsonr(x, y)[0])
    assert a["r_half"] == pytest.approx(np.mean(rs))
    assert a["spearman_brown"] == pytest.approx(2 * np.mean(rs) / (1 + np.mean(rs)))
    with pytest.raises(AgreementUndefined):
        split_half_reliability([[1, 0], [1, 1]])


# -- correlation -----------------------------------------------------------------------------------------
def test_correlations_match_scipy_with_ties():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 5, 40).astype(float)
    y = x + rng.integers(0, 4, 40)
    assert pearson(x, y) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
    assert kendall(x, y) == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
    with pytest.raises(CorrelationError, match="constant"):
        pearson(np.ones(5), x[:5])


def test_bootstrap_is_seeded_and_matches_an_independent_loop():
    rng = np.random.default_rng(3)
    human = {str(k): float(v) for k, v in enumerate(rng.random(25))}
    measure = {k: v + 0.3 * rng.random() for k, v in human.items()}
    a = correlate(human, measure, n_boot=300, seed=9)
    assert a == correlate(human, measure, n_boot=300, seed=9)
    assert a["spearman"]["ci"] != correlate(human, measure, n_boot=300, seed=10)["spearman"]["ci"]
    keys = sorted(human, key=int)
    x, y = np.array([human[k] for k in keys]), np.array([measure[k] for k in keys])
    idx = np.random.default_rng(9).integers(0, 25, size=(300, 25))
    boots = [stats.kendalltau(x[i], y[i])[0] for i in idx]
    lo, hi = np.quantile(boots, [0.025, 0.975])
    assert a["kendall"]["ci"]["low"] == pytest.approx(lo) and a["kendall"]["ci"]["high"] == pytest.approx(hi)
    assert a["pearson"]["estimate"] == pytest.approx(stats.pearsonr(x, y)[0])
    assert a["signature"].startswith("correlation|human=human|measure=measure|boot=300|seed=9")
    with pytest.raises(CorrelationError, match="share 2 topics"):
        correlate({"1": 1, "2": 2}, {"1": 1, "2": 3})


def test_cli_correlate_with_plot(tmp_path, capsys):
    rng = np.random.default_rng(5)
    topics = [{"topic": k, "model_precision": float(v)} for k, v in enumerate(rng.random(12))]
    (tmp_path / "scores.json").write_text(json.dumps({"topics": topics}))
    mp = {str(t["topic"]): t["model_precision"] for t in topics}
    npmi = {k: v + rng.normal(0, 0.2) for k, v in mp.items()}
    pd.DataFrame({"topic": list(npmi), "npmi": list(npmi.values())}).to_csv(tmp_path / "m.csv", index=False)
    code = main(["human", "correlate", str(tmp_path / "scores.json"), "--measures", str(tmp_path / "m.csv"),
                 "--n-boot", "200", "--plot", str(tmp_path / "plot.png"), "--format", "json"])
    assert code == 0
    (out,) = json.loads(capsys.readouterr().out)
    keys = sorted(mp)
    assert out["spearman"]["estimate"] == pytest.approx(
        stats.spearmanr([mp[k] for k in keys], [npmi[k] for k in keys])[0])
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"
    assert read_topic_table(tmp_path / "m.csv")["npmi"] == pytest.approx(npmi)
    dup = tmp_path / "dup.csv"
    dup.write_text("topic,npmi\n1,0.2\n1,0.3\n")
    with pytest.raises(CorrelationError, match="more than once"):
        read_topic_table(dup)
